"""The tile namer (reading, stage 2): one crop per box, cut from the full-resolution photo,
named by a small classifier in onnxruntime.

The finder says where the tiles are; the namer says what each one is. A crop is the box
widened by :data:`CROP_MARGIN` on every side, turned to portrait when the box is wider than
tall (a sideways called tile becomes upright or upside down: the namer is trained on every
rotation, never on mirror images), and resized to the model's square input. Crops come from
the original photo, so a 12-MP photo gives the namer a sharp tile even where the finder
saw 30 px.

Classes are hupai's 43 (:data:`hupai.vision.classes.CLASS_NAMES`) and :data:`REJECT_NAME`, "not a
tile": the finder's false boxes (a keyboard key, a die, a wall seen edge-on) are dropped
by it. Each box keeps its :data:`TOP_K` names with probabilities (:class:`Names`).

>>> crops = crop_tiles(np.zeros((100, 200, 3), np.uint8), np.array([[10, 10, 70, 40.]]), 32)
>>> crops.shape  # a wide box comes out portrait, square
(1, 32, 32, 3)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hupai.vision.classes import BACK, CLASS_NAMES, CLASSES_VERSION

#: The namer's classes: hupai's 43 and "not a tile".
REJECT_NAME = "reject"
NAMER_CLASSES: tuple[str, ...] = (*CLASS_NAMES, REJECT_NAME)
REJECT = len(CLASS_NAMES)  # 43
#: Each side of a box is widened by this share of the box's size before cropping.
CROP_MARGIN = 0.08
#: Alternatives kept per tile.
TOP_K = 3
#: ImageNet statistics (RGB, 0-1 scale) the pretrained backbone expects.
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
#: Crops named per onnxruntime call (measured: batches of 16-32 are the cheapest per crop).
BATCH = 32

NAMER_NAME = "hupai-namer-v6"
NAMER_ENV = "HUPAI_NAMER"

Image = NDArray[np.uint8]


#: Crops of a photo's boxes at a view margin: ``cut(margin, rows)``, ``rows`` the boxes to
#: cut (indices), None for every box.
ViewCut = Callable[[float, NDArray[np.int64] | None], NDArray[np.uint8]]
#: Crops of some of a photo's boxes at another input size: ``closer(size, margin, rows)``.
CloserCut = Callable[[int, float, NDArray[np.int64]], NDArray[np.uint8]]
#: The manifest entries that name a partner namer beside this one (each ``{"file": …}``).
PARTNER_KEYS = ("gate", "blend", "bonus", "bird", "bird_others")
#: hupai's flowers and seasons (1f-8f): what a bonus reader names.
BONUS = np.arange(CLASS_NAMES.index("1f"), CLASS_NAMES.index("8f") + 1)
#: The 1 of bamboo: a bird on most sets, which the namer takes for a flower on sets it never
#: saw. A **bird reader** (the manifest's ``"bird"``) says how likely a box the namer calls a
#: flower or a season is this tile.
BIRD = CLASS_NAMES.index("1s")
#: What a bird reader is trained to name (``hupai train bonus``): the eight, then the bird.
BONUS_AND_BIRD = np.append(BONUS, BIRD)


class NamerError(ValueError):
    """The namer model or its manifest is missing, unreadable or does not fit hupai."""


@dataclass(frozen=True)
class NamerManifest:
    name: str
    version: str
    class_names: tuple[str, ...]
    input_name: str
    input_size: int
    margin: float = CROP_MARGIN
    mean: tuple[float, float, float] = MEAN
    std: tuple[float, float, float] = STD
    #: a second namer that only judges "not a tile" (its file beside this one, and the reject
    #: probability from which its verdict drops a box), or None
    gate: tuple[str, float] | None = None
    #: a second namer whose names are blended into this one's (its file beside this one, and
    #: the weight of its probabilities), or None
    blend: tuple[str, float] | None = None
    #: margins each box is cut at and named, the names averaged (a test-time view of the
    #: tile with more of its surroundings); empty: ``margin`` only
    view_margins: tuple[float, ...] = ()
    #: margins (each one of the views') at which a box is also named turned by 180°, those
    #: names averaged with the others: a tile photographed upside down — a 九萬 whose index
    #: reads 6, a 南 — is named more surely seen both ways up (the namer learnt both)
    turned_margins: tuple[float, ...] = ()
    #: the views after the first only for boxes whose first view's best probability is below
    #: this (a box the first view names surely is named once); None: every box at every view
    more_views_below: float | None = None
    #: the namer's calibration (``calibration`` in the manifest, ``hupai train calibrate``):
    #: its logits are divided by ``temperature`` before the softmax, and a tile whose name is
    #: less likely than ``check_below`` needs a check (None: the reader's default,
    #: :data:`hupai.vision.checks.CHECK_BELOW`)
    temperature: float = 1.0
    check_below: float | None = None
    #: a bonus reader (its file beside this one): a namer that looks closer, at its own
    #: input size, at the boxes this one names a flower or a season, and says which of the
    #: eight it is (:func:`with_bonus_names`, its names times this namer's own to the power
    #: ``bonus_namer_weight``); None: this namer's word alone
    bonus: str | None = None
    bonus_namer_weight: float = 0.0
    #: the bonus reader looks at each crop turned by 180° too, the two looks averaged
    bonus_turned: bool = False
    #: a bird reader (its file beside this one): a namer that looks closer at the boxes this
    #: one names a flower or a season and says how likely each is the 1 of bamboo
    #: (:func:`with_bird_share`); None: this namer's word alone. ``bird_turned``: it looks at
    #: each crop turned by 180° too, the two looks averaged
    bird: str | None = None
    bird_turned: bool = False
    #: the bird reader is heard only for a box this namer itself gives the 1 of bamboo at
    #: least this probability (``"namer_from"``): on a small blurred flower it sees a bird
    #: too often, and the birds it brings back are the namer's runner-ups
    bird_namer_from: float = 0.0
    #: a bird reader that knows every tile face (``"bird_others"``, its file beside this one):
    #: it looks at a box this namer names a suit tile or an honour while giving the 1 of bamboo
    #: at least ``bird_others_from`` (its ``"namer_from"``), and says how likely it is the bird
    #: rather than that tile (:func:`with_bird_seen`); None: such boxes are this namer's word
    bird_others: str | None = None
    bird_others_turned: bool = False
    bird_others_from: float = 0.0

    @property
    def closer_rule(self) -> CloserRule:
        """How this namer hears its bonus and bird readers."""
        return CloserRule(
            self.bonus_namer_weight, self.bird_namer_from, self.bird_others_from, self.input_size
        )

    @property
    def partners(self) -> tuple[str, ...]:
        """The files of the namers this one names beside it (blend, gate, bonus and bird
        readers)."""
        named = (self.blend[0] if self.blend else None, self.gate[0] if self.gate else None)
        closer = (self.bonus, self.bird, self.bird_others)
        return tuple(f for f in (*named, *closer) if f is not None)

    @property
    def views(self) -> tuple[float, ...]:
        """The margins a box is cut at (one crop each)."""
        return self.view_margins or (self.margin,)

    @property
    def view_specs(self) -> tuple[tuple[float, bool], ...]:
        """Each naming of a box: its margin and whether the crop is turned by 180° — the
        views upright first, then the turned ones."""
        return tuple((m, False) for m in self.views) + tuple((m, True) for m in self.turned_margins)

    @staticmethod
    def from_dict(data: dict[str, Any], source: str) -> NamerManifest:
        try:
            shape = data["input"]["shape"]
            pre = data.get("preprocessing", {})
            bonus = _partner(data, "bonus", "namer_weight")
            bird = _partner(data, "bird", "namer_from")
            others = _partner(data, "bird_others", "namer_from")
            manifest = NamerManifest(
                name=str(data.get("name", "namer")),
                version=str(data.get("version", "?")),
                class_names=tuple(str(n) for n in data["class_names"]),
                input_name=str(data["input"].get("name", "crops")),
                input_size=int(shape[2]),
                margin=float(pre.get("margin", CROP_MARGIN)),
                mean=_triple(pre.get("mean", MEAN)),
                std=_triple(pre.get("std", STD)),
                gate=(str(data["gate"]["file"]), float(data["gate"]["reject_above"]))
                if data.get("gate")
                else None,
                blend=(str(data["blend"]["file"]), float(data["blend"]["weight"]))
                if data.get("blend")
                else None,
                view_margins=tuple(float(v) for v in pre.get("view_margins", ())),
                turned_margins=tuple(float(v) for v in pre.get("turned_views", ())),
                more_views_below=_optional_float(pre.get("more_views_below")),
                temperature=float(data.get("calibration", {}).get("temperature", 1.0)),
                check_below=_optional_float(data.get("calibration", {}).get("check_below")),
                bonus=bonus[0],
                bonus_turned=bonus[1],
                bonus_namer_weight=bonus[2],
                bird=bird[0],
                bird_turned=bird[1],
                bird_namer_from=bird[2],
                bird_others=others[0],
                bird_others_turned=others[1],
                bird_others_from=others[2],
            )
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            raise NamerError(f"{source}: not a hupai namer manifest ({exc!r})") from None
        if manifest.class_names != NAMER_CLASSES:
            raise NamerError(
                f"{source}: the namer's classes are not hupai's {len(NAMER_CLASSES)} "
                f"(classes version {CLASSES_VERSION} and '{REJECT_NAME}')"
            )
        if any(not 0.0 <= v < 1.0 for v in manifest.views):
            raise NamerError(f"{source}: view margins {list(manifest.views)} are not in [0, 1)")
        if any(v not in manifest.views for v in manifest.turned_margins):
            raise NamerError(
                f"{source}: turned views {list(manifest.turned_margins)} are not among the view "
                f"margins {list(manifest.views)}"
            )
        for what, value, low, high in (
            ("more_views_below", manifest.more_views_below, None, 1.0),
            ("calibration temperature", manifest.temperature, 0.05, 20.0),
            ("bonus namer_weight", manifest.bonus_namer_weight, 0.0, 4.0),
            ("bird namer_from", manifest.bird_namer_from, 0.0, 1.0),
            ("bird_others namer_from", manifest.bird_others_from, 0.0, 1.0),
            ("calibration check_below", manifest.check_below, None, 1.0),
        ):
            _within(value, low, high, f"{source}: {what}")
        return manifest


def _partner(data: dict[str, Any], key: str, number: str) -> tuple[str | None, bool, float]:
    """A partner reader's entry in a namer's manifest: its file (None: no such partner),
    whether its crops are also read turned, and its number (``namer_weight`` or
    ``namer_from``; 0 where not given).

    >>> _partner({"bird": {"file": "b.onnx", "namer_from": 0.05}}, "bird", "namer_from")
    ('b.onnx', False, 0.05)
    >>> _partner({}, "bonus", "namer_weight")
    (None, False, 0.0)
    """
    entry = data.get(key) or {}
    file = str(entry["file"]) if entry else None
    return file, bool(entry.get("turned", False)), float(entry.get(number, 0.0))


def _within(value: float | None, low: float | None, high: float, what: str) -> None:
    """NamerError unless ``value`` (None: not given, fine) lies in [``low``, ``high``] — in
    (0, ``high``] where ``low`` is None.

    >>> _within(1.5, 0.0, 1.0, "bird namer_from")
    Traceback (most recent call last):
    ...
    hupai.vision.namer.NamerError: bird namer_from 1.5 is not in [0, 1]
    >>> _within(0.0, None, 1.0, "check_below")
    Traceback (most recent call last):
    ...
    hupai.vision.namer.NamerError: check_below 0.0 is not in (0, 1]
    """
    if value is None:
        return
    inside = (value > 0.0 if low is None else low <= value) and value <= high
    if not inside:
        span = f"(0, {high:g}]" if low is None else f"[{low:g}, {high:g}]"
        raise NamerError(f"{what} {value} is not in {span}")


def load_namer_manifest(path: Path) -> NamerManifest:
    """The manifest beside a namer (``x.onnx`` → ``x.json``); NamerError naming it."""
    manifest_path = path.with_suffix(".json")
    try:
        data = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NamerError(f"{manifest_path}: cannot read the namer's manifest ({exc})") from None
    if not isinstance(data, dict):
        raise NamerError(f"{manifest_path}: not a hupai namer manifest (not a JSON object)")
    return NamerManifest.from_dict(data, str(manifest_path))


def _optional_float(v: Any) -> float | None:
    return None if v is None else float(v)


def _triple(v: Any) -> tuple[float, float, float]:
    a, b, c = (float(x) for x in v)
    return (a, b, c)


def find_namer(model: str | Path | None = None) -> Path:
    """The namer file: the argument (the CLI fills it from ``$HUPAI_NAMER``), or the shipped
    one (``models/reader.json``)."""
    from hupai.vision.detector import SHIPPED_MODELS, shipped_file

    if model is not None:
        path = Path(model)
    else:
        path = shipped_file("namer") or SHIPPED_MODELS / f"{NAMER_NAME}.onnx"
    if not path.is_file():
        raise NamerError(f"{path}: no such namer model file")
    return path


# -- crops -----------------------------------------------------------------------------------


def crop_plans(
    xyxy: NDArray[np.float64],
    size: int,
    margin: float = CROP_MARGIN,
    to_image: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
    """For every box at once: the 2×3 affine output pixel → photo ``(n, 2, 3)``, photo
    pixels per output pixel ``(n,)``, and whether the box is wider than tall ``(n,)``.

    ``xyxy`` is in a frame that ``to_image`` (2×3 affine, frame → photo) maps onto the
    photo — a level, zoomed view of a tilted row — so the crop is cut from the photo's own
    pixels, turned with the frame.
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    x1, y1, x2, y2 = (xyxy[:, k] for k in range(4))
    bw, bh = np.maximum(x2 - x1, 1.0), np.maximum(y2 - y1, 1.0)
    span_w, span_h = bw * (1 + 2 * margin), bh * (1 + 2 * margin)
    # output pixel (u, v) → frame, pixel centres aligned as cv2.resize does
    sx, sy = span_w / size, span_h / size
    m = np.zeros((len(xyxy), 3, 3))
    m[:, 0, 0], m[:, 0, 2] = sx, x1 - margin * bw + 0.5 * sx - 0.5
    m[:, 1, 1], m[:, 1, 2] = sy, y1 - margin * bh + 0.5 * sy - 0.5
    m[:, 2, 2] = 1.0
    if to_image is not None:
        a = np.eye(3)
        a[:2] = to_image
        m = np.matmul(a, m)
    m = m[:, :2]
    step = np.sqrt(np.abs(np.linalg.det(m[:, :, :2])))
    return m, step, bw > bh


