"""Tile crops for the namer: from labelled photos (YOLO folders) and from synthetic scenes.

A crop set is stored as one ``.npz``: ``images`` (n, STORE_SIZE, STORE_SIZE, 3) uint8 BGR,
``labels`` (n,) namer class ids (hupai's 43 and ``reject``), ``groups`` (n,) the photo each
crop came from (an index into ``sources``), ``sources`` (the photos' names) and ``sides``
(n,) the box's shorter side in its photo, px (training leaves out tiles too small to name).
Crops are stored with a wide margin (:data:`STORE_MARGIN`) so that training can choose the margin,
shift and turn them (:mod:`hupai.training.namer`); they are cut exactly as the runtime cuts
them (:func:`hupai.vision.namer.crop_box`: portrait, square).

Negatives ("not a tile") are boxes of tile size where no tile is: the table, clutter, props,
the photo's edge; and in synthetic scenes the tiles whose face is mostly hidden (walls seen
edge-on, tiles under others), which the labels leave out.

>>> s = CropSet.concat([])
>>> len(s)
0
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hupai.datasets.labels import LabelBox, LabelError, load_yolo_labels
from hupai.vision.detections import box_iou
from hupai.vision.namer import REJECT, crop_box

#: Stored crops: this size, the box widened by this margin on every side.
STORE_SIZE = 96
STORE_MARGIN = 0.25
#: Negatives drawn per photo, as a share of its labelled tiles (at least one).
NEGATIVE_SHARE = 0.25
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}


@dataclass
class CropSet:
    images: NDArray[np.uint8]
    labels: NDArray[np.int16]
    groups: NDArray[np.int32]
    sources: list[str]
    sides: NDArray[np.float32] | None = None

    def __len__(self) -> int:
        return len(self.labels)

    @staticmethod
    def concat(parts: Sequence[CropSet]) -> CropSet:
        if not parts:
            return CropSet(
                np.zeros((0, STORE_SIZE, STORE_SIZE, 3), np.uint8),
                np.zeros(0, np.int16),
                np.zeros(0, np.int32),
                [],
            )
        sources: list[str] = []
        groups = []
        for p in parts:
            groups.append(p.groups + len(sources))
            sources += p.sources
        sides = [p.sides for p in parts]
        return CropSet(
            np.concatenate([p.images for p in parts]),
            np.concatenate([p.labels for p in parts]),
            np.concatenate(groups).astype(np.int32),
            sources,
            None if any(s is None for s in sides) else np.concatenate(sides),  # type: ignore[arg-type]
        )

    def subset(self, mask: NDArray[np.bool_] | NDArray[np.int64]) -> CropSet:
        sides = None if self.sides is None else self.sides[mask]
        return CropSet(self.images[mask], self.labels[mask], self.groups[mask], self.sources, sides)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        arrays: dict[str, NDArray[Any]] = {
            "images": self.images,
            "labels": self.labels,
            "groups": self.groups,
            "sources": np.asarray(self.sources, dtype=str),
        }
        if self.sides is not None:
            arrays["sides"] = self.sides
        np.savez(tmp, **arrays)  # type: ignore[arg-type]
        tmp.replace(path)

    @staticmethod
    def load(path: Path) -> CropSet:
        with np.load(path) as data:
            sides = data["sides"] if "sides" in data.files else None
            return CropSet(
                data["images"],
                data["labels"],
                data["groups"],
                [str(s) for s in data["sources"]],
                sides,
            )


def negative_boxes(
    rng: np.random.Generator,
    tiles: NDArray[np.float64],
    size: tuple[int, int],
    n: int,
    tries: int = 40,
) -> NDArray[np.float64]:
    """Up to ``n`` boxes of tile size (xyxy pixels) that hold no tile: IoU under 0.05 with
    every tile and no tile's centre inside.

    >>> b = negative_boxes(np.random.default_rng(0), np.array([[0, 0, 50, 60.]]), (400, 300), 3)
    >>> len(b), bool((box_iou(b, np.array([[0, 0, 50, 60.]])) < 0.05).all())
    (3, True)
    """
    w, h = size
    if len(tiles):
        side = np.median(tiles[:, 2:] - tiles[:, :2], axis=0)
    else:
        side = np.array([0.06 * w, 0.08 * h])
    centres = (tiles[:, :2] + tiles[:, 2:]) / 2 if len(tiles) else np.zeros((0, 2))
    out: list[list[float]] = []
    for _ in range(n * tries):
        if len(out) >= n:
            break
        bw, bh = side * rng.uniform(0.5, 1.6, 2)
        if rng.random() < 0.5:
            bw, bh = bh, bw
        bw, bh = min(bw, w - 1), min(bh, h - 1)
        x1, y1 = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
        box = np.array([[x1, y1, x1 + bw, y1 + bh]])
        if len(tiles):
            if box_iou(box, tiles).max() >= 0.05:
                continue
            inside = (
                (centres[:, 0] > x1)
                & (centres[:, 0] < x1 + bw)
                & (centres[:, 1] > y1)
                & (centres[:, 1] < y1 + bh)
            )
            if inside.any():
                continue
        out.append(box[0].tolist())
    return np.asarray(out, np.float64).reshape(-1, 4)


def photo_crops(
    image: NDArray[np.uint8],
    tiles: NDArray[np.float64],
    classes: NDArray[np.int64],
    rng: np.random.Generator | None,
    extra_negatives: NDArray[np.float64] | None = None,
) -> tuple[NDArray[np.uint8], NDArray[np.int16], NDArray[np.float32]]:
    """The stored crops of one photo's tiles, then of negatives (when ``rng`` is given),
    with each box's shorter side."""
    boxes = [tiles]
    labels = [classes.astype(np.int16)]
    if rng is not None:
        h, w = image.shape[:2]
        n = max(1, round(NEGATIVE_SHARE * len(tiles)))
        neg = negative_boxes(rng, tiles, (w, h), n)
        if extra_negatives is not None and len(extra_negatives):
            neg = np.concatenate([neg, extra_negatives])
        boxes.append(neg)
        labels.append(np.full(len(neg), REJECT, np.int16))
    xyxy = np.concatenate(boxes)
    crops = [crop_box(image, b, STORE_SIZE, STORE_MARGIN) for b in xyxy]
    stacked = np.stack(crops) if crops else np.zeros((0, STORE_SIZE, STORE_SIZE, 3), np.uint8)
    sides = np.minimum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]).astype(np.float32)
    return stacked, np.concatenate(labels), sides


