"""Where the tiles of a winning hand lie: rows, groups, sideways tiles, and what each group is.

Pure geometry on detection boxes (no model, no image). The photo convention
(docs/reading.md): the concealed hand lies in one row, the winning tile set a little apart at
its right end; exposed melds are groups set apart by gaps (after the hand in the same row, or
in a row of their own), each claimed meld with its called tile turned sideways, a concealed
kong with two tiles face down; flowers beside; the indicator tile or up to three fishing
tiles set apart above the hand.

Steps: the row direction is the dominant direction between neighbouring tiles (tilt and
perspective are local, so rows are chained neighbour by neighbour); rows split into groups
at gaps measured against the row's own spacing; a tile is sideways when it is clearly wider
along the row than the row's upright tiles; then each group gets a role.

>>> boxes = [[x, 100, x + 30, 140] for x in range(0, 390, 30)] + [[400, 100, 430, 140]]
>>> det = Detections.make(boxes, [0, 0, 0, 1, 2, 3, 4, 4, 4, 5, 6, 7, 8, 8])
>>> lay = analyse(det)
>>> [g.role.value for g in lay.groups], lay.winning
(['hand', 'hand'], 13)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from numpy.typing import NDArray

from hupai.vision.classes import BACK
from hupai.vision.detections import Detections

FIRST_FLOWER = 34

#: A gap between two neighbours, beyond the row's usual spacing, in tile widths, that
#: separates two groups.
GROUP_GAP = 0.17
#: A tile is sideways when its along/across aspect exceeds the row's upright aspect by this.
SIDEWAYS_RATIO = 1.27
#: Below the first ratio a tile is upright, above the second sideways; between, unsure.
SIDEWAYS_UNSURE = (1.1, 1.5)
#: At most this many unsure tiles are decided by trying both readings.
MAX_UNSURE = 7
#: Neighbours further apart than this (gap, tile widths) are not chained into one row.
ROW_LINK_GAP = 3.2
#: Two neighbours in a row whose centres lie this many times the row's pitch (its median
#: centre-to-centre step) apart leave room for one or two tiles the finder did not box
#: (:func:`missing_tiles`; chosen on real val, bench/gaps.py). Measured in pitches, not box
#: widths: touching tiles' boxes overlap by their visible sides, and the pitch holds for both.
MISSING_GAP = (1.7, 3.4)
#: The winning tile is set "a little" apart: beside it, only a step of this many pitches is a
#: gap (bench/gaps.py on real val: 1.7 flags 90 % of inner tiles taken away against 86 % at 2.0,
#: with the same confident share).
WIN_APART = 1.7
#: Flowers lie beside the hand by the photo convention: no gap is seen beside one (measured:
#: seeing them would flag 2 % more of the tiles taken away on real val, whose flowers lie in
#: the row, and a flower set apart by the convention would then doubt every such photo).
FLOWERS_APART = True
#: ... between two upright tiles that stand alike: heights across the row within this ratio.
MISSING_HEIGHT_RATIO = 1.2
#: Rows shorter than this (tiles) say nothing about a tile missing from them.
MISSING_MIN_ROW = 4
#: Where two neighbours leave room for a tile and more (a step from this many pitches up to
#: the second), the tile the finder missed may lie against either of them — a meld's tile
#: beside the space that sets the meld apart, say — rather than midway: a room one pitch from
#: each is weighed too, by what the photo shows there only (bench/gaps.py, reader 11: on the
#: 200 camerash composites a tile taken away from a row of 9-14 is flagged where it lay 97.5 %
#: of the time against 94.8 % — most of the misses were meld tiles against the space that sets
#: their meld apart, whose midway room lay half on bare table — their confident answers as
#: many and as exact (31.5 % at 98.4 %); real val unchanged: 99.9 % flagged, 54.4 % confident
#: at 89.4 %, one photo more with a gap of 296).
MISSING_BESIDE = (2.4, 4.5)


#: A box lies just beyond a row's end when its centre lies this many of the row's pitches
#: past the end tile's (:func:`beyond_row_ends`) ...
END_STEPS = (0.6, 1.5)
#: ... level with it (across the row, within this share of the end tile's height) ...
END_LINE = 0.35
#: ... and of its height within this ratio (looser than :data:`MISSING_HEIGHT_RATIO`: a
#: doubtful body's box is the finder's own, less tight than a found tile's).
END_HEIGHT_RATIO = 1.3


class Role(StrEnum):
    HAND = "hand"
    MELD = "meld"
    FLOWERS = "flowers"
    SET_APART = "set_apart"  # the indicator or fishing tiles
    STRAY = "stray"  # fits nothing: reported, not used


class MeldShape(StrEnum):
    """A meld as a photo shows it (values are scoring's MeldKind values)."""

    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"
    ADDED_KONG = "added_kong"
    CONCEALED_KONG = "concealed_kong"


class CalledFrom(StrEnum):
    """Where the sideways (called) tile sits in its meld: the seat it came from, seen from
    the winner: left = the previous seat, across, right = the next seat."""

    LEFT = "left"
    ACROSS = "across"
    RIGHT = "right"


@dataclass(frozen=True)
class Group:
    """Tiles set together in one row, ordered left to right (indices into the detections)."""

    id: int
    row: int
    tiles: tuple[int, ...]
    role: Role = Role.STRAY
    meld: MeldShape | None = None
    called_from: CalledFrom | None = None
    #: an added kong whose fourth tile lies on the sideways tile, hidden: inferred
    hidden_tile: bool = False


@dataclass(frozen=True)
class Row:
    id: int
    tiles: tuple[int, ...]  # left to right
    angle: float  # degrees, the row's own direction (perspective makes rows differ)


@dataclass(frozen=True)
class HandLayout:
    """The structure of one photo. Tile indices refer to the detections analysed."""

    angle: float  # dominant row direction, degrees (image x towards image y)
    rows: tuple[Row, ...]
    groups: tuple[Group, ...]
    sideways: NDArray[np.bool_]
    stacked: NDArray[np.bool_]
    winning: int | None  # the winning tile, when one is set apart at the hand's right end
    unit: float  # typical tile width along the rows, px

    def role_of(self, role: Role) -> list[Group]:
        return [g for g in self.groups if g.role is role]

    @property
    def hand(self) -> tuple[int, ...]:
        return tuple(i for g in self.role_of(Role.HAND) for i in g.tiles)

    def group_of(self, tile: int) -> Group | None:
        return next((g for g in self.groups if tile in g.tiles), None)


# -- geometry ----------------------------------------------------------------------------


def row_angle(centres: NDArray[np.float64], sizes: NDArray[np.float64]) -> float:
    """Dominant direction (degrees in (-90, 90]) of the vectors between nearest neighbours.

    >>> c = np.array([[0, 0], [10, 1.8], [20, 3.5], [30, 5.3]], float)
    >>> round(row_angle(c, np.full(4, 10.0)), 1)
    10.0
    """
    n = len(centres)
    if n < 2:
        return 0.0
    diff = centres[None, :, :] - centres[:, None, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    np.fill_diagonal(dist, np.inf)
    angles: list[float] = []
    weights: list[float] = []
    for i in range(n):
        order = np.argsort(dist[i])[:2]
        for j in order:
            if dist[i, j] > 2.5 * max(sizes[i], sizes[j]):
                continue
            angles.append(math.atan2(diff[i, j, 1], diff[i, j, 0]))
            weights.append(1.0 / (1.0 + dist[i, j] / max(sizes[i], 1e-9)))
    if not angles:
        return 0.0
    a = np.asarray(angles)
    w = np.asarray(weights)
    # Doubled angles make a direction and its opposite vote together; take the mode of a
    # smoothed histogram, then the weighted mean of the votes near it.
    bins = 90
    hist = np.zeros(bins)
    idx = ((np.mod(a, math.pi) / math.pi) * bins).astype(int) % bins
    np.add.at(hist, idx, w)
    smooth = sum(np.roll(hist, k) * (1.0 - abs(k) / 4) for k in range(-3, 4))
    mode = (int(np.argmax(smooth)) + 0.5) * math.pi / bins
    delta = np.mod(a - mode + math.pi / 2, math.pi) - math.pi / 2
    near = np.abs(delta) < math.radians(12)
    refined = mode + float(np.average(delta[near], weights=w[near])) if near.any() else mode
    deg = math.degrees(refined)
    deg = (deg + 90) % 180 - 90  # (-90, 90]
    return 90.0 if deg == -90 else deg


def _frame_sizes(
    wh: NDArray[np.float64], angle: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Along-row and across-row sizes of tiles whose axis-aligned boxes are ``wh`` when
    rows run at ``angle``. Undoes the rotation (ill-conditioned near 45°, where both
    sizes fall back to the box's mean side)."""
    c, s = abs(math.cos(math.radians(angle))), abs(math.sin(math.radians(angle)))
    det = c * c - s * s
    w, h = wh[:, 0], wh[:, 1]
    if abs(det) < 0.45:
        side = np.sqrt(w * h)
        return side, side.copy()
    along = (w * c - h * s) / det
    across = (h * c - w * s) / det
    floor = 0.25 * np.minimum(w, h)
    return np.maximum(along, floor), np.maximum(across, floor)


@dataclass
class _Frame:
    u: NDArray[np.float64]
    v: NDArray[np.float64]
    along: NDArray[np.float64]
    across: NDArray[np.float64]
    angle: float


def _frame(det: Detections, angle: float) -> _Frame:
    t = math.radians(angle)
    c, s = math.cos(t), math.sin(t)
    xy = det.centres
    u = xy[:, 0] * c + xy[:, 1] * s
    v = -xy[:, 0] * s + xy[:, 1] * c
    along, across = _frame_sizes(det.wh, angle)
    return _Frame(u, v, along, across, angle)


def _chain_rows(f: _Frame) -> list[list[int]]:
    """Chain tiles into rows: each tile links to at most one right neighbour, best links
    first (:func:`_row_links`)."""
    n = len(f.u)
    right = [-1] * n
    left = [-1] * n
    for _cost, i, j in _row_links(f):
        if right[i] == -1 and left[j] == -1:
            right[i], left[j] = j, i
    rows = []
    for i in range(n):
        if left[i] == -1:
            chain = [i]
            while right[chain[-1]] != -1:
                chain.append(right[chain[-1]])
            rows.append(chain)
    return rows


def _row_links(f: _Frame) -> list[tuple[float, int, int]]:
    """Every possible link ``(cost, i, j)`` of tile ``i`` to ``j`` on its right, cheapest
    first: a small gap along the row and little offset across it."""
    n = len(f.u)
    unit = np.minimum(f.along, f.across)
    # every (a, b) at once: b to the right of a, the gap between them small, little offset
    a, b = (m.ravel() for m in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    du = f.u[b] - f.u[a]
    gap = du - (f.along[a] + f.along[b]) / 2
    scale = np.minimum(unit[a], unit[b])
    dv = np.abs(f.v[b] - f.v[a])
    thin = np.minimum(f.across[a], f.across[b])
    link = (
        (du > 0.3 * np.minimum(f.along[a], f.along[b]))
        & (gap <= ROW_LINK_GAP * scale)
        & (dv <= 0.42 * thin + 0.1 * scale)
    )
    a, b = a[link], b[link]
    cost = np.maximum(gap[link], 0.0) / scale[link] + 3.0 * dv[link] / thin[link]
    order = np.lexsort((b, a, cost))  # by cost, then a, then b: as sorting (cost, a, b)
    return [(float(cost[k]), int(a[k]), int(b[k])) for k in order]


def _percentile(values: Sequence[float] | NDArray[np.float64], q: float) -> float:
    """``np.percentile(values, q)`` (linear method) for the few values of a row: the same
    arithmetic to the bit, without numpy's per-call overhead (the layout asks it thousands
    of times a photo, trying every sideways choice).

    >>> _percentile([4.0, 1.0, 3.0, 2.0], 30) == float(np.percentile([4.0, 1.0, 3.0, 2.0], 30))
    True
    """
    a = sorted(float(v) for v in values)
    index = (q / 100) * (len(a) - 1)
    lo = math.floor(index)
    hi = min(lo + 1, len(a) - 1)
    t = index - lo
    below, above = a[lo], a[hi]
    diff = above - below
    # numpy's _lerp: from the nearer end, so that t = 1 gives ``above`` exactly
    return above - diff * (1 - t) if t >= 0.5 else below + diff * t


def _median(values: Sequence[float]) -> float:
    """``np.median(values)`` to the bit (the middle, or the mean of the two middles).

    >>> _median([3.0, 1.0, 2.0, 10.0]) == float(np.median([3.0, 1.0, 2.0, 10.0]))
    True
    """
    a = sorted(values)
    mid = len(a) // 2
    return float(a[mid]) if len(a) % 2 else (a[mid - 1] + a[mid]) / 2


def _line_angle(f: _Frame, tiles: Sequence[int]) -> float:
    if len(tiles) < 2:
        return f.angle
    u, v = f.u[list(tiles)], f.v[list(tiles)]
    slope = float(np.polyfit(u, v, 1)[0]) if np.ptp(u) > 0 else 0.0
    return f.angle + math.degrees(math.atan(slope))


def _sideways_ratio(f: _Frame, rows: list[list[int]]) -> NDArray[np.float64]:
    """How much wider along the row each tile is than the tiles beside it (aspect over the
    neighbours' lower aspect). Perspective and the visible tile sides change the aspect
    along a row, so the reference is local; tiles of short rows compare with the photo."""
    aspect = f.along / np.maximum(f.across, 1e-9)
    ratio = np.ones(len(aspect))
    pooled = [aspect[i] for r in rows if len(r) >= 3 for i in r] or list(aspect)
    global_ref = _percentile(pooled, 30)
    for r in rows:
        for k, i in enumerate(r):
            nbrs = [r[m] for m in range(max(0, k - 3), min(len(r), k + 4)) if m != k]
            if len(nbrs) >= 2:
                ref = _percentile(aspect[nbrs], 35)
            elif nbrs:
                ref = min(global_ref, float(aspect[nbrs[0]]))
            else:
                ref = global_ref
            ratio[i] = aspect[i] / max(ref, 1e-9)
    return ratio


def _width_along(f: _Frame, sideways: NDArray[np.bool_], i: int) -> float:
    """Tile width (its short face side) along the row: a sideways tile shows its length."""
    return float(f.along[i] / 1.35 if sideways[i] else f.along[i])


def _split_groups(
    f: _Frame, row: list[int], sideways: NDArray[np.bool_]
) -> tuple[list[list[int]], list[float]]:
    """Split a row at gaps; returns the groups and every gap (in tile widths)."""
    if len(row) == 1:
        return [row], []
    gaps = []
    for a, b in itertools.pairwise(row):
        du = f.u[b] - f.u[a]
        gaps.append(du - (f.along[a] + f.along[b]) / 2)
    widths = [
        min(_width_along(f, sideways, a), _width_along(f, sideways, b))
        for a, b in itertools.pairwise(row)
    ]
    rel = np.asarray(gaps) / np.asarray(widths)
    # Boxes of touching tiles overlap by the tile's visible side; the row's usual spacing
    # (its lower half) is the zero.
    base = _percentile(rel, 30) if len(rel) >= 3 else min(float(rel.min()), 0.0)
    base = min(base, 0.1)
    norm = list(rel - base)
    groups: list[list[int]] = [[row[0]]]
    for k, b in enumerate(row[1:]):
        if norm[k] > GROUP_GAP:
            groups.append([b])
        else:
            groups[-1].append(b)
    return groups, norm


def _set_apart(layout: HandLayout, det: Detections, i: int) -> bool:
    """A tile the photo convention sets apart by a gap — a flower, a meld's tile, a sideways
    tile: a gap beside it is no sign of a missing tile. (The winning tile is set only "a
    little" apart: :func:`missing_tiles` allows it less room.)"""
    group = layout.group_of(i)
    return bool(
        layout.sideways[i]
        or (FLOWERS_APART and _is_flower(int(det.class_id[i])))
        or (group is not None and group.role is Role.MELD)
    )


Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class GapRoom:
    """A place beside a row's tiles with room for a tile that was not boxed (the frame of the
    detections analysed). ``geometric``: the boxes alone make it a gap (:func:`missing_tiles`);
    the others — beside a tile set apart by the convention — are a gap only when the photo
    shows a tile there (:mod:`hupai.vision.rooms`)."""

    box: Box
    beside: tuple[int, int]  # the row's two tiles it lies between
    geometric: bool


def gap_rooms(
    det: Detections, layout: HandLayout, height_ratio: float | None = None
) -> list[GapRoom]:
    """Every place in a row with room for one more tile: between two upright tiles that stand
    alike (heights within ``height_ratio``, by default :data:`MISSING_HEIGHT_RATIO`) whose
    centres lie
    :data:`MISSING_GAP` steps apart, in a row of at least :data:`MISSING_MIN_ROW` tiles. A
    place is ``geometric`` unless a tile beside it is set apart by the photo convention
    (:func:`_set_apart`) or it is narrower than :data:`WIN_APART` beside the winning tile.
    (Beyond a row's ends the photo shows too many tiles of other rows, walls and cases to
    tell: measured on real val, a room one step beyond an end showed a face in a third of
    the photos.)

    >>> boxes = [[x, 100, x + 30, 140] for x in range(0, 390, 30) if x not in (150, 270)]
    >>> det = Detections.make(boxes, [0] * 8 + [34, 35, 36])  # three flowers at the right
    >>> [(round(r.box[0]), r.geometric) for r in gap_rooms(det, analyse(det))]
    [(150, True), (270, False)]
    """
    if len(det) == 0:
        return []
    height_ratio = MISSING_HEIGHT_RATIO if height_ratio is None else height_ratio
    f = _frame(det, layout.angle)
    t = math.radians(layout.angle)
    along_x, along_y = math.cos(t), math.sin(t)

    def room(mid_u: float, mid_v: float, wh: NDArray[np.float64]) -> Box:
        cx = mid_u * along_x - mid_v * along_y
        cy = mid_u * along_y + mid_v * along_x
        w, h = wh
        return (float(cx - w / 2), float(cy - h / 2), float(cx + w / 2), float(cy + h / 2))

    out: list[GapRoom] = []
    for row in layout.rows:
        r = list(row.tiles)
        if len(r) < MISSING_MIN_ROW:
            continue
        steps = np.diff(f.u[r])
        pitch = float(np.median(steps))
        if pitch <= 0:
            continue
        for k, (a, b) in enumerate(itertools.pairwise(r)):
            step = steps[k] / pitch
            between = MISSING_GAP[0] <= step <= MISSING_GAP[1]
            beside = MISSING_BESIDE[0] <= step <= MISSING_BESIDE[1]
            if not (between or beside):
                continue
            if max(f.across[a], f.across[b]) > height_ratio * min(f.across[a], f.across[b]):
                continue
            apart = _set_apart(layout, det, a) or _set_apart(layout, det, b)
            narrow = layout.winning in (a, b) and step < WIN_APART
            v, wh, pair = (f.v[a] + f.v[b]) / 2, (det.wh[a] + det.wh[b]) / 2, (int(a), int(b))
            if between:  # the room between the two, as a box of the neighbours' size
                mid_u = (f.u[a] + f.along[a] / 2 + f.u[b] - f.along[b] / 2) / 2
                out.append(GapRoom(room(mid_u, v, wh), pair, not (apart or narrow)))
            if beside:  # a pitch from each of them
                out += [
                    GapRoom(room(u, v, wh), pair, False) for u in (f.u[a] + pitch, f.u[b] - pitch)
                ]
    return out


def beyond_row_ends(
    det: Detections, layout: HandLayout, boxes: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """Which of ``boxes`` (the detections' frame) lie just beyond an end of a row of at least
    :data:`MISSING_MIN_ROW` tiles, where the row's next tile would: a pitch or so past the
    end tile (:data:`END_STEPS`), level with it (:data:`END_LINE`) and of its height
    (:data:`END_HEIGHT_RATIO`). A tile there is not in a row's room (:func:`gap_rooms` looks
    between tiles only); a body the finder doubted there may be one it missed — a blank white
    dragon at the end of a case's row.

    >>> row = Detections.make([[x, 100, x + 30, 140] for x in range(0, 150, 30)], [0] * 5)
    >>> beyond_row_ends(row, analyse(row), np.array([[150, 101, 180, 141],   # next in line
    ...                                               [150, 150, 180, 190],  # below the row
    ...                                               [240, 100, 270, 140],  # two tiles on
    ...                                               [-30, 100, 0, 140.]])).tolist()
    [True, False, False, True]
    """
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    out = np.zeros(len(boxes), bool)
    if len(det) == 0 or len(boxes) == 0:
        return out
    f = _frame(det, layout.angle)
    b = _frame(Detections.make(boxes, np.zeros(len(boxes), np.int64)), layout.angle)
    for row in layout.rows:
        r = list(row.tiles)
        if len(r) < MISSING_MIN_ROW:
            continue
        pitch = float(np.median(np.diff(f.u[r])))
        if pitch <= 0:
            continue
        for end, outwards in ((r[0], -1.0), (r[-1], 1.0)):
            steps = outwards * (b.u - f.u[end]) / pitch
            level = np.abs(b.v - f.v[end]) < END_LINE * f.across[end]
            alike = np.abs(np.log(np.maximum(b.across, 1e-6) / f.across[end]))
            out |= (
                (steps >= END_STEPS[0])
                & (steps <= END_STEPS[1])
                & level
                & (alike < math.log(END_HEIGHT_RATIO))
            )
    return out


def missing_tiles(det: Detections, layout: HandLayout) -> NDArray[np.float64]:
    """Boxes (``(k, 4)``, the detections' frame) where a row has room for a tile that was not
    boxed, judged from the boxes alone (:func:`gap_rooms`' geometric places): two upright
    tiles that stand alike with room for one or two more between them (their centres about
    two or three of the row's steps apart). A tile the finder missed (a blank white dragon, a
    tile low in contrast) leaves such a gap; so may a hand laid out with a wide gap, which is
    why this is a doubt, not a tile. Where the photo is at hand, :mod:`hupai.vision.rooms`
    judges every place by what the photo shows there instead.

    >>> boxes = [[x, 100, x + 30, 140] for x in range(0, 390, 30) if x != 150]
    >>> det = Detections.make(boxes, [0] * len(boxes))
    >>> missing_tiles(det, analyse(det)).round().tolist()
    [[150.0, 100.0, 180.0, 140.0]]
    """
    boxes = [r.box for r in gap_rooms(det, layout) if r.geometric]
    return np.asarray(boxes, np.float64).reshape(-1, 4)


# -- roles -------------------------------------------------------------------------------


def _is_flower(c: int) -> bool:
    return FIRST_FLOWER <= c < BACK


def _meld_shape(
    classes: Sequence[int], sideways: Sequence[bool]
) -> tuple[MeldShape | None, CalledFrom | None]:
    """The meld a group shows, from its classes and sideways flags (left to right)."""
    n = len(classes)
    backs = sum(c == BACK for c in classes)
    faces = [c for c in classes if c != BACK]
    side_at = [k for k, s in enumerate(sideways) if s]
    if n == 4 and backs >= 1 and not side_at:
        if len(set(faces)) <= 1:
            return MeldShape.CONCEALED_KONG, None
        return None, None
    if backs:
        return None, None
    if n == 3 and len(side_at) == 1:
        where = (CalledFrom.LEFT, CalledFrom.ACROSS, CalledFrom.RIGHT)[side_at[0]]
        if len(set(classes)) == 1:
            return MeldShape.PUNG, where
        return MeldShape.CHOW, where
    if n == 4 and len(set(classes)) == 1 and side_at:
        if len(side_at) == 1:
            k = side_at[0]
            where = CalledFrom.LEFT if k == 0 else CalledFrom.RIGHT if k == 3 else CalledFrom.ACROSS
            return MeldShape.KONG, where
        return MeldShape.ADDED_KONG, None
    return None, None


def _split_melds(classes: Sequence[int], sideways: Sequence[bool]) -> list[int] | None:
    """Cut a run of touching melds into melds of 3 or 4 tiles; the cut sizes, or None."""
    n = len(classes)
    best: dict[int, list[int] | None] = {0: []}
    for end in range(1, n + 1):
        best[end] = None
        for size in (3, 4):
            start = end - size
            prev = best.get(start)
            if start < 0 or prev is None:
                continue
            shape, _ = _meld_shape(classes[start:end], sideways[start:end])
            if shape is not None:
                best[end] = [*prev, size]
                break
    return best[n]


def _peel_melds(
    classes: Sequence[int], special: Sequence[bool], sideways: Sequence[bool]
) -> tuple[int, list[int]] | None:
    """Plain tiles, then melds, then plain tiles: ``(start, meld sizes)``, or None when the
    special tiles cannot be read as melds."""
    n = len(classes)
    first = special.index(True)
    last = n - 1 - list(reversed(special)).index(True)
    best: tuple[int, int, list[int]] | None = None
    for start in range(0, first + 1):
        for end in range(last + 1, n + 1):
            sizes = _split_melds(classes[start:end], sideways[start:end])
            if sizes is None:
                continue
            kept = start + n - end
            # A gap-bounded group that is all melds stays whole; otherwise the hand keeps
            # as many tiles as it can (a missed gap between hand and meld).
            rank = n + 1 if kept == 0 else kept
            if best is None or rank > best[0]:
                best = (rank, start, sizes)
    return None if best is None else (best[1], best[2])


def analyse(det: Detections, angle: float | None = None) -> HandLayout:
    """Rows, groups, sideways tiles and roles of a photo's detections (image pixels).

    Whether a tile is sideways is clear for most tiles from its shape; for the unclear
    ones every choice is tried and the reading that best explains the photo wins: a tile
    count that a winning hand can have, melds that are melds, no tile left over.
    """
    n = len(det)
    if n == 0:
        return HandLayout(0.0, (), (), np.zeros(0, bool), np.zeros(0, bool), None, 0.0)
    if angle is None:
        angle = row_angle(det.centres, np.sqrt(np.maximum(det.area, 1.0)))
    f = _frame(det, angle)
    classes = det.class_id
    faceup = classes != BACK
    chains = _chain_rows(f)
    ratio = _sideways_ratio(f, chains)
    in_long_row = np.zeros(n, dtype=bool)
    for c in chains:
        if len(c) >= 2:
            in_long_row[c] = True
    possible = faceup & (ratio > SIDEWAYS_UNSURE[0])
    sure = possible & (ratio > SIDEWAYS_UNSURE[1]) & in_long_row
    unsure = [int(i) for i in np.nonzero(possible & ~sure)[0]]
    unsure = sorted(unsure, key=lambda i: -abs(ratio[i] - SIDEWAYS_RATIO))[:MAX_UNSURE]
    # a row's slope is the same whatever is sideways: fitted once, not once a choice
    slopes = {tuple(c): _line_angle(f, c) for c in chains}
    best: tuple[float, HandLayout] | None = None
    for mask in range(1 << len(unsure)):
        sideways = sure.copy()
        prior = 0.0
        for k, i in enumerate(unsure):
            chosen = bool(mask >> k & 1)
            sideways[i] = chosen
            prior += (ratio[i] - SIDEWAYS_RATIO) * (8.0 if chosen else -8.0)
        layout = _build(det, f, chains, slopes, sideways, angle)
        score = prior + _plausibility(layout, classes)
        if best is None or score > best[0]:
            best = (score, layout)
    assert best is not None
    return best[1]


def _plausibility(layout: HandLayout, classes: NDArray[np.int64]) -> float:
    """How well a layout explains a winning-hand photo."""
    melds = layout.role_of(Role.MELD)
    score = 0.0
    hand = len(layout.hand)
    if hand and hand == 14 - 3 * len(melds):
        score += 10.0
    score -= 6.0 * sum(1 for g in melds if g.meld is None)
    score -= 2.0 * sum(len(g.tiles) for g in layout.role_of(Role.STRAY))
    return score


def _build(
    det: Detections,
    f: _Frame,
    chains: list[list[int]],
    slopes: dict[tuple[int, ...], float],
    sideways_in: NDArray[np.bool_],
    angle: float,
) -> HandLayout:
    n = len(det)
    classes = det.class_id
    sideways = sideways_in.copy()
    stacked = np.zeros(n, dtype=bool)
    # An added kong's fourth tile laid beside its sideways tile (further from the player)
    # forms a one-tile row; hand it to the sideways tile it belongs to. Any other lone
    # tile is no meld's, so it is not read as sideways.
    partner: dict[int, int] = {}
    for c in chains:
        if len(c) != 1 or not sideways[c[0]]:
            continue
        s = c[0]
        for other in chains:
            if len(other) < 3:
                continue
            for i in other:
                if not sideways[i] or classes[i] != classes[s]:
                    continue
                if abs(f.u[i] - f.u[s]) < 0.6 * f.along[i] and abs(f.v[i] - f.v[s]) < 2.0 * max(
                    f.across[i], f.across[s]
                ):
                    partner[s] = i
        if s not in partner:
            sideways[s] = False
    chains = [c for c in chains if not (len(c) == 1 and c[0] in partner)]
    for s in partner:
        stacked[s] = True

    rows = sorted(chains, key=lambda c: float(np.mean(f.v[c])))
    row_objs: list[Row] = []
    raw_groups: list[tuple[int, list[int]]] = []
    for r_id, r in enumerate(rows):
        row_objs.append(Row(r_id, tuple(r), slopes[tuple(r)]))
        parts, _gaps = _split_groups(f, r, sideways)
        for p in parts:
            raw_groups.append((r_id, p))

    unit = _median([_width_along(f, sideways, i) for i in range(n)])
    groups = _assign_roles(raw_groups, classes, sideways, stacked, partner, f)
    winning = _winning_tile(groups, f, sideways)
    return HandLayout(angle, tuple(row_objs), tuple(groups), sideways, stacked, winning, unit)


def _assign_roles(
    raw: list[tuple[int, list[int]]],
    classes: NDArray[np.int64],
    sideways: NDArray[np.bool_],
    stacked: NDArray[np.bool_],
    partner: dict[int, int],
    f: _Frame,
) -> list[Group]:
    out: list[Group] = []
    plain: list[tuple[int, list[int]]] = []  # face-up, upright, not flowers
    flowers: list[tuple[int, list[int]]] = []
    for row, tiles in raw:
        flower_tiles = [i for i in tiles if _is_flower(int(classes[i]))]
        rest = [i for i in tiles if not _is_flower(int(classes[i]))]
        if flower_tiles:
            flowers.append((row, flower_tiles))
        if not rest:
            continue
        special = any(sideways[i] or classes[i] == BACK for i in rest)
        if not special:
            plain.append((row, rest))
            continue
        # One or more melds (touching melds are cut into 3s and 4s), maybe touching plain
        # tiles of the hand on either side when the gap between them is too small to see.
        cut = _peel_melds(
            [int(classes[i]) for i in rest],
            [bool(sideways[i] or classes[i] == BACK) for i in rest],
            [bool(sideways[i]) for i in rest],
        )
        if cut is None:
            out.append(Group(-1, row, tuple(rest), Role.MELD, None))
            continue
        start, sizes = cut
        if start:
            plain.append((row, rest[:start]))
        k = start
        for size in sizes:
            part = rest[k : k + size]
            k += size
            out.append(_meld_group(row, part, classes, sideways, stacked, partner, f))
        if k < len(rest):
            plain.append((row, rest[k:]))

    for row, tiles in flowers:
        out.append(Group(-1, row, tuple(tiles), Role.FLOWERS))

    # The hand: the concealed tiles. A winning hand holds 14 - 3 per meld; prefer the row
    # whose plain groups make that count, then the largest, then the lowest in the photo
    # (set-apart tiles lie above the hand).
    n_melds = sum(1 for g in out if g.role is Role.MELD)
    want = 14 - 3 * n_melds
    by_row: dict[int, list[list[int]]] = {}
    for row, tiles in plain:
        by_row.setdefault(row, []).append(tiles)
    if by_row:

        def score(row: int) -> tuple[int, int, float]:
            count = sum(len(t) for t in by_row[row])
            return (int(count == want), count, float(np.mean(f.v[by_row[row][0]])))

        hand_row = max(by_row, key=score)
        for tiles in by_row[hand_row]:
            out.append(Group(-1, hand_row, tuple(tiles), Role.HAND))
        others = [(r, t) for r, ts in by_row.items() if r != hand_row for t in ts]
        # Set-apart tiles: small groups off the hand row, at most three tiles in all,
        # nearest to the hand first.
        hand_v = float(np.mean([f.v[i] for t in by_row[hand_row] for i in t]))
        others.sort(key=lambda rt: abs(float(np.mean(f.v[rt[1]])) - hand_v))
        taken = 0
        for row, tiles in others:
            if taken + len(tiles) <= 3:
                out.append(Group(-1, row, tuple(tiles), Role.SET_APART))
                taken += len(tiles)
            else:
                out.append(Group(-1, row, tuple(tiles), Role.STRAY))
    out.sort(key=lambda g: (g.row, float(f.u[g.tiles[0]])))
    return [
        Group(k, g.row, g.tiles, g.role, g.meld, g.called_from, g.hidden_tile)
        for k, g in enumerate(out)
    ]


def _meld_group(
    row: int,
    part: list[int],
    classes: NDArray[np.int64],
    sideways: NDArray[np.bool_],
    stacked: NDArray[np.bool_],
    partner: dict[int, int],
    f: _Frame,
) -> Group:
    cls = [int(classes[i]) for i in part]
    side = [bool(sideways[i]) for i in part]
    shape, where = _meld_shape(cls, side)
    extra = [s for s, p in partner.items() if p in part]
    hidden = False
    if shape is MeldShape.PUNG and extra:
        return Group(-1, row, (*part, *extra), Role.MELD, MeldShape.ADDED_KONG, where)
    if shape is MeldShape.PUNG and _raised(part, sideways, f):
        shape, hidden = MeldShape.ADDED_KONG, True
    return Group(-1, row, tuple(part), Role.MELD, shape, where, hidden)


def _raised(part: list[int], sideways: NDArray[np.bool_], f: _Frame) -> bool:
    """A sideways tile lying on another (an added kong) shows its bottom edge raised above
    the bottom edges of the meld's upright tiles by a tile's thickness."""
    side = [i for i in part if sideways[i]]
    up = [i for i in part if not sideways[i]]
    if len(side) != 1 or not up:
        return False
    s = side[0]
    bottom_side = f.v[s] + f.across[s] / 2
    bottom_up = float(np.mean([f.v[i] + f.across[i] / 2 for i in up]))
    across_up = float(np.mean([f.across[i] for i in up]))
    return bool(bottom_up - bottom_side > 0.28 * across_up)


def _winning_tile(groups: list[Group], f: _Frame, sideways: NDArray[np.bool_]) -> int | None:
    """The winning tile: the hand row's rightmost tile when it stands alone (set apart)."""
    hand = [g for g in groups if g.role is Role.HAND]
    if len(hand) < 2:
        return None
    last = max(hand, key=lambda g: float(f.u[g.tiles[-1]]))
    if len(last.tiles) != 1:
        return None
    return last.tiles[0]
