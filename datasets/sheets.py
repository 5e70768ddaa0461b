"""Whole tiles from sprite sheets in Debian packages — a photographed real set
(``xmahjongg`` ``real.gif``), a drawn set with bodies (``gnome-mahjongg`` ``smooth.png``) and
tile-shaped look-alikes that are not mahjong tiles (``edu_kang_xi.png``: radicals and
pinyin) — composed into rows of tiles standing edge to edge, tall or squat, seen at an
angle, on table surfaces: crops for the namer (tiles, boxes straddling two tiles, tiles cut
by the photo's edge, look-alikes as "not a tile").

The packages are **GPL-2.0-or-later**: fetched at training time (:func:`fetch`: ``apt-get
download`` + ``dpkg -x`` into a cache folder), never copied into the repository; credited
in models/MODEL_CARD.md. See ../shared/notes/more-tile-art.md.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from hupai.scoring.tiles import Tile
from hupai.vision.classes import class_of

Rng = np.random.Generator
DEFAULT_CACHE = Path("data/debian-art")
PACKAGES = ("xmahjongg", "gnome-mahjongg")
REAL_GIF = "usr/share/games/xmahjongg/tiles/real.gif"
SMOOTH_PNG = "usr/share/gnome-mahjongg/themes/smooth.png"
KANGXI_PNG = "usr/share/gnome-mahjongg/themes/edu_kang_xi.png"
#: How both packages' sheets begin: dots, winds and dragons, characters, bamboos
SHEET_ORDER_START = (
    "1p 2p 3p 4p 5p 6p 7p 8p 9p 4z 3z 2z 1z 7z 6z 1m 2m 3m 4m 5m 6m 7m 8m 9m "
    "1s 2s 3s 4s 5s 6s 7s 8s 9s"
)
#: A drawn set no model is trained on: the held-out art of the leave-one-set-out measure
#: (``bench/heldout.py``). 21 × 4 tiles of 64 × 80; the lower two rows repeat the upper two.
HELD_OUT_GIF = "usr/share/games/xmahjongg/tiles/dorothys.gif"
HELD_OUT_ORDER = f"{SHEET_ORDER_START} 5f 6f 7f 8f 5z 4f 2f 1f 3f".split()

#: real.gif: 9 × 5 cells; None = the sheet's credits
REAL_GRID = (
    "1p 2p 3p 4p 5p 6p 7p 8p 9p",
    "1s 2s 3s 4s 5s 6s 7s 8s 9s",
    "1m 2m 3m 4m 5m 6m 7m 8m 9m",
    "5f 6f 7f 8f 4z 2z 1z 3z -",
    "1f 2f 3f 4f 6z 5z 7z - -",
)
#: smooth.png: 43 tiles of 96 × 132 in one row (a second row: the same, highlighted)
SMOOTH_ORDER = f"{SHEET_ORDER_START} 2f 3f 1f 4f 5z 5f 6f 7f 8f -".split()


class SheetError(RuntimeError):
    pass


@dataclass(frozen=True)
class SheetTile:
    image: NDArray[np.uint8]  # BGR, the whole tile (body and face)
    cls: int | None  # None: a look-alike, not a mahjong tile
    art: str


def fetch(
    cache: Path = DEFAULT_CACHE,
    packages: tuple[str, ...] = PACKAGES,
    expected: tuple[str, ...] = (REAL_GIF, SMOOTH_PNG),
) -> Path:
    """The packages' files under ``cache`` (downloaded and unpacked once; ``expected``: files
    that say they are there)."""
    root = cache / "root"
    if all((root / path).is_file() for path in expected):
        return root
    cache.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(
            ["apt-get", "download", *packages], cwd=cache, check=True, capture_output=True
        )
    except (OSError, subprocess.CalledProcessError) as e:
        raise SheetError(f"apt-get download {' '.join(packages)} failed: {e}") from e
    for package in packages:
        for deb in cache.glob(f"{package}_*.deb"):
            subprocess.run(["dpkg", "-x", str(deb), str(root)], check=True)
    return root


def _read(path: Path) -> NDArray[np.uint8]:
    from PIL import Image

    with Image.open(path) as im:
        return np.ascontiguousarray(np.asarray(im.convert("RGB"))[:, :, ::-1])


def _cls(name: str) -> int:
    return class_of(Tile.parse(name))


def load_tiles(root: Path) -> list[SheetTile]:
    tiles: list[SheetTile] = []
    real = _read(root / REAL_GIF)
    ch, cw = real.shape[0] / len(REAL_GRID), real.shape[1] / 9
    for r, row in enumerate(REAL_GRID):
        for c, name in enumerate(row.split()):
            if name != "-":
                cell = real[
                    round(r * ch) + 1 : round((r + 1) * ch) - 1,
                    round(c * cw) + 1 : round((c + 1) * cw) - 1,
                ]
                tiles.append(SheetTile(cell, _cls(name), "xmahjongg-real"))
    for path, art in ((SMOOTH_PNG, "gnome-smooth"), (KANGXI_PNG, "gnome-kangxi")):
        sheet = _read(root / path)
        w = sheet.shape[1] // len(SMOOTH_ORDER)
        for band in range(2):  # the tiles, then the same highlighted
            for k, name in enumerate(SMOOTH_ORDER):
                cell = sheet[band * 132 : (band + 1) * 132, k * w : (k + 1) * w]
                if art == "gnome-kangxi":
                    tiles.append(SheetTile(cell, None, art))
                elif name != "-" and band == 0:
                    tiles.append(SheetTile(cell, _cls(name), art))
    return tiles


@dataclass
class RowScene:
    image: NDArray[np.uint8]
    boxes: NDArray[np.float64]  # xyxy of each tile in the row
    classes: list[int | None]


def row_scene(rng: Rng, tiles: list[SheetTile], size: int = 320) -> RowScene:
    """A row of 3–8 tiles of one art standing edge to edge (some rows with look-alikes
    among them), stretched tall or squat, seen from a seated player down to a low webcam."""
    import cv2

    from hupai.datasets.synth.surfaces import table_texture

    art = [t for t in tiles if t.cls is not None]
    arts = sorted({t.art for t in art})
    pick_art = arts[int(rng.integers(len(arts)))]
    pool = [t for t in art if t.art == pick_art]
    fakes = [t for t in tiles if t.cls is None]
    n = int(rng.integers(3, 9))
    chosen = [
        fakes[int(rng.integers(len(fakes)))]
        if rng.random() < 0.15
        else pool[int(rng.integers(len(pool)))]
        for _ in range(n)
    ]
    aspect = float(rng.uniform(0.6, 0.85))  # width / height
    th = float(rng.uniform(0.22, 0.45)) * size
    tw = aspect * th
    gap = float(rng.choice([0.0, 0.0, rng.uniform(0, 0.05)])) * tw
    canvas = np.asarray(np.clip(table_texture(rng, size, size * 2), 0, 255), np.uint8)
    x0 = float(rng.uniform(-0.3, 0.2)) * tw + 0.3 * size
    y0 = (size - th) / 2 + float(rng.normal(0, 0.1)) * size
    boxes = []
    for k, tile in enumerate(chosen):
        x = x0 + k * (tw + gap)
        img = cv2.resize(
            tile.image, (max(2, round(tw)), max(2, round(th))), interpolation=cv2.INTER_AREA
        )
        xi, yi = round(x), round(y0)
        x2, y2 = xi + img.shape[1], yi + img.shape[0]
        if xi < 0 or yi < 0 or x2 > canvas.shape[1] or y2 > canvas.shape[0]:
            continue  # a tile cut by the edge: the row stops before it
        canvas[yi:y2, xi:x2] = img
        boxes.append((k, [xi, yi, x2, y2]))
    # perspective: the far edge narrower (low camera), a turn, a tilt
    h, w = canvas.shape[:2]
    squeeze = float(rng.uniform(0, 0.35))
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = np.array(
        [
            [squeeze * w / 2, 0],
            [w - squeeze * w / 2, 0],
            [w, h * float(rng.uniform(0.75, 1))],
            [0, h],
        ],
        np.float32,
    )
    dst += rng.normal(0, 0.02 * h, (4, 2)).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    image = cv2.warpPerspective(canvas, m, (w, h), borderMode=cv2.BORDER_REFLECT)
    out_boxes: list[list[float]] = []
    classes: list[int | None] = []
    for k, (x1, y1, x2, y2) in boxes:
        quad = np.array([[[x1, y1], [x2, y1], [x2, y2], [x1, y2]]], np.float32)
        pts = cv2.perspectiveTransform(quad, m)[0]
        if pts.min() < 0 or (pts[:, 0] > w).any() or (pts[:, 1] > h).any():
            continue
        out_boxes.append([*pts.min(0), *pts.max(0)])
        classes.append(chosen[k].cls)
    return RowScene(
        np.asarray(image, np.uint8), np.asarray(out_boxes, np.float64).reshape(-1, 4), classes
    )


def held_out_glyphs(root: Path) -> dict[int, list[NDArray[np.uint8]]]:
    """The held-out set's faces as glyphs for :class:`hupai.datasets.synth.render.Renderer`:
    BGRA, the ivory face keyed out (ink where the colour departs from it), cropped to ink."""
    from hupai.datasets.synth.art import crop_to_ink, stored_glyph

    sheet = _read(root / HELD_OUT_GIF)
    glyphs: dict[int, list[NDArray[np.uint8]]] = {}
    for k, name in enumerate(HELD_OUT_ORDER):
        row, col = divmod(k, 21)
        face = sheet[row * 80 + 3 : row * 80 + 74, col * 64 + 6 : col * 64 + 60]
        ivory = np.median(np.concatenate([face[:3].reshape(-1, 3), face[-3:].reshape(-1, 3)]), 0)
        distance = np.abs(face.astype(np.float32) - ivory).sum(axis=2)
        alpha = np.clip((distance - 40) * 4, 0, 255).astype(np.uint8)
        glyph = crop_to_ink(np.dstack([face, alpha]))
        glyphs.setdefault(_cls(name), []).append(stored_glyph(glyph))
    return glyphs
