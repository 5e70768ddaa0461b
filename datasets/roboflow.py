"""Import the Roboflow "Chinese Mahjong Detection" export (YOLOv8 format) into our classes.

The export's 42 class names, checked against labelled crops of every class:

* ``sc1``-``sc9`` characters 萬 → ``1m``-``9m``; ``sd1``-``sd9`` dots 筒 → ``1p``-``9p``;
  ``sb1``-``sb9`` bamboo 條 → ``1s``-``9s``;
* ``hwe hws hww hwn`` winds 東南西北 → ``1z``-``4z``; ``hdw`` white (blue frame) → ``5z``,
  ``hdg`` green 發 → ``6z``, ``hdr`` red 中 → ``7z``;
* ``bf1``-``bf4`` the flowers 梅蘭菊竹 → ``1f``-``4f``; ``bs1``-``bs4`` the *seasons*
  春夏秋冬 → ``5f``-``8f`` (``bs`` is "bonus season", not bamboo).

Quirks handled: polygon label lines become boxes; label files that are empty (every photo of
the set shows tiles) are dropped and reported; Roboflow names augmented copies of one photo
``<photo>_jpg.rf.<hash>.jpg``, and the importer keeps all copies of a photo in one split.
The same ``<photo>`` name in two splits is reported: when the labels agree it is one photo
(a leak, so the train copies are dropped); when they differ it is two photos that happen to
share a name (the set's ``hand_001``-``hand_020`` are such collisions) and both are kept.

Label errors checked by eye ship as corrections (:mod:`hupai.datasets.corrections`; for this
export 139 boxes of ``valid``: seven photos whose every box is labelled 1p, tiles given another
tile's name, tiles boxed twice): applied on import and counted in the report, unless
``--no-corrections``.

>>> ROBOFLOW_TO_NOTATION["bs1"], ROBOFLOW_TO_NOTATION["bf4"], ROBOFLOW_TO_NOTATION["hdg"]
('5f', '4f', '6z')
>>> photo_key("hand_001_jpg.rf.c06eb6d2f94dfdd8c8153c655ee4ff36.jpg")
'hand_001_jpg'
"""

from __future__ import annotations

import ast
import json
import random
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hupai.datasets.corrections import (
    Corrections,
    CorrectionsError,
    corrections_for,
    load_corrections,
)
from hupai.datasets.labels import LabelBox, LabelError, parse_yolo_line, save_yolo_labels
from hupai.datasets.stats import IMAGE_SUFFIXES
from hupai.datasets.yolo import split_dirs, write_dataset_files
from hupai.vision.classes import CLASS_NAMES, class_by_name


def _build_map() -> dict[str, str]:
    table: dict[str, str] = {}
    for prefix, suit in (("sc", "m"), ("sd", "p"), ("sb", "s")):
        for rank in range(1, 10):
            table[f"{prefix}{rank}"] = f"{rank}{suit}"
    for rank, code in enumerate(("hwe", "hws", "hww", "hwn", "hdw", "hdg", "hdr"), start=1):
        table[code] = f"{rank}z"
    for rank in range(1, 5):
        table[f"bf{rank}"] = f"{rank}f"  # plum orchid chrysanthemum bamboo
        table[f"bs{rank}"] = f"{rank + 4}f"  # spring summer autumn winter
    return table


#: Roboflow class name → our tile notation (= our class name).
ROBOFLOW_TO_NOTATION: dict[str, str] = _build_map()

#: Roboflow split folder → our split name.
SPLIT_NAMES = {"train": "train", "valid": "val", "test": "test"}

#: Labels of two same-named photos in different splits that agree at least this much
#: (multiset Jaccard of class ids) are taken to be one photo.
SAME_PHOTO_JACCARD = 0.8


class RoboflowImportError(ValueError):
    """The source folder is not a Roboflow YOLO export we can read."""


def photo_key(filename: str) -> str:
    """The source photo of a Roboflow file: the name before ``.rf.`` (else the stem)."""
    name = Path(filename).name
    return name.split(".rf.")[0] if ".rf." in name else Path(name).stem


def read_class_names(data_yaml: Path) -> list[str]:
    """Class names from a Roboflow ``data.yaml`` (flow list, block list or index map)."""
    text = data_yaml.read_text()
    match = re.search(r"^names:\s*(\[.*?\])", text, re.S | re.M)
    if match:
        names = ast.literal_eval(match.group(1))
        return [str(n) for n in names]
    block = re.search(r"^names:\s*\n((?:[ \t]+.*\n?)+)", text, re.M)
    if not block:
        raise RoboflowImportError(f"{data_yaml}: no 'names:' list")
    names = []
    for line in block.group(1).splitlines():
        item = line.strip()
        item = item[2:] if item.startswith("- ") else item.split(":", 1)[-1]
        names.append(item.strip().strip("'\""))
    return names


