"""``hupai table new|add|show|export|undo`` on a SQLite file."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from hupai.cli import main

WIN = {"win": "self_draw", "hand": "123m456m789m123p55s", "win_tile": "5s"}
REAL = Path(__file__).resolve().parents[1] / "vision" / "fixtures" / "real"


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'tables.sqlite3'}"


def run(db: str, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["table", "--db", db, *args])
    out, err = capsys.readouterr()
    return code, out, err


def new_table(db: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[str, str]:
    code, out, _ = run(
        db, capsys, "new", "--city", "shaanxi", "--players", "Ann", "Bo", "Chen", "Dee", *extra
    )
    assert code == 0
    write = re.search(r"write token: (\S+)", out)
    read = re.search(r"read token:  (\S+)", out)
    assert write and read
    return write.group(1), read.group(1)


def hand_file(tmp_path: Path) -> str:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(WIN))
    return str(path)


def test_new_prints_a_write_and_a_read_token(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    write, read = new_table(db, capsys)
    assert write != read


def test_add_with_the_winner_by_name_prints_deltas_and_totals(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write, _ = new_table(db, capsys)
    code, out, _ = run(db, capsys, "add", write, hand_file(tmp_path), "--winner", "chen")
    assert code == 0
    assert "Chen +18" in out
    assert "next: East round, deal 2, Bo deals" in out


def test_a_draw_in_nanning_needs_who_drew_the_last_tile(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        db, capsys, "new", "--city", "nanning", "--players", "Ann", "Bo", "Chen", "Dee"
    )
    write = re.search(r"write token: (\S+)", out)
    assert write
    code, _, err = run(db, capsys, "add", write.group(1), "--draw")
    assert code == 2 and "last_drawer: required in nanning" in err
    code, out, _ = run(db, capsys, "add", write.group(1), "--draw", "--last-drawer", "Dee")
    assert code == 0 and "Dee deals" in out


def test_show_lists_the_hands_with_their_dealer(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write, read = new_table(db, capsys, "--rate", "0.5")
    run(db, capsys, "add", write, hand_file(tmp_path), "--winner", "2")
    code, out, _ = run(db, capsys, "show", read)
    assert code == 0
    assert re.search(r"1\s+East 1\s+dealer Ann", out)
    assert "money:  Ann -3.00" in out


def test_export_csv_to_a_file_refuses_to_overwrite(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write, read = new_table(db, capsys)
    run(db, capsys, "add", write, hand_file(tmp_path), "--winner", "Bo")
    out_file = tmp_path / "game.csv"
    assert run(db, capsys, "export", read, "--out", str(out_file))[0] == 0
    rows = list(csv.DictReader(io.StringIO(out_file.read_text())))
    assert rows[0]["total Bo"] == "18"
    code, _, err = run(db, capsys, "export", read, "--out", str(out_file))
    assert code == 2 and "add --overwrite" in err


def test_export_json_to_stdout(db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    write, _ = new_table(db, capsys)
    run(db, capsys, "add", write, hand_file(tmp_path), "--winner", "0")
    code, out, _ = run(db, capsys, "export", write, "--format", "json")
    assert code == 0 and json.loads(out)["totals"] == [36, -12, -12, -12]


def test_undo_removes_the_hand_just_added(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write, _ = new_table(db, capsys)
    run(db, capsys, "add", write, hand_file(tmp_path), "--winner", "0")
    code, out, _ = run(db, capsys, "undo", write)
    assert code == 0 and "hand 1 removed" in out and "totals: Ann 0" in out


def test_the_read_token_cannot_add(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, read = new_table(db, capsys)
    code, _, err = run(db, capsys, "add", read, hand_file(tmp_path), "--winner", "0")
    assert code == 2 and "read-only link" in err


def test_an_unknown_player_is_named(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write, _ = new_table(db, capsys)
    code, _, err = run(db, capsys, "add", write, hand_file(tmp_path), "--winner", "Zed")
    assert code == 2 and "--winner 'Zed': not a player (Ann, Bo, Chen, Dee, or 0-3)" in err


def test_a_photo_that_cannot_be_scored_adds_nothing_and_says_why(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    write, read = new_table(db, capsys)
    photo = str(REAL / "row14a.jpg")  # a real photo of 13 tiles and a flower: no win
    code, _, err = run(
        db, capsys, "add", write, "--photo", photo, "--winner", "1", "--win", "self_draw"
    )
    assert code == 2 and "flowers: shaanxi is played without flowers" in err
    assert "0 hands" in run(db, capsys, "show", read)[1]


def test_list_shows_the_tables_with_their_tokens(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert run(db, capsys, "list")[1].startswith("no tables yet")
    write, read = new_table(db, capsys)
    run(db, capsys, "add", write, hand_file(tmp_path), "--winner", "0")
    code, out, _ = run(db, capsys, "list")
    assert code == 0 and "shaanxi, Ann, Bo, Chen, Dee; 1 hands" in out
    assert write in out and read in out


def test_db_may_come_after_the_action(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write, _ = new_table(db, capsys)
    code = main(["table", "show", write, "--db", db])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "0 hands" in out


def test_db_after_the_action_wins_over_none_before(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    elsewhere = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    write, _ = new_table(db, capsys)
    assert main(["table", "--db", elsewhere, "show", write, "--db", db]) == 0
    capsys.readouterr()


def test_csv_export_has_the_bom_the_service_sends(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write, _ = new_table(db, capsys)
    out_file = tmp_path / "t.csv"
    assert run(db, capsys, "export", write, "--out", str(out_file))[0] == 0
    assert out_file.read_bytes().startswith(b"\xef\xbb\xbfhand,")


def test_a_ledger_refusal_is_one_line_from_the_cli(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(db, capsys, "show", "NoSuchTableToken123")
    assert code == 2
    assert err.strip().count("\n") == 0 and "no such table" in err
