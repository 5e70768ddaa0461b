"""What a labelling job is given (:class:`LabelOptions`), what it reports
(:class:`LabelReport`), its error and its constants.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hupai.vision.reading import Reading

#: Files read as photos (by suffix, any case); anything else is listed as not a photo.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff", ".heic", ".heif")
FORMATS = ("yolo", "labelstudio", "coco")
IMAGE_MODES = ("link", "copy")
ENGINES = ("local", "ray")
STATE_DIR = ".hupai"
MANIFEST_FORMAT = "hupai-label-manifest"
MANIFEST_VERSION = 1
#: Label Studio serves a local folder at this URL (LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT).
LS_LOCAL_FILES = "/data/local-files/?d="
#: Contact sheets: columns × rows of cells, each a thumbnail and a caption strip.
SHEET_GRID = (4, 3)
CELL = (400, 300)
CAPTION_PX = 26

#: The caller's scorer: (photo's path under the folder, its reading) → what to store under
#: ``score`` in the readings (``{"result": …}`` or ``{"error": …}``).
Scorer = Callable[[str, Reading], dict[str, Any]]


class LabelJobError(ValueError):
    """A problem with the job as given (folders, model, a busy or damaged output folder);
    the message names it."""


@dataclass(frozen=True)
class LabelOptions:
    photos: Path
    out: Path
    formats: tuple[str, ...] = FORMATS
    model: str | None = None
    namer: str | None = None  # default: the shipped namer (none: the detector names)
    no_namer: bool = False
    conf: float = 0.25
    workers: int = 1
    threads: int | None = None  # onnxruntime threads per worker (default: cores / workers)
    engine: str = "local"
    ray_address: str | None = None
    images: str = "link"
    previews: bool = False
    overwrite: bool = False
    ls_prefix: str = LS_LOCAL_FILES
    city: str | None = None  # chooses indicator or fishing for the set-apart tiles


@dataclass
class LabelReport:
    photos: int = 0  # photos found
    labelled: int = 0  # read by the detector in this run
    already_done: int = 0  # skipped: done in an earlier run
    failed: list[dict[str, str]] = field(default_factory=list)  # photo, error
    no_tiles: list[str] = field(default_factory=list)  # read, and no tile found
    not_photos: list[str] = field(default_factory=list)
    kept: list[dict[str, str]] = field(default_factory=list)  # path, reason
    gone: int = 0  # photos in the manifest no longer in the folder
    warnings: Counter[str] = field(default_factory=Counter)
    scored: Counter[str] = field(default_factory=Counter)  # valid / not_winning / error
    outputs: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: per photo read: its review score, confident, the doubting warnings (hupai.vision.trust)
    review: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    detect_seconds: float = 0.0  # wall time of the reading phase

    @property
    def photos_per_second(self) -> float:
        return self.labelled / self.detect_seconds if self.detect_seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "photos": self.photos,
            "labelled": self.labelled,
            "already_done": self.already_done,
            "failed": self.failed,
            "no_tiles": self.no_tiles,
            "not_photos": self.not_photos,
            "kept": self.kept,
            "gone": self.gone,
            "warnings": dict(sorted(self.warnings.items())),
            "scored": dict(sorted(self.scored.items())),
            "outputs": self.outputs,
            "notes": self.notes,
            # the photos to look at first: doubtful ones first, then by the weakest tile
            "review": sorted(self.review, key=lambda r: (r["score"], r["photo"])),
            "seconds": round(self.seconds, 2),
            "photos_per_second": round(self.photos_per_second, 2),
        }

    def summary(self) -> str:
        lines = [
            f"{self.photos} photo(s): {self.labelled} labelled now, {self.already_done} done "
            f"before, {len(self.failed)} unreadable"
            + (f" ({self.photos_per_second:.2f} photos/s)" if self.labelled else "")
        ]
        for f in self.failed:
            lines.append(f"  unreadable: {f['error']}")
        if self.no_tiles:
            shown = ", ".join(self.no_tiles[:5]) + (" …" if len(self.no_tiles) > 5 else "")
            lines.append(
                f"  {len(self.no_tiles)} photo(s) with no tile found (empty labels): {shown}"
            )
        if self.not_photos:
            shown = ", ".join(self.not_photos[:5]) + (" …" if len(self.not_photos) > 5 else "")
            lines.append(f"  {len(self.not_photos)} file(s) skipped, not photos: {shown}")
        for k in self.kept:
            lines.append(f"  kept {k['path']}: {k['reason']}")
        if self.kept:
            lines.append("  (--overwrite replaces them)")
        if self.warnings:
            shown = ", ".join(f"{c} {n}" for c, n in sorted(self.warnings.items()))
            lines.append(f"  reading warnings: {shown}")
        if self.scored:
            lines.append(
                "  scored: " + ", ".join(f"{k} {n}" for k, n in sorted(self.scored.items()))
            )
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)