def yolo_pairs(images_dir: Path, labels_dir: Path) -> Iterator[tuple[Path, Path]]:
    for image in sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        yield image, labels_dir / (image.stem + ".txt")


@dataclass(frozen=True)
class LabelledPhoto:
    """A photo of a YOLO folder with its boxes, in pixels (``xyxy``) and as labelled."""

    path: Path
    labels: Path
    boxes: list[LabelBox]
    image: NDArray[np.uint8]
    xyxy: NDArray[np.float64]


def labelled_photos(
    images_dir: Path, labels_dir: Path, *, min_boxes: int = 1
) -> Iterator[LabelledPhoto]:
    """The photos with at least ``min_boxes`` labelled boxes that OpenCV can read."""
    import cv2

    for image_path, label_path in yolo_pairs(images_dir, labels_dir):
        boxes = load_yolo_labels(label_path) if label_path.is_file() else []
        if len(boxes) < min_boxes:
            continue
        read = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if read is None:
            continue
        image = np.asarray(read, np.uint8)
        h, w = image.shape[:2]
        xyxy = np.array([b.xyxy for b in boxes], np.float64) * [w, h, w, h]
        yield LabelledPhoto(image_path, label_path, boxes, image, xyxy)


def crops_from_yolo(
    images_dir: Path, labels_dir: Path, *, negatives: bool = True, seed: int = 0
) -> CropSet:
    """Crops of every labelled box of a YOLO folder, and negatives from photos whose labels
    are not empty (an empty label file may hide tiles). Classes by name: the folder's
    data.yaml or classes.txt (e.g. Label Studio's alphabetical order) maps its ids."""
    from hupai.datasets.names import folder_class_map

    ids = folder_class_map(images_dir, images_dir.parent.parent)
    rng = np.random.default_rng(seed)
    collected = _Collector()
    for photo in labelled_photos(images_dir, labels_dir):
        boxes = photo.boxes
        if ids is not None and any(b.cls >= len(ids) for b in boxes):
            raise LabelError(f"{photo.labels}: a class id beyond the {len(ids)} names")
        classes = np.array([b.cls if ids is None else ids[b.cls] for b in boxes], np.int64)
        collected.add(
            *photo_crops(photo.image, photo.xyxy, classes, rng if negatives else None),
            photo.path.name,
        )
    return collected.crop_set()


class _Collector:
    """Crops of one photo after another → one :class:`CropSet`."""

    def __init__(self) -> None:
        self.parts: list[tuple[Any, ...]] = []
        self.sources: list[str] = []

    def add(
        self,
        crops: NDArray[np.uint8],
        labels: NDArray[np.int16],
        sides: NDArray[np.float32],
        source: str,
    ) -> None:
        group = np.full(len(labels), len(self.sources), np.int32)
        self.parts.append((crops, labels, group, sides))
        self.sources.append(source)

    def crop_set(self) -> CropSet:
        if not self.parts:
            return CropSet.concat([])
        images, labels, groups, sides = (
            np.concatenate(col) for col in zip(*self.parts, strict=True)
        )
        return CropSet(images, labels, groups, self.sources, sides)


# -- synthetic scenes ------------------------------------------------------------------------

_RENDERER: Any = None


