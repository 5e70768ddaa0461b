"""What the photo shows in a row's room for one more tile: a tile's face, or bare table.

:func:`hupai.vision.layout.gap_rooms` finds the places, from the boxes alone, where a row has
room for a tile that was not boxed. The boxes cannot tell a tile the finder missed (a blank
white dragon, a tile low in contrast) from a row laid across a tile case's divider or a meld
set apart on purpose; the photo can. A place is a ``gap`` when:

* the finder's first look scored a tile-shaped body there below its cut (a *doubtful* box,
  from :data:`hupai.vision.passes.DOUBTFUL_FROM`: the tile was seen, not trusted), or
* the namer, shown the room as it is shown a tile (a :data:`RoomLook`), takes it for a tile:
  its "not a tile" probability under :data:`ROOM_REJECT_BELOW` — a tile unboxed is a face to
  it, a plain white dragon too (1.6 % rejected, drawn ones), a table, a cloth or a divider is
  not; or, where no namer reads the photo,
* the room's middle shows the face colour of the tiles beside it — the lightest tenth of a
  tile's middle is its face between the ink, whatever the set's colour; a blank white dragon
  is all face, a dark divider, a cloth or a wood table is not — within :data:`FACE_DISTANCE`
  (on a table as light as the faces the colour cannot tell: the camerash composites' melds set
  a tile apart on beige and paper were doubted; the namer tells them apart).

Measured on real val (bench/gaps.py): of the rooms the boxes alone call gaps, every one with
a labelled tile the finder missed has a doubtful body there and the face colour, while the
rows across a case's dark divider have neither; a found tile taken away from a row of 9-14
leaves a room of its own face colour (99 % within :data:`FACE_DISTANCE`). A room the photo
cannot show (it leaves the photo) stays a gap where the boxes alone call it one.

Where a namer reads, a doubtful body in no room — beyond a row's end, a whole meld the finder
passed over — is a gap too when it is a tile's size and the namer is sure it is a tile
(:func:`unboxed_bodies`); and one where a row's next tile would lie, just beyond its end and
level with it, when the namer takes it for a tile as it takes a room's (:func:`end_bodies`:
a blank white dragon at the end of a case's row, scored under the finder's cut). And a box
the finder was fairly sure of, lying in a row of tiles, that the namer took for no tile
without being sure, is a gap (:func:`rejected_in_rows`): a face the namer does not know — a
white dragon framed around a character, of a set it never saw — may lie there, and dropped
in silence it left a confident reading a tile short.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from hupai.vision.checks import touches_border
from hupai.vision.clutter import row_mates
from hupai.vision.detections import (
    Detections,
    box_iou,
    invert_affine,
    photo_boxes,
    photo_quads,
)
from hupai.vision.layout import Box, GapRoom, HandLayout, beyond_row_ends, gap_rooms

#: The middle of a box looked at (the share of its width and height): a tile's visible body
#: sides and the seams to its neighbours lie outside it.
MIDDLE = 0.6
#: A patch is sampled at this size (px, width × height) whatever the tile's size: fine enough
#: that ink lines and the face between them stay apart.
PATCH = (24, 32)
#: A face's colour: the median of its middle's pixels from this lightness percentile up.
FACE_PERCENTILE = 90.0
#: A room shows a tile when its colour (as a face's) lies this close to the face colour of a
#: tile beside it (Lab, OpenCV's 8-bit scale). Chosen on real val (bench/gaps.py): rooms with
#: a labelled tile unboxed lie within 12, found tiles taken away within 38 (99 %), bare rooms
#: (dividers, tables) from 76 (two exceptions near 2: a white table).
FACE_DISTANCE = 40.0
#: A doubtful box overlapping a room by this IoU is a body there; a found box overlapping it
#: so much means the room is taken.
BODY_IOU = 0.3
#: A room the namer looks at is a tile's when its "not a tile" probability is under this.
#: Chosen on real val and 200 camerash composites (bench/gaps.py, issue #36): a found tile
#: taken away from a row of 9-14 is flagged where it lay 99.5 % / 95.3 % of the time (the
#: colour: 98.5 % / 87.9 %), photos with a gap 3.4 % / 18.0 % (colour: 3.4 % / 17.0 %); 0.3
#: flags 93.5 % of the composites', 0.7 gaps 24 % of them. A tile the finder missed lay
#: under 0.5 in 15 of val's 16 rooms (the other's body was doubted) and in all 5 of the
#: composites'; bare rooms lie mostly above 0.86 on val, 0.54 on the composites.
ROOM_REJECT_BELOW = 0.5
#: A doubtful body on no found tile and in no room — a tile the finder scored below its cut
#: beyond a row's end, or a whole meld of them — is a gap when the namer is this sure it is a
#: tile ("not a tile" under it) ... Chosen on real val (bench/gaps.py): the bodies there are
#: mostly tiles the labels leave out (walls, other hands), so only a sure tile counts: at
#: 0.02 val's confident photos go from 54.7 % at 90.1 % exact to 52.7 % at 91.7 % (0.01 and
#: 0.05 alike); the camerash composites' with the shipped finder are unchanged (it misses
#: few); with finder v5 (epoch 2), which missed whole melds of white dragons, the three
#: confident photos wrong for a tile unboxed each had such a body (reject 0.002-0.016).
BODY_REJECT_BELOW = 0.02
#: ... and it is a tile's size: the square root of its area within this range of the found
#: tiles' median (smaller ones are tiles far beyond the hand, larger ones two tiles or more).
BODY_SIZE = (0.7, 1.4)
#: Rooms the namer judges may lie between neighbours whose heights differ up to this ratio
#: (:func:`hupai.vision.layout.gap_rooms`; the boxes alone and the colour keep
#: :data:`hupai.vision.layout.MISSING_HEIGHT_RATIO`): the finder's boxes of one set's tiles
#: differ that much in a photo (a tile's body side boxed or not) — at 1.2, 94 of the 183
#: composites' found tiles taken away that went unflagged had no room for that alone.
ROOM_HEIGHT_RATIO = 1.5

Image = NDArray[np.uint8]
#: What :func:`hupai.vision.reading.build_reading` asks: the gaps (frame boxes) of a layout.
GapJudge = Callable[[Detections, HandLayout], NDArray[np.float64]]
#: The namer's look at rooms: frame boxes ``(k, 4)`` → each one's "not a tile" probability.
RoomLook = Callable[[NDArray[np.float64]], NDArray[np.float64]]


def _patch(
    image: Image, to_image: NDArray[np.float64], box: Sequence[float]
) -> NDArray[np.float32]:
    """The middle of a frame box, sampled from the photo, as Lab pixels (``PATCH``)."""
    x1, y1, x2, y2 = box
    pw, ph = PATCH
    sx, sy = MIDDLE * (x2 - x1) / pw, MIDDLE * (y2 - y1) / ph
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    # patch pixel → frame point → photo point; warpAffine takes that (inverse) map as is
    to_frame = np.array([[sx, 0, cx - sx * pw / 2], [0, sy, cy - sy * ph / 2], [0, 0, 1]])
    patch = cv2.warpAffine(
        image,
        to_image @ to_frame,
        (pw, ph),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return np.asarray(cv2.cvtColor(patch, cv2.COLOR_BGR2LAB), np.float32).reshape(-1, 3)


def face_colour(lab: NDArray[np.float32]) -> NDArray[np.float32]:
    """The colour of a tile's face from its middle's pixels: the lightest of them (ink is
    darker than the face it is printed on; a face is mostly bare between its marks)."""
    light = lab[lab[:, 0] >= np.percentile(lab[:, 0], FACE_PERCENTILE)]
    return np.asarray(np.median(light, axis=0), np.float32)


def _in_photo(box: Box, to_image: NDArray[np.float64], size: tuple[int, int]) -> bool:
    corners = photo_quads(np.asarray([box], np.float64), to_image)[0]
    w, h = size
    return bool((corners >= 0).all() and (corners[:, 0] <= w).all() and (corners[:, 1] <= h).all())


def face_distance(
    image: Image, det: Detections, to_image: NDArray[np.float64], room: GapRoom
) -> float:
    """How far the room's colour lies from the face colour of the nearer tile beside it (a
    room the photo shows whole: :func:`is_gap` asks)."""
    there = face_colour(_patch(image, to_image, room.box))
    faces = [face_colour(_patch(image, to_image, det.xyxy[i])) for i in room.beside]
    return float(min(np.linalg.norm(there - face) for face in faces))


def body_there(
    room: GapRoom, det: Detections, to_image: NDArray[np.float64], doubtful: NDArray[np.float64]
) -> bool:
    """Whether a doubtful box (in the photo) lies on the room — one that is not a second,
    doubted look at a tile found beside it (a box over a found tile and the room)."""
    if len(doubtful) == 0:
        return False
    doubtful = doubtful[_off_found(doubtful, det, to_image)]
    if len(doubtful) == 0:
        return False
    return bool(box_iou(photo_boxes(np.asarray([room.box]), to_image), doubtful).max() >= BODY_IOU)


def _off_found(
    doubtful: NDArray[np.float64], det: Detections, to_image: NDArray[np.float64]
) -> NDArray[np.bool_]:
    """Which doubtful boxes (photo) lie on no found tile: a box over one is a second, doubted
    look at it, not a body of its own."""
    if len(doubtful) == 0 or len(det) == 0:
        return np.ones(len(doubtful), bool)
    return np.asarray(box_iou(doubtful, photo_boxes(det.xyxy, to_image)).max(axis=1) < BODY_IOU)


def _taken(room: GapRoom, det: Detections) -> bool:
    """Whether a found box lies on the room."""
    return bool(len(det) and box_iou(np.asarray([room.box]), det.xyxy).max() > BODY_IOU)


def is_gap(
    image: Image,
    det: Detections,
    to_image: NDArray[np.float64],
    room: GapRoom,
    doubtful: NDArray[np.float64],
    reject: float | None = None,
) -> bool:
    """Whether a room holds a tile that was not boxed, by what the photo shows there: a
    doubtful body; else, where the namer looked (``reject``: its "not a tile" probability for
    the room), a tile to it; else a face's colour. A room leaving the photo is a gap where the
    boxes alone make it one."""
    if _taken(room, det):
        return False  # a found tile lies there
    if body_there(room, det, to_image, doubtful):
        return True
    h, w = image.shape[:2]
    if not _in_photo(room.box, to_image, (w, h)):
        return room.geometric  # half a room: neither the namer nor the colour can tell
    if reject is not None:
        return reject < ROOM_REJECT_BELOW
    return face_distance(image, det, to_image, room) < FACE_DISTANCE


def _to_frame(xyxy: NDArray[np.float64], to_image: NDArray[np.float64]) -> NDArray[np.float64]:
    """Photo boxes as boxes of the detections' frame (the envelope of each turned back)."""
    return photo_boxes(xyxy, invert_affine(to_image))