def photo_sides(
    xyxy: NDArray[np.float64], to_image: NDArray[np.float64] | None = None
) -> NDArray[np.float64]:
    """Each box's long side in the photo's pixels (``xyxy`` in a frame that ``to_image``, 2×3
    affine, maps onto the photo; None: in the photo).

    >>> photo_sides(np.array([[0, 0, 30, 40.0]]), np.array([[2, 0, 0], [0, 2, 0.0]])).tolist()
    [80.0]
    """
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    a = np.eye(2) if to_image is None else np.asarray(to_image, np.float64)[:, :2]
    across = np.linalg.norm(a[:, 0]) * (xyxy[:, 2] - xyxy[:, 0])
    down = np.linalg.norm(a[:, 1]) * (xyxy[:, 3] - xyxy[:, 1])
    return np.asarray(np.maximum(across, down), np.float64)


def _warp(image: Image, m: NDArray[np.float64], step: float, size: int) -> Image:
    """One crop: ``m`` maps output pixels onto the photo. Pixels beyond the photo's border
    repeat its edge; a crop that shrinks the photo averages (INTER_AREA) its region first,
    so it is not aliased."""
    import cv2

    src = image
    if step > 1.25:  # shrink the region first: average, then sample
        h, w = image.shape[:2]
        corners = m @ _OUT_CORNERS[size]
        rx1, ry1 = (max(0, int(np.floor(v)) - 2) for v in corners.min(axis=1))
        rx2, ry2 = (
            min(w, int(np.ceil(corners[0].max())) + 2),
            min(h, int(np.ceil(corners[1].max())) + 2),
        )
        if rx2 <= rx1 or ry2 <= ry1:
            return np.zeros((size, size, 3), np.uint8)
        region = image[ry1:ry2, rx1:rx2]
        k = 1 / step
        rw, rh = max(1, round(region.shape[1] * k)), max(1, round(region.shape[0] * k))
        src = np.asarray(cv2.resize(region, (rw, rh), interpolation=cv2.INTER_AREA), np.uint8)
        kx, ky = rw / region.shape[1], rh / region.shape[0]
        # photo → region pixels, centres aligned
        to_src = np.array(
            [[kx, 0, (0.5 - rx1) * kx - 0.5], [0, ky, (0.5 - ry1) * ky - 0.5], [0, 0, 1]]
        )
        m = (to_src @ np.vstack([m, [0, 0, 1]]))[:2]
    return np.asarray(
        cv2.warpAffine(
            src,
            m,
            (size, size),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        ),
        np.uint8,
    )


