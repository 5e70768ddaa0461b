"""``hupai eval``: measure reading on a YOLO-format folder through the product's own path.

Two stages are measured apart: the finder's boxes (class-agnostic recall and precision at
IoU 0.5), the tiles the namer kept (found tiles) and their names (top-1/2/3), per class and
per tile size; then end to end: tile precision/recall (right place and right name), the
photo exact-read rate, confusions. Everything comes from what the product reads
(:func:`hupai.vision.reading.read_image`, which may zoom or level the photo). mAP: from the
detector's single-pass output at a near-zero confidence when the detector names the tiles
itself, else from the read tiles ranked by the namer's probability.

The dataset's classes are read by name (``data.yaml`` or ``classes.txt`` beside the images
or in the dataset root; hupai's notation or the Roboflow set's codes); a name hupai does not
know is an error that lists it. A folder with no names file is read in hupai's order, with a
warning.

:func:`run_crops` measures the namer alone on a folder of single-tile photos with a
``labels.csv`` (``image,tile``), such as ``../shared/data/camerash-tiles``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hupai.vision.classes import CLASS_NAMES
from hupai.vision.detections import Detections
from hupai.vision.metrics import SIZE_BINS, Report, StageReport, evaluate

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


def load_truth(
    sample: Sample, width: int, height: int, class_map: Sequence[int] | None = None
) -> Detections:
    """The photo's labelled boxes in pixels, classes mapped to hupai's by ``class_map``
    (dataset class id → hupai class id)."""
    from hupai.datasets.labels import load_yolo_labels

    boxes = load_yolo_labels(sample.labels) if sample.labels.exists() else []
    scale = np.array([width, height, width, height], dtype=np.float64)
    xyxy = np.array([b.xyxy for b in boxes], dtype=np.float64).reshape(-1, 4) * scale
    classes = [b.cls for b in boxes]
    if class_map is not None:
        unknown = sorted({c for c in classes if c >= len(class_map)})
        if unknown:
            raise DatasetError(
                f"{sample.labels}: class ids {unknown} are beyond the dataset's "
                f"{len(class_map)} class names"
            )
        classes = [class_map[c] for c in classes]
    return Detections.make(xyxy, classes)


def dataset_class_map(folder: Path, split: str | None = None) -> tuple[list[int] | None, str]:
    """(dataset class id → hupai class id, a note for the report). None: hupai's own order."""
    from hupai.datasets.labels import LabelError
    from hupai.datasets.names import class_map, find_names_file, read_names

    folder = folder.resolve()
    images_dir = _images_dir(folder, split) if folder.is_dir() else folder
    source = find_names_file(images_dir, folder)
    if source is None:
        return None, "warning: no data.yaml or classes.txt; class ids read in hupai's order"
    try:
        ids = class_map(read_names(source), str(source))
    except LabelError as exc:
        raise DatasetError(str(exc)) from None
    same = ids == list(range(len(ids)))
    return ids, f"classes by name from {source}" + ("" if same else " (reordered to hupai's)")


def _boxes(det: Detections) -> Detections:
    return det


@dataclass(frozen=True)
class Evaluation:
    model: str
    folder: str
    report: Report
    ms_per_photo: float
    classes: tuple[int, ...] | None
    stages: StageReport | None = None
    namer: str | None = None
    class_note: str = ""
    #: per photo: image, exact, confident, the least sure name and box, the doubting warnings
    photos: tuple[dict[str, Any], ...] = ()
    #: with ``review``: every box where the reading and the labels disagree, with its crop
    #: (:mod:`hupai.disagreements`)
    review: tuple[tuple[Any, Any], ...] = ()

    @property
    def confident_share(self) -> float:
        return sum(p["confident"] for p in self.photos) / len(self.photos) if self.photos else 0.0

    @property
    def confident_exact(self) -> float | None:
        """Of the photos read as confident, the share read exactly (None: none confident)."""
        sure = [p["exact"] for p in self.photos if p["confident"]]
        return sum(sure) / len(sure) if sure else None


