"""Photo → the structured hand the scorer needs (:class:`~hupai.vision.result.Reading`).

:func:`read_photo` loads the photo (EXIF orientation applied; no more pixels than its tiles
need, :mod:`hupai.vision.photo_read`), finds the tiles with the
passes the photo needs (:mod:`hupai.vision.passes`), names each box from the photo's own pixels
(:class:`~hupai.vision.namer.Namer`, hand-wide decoding), lays the tiles out
(:mod:`hupai.vision.layout`) and checks the result (:mod:`hupai.vision.checks`).

The result type, the passes, the time budget and the checks live in their own modules; their
names are re-exported here for the callers that read photos.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hupai.scoring.tiles import Tile, format_tiles
from hupai.vision.checks import (
    CHECK_BELOW,
    LOW_CONFIDENCE,
    SMALL_TILE_PX,
    check_reasons,
    checks,
    is_confident,
    over_two_tiles,
    tiles_to_check,
)
from hupai.vision.classes import BACK, CLASS_NAMES, WHITE_DRAGON, tile_of
from hupai.vision.clutter import (
    CLUTTER_ABOVE,
    clutter_scores,
    face_grounds,
    grounds_weighed,
    lone_clutter,
)
from hupai.vision.deadline import ReadTimeout, check_deadline, read_deadline
from hupai.vision.detections import (
    Detections,
    box_iou,
    envelopes,
    first_look_boxes,
    photo_boxes,
    photo_quads,
)
from hupai.vision.detector import Detector, Image
from hupai.vision.images import MAX_PIXELS
from hupai.vision.layout import (
    CalledFrom,
    HandLayout,
    MeldShape,
    Role,
    analyse,
    missing_tiles,
)
from hupai.vision.namer import REJECT, Namer, NamerError
from hupai.vision.passes import FINDER_CONF, detect_photo, featureless
from hupai.vision.result import WARNING_CODES, Reading, ReadingWarning, ReadMeld
from hupai.vision.rooms import (
    BODY_IOU,
    GapJudge,
    RoomLook,
    gap_judge,
    rejected_in_rows,
    room_tiles,
)

__all__ = [
    "FINDER_CONF",
    "LOW_CONFIDENCE",
    "READER_RULES",
    "REJECT_ABOVE",
    "SMALL_TILE_PX",
    "WARNING_CODES",
    "FoundTiles",
    "NamedTiles",
    "ReadMeld",
    "ReadTimeout",
    "Reading",
    "ReadingWarning",
    "build_reading",
    "check_deadline",
    "default_namer",
    "detect_photo",
    "featureless",
    "find_tiles",
    "get_detector",
    "get_namer",
    "name_tiles",
    "photo_boxes",
    "photo_quads",
    "read_deadline",
    "read_found",
    "read_image",
    "read_in_rooms",
    "read_photo",
    "read_photo_image",
    "rebuild",
    "tiles_of_names",
]

#: The reading rules' version: the shipped pair's (models/reader.json) when a change of the
#: rules last changed what a photo reads as. The labelling job reads a photo again where its
#: manifest entry was read under other rules (15: a turned row's tiles in the first look's
#: boxes, clutter weighed by where a box lies; 16: a tile read in a row's room; 17: a body
#: the finder doubted just beyond a row's end, level with it, is a gap, and read; a tile set
#: apart in the row of a pung of its kind is doubted, kong_or_apart; 18: the clutter model weighs
#: the colour of a box's face ground beside the photo's tiles'; a lone doubted back, a box
#: across two tiles and a bare room read as a back are no tiles; a face in a row the namer
#: half rejects is a gap; 20: a lone box the namer cannot name is no tile).
READER_RULES = 20

#: A box is not a tile when the namer gives "reject" at least this probability. Weighed with
#: reader 10 on real val and the held-out scenes (bench/heldout.py): 0.3 and 0.2 drop a
#: seventh and a fifth of the clutter boxes held-out scenes keep (1.65 / 2.67 / 1.72 a photo
#: at 0.5; 1.28 / 2.12 / 1.40 at 0.2) but read 1 and 5 val photos fewer exactly: kept.
REJECT_ABOVE = 0.5


@cache
def get_detector(model: str | None = None, threads: int | None = None) -> Detector:
    """The process's detector (one ONNX session per model and thread count)."""
    return Detector(model, threads=threads)


