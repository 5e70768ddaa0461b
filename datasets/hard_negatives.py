"""Boxes a finder draws wrong on tiles standing tight in a row, and tiles cut by the photo's
edge: the namer's hard negatives taken from labelled photos.

* **straddle** — a tile-sized box shifted 30–70 % of the pitch from one tile towards its
  neighbour in the row (it holds the right half of one and the left half of the next), or a
  box over both: "not a tile". Shifts under 30 % stay the tile's (a loose box is still
  that tile), so they are not drawn.
* **part tiles** — the photo cut through a tile: the box is what shows. The rule, the same in
  :mod:`vision` (``cut_by_border``) and in the labels: **a tile counts when at least 60 % of
  it shows along the cut**; a namer is taught "not a tile" under 50 % and the tile's own
  name from 75 % (between, nothing is taught: a finder's box is never that exact).

>>> tiles = np.array([[0, 0, 40, 60], [41, 0, 81, 60], [200, 0, 240, 60.]])
>>> neighbours(tiles)
[(0, 1)]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from hupai.vision.detections import box_iou

Rng = np.random.Generator
Boxes = NDArray[np.float64]

#: Shares of a tile that must show for it to count (see the module's rule).
COUNTS_FROM = 0.6
REJECT_UNDER = 0.5
NAMED_FROM = 0.75


def neighbours(tiles: Boxes) -> list[tuple[int, int]]:
    """Pairs (left, right) of tiles side by side in a row: the right one's centre within
    0.6–1.6 widths to the right and half a height up or down."""
    if len(tiles) < 2:
        return []
    c = (tiles[:, :2] + tiles[:, 2:]) / 2
    wh = tiles[:, 2:] - tiles[:, :2]
    pairs = []
    for i in range(len(tiles)):
        dx = c[:, 0] - c[i, 0]
        dy = np.abs(c[:, 1] - c[i, 1])
        ok = (dx > 0.6 * wh[i, 0]) & (dx < 1.6 * wh[i, 0]) & (dy < 0.5 * wh[i, 1])
        if ok.any():
            j = int(np.argmin(np.where(ok, dx, np.inf)))
            pairs.append((i, j))
    return pairs


def straddle_boxes(rng: Rng, tiles: Boxes, n: int) -> Boxes:
    """Up to ``n`` boxes between two neighbouring tiles, none matching a tile (IoU < 0.45)."""
    pairs = neighbours(tiles)
    out: list[Boxes] = []
    for k in rng.permutation(len(pairs))[: 2 * n]:
        a, b = tiles[pairs[int(k)][0]], tiles[pairs[int(k)][1]]
        if rng.random() < 0.25:  # one box over both tiles
            box = np.concatenate([np.minimum(a[:2], b[:2]), np.maximum(a[2:], b[2:])])
        else:
            t = float(rng.uniform(0.3, 0.7))
            box = (1 - t) * a + t * b
        if box_iou(box[None], tiles).max() < 0.45:
            out.append(box)
        if len(out) >= n:
            break
    return np.asarray(out, np.float64).reshape(-1, 4)


def cut_tile(
    rng: Rng, image: NDArray[np.uint8], tile: NDArray[np.float64], share: float
) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """The photo cut through ``tile`` so that ``share`` of it shows (the side chosen at
    random), and the box of what shows, in the cut photo's pixels."""
    h, w = image.shape[:2]
    x1, y1, x2, y2 = tile
    side = int(rng.integers(4))
    if side == 0:  # the photo's right edge cuts the tile
        c = round(x1 + share * (x2 - x1))
        return image[:, : max(c, 1)], np.array([x1, y1, min(c, w), y2])
    if side == 1:  # the left edge
        c = round(x2 - share * (x2 - x1))
        return image[:, max(c, 0) :], np.array([0, y1, x2 - max(c, 0), y2])
    if side == 2:  # the bottom edge
        c = round(y1 + share * (y2 - y1))
        return image[: max(c, 1)], np.array([x1, y1, x2, min(c, h)])
    c = round(y2 - share * (y2 - y1))  # the top edge
    return image[max(c, 0) :], np.array([x1, 0, x2, y2 - max(c, 0)])


def part_tile_crops(
    rng: Rng,
    image: NDArray[np.uint8],
    tiles: Boxes,
    classes: NDArray[np.int64] | None,
    n: int,
    store_size: int,
    store_margin: float,
) -> tuple[list[NDArray[np.uint8]], list[int | None], list[float]]:
    """Crops of tiles cut by the photo's edge: ``None`` (not a tile) under
    :data:`REJECT_UNDER`; the tile's class from :data:`NAMED_FROM` (only when ``classes``
    are given)."""
    from hupai.vision.namer import crop_box

    crops: list[NDArray[np.uint8]] = []
    labels: list[int | None] = []
    sides: list[float] = []
    for k in rng.permutation(len(tiles))[:n]:
        named = classes is not None and rng.random() < 0.4
        share = float(rng.uniform(NAMED_FROM, 0.95) if named else rng.uniform(0.15, REJECT_UNDER))
        part, box = cut_tile(rng, image, tiles[int(k)], share)
        if part.shape[0] < 4 or part.shape[1] < 4:
            continue
        crops.append(crop_box(part, box, store_size, store_margin))
        labels.append(int(classes[int(k)]) if named and classes is not None else None)
        sides.append(float(min(box[2] - box[0], box[3] - box[1])))
    return crops, labels, sides