def run(
    folder: Path,
    *,
    model: str | None = None,
    namer: str | None = None,
    use_namer: bool = True,
    split: str | None = None,
    conf: float = 0.25,
    threads: int | None = None,
    classes: Sequence[int] | None = None,
    limit: int | None = None,
    progress: bool = False,
    review: bool = False,
) -> Evaluation:
    """Read every photo of a YOLO folder and measure. ``namer``: its file (default: the
    shipped namer when there is one; ``use_namer=False`` measures the detector alone);
    ``review``: keep every box where the reading and the labels disagree, with its crop."""
    from hupai.vision.detector import Detector
    from hupai.vision.namer import Namer
    from hupai.vision.reading import default_namer, read_photo_image

    samples = find_samples(folder, split)[:limit]
    class_map, class_note = dataset_class_map(folder, split)
    detector = Detector(model, threads=threads, conf=conf)
    the_namer: Namer | None = None
    if use_namer:
        the_namer = Namer(namer, threads=threads) if namer else default_namer(threads)
    ranked, read, truths = [], [], []
    photos: list[dict[str, Any]] = []
    found: list[tuple[Any, Any]] = []
    stages = StageReport()
    seconds = 0.0
    for i, sample in enumerate(samples):
        began = time.perf_counter()  # decode and read, the way every command reads a photo
        image, reading = read_photo_image(sample.image, detector=detector, namer=the_namer)
        seconds += time.perf_counter() - began
        w, h = reading.width, reading.height  # the photo's own pixels, as the reading's boxes
        truth = load_truth(sample, w, h, class_map)
        truths.append(truth)
        if the_namer is None:
            ranked.append(_boxes(detector.detect(image, conf=MAP_CONF).scaled(w / image.shape[1])))
        read.append(_boxes(reading.detections))
        if the_namer is not None:
            ranked.append(read[-1])
        stages.add(truth, reading.extra["found_xyxy"], read[-1], reading.alternatives)
        photos.append(_photo_row(sample, truth, reading))
        if review:
            found += _disagreements(folder, sample, truth, reading, image)
        if progress:
            print(f"\r{i + 1}/{len(samples)} photos", end="", flush=True)
    if progress:
        print()
    mapped = evaluate(ranked, truths, MAP_CONF, classes)
    product = evaluate(read, truths, conf if the_namer is None else 0.0, classes)
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
        stages=stages,
        namer=None if the_namer is None else str(the_namer.path),
        class_note=class_note,
        photos=tuple(photos),
        review=tuple(found),
    )


def _disagreements(
    folder: Path, sample: Sample, truth: Detections, reading: Any, image: Any
) -> list[tuple[Any, Any]]:
    """One photo's disagreements (:mod:`hupai.disagreements`), each with its crop."""
    from hupai.disagreements import crop, label_lines, photo_disagreements

    lines = label_lines(sample.labels)
    if len(lines) != len(truth):  # (load_truth reads the same lines: never, but say so)
        raise DatasetError(f"{sample.labels}: {len(lines)} lines for {len(truth)} boxes")
    root = folder if folder.is_dir() else folder.parent
    names = [str(_relative(p, root)) for p in (sample.image, sample.labels)]
    found = photo_disagreements(truth, reading.detections, lines, *names)
    scale = image.shape[1] / max(reading.width, 1)  # the photo may be decoded smaller
    return [(d, crop(image, _scaled(d, scale))) for d in found]


def _relative(path: Path, root: Path) -> Path:
    try:
        return path.resolve().relative_to(root.resolve())
    except ValueError:
        return path


def _scaled(d: Any, scale: float) -> Any:
    from dataclasses import replace

    return replace(d, box=tuple(v * scale for v in d.box))


def _photo_row(sample: Sample, truth: Detections, reading: Any) -> dict[str, Any]:
    """What ``confident`` is judged on, per photo (thresholds are chosen from these rows)."""
    from collections import Counter

    from hupai.vision.checks import DOUBTS

    det = reading.detections
    boxes = reading.extra["frame"].get("box_confidence")
    return {
        "image": sample.image.name,
        "exact": Counter(det.class_id.tolist()) == Counter(truth.class_id.tolist()),
        "confident": bool(reading.confident),
        "min_name_p": round(float(det.confidence.min()), 4) if len(det) else None,
        "min_box_p": round(float(np.min(boxes)), 4) if boxes is not None and len(boxes) else None,
        "doubts": sorted({w.code for w in reading.warnings if w.code in DOUBTS}),
    }


@dataclass(frozen=True)
class CropEvaluation:
    namer: str
    folder: str
    n: int
    accuracy: float
    top2: float
    top3: float
    per_class: dict[int, tuple[int, int]]  # class → (photos, named right)
    confusions: list[tuple[int, int, int]]
    ms_per_crop: float


