"""``hupai train calibrate``: the namer's temperature and name threshold, chosen on real val.

The reader's ``confident`` trusts a photo when every tile's name is at least ``check_below``
likely (besides the box, gap and border checks of :mod:`hupai.vision.checks`). How likely a
namer says its names are depends on the namer (a distilled namer is surer than the ensemble
that taught it), so both numbers belong to the namer and are chosen again whenever the reader
changes (a new finder boxes other tiles; a new namer names them otherwise):

1. the split (real **val**; never test) is read once through the product's own path
   (:func:`hupai.vision.photo_read.read_photo_file`, the shipped finder or ``--model``), each
   box's logits kept at every view margin (:meth:`hupai.vision.namer.Namer.view_logits`);
2. the **temperature** that makes the names' probabilities honest — the one minimising the
   negative log-likelihood of the labelled name of every read box that lies on a labelled
   tile (IoU ≥ 0.5), views averaged as the reader averages them (a grid,
   :data:`TEMPERATURES`);
3. at that temperature every photo is read again from what was kept (the layout, the gaps
   and the checks as shipped), and the **curve** — share of photos confident against the
   share of those read exactly, threshold by threshold — is printed;
4. the threshold chosen is the lowest whose confident photos are read exactly within
   one standard error (binomial, over the best point's confident photos; or a fixed
   ``tolerance``) of the best any threshold reaches that still trusts at least
   :data:`MIN_SHARE` of the photos (a lower threshold trusts more photos; val's labels are
   noisy — one val photo in ten is labelled wrong where the reader is right — so the best is
   ~0.91 there, not 1, and a threshold trusting a handful of photos says nothing); the
   temperature, threshold and curve are written into the namer's manifest (``calibration``),
   which the runtime reads (:class:`hupai.vision.namer.NamerManifest`).

Only a namer with neither blend nor gate is calibrated (their probabilities mix after the
softmax).
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hupai.vision.clutter import face_grounds
from hupai.vision.detections import Detections
from hupai.vision.metrics import match_pairs
from hupai.vision.namer import (
    REJECT,
    CloserLook,
    CloserRule,
    Namer,
    names_of_views,
    with_closer_look,
)
from hupai.vision.reading import (
    FoundTiles,
    find_tiles,
    read_found,
    room_look,
    tiles_of_names,
)
from hupai.vision.result import Reading
from hupai.vision.rooms import RoomLook

#: temperatures tried (logits divided by each): never under 1 — a namer is not made surer than
#: it was trained to be. Fitted on real val alone with its labels corrected, least NLL chose
#: 0.6, and the reader so sharpened was surer on sets it never saw too: the camerash
#: composites' confident photos 95.6 % exact (under issue #36's 97 %) against 98.8 % at 1.0
#: (models/MODEL_CARD.md, "Real val with its label errors corrected").
TEMPERATURES = tuple(round(1.0 + 0.05 * k, 2) for k in range(41))  # 1.0 … 3.0
#: name thresholds of the curve
THRESHOLDS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.88, 0.9, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99)
#: the threshold chosen: the lowest whose confident photos' exact share is within this of the
#: curve's best among thresholds trusting at least :data:`MIN_SHARE` of the photos — by
#: default (None) one standard error of that best share over its confident photos: on val's
#: ~150 confident photos one photo is 0.6 points, and a fixed 0.005 chose between thresholds
#: on a photo or two (reader 8: 0.92, trusting 46 % of val, over 0.80 trusting 60 % at an exact
#: share 1.7 points lower — less than its standard error, 2.5 points)
TOLERANCE: float | None = None
MIN_SHARE = 0.25
#: a read box lies on a labelled tile when their IoU is at least this
MATCH_IOU = 0.5


@dataclass(frozen=True)
class Recorded:
    """One photo read, kept to be named again: the image read, the finder's boxes, every
    box's logits per view, the photo's own size and its labelled tiles (photo pixels)."""

    source: str
    image: NDArray[np.uint8]
    found: FoundTiles
    views: NDArray[np.float32]
    size: tuple[int, int]
    truth: Detections
    #: the namer's rule for its later views (:attr:`NamerManifest.more_views_below`)
    more_views_below: float | None = None
    #: the namer's look at the rows' rooms for a tile (gaps are judged as the product does)
    look: RoomLook | None = None
    #: the bonus and bird readers' names of every box (None: the namer has neither) and how
    #: the namer hears them (:func:`hupai.vision.namer.with_closer_look`)
    closer: CloserLook | None = None
    closer_rule: CloserRule = field(default_factory=CloserRule)


def record(
    folder: Path,
    split: str,
    *,
    model: str | None = None,
    namer: Namer,
    threads: int | None = None,
    limit: int | None = None,
    progress: bool = False,
) -> list[Recorded]:
    """Read every photo of the split the product's way and keep what naming it again needs."""
    from hupai.evaluation import dataset_class_map, find_samples, load_truth
    from hupai.vision.detector import Detector
    from hupai.vision.photo_read import read_photo_file

    detector = Detector(model, threads=threads)
    class_map, _ = dataset_class_map(folder, split)
    samples = find_samples(folder, split)[:limit]
    out: list[Recorded] = []
    kept: dict[str, Any] = {}

    def read(image: NDArray[np.uint8]) -> Reading:
        found = find_tiles(detector, image, finder=True)
        views = namer.view_logits(image, found.det.xyxy, found.to_image)
        look = room_look(namer, image, found.to_image)
        closer = namer.closer_look(image, found.det.xyxy, found.to_image)
        kept.update(image=image, found=found, views=views, look=look, closer=closer)
        m = namer.manifest
        return _named(
            image, found, views, m.temperature, 0.0, "<photo>", m.more_views_below, look,
            closer, m.closer_rule,
        )  # fmt: skip

    for k, sample in enumerate(samples):
        _, reading = read_photo_file(sample.image, read)
        size = (reading.width, reading.height)
        truth = load_truth(sample, size[0], size[1], class_map)
        out.append(
            Recorded(
                sample.image.name,
                kept["image"],
                kept["found"],
                kept["views"],
                size,
                truth,
                namer.manifest.more_views_below,
                kept["look"],
                kept["closer"],
                namer.manifest.closer_rule,
            )
        )
        if progress and ((k + 1) % 50 == 0 or k + 1 == len(samples)):
            print(f"{k + 1}/{len(samples)} photos read", flush=True)
    return out