def unboxed_bodies(
    det: Detections,
    to_image: NDArray[np.float64],
    doubtful: NDArray[np.float64],
    look: RoomLook,
) -> NDArray[np.float64]:
    """Doubtful bodies (photo boxes) lying on no found tile, of a found tile's size
    (:data:`BODY_SIZE`), that the namer is sure are tiles (:data:`BODY_REJECT_BELOW`): frame
    boxes, one per body (the finder's passes may see one twice)."""
    if len(det) == 0 or len(doubtful) == 0:
        return np.zeros((0, 4))
    boxes = _to_frame(doubtful, to_image)
    bodies = Detections.make(boxes, np.zeros(len(boxes), np.int64))
    bodies = bodies[box_iou(bodies.xyxy, det.xyxy).max(axis=1) < BODY_IOU]
    size = np.sqrt(bodies.area) / max(float(np.median(np.sqrt(det.area))), 1e-9)
    bodies = bodies[(size >= BODY_SIZE[0]) & (size <= BODY_SIZE[1])]
    bodies = bodies.with_nms(0.5, class_agnostic=True)  # a body two passes saw is one body
    if len(bodies) == 0:
        return np.zeros((0, 4))
    return bodies.xyxy[np.asarray(look(bodies.xyxy)) < BODY_REJECT_BELOW]