def _init_renderer(
    cache_folder: str,
    sets: tuple[str, ...] | None,
    generated: Any = None,
    photos: tuple[str, ...] = (),
    mix: Any = None,
) -> None:
    import cv2

    from hupai.datasets.synth.art import load_glyphs
    from hupai.datasets.synth.render import Renderer

    global _RENDERER
    cv2.setNumThreads(1)
    bank = load_glyphs(Path(cache_folder))
    if sets is not None:
        bank = {k: v for k, v in bank.items() if k in sets}
    from hupai.datasets.synth.photos import load_photos

    _RENDERER = Renderer(bank, generated, load_photos([Path(p) for p in photos]), mix=mix)


#: Clutter of a scene (keyboard caps, pasted things) cut as "not a tile", at most this many.
CLUTTER_NEGATIVES = 3

#: Tiles whose face shows less than this share are "not a tile" for the namer (a wall seen
#: edge-on, a tile under another); between this and the labels' own threshold, neither. Kept
#: low: a namer trained with more of them rejected blank white dragons (41 of its 145 errors
#: on real val crops were 5z read as "not a tile").
HIDDEN_FACE = 0.08


def _clear_of(box: tuple[int, int, int, int], tiles: list[Any]) -> bool:
    """Whether ``box`` overlaps no tile of the scene by more than a tenth of its area."""
    x1, y1, x2, y2 = box
    area = max(1, (x2 - x1) * (y2 - y1))
    for r in tiles:
        if r.xyxy is None:
            continue
        ix = min(x2, r.xyxy[2]) - max(x1, r.xyxy[0])
        iy = min(y2, r.xyxy[3]) - max(y1, r.xyxy[1])
        if ix > 0 and iy > 0 and ix * iy > 0.1 * area:
            return False
    return True


def scene_crops(
    task: tuple[int, int, int],
) -> tuple[NDArray[np.uint8], NDArray[np.int16], NDArray[np.float32], str]:
    """Render scene ``index`` of ``seed`` and cut its crops: labelled tiles, tiles whose face
    is mostly hidden (as ``reject``), background negatives, and a few of its clutter (keyboard
    caps and pasted things clear of every tile, as ``reject``)."""
    seed, index, size = task
    rng = np.random.default_rng([seed, index])
    scene = _RENDERER.render(rng, size)
    labelled = [(c, xy) for c, xy in scene.labels]
    xyxy = np.array([xy for _, xy in labelled], np.float64).reshape(-1, 4)
    classes = np.array([c for c, _ in labelled], np.int64)
    hidden = [
        r.xyxy
        for r in scene.tiles
        if r.xyxy is not None and not r.labelled and 0.02 < r.visible_face < HIDDEN_FACE
    ]
    clear = [box for _kind, box in scene.clutter if _clear_of(box, scene.tiles)]
    if clear:
        pick = rng.choice(len(clear), size=min(CLUTTER_NEGATIVES, len(clear)), replace=False)
        hidden += [clear[int(k)] for k in pick]
    extra = np.array(hidden, np.float64).reshape(-1, 4)
    crops, labels, sides = photo_crops(scene.image, xyxy, classes, rng, extra)
    art = str(scene.info.get("art_set", "mixed"))
    return crops, labels, sides, f"synth_s{seed}_{index:07d}_{art}"


def crops_from_synth(
    n_scenes: int,
    *,
    seed: int,
    size: int = 640,
    sets: Sequence[str] | None = None,
    workers: int = 2,
    progress: bool = False,
    cache: Path | None = None,
    generated: Any = None,
    photos: Sequence[Path] = (),
    mix: Any = None,
) -> CropSet:
    """Crops of ``n_scenes`` synthetic scenes rendered from the art sets (``sets``: only
    these, for a leave-one-set-out run; ``cache``: another glyph cache than ../shared/art's,
    such as :func:`hupai.datasets.kde_tiles.build_cache`'s; ``generated``: a
    :class:`hupai.datasets.synth.render.GeneratedFaces` share drawn with procedural styles;
    ``photos``: real photographs for some tables and rooms, :mod:`hupai.datasets.synth.photos`;
    ``mix``: the :class:`hupai.datasets.synth.render.SceneMix`, keyboards and printed sheets)."""
    import multiprocessing
    import sys
    import time

    from hupai.datasets.synth.art import build_cache

    cache = cache or build_cache()
    tasks = [(seed, i, size) for i in range(n_scenes)]
    init_args = (
        str(cache),
        tuple(sets) if sets is not None else None,
        generated,
        tuple(str(p) for p in photos),
        mix,
    )
    collected = _Collector()
    began = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(workers, initializer=_init_renderer, initargs=init_args) as pool:
        for k, (crops, y, side, name) in enumerate(pool.imap(scene_crops, tasks, chunksize=4)):
            collected.add(crops, y, side, name)
            if progress and (k + 1) % 200 == 0:
                rate = (k + 1) / (time.perf_counter() - began)
                print(f"  synth crops: {k + 1}/{n_scenes} scenes, {rate:.1f}/s", file=sys.stderr)
    return collected.crop_set()