def _named(
    image: NDArray[np.uint8],
    found: FoundTiles,
    views: NDArray[np.float32],
    temperature: float,
    check_below: float,
    source: str,
    more_views_below: float | None = None,
    look: RoomLook | None = None,
    closer: CloserLook | None = None,
    rule: CloserRule | None = None,
) -> Reading:
    probs = names_of_views(views, temperature, more_views_below).probs
    probs = with_closer_look(probs, closer, rule or CloserRule())
    grounds = face_grounds(image, found.det.xyxy, found.to_image)
    named = tiles_of_names(probs, found.det, check_below, grounds=grounds)
    # (the product reads a gap's tile too, read_in_rooms; a photo that changes is doubted
    # either way — `gap` or `tile_in_room` — so what is confident, calibrated here, is the same)
    return read_found(image, found, named, source=source, look=look)


def replay(rec: Recorded, temperature: float, check_below: float = 0.0) -> Reading:
    """The photo read again from what was kept, its names at ``temperature`` (photo pixels)."""
    from hupai.vision.photo_read import in_photo_pixels

    reading = _named(
        rec.image,
        rec.found,
        rec.views,
        temperature,
        check_below,
        rec.source,
        rec.more_views_below,
        rec.look,
        rec.closer,
        rec.closer_rule,
    )
    return in_photo_pixels(reading, rec.size)


def exact(reading: Reading, truth: Detections) -> bool:
    """Every labelled tile read, with its name, and nothing else (as ``hupai eval`` counts)."""
    return Counter(reading.detections.class_id.tolist()) == Counter(truth.class_id.tolist())


