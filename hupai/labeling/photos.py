"""The photos under a folder (by suffix; hidden files and folders skipped)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from hupai.labeling.options import IMAGE_SUFFIXES


@dataclass(frozen=True)
class Photo:
    rel: str  # posix path under the photos folder
    path: Path
    size: int
    mtime_ns: int


def scan(folder: Path, exclude: Iterable[Path] = ()) -> tuple[list[Photo], list[str]]:
    """Photos under ``folder`` (recursively, hidden files and folders skipped, ``exclude``
    folders left out), sorted by path, and the other files' paths."""
    skip = {p.resolve() for p in exclude}
    photos, others = [], []
    for root, dirs, files in os.walk(folder):
        here = Path(root)
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and (here / d).resolve() not in skip
        )
        for name in sorted(files):
            if name.startswith("."):
                continue
            path = here / name
            rel = path.relative_to(folder).as_posix()
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                others.append(rel)
                continue
            try:
                st = path.stat()
            except OSError:
                photos.append(Photo(rel, path, -1, -1))  # a dangling link: reported unreadable
                continue
            photos.append(Photo(rel, path, st.st_size, st.st_mtime_ns))
    photos.sort(key=lambda p: p.rel)
    others.sort()
    return photos, others
