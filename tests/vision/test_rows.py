"""Row geometry: a box straddling two neighbours of a level row goes; the tiles stay."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.detections import Detections
from vision.rows import row_axis, without_straddlers


def _row(n: int, width: float, height: float, gap: float = 0.0) -> list[list[float]]:
    return [[i * (width + gap), 0.0, i * (width + gap) + width, height] for i in range(n)]


def _det(boxes: list[list[float]], conf: list[float] | None = None) -> Detections:
    return Detections.make(boxes, [0] * len(boxes), conf or [0.9] * len(boxes))


def test_a_box_over_the_boundary_of_two_tiles_goes() -> None:
    boxes = [*_row(4, 30, 48), [45, 1, 75, 47]]  # half of tile 2, half of tile 3
    kept = without_straddlers(_det(boxes, [0.9, 0.9, 0.9, 0.9, 0.6]), angle=0.0)
    assert kept.xyxy.tolist() == _row(4, 30, 48)


def test_the_weaker_of_a_tile_and_a_straddler_goes_whatever_their_order() -> None:
    boxes = [[45, 1, 75, 47], *_row(4, 30, 48)]
    kept = without_straddlers(_det(boxes, [0.5, 0.9, 0.8, 0.95, 0.7]), angle=2.0)
    assert len(kept) == 4 and [45, 1, 75, 47] not in kept.xyxy.tolist()


def test_a_column_of_tiles_is_judged_along_y() -> None:
    boxes = [[0, y, 48, y + 30] for y in (0, 30, 60)] + [[1, 15, 47, 45]]
    kept = without_straddlers(_det(boxes, [0.9, 0.9, 0.9, 0.5]), angle=89.0)
    assert len(kept) == 3


def test_a_tilted_row_is_not_judged() -> None:
    boxes = [*_row(3, 30, 48), [15, 0, 45, 48]]
    assert len(without_straddlers(_det(boxes), angle=30.0)) == 4


def test_a_sideways_tile_beside_upright_ones_is_not_judged() -> None:
    # a meld's called tile lies sideways: wider and lower, overlapping its neighbours' spans
    boxes = [[0, 0, 30, 48], [25, 18, 73, 48], [70, 0, 100, 48]]
    assert len(without_straddlers(_det(boxes), angle=0.0)) == 3


def test_rows_between_level_and_upright_have_no_axis() -> None:
    assert (row_axis(-3.0), row_axis(178.0), row_axis(-91.0), row_axis(45.0)) == (0, 0, 1, None)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(3, 14),
    width=st.floats(12, 80),
    tall=st.floats(1.1, 1.8),
    gap=st.floats(-0.15, 0.3),
    jitter=st.lists(st.floats(-0.08, 0.08), min_size=14, max_size=14),
)
def test_a_row_of_tiles_without_straddlers_keeps_every_box(
    n: int, width: float, tall: float, gap: float, jitter: list[float]
) -> None:
    # edge to edge, a little apart, or a little overlapping (loose boxes), heights jittered
    boxes = np.array(_row(n, width, width * tall, gap * width))
    boxes[:, 3] *= 1 + np.array(jitter[:n])
    assert len(without_straddlers(_det(boxes.tolist()), angle=0.0)) == n
