"""The request model: every common check names the field and quotes the value."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import toy_city

from hupai.scoring import ScoringInputError, TileSet, WinMethod, get_city, register, score
from hupai.scoring.registry import unregister


class SuitsOnlyToy(toy_city.Toy):
    name = "toy108"
    tile_set = TileSet.SUITS
    exposed_chows = False


@pytest.fixture(autouse=True)
def toys() -> Iterator[None]:
    register(toy_city.CITY)
    register(SuitsOnlyToy())
    yield
    unregister("toy")
    unregister("toy108")


def request(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "city": "toy",
        "hand": "123m456p789s11z555z",
        "win_tile": "5z",
        "win": "discard",
        "winner": 1,
        "discarder": 0,
    }
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}


def error(**overrides: Any) -> str:
    with pytest.raises(ScoringInputError) as info:
        score(request(**overrides))
    return str(info.value)


def test_a_good_request_is_parsed_into_typed_objects() -> None:
    from hupai.scoring import parse_request

    req = parse_request(
        request(
            melds=[{"kind": "pung", "tiles": "555z", "from": 2}],
            hand="123m456p789s11z",
            win_tile="1z",
        ),
        get_city("toy"),
    )
    assert req.win.method is WinMethod.DISCARD and req.win.discarder == 0
    assert str(req.hand.melds[0]) == "pung 555z" and req.hand.melds[0].claimed_from == 2


def test_tiles_may_be_a_list_of_single_tiles() -> None:
    hand = ["1m", "2m", "3m", "4p", "5p", "6p", "7s", "8s", "9s", "1z", "1z", "5z", "5z", "5z"]
    assert score(request(hand=hand)).valid


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"city": "paris"}, "city: 'paris' is not a known city; known: "),
        ({"city": None}, "city: required"),
        ({"hand": None}, "hand: required"),
        ({"hand": "10m23m456p789s11z555z"}, "hand: '10m23m456p789s11z555z': '0' is not a rank"),
        ({"hand": "123m456p789s11z558z"}, "hand: '123m456p789s11z558z': '8z' does not exist"),
        ({"hand": "123m456p789s1z555z"}, "hand: '123m456p789s1555z' is 13 tiles beside 0 melds"),
        ({"hand": "123m456p789s11z55z1f"}, "hand: '1f' is a flower; list flowers under 'flowers'"),
        ({"win_tile": "9m"}, "win_tile: '9m' is not in the hand '123m456p789s11555z'"),
        ({"win_tile": None}, "win_tile: required"),
        ({"win_tile": "55z"}, "win_tile: '55z' is 2 tiles, expected one"),
        (
            {"win": "ron"},
            "win: 'ron' is not one of: self_draw, discard, robbed_kong, kong_replacement",
        ),
        ({"win": None}, "win: required"),
        ({"winner": 4}, "winner: 4 is not a seat (0-3; 0 is the dealer)"),
        ({"winner": "1"}, "winner: '1' is not a seat"),
        ({"winner": None}, "winner: required"),
        ({"discarder": None}, "discarder: required on a discard win (the discarder)"),
        ({"discarder": 1}, "discarder: 1 is the winner"),
        ({"win": "self_draw"}, "discarder: 0 given, but a self_draw win has no discarder"),
        ({"win": "robbed_kong", "discarder": None}, "discarder: required on a robbed_kong win"),
        ({"win": "kong_replacement", "discarder": None}, "win: kong_replacement needs a kong"),
        ({"round_wind": "5z"}, "round_wind: '5z' is not a wind (1z-4z)"),
        ({"flowers": "1f"}, "flowers: toy is played without flowers"),
        ({"last_tile": "yes"}, "last_tile: 'yes' is not true or false"),
        ({"first_turn": 1}, "first_turn: 1 is not true or false"),
        ({"options": {"base": "two"}}, "options.base: 'two' is not a whole number"),
        ({"options": {"base": True}}, "options.base: true is not a whole number"),
        ({"options": []}, "options: expected an object, got []"),
        ({"lucky_seat": 7}, "lucky_seat: 7 is outside 0-3"),
        ({"indicator": "0m"}, "indicator: '0m': '0' is not a rank"),
        ({"kind": "tsumo"}, "kind: 'tsumo' is not one of: win, draw"),
    ],
)
def test_bad_field_is_named_and_quoted(overrides: dict[str, Any], message: str) -> None:
    assert error(**overrides).startswith(message)


@pytest.mark.parametrize(
    ("meld", "message"),
    [
        ({"tiles": "1235m"}, "melds[0].tiles: '1235m' is not a chow/pung/kong"),
        ({"tiles": "124m"}, "melds[0].tiles: '124m' is not a chow/pung/kong"),
        (
            {"kind": "chow", "tiles": "124m"},
            "melds[0].tiles: '124m' is not a chow (three consecutive",
        ),
        (
            {"kind": "pung", "tiles": "556m"},
            "melds[0].tiles: '556m' is not a pung (three identical",
        ),
        ({"kind": "kong", "tiles": "555m"}, "melds[0].tiles: '555m' is not a kong (four identical"),
        (
            {"kind": "knog", "tiles": "5555m"},
            "melds[0].kind: 'knog' is not one of: chow, pung, kong",
        ),
        ({"tiles": "123z"}, "melds[0].tiles: '123z' is not a chow/pung/kong"),
        (
            {"kind": "chow", "tiles": "123z"},
            "melds[0].tiles: '123z' is not a chow (honor sequences",
        ),
        ({"tiles": "111f"}, "melds[0].tiles: '111f': flowers are never in a meld"),
        ({"tiles": "555m", "from": 1}, "melds[0].from: 1 is the winner's own seat"),
        ({"tiles": "555m", "from": 9}, "melds[0].from: 9 is not a seat"),
        (
            {"kind": "chow", "tiles": "345m", "from": 2},
            "melds[0].from: a chow is claimed from the previous seat (0), not 2",
        ),
        (
            {"kind": "concealed_kong", "tiles": "5555m", "from": 2},
            "melds[0].tiles: a concealed kong is not claimed from anyone",
        ),
        (
            {"tiles": "555m", "colour": "red"},
            "melds[0].colour: unknown field; known: kind, tiles, from",
        ),
        ({"kind": "pung"}, "melds[0].tiles: required"),
        ("555m", "melds[0]: expected an object with kind, tiles, from"),
    ],
)
def test_bad_meld_is_named_and_quoted(meld: Any, message: str) -> None:
    assert error(hand="123m456p789s11z", win_tile="1z", melds=[meld]).startswith(message)


def test_more_than_four_melds() -> None:
    melds = [{"tiles": "111m"}] * 5
    assert error(hand="11z", melds=melds).startswith("melds: 5 melds; a hand has at most 4")


def test_five_copies_across_hand_and_melds() -> None:
    message = error(hand="123m456p789s55m", win_tile="5m", melds=[{"tiles": "555m", "from": 0}])
    assert message == "hand: 5 copies of 5m (hand 2, melds 3); a set has only 4"


def test_a_shown_table_tile_counts_as_a_copy() -> None:
    message = error(hand="123m456p789s55z", melds=[{"tiles": "555z", "from": 0}], indicator="5z")
    assert message.startswith("hand: 6 copies of 5z (hand 2, melds 3, indicator 1)")


def test_a_city_that_does_not_use_honors() -> None:
    assert error(city="toy108").startswith(
        "hand: '1z' is not used in toy108 (108 tiles: three suits, no honors or flowers)"
    )


def test_a_city_without_chow_claims() -> None:
    message = error(
        city="toy108",
        hand="123m456p789s11s",
        win_tile="1s",
        melds=[{"kind": "chow", "tiles": "345m", "from": 0}],
    )
    assert message == "melds[0].kind: toy108 does not allow claiming a chow"


def test_unknown_field_lists_the_city_fields() -> None:
    assert "known: city, hand, melds" in error(fishing="1m")
    assert error(fishing="1m").startswith("fishing: unknown field for toy")


def test_the_meld_kind_is_inferred() -> None:
    result = score(
        request(hand="123m456p789s11z", win_tile="1z", melds=[{"tiles": "5555z", "from": 0}])
    )
    assert result.valid


@pytest.mark.parametrize(
    ("data", "shown"), [([1, 2], r"\[1, 2\]"), (None, "null"), ("x", "'x'"), (True, "true")]
)
def test_not_a_json_object_is_quoted_in_json_words(data: object, shown: str) -> None:
    with pytest.raises(ScoringInputError, match=f"request: expected a JSON object, got {shown}$"):
        score(data)  # type: ignore[arg-type]
