"""The bonus reader: which flower or season a tile is, from a closer look.

The namer names 64-px crops. A flower's or season's number (1-4, 一二三四) and character
(梅蘭菊竹, 春夏秋冬) sit in a corner of the face beside a picture that many sets paint the
same on all eight tiles: at 64 px they are a few pixels, and on sets it never saw the namer
guesses (on the camerash tiles it read 14 of 24 spring and autumn tiles as winter). The bonus
reader sees the tiles the namer calls a flower or a season at :data:`BONUS_SIZE` px and says
which of the eight it is; whether a box is a bonus tile at all stays the namer's word
(:class:`hupai.vision.namer.Namer`).

It is a namer of the same architecture and 44-way head (so the namer's training, export and
quantization serve it as they are) that trained on flowers and seasons only — its other
outputs are never read. Its crops:

* procedural set styles of the training families (:mod:`hupai.datasets.synth.faces`) drawn
  as tiles: a face on a body with a back layer, in a row or alone on a table, seen at 40-240
  px (:func:`compose_tile`);
* the art sets' bonus faces, drawn the same way;
* the real train photos' bonus tiles, each photo turned back when it is a mirror image (half
  of the Roboflow set's photos are flipped: a mirrored 3 is not a 3).

Chosen on the real val split's bonus tiles and the held-out family's (never on test; the
camerash tiles are measured once, after the choice).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from hupai.datasets.crops import STORE_MARGIN, CropSet
from hupai.training.namer import (
    NamerConfig,
    centre_inputs,
    load_weights,
    predict,
    resume,
    save_epoch,
    start_run,
    train_epochs,
)
from hupai.vision.classes import BACK
from hupai.vision.namer import BONUS, BONUS_AND_BIRD

if TYPE_CHECKING:
    from hupai.training.quantize import Check

#: The bonus reader's input side (px): a tile's corner number is then 8-15 px high.
BONUS_SIZE = 128
#: Stored crops: the box spans BONUS_SIZE px, widened by STORE_MARGIN on each side.
BONUS_STORE = round(BONUS_SIZE * (1 + 2 * STORE_MARGIN))

Rng = np.random.Generator

#: Every tile face (1m-8f): what a bird reader trained with ``every_tile`` names.
EVERY_FACE: NDArray[np.int64] = np.arange(BACK, dtype=np.int64)


@dataclass(frozen=True)
class ReaderFaces:
    """What a run's reader names: its classes, the suffix of its crop sets' files (sets of
    other faces are other sets), what its manifest says it trained on and what it is."""

    classes: NDArray[np.int64]
    suffix: str
    data: str
    kind: str


#: Each kind of reader :attr:`BonusConfig.faces` names.
FACES: dict[str, ReaderFaces] = {
    "eight": ReaderFaces(
        BONUS,
        "",
        "flowers and seasons only",
        f"bonus reader: which flower or season a box the namer calls one is, from a "
        f"{BONUS_SIZE}-px look (only its outputs 1f-8f are read)",
    ),
    "bird": ReaderFaces(
        BONUS_AND_BIRD,
        "-bird",
        "flowers and seasons and the 1 of bamboo",
        f"bird reader: how likely a box the namer calls a flower or a season is the 1 of "
        f"bamboo, from a {BONUS_SIZE}-px look (only its outputs 1f-8f and 1s are read: the "
        "bird's share of the nine); trained as a bonus reader, it may serve as one too",
    ),
    "every": ReaderFaces(
        EVERY_FACE,
        "-every",
        "every tile face",
        f"bird reader of every tile: how likely a box the namer names a suit tile or an "
        f"honour is the 1 of bamboo rather than that tile, from a {BONUS_SIZE}-px look (trained "
        "on every tile face; its outputs for the bird and the namer's name are read)",
    ),
}


@dataclass(frozen=True)
class BonusConfig:
    name: str = "bonus"
    project: str = "runs"
    data: str = "data/bonus"
    real: str = "data/real"
    namer: str | None = None  # judges which real photos are mirror images (default: shipped)
    styles: int = 1200  # procedural set styles drawn (each its eight bonus faces)
    val_styles: int = 120  # of the held-out family, for selection
    art_variants: int = 40  # tiles drawn of each art set's bonus face
    seed: int = 0
    epochs: int = 8
    epoch_crops: int = 6000
    batch: int = 48
    lr: float = 1e-3
    gen_share: float = 0.55
    art_share: float = 0.1  # the rest: real train
    threads: int = 2
    # the 1 of bamboo too (:data:`hupai.vision.namer.BIRD`): a bird reader, which says when a
    # box the namer calls a flower is the bird most sets draw on it (False: a bonus reader of
    # the eight alone, as v1)
    bird: bool = True
    # every tile face (1m-8f, not the back): a bird reader that also knows the tiles the namer
    # mistakes the bird for on sets it never saw (the red dragon, the 5 and 3 of characters),
    # so that it can say so of a box the namer names one of them (implies ``bird``)
    every_tile: bool = False
    # a checkpoint whose model weights a fresh run starts from (another reader's best.pt)
    init: str | None = None
    # Lite0 cut after this many of its 16 blocks, with a head conv of this many channels
    # (0: the whole Lite0, 3.4 M weights): the reader's models stay small (#37's 8 MB)
    blocks: int = 0
    head: int = 256

    @property
    def run_dir(self) -> Path:
        return Path(self.project) / self.name

    @staticmethod
    def saved(data: dict[str, Any]) -> BonusConfig:
        """The config a checkpoint saved (``asdict``); fields it lacks as the run that saved
        it had them (a checkpoint from before ``bird`` named the eight alone)."""
        known = {f.name for f in fields(BonusConfig)}
        return BonusConfig(**{"bird": False, **{k: v for k, v in data.items() if k in known}})

    @property
    def faces(self) -> str:
        """What the reader names (a key of :data:`FACES`): ``"every"`` tile face, the eight
        flowers and seasons and the ``"bird"``, or the ``"eight"`` alone."""
        return "every" if self.every_tile else "bird" if self.bird else "eight"

    @property
    def classes(self) -> NDArray[np.int64]:
        """The classes the reader names."""
        return FACES[self.faces].classes

    def crop_files(self) -> dict[str, Path]:
        """Each crop set of the run by name, and its file under ``data`` (built once, reused):
        generated faces, the held-out family's, the art sets', real train's and real val's."""
        from hupai.datasets.labels import labels_digest
        from hupai.datasets.synth.faces import HELD_OUT_FAMILY

        art = "" if self.art_variants == 40 else f"-n{self.art_variants}"
        stems = {
            "gen": f"gen-s{self.seed}-n{self.styles}",
            f"heldout-{HELD_OUT_FAMILY}": (
                f"heldout-{HELD_OUT_FAMILY}-s{self.seed + 1}-n{self.val_styles}"
            ),
            "art": f"art-s{self.seed}{art}",
            # real photos' crops carry their labels' digest: corrected labels make new crops
            **{
                f"real-{split}": f"real-{split}-{labels_digest(Path(self.real) / 'labels' / split)}"
                for split in ("train", "val")
            },
        }
        suffix = FACES[self.faces].suffix
        return {k: Path(self.data) / f"{stem}{suffix}.npz" for k, stem in stems.items()}

    def trainer(self) -> NamerConfig:
        """The namer's training settings this run trains with."""
        return NamerConfig(
            name=self.name,
            project=self.project,
            size=BONUS_SIZE,
            batch=self.batch,
            lr=self.lr,
            flower_boost=1.0,
            seed=self.seed,
            threads=self.threads,
        )


