"""Clutter: boxes the finder and the namer together take for no tile are dropped as the namer's
rejects are (:mod:`hupai.vision.clutter`, :func:`hupai.vision.reading.tiles_of_names`)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hupai.vision.classes import BACK
from hupai.vision.clutter import clutter_scores, face_grounds, ground_offsets
from hupai.vision.detections import Detections
from hupai.vision.namer import NAMER_CLASSES, REJECT
from hupai.vision.reading import tiles_of_names

ROW = [[40.0 * k, 100, 40.0 * k + 36, 148] for k in range(9)]


def _probs(best: list[float], reject: list[float]) -> np.ndarray:
    """Namer rows: box i's best name (class i) at ``best[i]`` of what "not a tile" leaves."""
    p = np.full((len(best), len(NAMER_CLASSES)), 0.0)
    for i, (b, r) in enumerate(zip(best, reject, strict=True)):
        p[i, :34] = (1 - b) / 33
        p[i, i] = b
        p[i, :REJECT] *= 1 - r
        p[i, REJECT] = r
    return p


def test_a_small_box_the_finder_doubts_and_the_namer_hesitates_over_is_dropped() -> None:
    boxes = [*ROW, [400.0, 118, 414, 130]]  # a key-sized box a tile beyond the row's end
    det = Detections.make(boxes, [0] * 10, [0.9] * 9 + [0.35])
    named = tiles_of_names(_probs([0.97] * 9 + [0.4], [0.01] * 9 + [0.3]), det)
    assert len(named.detections) == 9 and named.detections.xyxy[:, 1].max() == 100


def test_the_same_box_at_the_tiles_size_and_surely_named_is_kept() -> None:
    boxes = [*ROW, [400.0, 100, 436, 148]]
    det = Detections.make(boxes, [0] * 10, [0.9] * 9 + [0.35])
    named = tiles_of_names(_probs([0.97] * 10, [0.01] * 9 + [0.3]), det)
    assert len(named.detections) == 10


@settings(max_examples=40, deadline=None)
@given(st.floats(0.2, 5.0), st.integers(0, 2**31 - 1))
def test_the_scores_do_not_change_with_the_photos_scale(scale: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 500, (6, 2))
    xyxy = np.column_stack([xy, xy + rng.uniform(10, 60, (6, 2))])
    names = rng.dirichlet(np.ones(5), 6)
    reject = rng.uniform(0, 0.5, 6)
    det = Detections.make(xyxy, [0] * 6, rng.uniform(0.3, 1, 6))
    scaled = Detections.make(xyxy * scale, [0] * 6, det.confidence)
    assert np.allclose(clutter_scores(det, names, reject), clutter_scores(scaled, names, reject))


def _doubtful_tenth_box(box: list[float], best: float = 0.6, found: float = 0.35) -> int:
    """How many of the row's nine tiles and a tenth box (the finder's score ``found``, the
    namer's best name at ``best``, "not a tile" 0.1) the reader keeps."""
    det = Detections.make([*ROW, box], [0] * 10, [0.9] * 9 + [found])
    return len(tiles_of_names(_probs([0.97] * 9 + [best], [0.01] * 9 + [0.1]), det).detections)


def test_a_doubtful_tile_sized_box_far_from_the_hand_is_dropped() -> None:
    assert _doubtful_tenth_box([100.0, 500, 136, 548]) == 9  # eight tiles below the row


def test_the_same_doubtful_box_at_the_rows_end_is_kept() -> None:
    assert _doubtful_tenth_box([360.0, 100, 396, 148]) == 10


def test_a_surely_named_tile_set_far_apart_is_kept() -> None:
    indicator = [100.0, 500, 136, 548]
    assert _doubtful_tenth_box(indicator, best=0.95, found=0.8) == 10


CREAM, RED = [220.0, 130, 140], [120.0, 180, 150]  # Lab grounds: a tile's face, a red spine


