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


# -- a name doubted alone, settled by the hand's shape ---------------------------------------

#: SHAANXI's tiles as the reading's detections, in the hand's order
TILES = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "5z", "5z", "5z"]


def unsure(
    doubted: dict[int, list[str]],
    reasons: tuple[str, ...] = ("name",),
    role: str = "hand",
    **extra: Any,
) -> dict[str, Any]:
    """A reading of SHAANXI's tiles that is not confident: each tile of ``doubted`` (index →
    its names, the chosen one first) checked for ``reasons``."""
    extra.setdefault("request", {"hand": SHAANXI["hand"], "melds": []})
    return reading(
        confident=False,
        detections={
            "class_name": TILES,
            "role": [role if i in doubted else "hand" for i in range(len(TILES))],
            "check_reasons": [list(reasons) if i in doubted else [] for i in range(len(TILES))],
            "alternatives": [
                [{"tile": t} for t in doubted.get(i, [name])] for i, name in enumerate(TILES)
            ],
        },
        **extra,
    )


def test_a_name_whose_other_names_break_the_hand_is_settled() -> None:
    assert codes(unsure({1: ["2m", "5m", "8m"]}), SHAANXI) == []


def test_a_name_another_of_whose_names_also_wins_stays_a_doubt() -> None:
    assert codes(unsure({8: ["9s", "6s", "3s"]}), SHAANXI) == ["tiles_unsure"]  # 678s wins too


def test_two_names_are_settled_only_together() -> None:
    # 2m alone cannot become 5m, nor 3m become 6m — but both together make 156m: no chow
    assert codes(unsure({1: ["2m", "5m"], 2: ["3m", "6m"]}), SHAANXI) == []
    # 1m and 2m as 4m and 5m make 345m, which wins
    assert codes(unsure({0: ["1m", "4m"], 1: ["2m", "5m"]}), SHAANXI) == ["tiles_unsure"]


def test_a_box_that_may_be_clutter_is_not_settled_by_the_shape() -> None:
    read = unsure({1: ["2m", "5m"]}, reasons=("name", "clutter"))
    assert codes(read, SHAANXI) == ["tiles_unsure"]


def test_a_layout_read_with_trouble_is_not_settled() -> None:
    read = unsure({1: ["2m", "5m"]}, warnings=[{"code": "unplaced_tiles"}])
    assert codes(read, SHAANXI) == ["tiles_unsure"]


def test_an_assumed_winning_tile_does_not_stop_the_shape_settling() -> None:
    read = unsure({1: ["2m", "5m"]}, warnings=[{"code": "win_tile_assumed"}])
    assert codes(read, SHAANXI) == []


def test_more_unsure_names_than_the_shape_settles_stay_a_doubt() -> None:
    read = unsure({1: ["2m", "5m"], 4: ["5p", "8p"], 7: ["8s", "5s"]})
    assert codes(read, SHAANXI) == ["tiles_unsure"]


def test_an_unsure_flower_or_set_apart_tile_is_not_settled() -> None:
    for role in ("flowers", "set_apart", "stray"):
        assert codes(unsure({1: ["2m", "5m"]}, role=role), SHAANXI) == ["tiles_unsure"], role


def test_the_winning_tiles_kind_is_tried_as_the_winning_tile_and_as_another_copy() -> None:
    # a 5z of the hand read unsure, 1z its other name: as another copy (hand 123m456p789s111z55z,
    # 5z won) the hand still wins — a doubt
    assert codes(unsure({11: ["5z", "1z"]}), SHAANXI) == ["tiles_unsure"]


def test_an_unsure_tile_of_a_meld_is_renamed_in_its_meld() -> None:
    request = {
        **SHAANXI,
        "hand": "123m456p789s11z",
        "win_tile": "1z",
        "melds": [{"kind": "pung", "tiles": "555z"}],
    }
    read = unsure(
        {12: ["5z", "6z"]},
        role="meld",
        melds=[{"kind": "pung", "tiles": "555z", "detections": [11, 12, 13]}],
        request={"hand": request["hand"], "melds": request["melds"]},
    )
    assert codes(read, request) == []  # 556z is no pung


def test_tiles_a_player_gave_are_not_settled_by_the_photos_shape() -> None:
    # the photo read 666z where the player's hand (the request scored) has 555z
    read = unsure({1: ["2m", "5m"]}, request={"hand": "123m456p789s11z666z", "melds": []})
    assert codes(read, SHAANXI) == ["tiles_unsure"]


def test_a_name_with_no_other_name_to_rule_out_is_not_settled() -> None:
    # a finder that names the tiles itself gives no other names: nothing is ruled out
    assert codes(unsure({1: ["2m"]}), SHAANXI) == ["tiles_unsure"]


def test_a_reading_without_what_the_shape_needs_is_not_settled() -> None:
    for key in ("check_reasons", "role", "alternatives", "class_name"):
        read = unsure({1: ["2m", "5m"]})
        del read["detections"][key]
        assert codes(read, SHAANXI) == ["tiles_unsure"], key
