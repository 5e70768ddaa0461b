"""A table's hands scored in order: each one played from the game before it
(:func:`hupai.scoring.game.play`), and stored on its row; a hand that comes to the seating it
had is carried over (its deltas on the new totals) rather than scored again."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hupai.ledger.errors import Invalid
from hupai.ledger.models import GameTable, HandRow
from hupai.scoring import ScoringInputError
from hupai.scoring.game import GameState, PlayedHand, TableSetup, play


def table_setup(table: GameTable) -> TableSetup:
    return TableSetup(
        table.city, table.options, table.first_dealer, table.starting_points, table.succession
    )


def play_entry(table: GameTable, state: GameState, entry: Mapping[str, Any]) -> PlayedHand:
    try:
        return play(table_setup(table), state, entry)
    except ScoringInputError as exc:
        raise Invalid.of(exc) from None


def scored_entry(table: GameTable, state: GameState, entry: Mapping[str, Any]) -> PlayedHand:
    """The hand played, or refused when it does not score (with the scorer's reason)."""
    played = play_entry(table, state, entry)
    if played.problem is not None and played.result is not None:
        raise Invalid(
            f"hand: {played.result.get('message') or played.problem}",
            "hand",
            reason=played.problem,
            result=played.result,
        )
    return played


def store_played(row: HandRow, played: PlayedHand) -> None:
    row.seating = played.seating.to_dict()
    row.request = played.request
    row.result = played.result
    row.deltas = list(played.deltas)
    row.after = played.after.to_dict()
    row.problem = played.problem


def same_hand(state: GameState, deltas: list[int] | None, after: dict[str, Any]) -> GameState:
    """The game after a hand played from the seating it had before: its deltas on the new
    totals, its stored next seating."""
    d = deltas or [0, 0, 0, 0]
    t = state.totals
    totals = (t[0] + d[0], t[1] + d[1], t[2] + d[2], t[3] + d[3])
    return GameState(GameState.from_dict(after).seating, totals, state.hands + 1)


def rescore(
    table: GameTable, state: GameState, entry: Mapping[str, Any]
) -> tuple[GameState, dict[str, Any]]:
    """A hand scored again from ``state``: the game after it and its stored columns."""
    try:
        played = play_entry(table, state, entry)
    except Invalid as exc:  # an earlier change left this hand unplayable as given
        after = GameState(state.seating, state.totals, state.hands + 1)
        return after, {
            "seating": {**state.seating.to_dict()},
            "request": None,
            "result": None,
            "deltas": [0, 0, 0, 0],
            "problem": f"invalid: {exc.message}",
            "after": after.to_dict(),
        }
    return played.after, {
        "seating": played.seating.to_dict(),
        "request": played.request,
        "result": played.result,
        "deltas": list(played.deltas),
        "after": played.after.to_dict(),
        "problem": played.problem,
    }


def state_after(row: HandRow | None, table: GameTable) -> GameState:
    if row is None or row.after is None:
        return GameState.start(table_setup(table))
    return GameState.from_dict(row.after)
