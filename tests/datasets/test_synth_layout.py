"""Hand layouts: real winning shapes, melds drawn as players lay them out."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from hupai.datasets.synth.layout import (
    Layout,
    MeldKind,
    Role,
    TileSize,
    overlapping,
    random_hand,
    random_layout,
)
from hupai.vision.classes import BACK

SIZE = TileSize(28, 38, 20)
SEEDS = range(60)


@pytest.fixture(scope="module")
def scenes() -> list[Layout]:
    return [random_layout(np.random.default_rng([7, s]), SIZE) for s in SEEDS]


@pytest.fixture(scope="module")
def layouts(scenes: list[Layout]) -> list[Layout]:
    return [layout for layout in scenes if layout.scene == "hand"]


def test_some_scenes_are_blocks_of_tiles_in_rows(scenes: list[Layout]) -> None:
    blocks = [layout for layout in scenes if layout.scene == "block"]
    assert 0 < len(blocks) < len(scenes) / 3
    for layout in blocks:
        assert not overlapping(layout)
        assert all(t.role is Role.DISCARD for t in layout.tiles)


def test_a_hand_is_fourteen_tiles_plus_one_per_kong() -> None:
    for s in SEEDS:
        plan = random_hand(np.random.default_rng(s))
        kongs = sum(len(tiles) == 4 for _, tiles in plan.melds)
        assert len(plan.concealed) + sum(len(t) for _, t in plan.melds) == 14 + kongs
        assert plan.winning in plan.concealed


def test_no_tile_kind_is_used_more_than_four_times(layouts: list[Layout]) -> None:
    for layout in layouts:
        counts = Counter(t.tile for t in layout.tiles)
        assert max(counts.values()) <= 4


def test_tiles_never_interpenetrate(layouts: list[Layout]) -> None:
    assert not any(overlapping(layout) for layout in layouts)


def test_exactly_one_winning_tile_in_the_hand(layouts: list[Layout]) -> None:
    for layout in layouts:
        winners = [t for t in layout.tiles if t.winning]
        assert len(winners) == 1 and winners[0].role is Role.HAND


def test_melds_are_drawn_as_players_lay_them(layouts: list[Layout]) -> None:
    seen = set()
    for layout in layouts:
        for g in layout.melds:
            tiles = [layout.tiles[i] for i in g.tiles]
            seen.add(g.meld)
            sideways = sum(t.sideways for t in tiles)
            if g.meld is MeldKind.CONCEALED_KONG:
                assert len(tiles) == 4 and sum(t.face_down for t in tiles) == 2
                assert sideways == 0
            elif g.meld is MeldKind.ADDED_KONG:
                assert len(tiles) == 4 and sideways == 2  # the called tile and the added one
            else:
                assert sideways == 1
                assert len(tiles) == (4 if g.meld is MeldKind.KONG else 3)
    assert seen == set(MeldKind)


def test_face_down_tiles_are_class_back(layouts: list[Layout]) -> None:
    for layout in layouts:
        for t in layout.tiles:
            assert (t.cls == BACK) == t.face_down


def test_indicator_or_fishing_tiles_lie_above_the_hand(layouts: list[Layout]) -> None:
    found = 0
    for layout in layouts:
        hand_top = max(t.y for t in layout.tiles if t.role is Role.HAND)
        extras = [t for t in layout.tiles if t.role in (Role.INDICATOR, Role.FISHING)]
        found += bool(extras)
        assert all(t.y > hand_top + SIZE.height / 2 for t in extras)
        assert len(extras) <= 3
    assert found > 0


def test_walls_are_face_down_and_discards_face_up(layouts: list[Layout]) -> None:
    roles = Counter(t.role for layout in layouts for t in layout.tiles)
    assert roles[Role.WALL] > 0 and roles[Role.DISCARD] > 0
    for layout in layouts:
        for t in layout.tiles:
            if t.role is Role.WALL:
                assert t.face_down
            if t.role is Role.DISCARD:
                assert not t.face_down and not t.sideways
