"""A score read from a photo is confident only when the tiles are and the hand wins as read."""

from __future__ import annotations

from typing import Any

from hupai.vision.trust import score_dict, score_doubts

#: Ningbo pays a tai more or less by the wait: which tile won changes the settlement.
NINGBO = {
    "city": "ningbo",
    "hand": "345678m456789m11m",
    "win_tile": "1m",
    "win": "discard",
    "winner": 1,
    "discarder": 0,
    "indicator": "1z",
}
SHAANXI = {
    "city": "shaanxi",
    "hand": "123m456p789s11z555z",
    "win_tile": "5z",
    "win": "discard",
    "winner": 0,
    "discarder": 2,
}


def reading(confident: bool = True, set_apart: bool = True, **extra: Any) -> dict[str, Any]:
    return {"confident": confident, "win_tile_set_apart": set_apart, "warnings": [], **extra}


def codes(read: dict[str, Any], request: dict[str, Any], **kw: Any) -> list[str]:
    return [d.code for d in score_doubts(read, request, score_dict(request), None, **kw)]


def test_confident_tiles_of_a_winning_hand_set_apart_leave_no_doubt() -> None:
    assert codes(reading(), NINGBO) == []


def test_unsure_tiles_are_a_doubt_that_names_the_warnings() -> None:
    read = reading(confident=False, warnings=[{"code": "low_confidence"}, {"code": "tiles_small"}])
    (doubt,) = score_doubts(read, SHAANXI, score_dict(SHAANXI), None)
    assert doubt.code == "tiles_unsure" and "low_confidence" in doubt.message
    assert "tiles_small" not in doubt.message


def test_a_hand_that_does_not_win_is_a_doubt() -> None:
    request = {**SHAANXI, "hand": "123m456p789s12z555z", "win_tile": "5z"}
    assert codes(reading(), request) == ["not_a_winning_hand"]


def test_tiles_the_scorer_refuses_are_a_doubt() -> None:
    doubts = score_doubts(reading(), SHAANXI, None, "hand: 12 tiles; a winning hand holds 14")
    assert [(d.code, d.message) for d in doubts] == [
        ("unscorable", "hand: 12 tiles; a winning hand holds 14")
    ]


def test_an_assumed_winning_tile_that_changes_the_deltas_is_a_doubt() -> None:
    (doubt,) = score_doubts(reading(set_apart=False), NINGBO, score_dict(NINGBO), None)
    assert doubt.code == "win_tile_matters"
    assert "if 3m won, the deltas would be [-5, 5, 0, 0]" in doubt.message


def test_an_assumed_winning_tile_that_changes_nothing_is_no_doubt() -> None:
    assert codes(reading(set_apart=False), SHAANXI) == []


def test_a_winning_tile_the_player_gave_is_no_doubt() -> None:
    assert codes(reading(set_apart=False), NINGBO, win_tile_given=True) == []
