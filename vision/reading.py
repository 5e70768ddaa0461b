"""Photo → the structured hand the scorer needs (:class:`Reading`), with checks that warn.

:func:`read_photo` loads the photo (EXIF orientation applied), detects the tiles, and when
the tiles are small in the model's input or their rows tilted, detects again on a warped
crop of the tiles' region: turned level and zoomed so that a tile spans about
``TARGET_TILE_PX`` model pixels. Layout (:mod:`vision.layout`) then runs on the level crop.
A large photo where the first pass finds nothing is searched in overlapping windows.

Warnings have stable codes (:data:`WARNING_CODES`), a message and advice for the player.

>>> sorted(WARNING_CODES)[:3]
['concealed_kong_unknown', 'cut_by_border', 'low_confidence']
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scoring.tiles import Tile, format_tiles
from vision.classes import BACK, CLASS_NAMES, tile_of
from vision.detections import Detections
from vision.detector import Detector, Image, load_image, merge_boxes
from vision.layout import CalledFrom, HandLayout, MeldShape, Role, analyse, row_angle
from vision.namer import REJECT, Namer, NamerError

#: Zoom so that a tile's side spans about this many model-input pixels (the real training
#: photos' tiles are 60-80 px at 640).
TARGET_TILE_PX = 64.0
#: Redo detection on a level crop when rows tilt more than this (degrees), or when the
#: zoomed crop would make tiles at least this much larger.
LEVEL_ABOVE_DEG = 8.0
ZOOM_GAIN = 1.3
#: Confidence under which a tile is reported as uncertain.
LOW_CONFIDENCE = 0.5
#: Tiles smaller than this in the photo (px, shorter box side) are worth a closer shot.
SMALL_TILE_PX = 24.0
#: With a namer the detector only finds: it keeps boxes down to this score (the namer
#: drops what is not a tile), so a tile the detector was unsure of is still read. A finder's
#: manifest may give its own (``finder_conf``).
FINDER_CONF = 0.1
#: A box is not a tile when the namer gives "reject" at least this probability.
REJECT_ABOVE = 0.5

WARNING_CODES: dict[str, str] = {
    "no_tiles": "Photograph the hand from closer, in good light, tiles face up.",
    "too_many_copies": "A tile was probably misread: check the marked tiles, or reshoot "
    "closer and sharper.",
    "tile_count": "Make sure every tile is in the picture and separate the melds by a gap; "
    "reshoot closer if tiles are small.",
    "low_confidence": "Check the marked tiles; reshoot closer, in even light, without glare.",
    "cut_by_border": "Step back or reframe so that every tile is whole in the picture.",
    "tiles_small": "Reshoot closer: the tiles fill too little of the photo.",
    "win_tile_assumed": "Set the winning tile a little apart at the right end of the hand, "
    "or give it (--win-tile).",
    "win_tile_not_in_hand": "The winning tile given is not among the hand's tiles; check it.",
    "unreadable_meld": "Lay each meld apart from the others with its called tile sideways; "
    "a concealed kong shows two tiles face down.",
    "concealed_kong_unknown": "Turn two tiles of the concealed kong face up (the inner two).",
    "unplaced_tiles": "Keep only the winning hand, its melds, flowers and the indicator or "
    "fishing tiles in the picture.",
}


@dataclass(frozen=True)
class ReadingWarning:
    code: str
    message: str
    tiles: tuple[int, ...] = ()  # detection indices

    @property
    def advice(self) -> str:
        return WARNING_CODES[self.code]

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "advice": self.advice,
            "tiles": list(self.tiles),
        }


@dataclass(frozen=True)
class ReadMeld:
    kind: str  # scoring's MeldKind value: chow, pung, kong, added_kong, concealed_kong
    tiles: tuple[Tile, ...]
    called_from: str | None = None  # left / across / right (where the sideways tile lies)
    detections: tuple[int, ...] = ()
    inferred: bool = False  # a tile not seen was inferred (hidden added-kong tile, backs)

    @property
    def notation(self) -> str:
        return format_tiles(self.tiles)


@dataclass(frozen=True)
class Reading:
    """What a photo shows. Tiles are :class:`scoring.tiles.Tile`; ``detections`` are in
    the photo's pixels (after EXIF orientation), one row per tile seen."""

    source: str
    width: int
    height: int
    detections: Detections
    quads: NDArray[np.float64]  # (n, 4, 2) each tile's box corners in the photo
    layout: HandLayout  # in the frame the layout ran in (level crop)
    hand: tuple[Tile, ...]  # concealed tiles, winning tile included, left to right
    win_tile: Tile | None
    win_tile_set_apart: bool
    melds: tuple[ReadMeld, ...]
    flowers: tuple[Tile, ...]
    set_apart: tuple[Tile, ...]  # the indicator or fishing tiles
    warnings: tuple[ReadingWarning, ...]
    roles: tuple[str, ...]  # per detection: hand, meld, flowers, set_apart, stray
    passes: tuple[str, ...] = ()
    seconds: float = 0.0
    hand_detections: tuple[int, ...] = ()
    win_detection: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: per detection, the namer's top names (the chosen one first) and their probabilities,
    #: (n, 3); None when the detector named the tiles itself
    alternatives: NDArray[np.int64] | None = None
    alternative_probs: NDArray[np.float64] | None = None

    # -- views ---------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """Class name (tile notation or ``back``) per detection."""
        return [CLASS_NAMES[int(c)] for c in self.detections.class_id]

    @property
    def codes(self) -> list[str]:
        return [w.code for w in self.warnings]

    def alternatives_of(self, i: int) -> list[dict[str, Any]]:
        """Detection ``i``'s names, the chosen one first: ``[{"tile", "p"}, …]``."""
        if self.alternatives is None or self.alternative_probs is None:
            c = int(self.detections.class_id[i])
            return [{"tile": CLASS_NAMES[c], "p": round(float(self.detections.confidence[i]), 3)}]
        return [
            {"tile": CLASS_NAMES[int(c)], "p": round(float(p), 3)}
            for c, p in zip(self.alternatives[i], self.alternative_probs[i], strict=True)
            if int(c) < len(CLASS_NAMES)
        ]

    def indicator_or_fishing(self, city: str | None = None) -> dict[str, Any]:
        """The set-apart tiles as the city's request field: ``indicator`` (one flipped
        tile) or ``fishing`` (up to three). Without a city: one tile is an indicator,
        two or three are fishing tiles."""
        if not self.set_apart:
            return {}
        fields = _city_fields(city) if city else None
        if fields is not None:
            if "fishing" in fields and "indicator" not in fields:
                return {"fishing": format_tiles(self.set_apart)}
            if "indicator" in fields and len(self.set_apart) == 1:
                return {"indicator": str(self.set_apart[0])}
            if "fishing" in fields:
                return {"fishing": format_tiles(self.set_apart)}
            return {}
        if len(self.set_apart) == 1:
            return {"indicator": str(self.set_apart[0])}
        return {"fishing": format_tiles(self.set_apart)}

    def to_request_fields(
        self, city: str | None = None, winner: int | None = None
    ) -> dict[str, Any]:
        """The fragment of a ``hupai score`` request this photo supplies: ``hand``,
        ``win_tile``, ``melds``, ``flowers`` and ``indicator`` or ``fishing``. With the
        winner's seat, claimed pungs and kongs say whom they came from (the sideways
        tile's place: left = previous seat, across, right = next seat)."""
        out: dict[str, Any] = {"hand": format_tiles(self.hand)}
        if self.win_tile is not None:
            out["win_tile"] = str(self.win_tile)
        melds = []
        for m in self.melds:
            item: dict[str, Any] = {"kind": m.kind, "tiles": m.notation}
            if winner is not None and m.called_from and m.kind in ("pung", "kong", "added_kong"):
                item["from"] = (winner + _SEAT_STEP[m.called_from]) % 4
            melds.append(item)
        out["melds"] = melds
        if self.flowers:
            out["flowers"] = format_tiles(self.flowers)
        out.update(self.indicator_or_fishing(city))
        return out

    def to_dict(self, city: str | None = None) -> dict[str, Any]:
        """JSON-ready: the structure, the warnings and the per-tile detections (columnar)."""
        return {
            "source": self.source,
            "size": [self.width, self.height],
            "hand": format_tiles(self.hand),
            "hand_in_order": "".join(f"{t}" for t in self.hand),
            "win_tile": None if self.win_tile is None else str(self.win_tile),
            "win_tile_set_apart": self.win_tile_set_apart,
            "melds": [
                {
                    "kind": m.kind,
                    "tiles": m.notation,
                    "called_from": m.called_from,
                    "inferred": m.inferred,
                    "detections": list(m.detections),
                }
                for m in self.melds
            ],
            "flowers": format_tiles(self.flowers),
            "set_apart": format_tiles(self.set_apart),
            **self.indicator_or_fishing(city),
            "request": self.to_request_fields(city),
            "warnings": [w.to_dict() for w in self.warnings],
            "detections": {
                "xyxy": np.round(self.detections.xyxy, 1).tolist(),
                "class_id": self.detections.class_id.tolist(),
                "class_name": self.names,
                "confidence": np.round(self.detections.confidence, 3).tolist(),
                "alternatives": [self.alternatives_of(i) for i in range(len(self.detections))],
                "role": list(self.roles),
                "sideways": [bool(x) for x in self.layout.sideways],
            },
            "alternatives": self.place_alternatives(),
            "passes": list(self.passes),
            "seconds": round(self.seconds, 3),
        }

    def place_alternatives(self) -> dict[str, list[list[dict[str, Any]]]]:
        """Each tile's names (chosen first) for the hand, the flowers and the set-apart
        tiles, in the order of the request's notation (tiles sorted as it sorts them)."""
        places = self.extra.get("places", {})
        out = {}
        for place, idx in places.items():
            ordered = sorted(idx, key=lambda i: int(self.detections.class_id[i]))
            out[place] = [self.alternatives_of(i) for i in ordered]
        return out