class _Corners(dict[int, NDArray[np.float64]]):
    """The output square's corners (homogeneous, 3×4) per crop size, made once."""

    def __missing__(self, size: int) -> NDArray[np.float64]:
        corners = np.array([[0, 0, 1], [size, 0, 1], [0, size, 1], [size, size, 1.0]]).T
        self[size] = corners
        return corners


_OUT_CORNERS = _Corners()


def crop_box(
    image: Image,
    xyxy: NDArray[np.float64],
    size: int,
    margin: float = CROP_MARGIN,
    to_image: NDArray[np.float64] | None = None,
) -> Image:
    """One box widened by ``margin``, portrait, resized to ``size``×``size`` (see
    :func:`crop_plans` and :func:`crop_tiles`)."""
    crops = crop_tiles(image, np.asarray(xyxy, np.float64)[None], size, margin, to_image)
    return np.asarray(crops[0], np.uint8)


def crop_tiles(
    image: Image,
    xyxy: NDArray[np.float64],
    size: int,
    margin: float = CROP_MARGIN,
    to_image: NDArray[np.float64] | None = None,
) -> NDArray[np.uint8]:
    """Every box's crop, stacked ``(n, size, size, 3)`` (BGR like the photo): the geometry of
    all boxes in one go (:func:`crop_plans`), then one OpenCV warp a box, written straight
    into the batch (a wide box turned portrait on the way)."""
    out = np.empty((len(xyxy), size, size, 3), np.uint8)
    if len(xyxy) == 0:
        return out
    m, step, wide = crop_plans(xyxy, size, margin, to_image)
    for i in range(len(out)):
        crop = _warp(image, m[i], float(step[i]), size)
        out[i] = np.rot90(crop) if wide[i] else crop
    return out