def end_bodies(
    det: Detections,
    layout: HandLayout,
    to_image: NDArray[np.float64],
    doubtful: NDArray[np.float64],
    look: RoomLook,
) -> NDArray[np.float64]:
    """Doubtful bodies (photo boxes) on no found tile where a row's next tile would lie
    (:func:`hupai.vision.layout.beyond_row_ends`) that the namer takes for a tile ("not a
    tile" under :data:`ROOM_REJECT_BELOW`, as a room's): frame boxes. Beyond a row's end the
    photo shows other tiles often (walls, heaps, other hands: :data:`BODY_REJECT_BELOW` holds
    a body anywhere to a sure tile), but seldom one level with the row a pitch on. Measured on
    real val (labels corrected): of 19 such bodies the namer takes 2 — the blank white dragon
    of a case's row that a confident reading missed, and one in a photo doubted already; the
    camerash composites (200) doubt no photo more."""
    if len(det) == 0 or len(doubtful) == 0:
        return np.zeros((0, 4))
    boxes = _to_frame(doubtful[_off_found(doubtful, det, to_image)], to_image)
    if len(boxes) == 0:
        return np.zeros((0, 4))
    bodies = Detections.make(boxes, np.zeros(len(boxes), np.int64))
    bodies = bodies.with_nms(0.5, class_agnostic=True)  # a body two passes saw is one body
    ends = bodies.xyxy[beyond_row_ends(det, layout, bodies.xyxy)]
    if len(ends) == 0:
        return ends
    return ends[np.asarray(look(ends)) < ROOM_REJECT_BELOW]