@cache
def get_namer(model: str | None = None, threads: int | None = None) -> Namer:
    """The process's namer (one ONNX session per model and thread count)."""
    return Namer(model, threads=threads)


def default_namer(threads: int | None = None) -> Namer | None:
    """The shipped namer, or None where it is not installed (the detector then names)."""
    try:
        return get_namer(None, threads)
    except NamerError:
        return None


def read_photo(
    path: str | Path,
    *,
    detector: Detector | None = None,
    namer: Namer | None = None,
    win_tile: Tile | str | None = None,
) -> Reading:
    """Read a winning hand from a photo file (see :func:`read_photo_image`)."""
    return read_photo_image(path, detector=detector, namer=namer, win_tile=win_tile)[1]


def read_photo_image(
    path: str | Path | bytes,
    *,
    detector: Detector | None = None,
    namer: Namer | None = None,
    win_tile: Tile | str | None = None,
    source: str | None = None,
    max_pixels: int = MAX_PIXELS,
) -> tuple[Image, Reading]:
    """Read a winning hand from a photo file, or a photo's bytes, the one way every command
    reads (:mod:`hupai.vision.photo_read`: a reduced decode first, the whole photo only for
    small tiles). Returns the image read (to draw on) and the reading, in the photo's own
    pixels; a photo hupai cannot decode raises :class:`hupai.vision.images.PhotoError`."""
    from hupai.vision.photo_read import read_photo_data, read_photo_file

    name = source or ("<photo>" if isinstance(path, bytes) else str(path))

    def read(image: Image) -> Reading:
        return read_image(image, detector=detector, namer=namer, win_tile=win_tile, source=name)

    if isinstance(path, bytes):
        return read_photo_data(path, read, max_pixels)
    return read_photo_file(path, read, max_pixels)


def read_image(
    image: Image,
    *,
    detector: Detector | None = None,
    namer: Namer | None = None,
    win_tile: Tile | str | None = None,
    source: str = "<image>",
) -> Reading:
    """Read a winning hand from a BGR image: find the tiles, name them, lay out, check.

    With a ``namer`` the detector only finds the tiles and the namer names each from the
    photo's own pixels; without one the detector's classes are the names. Neither given:
    the shipped pair (the shipped detector alone where no namer is installed).
    """
    began = time.perf_counter()
    if detector is None:
        detector = get_detector()
        namer = namer or default_namer()
    if namer is None and detector.is_finder:
        from hupai.vision.detector import ModelError

        raise ModelError(f"{detector.path}: a finder only boxes tiles; reading needs a namer too")
    found = find_tiles(detector, image, finder=namer is not None)
    check_deadline("naming the tiles")
    named = name_tiles(namer, image, found.det, found.to_image) if namer is not None else None
    look = None if namer is None else room_look(namer, image, found.to_image)
    reading = read_found(image, found, named, win_tile=win_tile, source=source, look=look)
    if namer is not None and named is not None and look is not None:
        check_deadline("reading the rows' rooms")
        reading = read_in_rooms(namer, image, found, named, reading, look, win_tile=win_tile)
    return _with(reading, seconds=time.perf_counter() - began)


@dataclass(frozen=True)
class FoundTiles:
    """What the finder's passes saw in a photo, before naming: boxes (in a frame that
    ``to_image`` maps onto the photo), the rows' angle, the passes run, the boxes the
    first look doubted (photo pixels, and the finder's scores of them) and, where a level look
    replaced it, the first look's boxes (photo pixels)."""

    det: Detections
    to_image: NDArray[np.float64]
    angle: float | None
    passes: tuple[str, ...]
    doubtful: Detections
    first_xyxy: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 4)))

    @property
    def doubtful_xyxy(self) -> NDArray[np.float64]:
        """The doubted boxes (photo pixels)."""
        return self.doubtful.xyxy


def find_tiles(detector: Detector, image: Image, *, finder: bool) -> FoundTiles:
    """The finder's boxes in a BGR image, with the passes the photo needs."""
    doubtful: list[Detections] = []
    first: list[Detections] = []
    det, to_image, angle, passes = detect_photo(
        detector, image, finder=finder, doubtful=doubtful, first_look=first
    )
    first_xyxy = Detections.concat(first).xyxy if first else np.zeros((0, 4))
    return FoundTiles(det, to_image, angle, tuple(passes), Detections.concat(doubtful), first_xyxy)