def to_blob(
    crops: NDArray[np.uint8],
    mean: tuple[float, float, float] = MEAN,
    std: tuple[float, float, float] = STD,
) -> NDArray[np.float32]:
    """BGR uint8 crops ``(n, s, s, 3)`` → normalised RGB ``(n, 3, s, s)`` float32: each
    channel looked up in a 256-entry table (the same float32 arithmetic as
    ``(v / 255 - mean) / std``, done once per grey level instead of once per pixel)."""
    n, s = len(crops), crops.shape[1] if crops.ndim == 4 else 0
    blob = np.empty((n, 3, s, s), np.float32)
    table = _normalise_table(tuple(mean), tuple(std))
    for c in range(3):  # RGB channel c is BGR channel 2 - c
        np.take(table[c], crops[..., 2 - c], out=blob[:, c], mode="clip")
    return blob


@cache
def _normalise_table(mean: tuple[float, ...], std: tuple[float, ...]) -> NDArray[np.float32]:
    grey = np.arange(256, dtype=np.float32) / np.float32(255)
    return np.stack([(grey - np.float32(mean[c])) / np.float32(std[c]) for c in range(3)]).astype(
        np.float32
    )


def softmax(logits: NDArray[np.float32], temperature: float = 1.0) -> NDArray[np.float64]:
    """Probabilities of logits ``(n, classes)`` divided by ``temperature`` (above 1: less
    sure, under 1: surer; the likeliest name never changes).

    >>> softmax(np.array([[2.0, 0.0]])).round(3), softmax(np.array([[2.0, 0.0]]), 2.0).round(3)
    (array([[0.881, 0.119]]), array([[0.731, 0.269]]))
    """
    z = np.asarray(logits, np.float64) / temperature
    e = np.exp(z - z.max(axis=1, keepdims=True))
    total = e.sum(axis=1, keepdims=True)
    return np.asarray(e / total, np.float64)


# -- names -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Names:
    """The namer's verdict on ``n`` boxes: ``probs`` (n, classes); the reader keeps each
    box's :data:`TOP_K` names (:func:`hupai.vision.decoding.alternatives`)."""

    probs: NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.probs)

    @property
    def best(self) -> NDArray[np.int64]:
        return np.asarray(self.probs.argmax(axis=1), np.int64)

    @staticmethod
    def empty() -> Names:
        return Names(np.zeros((0, len(NAMER_CLASSES))))


def gated(
    probs: NDArray[np.float64], gate_reject: NDArray[np.float64], above: float
) -> NDArray[np.float64]:
    """Mix the gate's "not a tile" into ``probs`` where it is at least ``above`` sure:
    ``(1 - g) · p + g · reject``; the other names keep their order.

    >>> p = np.array([[0.9, 0.0, 0.1], [0.8, 0.2, 0.0]])
    >>> gated(p, np.array([0.97, 0.5]), 0.95).round(3)  # (3 classes here: reject is last)
    array([[0.027, 0.   , 0.973],
           [0.8  , 0.2  , 0.   ]])
    """
    g = np.where(gate_reject >= above, gate_reject, 0.0)[:, None]
    out = probs * (1 - g)
    out[:, -1] += g[:, 0]
    return np.asarray(out, np.float64)