@dataclass
class Sample:
    split: str  # our split name
    image: Path
    boxes: list[LabelBox]
    polygons: int = 0

    @property
    def key(self) -> str:
        return photo_key(self.image.name)


@dataclass
class ImportReport:
    source: str
    out: str
    images: dict[str, int] = field(default_factory=dict)
    photos: dict[str, int] = field(default_factory=dict)
    boxes: dict[str, int] = field(default_factory=dict)
    polygons_to_boxes: int = 0
    dropped_empty: list[str] = field(default_factory=list)
    dropped_no_label: list[str] = field(default_factory=list)
    bad_lines: list[str] = field(default_factory=list)
    name_collisions: list[dict[str, Any]] = field(default_factory=list)
    leaks_removed: list[dict[str, Any]] = field(default_factory=list)
    heldout_near_duplicates: list[dict[str, Any]] = field(default_factory=list)
    resplit: dict[str, Any] | None = None
    #: the label corrections applied (:mod:`hupai.datasets.corrections`): their file, the boxes
    #: renamed and dropped by split, and how many correct files this export does not hold
    corrections: dict[str, Any] | None = None

    def summary(self) -> str:
        lines = [f"imported {self.source} → {self.out}"]
        for split, n in self.images.items():
            lines.append(
                f"  {split}: {n} images of {self.photos[split]} photos, {self.boxes[split]} boxes"
            )
        lines.append(f"  polygon labels turned into boxes: {self.polygons_to_boxes}")
        lines.append(
            f"  dropped, empty label file although tiles are visible: {len(self.dropped_empty)}"
        )
        lines += [f"    {p}" for p in self.dropped_empty]
        if self.dropped_no_label:
            lines.append(f"  dropped, no label file: {len(self.dropped_no_label)}")
        if self.bad_lines:
            lines.append(f"  unreadable label lines skipped: {len(self.bad_lines)}")
            lines += [f"    {b}" for b in self.bad_lines[:10]]
        lines.append(
            f"  photo names in several splits: {len(self.name_collisions)} distinct photos "
            f"sharing a name (kept), {len(self.leaks_removed)} same photo (train copies dropped)"
        )
        for c in self.name_collisions:
            lines.append(f"    {c['photo']}: {'/'.join(c['splits'])}, label jaccard {c['jaccard']}")
        for c in self.leaks_removed:
            lines.append(
                f"    LEAK {c['photo']}: {'/'.join(c['splits'])}, dropped "
                f"{c['dropped']} train images"
            )
        for c in self.heldout_near_duplicates:
            lines.append(
                f"  near-duplicate across val/test (left as given): {c['val']} ~ {c['test']}"
            )
        if self.resplit:
            lines.append(f"  resplit train+val by photo: {self.resplit}")
        fixed = self.corrections
        if fixed is None:
            lines.append("  label corrections: none (the labels as published)")
        else:
            elsewhere = fixed["elsewhere"]
            lines.append(
                f"  label corrections ({fixed['file']}): renamed {fixed['renamed']}, dropped "
                f"{fixed['dropped']}"
                + (f", {elsewhere} for files not in this export" if elsewhere else "")
            )
        return "\n".join(lines)


def _jaccard(a: Counter[int], b: Counter[int]) -> float:
    union = sum((a | b).values())
    return sum((a & b).values()) / union if union else 1.0


