"""Tile notation: round-trip, order independence, and the error messages."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hupai.scoring.tiles import (
    EVERY_TILE,
    HAND_TILES,
    Tile,
    TileError,
    check_copies,
    counts34,
    format_tiles,
    next_tile,
    parse_tiles,
)

tile_lists = st.lists(st.sampled_from(EVERY_TILE), max_size=20)


@given(tile_lists)
def test_format_then_parse_gives_the_same_tiles(tiles: list[Tile]) -> None:
    assert sorted(parse_tiles(format_tiles(tiles))) == sorted(tiles)


@given(tile_lists)
def test_canonical_notation_is_a_fixed_point(tiles: list[Tile]) -> None:
    text = format_tiles(tiles)
    assert format_tiles(parse_tiles(text)) == text


@given(tile_lists, st.randoms())
def test_order_does_not_change_the_notation(tiles: list[Tile], rnd: random.Random) -> None:
    shuffled = list(tiles)
    rnd.shuffle(shuffled)
    assert format_tiles(shuffled) == format_tiles(tiles)


@given(st.lists(st.sampled_from(HAND_TILES), max_size=14), st.randoms())
def test_loose_notation_one_letter_per_tile_parses_the_same(
    tiles: list[Tile], rnd: random.Random
) -> None:
    shuffled = list(tiles)
    rnd.shuffle(shuffled)
    loose = " ".join(str(t) for t in shuffled)
    assert counts34(parse_tiles(loose)) == counts34(tiles)


@pytest.mark.parametrize("tile", EVERY_TILE)
def test_single_tile_round_trips(tile: Tile) -> None:
    assert Tile.parse(str(tile)) == tile
    assert Tile.from_index(tile.index) == tile


def test_parse_example_of_the_spec() -> None:
    assert format_tiles(parse_tiles("123m456p11z")) == "123m456p11z"
    assert [t.name for t in parse_tiles("1z5z6z7z")] == ["East", "White", "Green", "Red"]
    assert [t.hanzi for t in parse_tiles("1f8f")] == ["梅", "冬"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("10m", "'10m': '0' is not a rank (ranks are 1-9)"),
        ("8z", "'8z': '8z' does not exist (honors go 1-7)"),
        ("9f", "'9f': '9f' does not exist (flowers go 1-8)"),
        ("123x", "'123x': 'x' is not a suit letter"),
        ("m", "'m': suit letter 'm' has no ranks before it"),
        ("123", "'123': ranks '123' have no suit letter after them"),
        ("¹m", "'¹m': '¹' is not a rank; write ranks with the digits 1-9"),
        ("③p", "'③p': '③' is not a rank; write ranks with the digits 1-9"),
        ("１２３m", "'１２３m': '１' is not a rank; write ranks with the digits 1-9"),
        ("1٣s", "'1٣s': '٣' is not a rank; write ranks with the digits 1-9"),
    ],
)
def test_bad_notation_is_quoted(text: str, message: str) -> None:
    with pytest.raises(TileError) as info:
        parse_tiles(text)
    assert str(info.value).startswith(message)


def test_the_parse_cache_is_bounded() -> None:
    from hupai.scoring.tiles import PARSE_CACHE_SIZE, _parse_cached

    for n in range(PARSE_CACHE_SIZE + 50):
        parse_tiles("1m" + " " * (n % 500) + "2m" * (n // 500 + 1))
    assert _parse_cached.cache_info().currsize <= PARSE_CACHE_SIZE


def test_five_copies_are_refused() -> None:
    with pytest.raises(TileError, match=r"'11111m': 5 copies of 1m in the hand; a set has only 4"):
        check_copies(parse_tiles("11111m"))


def test_a_flower_exists_once() -> None:
    with pytest.raises(TileError, match="2 copies of 3f"):
        check_copies(parse_tiles("33f"), where="flowers")


def test_flower_is_not_counted_in_the_hand() -> None:
    with pytest.raises(TileError, match="a flower is not part of the hand"):
        counts34(parse_tiles("1f"))


@pytest.mark.parametrize(
    ("indicator", "wild"),
    [("3s", "4s"), ("9p", "1p"), ("4z", "1z"), ("6z", "7z"), ("7z", "5z"), ("5z", "6z")],
)
def test_indicator_points_to_the_next_tile(indicator: str, wild: str) -> None:
    assert str(next_tile(Tile.parse(indicator))) == wild
