"""Ultralytics dataset layout: ``images/<split>/``, ``labels/<split>/``, ``data.yaml``,
``classes.txt``.

>>> print(data_yaml_text(["train", "val"], ("1m", "back")), end="")
# hupai detector dataset; classes version 1
# no 'path': readers take this file's folder, so the dataset can move
train: images/train
val: images/val
nc: 2
names:
  0: 1m
  1: back
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hupai.vision.classes import CLASS_NAMES, CLASSES_VERSION

SPLITS = ("train", "val", "test")


def split_dirs(root: Path, split: str) -> tuple[Path, Path]:
    """``(images_dir, labels_dir)`` of one split, created if missing."""
    images, labels = root / "images" / split, root / "labels" / split
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    return images, labels


def data_yaml_text(splits: Sequence[str], names: Sequence[str] = CLASS_NAMES) -> str:
    """The dataset's ``data.yaml``: split folders relative to the file, classes by name."""
    lines = [
        f"# hupai detector dataset; classes version {CLASSES_VERSION}",
        "# no 'path': readers take this file's folder, so the dataset can move",
    ]
    lines += [f"{split}: images/{split}" for split in splits]
    lines += [f"nc: {len(names)}", "names:"]
    lines += [f"  {i}: {name}" for i, name in enumerate(names)]
    return "\n".join(lines) + "\n"


def write_dataset_files(root: Path, splits: Sequence[str]) -> None:
    """Write ``data.yaml`` and ``classes.txt`` for the splits present."""
    (root / "data.yaml").write_text(data_yaml_text([s for s in SPLITS if s in splits]))
    (root / "classes.txt").write_text("".join(name + "\n" for name in CLASS_NAMES))
