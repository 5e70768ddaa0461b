"""The detection passes of a photo (:func:`detect_photo`): a first look; windows where a
large photo shows nothing at first; a shrunken look where tiles are too large for the model;
and, when the tiles are small in the model's input or their rows tilted, a look at a warped
crop of the tiles' region turned level and zoomed so that a tile spans about
:data:`TARGET_TILE_PX` model pixels.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hupai.vision.deadline import check_deadline
from hupai.vision.detections import Detections, box_corners, invert_affine
from hupai.vision.detector import Detector, Image, merge_boxes
from hupai.vision.layout import row_angle

#: Zoom so that a tile's side spans about this many model-input pixels (the real training
#: photos' tiles are 60-80 px at 640).
TARGET_TILE_PX = 64.0
#: Redo detection on a level crop when rows tilt between these angles (degrees), or when the
#: zoomed crop would make tiles at least ZOOM_GAIN times larger. Measured on the 296 real val
#: photos (bench/passes.py): a quarter-turned photo (80-90°) gained nothing from the level look
#: (2 fixed, 1 broken of 41), nor did zoom gains of 1.3-1.4 (3 run, none changed); this runs the
#: second pass on about 16 % of photos instead of 35 %, exact-read about unchanged.
LEVEL_ABOVE_DEG = 8.0
LEVEL_BELOW_DEG = 80.0
ZOOM_GAIN = 1.5
#: With a namer the detector only finds: it keeps boxes down to this score (the namer
#: drops what is not a tile), so a tile the detector was unsure of is still read. A finder's
#: manifest may give its own (``finder_conf``).
FINDER_CONF = 0.1
#: The windowed search of a large photo uses at most this many windows along a side (so a
#: blank 7000×7000 photo costs a bounded number of passes).
WINDOWS_PER_SIDE = 4
#: A photo whose thumbnail varies less than this (grey levels, standard deviation of the
#: local contrast) shows nothing to find: no windowed search.
FEATURELESS_BELOW = 1.5
#: The first look also keeps the boxes scored from this up to its cut, as **doubtful** ones:
#: not read, but where they are small a larger decode may show tiles (measured with
#: ``bench/read.py --sweep``: a hand spanning 2-5 % of a 12-MP photo's side decoded at 1/2
#: scores 0.05-0.34 and no more; a blank photo or a tiny file claiming 7000 px, none).
DOUBTFUL_FROM = 0.05


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


def _tile_side(det: Detections) -> float:
    return float(np.median(np.sqrt(np.maximum(det.area, 1.0)))) if len(det) else 0.0


def detect_photo(
    detector: Detector,
    image: Image,
    *,
    finder: bool = False,
    doubtful: list[Detections] | None = None,
    first_look: list[Detections] | None = None,
) -> tuple[Detections, NDArray[np.float64], float, list[str]]:
    """Detect with the passes the photo needs; returns (detections in the final frame,
    frame → photo affine, the angle the layout should use, pass names). ``finder``: one
    box per tile whatever its class, down to :data:`FINDER_CONF` (a namer names them).
    ``doubtful``: where given, the first look's boxes scored from :data:`DOUBTFUL_FROM` up to
    the cut (in the photo) are appended to it (from the same model runs: no extra cost).
    ``first_look``: where given and a level look replaces the first, the first look's boxes
    (in the photo) are appended to it: in the photo's own axes, they box a turned row's
    tiles as labels do, where the level look's boxes turned back may cover neighbours
    (:func:`~hupai.vision.detections.first_look_boxes`)."""
    h, w = image.shape[:2]
    model_side = max(detector.input_size)
    identity = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    conf = getattr(detector.manifest, "finder_conf", None) or FINDER_CONF
    look: dict[str, Any] = {"agnostic": True, "conf": conf} if finder else {}
    cut = conf if finder else getattr(detector, "conf", None)  # (a stand-in may have none)
    low = look if cut is None else {**look, "conf": min(cut, DOUBTFUL_FROM)}

    def first(det: Detections) -> Detections:
        """The first look's boxes from its cut; the doubtful ones below it set aside."""
        if cut is None:
            return det
        if doubtful is not None:
            doubtful.append(det[det.confidence < cut])
        return det.above(cut)

    check_deadline("the first look")
    det = first(detector.detect(image, **low))
    passes = ["full"]
    blank = cache(lambda: featureless(image))  # asked at most once, only when it matters
    if len(det) == 0 and max(h, w) > 1.5 * model_side and not blank():
        # tiles too small for the full pass: look in windows, at most WINDOWS_PER_SIDE a side
        window = max(2 * model_side, math.ceil(max(h, w) / WINDOWS_PER_SIDE))
        check_deadline("the windowed look")
        det = first(detector.detect_tiled(image, window=window, **low))
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
    corners = box_corners(plan.xyxy).reshape(-1, 2) @ rot.T
    lo, hi = corners.min(0) - 1.5 * side, corners.max(0) + 1.5 * side
    span = hi - lo
    zoom = min(model_side / max(span), TARGET_TILE_PX / max(side, 1.0))
    tilted = LEVEL_ABOVE_DEG < abs(angle) < LEVEL_BELOW_DEG
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
    if first_look is not None:
        first_look.append(det)
    return det2, invert_affine(m), 0.0, passes


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