def gap_rooms_judged(
    image: Image,
    det: Detections,
    layout: HandLayout,
    to_image: NDArray[np.float64],
    doubtful: NDArray[np.float64],
    look: RoomLook | None = None,
) -> list[GapRoom]:
    """A layout's rooms that the photo shows a tile in (:func:`is_gap`), one between two
    neighbours (``look``: the namer's look at the rooms; None: their colour)."""
    ratio = None if look is None else ROOM_HEIGHT_RATIO
    rooms = [r for r in gap_rooms(det, layout, ratio) if not _taken(r, det)]
    rejects: list[float | None] = [None] * len(rooms)
    if look is not None and rooms:
        rejects = [float(p) for p in look(np.asarray([r.box for r in rooms], np.float64))]
    out, seen = [], set()
    for r, reject in zip(rooms, rejects, strict=True):
        # one gap between two neighbours (their rooms come midway first, then beside each)
        if r.beside not in seen and is_gap(image, det, to_image, r, doubtful, reject):
            out.append(r)
            seen.add(r.beside)
    return out


def judge(
    image: Image,
    det: Detections,
    layout: HandLayout,
    to_image: NDArray[np.float64],
    doubtful: NDArray[np.float64],
    look: RoomLook | None = None,
) -> NDArray[np.float64]:
    """The gaps (frame boxes) among a layout's rooms, judged by what the photo shows there
    (``look``: the namer's look at the rooms; None: their colour)."""
    rooms = gap_rooms_judged(image, det, layout, to_image, doubtful, look)
    gaps = np.asarray([r.box for r in rooms], np.float64).reshape(-1, 4)
    if look is None:
        return gaps
    for bodies in (
        end_bodies(det, layout, to_image, doubtful, look),
        unboxed_bodies(det, to_image, doubtful, look),
    ):
        if len(gaps) and len(bodies):  # a body in a room (or seen already) is that gap
            bodies = bodies[box_iou(bodies, gaps).max(axis=1) < BODY_IOU]
        gaps = np.concatenate([gaps, bodies])
    return gaps


#: A box the namer took for no tile (its "not a tile" probability at its cut,
#: :data:`hupai.vision.reading.REJECT_ABOVE`, or more) with less than this ...
UNSURE_REJECT_BELOW = 0.8
#: ... that the finder scored at least this, lying beside a tile in a row, is a gap. Camerash
#: composites (300, seed 7600): one confident reading a framed white dragon short is doubted,
#: none read exactly; real val: no photo has one (0.45: two exact composites doubted too).
REJECTED_FOUND_FROM = 0.55