def _read_split(
    src: Path,
    rf_split: str,
    names: list[str],
    report: ImportReport,
    fixes: Corrections | None = None,
    used: set[tuple[str, int]] | None = None,
) -> list[Sample]:
    """The split's photos and boxes, ``fixes`` applied (the keys applied added to ``used``)."""
    images_dir, labels_dir = src / rf_split / "images", src / rf_split / "labels"
    split = SPLIT_NAMES[rf_split]
    samples = []
    for image in sorted(images_dir.iterdir()):
        if image.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        rel = f"{rf_split}/images/{image.name}"
        label = labels_dir / (image.stem + ".txt")
        if not label.exists():
            report.dropped_no_label.append(rel)
            continue
        boxes, polygons = [], 0
        for number, line in enumerate(label.read_text().splitlines(), start=1):
            if not line.strip():
                continue
            try:
                box = parse_yolo_line(line)
                if box.cls >= len(names):
                    raise LabelError(f"class {box.cls} is outside the {len(names)} names")
            except LabelError as exc:
                report.bad_lines.append(f"{rf_split}/labels/{label.name}:{number}: {exc}")
                continue
            ours = class_by_name(ROBOFLOW_TO_NOTATION[names[box.cls]])
            fix = None if fixes is None else fixes.at(f"{rf_split}/labels/{label.name}", number)
            if fixes is not None and fix is not None:
                if CLASS_NAMES[ours] != fix.was:
                    raise RoboflowImportError(
                        f"{fix.file} line {number} is labelled {CLASS_NAMES[ours]}, where "
                        f"{fixes.source} corrects a {fix.was}: not the export these corrections "
                        "were made for (pass --no-corrections to import the labels as published)"
                    )
                if used is not None:
                    used.add(fix.key)
                if fix.now is None:
                    continue
                ours = class_by_name(fix.now)
            boxes.append(LabelBox(ours, box.xyxy))
            polygons += box.from_polygon
        if not boxes:
            report.dropped_empty.append(rel)
            continue
        samples.append(Sample(split, image, boxes, polygons))
    return samples


def _corrections(src: Path, corrections: Path | bool) -> Corrections | None:
    """The corrections to apply: ``True`` those shipped for this export (if any), ``False``
    none, a path that file."""
    if corrections is False:
        return None
    path = corrections_for(src / "data.yaml") if corrections is True else corrections
    if path is None:
        return None
    try:
        return load_corrections(Path(path))
    except CorrectionsError as exc:
        raise RoboflowImportError(str(exc)) from None


def _corrections_applied(
    src: Path, fixes: Corrections, used: set[tuple[str, int]]
) -> dict[str, Any]:
    """The report's account of the corrections: their file, the boxes renamed and dropped by
    split, and how many are for files this export does not hold (a cut of it). A correction
    of a file the export holds must have been applied (its line is there)."""
    renamed: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    elsewhere = 0
    for key, fix in fixes.boxes.items():
        if key in used:
            split = SPLIT_NAMES[fix.file.split("/", 1)[0]]
            (dropped if fix.drops else renamed)[split] += 1
        elif (src / fix.file).is_file():
            raise RoboflowImportError(
                f"{fixes.source}: {fix.file} has no box on line {fix.line} to correct "
                "(pass --no-corrections to import the labels as published)"
            )
        else:
            elsewhere += 1
    return {
        "file": str(fixes.source),
        "renamed": dict(renamed),
        "dropped": dict(dropped),
        "elsewhere": elsewhere,
    }


def _check_photo_names(samples: list[Sample], report: ImportReport) -> list[Sample]:
    """Find photo names in several splits; drop train copies of photos that leak."""
    by_key: dict[str, dict[str, list[Sample]]] = {}
    for s in samples:
        by_key.setdefault(s.key, {}).setdefault(s.split, []).append(s)
    drop: set[int] = set()
    for key, splits in sorted(by_key.items()):
        if len(splits) < 2:
            continue
        content = {}
        for split, group in splits.items():
            merged: Counter[int] = Counter()
            for s in group:
                merged |= Counter(b.cls for b in s.boxes)
            content[split] = merged
        held = [s for s in ("val", "test") if s in splits]
        best = max(
            (_jaccard(content["train"], content[h]) for h in held if "train" in splits),
            default=0.0,
        )
        entry = {"photo": key, "splits": sorted(splits), "jaccard": round(best, 2)}
        if "train" in splits and best >= SAME_PHOTO_JACCARD:
            entry["dropped"] = len(splits["train"])
            drop.update(id(s) for s in splits["train"])
            report.leaks_removed.append(entry)
        else:
            report.name_collisions.append(entry)
    return [s for s in samples if id(s) not in drop]


def _check_heldout_duplicates(samples: list[Sample], report: ImportReport) -> None:
    """Report val/test photos whose labels match exactly (a photo retaken seconds apart)."""

    def sig(s: Sample) -> tuple[tuple[int, int], ...]:
        return tuple(sorted(Counter(b.cls for b in s.boxes).items()))

    val: dict[tuple[tuple[int, int], ...], list[Sample]] = {}
    for s in samples:
        if s.split == "val" and len(s.boxes) >= 10:
            val.setdefault(sig(s), []).append(s)
    for s in samples:
        if s.split == "test":
            for v in val.get(sig(s), []):
                report.heldout_near_duplicates.append(
                    {"val": v.image.name, "test": s.image.name, "boxes": len(s.boxes)}
                )


