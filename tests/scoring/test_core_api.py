"""The city plug-in API, exercised through the toy city of docs/core-api.md."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import toy_city

from hupai.scoring import (
    ItemGroup,
    ScoringInputError,
    describe_cities,
    register,
    result_to_dict,
    score,
)
from hupai.scoring.registry import unregister


@pytest.fixture(autouse=True)
def toy() -> Iterator[None]:
    register(toy_city.CITY)
    yield
    unregister("toy")


def request(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "city": "toy",
        "hand": "123m456p789s11z555z",
        "win_tile": "5z",
        "win": "discard",
        "winner": 1,
        "discarder": 0,
    }
    base.update(overrides)
    return base


def test_discard_win_is_paid_by_the_discarder() -> None:
    result = score(request())
    assert result.valid
    assert result.deltas == (-1, 1, 0, 0)


def test_table_field_reaches_the_city() -> None:
    assert score(request(lucky_seat=0)).deltas == (-2, 2, 0, 0)


def test_option_reaches_the_city() -> None:
    assert score(request(options={"base": 5})).deltas == (-5, 5, 0, 0)


def test_kong_payout_is_an_instant_item() -> None:
    result = score(
        request(
            hand="123m456p11z555z",
            melds=[{"kind": "concealed_kong", "tiles": "7777s"}],
            win="self_draw",
            discarder=None,
        )
    )
    assert [i.group for i in result.items].count(ItemGroup.INSTANT) == 3
    assert result.deltas == (-2, 6, -2, -2)


def test_wild_from_the_indicator_is_used() -> None:
    result = score(request(hand="123m456p789s1z4z555z", indicator="3z"))  # 4z is wild
    assert result.valid
    assert result.decomposition is not None
    assert [str(t) for t in result.decomposition.fills] == ["1z"]


def test_not_a_win_is_a_result_not_an_error() -> None:
    result = score(request(hand="123m456p789s12z555z", win_tile="5z"))
    assert not result.valid
    assert result.reason == "not_a_winning_hand"
    assert result.deltas == (0, 0, 0, 0)


def test_unknown_option_lists_the_known_ones() -> None:
    with pytest.raises(ScoringInputError, match=r"options\.bse: unknown field; known: base"):
        score(request(options={"bse": 2}))


def test_wrong_enum_value_lists_the_choices() -> None:
    with pytest.raises(ScoringInputError, match=r"options\.combine: 'avg' is not one of: max, sum"):
        score(request(options={"combine": "avg"}))


def test_unknown_table_field_lists_the_known_ones() -> None:
    with pytest.raises(
        ScoringInputError, match=r"lucky: unknown field for toy; known: .*lucky_seat"
    ):
        score(request(lucky=1))


def test_indicator_counts_towards_four_copies() -> None:
    with pytest.raises(ScoringInputError, match=r"5 copies of 5z"):
        score(
            request(hand="123m456p789s11z555z", melds=[], indicator="5z", options={}, win_tile="5z")
            | {"hand": "123m456p78s11z5555z"}
        )


def test_description_is_plain_data() -> None:
    (toy,) = [c for c in describe_cities() if c["name"] == "toy"]
    assert toy["options"][0] == {
        "name": "base",
        "type": "integer",
        "default": 1,
        "doc": "points of a plain win",
    }
    assert toy["fields"][1]["min"] == 0 and toy["fields"][1]["max"] == 3


def test_result_dict_carries_every_key() -> None:
    out = result_to_dict(score(request()))
    assert set(out) == {
        "city",
        "valid",
        "reason",
        "message",
        "decomposition",
        "wait",
        "patterns",
        "items",
        "deltas",
        "warnings",
        "details",
    }