def run_crops(
    folder: Path, *, namer: str | None = None, threads: int | None = None
) -> CropEvaluation:
    """The namer alone on single-tile photos: each photo is one box (the whole photo),
    named among the tiles (``reject`` is not an answer here). ``labels.csv``: image,tile."""
    import csv
    from collections import Counter

    from hupai.datasets.corrections import CorrectionsError, corrected_tile, photo_corrections
    from hupai.datasets.names import hupai_class
    from hupai.vision.detector import ImageError, load_image
    from hupai.vision.namer import REJECT, Namer, crop_box

    labels = folder / "labels.csv"
    if not labels.is_file():
        raise DatasetError(f"{folder}: no labels.csv (image,tile) in it")
    the_namer = Namer(namer, threads=threads)
    images_dir = folder / "images" if (folder / "images").is_dir() else folder
    fixes = photo_corrections(labels)  # label errors checked by eye, for this very file
    rows = []
    with labels.open(newline="", encoding="utf-8") as f:
        for k, row in enumerate(csv.DictReader(f), start=2):
            try:
                tile = corrected_tile(fixes, str(row.get("image", "")), str(row.get("tile", "")))
            except CorrectionsError as exc:
                raise DatasetError(f"{labels}:{k}: {exc}") from None
            cls = hupai_class(tile)
            if cls is None or not row.get("image"):
                raise DatasetError(f"{labels}:{k}: '{row.get('tile')}' is not a tile name")
            rows.append((images_dir / str(row["image"]), cls))
    size = the_namer.manifest.input_size
    images, truth = [], []
    for path, cls in rows:
        try:
            images.append(load_image(path))
        except ImageError as exc:
            raise DatasetError(str(exc)) from None
        truth.append(cls)

    def closer(
        side: int, margin: float, rows: Sequence[int] | NDArray[np.int64]
    ) -> NDArray[np.uint8]:
        """Each photo of ``rows`` is one box: the whole photo, cut at ``side`` px."""
        return np.stack(
            [crop_box(images[r], np.array([0.0, 0.0, images[r].shape[1], images[r].shape[0]]),
                      side, margin) for r in rows]
        )  # fmt: skip

    every = range(len(images))
    views = the_namer.manifest.views
    crops = {margin: closer(size, margin, every) for margin in views} if images else {}
    began = time.perf_counter()  # naming only, as the reader's namer time
    names = (
        the_namer.name_views(
            lambda m, rows: crops[m] if rows is None else crops[m][rows],
            closer,
            np.array([max(img.shape[:2]) for img in images], np.float64),  # a photo a tile
        )
        if images
        else None
    )
    seconds = time.perf_counter() - began
    y = np.asarray(truth, np.int64)
    probs = names.probs.copy() if names is not None else np.zeros((0, REJECT + 1))
    probs[:, REJECT] = 0.0
    top = np.argsort(-probs, axis=1)[:, :3]
    per_class: dict[int, tuple[int, int]] = {}
    for c in sorted(set(truth)):
        sel = y == c
        per_class[c] = (int(sel.sum()), int((top[sel, 0] == c).sum()))
    wrong = Counter((int(a), int(b)) for a, b in zip(y, top[:, 0], strict=True) if a != b)
    return CropEvaluation(
        namer=str(the_namer.path),
        folder=str(folder),
        n=len(y),
        accuracy=float((top[:, 0] == y).mean()) if len(y) else 0.0,
        top2=float((top[:, :2] == y[:, None]).any(1).mean()) if len(y) else 0.0,
        top3=float((top == y[:, None]).any(1).mean()) if len(y) else 0.0,
        per_class=per_class,
        confusions=[(a, b, n) for (a, b), n in wrong.most_common()],
        ms_per_crop=1000 * seconds / max(len(y), 1),
    )


def crops_to_dict(e: CropEvaluation) -> dict[str, Any]:
    return {
        "namer": e.namer,
        "folder": e.folder,
        "tiles": e.n,
        "accuracy": round(e.accuracy, 4),
        "top2": round(e.top2, 4),
        "top3": round(e.top3, 4),
        "ms_per_crop": round(e.ms_per_crop, 3),
        "per_class": {CLASS_NAMES[c]: {"n": n, "right": r} for c, (n, r) in e.per_class.items()},
        "confusions": [
            {"truth": CLASS_NAMES[a], "read_as": CLASS_NAMES[b], "count": n}
            for a, b, n in e.confusions
        ],
    }


