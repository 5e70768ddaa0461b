"""Bring corrected labels back: a Label Studio export (JSON, JSON-MIN, YOLO, COCO), a COCO
file or a YOLO folder → hupai's dataset layout, ready for ``hupai train`` and ``hupai eval``.

Classes travel by name (:mod:`hupai.datasets.names`). Of a task, the latest annotation wins over
earlier ones and over predictions; a task nobody annotated is reported, not guessed. When
the model's boxes are known (inline predictions, or the tasks ``hupai label`` wrote), the
report says what the people changed: boxes added (the model missed a tile), removed (a
false tile) and renamed (a misnamed tile), per class.

>>> detect_format(Path("x.json"), [{"data": {"image": "a.jpg"}}])
'labelstudio-json'
>>> detect_format(Path("x.json"), [{"image": "a.jpg", "id": 1, "label": []}])
'labelstudio-min'
>>> photo_candidates("/data/local-files/?d=images/sub/a%20b.jpg")
['images/sub/a b.jpg', 'a b.jpg']
>>> photo_candidates("/data/upload/3/8f3a2b1c-hand.jpg")
['data/upload/3/8f3a2b1c-hand.jpg', '8f3a2b1c-hand.jpg', 'hand.jpg']
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import zipfile
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

from hupai.datasets.coco import coco_items
from hupai.datasets.image_labels import ImageLabels, to_yolo_boxes
from hupai.datasets.labels import LabelBox, LabelError, load_yolo_labels, save_yolo_labels
from hupai.datasets.labelstudio import labelstudio_items
from hupai.datasets.names import class_map, find_names_file, read_names
from hupai.datasets.yolo import data_yaml_text
from hupai.vision.classes import CLASS_NAMES
from hupai.vision.detections import box_iou

FORMATS = ("labelstudio-json", "labelstudio-min", "coco", "yolo")
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}
MATCH_IOU = 0.5
_UPLOAD_PREFIX = re.compile(r"^[0-9a-f]{8}-")


class ImportError_(LabelError):
    """An export that cannot be imported as asked; the message names the file and entry."""


@dataclass
class Changes:
    """What people changed against the model's boxes, per class name."""

    kept: int = 0
    added: Counter[str] = field(default_factory=Counter)
    removed: Counter[str] = field(default_factory=Counter)
    renamed: Counter[tuple[str, str]] = field(default_factory=Counter)
    images_changed: int = 0
    images_compared: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "images_compared": self.images_compared,
            "images_changed": self.images_changed,
            "boxes_kept": self.kept,
            "boxes_added": sum(self.added.values()),
            "boxes_removed": sum(self.removed.values()),
            "boxes_renamed": sum(self.renamed.values()),
            "added_by_class": dict(self.added.most_common()),
            "removed_by_class": dict(self.removed.most_common()),
            "renamed": [
                {"from": a, "to": b, "count": n} for (a, b), n in self.renamed.most_common()
            ],
        }


@dataclass
class ImportReport:
    source: str
    format: str
    out: str
    split: str
    images: list[str] = field(default_factory=list)
    boxes: int = 0
    not_annotated: list[str] = field(default_factory=list)
    missing_photos: list[str] = field(default_factory=list)
    #: photos with no box in a YOLO/COCO export (Label Studio lists unannotated tasks so)
    empty: list[str] = field(default_factory=list)
    #: photos listed more than once (Label Studio's COCO export: one image per annotation)
    ambiguous: list[str] = field(default_factory=list)
    classes: str = ""
    changes: Changes | None = None
    predictions_note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "format": self.format,
            "out": self.out,
            "split": self.split,
            "images": len(self.images),
            "boxes": self.boxes,
            "not_annotated": self.not_annotated,
            "missing_photos": self.missing_photos,
            "empty_skipped": self.empty,
            "ambiguous_skipped": self.ambiguous,
            "classes": self.classes,
            "changes": None if self.changes is None else self.changes.to_dict(),
            "predictions": self.predictions_note,
        }


@dataclass(frozen=True)
class Entry:
    """One labelled photo of the export: how it names its photo, the final boxes in pixels
    (or YOLO boxes already normalised), and the model's boxes when known."""

    ref: str
    labels: ImageLabels | None
    yolo: list[LabelBox] | None = None
    predicted: ImageLabels | None = None


