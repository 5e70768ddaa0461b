"""``hupai table new --cap/--dealer-double/--option`` and ``hupai table options`` (SQLite)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hupai.cli import main

#: Chen (player 2) self-draws a plain hand: 6 from each; the dealer Ann 12 when doubled.
CHEN_SELF_DRAWS = {
    "winner": 2,
    "win": "self_draw",
    "hand": "123m456m789m123p55s",
    "win_tile": "5s",
}


def run(db: str, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["table", "--db", db, *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'tables.sqlite3'}"


def new_table(db: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[str, str]:
    code, out, err = run(
        db, capsys, "new", "--city", "shaanxi", "--players", "Ann", "Bo", "Chen", "Dee", *extra
    )
    assert code == 0, err
    token = re.search(r"write token: (\S+)", out)
    assert token
    return token.group(1), out


def add_chen(db: str, capsys: pytest.CaptureFixture[str], token: str, tmp_path: Path) -> str:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(CHEN_SELF_DRAWS))
    code, out, err = run(db, capsys, "add", token, str(path))
    assert code == 0, err
    return out


def test_new_takes_the_house_rules_and_every_hand_uses_them(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Ann deals: doubled she owes 12, capped at 10; Bo and Dee 6 each: Chen +22."""
    token, out = new_table(db, capsys, "--cap", "10", "--dealer-double")
    assert "house rules: cap 10, dealer double yes" in out
    add_chen(db, capsys, token, tmp_path)
    code, out, _ = run(db, capsys, "show", token, "--json")
    assert code == 0 and json.loads(out)["totals"] == [-10, -6, 22, -6]


def test_a_city_variant_is_an_option(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = new_table(db, capsys, "--option", "pure_suit_double=true")
    assert "options: pure_suit_double=true" in out


def test_options_changes_the_house_rules_and_rescores(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    token, _ = new_table(db, capsys)
    add_chen(db, capsys, token, tmp_path)
    code, out, err = run(db, capsys, "options", token, "--dealer-double")
    assert code == 0, err
    assert "dealer double yes" in out
    assert "totals: Ann -12, Bo -6, Chen 24, Dee -6" in out
    code, out, _ = run(db, capsys, "options", token, "--no-dealer-double")
    assert "totals: Ann -6, Bo -6, Chen 18, Dee -6" in out


def test_options_refuses_a_bad_value_naming_it(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    token, _ = new_table(db, capsys)
    code, _, err = run(db, capsys, "options", token, "--cap", "-3")
    assert code != 0 and "options.cap" in err


def test_options_city_scores_every_hand_again_and_back(
    db: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    token, _ = new_table(db, capsys, "--cap", "10")
    add_chen(db, capsys, token, tmp_path)
    code, before, _ = run(db, capsys, "show", token, "--json")
    code, out, err = run(db, capsys, "options", token, "--city", "guiyang")
    assert code == 0, err
    assert "city: guiyang" in out and "cap 10" in out
    code, out, err = run(db, capsys, "options", token, "--city", "shaanxi")
    assert code == 0, err
    _, after, _ = run(db, capsys, "show", token, "--json")
    assert json.loads(after)["totals"] == json.loads(before)["totals"]


def test_options_city_refuses_an_unknown_city_naming_it(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    token, _ = new_table(db, capsys)
    code, _, err = run(db, capsys, "options", token, "--city", "atlantis")
    assert code != 0 and "atlantis" in err and "guiyang" in err