_SEAT_STEP = {"left": 3, "across": 2, "right": 1}


def _city_fields(city: str) -> set[str] | None:
    """The request fields a city reads, or None when the city is unknown."""
    import dataclasses

    try:
        from scoring.registry import get_city

        c = get_city(city)
    except (ImportError, ValueError):
        return None
    return {f.name for f in dataclasses.fields(c.table_type)}


# -- detection passes --------------------------------------------------------------------


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


#: The windowed search of a large photo uses at most this many windows along a side (so a
#: blank 7000×7000 photo costs a bounded number of passes).
WINDOWS_PER_SIDE = 4
#: A photo whose thumbnail varies less than this (grey levels, standard deviation of the
#: local contrast) shows nothing to find: no windowed search.
FEATURELESS_BELOW = 1.5


#: Boxes at least this sure plan the zoom and the row angle.
PLAN_CONF = 0.25
#: Tiles whose side spans more than this many model-input pixels are too large for the
#: model to find reliably (measured: recall 0 of 14 above 150 px): a shrunken look follows.
LARGE_TILE_PX = 110.0


def _large_tiles(det: Detections, scale: float) -> bool:
    """No sure box, or sure boxes whose tiles are large in the model's input."""
    sure = det.above(PLAN_CONF)
    return len(sure) == 0 or _tile_side(sure) * scale > LARGE_TILE_PX


