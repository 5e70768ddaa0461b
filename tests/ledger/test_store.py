"""The ledger's store against both backends (SQLite file, a real PostgreSQL server): hands in,
totals out, recomputation after an edit, history and undo, two writers, exports."""

from __future__ import annotations

import csv
import io
import threading
from typing import Any

import pytest

from hupai.ledger.errors import Invalid, NotFound, ReadOnly, Stale
from hupai.ledger.store import Ledger, PhotoRecord

PLAYERS = ["Ann", "Bo", "Chen", "Dee"]
GUIYANG_WIN = {"hand": "123p123p456m789m55s", "win_tile": "5s", "indicator": "9p"}


def shaanxi_win(winner: int, **extra: Any) -> dict[str, Any]:
    return {
        "winner": winner,
        "win": "self_draw",
        "hand": "123m456m789m123p55s",
        "win_tile": "5s",
        **extra,
    }


def guiyang_win(winner: int) -> dict[str, Any]:
    return {"winner": winner, "win": "self_draw", **GUIYANG_WIN}


def new_table(ledger: Ledger, city: str = "shaanxi", **extra: Any) -> dict[str, Any]:
    return ledger.create_table({"city": city, "players": PLAYERS, **extra})


def test_a_new_table_starts_everyone_at_the_starting_points(ledger: Ledger) -> None:
    table = new_table(ledger, starting_points=500, first_dealer=2)
    view = ledger.view(table["read_token"])
    assert view["totals"] == [500] * 4
    assert (view["next"]["dealer_name"], view["next"]["round_wind"]) == ("Chen", "1z")


def test_the_read_link_and_the_write_link_differ(ledger: Ledger) -> None:
    table = new_table(ledger)
    assert table["read_token"] != table["write_token"]
    assert len(table["write_token"]) >= 22 and table["write_token"].isalnum()
    assert "write_token" not in ledger.view(table["read_token"])


def test_the_read_link_cannot_add_a_hand(ledger: Ledger) -> None:
    table = new_table(ledger)
    with pytest.raises(ReadOnly):
        ledger.add_hand(table["read_token"], shaanxi_win(1))


def test_an_unknown_token_is_not_found(ledger: Ledger) -> None:
    with pytest.raises(NotFound, match="no such table"):
        ledger.view("x" * 24)


def test_hands_add_up_to_running_totals_by_player(ledger: Ledger) -> None:
    table = new_table(ledger, first_dealer=1)
    token = table["write_token"]
    first = ledger.add_hand(token, shaanxi_win(1))  # the dealer (Bo) self-draws: 3×2×2 each
    assert first["totals"] == [-12, 36, -12, -12]
    second = ledger.add_hand(token, shaanxi_win(3))  # Dee, not the dealer: 3×2 each
    assert second["totals"] == [-18, 30, -18, 6]
    assert second["hand"]["seating"]["dealer_name"] == "Bo"
    assert second["next"]["dealer_name"] == "Chen"


def test_the_rate_turns_points_into_money(ledger: Ledger) -> None:
    table = new_table(ledger, rate="0.5")
    ledger.add_hand(table["write_token"], shaanxi_win(2))
    assert ledger.view(table["read_token"])["money"] == ["-3.00", "-3.00", "9.00", "-3.00"]


def test_a_hand_that_does_not_score_is_refused_with_the_reason(ledger: Ledger) -> None:
    table = new_table(ledger)
    with pytest.raises(Invalid) as caught:
        ledger.add_hand(table["write_token"], shaanxi_win(1, hand="123m456m789m124p55s"))
    assert caught.value.extra["reason"] == "not_a_winning_hand"
    assert ledger.view(table["read_token"])["hand_count"] == 0


def test_a_malformed_hand_names_the_field(ledger: Ledger) -> None:
    table = new_table(ledger)
    with pytest.raises(Invalid, match="winner: 7 is not a player"):
        ledger.add_hand(table["write_token"], shaanxi_win(7))


def test_editing_an_earlier_hand_recomputes_every_later_hand(ledger: Ledger) -> None:
    table = new_table(ledger, "guiyang")
    token = table["write_token"]
    for _ in range(3):  # the dealer wins three in a row: streaks 1, 2, 3
        ledger.add_hand(token, guiyang_win(0))
    # ×1, ×2, ×3 on the hand's share (the chickens settle apart, unmultiplied)
    assert [h["deltas"][0] for h in ledger.view(token)["hands"]] == [15, 24, 33]
    ledger.edit_hand(token, 1, guiyang_win(1), revision=1)  # Bo won the first: the deal passes
    hands = ledger.view(token)["hands"]
    assert [h["seating"]["dealer_name"] for h in hands] == ["Ann", "Bo", "Chen"]
    assert [h["seating"]["dealer_streak"] for h in hands] == [1, 1, 1]
    assert ledger.view(token)["totals"] == [25, 5, -15, -15]


