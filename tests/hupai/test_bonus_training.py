"""The bonus reader's training crops: procedural bonus faces drawn as tiles."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("cv2")
from hupai.datasets.synth.faces import usable_families
from hupai.training.bonus import BONUS, BONUS_STORE, compose_tile, generated_bonus

needs_fonts = pytest.mark.skipif(not usable_families(), reason="no CJK font installed")


def _face() -> np.ndarray:
    glyph = np.zeros((60, 40, 4), np.uint8)
    glyph[10:20, 5:15] = (0, 0, 200, 255)  # a red number in the top corner
    return glyph


def test_a_composed_tile_is_a_stored_crop() -> None:
    crop = compose_tile(np.random.default_rng(0), _face())
    assert crop.shape == (BONUS_STORE, BONUS_STORE, 3) and crop.dtype == np.uint8


def test_a_composed_tile_is_the_same_for_the_same_seed() -> None:
    a = compose_tile(np.random.default_rng(3), _face())
    b = compose_tile(np.random.default_rng(3), _face())
    assert np.array_equal(a, b)


def test_the_face_shows_in_the_middle_of_the_crop() -> None:
    """The box sits in the middle third (the store's margin is a quarter of the box a side):
    the face's ink is there, not only table."""
    crop = compose_tile(np.random.default_rng(1), _face()).astype(int)
    third = BONUS_STORE // 3
    middle = crop[third : 2 * third, third : 2 * third]
    red = (middle[:, :, 2] - middle[:, :, :2].mean(axis=2)).max()
    assert red > 40


@needs_fonts
def test_each_style_gives_its_eight_bonus_tiles_in_order() -> None:
    crops = generated_bonus(2, seed=0)
    assert crops.labels.tolist() == [*BONUS, *BONUS]
    assert crops.groups.tolist() == [0] * 8 + [1] * 8