# -- reading an export -------------------------------------------------------------------------
def detect_format(path: Path, data: Any = None) -> str:
    """The export's format, from the folder's files or the JSON's shape."""
    if path.is_dir():
        if (path / "result.json").is_file():
            return "coco"
        if (path / "labels").is_dir():
            return "yolo"
        raise ImportError_(
            f"{path}: not a YOLO folder (labels/, named by classes.txt or data.yaml) nor a "
            "COCO export (result.json)"
        )
    if isinstance(data, dict) and isinstance(data.get("images"), list):
        return "coco"
    if isinstance(data, list) and data and all(isinstance(t, dict) for t in data):
        if "data" in data[0]:
            return "labelstudio-json"
        if "image" in data[0]:
            return "labelstudio-min"
    raise ImportError_(
        f"{path}: not a Label Studio export (JSON or JSON-MIN: a list of tasks) nor a COCO "
        "file (an object with 'images')"
    )


def read_entries(path: Path, fmt: str, data: Any, report: ImportReport) -> list[Entry]:
    if fmt == "labelstudio-json":
        return _labelstudio_entries(data, report)
    if fmt == "labelstudio-min":
        return _min_entries(data, report)
    if fmt == "coco":
        if path.is_dir():
            path = path / "result.json"
            data = _load_json(path)
        report.classes = "COCO categories by name"
        return _coco_entries(_wrap(coco_items, data, path), report)
    return _yolo_entries(path, report)


def _labelstudio_entries(tasks: list[Any], report: ImportReport) -> list[Entry]:
    report.classes = "Label Studio region labels by name"
    entries = []
    for k, task in enumerate(tasks):
        data = task.get("data") if isinstance(task, dict) else None
        ref = data.get("image") if isinstance(data, dict) else None
        if not isinstance(ref, str):
            raise ImportError_(f"task {k}: no data.image (the task's photo)")
        done = [
            a
            for a in task.get("annotations") or []
            if isinstance(a, dict) and not a.get("was_cancelled")
        ]
        if not done:
            report.not_annotated.append(ref)
            continue
        predicted = None
        if any(isinstance(p, dict) and p.get("result") for p in task.get("predictions") or []):
            predicted = _wrap(
                lambda t: labelstudio_items(t, source="predictions"), [task], f"task {k}"
            )[0]
        if not any(r.get("type") == "rectanglelabels" for a in done for r in a.get("result") or []):
            entries.append(Entry(ref, None, yolo=[], predicted=predicted))  # emptied by a person
            continue
        (item,) = _wrap(lambda t: labelstudio_items(t, source="annotations"), [task], f"task {k}")
        entries.append(Entry(ref, item, predicted=predicted))
    return entries


def _min_entries(rows: list[Any], report: ImportReport) -> list[Entry]:
    """Label Studio's JSON-MIN: one object per task, the regions under the control's name
    (``label``) in percent with their original size; no regions key: not annotated."""
    report.classes = "Label Studio region labels by name"
    latest: dict[Any, dict[str, Any]] = {}
    for k, row in enumerate(rows):
        if not isinstance(row.get("image"), str):
            raise ImportError_(f"row {k}: no 'image' (the task's photo)")
        key = row.get("id", k)
        if key not in latest or str(row.get("updated_at", "")) >= str(
            latest[key].get("updated_at", "")
        ):
            latest[key] = row
    entries = []
    for row in latest.values():
        regions = next(
            (v for k, v in row.items() if k not in _MIN_META and isinstance(v, list)), None
        )
        if regions is None:
            report.not_annotated.append(row["image"])
            continue
        task = {
            "data": {"image": row["image"]},
            "annotations": [
                {
                    "result": [
                        {
                            "type": "rectanglelabels",
                            "value": r,
                            "original_width": r.get("original_width"),
                            "original_height": r.get("original_height"),
                        }
                        for r in regions
                        if isinstance(r, dict)
                    ]
                }
            ],
        }
        if not regions:  # annotated as empty: the size is unknown, the photo will tell
            entries.append(Entry(row["image"], None, yolo=[]))
            continue
        (item,) = _wrap(lambda t: labelstudio_items(t, source="annotations"), [task], "rows")
        entries.append(Entry(row["image"], item))
    return entries