class Namer:
    """One onnxruntime session; load once per process, call :meth:`name` many times.

    A manifest may name a **gate**: a second namer trained on the hard cases (clutter, boxes
    straddling two tiles, part tiles) whose only say is "not a tile". Where the gate is at
    least ``reject_above`` sure, its verdict is mixed into this namer's (the box is then
    dropped by the reader); the names of every box stay this namer's. Why two: the gate
    rejects far more clutter, but names real tiles worse (models/MODEL_CARD.md).

    A manifest may also name a **blend**: a second namer whose probabilities are averaged
    into this one's (``weight`` of them), before the gate — two namers trained on different
    mixes (one close to the real set, one on many sets' faces and the hard cases) name other
    sets and reject clutter better together than either alone.

    A manifest may name a **bonus reader**: a namer that looks again, at its own (larger)
    input size, at the boxes this one names a flower or a season and says which of the eight
    it is (their corner numbers and characters are a few pixels in this one's crops);
    whether a box is a bonus tile stays this namer's word (:func:`with_bonus_names`). And a
    **bird reader**: a namer that looks again at the same boxes and says how likely each is
    the 1 of bamboo — the bird most sets draw on it, which this one takes for a flower on sets
    it never saw (:func:`with_bird_share`). And a **bird reader of every tile** (``"bird_others"``):
    one trained on every tile face, which looks at the large boxes this one names a suit tile
    or an honour while giving the bird a little, and says how likely each is the bird rather
    than that tile (:func:`with_bird_seen`).
    """

    def __init__(self, model: str | Path | None = None, *, threads: int | None = None) -> None:
        from hupai.vision.detector import open_session

        self.path = find_namer(model)
        self.manifest = load_namer_manifest(self.path)
        self.session, self.threads = open_session(self.path, threads, NamerError)
        self.output_name = self.session.get_outputs()[0].name
        self.gate: Namer | None = None
        self.gate_above = 1.0
        if self.manifest.gate is not None:
            file, self.gate_above = self.manifest.gate
            self.gate = self._partner(file, "gate", threads)
        self.blend: Namer | None = None
        self.blend_weight = 0.0
        if self.manifest.blend is not None:
            file, self.blend_weight = self.manifest.blend
            if not 0.0 < self.blend_weight < 1.0:
                raise NamerError(
                    f"{self.path.with_suffix('.json')}: blend weight {self.blend_weight} "
                    "is not between 0 and 1"
                )
            self.blend = self._partner(file, "blended namer", threads)
        self.bonus = self._closer(self.manifest.bonus, "bonus reader", threads)
        self.bird = self._closer(self.manifest.bird, "bird reader", threads)
        self.bird_others = self._closer(
            self.manifest.bird_others, "bird reader of every tile", threads
        )

    def _closer(self, file: str | None, role: str, threads: int | None) -> Namer | None:
        """A partner that looks closer (beside this one; None where the manifest names none):
        a namer of its own input size that names no partner of its own."""
        if file is None:
            return None
        path = find_namer(self.path.parent / file)
        if load_namer_manifest(path).partners:  # (before it loads: no loop)
            raise NamerError(f"{path}: a {role} names namers of its own")
        return Namer(path, threads=threads)

    def _partner(self, file: str, role: str, threads: int | None) -> Namer:
        """A second namer named in the manifest (beside this one): it must cut the same crops."""
        partner = Namer(self.path.parent / file, threads=threads)
        g = partner.manifest
        if (g.input_size, g.margin) != (self.manifest.input_size, self.manifest.margin):
            raise NamerError(
                f"{partner.path}: the {role} cuts {g.input_size}-px crops with margin "
                f"{g.margin}, its namer {self.manifest.input_size} px, {self.manifest.margin}"
            )
        return partner

    @property
    def input_size(self) -> int:
        return self.manifest.input_size

    def logits(self, crops: NDArray[np.uint8]) -> NDArray[np.float32]:
        """The namer's raw logits ``(n, classes)`` for ready crops ``(n, s, s, 3)`` BGR, in
        batches of :data:`BATCH` (this namer's own: no blend, no gate)."""
        m = self.manifest
        parts = [np.zeros((0, len(NAMER_CLASSES)), np.float32)]
        for start in range(0, len(crops), BATCH):
            blob = to_blob(crops[start : start + BATCH], m.mean, m.std)
            (logits,) = self.session.run([self.output_name], {m.input_name: blob})
            parts.append(np.asarray(logits, np.float32))
        return np.concatenate(parts)

    def name_crops(self, crops: NDArray[np.uint8]) -> Names:
        """Name ready crops ``(n, s, s, 3)`` BGR: the logits at the manifest's temperature,
        then the blend and the gate where the manifest names them."""
        if len(crops) == 0:
            return Names.empty()
        probs = softmax(self.logits(crops), self.manifest.temperature)
        if self.blend is not None:
            w = self.blend_weight
            probs = (1 - w) * probs + w * self.blend.name_crops(crops).probs
        if self.gate is not None:
            probs = gated(probs, self.gate.name_crops(crops).probs[:, REJECT], self.gate_above)
        return Names(probs)

    def name(
        self,
        image: Image,
        xyxy: NDArray[np.float64],
        to_image: NDArray[np.float64] | None = None,
        *,
        closer: bool = True,
    ) -> Names:
        """Name every box of a BGR photo (``xyxy`` in the photo, or in a frame that
        ``to_image`` maps onto it); ``closer``: the bonus reader looks again at the boxes
        named a flower or a season (off where only "not a tile" is asked)."""
        m = self.manifest

        def cut(margin: float, rows: NDArray[np.int64] | None) -> NDArray[np.uint8]:
            boxes = xyxy if rows is None else xyxy[rows]
            return crop_tiles(image, boxes, m.input_size, margin, to_image)

        def closer_cut(size: int, margin: float, rows: NDArray[np.int64]) -> NDArray[np.uint8]:
            return crop_tiles(image, xyxy[rows], size, margin, to_image)

        return self.name_views(cut, closer_cut if closer else None, photo_sides(xyxy, to_image))

    def name_views(
        self,
        cut: ViewCut,
        closer: CloserCut | None = None,
        sides: NDArray[np.float64] | None = None,
    ) -> Names:
        """Name the crops ``cut(margin, rows)`` gives at each of the manifest's views
        (``rows``: the boxes to cut, None for all; :attr:`NamerManifest.view_specs`: the
        margins, upright, then turned by 180°), the probabilities averaged — the views after
        the first only for the boxes the first view doubts, where the manifest says
        ``more_views_below``; then, where the manifest names closer readers, the boxes named
        a flower or a season — and the large ones a bird reader of every tile is asked of —
        looked at again in the crops ``closer`` cuts (``sides``: each box's long side in the
        photo's pixels, :func:`closer_rows`; None: every box is large)."""
        specs = self.manifest.view_specs
        first_margin = specs[0][0]  # (upright)
        every = cut(first_margin, None)

        def later(rows: NDArray[np.int64] | None) -> list[NDArray[np.float64]]:
            # each margin cut once: a turned view names the crops of its upright twin
            crops = {first_margin: every if rows is None else every[rows]}
            for margin, _ in specs[1:]:
                if margin not in crops:
                    crops[margin] = cut(margin, rows)
            return [
                self.name_crops(turned(crops[m]) if turn else crops[m]).probs
                for m, turn in specs[1:]
            ]

        probs = with_more_views(self.name_crops(every).probs, later, self.manifest.more_views_below)
        return Names(probs if closer is None else self.looked_closer(probs, closer, sides))

    def looked_closer(
        self,
        probs: NDArray[np.float64],
        closer: CloserCut,
        sides: NDArray[np.float64] | None = None,
    ) -> NDArray[np.float64]:
        """``probs`` with the boxes they name a flower or a season looked at again by the
        bonus reader and the bird reader, and those the bird reader is asked of besides
        (:func:`closer_rows`; ``sides``: the boxes' long sides in the photo), in the crops
        ``closer`` cuts (as they are where there is none)."""
        rule = self.manifest.closer_rule
        flowers, others = closer_rows(probs, rule, self.bird_others is not None, sides)
        rows = np.concatenate([flowers, others])
        if not len(rows):
            return probs
        cut = _cut_once(closer, rows)
        n = len(flowers)
        looks = CloserLook(  # each reader asked only of the boxes it looks at
            self.bonus_names(cut(self.bonus)[:n]) if self.bonus is not None and n else None,
            self.bird_looks(cut(self.bird)[:n]) if self.bird is not None and n else None,
            others=self.others_looks(cut(self.bird_others)[n:])
            if self.bird_others is not None and len(others)
            else None,
        )
        return with_looks(probs, flowers, others, looks, rule)

    def bonus_names(self, crops: NDArray[np.uint8]) -> NDArray[np.float64]:
        """The bonus reader's names of its crops — upright, and turned too where the manifest
        says (``"turned"`` in its ``"bonus"`` entry), the two averaged."""
        assert self.bonus is not None
        return _looks(self.bonus, crops, self.manifest.bonus_turned)

    def bird_looks(self, crops: NDArray[np.uint8]) -> NDArray[np.float64]:
        """The bird reader's names of its crops (upright, and turned too where the manifest
        says): :func:`bird_of_nine` reads them."""
        assert self.bird is not None
        return _looks(self.bird, crops, self.manifest.bird_turned)

    def others_looks(self, crops: NDArray[np.uint8]) -> NDArray[np.float64]:
        """The names the bird reader of every tile (``"bird_others"``) gives its crops (upright,
        and turned too where the manifest says): :func:`with_bird_seen` reads them."""
        assert self.bird_others is not None
        return _looks(self.bird_others, crops, self.manifest.bird_others_turned)

    def closer_look(
        self,
        image: Image,
        xyxy: NDArray[np.float64],
        to_image: NDArray[np.float64] | None = None,
    ) -> CloserLook | None:
        """What the bonus and bird readers say of every box (None without either): what
        :meth:`name` takes for the boxes named a flower or a season, kept to name them again
        at another temperature (``hupai train calibrate``; :func:`with_closer_look`)."""
        if self.bonus is None and self.bird is None and self.bird_others is None:
            return None

        def every(size: int, margin: float, rows: NDArray[np.int64]) -> NDArray[np.uint8]:
            return crop_tiles(image, xyxy, size, margin, to_image)

        cut = _cut_once(every, np.arange(len(xyxy)))
        return CloserLook(
            None if self.bonus is None else self.bonus_names(cut(self.bonus)),
            None if self.bird is None else self.bird_looks(cut(self.bird)),
            photo_sides(xyxy, to_image),
            None if self.bird_others is None else self.others_looks(cut(self.bird_others)),
        )

    def view_logits(
        self,
        image: Image,
        xyxy: NDArray[np.float64],
        to_image: NDArray[np.float64] | None = None,
    ) -> NDArray[np.float32]:
        """Every box's raw logits at each view (:attr:`NamerManifest.view_specs`), ``(views,
        n, classes)``: what :meth:`name` averages, kept to be named again at another temperature
        (:func:`names_of_views`; ``hupai train calibrate``). Only for a namer with neither
        blend nor gate (their probabilities are mixed after the softmax)."""
        if self.blend is not None or self.gate is not None:
            raise NamerError(f"{self.path}: a namer with a blend or a gate has no single logits")
        m = self.manifest
        crops = {v: crop_tiles(image, xyxy, m.input_size, v, to_image) for v in m.views}
        return np.stack(
            [self.logits(turned(crops[v]) if turn else crops[v]) for v, turn in m.view_specs]
        )