def read_found(
    image: Image,
    found: FoundTiles,
    named: NamedTiles | None,
    *,
    win_tile: Tile | str | None = None,
    source: str = "<image>",
    look: RoomLook | None = None,
) -> Reading:
    """The reading of what the finder found, named (``named``; None: the finder's classes
    are the names): laid out, gaps judged on the photo (``look``: by the namer, as
    :func:`room_look` gives; None: by colour), checked."""
    h, w = image.shape[:2]
    det = found.det if named is None else named.detections

    def in_photo(xyxy: NDArray[np.float64]) -> NDArray[np.float64]:
        return first_look_boxes(photo_quads(xyxy, found.to_image), found.first_xyxy)

    reading = build_reading(
        det,
        found.to_image,
        found.angle,
        (w, h),
        win_tile=win_tile,
        source=source,
        names=named,
        judge_gaps=gap_judge(image, found.to_image, found.doubtful_xyxy, look),
        photo_xyxy=in_photo(det.xyxy),
    )
    return _with(
        reading,
        passes=found.passes,
        extra={
            **reading.extra,
            "found_xyxy": in_photo(found.det.xyxy),
            # boxes the first look doubted (not read): small ones call for a larger decode,
            # one lying in a row's room for a tile is a gap
            "doubtful_xyxy": found.doubtful_xyxy,
        },
    )


def read_in_rooms(
    namer: Namer,
    image: Image,
    found: FoundTiles,
    named: NamedTiles,
    reading: Reading,
    look: RoomLook,
    *,
    win_tile: Tile | str | None = None,
) -> Reading:
    """The reading again with a tile read in each row's room the photo shows one in (a
    ``gap``): the body the finder doubted there, else the room, named with the other tiles
    (hand-wide). A tile read so must be named surely (the namer's ``check_below``), and in a
    room with no body not as the white dragon or a back — a bare light table is a blank face
    to the namer, a coloured one a back; it is reported (``tile_in_room``) for the player to
    check, never trusted. Where no room gives a tile, the reading as it was (its gaps stand)."""
    if not len(reading.gaps):
        return reading
    det = named.detections
    rooms = room_tiles(image, det, reading.layout, found.to_image, found.doubtful, look)
    if not len(rooms):
        return reading
    n = len(found.det)
    more = Detections(rooms.xyxy, rooms.score, np.zeros(len(rooms), np.int64))
    boxes = Detections.concat([found.det, more])
    in_rooms = np.arange(len(boxes)) >= n
    if named.box_probs is None or len(named.box_probs) != n:
        again = name_tiles(namer, image, boxes, found.to_image, in_rooms)
    else:  # the found boxes' names as the first naming gave them: only the rooms are new
        probs = np.concatenate(
            [named.box_probs, namer.name(image, more.xyxy, found.to_image).probs]
        )
        grounds = None
        if named.box_grounds is not None:  # a room's ground is not weighed (tiles_of_names)
            grounds = np.concatenate([named.box_grounds, np.full((len(more), 3), np.nan)])
        again = tiles_of_names(probs, boxes, namer.manifest.check_below, in_rooms, grounds)
    assert again.index is not None and again.in_room is not None
    in_room = again.in_room
    body = np.zeros(len(in_room), bool)
    body[in_room] = rooms.body[again.index[in_room] - n]
    name = again.detections
    unsure = name.confidence < again.check_below
    # a bare table is a blank white face to the namer, or a coloured back
    blank = ~body & np.isin(name.class_id, (WHITE_DRAGON, BACK))
    keep = ~(in_room & (unsure | blank))
    if not (in_room & keep).any():
        return reading
    kept = again.take(keep)
    return read_found(image, found, kept, win_tile=win_tile, source=reading.source, look=look)


def rebuild(reading: Reading, class_id: NDArray[np.int64]) -> Reading:
    """The same photo read with other names for its detections (a suggestion, a fix)."""
    frame = reading.extra["frame"]
    det = Detections(frame["xyxy"], reading.detections.confidence, class_id)
    names = None
    if reading.alternatives is not None and reading.alternative_probs is not None:
        boxes = frame.get("box_confidence")
        names = NamedTiles(
            det,
            reading.alternatives,
            reading.alternative_probs,
            boxes,
            frame.get("check_below", CHECK_BELOW),
            frame.get("reject"),
            in_room=frame.get("in_room"),
            across=frame.get("across"),
        )
    again = build_reading(
        det,
        frame["to_image"],
        frame["angle"],
        (reading.width, reading.height),
        win_tile=frame["win_tile"],
        source=reading.source,
        names=names,
        gaps=reading.gaps,  # judged on the photo's pixels: the boxes did not move
        photo_xyxy=reading.detections.xyxy,
    )
    return _with(again, passes=reading.passes, seconds=reading.seconds, extra=reading.extra)