_MIN_META = {"image", "id", "annotator", "annotation_id", "created_at", "updated_at", "lead_time"}


def _coco_entries(items: list[ImageLabels], report: ImportReport) -> list[Entry]:
    """A photo listed twice is skipped: Label Studio's COCO export lists a task once per
    annotation and does not say which annotation is the latest."""
    count = Counter(PurePosixPath(it.image).name for it in items)
    entries = []
    for it in items:
        name = PurePosixPath(it.image).name
        if count[name] > 1:
            if name not in report.ambiguous:
                report.ambiguous.append(name)
            continue
        entries.append(Entry(it.image, it))
    return entries


def _yolo_entries(folder: Path, report: ImportReport) -> list[Entry]:
    """A YOLO folder (``labels/`` with ``classes.txt`` or ``data.yaml``, e.g. Label Studio's
    YOLO export whose classes are numbered alphabetically): ids mapped by name."""
    names_file = find_names_file(folder, folder)
    if names_file is None:
        ids = list(range(len(CLASS_NAMES)))
        where = "hupai's class list"
        report.classes = "warning: no data.yaml or classes.txt; class ids read in hupai's order"
    else:
        ids = class_map(read_names(names_file), str(names_file))
        where = names_file.name
        report.classes = f"classes by name from {names_file.name}"
    entries = []
    for label in sorted((folder / "labels").rglob("*.txt")):
        boxes = load_yolo_labels(label)
        mapped = []
        for b in boxes:
            if b.cls >= len(ids):
                raise ImportError_(f"{label}: class id {b.cls} is not in {where}")
            mapped.append(LabelBox(ids[b.cls], b.xyxy, b.from_polygon))
        rel = label.relative_to(folder / "labels").with_suffix("")
        entries.append(Entry(rel.as_posix(), None, yolo=mapped))
    return entries


# -- finding the photos ------------------------------------------------------------------------
def photo_candidates(ref: str) -> list[str]:
    """Paths to try for an export's reference to a photo, most specific first."""
    parsed = urlparse(ref)
    paths = []
    if "d" in parse_qs(parsed.query):
        paths.append(unquote(parse_qs(parsed.query)["d"][0]))
    else:
        paths.append(unquote(parsed.path if parsed.scheme or ref.startswith("/") else ref))
    name = PurePosixPath(paths[0]).name
    stripped = _UPLOAD_PREFIX.sub("", name)  # Label Studio prefixes uploads with 8 hex digits
    for candidate in (name, stripped):
        if candidate not in paths:
            paths.append(candidate)
    return [p.lstrip("/") for p in paths]