def _cut_once(closer: CloserCut, rows: NDArray[np.int64]) -> Callable[[Namer], NDArray[np.uint8]]:
    """The crops of ``rows`` a partner reads (``cut(reader)``), each input size and margin cut
    once: the bonus and the bird reader look at the same 128-px crops."""
    cuts: dict[tuple[int, float], NDArray[np.uint8]] = {}

    def cut(reader: Namer) -> NDArray[np.uint8]:
        key = (reader.input_size, reader.manifest.margin)
        if key not in cuts:
            cuts[key] = closer(*key, rows)
        return cuts[key]

    return cut


def _looks(reader: Namer, crops: NDArray[np.uint8], turn: bool) -> NDArray[np.float64]:
    """A partner's names of crops: upright, and with ``turn`` turned by 180° too, averaged."""
    probs = reader.name_crops(crops).probs
    if turn:
        probs = (probs + reader.name_crops(turned(crops)).probs) / 2
    return np.asarray(probs, np.float64)


@dataclass(frozen=True)
class CloserLook:
    """What the partners that look closer said of boxes of a photo: the bonus reader's names
    and the bird reader's, a row a box (None: the namer names no such reader)."""

    bonus: NDArray[np.float64] | None
    bird: NDArray[np.float64] | None = None
    #: the boxes' long sides in the photo's pixels (:func:`photo_sides`; None: not known)
    sides: NDArray[np.float64] | None = None
    #: the bird reader of every tile's names (``"bird_others"``)
    others: NDArray[np.float64] | None = None