def featureless(image: Image) -> bool:
    """A blank or nearly uniform photo (checked on a small thumbnail, cheaply)."""
    import cv2

    h, w = image.shape[:2]
    step = max(1, max(h, w) // 256)
    thumb = np.ascontiguousarray(image[::step, ::step])
    grey = cv2.cvtColor(thumb, cv2.COLOR_BGR2GRAY).astype(np.float32)
    edges = cv2.Laplacian(grey, cv2.CV_32F)
    return float(edges.std()) < FEATURELESS_BELOW and float(grey.std()) < 4 * FEATURELESS_BELOW


@dataclass
class _Pass:
    det: Detections  # in the frame
    to_image: NDArray[np.float64]  # 2x3 affine: frame → photo
    level: bool  # the frame is turned so that rows are level
    name: str


def _tile_side(det: Detections) -> float:
    return float(np.median(np.sqrt(np.maximum(det.area, 1.0)))) if len(det) else 0.0


# -- a time budget per read ----------------------------------------------------------------
#: (monotonic deadline, the budget in seconds) of the read running in this thread, if any
_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("hupai_read_deadline", default=None)


class ReadTimeout(RuntimeError):
    """A read ran past its time budget (:func:`read_deadline`); raised between passes, so a
    read costs at most its budget and one more pass."""

    def __init__(self, seconds: float, stage: str) -> None:
        super().__init__(f"reading took longer than {seconds:g} s (stopped before {stage})")
        self.seconds = seconds
        self.stage = stage


@contextmanager
def read_deadline(seconds: float | None) -> Iterator[None]:
    """Reads in this block (this thread) stop with :class:`ReadTimeout` after ``seconds``."""
    token = _DEADLINE.set(None if seconds is None else (time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check_deadline(stage: str) -> None:
    """Raise :class:`ReadTimeout` when the read's budget is spent, naming what comes next."""
    budget = _DEADLINE.get()
    if budget is not None and time.monotonic() > budget[0]:
        raise ReadTimeout(budget[1], stage)


def detect_photo(
    detector: Detector, image: Image, *, finder: bool = False
) -> tuple[Detections, NDArray[np.float64], float, list[str]]:
    """Detect with the passes the photo needs; returns (detections in the final frame,
    frame → photo affine, the angle the layout should use, pass names). ``finder``: one
    box per tile whatever its class, down to :data:`FINDER_CONF` (a namer names them)."""
    h, w = image.shape[:2]
    model_side = max(detector.input_size)
    identity = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    conf = getattr(detector.manifest, "finder_conf", None) or FINDER_CONF
    look: dict[str, Any] = {"agnostic": True, "conf": conf} if finder else {}
    check_deadline("the first look")
    det = detector.detect(image, **look)
    passes = ["full"]
    blank = cache(lambda: featureless(image))  # asked at most once, only when it matters
    if len(det) == 0 and max(h, w) > 1.5 * model_side and not blank():
        # tiles too small for the full pass: look in windows, at most WINDOWS_PER_SIDE a side
        window = max(2 * model_side, math.ceil(max(h, w) / WINDOWS_PER_SIDE))
        check_deadline("the windowed look")
        det = detector.detect_tiled(image, window=window, **look)
        passes.append("tiled")
    first_scale = model_side / max(h, w)
    if finder and _large_tiles(det, first_scale) and not blank():
        # tiles too large for the model (a close-up): look again at the photo shrunk into
        # a canvas twice its size, and keep the boxes of both looks, one per tile
        shift = np.array([[1.0, 0, w / 2], [0, 1.0, h / 2]])
        check_deadline("the shrunken look")
        far = detector.detect_warped(image, shift, (2 * w, 2 * h), **look)
        far = far.scaled(1.0, (-w / 2, -h / 2)).clipped(w, h)
        det = merge_boxes(Detections.concat([det, far]), detector.iou, agnostic=True)
        passes.append("shrunk ×0.5")
    if len(det) == 0:
        return det, identity, 0.0, passes
    # the geometry is planned on the surer boxes (a finder keeps doubtful ones for the namer)
    plan = det.above(PLAN_CONF) if len(det.above(PLAN_CONF)) else det
    side = _tile_side(plan)
    angle = row_angle(plan.centres, np.sqrt(np.maximum(plan.area, 1.0)))

    # The tiles' region in the level frame, with a margin of a tile and a half.
    theta = math.radians(angle)
    rot = np.array([[math.cos(theta), math.sin(theta)], [-math.sin(theta), math.cos(theta)]])
    corners = _corners(plan.xyxy).reshape(-1, 2) @ rot.T
    lo, hi = corners.min(0) - 1.5 * side, corners.max(0) + 1.5 * side
    span = hi - lo
    zoom = min(model_side / max(span), TARGET_TILE_PX / max(side, 1.0))
    tilted = abs(angle) > LEVEL_ABOVE_DEG
    if not tilted and zoom < ZOOM_GAIN * first_scale:
        return det, identity, angle, passes
    out_w, out_h = max(32, round(span[0] * zoom)), max(32, round(span[1] * zoom))
    # photo → frame: rotate, shift the region to the origin, zoom
    m = np.zeros((2, 3))
    m[:, :2] = zoom * rot
    m[:, 2] = -zoom * lo
    check_deadline("the level look")
    if max(out_w, out_h) > 2.5 * model_side:
        warped = _warp(image, m, (out_w, out_h), detector.manifest.pad_value)
        det2 = detector.detect_tiled(warped, window=round(1.25 * model_side), **look)
        name = f"level {angle:+.0f}° zoom ×{zoom / first_scale:.1f}, tiled"
    else:
        det2 = detector.detect_warped(image, m, (out_w, out_h), **look)
        name = f"level {angle:+.0f}° zoom ×{zoom / first_scale:.1f}"
    if len(det2) < 0.8 * len(det):  # the second look lost tiles: keep the first
        return det, identity, angle, passes
    passes.append(name)
    return det2, _invert(m), 0.0, passes


def _warp(image: Image, m: NDArray[np.float64], size: tuple[int, int], pad: int) -> Image:
    import cv2

    return np.asarray(
        cv2.warpAffine(
            image,
            m,
            size,
            flags=cv2.INTER_AREA if abs(np.linalg.det(m[:, :2])) < 1 else cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(pad, pad, pad),
        ),
        dtype=np.uint8,
    )


def _invert(m: NDArray[np.float64]) -> NDArray[np.float64]:
    full = np.vstack([m, [0, 0, 1]])
    return np.asarray(np.linalg.inv(full)[:2], dtype=np.float64)


def _corners(xyxy: NDArray[np.float64]) -> NDArray[np.float64]:
    x1, y1, x2, y2 = xyxy.T
    return np.stack(
        [
            np.stack([x1, y1], 1),
            np.stack([x2, y1], 1),
            np.stack([x2, y2], 1),
            np.stack([x1, y2], 1),
        ],
        axis=1,
    )


# -- reading -----------------------------------------------------------------------------


def read_photo(
    path: str | Path,
    *,
    detector: Detector | None = None,
    namer: Namer | None = None,
    win_tile: Tile | str | None = None,
) -> Reading:
    """Read a winning hand from a photo file (see :func:`read_image`)."""
    image = load_image(path)
    return read_image(image, detector=detector, namer=namer, win_tile=win_tile, source=str(path))


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
        from vision.detector import ModelError

        raise ModelError(f"{detector.path}: a finder only boxes tiles; reading needs a namer too")
    det, to_image, angle, passes = detect_photo(detector, image, finder=namer is not None)
    h, w = image.shape[:2]
    found = photo_boxes(det.xyxy, to_image)
    check_deadline("naming the tiles")
    named = name_tiles(namer, image, det, to_image) if namer is not None else None
    if named is not None:
        det = named.detections
    reading = build_reading(
        det, to_image, angle, (w, h), win_tile=win_tile, source=source, names=named
    )
    return _with(
        reading,
        passes=tuple(passes),
        seconds=time.perf_counter() - began,
        extra={**reading.extra, "found_xyxy": found},
    )


def rebuild(reading: Reading, class_id: NDArray[np.int64]) -> Reading:
    """The same photo read with other names for its detections (a suggestion, a fix)."""
    frame = reading.extra["frame"]
    det = Detections(frame["xyxy"], reading.detections.confidence, class_id)
    names = None
    if reading.alternatives is not None and reading.alternative_probs is not None:
        names = NamedTiles(det, reading.alternatives, reading.alternative_probs)
    again = build_reading(
        det,
        frame["to_image"],
        frame["angle"],
        (reading.width, reading.height),
        win_tile=frame["win_tile"],
        source=reading.source,
        names=names,
    )
    return _with(again, passes=reading.passes, seconds=reading.seconds, extra=reading.extra)


def photo_quads(xyxy: NDArray[np.float64], to_image: NDArray[np.float64]) -> NDArray[np.float64]:
    """The corners (n, 4, 2) in the photo of boxes of a frame."""
    if len(xyxy) == 0:
        return np.zeros((0, 4, 2))
    return np.asarray(_corners(xyxy) @ to_image[:, :2].T + to_image[:, 2], np.float64)


def photo_boxes(xyxy: NDArray[np.float64], to_image: NDArray[np.float64]) -> NDArray[np.float64]:
    """Boxes of a frame as boxes of the photo (the envelope of each turned box)."""
    return _envelope(photo_quads(xyxy, to_image))


def _envelope(quads: NDArray[np.float64]) -> NDArray[np.float64]:
    if len(quads) == 0:
        return np.zeros((0, 4))
    return np.concatenate([quads.min(1), quads.max(1)], axis=1)


@dataclass(frozen=True)
class NamedTiles:
    """The finder's boxes that the namer takes for tiles, named (``class_id`` the decoded
    name, ``confidence`` its probability), with each box's alternatives."""

    detections: Detections
    alternatives: NDArray[np.int64]
    alternative_probs: NDArray[np.float64]


def name_tiles(
    namer: Namer, image: Image, det: Detections, to_image: NDArray[np.float64] | None
) -> NamedTiles:
    """Name the finder's boxes (in the frame ``to_image`` maps onto the photo) from the
    photo's pixels; drop what is not a tile; decode the names hand-wide (copy caps)."""
    from vision.decoding import alternatives, decode_names

    probs = namer.name(image, det.xyxy, to_image).probs
    keep = probs[:, REJECT] < REJECT_ABOVE
    probs = probs[keep]  # (a copy)
    probs[:, REJECT] = 0.0  # a kept box is a tile: its names share the rest
    probs /= probs.sum(axis=1, keepdims=True)
    chosen = decode_names(probs)
    alt, alt_p = alternatives(probs, chosen)
    return NamedTiles(Detections(det.xyxy[keep], alt_p[:, 0], chosen), alt, alt_p)


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
) -> Reading:
    """The reading of detections (in a frame mapped to the photo by ``to_image``);
    ``names``: the namer's verdict on them (alternatives travel with the reading)."""
    w, h = size
    if to_image is None:
        to_image = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    quads = photo_quads(det.xyxy, to_image)
    photo_det = Detections(_envelope(quads), det.confidence, det.class_id).clipped(w, h)
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
    stray = [i for g in layout.role_of(Role.STRAY) for i in g.tiles]
    if stray:
        shown = " ".join(CLASS_NAMES[int(det.class_id[i])] for i in stray)
        warnings.append(
            ReadingWarning(
                "unplaced_tiles", f"tiles that fit no part of a hand: {shown}", tuple(stray)
            )
        )

    warnings += _checks(det, photo_det, hand, melds, flowers, set_apart, (w, h), to_image)
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
        extra={
            "frame": {"xyxy": det.xyxy, "to_image": to_image, "angle": angle, "win_tile": win_tile},
            "places": {
                "hand": list(hand_idx),
                "flowers": [i for g in layout.role_of(Role.FLOWERS) for i in g.tiles],
                "set_apart": [i for i in set_apart_idx if det.class_id[i] != BACK],
            },
        },
    )


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


def _checks(
    det: Detections,
    photo_det: Detections,
    hand: list[Tile],
    melds: list[ReadMeld],
    flowers: list[Tile],
    set_apart: list[Tile],
    size: tuple[int, int],
    to_image: NDArray[np.float64],
) -> list[ReadingWarning]:
    out: list[ReadingWarning] = []
    names = [CLASS_NAMES[int(c)] for c in det.class_id]
    # Copies: four of a kind at most (one of each flower) among everything on the table.
    seen: Counter[Tile] = Counter(hand)
    for m in melds:
        seen.update(m.tiles)
    seen.update(flowers)
    seen.update(set_apart)
    for t, n in sorted(seen.items()):
        cap = 1 if t.is_flower else 4
        if n > cap:
            idx = tuple(i for i, c in enumerate(det.class_id) if tile_of(int(c)) == t)
            out.append(
                ReadingWarning(
                    "too_many_copies", f"{n} copies of {t} read; a set has only {cap}", idx
                )
            )
    if len(det):
        want = 14 - 3 * len(melds)
        if len(hand) != want:
            out.append(
                ReadingWarning(
                    "tile_count",
                    f"{len(hand)} tiles in the hand beside {len(melds)} meld(s); a winning hand "
                    f"holds {want}",
                )
            )
    low = tuple(int(i) for i in np.nonzero(det.confidence < LOW_CONFIDENCE)[0])
    if low:
        shown = ", ".join(f"{names[i]} ({det.confidence[i]:.2f})" for i in low)
        out.append(ReadingWarning("low_confidence", f"uncertain tiles: {shown}", low))
    w, h = size
    margin = max(2.0, 0.004 * max(w, h))
    xy = photo_det.xyxy
    cut = tuple(
        int(i)
        for i in np.nonzero(
            (xy[:, 0] <= margin)
            | (xy[:, 1] <= margin)
            | (xy[:, 2] >= w - margin)
            | (xy[:, 3] >= h - margin)
        )[0]
    )
    if cut:
        shown = ", ".join(names[i] for i in cut)
        out.append(ReadingWarning("cut_by_border", f"tiles touch the photo's border: {shown}", cut))
    if len(det):
        side = float(np.median(np.min(photo_det.wh, axis=1)))
        if side < SMALL_TILE_PX:
            out.append(
                ReadingWarning("tiles_small", f"tiles are about {side:.0f} px across in the photo")
            )
    return out
