"""Crop sets of the namer's hard cases (:mod:`hupai.datasets.crops` layout): boxes straddling two
tiles and tiles cut by the edge in labelled photos, clutter (:mod:`hupai.datasets.clutter`), and
rows of tiles from sprite sheets of other sets with look-alikes (:mod:`hupai.datasets.sheets`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from hupai.datasets.clutter import clutter_crop
from hupai.datasets.crops import STORE_MARGIN, STORE_SIZE, CropSet, _Collector, labelled_photos
from hupai.datasets.hard_negatives import part_tile_crops, straddle_boxes
from hupai.vision.namer import REJECT, crop_box

Rng = np.random.Generator


def _stack(crops: list[NDArray[np.uint8]]) -> NDArray[np.uint8]:
    return np.stack(crops) if crops else np.zeros((0, STORE_SIZE, STORE_SIZE, 3), np.uint8)


def hard_crops_of(
    rng: Rng,
    image: NDArray[np.uint8],
    tiles: NDArray[np.float64],
    classes: NDArray[np.int64] | None,
    *,
    straddles: int,
    parts: int,
) -> tuple[NDArray[np.uint8], NDArray[np.int16], NDArray[np.float32]]:
    """Straddling boxes and part tiles of one photo (named part tiles only with ``classes``)."""
    boxes = straddle_boxes(rng, tiles, straddles)
    crops = [crop_box(image, b, STORE_SIZE, STORE_MARGIN) for b in boxes]
    labels: list[int] = [REJECT] * len(crops)
    sides = [float(min(b[2] - b[0], b[3] - b[1])) for b in boxes]
    part, part_labels, part_sides = part_tile_crops(
        rng, image, tiles, classes, parts, STORE_SIZE, STORE_MARGIN
    )
    crops += part
    labels += [REJECT if c is None else c for c in part_labels]
    sides += part_sides
    return _stack(crops), np.asarray(labels, np.int16), np.asarray(sides, np.float32)


def hard_crops_from_yolo(images_dir: Path, labels_dir: Path, *, seed: int = 0) -> CropSet:
    """Straddles and part tiles ("not a tile" only: the photos may be mirror images)."""
    rng = np.random.default_rng(seed)
    collected = _Collector()
    for photo in labelled_photos(images_dir, labels_dir, min_boxes=2):
        n = max(1, len(photo.boxes) // 6)
        crops = hard_crops_of(rng, photo.image, photo.xyxy, None, straddles=n, parts=n)
        collected.add(*crops, photo.path.name)
    return collected.crop_set()


def clutter_crops(n: int, *, seed: int) -> CropSet:
    """``n`` crops of clutter, one source per kind."""
    rng = np.random.default_rng(seed)
    kinds: dict[str, list[NDArray[np.uint8]]] = {}
    for _ in range(n):
        crop, kind = clutter_crop(rng, STORE_SIZE, STORE_MARGIN)
        kinds.setdefault(kind, []).append(crop)
    collected = _Collector()
    for kind, crops in sorted(kinds.items()):
        k = len(crops)
        collected.add(
            _stack(crops),
            np.full(k, REJECT, np.int16),
            np.full(k, 64.0, np.float32),
            f"clutter_{kind}",
        )
    return collected.crop_set()


def sheet_crops(n_rows: int, *, seed: int, root: Path | None = None) -> CropSet:
    """Crops of ``n_rows`` rows of sheet tiles: the tiles (look-alikes as "not a tile"),
    straddling boxes and part tiles. Sources name the art (``sheet_<art>``)."""
    from hupai.datasets.sheets import fetch, load_tiles, row_scene

    tiles = load_tiles(root or fetch())
    rng = np.random.default_rng(seed)
    collected = _Collector()
    for i in range(n_rows):
        scene = row_scene(rng, tiles)
        if not len(scene.boxes):
            continue
        crops = [crop_box(scene.image, b, STORE_SIZE, STORE_MARGIN) for b in scene.boxes]
        labels = np.array([REJECT if c is None else c for c in scene.classes], np.int16)
        sides = np.minimum(*(scene.boxes[:, 2:] - scene.boxes[:, :2]).T).astype(np.float32)
        real = labels != REJECT
        hard, hard_labels, hard_sides = hard_crops_of(
            rng,
            scene.image,
            scene.boxes[real],
            labels[real].astype(np.int64),
            straddles=2,
            parts=1,
        )
        collected.add(
            np.concatenate([_stack(crops), hard]),
            np.concatenate([labels, hard_labels]),
            np.concatenate([sides, hard_sides]),
            f"sheet_{i:06d}",
        )
    return collected.crop_set()