def turned(crops: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """Crops ``(n, s, s, 3)`` turned by 180°.

    >>> turned(np.arange(4, dtype=np.uint8).reshape(1, 2, 2, 1))[0, :, :, 0].tolist()
    [[3, 2], [1, 0]]
    """
    return np.ascontiguousarray(crops[:, ::-1, ::-1])


def names_of_views(
    views: NDArray[np.float32], temperature: float = 1.0, more_views_below: float | None = None
) -> Names:
    """The names of boxes whose logits at each view are ``views`` ``(views, n, classes)``:
    each view's softmax at ``temperature``, averaged — as :meth:`Namer.name` names them, the
    later views only for the boxes the first doubts (``more_views_below``).

    >>> names_of_views(np.array([[[2.0, 0.0]], [[0.0, 0.0]]]), 1.0).probs.round(3)
    array([[0.69, 0.31]])
    >>> names_of_views(np.array([[[2.0, 0.0]], [[0.0, 0.0]]]), 1.0, 0.8).probs.round(3)
    array([[0.881, 0.119]])
    """
    if views.shape[1] == 0:
        return Names(np.zeros((0, views.shape[2])))
    first = softmax(views[0], temperature)
    return Names(
        with_more_views(
            first,
            lambda rows: [softmax(v if rows is None else v[rows], temperature) for v in views[1:]],
            more_views_below,
        )
    )


def bonus_rows(probs: NDArray[np.float64]) -> NDArray[np.int64]:
    """The boxes whose best name is a flower or a season."""
    return np.nonzero(np.isin(probs.argmax(axis=1), BONUS))[0]


@dataclass(frozen=True)
class CloserRule:
    """How a namer hears its bonus and bird readers (its manifest's ``"bonus"``, ``"bird"`` and
    ``"bird_others"``: :attr:`NamerManifest.closer_rule`)."""

    bonus_namer_weight: float = 0.0
    bird_namer_from: float = 0.0
    #: the bird reader of every tile is asked of a box the namer names a suit tile or an honour
    #: while giving the bird at least this ...
    bird_others_from: float = 0.0
    #: ... and only of a box whose long side in the photo is at least this (px): the namer's
    #: own input side. A box with fewer pixels gives the closer look nothing the namer's crop
    #: lacks but blur, and a bird reader finds birds in blur (the held-out scenes' 15-40 px
    #: tiles: it broke more than it brought back there)
    bird_others_side: float = 0.0


def closer_rows(
    probs: NDArray[np.float64],
    rule: CloserRule,
    others: bool = True,
    sides: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The boxes the closer readers look at: those named a flower or a season, and those the
    bird reader of every tile (``others``: there is one) is asked of — named a suit tile or
    an honour while the namer gives the bird ``rule.bird_others_from`` or more, their long
    side in the photo (``sides``; None: large enough) at least ``rule.bird_others_side``.

    >>> p = np.zeros((3, 44)); p[0, 40] = p[1, 33] = p[2, 33] = 0.9; p[1, BIRD] = 0.05
    >>> rule = CloserRule(bird_others_from=0.01, bird_others_side=64)
    >>> [r.tolist() for r in closer_rows(p, rule)]
    [[0], [1]]
    >>> [r.tolist() for r in closer_rows(p, rule, sides=np.array([80, 40, 80.0]))]  # too small
    [[0], []]
    >>> [r.tolist() for r in closer_rows(p, rule, others=False)]
    [[0], []]
    """
    flowers = bonus_rows(probs)
    if not others:
        return flowers, np.zeros(0, np.int64)
    best = probs.argmax(axis=1)
    asked = (
        (best < BACK) & ~np.isin(best, BONUS_AND_BIRD) & (probs[:, BIRD] >= rule.bird_others_from)
    )
    if sides is not None:
        asked &= np.asarray(sides, np.float64) >= rule.bird_others_side
    return flowers, np.nonzero(asked)[0]


def with_looks(
    probs: NDArray[np.float64],
    flowers: NDArray[np.int64],
    others: NDArray[np.int64],
    looks: CloserLook,
    rule: CloserRule,
) -> NDArray[np.float64]:
    """``probs`` with what the closer readers said (``looks``: the bonus and the bird reader's
    of ``flowers``, the bird reader of every tile's of ``others``, a row each) taken as
    ``rule`` says."""
    n = len(flowers)
    if looks.bonus is not None and n:
        probs = with_bonus_names(probs, flowers, looks.bonus, rule.bonus_namer_weight)
    if looks.bird is not None and n:
        probs = with_bird_share(probs, flowers, bird_of_nine(looks.bird), rule.bird_namer_from)
    if looks.others is not None and len(others):
        probs = with_bird_seen(probs, others, looks.others)
    return probs


def with_closer_look(
    probs: NDArray[np.float64], closer: CloserLook | None, rule: CloserRule = CloserRule()
) -> NDArray[np.float64]:
    """``probs`` with what the bonus and bird readers said of every box (``closer``, or None:
    no such reader) taken for the boxes they look at — as :meth:`Namer.looked_closer` takes
    them."""
    if closer is None:
        return probs
    flowers, others = closer_rows(probs, rule, closer.others is not None, closer.sides)
    looks = CloserLook(
        None if closer.bonus is None else closer.bonus[flowers],
        None if closer.bird is None else closer.bird[flowers],
        others=None if closer.others is None else closer.others[others],
    )
    return with_looks(probs, flowers, others, looks, rule)


def bird_of_nine(looks: NDArray[np.float64]) -> NDArray[np.float64]:
    """How likely a bird reader finds each box the 1 of bamboo rather than a flower or a
    season: the bird's share of the nine in its names ``looks`` (a row a box).

    >>> looks = np.zeros((1, 44)); looks[0, BIRD], looks[0, 40], looks[0, 0] = 0.6, 0.2, 0.2
    >>> bird_of_nine(looks).round(2).tolist()
    [0.75]
    """
    nine = looks[:, BONUS_AND_BIRD]
    return np.asarray(nine[:, -1] / np.maximum(nine.sum(axis=1), 1e-300), np.float64)


def with_bonus_names(
    probs: NDArray[np.float64],
    rows: NDArray[np.int64],
    closer: NDArray[np.float64],
    namer_weight: float = 0.0,
) -> NDArray[np.float64]:
    """The namer's probability that each box of ``rows`` is a flower or a season, shared out
    over the eight as the bonus reader's names ``closer`` (a row each of ``rows``) say —
    times the namer's own bonus names to the power ``namer_weight`` (0: the closer look
    alone; 1: the two as equal experts, the product renormalised). Whether it is a bonus tile
    stays the namer's word (and the bird reader's, :func:`with_bird_share`).

    >>> p = np.zeros((1, 44)); p[0, 41], p[0, 38], p[0, 0] = 0.6, 0.3, 0.1  # 8f, 5f, 1m
    >>> q = np.zeros((1, 44)); q[0, 38], q[0, 41], q[0, 5] = 0.6, 0.2, 0.2  # 5f, 8f, (6m)
    >>> def named(out): return [(NAMER_CLASSES[i], round(float(out[0, i]), 3))
    ...                         for i in np.nonzero(out[0])[0]]
    >>> named(with_bonus_names(p, np.array([0]), q))
    [('1m', 0.1), ('5f', 0.675), ('8f', 0.225)]
    >>> named(with_bonus_names(p, np.array([0]), q, namer_weight=1.0))
    [('1m', 0.1), ('5f', 0.54), ('8f', 0.36)]
    """
    own = probs[np.ix_(rows, BONUS)]
    share = closer[:, BONUS] * (own**namer_weight if namer_weight else 1.0)
    share = share / np.maximum(share.sum(axis=1, keepdims=True), 1e-300)
    out = probs.copy()
    out[np.ix_(rows, BONUS)] = own.sum(axis=1, keepdims=True) * share
    return out


def with_bird_share(
    probs: NDArray[np.float64],
    rows: NDArray[np.int64],
    bird: NDArray[np.float64],
    namer_from: float = 0.0,
) -> NDArray[np.float64]:
    """The namer's probability that each box of ``rows`` is a flower or a season, that share
    of it (``bird``: the bird reader's, a value each of ``rows``) moved to the 1 of bamboo:
    the bird most sets draw on it is what the namer calls a flower on sets it never saw. The
    flowers keep their proportions; the rest is untouched. Only where the namer itself gives
    the bird ``namer_from`` or more.

    >>> p = np.zeros((1, 44)); p[0, 41], p[0, 38], p[0, BIRD] = 0.6, 0.3, 0.1  # 8f, 5f, 1s
    >>> def named(out): return [(NAMER_CLASSES[i], round(float(v), 3))
    ...                         for i, v in enumerate(out[0]) if v]
    >>> named(with_bird_share(p, np.array([0]), np.array([0.8])))
    [('1s', 0.82), ('5f', 0.06), ('8f', 0.12)]
    >>> named(with_bird_share(p, np.array([0]), np.array([0.8]), namer_from=0.2))  # unheard
    [('1s', 0.1), ('5f', 0.3), ('8f', 0.6)]
    """
    bird = np.where(probs[rows, BIRD] >= namer_from, bird, 0.0)
    out = probs.copy()
    flowers = out[np.ix_(rows, BONUS)]
    out[rows, BIRD] += flowers.sum(axis=1) * bird
    out[np.ix_(rows, BONUS)] = flowers * (1.0 - bird)[:, None]
    return out


def with_bird_seen(
    probs: NDArray[np.float64], rows: NDArray[np.int64], looks: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Each box of ``rows`` (named a suit tile or an honour) with the share of its name that
    the bird reader (``looks``: its names, a row each, of every tile face) gives the 1 of
    bamboo rather than that name moved to the 1 of bamboo: on sets it never saw, the namer
    takes the bird for the red dragon or a character. The rest is untouched.

    >>> p = np.zeros((1, 44)); p[0, 33], p[0, BIRD], p[0, 4] = 0.9, 0.05, 0.05  # 7z, 1s, 5m
    >>> looks = np.zeros((1, 44)); looks[0, BIRD], looks[0, 33] = 0.6, 0.2
    >>> def named(out): return [(NAMER_CLASSES[i], round(float(v), 3))
    ...                         for i, v in enumerate(out[0]) if v]
    >>> named(with_bird_seen(p, np.array([0]), looks))
    [('5m', 0.05), ('1s', 0.725), ('7z', 0.225)]
    """
    out = probs.copy()
    named = out[rows].argmax(axis=1)
    bird, name = looks[:, BIRD], looks[np.arange(len(rows)), named]
    moved = out[rows, named] * bird / np.maximum(bird + name, 1e-300)
    out[rows, named] -= moved
    out[rows, BIRD] += moved
    return out


def with_more_views(
    first: NDArray[np.float64],
    later: Callable[[NDArray[np.int64] | None], list[NDArray[np.float64]]],
    below: float | None,
) -> NDArray[np.float64]:
    """Names of the first view, averaged with the later views' (``later(rows)``: their names
    for those boxes, None for all) for the boxes the first doubts — its best name under
    ``below`` (None: every box).

    >>> first = np.array([[0.99, 0.01], [0.6, 0.4]])
    >>> with_more_views(first, lambda rows: [np.array([[0.2, 0.8]])], 0.9).round(2)
    array([[0.99, 0.01],
           [0.4 , 0.6 ]])
    """
    doubted = np.ones(len(first), bool) if below is None else first.max(axis=1) < below
    if not doubted.any():
        return first
    rows = None if doubted.all() else np.nonzero(doubted)[0]
    more = later(rows)
    if not more:
        return first
    probs = first.copy()
    probs[doubted] = np.mean([first[doubted], *more], axis=0)
    return probs