def test_a_stale_edit_is_refused_and_changes_nothing(ledger: Ledger) -> None:
    table = new_table(ledger)
    token = table["write_token"]
    ledger.add_hand(token, shaanxi_win(1))
    ledger.edit_hand(token, 1, shaanxi_win(2), revision=1)
    with pytest.raises(Stale, match="changed since you loaded it"):
        ledger.edit_hand(token, 1, shaanxi_win(3), revision=1)
    assert ledger.view(token)["hands"][0]["winner"] == 2


def test_an_edit_keeps_the_previous_version(ledger: Ledger) -> None:
    table = new_table(ledger)
    token = table["write_token"]
    ledger.add_hand(token, shaanxi_win(1))
    ledger.edit_hand(token, 1, shaanxi_win(2), revision=1)
    versions = ledger.history(token, 1)
    assert [(v["revision"], v["action"], v["entry"]["winner"]) for v in versions] == [
        (1, "add", 1),
        (2, "edit", 2),
    ]


def test_undo_restores_the_version_before_the_latest_change(ledger: Ledger) -> None:
    table = new_table(ledger)
    token = table["write_token"]
    ledger.add_hand(token, shaanxi_win(1))
    before = ledger.view(token)["totals"]
    ledger.edit_hand(token, 1, shaanxi_win(2), revision=1)
    ledger.undo(token)
    assert ledger.view(token)["totals"] == before


def test_deleting_a_hand_recomputes_and_undo_brings_it_back(ledger: Ledger) -> None:
    table = new_table(ledger)
    token = table["write_token"]
    ledger.add_hand(token, shaanxi_win(1))  # passes: Bo deals the second
    ledger.add_hand(token, shaanxi_win(1))  # Bo, the dealer, wins
    deleted = ledger.delete_hand(token, 1, revision=1)
    hands = ledger.view(token)["hands"]
    assert [h["number"] for h in hands] == [2]
    assert hands[0]["seating"]["dealer_name"] == "Ann"  # hand 2 is now the first
    assert deleted["totals"] == [-6, 18, -6, -6]
    ledger.undo(token, 1)
    assert [h["number"] for h in ledger.view(token)["hands"]] == [1, 2]
    assert ledger.view(token)["totals"] == [-18, 54, -18, -18]


def test_undo_of_an_added_hand_deletes_it(ledger: Ledger) -> None:
    table = new_table(ledger)
    token = table["write_token"]
    ledger.add_hand(token, shaanxi_win(1))
    ledger.undo(token)
    assert ledger.view(token)["hand_count"] == 0


def test_a_draw_moves_the_deal_as_the_city_says(ledger: Ledger) -> None:
    table = new_table(ledger, "nanning")
    ledger.add_hand(table["write_token"], {"kind": "draw", "last_drawer": 2})
    assert ledger.view(table["write_token"])["next"]["dealer_name"] == "Chen"


def test_two_writers_adding_at_once_both_land(ledger: Ledger) -> None:
    table = new_table(ledger)
    token = table["write_token"]
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def add(winner: int) -> None:
        other = Ledger(ledger.url)  # a second process's own connection pool
        try:
            start.wait()
            for _ in range(3):
                other.add_hand(token, shaanxi_win(winner))
        except BaseException as exc:
            errors.append(exc)
        finally:
            other.close()

    threads = [threading.Thread(target=add, args=(w,)) for w in (0, 1, 2, 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    view = ledger.view(token)
    assert view["hand_count"] == 12
    assert sorted(h["number"] for h in view["hands"]) == list(range(1, 13))
    assert sum(view["totals"]) == 0


def test_the_photo_is_kept_with_its_reading_and_thumbnail(ledger: Ledger) -> None:
    table = new_table(ledger)
    token = table["write_token"]
    ledger.add_hand(token, shaanxi_win(1), PhotoRecord({"hand": "x"}, b"\xff\xd8jpeg"))
    assert ledger.thumbnail(token, 1) == b"\xff\xd8jpeg"
    assert ledger.hand(token, 1)["reading"] == {"hand": "x"}
    assert ledger.view(token)["hands"][0]["photo"] is True


def test_the_csv_export_has_a_line_per_hand_with_deltas_and_totals(ledger: Ledger) -> None:
    table = new_table(ledger)
    token = table["write_token"]
    ledger.add_hand(token, shaanxi_win(2))
    ledger.add_hand(token, {"kind": "draw"})
    rows = list(csv.DictReader(io.StringIO(ledger.export_csv(token))))
    assert [r["kind"] for r in rows] == ["win", "draw"]
    assert (rows[0]["winner"], rows[0]["delta Chen"], rows[1]["total Chen"]) == ("Chen", "18", "18")


def test_the_json_export_holds_every_hand_with_its_result(ledger: Ledger) -> None:
    table = new_table(ledger)
    ledger.add_hand(table["write_token"], shaanxi_win(2))
    data = ledger.export_json(table["read_token"])
    assert data["hands"][0]["result"]["deltas"] == [-6, -6, 18, -6]
    assert data["players"] == PLAYERS


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"players": ["A", "B", "C"]}, "players: expected 4 names"),
        ({"players": ["A", "A", "C", "D"]}, "two players share a name"),
        ({"city": "atlantis"}, "city: 'atlantis' is not a known city"),
        ({"rate": "lots"}, "rate: 'lots' is not a number"),
        ({"first_dealer": 4}, "first_dealer: 4 is not a player"),
        ({"options": {"min_tai": 2}}, "options.min_tai: unknown field"),
        ({"succession": "winner"}, "shaanxi's seed says who deals next"),
        ({"colour": "red"}, "'colour': unknown field"),
    ],
)
def test_a_bad_table_is_refused_naming_the_field(
    ledger: Ledger, change: dict[str, Any], message: str
) -> None:
    with pytest.raises(Invalid, match=message):
        ledger.create_table({"city": "shaanxi", "players": PLAYERS, **change})