@dataclass(frozen=True)
class NamedTiles:
    """The finder's boxes that the namer takes for tiles, named (``class_id`` the decoded
    name, ``confidence`` its probability), with each box's alternatives."""

    detections: Detections
    alternatives: NDArray[np.int64]
    alternative_probs: NDArray[np.float64]
    box_confidence: NDArray[np.float64] | None = None  # the finder's score of each box
    #: a name less likely than this needs a check (the namer's calibrated threshold)
    check_below: float = CHECK_BELOW
    #: the namer's "not a tile" probability of each box (clutter: with the finder's score)
    reject: NDArray[np.float64] | None = None
    #: which of the boxes named each tile is (the rest: not a tile)
    index: NDArray[np.int64] | None = None
    #: the tiles read in a row's room for one, from a body the finder doubted or the room
    #: itself (:func:`read_in_rooms`): each is reported for a check
    in_room: NDArray[np.bool_] | None = None
    #: the namer's probabilities of every box it was given (a row a box, before what is not a
    #: tile was dropped): boxes named again beside others need not be looked at again
    box_probs: NDArray[np.float64] | None = None
    #: the colour of every box's face ground (:func:`~hupai.vision.clutter.face_grounds`),
    #: kept as ``box_probs`` is
    box_grounds: NDArray[np.float64] | None = None
    #: the tiles a box over two tiles lay across, which went
    #: (:func:`~hupai.vision.checks.over_two_tiles`): each is marked ``doubled``
    across: NDArray[np.bool_] | None = None
    #: boxes (frame) the namer half rejected in a row of tiles
    #: (:func:`~hupai.vision.rooms.rejected_in_rows`): each is a gap
    unknown_faces: NDArray[np.float64] | None = None

    def take(self, keep: NDArray[np.bool_]) -> NamedTiles:
        """These tiles where ``keep``."""

        def part(a: NDArray[Any] | None) -> NDArray[Any] | None:
            return None if a is None else a[keep]

        return replace(
            self,
            detections=self.detections[keep],
            alternatives=self.alternatives[keep],
            alternative_probs=self.alternative_probs[keep],
            box_confidence=part(self.box_confidence),
            reject=part(self.reject),
            index=part(self.index),
            in_room=part(self.in_room),
            across=part(self.across),
        )


def room_look(namer: Namer, image: Image, to_image: NDArray[np.float64] | None) -> RoomLook:
    """The namer's look at a row's rooms for a tile (frame boxes, as ``to_image`` maps them
    onto the photo): each room's "not a tile" probability (:mod:`hupai.vision.rooms`)."""

    def look(xyxy: NDArray[np.float64]) -> NDArray[np.float64]:
        # only "not a tile" is asked: no closer look at what a room would be named
        rejects = namer.name(image, xyxy, to_image, closer=False).probs[:, REJECT]
        return np.asarray(rejects, np.float64)

    return look


def name_tiles(
    namer: Namer,
    image: Image,
    det: Detections,
    to_image: NDArray[np.float64] | None,
    in_room: NDArray[np.bool_] | None = None,
) -> NamedTiles:
    """Name the finder's boxes (in the frame ``to_image`` maps onto the photo) from the
    photo's pixels; drop what is not a tile; decode the names hand-wide (copy caps).
    ``in_room``: the boxes that are a row's rooms (:func:`read_in_rooms`)."""
    probs = namer.name(image, det.xyxy, to_image).probs
    grounds = face_grounds(image, det.xyxy, to_image)
    return tiles_of_names(probs, det, namer.manifest.check_below, in_room, grounds)


