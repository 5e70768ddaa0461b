"""The detector class list maps one-to-one onto the scoring Tile (plus one 'back' class)."""

from __future__ import annotations

import pytest

from hupai.scoring.tiles import EVERY_TILE, Tile
from hupai.vision.classes import (
    BACK,
    BACK_NAME,
    CLASS_NAMES,
    NUM_CLASSES,
    class_by_name,
    class_of,
    tile_of,
)


def test_there_are_43_classes_with_distinct_names() -> None:
    assert NUM_CLASSES == 43 == len(set(CLASS_NAMES))


def test_every_tile_maps_to_a_class_and_back() -> None:
    assert [tile_of(class_of(t)) for t in EVERY_TILE] == list(EVERY_TILE)


def test_every_class_but_back_maps_to_a_tile_and_back() -> None:
    ids = [i for i in range(NUM_CLASSES) if i != BACK]
    assert [class_of(tile) for i in ids if (tile := tile_of(i)) is not None] == ids


def test_tile_classes_are_named_by_notation() -> None:
    for i in range(NUM_CLASSES):
        tile = tile_of(i)
        expected = BACK_NAME if tile is None else str(tile)
        assert CLASS_NAMES[i] == expected
        assert class_by_name(CLASS_NAMES[i]) == i
        if tile is not None:
            assert Tile.parse(CLASS_NAMES[i]) == tile


def test_back_is_the_only_class_without_a_tile() -> None:
    assert [i for i in range(NUM_CLASSES) if tile_of(i) is None] == [BACK]


@pytest.mark.parametrize("bad", [-1, 43, 100])
def test_class_id_outside_the_list_is_an_error(bad: int) -> None:
    with pytest.raises(ValueError, match=str(bad)):
        tile_of(bad)


def test_unknown_class_name_is_an_error() -> None:
    with pytest.raises(ValueError, match="'9z'"):
        class_by_name("9z")