def _resplit(samples: list[Sample], val_fraction: float, seed: int) -> dict[str, Any]:
    """Re-deal train+val by photo so that every copy of a photo lands in one split."""
    groups: dict[str, list[Sample]] = {}
    for s in samples:
        if s.split in ("train", "val"):
            groups.setdefault(s.key, []).append(s)
    keys = sorted(groups)
    random.Random(seed).shuffle(keys)
    # Val gets one copy's worth per photo in mind: count photos, not augmented copies.
    n_val = round(len(keys) * val_fraction)
    for i, key in enumerate(keys):
        for s in groups[key]:
            s.split = "val" if i < n_val else "train"
    return {
        "val_fraction": val_fraction,
        "seed": seed,
        "val_photos": n_val,
        "train_photos": len(keys) - n_val,
    }


def import_roboflow(
    src: Path,
    out: Path,
    *,
    resplit: float | None = None,
    seed: int = 0,
    overwrite: bool = False,
    corrections: Path | bool = True,
) -> ImportReport:
    """Import a Roboflow YOLO export at ``src`` into an Ultralytics dataset at ``out``.

    ``test`` stays exactly as given and nothing is ever moved into it. ``resplit`` (a
    fraction) re-deals train+val by photo; otherwise Roboflow's train/valid are kept.
    ``corrections``: the label corrections shipped for this export (True; none ship for
    most), a corrections file (:mod:`hupai.datasets.corrections`), or none (False: the labels
    as published).
    """
    data_yaml = src / "data.yaml"
    if not data_yaml.is_file():
        raise RoboflowImportError(f"{src}: no data.yaml (expected a Roboflow YOLO export)")
    names = read_class_names(data_yaml)
    unknown = [n for n in names if n not in ROBOFLOW_TO_NOTATION]
    if unknown:
        raise RoboflowImportError(f"{data_yaml}: unknown class names {unknown}")
    rf_splits = [s for s in SPLIT_NAMES if (src / s / "images").is_dir()]
    if not rf_splits:
        raise RoboflowImportError(f"{src}: no train/valid/test image folders")
    if out.exists() and any(out.iterdir()):
        if not overwrite:
            raise RoboflowImportError(
                f"{out} exists and is not empty (pass --overwrite to replace it)"
            )
        if not (out / "data.yaml").exists():
            raise RoboflowImportError(
                f"{out} is not a dataset folder written by hupai; not touching it"
            )
        for sub in ("images", "labels"):
            shutil.rmtree(out / sub, ignore_errors=True)

    fixes = _corrections(src, corrections)
    report = ImportReport(source=str(src), out=str(out))
    used: set[tuple[str, int]] = set()
    samples: list[Sample] = []
    for rf_split in rf_splits:
        samples += _read_split(src, rf_split, names, report, fixes, used)
    if fixes is not None:
        report.corrections = _corrections_applied(src, fixes, used)
    samples = _check_photo_names(samples, report)
    _check_heldout_duplicates(samples, report)
    if resplit is not None:
        if not 0 < resplit < 1:
            raise RoboflowImportError(f"--resplit {resplit}: expected a fraction between 0 and 1")
        report.resplit = _resplit(samples, resplit, seed)

    out.mkdir(parents=True, exist_ok=True)
    splits_present = []
    for split in SPLIT_NAMES.values():
        chosen = [s for s in samples if s.split == split]
        if not chosen:
            continue
        splits_present.append(split)
        images_dir, labels_dir = split_dirs(out, split)
        for s in chosen:
            shutil.copyfile(s.image, images_dir / s.image.name)
            save_yolo_labels(labels_dir / (s.image.stem + ".txt"), s.boxes)
        report.images[split] = len(chosen)
        report.photos[split] = len({s.key for s in chosen})
        report.boxes[split] = sum(len(s.boxes) for s in chosen)
        report.polygons_to_boxes += sum(s.polygons for s in chosen)
    write_dataset_files(out, splits_present)
    (out / "import-report.json").write_text(
        json.dumps(report.__dict__, indent=1, ensure_ascii=False) + "\n"
    )
    (out / "CREDITS.txt").write_text(
        "Images and labels: Roboflow Universe 'Chinese Mahjong Detection' v4 "
        "(workspace riichimahjongdetection), CC BY 4.0,\n"
        "https://universe.roboflow.com/riichimahjongdetection/chinese-mahjong-detection/"
        "dataset/4\nClass names mapped to hupai's classes by `hupai data import-roboflow`.\n"
    )
    return report
