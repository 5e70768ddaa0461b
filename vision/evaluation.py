"""``hupai eval``: measure a model on a YOLO-format folder through the product's own path.

mAP is computed from the detector's single-pass output at a near-zero confidence (every
candidate ranked, as ultralytics validates); precision, recall, confusions and the photo
exact-read rate from what the product reads (:func:`vision.reading.read_image`, which may
zoom or level the photo) at the product's confidence.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.classes import CLASS_NAMES
from vision.detections import Detections
from vision.metrics import Boxes, Report, evaluate

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}
#: Confidence for ranking candidates in mAP (ultralytics validates at 0.001).
MAP_CONF = 0.001


class DatasetError(ValueError):
    """A folder that is not a YOLO-format dataset; the message names it."""


@dataclass(frozen=True)
class Sample:
    image: Path
    labels: Path


def find_samples(folder: Path, split: str | None = None) -> list[Sample]:
    """Image/label pairs of a YOLO folder.

    Accepts a dataset root with ``images/<split>`` + ``labels/<split>`` (``split`` chooses,
    default ``test`` then ``val``), a root with ``images/`` + ``labels/``, or an images
    folder whose sibling ``labels`` folder mirrors it. An image without a label file has no
    tiles (a negative); a label file without an image is ignored.
    """
    folder = folder.resolve()
    if not folder.is_dir():
        raise DatasetError(f"{folder}: no such folder")
    images_dir = _images_dir(folder, split)
    labels_dir = _labels_for(images_dir)
    images = sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not images:
        raise DatasetError(f"{images_dir}: no images (.jpg, .png, …) in it")
    return [Sample(p, labels_dir / (p.stem + ".txt")) for p in images]


def _images_dir(folder: Path, split: str | None) -> Path:
    if (folder / "images").is_dir():
        root = folder / "images"
        splits = [split] if split else ["test", "val", "valid"]
        for name in splits:
            if (root / name).is_dir():
                return root / name
        if split:
            raise DatasetError(f"{folder}: no images/{split} folder")
        return root
    if split and (folder / split / "images").is_dir():  # Roboflow: <split>/images
        return folder / split / "images"
    return folder


def _labels_for(images_dir: Path) -> Path:
    parts = list(images_dir.parts)
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == "images":
            labels = Path(*parts[:i], "labels", *parts[i + 1 :])
            if labels.is_dir():
                return labels
    raise DatasetError(f"{images_dir}: no labels folder beside it (…/labels mirroring …/images)")


def load_truth(sample: Sample, width: int, height: int) -> Boxes:
    from datasets.labels import load_yolo_labels

    boxes = load_yolo_labels(sample.labels) if sample.labels.exists() else []
    scale = np.array([width, height, width, height], dtype=np.float64)
    xyxy = np.array([b.xyxy for b in boxes], dtype=np.float64).reshape(-1, 4) * scale
    return Boxes.make(xyxy, [b.cls for b in boxes])


def _boxes(det: Detections) -> Boxes:
    return Boxes.make(det.xyxy, det.class_id, det.confidence)


@dataclass(frozen=True)
class Evaluation:
    model: str
    folder: str
    report: Report
    ms_per_photo: float
    classes: tuple[int, ...] | None


def run(
    folder: Path,
    *,
    model: str | None = None,
    split: str | None = None,
    conf: float = 0.25,
    threads: int | None = None,
    classes: Sequence[int] | None = None,
    limit: int | None = None,
    progress: bool = False,
) -> Evaluation:
    from vision.detector import Detector, load_image
    from vision.reading import read_image

    samples = find_samples(folder, split)[:limit]
    detector = Detector(model, threads=threads, conf=conf)
    ranked, read, truths = [], [], []
    seconds = 0.0
    for i, sample in enumerate(samples):
        image = load_image(sample.image)
        h, w = image.shape[:2]
        truths.append(load_truth(sample, w, h))
        ranked.append(_boxes(detector.detect(image, conf=MAP_CONF)))
        began = time.perf_counter()
        reading = read_image(image, detector=detector, source=str(sample.image))
        seconds += time.perf_counter() - began
        read.append(_boxes(reading.detections))
        if progress:
            print(f"\r{i + 1}/{len(samples)} photos", end="", flush=True)
    if progress:
        print()
    mapped = evaluate(ranked, truths, MAP_CONF, classes)
    product = evaluate(read, truths, conf, classes)
    report = Report(
        photos=len(samples),
        map50=mapped.map50,
        map50_95=mapped.map50_95,
        per_class_ap50=mapped.per_class_ap50,
        per_class_ap50_95=mapped.per_class_ap50_95,
        per_class_truth=mapped.per_class_truth,
        precision=product.precision,
        recall=product.recall,
        exact_read=product.exact_read,
        confusions=product.confusions,
        conf_threshold=conf,
    )
    return Evaluation(
        model=str(detector.path),
        folder=str(folder),
        report=report,
        ms_per_photo=1000 * seconds / max(len(samples), 1),
        classes=tuple(classes) if classes is not None else None,
    )


def to_dict(evaluation: Evaluation) -> dict[str, Any]:
    r = evaluation.report
    return {
        "model": evaluation.model,
        "folder": evaluation.folder,
        "photos": r.photos,
        "map50": round(r.map50, 4),
        "map50_95": round(r.map50_95, 4),
        "precision": round(r.precision, 4),
        "recall": round(r.recall, 4),
        "exact_read": round(r.exact_read, 4),
        "conf": r.conf_threshold,
        "read_ms_per_photo": round(evaluation.ms_per_photo, 1),
        "per_class": {
            CLASS_NAMES[c]: {
                "ap50": round(r.per_class_ap50[c], 4),
                "ap50_95": round(r.per_class_ap50_95[c], 4),
                "boxes": n,
            }
            for c, n in r.per_class_truth.items()
        },
        "confusions": [
            {"truth": CLASS_NAMES[a], "read_as": CLASS_NAMES[b], "count": n}
            for a, b, n in r.confusions
        ],
    }


def format_report(evaluation: Evaluation, top: int = 10) -> Iterator[str]:
    r = evaluation.report
    yield f"model   {evaluation.model}"
    yield f"folder  {evaluation.folder}  ({r.photos} photos)"
    yield f"mAP50 {r.map50:.4f}   mAP50-95 {r.map50_95:.4f}"
    yield (
        f"tiles at conf {r.conf_threshold:g}: precision {r.precision:.4f}  recall {r.recall:.4f}"
    )
    yield f"photo exact-read {r.exact_read:.1%}   read {evaluation.ms_per_photo:.1f} ms/photo"
    yield "per-class AP50 / AP50-95 (boxes):"
    row = []
    for c, n in r.per_class_truth.items():
        ap50, ap = r.per_class_ap50[c], r.per_class_ap50_95[c]
        row.append(f"{CLASS_NAMES[c]:>4} {ap50:.3f}/{ap:.3f} ({n})")
        if len(row) == 4:
            yield "  " + "   ".join(row)
            row = []
    if row:
        yield "  " + "   ".join(row)
    if r.confusions:
        yield "most confused (truth → read as: count):"
        for a, b, n in r.confusions[:top]:
            yield f"  {CLASS_NAMES[a]} → {CLASS_NAMES[b]}: {n}"
