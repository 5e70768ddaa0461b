"""The bonus reader's training crops: procedural bonus faces drawn as tiles."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("cv2")
from hupai.datasets.synth.faces import usable_families
from hupai.training.bonus import (
    BONUS,
    BONUS_STORE,
    BonusConfig,
    bonus_accuracy,
    compose_tile,
    generated_bonus,
)
from hupai.vision.namer import BIRD, BONUS_AND_BIRD

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


@needs_fonts
def test_a_style_gives_its_bird_after_its_eight_bonus_tiles() -> None:
    crops = generated_bonus(2, seed=0, classes=BONUS_AND_BIRD)
    assert crops.labels.tolist() == [*BONUS, BIRD, *BONUS, BIRD]


def test_a_run_with_the_bird_keeps_its_crops_apart_from_one_without() -> None:
    """Crop sets are built once and reused by name: the eight alone must not be taken for
    the eight and the bird."""
    with_bird, without = BonusConfig().crop_files(), BonusConfig(bird=False).crop_files()
    assert set(with_bird) == set(without)
    assert all(with_bird[k] != without[k] for k in with_bird)


def test_a_checkpoint_from_before_the_bird_names_the_eight_alone() -> None:
    assert BonusConfig.saved({"styles": 10}).classes.tolist() == BONUS.tolist()


def test_the_bird_counts_among_the_names_a_bird_reader_is_chosen_on() -> None:
    probs = np.zeros((2, 44))
    probs[0, BIRD] = probs[1, BONUS[0]] = 1
    labels = np.array([BIRD, BONUS[0]])
    assert bonus_accuracy(probs, labels, BONUS_AND_BIRD) == 1.0
    assert bonus_accuracy(probs, labels) == 0.5  # the eight alone: the bird is never right


def test_a_bird_reader_of_every_tile_names_every_face_but_the_back() -> None:
    classes = BonusConfig(every_tile=True).classes.tolist()
    assert classes == list(range(42))
    assert BIRD in classes and all(c in classes for c in BONUS_AND_BIRD)


def test_a_run_of_every_tile_keeps_its_crops_apart_from_the_birds() -> None:
    every, bird = BonusConfig(every_tile=True).crop_files(), BonusConfig().crop_files()
    assert all(every[k] != bird[k] for k in every)