def matched_names(rec: Recorded) -> tuple[NDArray[np.float32], NDArray[np.int64]]:
    """The logits ``(views, m, classes)`` of the read boxes that lie on a labelled tile (IoU ≥
    :data:`MATCH_IOU`, one to one, best first: :func:`hupai.vision.metrics.match_pairs`) and their
    labels."""
    from hupai.vision.detections import photo_boxes

    xyxy = photo_boxes(rec.found.det.xyxy, rec.found.to_image)
    if not len(xyxy) or not len(rec.truth):
        return rec.views[:, :0], np.zeros(0, np.int64)
    scale = np.array([rec.size[0] / rec.image.shape[1], rec.size[1] / rec.image.shape[0]] * 2)
    pairs = match_pairs(xyxy * scale, rec.truth.xyxy, MATCH_IOU)
    boxes = [box for _, box in pairs]
    labels = [int(rec.truth.class_id[truth]) for truth, _ in pairs]
    return rec.views[:, boxes], np.asarray(labels, np.int64)


def nll(
    views: NDArray[np.float32],
    labels: NDArray[np.int64],
    temperature: float,
    more_views_below: float | None = None,
) -> float:
    """Mean negative log-likelihood of ``labels`` among the names (not-a-tile left out, as a
    kept box's names are) at ``temperature``, the views combined as the namer combines them.

    >>> v = np.zeros((1, 2, 44), np.float32); v[0, :, 0] = 4.0
    >>> nll(v, np.array([0, 0]), 1.0) < nll(v, np.array([0, 0]), 2.0)
    True
    """
    if not len(labels):
        return 0.0
    probs = names_of_views(views, temperature, more_views_below).probs
    probs[:, REJECT] = 0.0
    probs /= probs.sum(axis=1, keepdims=True)
    return float(-np.mean(np.log(np.maximum(probs[np.arange(len(labels)), labels], 1e-12))))


def fit_temperature(
    recorded: Sequence[Recorded], temperatures: Sequence[float] = TEMPERATURES
) -> tuple[float, dict[float, float]]:
    """The temperature of :data:`TEMPERATURES` with the least NLL over every matched box, and
    the NLL at each."""
    parts = [matched_names(r) for r in recorded]
    views = np.concatenate([v for v, _ in parts], axis=1)
    labels = np.concatenate([lab for _, lab in parts])
    below = recorded[0].more_views_below if recorded else None
    losses = {t: nll(views, labels, t, below) for t in temperatures}
    return min(losses, key=lambda t: losses[t]), losses


@dataclass(frozen=True)
class Point:
    """One row of the curve."""

    threshold: float
    share: float
    exact: float | None
    confident: int


def curve(
    rows: Sequence[tuple[bool, float, bool]], thresholds: Sequence[float] = THRESHOLDS
) -> list[Point]:
    """Per threshold: the share of photos confident and how many of those are exact. ``rows``:
    per photo, (confident but for the name threshold, weakest name, read exactly).

    >>> [(p.share, p.exact) for p in curve([(True, 0.95, True), (True, 0.7, False)], (0.5, 0.9))]
    [(1.0, 0.5), (0.5, 1.0)]
    """
    out = []
    for t in thresholds:
        sure = [ok for could, weakest, ok in rows if could and weakest >= t]
        share = len(sure) / len(rows) if rows else 0.0
        out.append(Point(t, share, sum(sure) / len(sure) if sure else None, len(sure)))
    return out


def curve_rows(recorded: Sequence[Recorded], temperature: float) -> list[tuple[bool, float, bool]]:
    """Each photo read again at ``temperature``: (confident but for the name threshold,
    weakest name, read exactly)."""
    rows = []
    for rec in recorded:
        reading = replay(rec, temperature)
        det = reading.detections
        weakest = float(det.confidence.min()) if len(det) else 0.0
        rows.append((reading.confident, weakest, exact(reading, rec.truth)))
    return rows