def tiles_of_names(
    probs: NDArray[np.float64],
    det: Detections,
    check_below: float | None = None,
    in_room: NDArray[np.bool_] | None = None,
    grounds: NDArray[np.float64] | None = None,
) -> NamedTiles:
    """The boxes ``det`` named ``probs`` (the namer's, a row a box): what is not a tile
    dropped, the names decoded hand-wide (copy caps); ``check_below``: the namer's
    calibrated threshold (None: :data:`~hupai.vision.checks.CHECK_BELOW`). ``in_room``:
    the boxes read in a row's room for a tile, never dropped as clutter. ``grounds``: the
    colours of the boxes' face grounds (:func:`~hupai.vision.clutter.face_grounds`; None: not
    weighed) — a room's and a back's are not, nor do they set the photo's tiles' colour."""
    from hupai.vision.decoding import alternatives, decode_names

    box_probs = np.asarray(probs, np.float64)  # every box's, kept whole (NamedTiles.box_probs)
    keep = probs[:, REJECT] < REJECT_ABOVE
    probs = probs[keep]  # (a copy)
    reject = probs[:, REJECT].copy()
    probs[:, REJECT] = 0.0  # a kept box is a tile: its names share the rest
    probs /= probs.sum(axis=1, keepdims=True)
    room = np.zeros(len(det), bool) if in_room is None else np.asarray(in_room, bool)
    grounds_kept = None if grounds is None else np.asarray(grounds, np.float64)[keep]
    tile, marked = _tiles_among(det[keep], probs, reject, grounds_kept, room[keep])
    keep[np.nonzero(keep)[0][~tile]] = False
    probs, reject, across = probs[tile], reject[tile], marked[tile]
    # a box the namer only half rejected, in a row of tiles: a face it does not know (a gap)
    unknown = rejected_in_rows(det, box_probs[:, REJECT], keep, REJECT_ABOVE) & ~room
    chosen = decode_names(probs)
    alt, alt_p = alternatives(probs, chosen)
    named = Detections(det.xyxy[keep], alt_p[:, 0], chosen)
    below = CHECK_BELOW if check_below is None else check_below
    index = np.nonzero(keep)[0].astype(np.int64)
    rooms = None if in_room is None else in_room[keep]
    return NamedTiles(
        named,
        alt,
        alt_p,
        det.confidence[keep],
        below,
        reject,
        index,
        rooms,
        box_probs,
        grounds,
        across,
        det.xyxy[unknown],
    )