def rejected_in_rows(
    det: Detections, reject: NDArray[np.float64], tile: NDArray[np.bool_], cut: float
) -> NDArray[np.bool_]:
    """Which of the finder's boxes (``det``, frame, its scores) the namer rejected unsurely
    (``reject`` from its ``cut`` to :data:`UNSURE_REJECT_BELOW`) though the finder scored them from
    :data:`REJECTED_FOUND_FROM`, each lying beside one of the ``tile`` boxes in a row
    (:func:`hupai.vision.clutter.row_mates`, asked of each with the tiles alone: rejected
    boxes in a row of their own — a keyboard's keys — are not a row of tiles).

    >>> det = Detections.make([[0, 0, 30, 40], [32, 0, 62, 40], [64, 0, 94, 40],
    ...                        [0, 200, 30, 240]], [0, 0, 0, 0], [0.9, 0.7, 0.9, 0.7])
    >>> tile = np.array([True, False, True, False])
    >>> rejected_in_rows(det, np.array([0.0, 0.6, 0.0, 0.6]), tile, 0.5).tolist()
    [False, True, False, False]
    >>> rejected_in_rows(det, np.array([0.0, 0.95, 0.0, 0.6]), tile, 0.5).tolist()  # sure
    [False, False, False, False]
    """
    reject = np.asarray(reject, np.float64)
    unsure = (reject >= cut) & (reject < UNSURE_REJECT_BELOW)
    found = np.asarray(det.confidence, np.float64) >= REJECTED_FOUND_FROM
    tiles = np.nonzero(np.asarray(tile, bool))[0]
    out = np.zeros(len(det), bool)
    for i in np.nonzero(unsure & found)[0]:
        out[i] = bool(row_mates(det[np.append(tiles, i)])[-1] > 0)
    return out


def gap_judge(
    image: Image,
    to_image: NDArray[np.float64],
    doubtful: NDArray[np.float64],
    look: RoomLook | None = None,
) -> GapJudge:
    """:func:`judge` for one photo (``doubtful``: the first look's doubtful boxes, in the
    photo; ``to_image``: the detections' frame → the photo; ``look``: the namer's look at
    rooms, None to judge by colour)."""

    def run(det: Detections, layout: HandLayout) -> NDArray[np.float64]:
        return judge(image, det, layout, to_image, doubtful, look)

    return run


@dataclass(frozen=True)
class RoomTiles:
    """Boxes to read in a row's rooms (frame boxes): each the doubtful body lying on a room
    (its own box, the finder's score of it), else the room itself (score 0)."""

    xyxy: NDArray[np.float64]
    score: NDArray[np.float64]
    body: NDArray[np.bool_]  # a doubtful body, not the room's own box

    def __len__(self) -> int:
        return len(self.xyxy)


def room_tiles(
    image: Image,
    det: Detections,
    layout: HandLayout,
    to_image: NDArray[np.float64],
    doubtful: Detections,
    look: RoomLook,
) -> RoomTiles:
    """What to read where a row leaves room for a tile that the photo shows there
    (:func:`gap_rooms_judged`): the doubtful body lying on the room (``doubtful``: the first
    look's boxes under the finder's cut, in the photo, with their scores), else the room. A
    room or body the photo's border cuts is left as a gap (a tile cut off is not read). A body
    just beyond a row's end and level with it (:func:`end_bodies`) is read too; other bodies
    beyond a row's end (:func:`unboxed_bodies`) are not: on real val they are mostly the tiles
    of walls, heaps and other hands."""
    h, w = image.shape[:2]
    free = doubtful[_off_found(doubtful.xyxy, det, to_image)]
    boxes, scores, bodies = [], [], []
    for room in gap_rooms_judged(image, det, layout, to_image, doubtful.xyxy, look):
        at = photo_boxes(np.asarray([room.box]), to_image)
        iou = box_iou(at, free.xyxy)[0] if len(free) else np.zeros(0)
        body = len(iou) > 0 and float(iou.max()) >= BODY_IOU
        if body:
            k = int(iou.argmax())
            at, score = free.xyxy[k : k + 1], float(free.confidence[k])
        else:
            score = 0.0
        if touches_border(at, (w, h))[0] or not _in_photo(room.box, to_image, (w, h)):
            continue
        boxes.append(_to_frame(at, to_image)[0] if body else np.asarray(room.box, np.float64))
        scores.append(score)
        bodies.append(body)
    for end in end_bodies(det, layout, to_image, doubtful.xyxy, look):
        at = photo_boxes(end[None], to_image)
        k = int(box_iou(at, free.xyxy)[0].argmax())
        if touches_border(free.xyxy[k : k + 1], (w, h))[0]:
            continue
        boxes.append(_to_frame(free.xyxy[k : k + 1], to_image)[0])
        scores.append(float(free.confidence[k]))
        bodies.append(True)
    return RoomTiles(
        np.asarray(boxes, np.float64).reshape(-1, 4),
        np.asarray(scores, np.float64),
        np.asarray(bodies, bool),
    )
