"""Real photographs as table surfaces and as the room beyond the table.

The procedural surfaces (:mod:`hupai.datasets.synth.surfaces`) are clean: real tables carry wood
grain, cloth, stone, light and clutter no noise function draws. Debian's ``mate-backgrounds``
ships photographs (``nature/``: wood, dunes, blinds, rain drops, flowers, meadows, a ladybird, a
storm) under **GPL-2.0-or-later** (its ``copyright`` file): fetched with ``apt-get download``
at training time (:func:`hupai.datasets.sheets.fetch`), never committed, credited in
models/MODEL_CARD.md. A scene given photos draws a random crop of one — turned, mirrored,
recoloured, at a random scale — as its table or its room.

>>> import numpy as np
>>> photo = np.full((300, 400, 3), 128, np.uint8)
>>> photo_surface(np.random.default_rng(0), [photo], 64, 96).shape
(64, 96, 3)
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from hupai.datasets.sheets import DEFAULT_CACHE, fetch

Rng = np.random.Generator

PACKAGE = "mate-backgrounds"
PHOTO_DIR = "usr/share/backgrounds/mate/nature"
#: Photos are kept at most this long side (px) in memory.
MAX_SIDE = 1024


def fetch_photos(cache: Path = DEFAULT_CACHE) -> list[Path]:
    """The package's photographs, downloaded and unpacked once under ``cache`` — or the
    ``*.jpg`` of ``$HUPAI_PHOTOS`` where that is set (a GPU run reads its pack's copies)."""
    packed = os.environ.get("HUPAI_PHOTOS")
    if packed:
        return sorted(Path(packed).glob("*.jpg"))
    root = fetch(cache, packages=(PACKAGE,), expected=(f"{PHOTO_DIR}/Wood.jpg",))
    return sorted((root / PHOTO_DIR).glob("*.jpg"))


def load_photos(paths: list[Path]) -> list[np.ndarray]:
    """BGR uint8 photos, shrunk to :data:`MAX_SIDE`."""
    photos = []
    for path in paths:
        img = cv2.imread(str(path))
        if img is None:
            raise ValueError(f"{path}: not a readable photograph")
        s = MAX_SIDE / max(img.shape[:2])
        if s < 1:
            img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        photos.append(img)
    return photos


def photo_surface(rng: Rng, photos: list[np.ndarray], h: int, w: int) -> np.ndarray:
    """A random crop of one photo, turned, mirrored and recoloured, as float32 BGR ``h × w``."""
    img = photos[int(rng.integers(len(photos)))]
    img = np.rot90(img, int(rng.integers(4)))
    if rng.random() < 0.5:
        img = img[:, ::-1]
    ph, pw = img.shape[:2]
    scale = float(rng.uniform(0.3, 1.0))  # share of the photo's short side the crop spans
    ch = max(8, min(ph, round(min(ph, pw) * scale * h / max(h, w))))
    cw = max(8, min(pw, round(ch * w / h)))
    y0, x0 = int(rng.integers(0, ph - ch + 1)), int(rng.integers(0, pw - cw + 1))
    crop = np.ascontiguousarray(img[y0 : y0 + ch, x0 : x0 + cw])
    out = cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    gain = rng.uniform(0.75, 1.15, 3).astype(np.float32)  # another light, another table
    if rng.random() < 0.25:  # a muted, greyer table
        grey = out.mean(2, keepdims=True)
        out = grey + (out - grey) * float(rng.uniform(0.2, 0.6))
    return np.asarray(np.clip(out * gain, 0, 255), np.float32)
