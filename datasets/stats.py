"""A stats report of a YOLO dataset: images, boxes per class, tile sizes.

Tile size is reported as the box's long side in pixels after scaling the image to 640 px on
its long side (what the detector sees).

>>> percentiles([1.0, 2.0, 3.0, 4.0, 5.0], (0, 50, 100))
[1.0, 3.0, 5.0]
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hupai.datasets.labels import load_yolo_labels
from hupai.datasets.yolo import SPLITS
from hupai.vision.classes import CLASS_NAMES

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
_PCTS = (5, 25, 50, 75, 95)


def percentiles(values: Sequence[float], pcts: Sequence[float] = _PCTS) -> list[float]:
    """Nearest-rank-with-interpolation percentiles (no numpy needed)."""
    if not values:
        return []
    ordered = sorted(values)
    out = []
    for p in pcts:
        pos = (len(ordered) - 1) * p / 100
        lo = int(pos)
        hi = min(lo + 1, len(ordered) - 1)
        out.append(round(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo), 2))
    return out


def _image_size(path: Path) -> tuple[int, int]:
    from PIL import Image

    with Image.open(path) as im:
        return im.size


def dataset_stats(root: Path) -> dict[str, Any]:
    """Count images, boxes per class and tile sizes per split of a YOLO dataset folder."""
    report: dict[str, Any] = {"root": str(root), "splits": {}}
    for split in SPLITS:
        images_dir = root / "images" / split
        if not images_dir.is_dir():
            continue
        per_class: Counter[int] = Counter()
        sizes: list[float] = []
        image_sizes: Counter[str] = Counter()
        n_images = 0
        for image in sorted(images_dir.iterdir()):
            if image.suffix.lower() not in IMAGE_SUFFIXES:
                continue
            n_images += 1
            label = root / "labels" / split / (image.stem + ".txt")
            boxes = load_yolo_labels(label) if label.exists() else []
            w, h = _image_size(image)
            image_sizes[f"{w}x{h}"] += 1
            scale = 640 / max(w, h)
            for box in boxes:
                per_class[box.cls] += 1
                sizes.append(max(box.width * w, box.height * h) * scale)
        report["splits"][split] = {
            "images": n_images,
            "boxes": sum(per_class.values()),
            "boxes_per_class": {
                CLASS_NAMES[c] if c < len(CLASS_NAMES) else str(c): per_class[c]
                for c in sorted(per_class)
            },
            "missing_classes": [n for i, n in enumerate(CLASS_NAMES) if per_class[i] == 0],
            "tile_long_side_px_at_640": dict(
                zip(("p5", "p25", "p50", "p75", "p95"), percentiles(sizes), strict=False)
            ),
            "image_sizes": dict(image_sizes.most_common(8)),
        }
    return report


def format_stats(report: dict[str, Any]) -> str:
    """A short human-readable rendering of :func:`dataset_stats`."""
    lines = [f"dataset {report['root']}"]
    for split, s in report["splits"].items():
        lines.append(f"  {split}: {s['images']} images, {s['boxes']} boxes")
        per = s["boxes_per_class"]
        lines.append("    per class: " + " ".join(f"{k}={v}" for k, v in per.items()))
        if s["missing_classes"]:
            lines.append("    classes with no box: " + " ".join(s["missing_classes"]))
        sz = s["tile_long_side_px_at_640"]
        lines.append("    tile long side px@640: " + " ".join(f"{k}={v}" for k, v in sz.items()))
        lines.append(
            "    image sizes: " + " ".join(f"{k}×{v}" for k, v in s["image_sizes"].items())
        )
    return "\n".join(lines)


def write_stats(root: Path) -> dict[str, Any]:
    """Compute the stats and save them as ``stats.json`` and ``stats.txt`` in ``root``."""
    report = dataset_stats(root)
    (root / "stats.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    (root / "stats.txt").write_text(format_stats(report) + "\n")
    return report
