"""Clutter: boxes the finder and the namer together take for no tile are dropped as the namer's
rejects are (:mod:`hupai.vision.clutter`, :func:`hupai.vision.reading.tiles_of_names`)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from hupai.vision.clutter import clutter_scores
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
    boxes = [*ROW, [400.0, 300, 414, 312]]  # a key-sized box below the row
    det = Detections.make(boxes, [0] * 10, [0.9] * 9 + [0.35])
    named = tiles_of_names(_probs([0.97] * 9 + [0.4], [0.01] * 9 + [0.3]), det)
    assert len(named.detections) == 9 and named.detections.xyxy[:, 1].max() == 100


def test_the_same_box_at_the_tiles_size_and_surely_named_is_kept() -> None:
    boxes = [*ROW, [400.0, 300, 436, 348]]
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
