"""Reading one photo (in a worker): what the manifest keeps, and the reading rebuilt from it
without the model.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import numpy as np

from hupai.labeling.options import CELL
from hupai.labeling.store import sha256_bytes
from hupai.vision.checks import CHECK_BELOW
from hupai.vision.detections import Detections
from hupai.vision.detector import Detector
from hupai.vision.namer import Namer
from hupai.vision.reading import NamedTiles, Reading, build_reading


def _floats(a: Any) -> Any:
    return np.asarray(a, dtype=np.float64).tolist()


def label_photo(
    detector: Detector,
    rel: str,
    path: Path,
    *,
    namer: Namer | None = None,
    previews: bool = False,
    data: bytes | None = None,
) -> dict[str, Any]:
    """Read one photo the way every command reads (:mod:`hupai.vision.photo_read`: a reduced
    decode first): what the manifest keeps (the detections in the frame the layout ran in,
    with the affine back to the photo's own pixels) and, with ``previews``, a JPEG thumbnail
    of the annotated photo. Never raises for a bad photo: ``{"ok": False, "error": …}``."""
    from hupai.vision.images import ImageError, photo_bytes
    from hupai.vision.reading import read_photo_image

    began = time.perf_counter()
    try:
        if data is None:
            data = photo_bytes(path)
        image, reading = read_photo_image(data, detector=detector, namer=namer, source=rel)
    except (ImageError, OSError) as exc:
        return {"rel": rel, "ok": False, "error": _error_text(exc, path, rel)}
    except Exception as exc:  # a photo that trips the pipeline must not stop the run
        return {
            "rel": rel,
            "ok": False,
            "error": f"{rel}: cannot be read ({type(exc).__name__}: {exc})",
        }
    frame = reading.extra["frame"]
    det = reading.detections  # names and scores as in the frame, one row per tile
    out: dict[str, Any] = {
        "rel": rel,
        "ok": True,
        "sha256": sha256_bytes(data),
        "width": int(reading.width),
        "height": int(reading.height),
        "frame": {
            "xyxy": _floats(frame["xyxy"]),
            "confidence": _floats(det.confidence),
            "class_id": [int(c) for c in det.class_id],
        },
        "to_image": _floats(frame["to_image"]),
        "angle": float(frame["angle"] or 0.0),
        # the tiles' boxes in the photo: a turned row's are the first look's, which the
        # frame's boxes alone cannot give back
        "photo_xyxy": _floats(det.xyxy),
        "passes": list(reading.passes),
        # judged on the photo's pixels (and by the namer): the boxes alone cannot judge again
        "gaps": _floats(reading.gaps),
    }
    if reading.alternatives is not None and reading.alternative_probs is not None:
        out["frame"]["alternatives"] = reading.alternatives.tolist()
        out["frame"]["alternative_probs"] = _floats(reading.alternative_probs)
        if frame.get("box_confidence") is not None:  # the finder's own doubt, for `confident`
            out["frame"]["box_confidence"] = _floats(frame["box_confidence"])
        if frame.get("check_below") is not None:  # the namer's calibrated name threshold
            out["frame"]["check_below"] = float(frame["check_below"])
        if frame.get("reject") is not None:  # "not a tile" (clutter, with box_confidence)
            out["frame"]["reject"] = _floats(frame["reject"])
        if frame.get("in_room") is not None:  # tiles read in a row's room, to be checked
            out["frame"]["in_room"] = [int(i) for i in np.nonzero(frame["in_room"])[0]]
        if frame.get("across") is not None:  # tiles a box across two lay across, to be checked
            out["frame"]["across"] = [int(i) for i in np.nonzero(frame["across"])[0]]
    out["seconds"] = round(time.perf_counter() - began, 4)
    if previews:
        out["thumb"] = thumbnail(image, reading_of(out, rel))
    return out


def _error_text(exc: Exception, path: Path, rel: str) -> str:
    text = str(exc) if not isinstance(exc, OSError) else f"{path}: {exc.strerror or exc}"
    return text.replace(str(path), rel)


def _per_tile(values: Any, tiles: int, dtype: Any) -> Any:
    """A flat list back to one row per tile (none: ``(0, 0)``; numpy cannot infer a row
    length from an empty list, which stopped a whole batch at a photo without tiles)."""
    flat = np.asarray(values, dtype)
    return flat.reshape(tiles, flat.size // tiles if tiles else 0)


def reading_of(entry: dict[str, Any], rel: str) -> Reading:
    """The reading of a photo rebuilt from its manifest entry (no model needed)."""
    frame = entry["frame"]
    det = Detections.make(frame["xyxy"], frame["class_id"], frame["confidence"])
    names = None
    if "alternatives" in frame:
        alt = _per_tile(frame["alternatives"], len(det), np.int64)
        alt_p = _per_tile(frame["alternative_probs"], len(det), np.float64)
        boxes = frame.get("box_confidence")
        names = NamedTiles(
            det,
            alt,
            alt_p,
            None if boxes is None else np.asarray(boxes),
            float(frame.get("check_below", CHECK_BELOW)),
            None if frame.get("reject") is None else np.asarray(frame["reject"], np.float64),
            in_room=np.isin(np.arange(len(det)), frame.get("in_room", [])),
            across=np.isin(np.arange(len(det)), frame.get("across", [])),
        )
    gaps = entry.get("gaps")  # absent from manifests written before: the boxes alone judge
    photo = entry.get("photo_xyxy")  # absent before: the envelopes of the turned boxes
    reading = build_reading(
        det,
        np.asarray(entry["to_image"], dtype=np.float64),
        float(entry["angle"]),
        (int(entry["width"]), int(entry["height"])),
        source=rel,
        names=names,
        gaps=None if gaps is None else np.asarray(gaps, np.float64).reshape(-1, 4),
        photo_xyxy=None if photo is None else np.asarray(photo, np.float64).reshape(-1, 4),
    )
    return dataclasses.replace(
        reading, passes=tuple(entry.get("passes", ())), seconds=float(entry.get("seconds", 0.0))
    )


def thumbnail(image: Any, reading: Reading) -> bytes:
    """The annotated photo fitted in a contact-sheet cell, as JPEG bytes."""
    import cv2

    from hupai.vision.annotate import annotate

    drawn = annotate(image, reading)
    h, w = drawn.shape[:2]
    scale = min(CELL[0] / w, CELL[1] / h, 1.0)
    small = cv2.resize(
        drawn, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA
    )
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return bytes(buf.tobytes())