class PhotoFinder:
    """Resolves references against the export's folder and ``--images`` (by path, then by
    file name anywhere below them)."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.roots = [r for r in roots if r.is_dir()]
        self._by_name: dict[str, list[Path]] | None = None

    def find(self, ref: str, yolo_stem: bool = False) -> Path | None:
        for candidate in photo_candidates(ref):
            climbs = ".." in PurePosixPath(candidate).parts  # only looked up by its name
            for root in [] if climbs else self.roots:
                path = root / candidate
                if path.is_file():
                    return path
                if yolo_stem:
                    for images in (root / "images", root):
                        for suffix in IMAGE_SUFFIXES:
                            hit = images / (candidate + suffix)
                            if hit.is_file():
                                return hit
            hits = self._index().get(PurePosixPath(candidate).name, [])
            if not hits and yolo_stem:
                hits = self._index().get(f"stem:{PurePosixPath(candidate).name}", [])
            if len(hits) == 1:
                return hits[0]
        return None

    def _index(self) -> dict[str, list[Path]]:
        if self._by_name is None:
            self._by_name = {}
            for root in self.roots:
                for p in root.rglob("*"):
                    if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file():
                        self._by_name.setdefault(p.name, []).append(p)
                        self._by_name.setdefault(f"stem:{p.stem}", []).append(p)
        return self._by_name


# -- the import --------------------------------------------------------------------------------
def import_labels(
    source: Path,
    out: Path,
    *,
    images: Path | None = None,
    split: str = "train",
    link: bool = False,
    predictions: Path | None = None,
    overwrite: bool = False,
    keep_empty: bool = False,
) -> ImportReport:
    """Import ``source`` into ``out`` (``images/<split>/``, ``labels/<split>/``, data.yaml,
    classes.txt, import-report.json). Nothing already in ``out`` is replaced unless
    ``overwrite``. A photo with no box in a YOLO or COCO export is skipped unless
    ``keep_empty``: Label Studio writes the tasks nobody annotated that way."""
    with _unpacked(source) as src:
        data = None if src.is_dir() else _load_json(src)
        fmt = detect_format(src, data)
        report = ImportReport(str(source), fmt, str(out), split)
        entries = read_entries(src, fmt, data, report)
        if predictions is not None:
            entries = _with_predictions(entries, predictions, report)
        base = src if src.is_dir() else src.parent
        finder = PhotoFinder([r for r in (images, base) if r is not None])
        if fmt in ("yolo", "coco") and not keep_empty:
            entries = _drop_empty(entries, report)
        plan = _plan(entries, finder, report, fmt == "yolo")
        _check_out(out, split, plan, overwrite)
        _write(out, split, plan, link, report)
    if report.changes is None and not report.predictions_note:
        report.predictions_note = (
            "no model boxes to compare with (give --predictions TASKS.json, the tasks "
            "hupai label wrote)"
        )
    (out / "import-report.json").write_text(
        json.dumps(report.to_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    return report


def _drop_empty(entries: list[Entry], report: ImportReport) -> list[Entry]:
    kept = []
    for e in entries:
        n = len(e.yolo) if e.yolo is not None else len(e.labels.detections) if e.labels else 0
        if n == 0:
            report.empty.append(e.ref)
        else:
            kept.append(e)
    return kept


@dataclass(frozen=True)
class _Planned:
    photo: Path
    name: str  # under images/<split>/, with its suffix
    boxes: list[LabelBox]
    entry: Entry


def _plan(
    entries: list[Entry], finder: PhotoFinder, report: ImportReport, yolo: bool
) -> list[_Planned]:
    plan, names = [], set()
    for entry in entries:
        photo = finder.find(entry.ref, yolo_stem=yolo)
        if photo is None:
            report.missing_photos.append(entry.ref)
            continue
        if entry.yolo is not None:
            boxes = entry.yolo
        else:
            assert entry.labels is not None
            boxes = to_yolo_boxes(entry.labels)
        name = _UPLOAD_PREFIX.sub("", photo.name)
        stem, k = Path(name).stem, 1
        while name in names:  # two photos of one name from different folders
            k += 1
            name = f"{stem}-{k}{photo.suffix}"
        names.add(name)
        plan.append(_Planned(photo, name, boxes, entry))
    if report.missing_photos and not plan:
        raise ImportError_(
            f"none of the {len(report.missing_photos)} photos was found (first: "
            f"{report.missing_photos[0]}); give --images DIR, the folder that holds them"
        )
    return plan


def _check_out(out: Path, split: str, plan: list[_Planned], overwrite: bool) -> None:
    if overwrite:
        return
    taken = [
        f"{kind}/{split}/{name}"
        for p in plan
        for kind, name in (("images", p.name), ("labels", Path(p.name).stem + ".txt"))
        if (out / kind / split / name).exists() or (out / kind / split / name).is_symlink()
    ]
    if taken:
        raise ImportError_(
            f"{out}: {len(taken)} files are already there (first: {taken[0]}); choose another "
            "--out or --split, or add --overwrite to replace them"
        )


def _write(out: Path, split: str, plan: list[_Planned], link: bool, report: ImportReport) -> None:
    images_dir, labels_dir = out / "images" / split, out / "labels" / split
    images_dir.mkdir(parents=True, exist_ok=True)
    labels_dir.mkdir(parents=True, exist_ok=True)
    changes = Changes()
    for p in plan:
        target = images_dir / p.name
        if target.is_symlink() or target.exists():
            target.unlink()
        if link:
            os.symlink(os.path.relpath(p.photo.resolve(), images_dir.resolve()), target)
        else:
            shutil.copy2(p.photo, target)
        save_yolo_labels(labels_dir / (Path(p.name).stem + ".txt"), p.boxes)
        report.images.append(f"images/{split}/{p.name}")
        report.boxes += len(p.boxes)
        if p.entry.predicted is not None and p.entry.labels is not None:
            _compare(p.entry.predicted, p.entry.labels, changes)
    if changes.images_compared:
        report.changes = changes
    yaml = data_yaml_text([split])
    if split != "val":
        yaml = yaml.replace(
            f"{split}: images/{split}\n",
            f"{split}: images/{split}\nval: images/{split}  # split a validation set off first\n",
        )
    (out / "data.yaml").write_text(yaml)
    (out / "classes.txt").write_text("".join(n + "\n" for n in CLASS_NAMES))


# -- what people changed -----------------------------------------------------------------------
def _compare(predicted: ImageLabels, final: ImageLabels, changes: Changes) -> None:
    """Boxes matched one to one at IoU ≥ 0.5 (the best overall pairing)."""
    from scipy.optimize import linear_sum_assignment

    a, b = predicted.detections, final.detections
    changes.images_compared += 1
    matched_a: set[int] = set()
    matched_b: set[int] = set()
    changed = False
    if len(a) and len(b):
        iou = box_iou(a.xyxy, b.xyxy)
        rows, cols = linear_sum_assignment(-iou)
        for i, j in zip(rows, cols, strict=True):
            if iou[i, j] < MATCH_IOU:
                continue
            matched_a.add(int(i))
            matched_b.add(int(j))
            was, now = CLASS_NAMES[int(a.class_id[i])], CLASS_NAMES[int(b.class_id[j])]
            if was == now:
                changes.kept += 1
            else:
                changes.renamed[(was, now)] += 1
                changed = True
    for i in range(len(a)):
        if i not in matched_a:
            changes.removed[CLASS_NAMES[int(a.class_id[i])]] += 1
            changed = True
    for j in range(len(b)):
        if j not in matched_b:
            changes.added[CLASS_NAMES[int(b.class_id[j])]] += 1
            changed = True
    changes.images_changed += int(changed)


def _with_predictions(entries: list[Entry], path: Path, report: ImportReport) -> list[Entry]:
    """The model's boxes from the tasks ``hupai label`` wrote, matched by photo reference
    (then by file name)."""
    tasks = _load_json(path)
    items = _wrap(lambda t: labelstudio_items(t, source="predictions"), tasks, str(path))
    by_ref = {it.image: it for it in items}
    by_name = {PurePosixPath(photo_candidates(it.image)[0]).name: it for it in items}
    out, found = [], 0
    for e in entries:
        pred = by_ref.get(e.ref) or by_name.get(PurePosixPath(photo_candidates(e.ref)[-1]).name)
        if pred is not None and e.labels is not None:
            found += 1
            e = Entry(e.ref, e.labels, e.yolo, pred)
        out.append(e)
    report.predictions_note = f"model boxes from {path}: {found} of {len(entries)} photos matched"
    return out


# -- helpers -----------------------------------------------------------------------------------
@contextmanager
def _unpacked(source: Path) -> Iterator[Path]:
    """A zip (Label Studio's YOLO and COCO exports download as one) is read unpacked."""
    if not source.exists():
        raise ImportError_(f"{source}: no such file or folder")
    if source.is_file() and zipfile.is_zipfile(source):
        with tempfile.TemporaryDirectory(prefix="hupai-import-") as tmp:
            with zipfile.ZipFile(source) as z:
                for member in z.namelist():  # refuse names that climb out of the folder
                    if member.startswith("/") or ".." in PurePosixPath(member).parts:
                        raise ImportError_(f"{source}: unsafe path in the zip: {member}")
                z.extractall(tmp)
            root = Path(tmp)
            inner = [p for p in root.iterdir() if not p.name.startswith(".")]
            yield inner[0] if len(inner) == 1 and inner[0].is_dir() else root
        return
    yield source


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ImportError_(f"{path}: cannot read JSON ({exc})") from None


def _wrap(fn: Any, data: Any, where: Any) -> Any:
    try:
        return fn(data)
    except LabelError as exc:
        raise ImportError_(f"{where}: {exc}") from None