def is_selection(name: str) -> bool:
    """Whether a run's crop set (:meth:`BonusConfig.crop_files`) is one it chooses its weights
    on: real val's bonus tiles, the held-out family's."""
    return name == "real-val" or name.startswith("heldout-")


def build_bonus_model(blocks: int = 0, head: int = 256) -> Any:
    """Lite0 with ImageNet weights and the namer's 44-way head; ``blocks`` > 0: cut after that
    many blocks (their ImageNet weights kept), a fresh ``head``-channel head conv on them."""
    from torch import nn

    from hupai.training.namer import build_model

    model = build_model()
    if blocks:
        model._blocks = model._blocks[:blocks]
        width = model._blocks[-1]._project_conv.out_channels
        model._conv_head = nn.Conv2d(width, head, kernel_size=1, bias=False)
        model._bn1 = nn.BatchNorm2d(head, momentum=0.01, eps=1e-3)
        model._fc = nn.Linear(head, model._fc.out_features)
    return model


# -- tiles drawn from a face -----------------------------------------------------------------


def _colour(rng: Rng, base: Sequence[float] | NDArray[Any], spread: float) -> NDArray[np.float32]:
    return np.clip(np.asarray(base, np.float32) + rng.normal(0, spread, 3), 0, 255).astype(
        np.float32
    )