def choose(
    points: Sequence[Point],
    tolerance: float | None = TOLERANCE,
    min_share: float = MIN_SHARE,
    incumbent: float | None = None,
) -> Point:
    """The threshold in use (``incumbent``) while its confident photos' exact share is within
    ``tolerance`` (None: one binomial standard error of the best point's share) of the best
    among the thresholds that trust at least ``min_share`` of the photos; else the lowest
    threshold that is (none trusts that many: the lowest threshold). Val's curve is flat within
    its label noise: a threshold moves only on evidence beyond it.

    >>> pts = [Point(0.5, 0.8, 0.85, 160), Point(0.8, 0.7, 0.88, 140),
    ...        Point(0.9, 0.6, 0.90, 120), Point(0.99, 0.1, 1.0, 20)]
    >>> choose(pts).threshold  # 0.88 lies within one standard error (0.027) of 0.90
    0.8
    >>> choose(pts, tolerance=0.005).threshold
    0.9
    >>> choose(pts, incumbent=0.9).threshold, choose(pts, incumbent=0.5).threshold
    (0.9, 0.8)
    """
    wide = [p for p in points if p.share >= min_share and p.exact is not None]
    if not wide:
        return points[0]
    top = max(wide, key=lambda p: p.exact if p.exact is not None else -1.0)
    best = top.exact if top.exact is not None else 0.0
    if tolerance is None:
        tolerance = math.sqrt(best * (1 - best) / max(top.confident, 1))
    near = [p for p in wide if p.exact is not None and p.exact >= best - tolerance]
    kept = [p for p in near if incumbent is not None and abs(p.threshold - incumbent) < 1e-9]
    return kept[0] if kept else near[0]


@dataclass(frozen=True)
class Calibration:
    temperature: float
    check_below: float
    losses: dict[float, float]
    points: list[Point]
    peer: list[Point]  # the curve at temperature 1 (the namer as trained)
    photos: int
    boxes: int

    def manifest_block(self, chosen_on: str, finder: str) -> dict[str, Any]:
        return {
            "temperature": self.temperature,
            "check_below": self.check_below,
            "chosen_on": chosen_on,
            "finder": finder,
            "recipe": "hupai train calibrate (re-run whenever the finder or the namer changes)",
            "nll": {
                "at_1": round(self.losses.get(1.0, float("nan")), 4),
                "fitted": round(self.losses[self.temperature], 4),
                "boxes": self.boxes,
            },
            "curve": [
                {
                    "check_below": p.threshold,
                    "share": round(p.share, 4),
                    "exact": None if p.exact is None else round(p.exact, 4),
                }
                for p in self.points
            ],
        }


def calibrate(
    recorded: Sequence[Recorded],
    *,
    tolerance: float | None = TOLERANCE,
    min_share: float = MIN_SHARE,
    temperature: float | None = None,
    incumbent: float | None = None,
) -> Calibration:
    """Fit the temperature (or take ``temperature``), read every photo again at it and choose
    the threshold on the curve."""
    fitted, losses = fit_temperature(recorded)
    t = fitted if temperature is None else temperature
    points = curve(curve_rows(recorded, t))
    peer = points if t == 1.0 else curve(curve_rows(recorded, 1.0))
    boxes = sum(len(matched_names(r)[1]) for r in recorded)
    chosen = choose(points, tolerance, min_share, incumbent).threshold
    return Calibration(t, chosen, losses, points, peer, len(recorded), boxes)


def write_manifest(namer_path: Path, block: dict[str, Any]) -> Path:
    """Put ``block`` as ``calibration`` into the namer's manifest (``x.onnx`` → ``x.json``),
    everything else kept as it was."""
    path = namer_path.with_suffix(".json")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["calibration"] = block
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def report(cal: Calibration) -> str:
    """The curve as a table (and the namer as trained beside it)."""
    lines = [
        f"{cal.photos} photos, {cal.boxes} read boxes on labelled tiles; "
        f"NLL at T=1 {cal.losses.get(1.0, float('nan')):.4f}, "
        f"at T={cal.temperature} {cal.losses[cal.temperature]:.4f}",
        f"{'check_below':>11s} {'share':>7s} {'exact':>7s} {'share@T=1':>10s} {'exact@T=1':>10s}",
    ]
    for p, q in zip(cal.points, cal.peer, strict=True):
        mark = "  <- chosen" if p.threshold == cal.check_below else ""
        lines.append(
            f"{p.threshold:11.2f} {p.share:7.3f} {_pct(p.exact):>7s} {q.share:10.3f} "
            f"{_pct(q.exact):>10s}{mark}"
        )
    return "\n".join(lines)


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"


def timestamp() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())
