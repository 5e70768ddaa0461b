"""Classes travel by name: a dataset's class names → hupai's class ids.

Every reader of labels maps names, never trusts ids: a YOLO folder's ``data.yaml`` or
``classes.txt`` (Label Studio's YOLO export numbers its classes alphabetically: ``1f 1m 1p
1s 1z …``), a COCO file's categories, Label Studio's region labels. Known names are hupai's
notation (``3s``, ``7z``, ``1f``, ``back``) and the Roboflow set's codes (``sb3``, ``hwe``).

>>> class_map(["1f", "1m", "back"], "classes.txt")
[34, 0, 42]
>>> class_map(["1m", "joker"], "classes.txt")
Traceback (most recent call last):
...
hupai.datasets.labels.LabelError: classes.txt: class names hupai does not know: joker (expected \
tile notation such as 3s, 7z, 1f, back, or the Roboflow set's codes)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hupai.datasets.labels import LabelError
from hupai.vision.classes import class_by_name

NAMES_FILES = ("data.yaml", "classes.txt")


def hupai_class(name: str) -> int | None:
    """hupai's class id for a dataset's class name; None when unknown."""
    from hupai.datasets.roboflow import ROBOFLOW_TO_NOTATION

    name = name.strip()
    name = ROBOFLOW_TO_NOTATION.get(name, name)
    try:
        return class_by_name(name)
    except ValueError:
        return None


def class_map(names: Sequence[str], source: str) -> list[int]:
    """Dataset class id (its place in ``names``) → hupai class id; an unknown name is an
    error that lists every unknown name."""
    mapped = [hupai_class(n) for n in names]
    unknown = [n for n, c in zip(names, mapped, strict=True) if c is None]
    if unknown:
        raise LabelError(
            f"{source}: class names hupai does not know: {', '.join(unknown)} "
            "(expected tile notation such as 3s, 7z, 1f, back, or the Roboflow set's codes)"
        )
    return [int(c) for c in mapped if c is not None]


def read_names(path: Path) -> list[str]:
    """The class names in a ``data.yaml`` or ``classes.txt`` (one per line)."""
    from hupai.datasets.roboflow import read_class_names

    if path.name == "classes.txt":
        return [n.strip() for n in path.read_text(encoding="utf-8").splitlines() if n.strip()]
    try:
        return read_class_names(path)
    except ValueError as exc:
        raise LabelError(f"{path}: {exc}") from None


def find_names_file(start: Path, stop: Path) -> Path | None:
    """The nearest ``data.yaml`` or ``classes.txt`` in ``start`` or a folder above it, up to
    ``stop`` (or its parent)."""
    for base in (start, *start.parents):
        for name in NAMES_FILES:
            if (base / name).is_file():
                return base / name
        if base in (stop, stop.parent):
            break
    return None


def folder_class_map(images_dir: Path, root: Path) -> list[int] | None:
    """The class map of the YOLO dataset holding ``images_dir`` (its nearest data.yaml or
    classes.txt, up to ``root``); None when it names none (hupai's order is assumed)."""
    source = find_names_file(images_dir, root)
    return None if source is None else class_map(read_names(source), str(source))