def _with_unknown_faces(
    gaps: NDArray[np.float64], faces: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The gaps (frame boxes) and the half-rejected faces in rows that lie on none of them (a
    face on a gap is that gap, as a body is: :data:`~hupai.vision.rooms.BODY_IOU`)."""
    if len(gaps) and len(faces):
        faces = faces[box_iou(faces, gaps).max(axis=1) < BODY_IOU]
    return np.concatenate([gaps, faces])


def _tiles_among(
    det: Detections,
    probs: NDArray[np.float64],
    reject: NDArray[np.float64],
    grounds: NDArray[np.float64] | None,
    in_room: NDArray[np.bool_],
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Which of the boxes the namer kept (``det``, its ``probs`` without "not a tile", its
    ``reject``, their face ``grounds``) are tiles, and which of them a box across two tiles lay
    across (marked). A row's room (``in_room``) is always a tile: the clutter model weighs how
    sure the finder was and where a box lies, and a room lies in a row."""
    weighed = None
    if grounds is not None:
        weighed = grounds_weighed(grounds, probs.argmax(axis=1) == BACK, in_room)
    # what the finder and the namer together take for clutter goes as the namer's rejects do
    tile = (clutter_scores(det, probs, reject, weighed) <= CLUTTER_ABOVE) & ~lone_clutter(
        det, probs
    )
    tile |= in_room
    # a box the finder put across two tiles goes; the two stay, marked (either may be wrong)
    kept = np.nonzero(tile)[0]
    over, across = over_two_tiles(det.xyxy[kept], det.confidence[kept])
    tile[kept[over & ~in_room[kept]]] = False
    marked = np.zeros(len(det), bool)
    marked[kept[across]] = True
    return tile, marked


def _with(reading: Reading, **changes: Any) -> Reading:
    import dataclasses

    return dataclasses.replace(reading, **changes)


def build_reading(
    det: Detections,
    to_image: NDArray[np.float64] | None,
    angle: float | None,
    size: tuple[int, int],
    *,
    win_tile: Tile | str | None = None,
    source: str = "<detections>",
    names: NamedTiles | None = None,
    judge_gaps: GapJudge | None = None,
    gaps: NDArray[np.float64] | None = None,
    photo_xyxy: NDArray[np.float64] | None = None,
) -> Reading:
    """The reading of detections (in a frame mapped to the photo by ``to_image``);
    ``names``: the namer's verdict on them (alternatives travel with the reading).
    A row's room for a tile not found is a gap as ``judge_gaps`` judges it (by the photo's
    pixels, :mod:`hupai.vision.rooms`), or by the boxes alone
    (:func:`~hupai.vision.layout.missing_tiles`) where no photo is at hand; ``gaps``: the
    gaps already judged (photo boxes: the same boxes read with other names). ``photo_xyxy``:
    the tiles' boxes in the photo where better known than the envelopes of their turned
    corners (:func:`~hupai.vision.detections.first_look_boxes`)."""
    w, h = size
    if to_image is None:
        to_image = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    quads = photo_quads(det.xyxy, to_image)
    boxes = envelopes(quads) if photo_xyxy is None else np.asarray(photo_xyxy, np.float64)
    photo_det = Detections(boxes, det.confidence, det.class_id).clipped(w, h)
    layout = analyse(det, angle)
    warnings: list[ReadingWarning] = []
    if len(det) == 0:
        warnings.append(ReadingWarning("no_tiles", "no tiles were found in the photo"))

    roles = ["stray"] * len(det)
    for g in layout.groups:
        for i in g.tiles:
            roles[i] = g.role.value

    def tile(i: int) -> Tile:
        t = tile_of(int(det.class_id[i]))
        assert t is not None
        return t

    # The hand, left to right; the winning tile.
    hand_idx = sorted(layout.hand, key=lambda i: float(_along(det, layout.angle)[i]))
    hand_idx = [i for i in hand_idx if det.class_id[i] != BACK]
    hand = [tile(i) for i in hand_idx]
    win: Tile | None = None
    win_det: int | None = None
    apart = False
    if win_tile is not None:
        win = Tile.parse(win_tile) if isinstance(win_tile, str) else win_tile
        if win not in hand:
            warnings.append(
                ReadingWarning(
                    "win_tile_not_in_hand",
                    f"winning tile {win} is not in the hand read ({format_tiles(hand) or 'empty'})",
                )
            )
        else:
            win_det = hand_idx[len(hand) - 1 - hand[::-1].index(win)]
    elif layout.winning is not None:
        win_det, apart = layout.winning, True
        win = tile(win_det)
    elif hand_idx:
        win_det = hand_idx[-1]
        win = tile(win_det)
        warnings.append(
            ReadingWarning(
                "win_tile_assumed",
                f"no tile is set apart at the right end of the hand; taking the last one, {win}",
                (win_det,),
            )
        )

    melds: list[ReadMeld] = []
    for g in layout.role_of(Role.MELD):
        meld = _read_meld(g.meld, g.called_from, g.hidden_tile, g.tiles, det)
        if meld is None:
            shown = " ".join(CLASS_NAMES[int(det.class_id[i])] for i in g.tiles)
            code = "unreadable_meld"
            if g.meld is MeldShape.CONCEALED_KONG:
                code = "concealed_kong_unknown"
                msg = f"a concealed kong shows no face-up tile ({shown})"
            else:
                msg = f"tiles set apart with a sideways or face-down tile are not a meld: {shown}"
            warnings.append(ReadingWarning(code, msg, g.tiles))
            continue
        melds.append(meld)
    flowers = [tile(i) for g in layout.role_of(Role.FLOWERS) for i in g.tiles]
    set_apart_idx = [i for g in layout.role_of(Role.SET_APART) for i in g.tiles]
    set_apart = [tile(i) for i in set_apart_idx if det.class_id[i] != BACK]
    warnings += _kong_or_apart(layout, det)
    stray = [i for g in layout.role_of(Role.STRAY) for i in g.tiles]
    if stray:
        shown = " ".join(CLASS_NAMES[int(det.class_id[i])] for i in stray)
        warnings.append(
            ReadingWarning(
                "unplaced_tiles", f"tiles that fit no part of a hand: {shown}", tuple(stray)
            )
        )

    in_room: tuple[int, ...] = ()
    if names is not None and names.in_room is not None:
        in_room = tuple(int(i) for i in np.nonzero(names.in_room)[0])
    if in_room:
        shown = " ".join(CLASS_NAMES[int(det.class_id[i])] for i in in_room)
        warnings.append(
            ReadingWarning(
                "tile_in_room",
                f"tiles read where a row leaves room for one, the finder unsure: {shown}",
                in_room,
            )
        )
    if gaps is None:
        judged = missing_tiles(det, layout) if judge_gaps is None else judge_gaps(det, layout)
        if names is not None and names.unknown_faces is not None:
            judged = _with_unknown_faces(np.reshape(judged, (-1, 4)), names.unknown_faces)
        gaps = photo_boxes(judged, to_image)
    if len(gaps):
        warnings.append(
            ReadingWarning(
                "gap",
                f"{len(gaps)} place(s) where a tile may lie unread: a row's room for one, a"
                " tile-shaped body seen but not boxed, or a face in a row not taken for a tile",
            )
        )
    loose = [tile(i) for i in stray if det.class_id[i] != BACK]
    warnings += checks(det, photo_det, hand, melds, flowers, set_apart, loose, (w, h), to_image)
    check_below = CHECK_BELOW if names is None else names.check_below
    reasons = check_reasons(
        det,
        None if names is None else names.box_confidence,
        warnings,
        check_below,
        None if names is None else names.reject,
        None if names is None else names.across,
    )
    return Reading(
        source=source,
        width=w,
        height=h,
        detections=photo_det,
        quads=quads,
        layout=layout,
        hand=tuple(hand),
        win_tile=win,
        win_tile_set_apart=apart,
        melds=tuple(melds),
        flowers=tuple(flowers),
        set_apart=tuple(set_apart),
        warnings=tuple(warnings),
        roles=tuple(roles),
        hand_detections=tuple(hand_idx),
        win_detection=win_det,
        alternatives=None if names is None else names.alternatives,
        alternative_probs=None if names is None else names.alternative_probs,
        check_reasons=reasons,
        confident=is_confident(det, warnings, tiles_to_check(reasons)),
        gaps=gaps,
        extra={
            "frame": {
                "xyxy": det.xyxy,
                "to_image": to_image,
                "angle": angle,
                "win_tile": win_tile,
                "box_confidence": None if names is None else names.box_confidence,
                "check_below": check_below,
                "reject": None if names is None else names.reject,
                "in_room": None if names is None else names.in_room,
                "across": None if names is None else names.across,
            },
            "places": {
                "hand": list(hand_idx),
                "flowers": [i for g in layout.role_of(Role.FLOWERS) for i in g.tiles],
                "set_apart": [i for i in set_apart_idx if det.class_id[i] != BACK],
            },
        },
    )


def _kong_or_apart(layout: HandLayout, det: Detections) -> list[ReadingWarning]:
    """A tile set apart (an indicator or fishing tile) in the row of a pung of its own kind:
    it may be the meld's fourth tile, a kong the layout split (the camerash composites: an
    exposed kong of 發 read as a pung and a fishing 發, scored confidently and wrong)."""
    out = []
    for apart in layout.role_of(Role.SET_APART):
        for meld in layout.role_of(Role.MELD):
            kinds = {int(det.class_id[i]) for i in meld.tiles}
            if meld.row != apart.row or meld.meld is not MeldShape.PUNG or len(kinds) != 1:
                continue
            same = [i for i in apart.tiles if int(det.class_id[i]) in kinds]
            if same:
                name = CLASS_NAMES[kinds.pop()]
                out.append(
                    ReadingWarning(
                        "kong_or_apart",
                        f"a {name} set apart lies in the row of a pung of {name}: "
                        "is it the meld's fourth tile (a kong)?",
                        (*same, *meld.tiles),
                    )
                )
    return out


def _along(det: Detections, angle: float) -> NDArray[np.float64]:
    t = math.radians(angle)
    c = det.centres
    return np.asarray(c[:, 0] * math.cos(t) + c[:, 1] * math.sin(t), dtype=np.float64)


def _read_meld(
    shape: MeldShape | None,
    called: CalledFrom | None,
    hidden: bool,
    tiles: tuple[int, ...],
    det: Detections,
) -> ReadMeld | None:
    if shape is None:
        return None
    faces = [tile_of(int(det.class_id[i])) for i in tiles]
    seen = [t for t in faces if t is not None]
    if shape is MeldShape.CONCEALED_KONG:
        if not seen:
            return None
        return ReadMeld(shape.value, (seen[0],) * 4, None, tiles, inferred=len(seen) < 4)
    if shape is MeldShape.ADDED_KONG and len(seen) == 3:
        return ReadMeld(shape.value, (*seen, seen[0]), None, tiles, inferred=True)
    where = None if called is None else called.value
    if shape is MeldShape.ADDED_KONG:
        where = None
    return ReadMeld(shape.value, tuple(seen), where, tiles, inferred=hidden)
