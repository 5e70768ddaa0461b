"""Row geometry: a box that straddles two neighbouring tiles of a row.

Tiles standing edge to edge in a row (no gap: tall, narrow tiles filmed low) fool a finder
into a box over the right part of one tile and the left part of the next, beside the boxes
of both tiles. Such a box is tile-sized and the namer may well name it, so neither NMS (its
IoU with each neighbour is about a third) nor the reject class always catches it. Geometry
does: in a level row the box is covered by two neighbours that do not overlap each other.

A box over two whole tiles is the other shape of the same fault; the finder's merge drops it
already (:meth:`vision.detections.Detections.without_enclosing_boxes`).

Only a level row is judged (rows along the frame's x or y axis): in a tilted row the
axis-aligned boxes of neighbours overlap by themselves.

>>> row = Detections.make([[0, 0, 10, 14], [10, 0, 20, 14], [5, 0, 15, 14]], [0, 0, 0],
...                       [0.9, 0.8, 0.5])
>>> without_straddlers(row, angle=0.0).xyxy.tolist()
[[0.0, 0.0, 10.0, 14.0], [10.0, 0.0, 20.0, 14.0]]
>>> len(without_straddlers(row, angle=30.0))  # tilted: not judged
3
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.detections import Detections

#: a row within this many degrees of the frame's axis is judged (the level look's limit)
LEVEL_WITHIN_DEG = 8.0
#: a straddler is covered along the row by its two neighbours at least this much ...
STRADDLE_COVER = 0.8
#: ... each of them covering at least this much of it ...
STRADDLE_EACH = 0.25
#: ... while the two neighbours overlap each other at most this much (of the narrower)
NEIGHBOURS_OVERLAP = 0.25
#: boxes in one row overlap across it at least this much (of the shorter) ...
SAME_ROW = 0.6
#: ... and differ in height at most by this factor (a sideways tile of a meld is not judged)
HEIGHT_RATIO = 1.33


def row_axis(angle: float) -> int | None:
    """0 when rows run along x, 1 along y, None when tilted between."""
    a = abs(angle) % 180.0
    if a <= LEVEL_WITHIN_DEG or a >= 180.0 - LEVEL_WITHIN_DEG:
        return 0
    if abs(a - 90.0) <= LEVEL_WITHIN_DEG:
        return 1
    return None


def without_straddlers(det: Detections, angle: float) -> Detections:
    """``det`` less the boxes that straddle two neighbours of a level row (weakest first, so
    that of a chain of overlapping boxes the tiles' own boxes stay)."""
    axis = row_axis(angle)
    if axis is None or len(det) < 3:
        return det
    return det[_kept(det.xyxy, det.confidence, axis)]


def _kept(xyxy: NDArray[np.float64], conf: NDArray[np.float64], axis: int) -> NDArray[np.bool_]:
    lo, hi = xyxy[:, axis], xyxy[:, axis + 2]
    top, bottom = xyxy[:, 1 - axis], xyxy[:, 3 - axis]
    width, height = np.maximum(hi - lo, 1e-9), np.maximum(bottom - top, 1e-9)
    along = _overlap(lo, hi)
    across = _overlap(top, bottom) / np.minimum(height[:, None], height[None, :])
    ratio = height[:, None] / height[None, :]
    same_row = (across >= SAME_ROW) & (ratio <= HEIGHT_RATIO) & (ratio >= 1 / HEIGHT_RATIO)
    np.fill_diagonal(same_row, False)
    centre = (lo + hi) / 2
    kept = np.ones(len(xyxy), dtype=np.bool_)
    for k in np.argsort(conf, kind="stable"):
        share = along[k] / width[k]
        near = kept & same_row[k] & (share >= STRADDLE_EACH)
        left = np.nonzero(near & (centre < centre[k]))[0]
        right = np.nonzero(near & (centre > centre[k]))[0]
        if len(left) == 0 or len(right) == 0:
            continue
        between = along[np.ix_(left, right)]
        narrower = np.minimum(width[left][:, None], width[right][None, :])
        apart = between <= NEIGHBOURS_OVERLAP * narrower
        cover = share[left][:, None] + share[right][None, :] - between / width[k]
        if (apart & (cover >= STRADDLE_COVER)).any():
            kept[k] = False
    return kept


def _overlap(lo: NDArray[np.float64], hi: NDArray[np.float64]) -> NDArray[np.float64]:
    """(n, n) length shared by the spans [lo, hi]."""
    return np.maximum(
        0.0, np.minimum(hi[:, None], hi[None, :]) - np.maximum(lo[:, None], lo[None, :])
    )
