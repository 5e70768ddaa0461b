"""Corrections to a published label set: boxes given another tile's name, tiles boxed twice.

A correction names one line of one label file of the export as published (numbered from 1,
as :attr:`hupai.datasets.roboflow.ImportReport.bad_lines` numbers them), the name it has
there (``was``, in hupai's notation) and the right one (``now``), or ``None`` where the box
goes (the same tile boxed twice). Each was checked by eye on the photo; ``why`` says what
the photo shows. The published labels are never rewritten: an import applies the
corrections to what it writes and says so in its report, and ``--no-corrections`` imports
the labels as published.

The corrections of an export ship with hupai (``label_corrections/*.json``, found by the
export's Roboflow workspace, project and version: :func:`corrections_for`). Single-tile
photos listed in a ``labels.csv`` (``image,tile``: the camerash set, measure only) have theirs
too, found by the file's SHA-256 (:func:`photo_corrections`).

>>> fix = BoxCorrection("valid/labels/a.txt", 3, "5p", "4p", "four dots")
>>> fix.key, fix.drops
(('valid/labels/a.txt', 3), False)
>>> BoxCorrection("valid/labels/a.txt", 0, "5p", None, "boxed twice")
Traceback (most recent call last):
...
hupai.datasets.corrections.CorrectionsError: valid/labels/a.txt line 0: lines are numbered from 1
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hupai.vision.classes import class_by_name

#: Where the corrections that ship with hupai lie, one JSON file an export.
PACKAGED = Path(__file__).resolve().parent / "label_corrections"


class CorrectionsError(ValueError):
    """A corrections file that cannot be read, or that does not fit the export."""


@dataclass(frozen=True)
class BoxCorrection:
    """One box of a published label file: renamed (``now``) or dropped (``now`` None)."""

    file: str  # the label file, relative to the export: "valid/labels/<photo>.txt"
    line: int  # numbered from 1
    was: str  # its published name (hupai's notation)
    now: str | None  # its right name; None: the box is dropped
    why: str  # what the photo shows

    def __post_init__(self) -> None:
        where = f"{self.file} line {self.line}"
        if self.line < 1:
            raise CorrectionsError(f"{where}: lines are numbered from 1")
        for name in (self.was, self.now):
            if name is not None:
                try:
                    class_by_name(name)
                except (KeyError, ValueError):
                    raise CorrectionsError(f"{where}: {name!r} is not a tile name") from None
        if self.now == self.was:
            raise CorrectionsError(f"{where}: renamed {self.was} to itself")

    @property
    def key(self) -> tuple[str, int]:
        return (self.file, self.line)

    @property
    def drops(self) -> bool:
        return self.now is None


@dataclass(frozen=True)
class Corrections:
    """The corrections of one export, by (label file, line)."""

    source: Path
    boxes: dict[tuple[str, int], BoxCorrection]

    def at(self, file: str, line: int) -> BoxCorrection | None:
        return self.boxes.get((file, line))


def load_corrections(path: Path) -> Corrections:
    """Read a corrections file (JSON: ``{"roboflow": {...}, "boxes": [{file, line, was, now,
    why}, ...]}``); every error names the file and the entry."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorrectionsError(f"{path}: not a corrections file ({exc})") from None
    entries = doc.get("boxes") if isinstance(doc, dict) else None
    if not isinstance(entries, list):
        raise CorrectionsError(f"{path}: no 'boxes' list")
    boxes: dict[tuple[str, int], BoxCorrection] = {}
    for n, entry in enumerate(entries, start=1):
        try:
            fix = _box(entry)
        except CorrectionsError as exc:
            raise CorrectionsError(f"{path}: box {n}: {exc}") from None
        if fix.key in boxes:
            raise CorrectionsError(f"{path}: box {n}: {fix.file} line {fix.line} corrected twice")
        boxes[fix.key] = fix
    return Corrections(Path(path), boxes)


def _box(entry: Any) -> BoxCorrection:
    if not isinstance(entry, dict) or not {"file", "line", "was", "now"} <= entry.keys():
        raise CorrectionsError(f"{entry!r}: expected file, line, was, now (and why)")
    file, line, was, now = entry["file"], entry["line"], entry["was"], entry["now"]
    if not (isinstance(file, str) and isinstance(line, int) and isinstance(was, str)):
        raise CorrectionsError(f"{entry!r}: file and was are text, line a number")
    if now is not None and not isinstance(now, str):
        raise CorrectionsError(f"{entry!r}: now is a tile name, or null to drop the box")
    return BoxCorrection(file, line, was, now, str(entry.get("why", "")))


def export_id(data_yaml: Path) -> tuple[str, str, int] | None:
    """The Roboflow workspace, project and version a ``data.yaml`` names (its ``roboflow:``
    block), or None."""
    text = data_yaml.read_text(encoding="utf-8", errors="replace")
    block = re.search(r"^roboflow:\s*\n((?:[ \t]+.*\n?)+)", text, re.M)
    if not block:
        return None
    fields = dict(
        (k.strip(), v.strip().strip("'\""))
        for k, _, v in (ln.partition(":") for ln in block.group(1).splitlines())
    )
    try:
        return fields["workspace"], fields["project"], int(fields["version"])
    except (KeyError, ValueError):
        return None


def corrections_for(data_yaml: Path, folder: Path = PACKAGED) -> Path | None:
    """The corrections file in ``folder`` made for the export whose ``data.yaml`` this is."""
    wanted = export_id(data_yaml)
    if wanted is None:
        return None
    for path in sorted(folder.glob("*.json")):
        made_for = json.loads(path.read_text(encoding="utf-8")).get("roboflow", {})
        if (made_for.get("workspace"), made_for.get("project"), made_for.get("version")) == wanted:
            return path
    return None


def photo_corrections(labels_csv: Path, folder: Path = PACKAGED) -> dict[str, tuple[str, str]]:
    """The corrections shipped for a ``labels.csv`` of single-tile photos (``image,tile``),
    recognised by its SHA-256 (``labels_sha256`` in a file of ``folder``): image → (its
    published tile, the right one); empty for any other file.

    >>> photo_corrections(Path("no-such/labels.csv"))
    {}
    """
    import hashlib

    try:
        digest = hashlib.sha256(Path(labels_csv).read_bytes()).hexdigest()
    except OSError:
        return {}
    for path in sorted(folder.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if doc.get("labels_sha256") == digest:
            return {str(p["image"]): (str(p["was"]), str(p["now"])) for p in doc["photos"]}
    return {}


def corrected_tile(fixes: dict[str, tuple[str, str]], image: str, tile: str) -> str:
    """``tile``, or the tile a correction of ``image`` names (a correction of another
    published tile is an error: the labels are not those it was made for).

    >>> corrected_tile({"1.jpg": ("8m", "8p")}, "1.jpg", "8m"), corrected_tile({}, "1.jpg", "8m")
    ('8p', '8m')
    """
    if image not in fixes:
        return tile
    was, now = fixes[image]
    if tile != was:
        raise CorrectionsError(f"{image} is labelled {tile}; its correction expects {was}")
    return now


__all__ = [
    "PACKAGED",
    "BoxCorrection",
    "Corrections",
    "CorrectionsError",
    "corrected_tile",
    "corrections_for",
    "export_id",
    "load_corrections",
    "photo_corrections",
]