def _tenth_box_of_colour(ground: list[float], best: float = 0.6, back: bool = False) -> int:
    """How many of the row's nine cream tiles and a doubtful tenth box at the row's end, its
    face's ground ``ground``, the reader keeps (the tenth named a back with ``back``)."""
    det = Detections.make([*ROW, [360.0, 100, 396, 148]], [0] * 10, [0.9] * 9 + [0.35])
    probs = _probs([0.97] * 9 + [best], [0.01] * 9 + [0.1])
    if back:
        probs[9, :REJECT] = np.roll(probs[9, :REJECT], BACK - 9)
    grounds = np.array([CREAM] * 9 + [ground])
    return len(tiles_of_names(probs, det, grounds=grounds).detections)


def test_a_doubtful_box_whose_face_is_not_the_tiles_colour_is_dropped() -> None:
    assert _tenth_box_of_colour(RED) == 9


def test_the_same_box_with_the_tiles_colour_is_kept() -> None:
    assert _tenth_box_of_colour(CREAM) == 10


def test_a_back_is_not_weighed_by_its_colour() -> None:
    assert _tenth_box_of_colour(RED, back=True) == 10


def test_a_surely_named_tile_of_another_colour_is_kept() -> None:
    assert _tenth_box_of_colour(RED, best=0.97) == 10


def test_a_rooms_colour_is_not_weighed() -> None:
    det = Detections.make([*ROW, [360.0, 100, 396, 148]], [0] * 10, [0.9] * 9 + [0.35])
    probs = _probs([0.97] * 9 + [0.6], [0.01] * 9 + [0.1])
    in_room = np.arange(10) == 9
    grounds = np.array([CREAM] * 9 + [RED])
    assert len(tiles_of_names(probs, det, in_room=in_room, grounds=grounds).detections) == 10


def test_a_spines_ground_is_told_from_a_tiles_on_a_photo() -> None:
    photo = np.full((120, 400, 3), (200, 225, 235), np.uint8)  # cream tiles' faces, BGR
    photo[:, 360:] = (60, 40, 170)  # a red book's spine at the row's end
    boxes = np.array([[40.0 * k + 2, 20, 40.0 * k + 34, 100] for k in range(10)])
    offsets = ground_offsets(face_grounds(photo, boxes, None))
    assert offsets[9] > 1.0 and np.all(offsets[:9] < 0.1)


def _lone_back(box: list[float], found: float = 0.35) -> int:
    """How many of the row's nine tiles and a tenth box named surely a back (the finder's
    score ``found``) the reader keeps."""
    det = Detections.make([*ROW, box], [0] * 10, [0.9] * 9 + [found])
    probs = _probs([0.97] * 10, [0.01] * 10)
    probs[9, :REJECT] = np.roll(probs[9, :REJECT], BACK - 9)
    return len(tiles_of_names(probs, det).detections)


def test_a_back_the_finder_doubted_with_no_tile_beside_it_is_dropped() -> None:
    assert _lone_back([100.0, 300, 136, 348]) == 9  # a patch of table under the row


def test_a_back_beside_a_row_is_kept() -> None:
    assert _lone_back([360.0, 100, 396, 148]) == 10  # a kong's face-down tile at its end


def test_a_lone_back_the_finder_is_sure_of_is_kept() -> None:
    assert _lone_back([100.0, 300, 136, 348], found=0.8) == 10


def test_a_lone_box_the_namer_cannot_name_is_dropped_however_sure_the_finder() -> None:
    """A blurred patch of the table the finder is sure of, far from the hand, whose best name
    the namer gives under 0.2 (:data:`hupai.vision.clutter.UNNAMED_BELOW`)."""
    assert _doubtful_tenth_box([100.0, 500, 136, 548], best=0.15, found=0.9) == 9


def test_a_box_the_namer_cannot_name_in_a_row_is_kept() -> None:
    """In a row it is a tile of a set the namer does not know: its name is the player's check."""
    assert _doubtful_tenth_box([360.0, 100, 396, 148], best=0.15, found=0.9) == 10
