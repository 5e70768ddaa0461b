"""bench/composites.py builds what it says: a winning hand laid out from single-tile photos,
each tile labelled once where it lies, the same for the same seed."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from composites import compose, context_of, load_faces, truth_score

from hupai.scoring.tiles import EVERY_TILE, Tile, parse_tiles
from hupai.vision.classes import class_of


def colour(tile: Tile) -> tuple[int, int, int]:
    """A colour of its own for each tile's stand-in photo."""
    i = class_of(tile)
    return (40 + 5 * i, 250 - 5 * i, (97 * i) % 256)


@pytest.fixture(scope="module")
def faces(tmp_path_factory: pytest.TempPathFactory) -> dict[Tile, list[Path]]:
    """A camerash-like folder: one flat-coloured 240 × 320 photo per tile."""
    root = tmp_path_factory.mktemp("camerash")
    (root / "images").mkdir()
    rows = ["image,tile"]
    for k, tile in enumerate(EVERY_TILE):
        cv2.imwrite(
            str(root / "images" / f"{k}.png"), np.full((320, 240, 3), colour(tile), np.uint8)
        )
        rows.append(f"{k}.png,{tile}")
    (root / "labels.csv").write_text("\n".join(rows) + "\n")
    return load_faces(root)


@pytest.mark.parametrize("seed", range(6))
def test_every_tile_of_the_hand_is_labelled_once(faces: dict[Tile, list[Path]], seed: int) -> None:
    c = compose(np.random.default_rng([1, seed]), faces, context_of(seed)[0], plain=True)
    tiles = c.hand + [t for _kind, meld, _called in c.melds for t in meld]
    assert Counter(cls for cls, _box in c.labels) == Counter(class_of(t) for t in tiles)


@pytest.mark.parametrize("seed", range(6))
def test_each_label_lies_on_its_tiles_photo(faces: dict[Tile, list[Path]], seed: int) -> None:
    c = compose(np.random.default_rng([2, seed]), faces, context_of(seed)[0], plain=True)
    by_class = {class_of(t): colour(t) for t in EVERY_TILE}
    for cls, (x1, y1, x2, y2) in c.labels:
        # the face fills the box's upper part: its centre, a little above the box's
        x, y = round((x1 + x2) / 2), round(y1 + 0.4 * (y2 - y1))
        seen = c.image[y, x].astype(int)
        assert np.abs(seen - np.array(by_class[cls])).max() < 12


def test_the_same_seed_makes_the_same_composite(faces: dict[Tile, list[Path]]) -> None:
    a, b = (compose(np.random.default_rng([3, 7]), faces) for _ in range(2))
    assert np.array_equal(a.image, b.image) and a.labels == b.labels


@pytest.mark.parametrize("seed", range(8))
def test_the_true_hand_is_one_its_city_scores(faces: dict[Tile, list[Path]], seed: int) -> None:
    city, context = context_of(seed)
    c = compose(np.random.default_rng([4, seed]), faces, city, plain=True)
    assert c.win_tile in c.hand and truth_score(c, city, context) is not None
    assert len(parse_tiles(c.request_fields()["hand"])) + 3 * len(c.melds) == 14


@pytest.mark.parametrize("seed", range(4))
def test_a_low_view_shows_each_hand_tiles_top_above_its_face(
    faces: dict[Tile, list[Path]], seed: int
) -> None:
    c = compose(np.random.default_rng([3, seed]), faces, context_of(seed)[0], plain=True, low=True)
    by_class = {class_of(t): colour(t) for t in EVERY_TILE}
    for cls, (x1, y1, x2, y2) in c.labels[: len(c.hand)]:  # the hand's row is laid first
        x = round((x1 + x2) / 2)
        top, face = (
            c.image[round(y1 + 0.04 * (y2 - y1)), x],
            c.image[round(y1 + 0.7 * (y2 - y1)), x],
        )
        assert np.abs(face.astype(int) - np.array(by_class[cls])).max() < 12
        assert np.abs(top.astype(int) - np.array(by_class[cls])).max() > 12