def format_crops(e: CropEvaluation, top: int = 12) -> Iterator[str]:
    flowers = [v for c, v in e.per_class.items() if 34 <= c < 42]
    tiles = [v for c, v in e.per_class.items() if c < 34]
    yield f"namer   {e.namer}"
    yield f"folder  {e.folder}  ({e.n} single-tile photos)"
    yield f"named right {e.accuracy:.2%}   top-2 {e.top2:.2%}   top-3 {e.top3:.2%}"
    if tiles:
        yield f"  34 kinds: {sum(r for _, r in tiles)}/{sum(n for n, _ in tiles)}"
    if flowers:
        yield f"  flowers:  {sum(r for _, r in flowers)}/{sum(n for n, _ in flowers)}"
    yield f"namer {e.ms_per_crop:.2f} ms a crop (batched)"
    if e.confusions:
        yield "most confused (truth → read as: count):"
        for a, b, n in e.confusions[:top]:
            yield f"  {CLASS_NAMES[a]} → {CLASS_NAMES[b]}: {n}"


def to_dict(evaluation: Evaluation) -> dict[str, Any]:
    r = evaluation.report
    stages = evaluation.stages
    return {
        "model": evaluation.model,
        "namer": evaluation.namer,
        "classes": evaluation.class_note,
        "stages": None if stages is None else {k: round(v, 4) for k, v in stages.figures().items()},
        "per_size": None if stages is None else _size_rows(stages),
        "folder": evaluation.folder,
        "photos": r.photos,
        "per_photo": list(evaluation.photos),
        "map50": round(r.map50, 4),
        "map50_95": round(r.map50_95, 4),
        "precision": round(r.precision, 4),
        "recall": round(r.recall, 4),
        "exact_read": round(r.exact_read, 4),
        "confident_share": round(evaluation.confident_share, 4),
        "confident_exact": None
        if evaluation.confident_exact is None
        else round(evaluation.confident_exact, 4),
        "conf": r.conf_threshold,
        "read_ms_per_photo": round(evaluation.ms_per_photo, 1),
        "per_class": {
            CLASS_NAMES[c]: {
                "ap50": round(r.per_class_ap50[c], 4),
                "ap50_95": round(r.per_class_ap50_95[c], 4),
                "boxes": n,
                **(
                    {"found": stages.per_class[c][1], "named": stages.per_class[c][2]}
                    if stages is not None and c in stages.per_class
                    else {}
                ),
            }
            for c, n in r.per_class_truth.items()
        },
        "confusions": [
            {"truth": CLASS_NAMES[a], "read_as": CLASS_NAMES[b], "count": n}
            for a, b, n in r.confusions
        ],
    }


def _size_rows(stages: StageReport) -> list[dict[str, Any]]:
    rows = []
    for b, (n, found, named) in sorted(stages.per_size.items()):
        lo, hi = SIZE_BINS[b], SIZE_BINS[b + 1]
        rows.append(
            {
                "px": f"{lo}-{hi}" if hi < SIZE_BINS[-1] else f"{lo}+",
                "tiles": n,
                "found": round(found / n, 4) if n else None,
                "named": round(named / found, 4) if found else None,
            }
        )
    return rows


def format_report(evaluation: Evaluation, top: int = 10) -> Iterator[str]:
    r = evaluation.report
    yield f"model   {evaluation.model}"
    if evaluation.namer:
        yield f"namer   {evaluation.namer}"
    yield f"folder  {evaluation.folder}  ({r.photos} photos)"
    if evaluation.class_note:
        yield evaluation.class_note
    stages = evaluation.stages
    if stages is not None:
        f = stages.figures()
        yield (
            f"finder: recall {f['finder_recall']:.4f}  precision {f['finder_precision']:.4f}"
            f"   ({stages.finder_hits}/{stages.truth} tiles, {stages.finder_boxes} boxes)"
        )
        yield (
            f"found (kept by the namer): recall {f['found_recall']:.4f}  "
            f"precision {f['found_precision']:.4f}"
        )
        yield (
            f"namer on found tiles: {f['namer_accuracy']:.4f}  top-2 {f['namer_top2']:.4f}  "
            f"top-3 {f['namer_top3']:.4f}"
        )
        yield "by tile size (longer side, px): tiles, found, named right"
        for size_row in _size_rows(stages):
            yield (
                f"  {size_row['px']:>8}: {size_row['tiles']:5d}  {size_row['found']}  "
                f"{size_row['named']}"
            )
    yield f"mAP50 {r.map50:.4f}   mAP50-95 {r.map50_95:.4f}"
    yield (f"tiles found and named right: precision {r.precision:.4f}  recall {r.recall:.4f}")
    yield f"photo exact-read {r.exact_read:.1%}   read {evaluation.ms_per_photo:.1f} ms/photo"
    sure = evaluation.confident_exact
    yield (
        f"confident photos {evaluation.confident_share:.1%}, of them read exactly "
        + ("—" if sure is None else f"{sure:.1%}")
    )
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