FACE_COLOURS = ((238, 244, 248), (222, 236, 242), (200, 226, 238), (246, 246, 246))
BACK_COLOURS = ((60, 140, 40), (150, 90, 30), (40, 160, 230), (60, 60, 200), (180, 180, 60))


def _rounded(h: int, w: int, r: float) -> NDArray[np.float32]:
    """A soft rounded-rectangle mask (h, w) in [0, 1]."""
    import cv2

    m = np.zeros((h * 4, w * 4), np.uint8)
    r4 = max(1, round(r * 4))
    cv2.rectangle(m, (r4, 0), (w * 4 - 1 - r4, h * 4 - 1), 255, -1)
    cv2.rectangle(m, (0, r4), (w * 4 - 1, h * 4 - 1 - r4), 255, -1)
    for cx, cy in (
        (r4, r4),
        (w * 4 - 1 - r4, r4),
        (r4, h * 4 - 1 - r4),
        (w * 4 - 1 - r4, h * 4 - 1 - r4),
    ):
        cv2.circle(m, (cx, cy), r4, 255, -1)
    return np.asarray(cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA) / 255, np.float32)


def _tile(
    rng: Rng, glyph: NDArray[np.uint8], th: int
) -> tuple[NDArray[np.float32], NDArray[np.float32], int]:
    """A tile ``th`` px high seen from above: (BGR, alpha, the face's height within it)."""
    import cv2

    tw = round(th * rng.uniform(0.68, 0.8))
    face = np.ones((th, tw, 3), np.float32) * _colour(rng, FACE_COLOURS[rng.integers(4)], 6)
    # light falls across the face
    gy, gx = np.mgrid[0:th, 0:tw].astype(np.float32)
    shade = 1 + rng.normal(0, 0.04) * (gx / tw - 0.5) + rng.normal(0, 0.04) * (gy / th - 0.5)
    face *= shade[:, :, None]
    # the face's picture, within a margin
    mx, my = rng.uniform(0.05, 0.13) * tw, rng.uniform(0.04, 0.1) * th
    gh, gw = glyph.shape[:2]
    if gh and gw:
        s = min((th - 2 * my) / gh, (tw - 2 * mx) / gw) * rng.uniform(0.9, 1.0)
        g = cv2.resize(
            glyph, (max(1, round(gw * s)), max(1, round(gh * s))), interpolation=cv2.INTER_AREA
        )
        y0 = round((th - g.shape[0]) / 2 + rng.normal(0, 0.015) * th)
        x0 = round((tw - g.shape[1]) / 2 + rng.normal(0, 0.015) * tw)
        y0, x0 = int(np.clip(y0, 0, th - g.shape[0])), int(np.clip(x0, 0, tw - g.shape[1]))
        a = g[:, :, 3:].astype(np.float32) / 255
        region = face[y0 : y0 + g.shape[0], x0 : x0 + g.shape[1]]
        region[:] = region * (1 - a) + g[:, :, :3].astype(np.float32) * a
    # the tile's body below its face (a tile lying flat, seen from a seated player), its
    # lower part the set's back colour
    body = round(th * rng.uniform(0.0, 0.3)) if rng.random() < 0.7 else 0
    out = np.zeros((th + body, tw, 3), np.float32)
    out[:th] = face
    if body:
        side = _colour(rng, face[th // 2, tw // 2] * 0.86, 4)
        out[th:] = side
        back = round(body * rng.uniform(0.3, 0.7))
        out[th + body - back :] = _colour(rng, BACK_COLOURS[rng.integers(len(BACK_COLOURS))], 20)
        out[th : th + 2] *= 0.8  # the face's edge
    alpha = _rounded(th + body, tw, rng.uniform(0.03, 0.1) * tw)
    return out, alpha, th


def compose_tile(rng: Rng, glyph: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """A stored crop (:data:`BONUS_STORE` px, the box widened by ``STORE_MARGIN``) of a tile
    whose face shows ``glyph`` (BGRA), as a photo shows it: on a table or in a row between
    other tiles, a little turned, at 40-240 px, now and then blurred (the training's
    augmentation adds light, noise and JPEG)."""
    import cv2

    th = 240
    tile, alpha, face_h = _tile(rng, glyph, th)
    h, w = tile.shape[:2]
    # the box: the face, or the face and its body (labels differ in what they take)
    box_h = h if rng.random() < 0.5 else face_h
    sx, sy = w * (1 + 2 * STORE_MARGIN), box_h * (1 + 2 * STORE_MARGIN)
    cw, ch = round(sx), round(sy)
    table = _colour(rng, rng.uniform(20, 200, 3), 0)
    canvas = np.ones((ch, cw, 3), np.float32) * table
    canvas += rng.normal(0, rng.uniform(0, 10), (ch, cw, 1)).astype(np.float32)
    x0, y0 = round((cw - w) / 2), round((ch - box_h) / 2)
    if rng.random() < 0.6:  # a row: its neighbours' edges in the margin
        gap = round(w * rng.uniform(0.0, 0.06))
        for dx in (-(w + gap), w + gap):
            _paste(canvas, tile * rng.uniform(0.9, 1.02), alpha, x0 + dx, y0)
    _paste(canvas, tile, alpha, x0, y0)
    # a little perspective and turn
    src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
    jitter = rng.normal(0, 0.03, (4, 2)) * [cw, ch]
    m = cv2.getPerspectiveTransform(src, (src + jitter).astype(np.float32))
    img = cv2.warpPerspective(
        np.clip(canvas, 0, 255).astype(np.uint8), m, (cw, ch), borderMode=cv2.BORDER_REPLICATE
    )
    # as large as a photo shows it, then to the store's size (the box at BONUS_SIZE px)
    seen = math.exp(rng.uniform(math.log(40), math.log(240)))
    k = seen / box_h
    small = cv2.resize(
        img, (max(8, round(cw * k)), max(8, round(ch * k))), interpolation=cv2.INTER_AREA
    )
    if rng.random() < 0.3:
        small = cv2.GaussianBlur(small, (0, 0), rng.uniform(0.3, 1.0))
    return np.asarray(
        cv2.resize(small, (BONUS_STORE, BONUS_STORE), interpolation=cv2.INTER_LINEAR), np.uint8
    )


def _paste(
    canvas: NDArray[np.float32],
    tile: NDArray[np.float32],
    alpha: NDArray[np.float32],
    x: int,
    y: int,
) -> None:
    h, w = tile.shape[:2]
    ch, cw = canvas.shape[:2]
    xa, ya, xb, yb = max(x, 0), max(y, 0), min(x + w, cw), min(y + h, ch)
    if xa >= xb or ya >= yb:
        return
    t = tile[ya - y : yb - y, xa - x : xb - x]
    a = alpha[ya - y : yb - y, xa - x : xb - x, None]
    # a soft shadow first, then the tile
    canvas[ya:yb, xa:xb] = canvas[ya:yb, xa:xb] * (1 - 0.25 * a)
    canvas[ya:yb, xa:xb] = canvas[ya:yb, xa:xb] * (1 - a) + t * a


# -- crop sets -------------------------------------------------------------------------------


def generated_bonus(
    n_styles: int,
    *,
    seed: int,
    families: Sequence[str] | None = None,
    classes: NDArray[np.int64] = BONUS,
) -> CropSet:
    """The faces of ``classes`` (the eight bonus faces, and the bird) of ``n_styles``
    procedural set styles, each drawn as a tile."""
    from hupai.datasets.synth.faces import TRAINING_FAMILIES, draw_face, random_style

    images, labels, groups = [], [], []
    for i in range(n_styles):
        rng = np.random.default_rng([seed, i])
        style = random_style(rng, families or TRAINING_FAMILIES)
        for cls in classes.tolist():
            images.append(compose_tile(rng, draw_face(style, cls)))
            labels.append(cls)
            groups.append(i)
    return CropSet(
        np.stack(images),
        np.array(labels, np.int16),
        np.array(groups, np.int32),
        [f"style{i}" for i in range(n_styles)],
    )


def art_bonus(variants: int, *, seed: int, classes: NDArray[np.int64] = BONUS) -> CropSet:
    """The art sets' faces of ``classes`` (those sets with bonus faces), each drawn as
    ``variants`` tiles."""
    from hupai.datasets.synth.art import build_cache, load_glyphs

    images: list[NDArray[np.uint8]] = []
    labels: list[int] = []
    groups: list[int] = []
    sources: list[str] = []
    rng = np.random.default_rng(seed)
    for name, faces in load_glyphs(build_cache()).items():
        if not all(faces.get(c) for c in BONUS.tolist()):
            continue
        for cls in classes.tolist():
            for glyph in faces.get(cls, []):
                for _ in range(variants):
                    images.append(compose_tile(rng, glyph))
                    labels.append(cls)
                    groups.append(len(sources))
        sources.append(name)
    return CropSet(
        np.stack(images), np.array(labels, np.int16), np.array(groups, np.int32), sources
    )


def real_bonus(real: Path, split: str, namer: Any, classes: NDArray[np.int64] = BONUS) -> CropSet:
    """The tiles of ``classes`` (the bonus tiles, and the bird) in a real split's photos, each
    photo turned back when the namer finds it a mirror image (its tiles named better flipped
    left-right, summed over the photo)."""
    from hupai.datasets.crops import labelled_photos
    from hupai.datasets.names import folder_class_map
    from hupai.vision.namer import crop_tiles

    images_dir = real / "images" / split
    ids = folder_class_map(images_dir, real)
    images: list[NDArray[np.uint8]] = []
    labels: list[int] = []
    groups: list[int] = []
    sources: list[str] = []
    for photo in labelled_photos(images_dir, real / "labels" / split):
        labelled = np.array([b.cls if ids is None else ids[b.cls] for b in photo.boxes])
        bonus = np.isin(labelled, classes)
        if not bonus.any():
            continue
        small = crop_tiles(photo.image, photo.xyxy, namer.input_size)
        rows = np.arange(len(labelled))
        as_is = namer.name_crops(small).probs[rows, labelled]
        flipped = namer.name_crops(np.ascontiguousarray(small[:, :, ::-1])).probs[rows, labelled]
        mirrored = float(np.log(flipped + 1e-6).sum() - np.log(as_is + 1e-6).sum()) > 0
        crops = crop_tiles(photo.image, photo.xyxy[bonus], BONUS_STORE, STORE_MARGIN)
        if mirrored:
            crops = np.ascontiguousarray(crops[:, :, ::-1])
        images.append(crops)
        labels += labelled[bonus].tolist()
        groups += [len(sources)] * int(bonus.sum())
        sources.append(photo.path.name + (" (mirrored back)" if mirrored else ""))
    if not images:  # (a set without flowers or seasons)
        images.append(np.zeros((0, BONUS_STORE, BONUS_STORE, 3), np.uint8))
    return CropSet(
        np.concatenate(images), np.array(labels, np.int16), np.array(groups, np.int32), sources
    )


def crop_sets(cfg: BonusConfig, log: Callable[[str], None]) -> dict[str, CropSet]:
    """Every crop set of the run, built once into ``cfg.data`` and reused."""
    from hupai.datasets.synth.faces import HELD_OUT_FAMILY
    from hupai.vision.namer import Namer

    namer: list[Any] = []

    def judge() -> Any:
        if not namer:
            namer.append(Namer(cfg.namer, threads=cfg.threads))
        return namer[0]

    makers: dict[str, Callable[[], CropSet]] = {
        "gen": lambda: generated_bonus(cfg.styles, seed=cfg.seed, classes=cfg.classes),
        f"heldout-{HELD_OUT_FAMILY}": lambda: generated_bonus(
            cfg.val_styles, seed=cfg.seed + 1, families=(HELD_OUT_FAMILY,), classes=cfg.classes
        ),
        "art": lambda: art_bonus(cfg.art_variants, seed=cfg.seed, classes=cfg.classes),
        "real-train": lambda: real_bonus(Path(cfg.real), "train", judge(), cfg.classes),
        "real-val": lambda: real_bonus(Path(cfg.real), "val", judge(), cfg.classes),
    }
    sets = {}
    for key, path in cfg.crop_files().items():
        if not path.exists():
            began = time.perf_counter()
            makers[key]().save(path)
            log(f"crops: {path} ({time.perf_counter() - began:.0f} s)")
        sets[key] = CropSet.load(path)
    return sets


def bonus_accuracy(
    probs: NDArray[np.float64], labels: NDArray[np.int16], classes: NDArray[np.int64] = BONUS
) -> float:
    """Share of tiles whose best name among ``classes`` (the others' outputs unread) is right.

    >>> probs = np.zeros((2, 44)); probs[0, BONUS[0]] = probs[1, BONUS[2]] = 1
    >>> bonus_accuracy(probs, np.array([BONUS[0], BONUS[1]]))
    0.5
    """
    best = classes[probs[:, classes].argmax(axis=1)]
    return float((best == labels).mean()) if len(labels) else 0.0


def run(cfg: BonusConfig) -> Path:
    """Every stage not yet done; returns ``best.pt``."""
    import torch

    run_dir = cfg.run_dir
    log = start_run(run_dir, asdict(cfg), cfg.threads)
    sets = crop_sets(cfg, log)
    gen, art, real = sets["gen"], sets["art"], sets["real-train"]
    vals = {k: v for k, v in sets.items() if is_selection(k)}
    log(
        f"train: generated {len(gen)}, art {len(art)}, real {len(real)}; val "
        + ", ".join(f"{k} {len(v)}" for k, v in vals.items())
    )
    trainer = cfg.trainer()
    last, best = run_dir / "weights" / "last.pt", run_dir / "weights" / "best.pt"
    torch.set_num_threads(cfg.threads)
    model = build_bonus_model(cfg.blocks, cfg.head)
    state, best_score = resume(model, last, log) if last.exists() else (None, -1.0)
    if state is None and cfg.init:
        load_weights(model, cfg.init)
        log(f"init: {cfg.init}")
    val_inputs = {k: centre_inputs(v.images, BONUS_SIZE) for k, v in vals.items()}

    def on_epoch(epoch: int, train_state: dict[str, Any]) -> None:
        nonlocal best_score
        acc = {
            k: bonus_accuracy(predict(model, x), vals[k].labels, cfg.classes)
            for k, x in val_inputs.items()
            if len(x)
        }
        score = float(np.mean(list(acc.values())))
        row = {
            "epoch": epoch + 1,
            "train_loss": train_state["train_loss"],
            "train_acc": train_state["train_acc"],
            "seconds": round(train_state["seconds"]),
            "val": acc,
            "score": score,
        }
        log(
            f"epoch {epoch + 1}: "
            + " ".join(f"{k} {v:.4f}" for k, v in acc.items())
            + f" | score {score:.4f}"
        )
        ckpt = {
            "model": model.state_dict(),
            "train_state": train_state,
            "best_acc": max(best_score, score),
            "config": {**asdict(trainer), "bonus": asdict(cfg)},
            "val": {"bonus_accuracy": acc},
        }
        save_epoch(ckpt, row, run_dir, score > best_score, log)
        best_score = max(best_score, score)

    share_real = 1 - cfg.gen_share - cfg.art_share
    mix = [(real, share_real), (gen, cfg.gen_share), (art, cfg.art_share)]
    train_epochs(
        model,
        [(crops, share) for crops, share in mix if len(crops) and share > 0],
        trainer,
        epochs=cfg.epochs,
        epoch_crops=cfg.epoch_crops,
        state=state,
        on_epoch=on_epoch,
        log=log,
    )
    (run_dir / "done.json").write_text(json.dumps({"best": str(best)}) + "\n")
    return best


#: int8 is kept where it names no more than this share fewer of a selection set's bonus tiles
#: than the float model: one of real val's 173 (the namer's 0.003 is under one tile there).
BONUS_TOLERANCE = 0.006


def selection_sets(cfg: BonusConfig) -> dict[str, CropSet]:
    """The crop sets a run chose its weights on (:func:`is_selection`), read from its data
    folder."""
    from hupai.training.quantize import QuantizeError

    files = {k: p for k, p in cfg.crop_files().items() if is_selection(k)}
    missing = [str(p) for p in files.values() if not p.exists()]
    if missing:
        raise QuantizeError(
            f"the bonus reader's selection crops are not there ({', '.join(missing)}): int8 is "
            "checked on them; run `hupai train bonus` with the same --data first, or export with "
            "--no-int8"
        )
    return {k: CropSet.load(p) for k, p in files.items()}


def int8_check(
    sets: dict[str, CropSet], classes: NDArray[np.int64] = BONUS
) -> Callable[[Path, Path], Check]:
    """Float against int8 as the reader is chosen: each selection set's tiles named right,
    the best of the reader's names (``classes``; the others' outputs unread)."""
    from hupai.training.quantize import Check
    from hupai.vision.namer import Namer

    inputs = {k: centre_inputs(v.images, BONUS_SIZE) for k, v in sets.items()}

    def figures(model: Path) -> dict[str, float]:
        namer = Namer(model, threads=1)
        return {
            k: bonus_accuracy(namer.name_crops(x).probs, sets[k].labels, classes)
            for k, x in inputs.items()
        }

    def measure(float_model: Path, int8_model: Path) -> Check:
        what = f"tiles named right, the best of the reader's {len(classes)} names: " + ", ".join(
            f"{k} {len(v)}" for k, v in sets.items()
        )
        return Check(what, figures(float_model), figures(int8_model))

    return measure


def export(
    weights: Path, out: Path, *, version: str, command: str, int8_calib: Path | None
) -> Path:
    """``best.pt`` → ``out`` (ONNX) + manifest, as a namer is exported, the manifest saying
    what it is and what it trained on; int8 (calibrated on ``int8_calib``'s train crops)
    where that costs no more than :data:`BONUS_TOLERANCE` of its selection sets' tiles."""
    import torch

    from hupai.training.namer import export as export_namer
    from hupai.training.quantize import quantize

    ckpt = torch.load(weights, map_location="cpu", weights_only=False)
    cfg = BonusConfig.saved(ckpt["config"].get("bonus", {}))
    faces = FACES[cfg.faces]
    data = (
        f"{faces.data}: {cfg.styles} procedural set styles of the training families drawn as tiles "
        "(hupai.training.bonus.compose_tile), the art sets' faces, the real train photos' tiles "
        "(mirror images turned back); chosen on real val's and the held-out family's"
    )
    sets = selection_sets(cfg) if int8_calib is not None else {}
    export_namer(
        weights,
        out,
        version=version,
        data=data,
        command=command,
        int8_calib=None,
        build=lambda: build_bonus_model(cfg.blocks, cfg.head),
    )
    manifest_path = out.with_suffix(".json")
    manifest = json.loads(manifest_path.read_text())
    manifest["kind"] = faces.kind
    manifest["val"] = ckpt.get("val")
    if cfg.blocks:
        manifest["architecture"] = (
            f"EfficientNet-Lite0 (efficientnet-lite-pytorch 0.1.0) cut after {cfg.blocks} of "
            f"its 16 blocks, a {cfg.head}-channel head conv, 44-way head"
        )
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    if int8_calib is not None:
        quantize(
            out,
            out,
            calib=int8_calib,
            measure=int8_check(sets, cfg.classes),
            tolerance=BONUS_TOLERANCE,
        )
    return out