def test_adding_a_hand_plays_only_that_hand(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hupai.ledger.replay as replay

    table = new_table(ledger)
    token = table["write_token"]
    for winner in (0, 1, 2):
        ledger.add_hand(token, shaanxi_win(winner))
    played: list[object] = []
    real_play = replay.play
    monkeypatch.setattr(replay, "play", lambda *a: played.append(a) or real_play(*a))
    ledger.add_hand(token, shaanxi_win(3))
    assert len(played) == 1
    played.clear()
    ledger.edit_hand(token, 1, shaanxi_win(2), revision=1)
    # the edited hand, and the two after it whose seating changed; the last hand comes to
    # the seating it had, so only its totals move
    assert len(played) == 3


def test_an_edit_that_keeps_the_deal_scores_only_the_edited_hand(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hupai.ledger.replay as replay

    token = new_table(ledger)["write_token"]
    for winner in (1, 2, 3, 0, 1):
        ledger.add_hand(token, shaanxi_win(winner))
    played: list[object] = []
    real_play = replay.play
    monkeypatch.setattr(replay, "play", lambda *a: played.append(a) or real_play(*a))
    ledger.edit_hand(token, 1, shaanxi_win(2), revision=1)  # Bo or Chen: the deal passes
    assert len(played) == 1


@pytest.mark.parametrize("winners", [(2, 1, 2, 3, 0, 1), (0, 1, 0, 0, 3, 2)])
def test_an_edited_game_equals_the_game_played_as_edited(
    ledger: Ledger, winners: tuple[int, ...]
) -> None:
    edited = new_table(ledger)["write_token"]
    for winner in (1, *winners[1:]):
        ledger.add_hand(edited, shaanxi_win(winner))
    ledger.edit_hand(edited, 1, shaanxi_win(winners[0]), revision=1)
    direct = new_table(ledger)["write_token"]
    for winner in winners:
        ledger.add_hand(direct, shaanxi_win(winner))
    figures = ("seating", "deltas", "totals", "problem")
    hands = [{k: h[k] for k in figures} for h in ledger.view(edited)["hands"]]
    assert hands == [{k: h[k] for k in figures} for h in ledger.view(direct)["hands"]]
    assert ledger.view(edited)["next"] == ledger.view(direct)["next"]


def test_an_unreachable_database_is_a_clear_error_without_its_password() -> None:
    from hupai.ledger.errors import Unavailable

    ledger = Ledger("postgresql://hupai:s3cret@127.0.0.1:1/tables")
    with pytest.raises(Unavailable, match="cannot be used") as caught:
        ledger.create_table({"city": "shaanxi", "players": PLAYERS})
    assert "s3cret" not in caught.value.message and "***" in caught.value.message


def test_a_url_no_driver_can_open_is_named() -> None:
    from hupai.ledger.errors import Unavailable

    with pytest.raises(Unavailable, match="not a database URL hupai can open"):
        Ledger("nosuchdb://x/y").view("a" * 24)


def test_reading_never_waits_for_a_long_write(database_url: str) -> None:
    """A write transaction held open on one table (a long edit) blocks no reader, of that
    table or another."""
    from hupai.ledger.rows import writable_table

    ledger, writer = Ledger(database_url), Ledger(database_url)
    busy = new_table(ledger)["write_token"]
    other = new_table(ledger)
    ledger.add_hand(busy, shaanxi_win(1))
    holding, release = threading.Event(), threading.Event()

    def long_write() -> None:
        with writer._session() as session:
            writable_table(session, busy)
            holding.set()
            release.wait(30)

    held = threading.Thread(target=long_write)
    held.start()
    try:
        assert holding.wait(10)
        reads: list[object] = []
        reader = threading.Thread(
            target=lambda: reads.extend(
                [ledger.view(other["read_token"]), ledger.view(busy), ledger.export_csv(busy)]
            )
        )
        reader.start()
        reader.join(5)
        assert len(reads) == 3, "a read waited for the writer"
    finally:
        release.set()
        held.join()
        ledger.close()
        writer.close()


def test_csv_cells_cannot_run_as_formulas(ledger: Ledger) -> None:
    players = ['=HYPERLINK("http://x","y")', "@SUM(A1)", "+Chen", "-Dee"]
    token = ledger.create_table({"city": "shaanxi", "players": players})["write_token"]
    ledger.add_hand(token, shaanxi_win(0))
    rows = list(csv.reader(io.StringIO(ledger.export_csv(token))))
    text_cells = [cell for row in rows for cell in row if not cell.lstrip("-").isdigit()]
    assert not [c for c in text_cells if c[:1] in ("=", "+", "-", "@")]
    assert rows[1][3] == '\'=HYPERLINK("http://x","y")'  # the dealer, as text
    assert rows[0][-1] == "total -Dee" and rows[1][-1].lstrip("-").isdigit()


def test_csv_numbers_hands_as_the_page_does_after_a_delete(ledger: Ledger) -> None:
    token = new_table(ledger)["write_token"]
    for winner in (1, 2, 3):
        ledger.add_hand(token, shaanxi_win(winner))
    ledger.delete_hand(token, 2, revision=1)
    rows = list(csv.DictReader(io.StringIO(ledger.export_csv(token))))
    # 1, 2 … in play, as the page lists them (issue #39: one number per hand everywhere)
    assert [r["hand"] for r in rows] == ["1", "2"]
    assert [r["winner"] for r in rows] == ["Bo", "Dee"]


def test_player_names_differing_only_in_case_are_one_name(ledger: Ledger) -> None:
    with pytest.raises(Invalid, match="two players share a name"):
        ledger.create_table({"city": "shaanxi", "players": ["Ann", "ann", "Bo", "Chen"]})


def test_a_second_undo_undoes_the_change_before(ledger: Ledger) -> None:
    token = new_table(ledger)["write_token"]
    ledger.add_hand(token, shaanxi_win(1))
    ledger.edit_hand(token, 1, shaanxi_win(2), revision=1)
    ledger.edit_hand(token, 1, shaanxi_win(3), revision=2)
    ledger.undo(token)
    assert ledger.hand(token, 1)["entry"]["winner"] == 2
    ledger.undo(token)
    assert ledger.hand(token, 1)["entry"]["winner"] == 1
    ledger.undo(token)
    assert ledger.view(token)["hands"] == []
    with pytest.raises(NotFound, match="nothing left to undo"):
        ledger.undo(token)


def test_undos_walk_back_across_hands(ledger: Ledger) -> None:
    token = new_table(ledger)["write_token"]
    ledger.add_hand(token, shaanxi_win(1))
    ledger.add_hand(token, shaanxi_win(2))
    ledger.undo(token)  # hand 2 goes
    ledger.undo(token)  # then hand 1, not hand 2 back
    assert ledger.view(token)["hands"] == []


def test_a_token_never_reaches_the_database_as_a_lookup_value(ledger: Ledger) -> None:
    """The table is found by the token's SHA-256 (timing says nothing about the token)."""
    from sqlalchemy import event

    token = new_table(ledger)["write_token"]
    sent: list[object] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, *rest: Any) -> None:
        sent.append(parameters)

    event.listen(ledger.engine, "before_cursor_execute", record)
    try:
        ledger.view(token)
        with pytest.raises(NotFound):
            ledger.view(token[:-1] + ("A" if token[-1] != "A" else "B"))
    finally:
        event.remove(ledger.engine, "before_cursor_execute", record)
    assert sent and all(token not in repr(p) for p in sent)


def test_the_json_export_is_safe_to_share_whichever_link_fetched_it(ledger: Ledger) -> None:
    """Issue #40 row 12: fetched with the write link, the export carried the write token."""
    table = new_table(ledger)
    for token in (table["write_token"], table["read_token"]):
        text = str(ledger.export_json(token))
        assert table["write_token"] not in text and table["read_token"] not in text
