"""Retraining from people's corrections (``hupai retrain``, docs/labeling.md).

From one or more folders made by ``hupai data import`` (the photos people corrected in Label
Studio), a model folder that reads those photos better, and the proof:

1. **split** — the photos imported with ``--split val`` or ``--split test`` are the held-out
   part; with none, a seeded fifth of the photos (at least one) is held out. Never trained
   on, never used to choose anything: it is only measured.
2. **finder check** — the starting finder is measured on the training part (tiles found and
   boxes on a tile, IoU 0.5). Where it misses or invents more than :data:`FINDER_NEEDS`
   allows, the report says so; with ``finder="auto"`` the finder is then fine-tuned too
   (step 4b), with ``"train"`` always. The default, ``"keep"``, keeps it: measured on 40
   photos of a new art set, 3 epochs took the real test split's tile precision from 0.980
   to 0.890.
3. **crops** — crops of the training part's boxes (and negatives), and, replayed so that the
   namer keeps what it knew, crops of the real set's *val* photos (never mirror images,
   unlike half of the real train split, and never the test split, which the table measures).
4. **namer** — fine-tuned from the starting namer ONNX (the shipped int8 one is dequantized:
   :func:`hupai.training.compact.dequantized`), batch norms frozen, a short one-cycle
   schedule; a checkpoint after every epoch (a stopped run resumes there).
   4b. **finder** — rebuilt from the starting finder ONNX (an int8 one dequantized;
   batch norms recalibrated on the photos: :func:`hupai.training.finder.weights_from_onnx`),
   fine-tuned class-agnostic with ultralytics on the training part and the replayed real val
   photos for ``finder_epochs`` at a low rate; the last epoch is kept.
5. **export** — ONNX + manifest, quantized to int8 like the shipped namer (calibrated on the
   training part's crops, checked on the real val crops; float where int8 costs more than
   :data:`hupai.training.quantize.TOLERANCE`), the starting finder and gate copied beside it,
   ``reader.json`` naming the pair: ``hupai read/serve/label/eval --models OUT`` load it.
6. **table** — both pairs read the held-out part and the real test split through the
   product's path (:func:`hupai.evaluation.run`): exact-read, tile precision and recall,
   tiles named right. Printed, and written to ``OUT/retrain-report.json``.

Work files (split, crops, checkpoints, the log) go to ``OUT/.retrain/``; a rerun skips what
is done. Nothing here imports torch at module level (the ``train`` extra).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from hupai.vision.classes import CLASS_NAMES
from hupai.vision.detector import PAIR_FILE, SHIPPED_MODELS, ModelError, models_in
from hupai.vision.namer import PARTNER_KEYS

#: Photo suffixes a corrected folder holds (what ``hupai data import`` writes).
PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp"}
#: Below these on the training part the starting finder misses or invents too many boxes:
#: the report asks for the finder to be retrained (recall, precision at IoU 0.5).
FINDER_NEEDS = {"recall": 0.95, "precision": 0.90}
WORK = ".retrain"
NAMER_FILE = "hupai-namer-retrained.onnx"
FINDER_FILE = "hupai-finder-retrained.onnx"
FINDER_CHOICES = ("auto", "train", "keep")
#: Real val photos the finder's fine-tune validates on each epoch (ultralytics wants a
#: val set; the last epoch is kept, so a small one only shows progress).
FINDER_VAL_PHOTOS = 16


class RetrainError(ValueError):
    """What was given cannot be retrained on; the message names it."""


@dataclass(frozen=True)
class RetrainOptions:
    corrected: tuple[Path, ...]
    out: Path
    base: Path = SHIPPED_MODELS  # the model folder to start from (reader.json)
    real: Path | None = Path("data/real")  # replay (val), int8 check (val), table (test)
    held_out: float = 0.2  # share held out when no photo was imported as val/test
    epochs: int = 6
    epoch_crops: int = 8000
    batch: int = 32
    lr: float = 6e-4
    replay_share: float = 0.4  # of each epoch's crops: the real set's, so nothing is forgotten
    replay_photos: int = 80  # real val photos cropped for the replay
    real_test_limit: int | None = None  # real test photos in the table (None: all)
    finder: str = "keep"  # auto: train the finder where the finder check asks; train; keep
    finder_epochs: int = 3
    int8: bool = True
    seed: int = 0
    threads: int | None = None
    device: str | None = None  # torch device (default: cuda when present, else cpu)
    version: str | None = None

    @property
    def work(self) -> Path:
        return self.out / WORK


@dataclass(frozen=True)
class Split:
    train: tuple[tuple[Path, Path], ...]  # (photo, label file)
    held_out: tuple[tuple[Path, Path], ...]
    how: str


@dataclass
class RetrainReport:
    out: Path
    split: dict[str, Any] = field(default_factory=dict)
    finder: dict[str, Any] = field(default_factory=dict)
    namer: dict[str, Any] = field(default_factory=dict)
    table: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "out": str(self.out),
            "split": self.split,
            "finder": self.finder,
            "namer": self.namer,
            "table": self.table,
            "seconds": round(self.seconds, 1),
        }


Log = Callable[[str], None]


def stderr_log(path: Path | None = None) -> Log:
    """Progress lines with the time, on stderr and appended to ``path``."""

    def log(line: str) -> None:
        text = f"{time.strftime('%H:%M:%S')} {line}"
        print(text, file=sys.stderr, flush=True)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as f:
                f.write(text + "\n")

    return log


# -- 1. the split ------------------------------------------------------------------------------


def corrected_photos(folder: Path) -> dict[str, list[tuple[Path, Path]]]:
    """A ``hupai data import`` folder's photos by split, each with its label file."""
    if not folder.is_dir():
        raise RetrainError(f"{folder}: no such folder")
    if not (folder / "images").is_dir():
        raise RetrainError(
            f"{folder}: no images/ folder (give a folder made by `hupai data import`)"
        )
    found: dict[str, list[tuple[Path, Path]]] = {}
    for split in ("train", "val", "test"):
        images = folder / "images" / split
        if not images.is_dir():
            continue
        photos = sorted(p for p in images.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES)
        found[split] = [(p, folder / "labels" / split / f"{p.stem}.txt") for p in photos]
    if not any(found.values()):
        raise RetrainError(f"{folder}: no photos under images/train, images/val or images/test")
    return found


def split_photos(folders: Sequence[Path], held_out: float, seed: int) -> Split:
    """Training and held-out photos (see the module's step 1). The held-out choice hashes
    each photo's name with the seed: adding photos later keeps the earlier choice."""
    train: list[tuple[Path, Path]] = []
    kept: list[tuple[Path, Path]] = []
    for folder in folders:
        found = corrected_photos(folder)
        train += found.get("train", [])
        kept += found.get("val", []) + found.get("test", [])
    if kept:
        how = "the photos imported as val or test"
    else:
        ranked = sorted(train, key=lambda pair: _draw(pair[0].name, seed))
        n = max(1, round(held_out * len(train)))
        kept, train = ranked[:n], ranked[n:]
        how = f"{len(kept)} of {len(kept) + len(train)} photos drawn with seed {seed}"
    if not train:
        raise RetrainError("no photo left to train on: import more corrected photos")
    return Split(tuple(sorted(train)), tuple(sorted(kept)), how)


def _draw(name: str, seed: int) -> str:
    return hashlib.sha256(f"{seed}:{name}".encode()).hexdigest()


def write_yolo(pairs: Sequence[tuple[Path, Path]], folder: Path, split: str) -> Path:
    """A YOLO folder of ``pairs`` (photos linked, labels rewritten in hupai's class order
    from each source's names file), ``classes.txt`` at its root; returns its root."""
    from hupai.datasets.labels import LabelError, format_yolo_line, load_yolo_labels
    from hupai.datasets.names import folder_class_map

    images, labels = folder / "images" / split, folder / "labels" / split
    if images.exists():
        shutil.rmtree(images)
    shutil.rmtree(labels, ignore_errors=True)
    images.mkdir(parents=True)
    labels.mkdir(parents=True)
    (folder / "classes.txt").write_text("".join(n + "\n" for n in CLASS_NAMES))
    maps: dict[Path, list[int] | None] = {}
    for k, (photo, label) in enumerate(pairs):
        root = photo.parent.parent.parent
        if root not in maps:
            try:
                maps[root] = folder_class_map(photo.parent, root)
            except LabelError as exc:
                raise RetrainError(str(exc)) from None
        ids = maps[root]
        stem = f"{k:04d}-{photo.stem}"  # two folders may both hold an IMG_1.jpg
        link = images / f"{stem}{photo.suffix.lower()}"
        try:
            os.symlink(photo.resolve(), link)
        except OSError:
            shutil.copy2(photo, link)
        boxes = load_yolo_labels(label) if label.is_file() else []
        lines = [
            format_yolo_line(replace(b, cls=b.cls if ids is None else ids[b.cls])) for b in boxes
        ]
        (labels / f"{stem}.txt").write_text("".join(line + "\n" for line in lines))
    return folder


# -- 2. the finder on the user's photos ---------------------------------------------------------


def finder_check(train_root: Path, finder: Path, threads: int | None, log: Log) -> dict[str, Any]:
    """The starting finder's recall and precision (IoU 0.5) on the training part, and
    whether that asks for a retrained finder."""
    from hupai.evaluation import run

    log(f"finder check: {finder.name} on the training part …")
    evaluation = run(train_root, model=str(finder), split="train", threads=threads)
    assert evaluation.stages is not None
    figures = evaluation.stages.figures()
    recall, precision = figures["finder_recall"], figures["finder_precision"]
    needs = recall < FINDER_NEEDS["recall"] or precision < FINDER_NEEDS["precision"]
    verdict = (
        "it misses or invents boxes here (--finder auto or train fine-tunes it)"
        if needs
        else "the finder finds these tiles"
    )
    log(f"finder check: recall {recall:.3f}, precision {precision:.3f}: {verdict}")
    return {
        "recall": round(recall, 4),
        "precision": round(precision, 4),
        "needs_training": needs,
        "verdict": verdict,
    }


# -- 3. crops ----------------------------------------------------------------------------------


def build_crops(opts: RetrainOptions, train_root: Path, log: Log) -> tuple[Path, Path | None]:
    """The training part's crops and the real val replay crops (built once)."""
    from hupai.datasets.crops import crops_from_yolo

    user = opts.work / "crops-user.npz"
    if not user.exists():
        began = time.perf_counter()
        crops = crops_from_yolo(
            train_root / "images" / "train", train_root / "labels" / "train", seed=opts.seed
        )
        if not len(crops):
            raise RetrainError("the training part has no labelled boxes to learn from")
        crops.save(user)
        log(f"crops: {len(crops)} from the training part ({time.perf_counter() - began:.0f} s)")
    replay = _replay_crops(opts, log)
    return user, replay


def _replay_crops(opts: RetrainOptions, log: Log) -> Path | None:
    from hupai.datasets.crops import crops_from_yolo

    path = opts.work / f"crops-replay-{opts.replay_photos}.npz"
    if opts.replay_share <= 0 or opts.real is None:
        return None
    if path.exists():
        return path
    val = opts.real / "images" / "val"
    if not val.is_dir():
        log(f"replay: no {val}: the namer trains on the corrections alone (it may forget)")
        return None
    photos = sorted(p for p in val.iterdir() if p.suffix.lower() in PHOTO_SUFFIXES)
    step = max(1, len(photos) // max(opts.replay_photos, 1))
    pairs = [
        (p, opts.real / "labels" / "val" / f"{p.stem}.txt")
        for p in photos[::step][: opts.replay_photos]
    ]
    began = time.perf_counter()
    root = write_yolo(pairs, opts.work / "replay", "val")
    crops = crops_from_yolo(root / "images" / "val", root / "labels" / "val", seed=opts.seed)
    crops.save(path)
    log(
        f"replay: {len(crops)} crops of {len(pairs)} real val photos "
        f"({time.perf_counter() - began:.0f} s)"
    )
    return path


# -- 4. the namer ------------------------------------------------------------------------------


def torch_device(wanted: str | None) -> str:
    import torch

    if wanted:
        return wanted
    return "cuda" if torch.cuda.is_available() else "cpu"


def train_namer(
    opts: RetrainOptions, start: Path, user: Path, replay: Path | None, log: Log
) -> Path:
    """Fine-tune the namer from ``start`` (ONNX); returns the last checkpoint."""
    import torch

    from hupai.datasets.crops import CropSet
    from hupai.training.namer import NamerConfig, initial_model, load_weights, train_epochs

    run_dir = opts.work / "namer"
    (run_dir / "weights").mkdir(parents=True, exist_ok=True)
    last = run_dir / "weights" / "last.pt"
    done = run_dir / "done.json"
    if done.exists():
        log("namer: trained before (resumed from its checkpoint folder)")
        return last
    cfg = NamerConfig(
        name="namer",
        project=str(opts.work),
        init=str(start),  # an ONNX: its batch norms are trained frozen
        epochs=opts.epochs,
        epoch_crops=opts.epoch_crops,
        batch=opts.batch,
        lr=opts.lr,
        seed=opts.seed,
        threads=opts.threads or max(1, os.cpu_count() or 1),
    )
    torch.set_num_threads(cfg.threads)
    device = torch_device(opts.device)
    model = initial_model(cfg.init)
    state = None
    if last.exists():
        state = load_weights(model, last)["train_state"]
        log(f"namer: resuming after epoch {int(state['epoch']) + 1}")
    model.to(device)
    sets = [(CropSet.load(user), 1.0 - (opts.replay_share if replay else 0.0))]
    if replay is not None:
        sets.append((CropSet.load(replay), opts.replay_share))
    log(
        f"namer: {opts.epochs} epochs × {opts.epoch_crops} crops from {start.name} on {device} "
        f"({len(sets[0][0])} crops of the corrections"
        + (f", {len(sets[1][0])} replayed)" if replay else ")")
    )

    def on_epoch(epoch: int, train_state: dict[str, Any]) -> None:
        ckpt = {
            "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
            "train_state": train_state,
            "config": asdict(cfg),
            "val": None,
        }
        torch.save(ckpt, last.with_suffix(".tmp"))
        last.with_suffix(".tmp").replace(last)
        log(
            f"namer: epoch {epoch + 1}/{opts.epochs} done, train acc "
            f"{train_state['train_acc']:.3f} ({train_state['seconds']:.0f} s)"
        )

    train_epochs(
        model,
        sets,
        cfg,
        epochs=opts.epochs,
        epoch_crops=opts.epoch_crops,
        state=state,
        on_epoch=on_epoch,
        log=log,
    )
    done.write_text(json.dumps({"epochs": opts.epochs}) + "\n")
    return last


def train_finder(opts: RetrainOptions, start: Path, train_root: Path, log: Log) -> Path:
    """Fine-tune the finder from ``start`` (ONNX); returns its last weights (.pt)."""
    from hupai.training.finder import Augment, TrainConfig, train, weights_from_onnx
    from hupai.training.finder import write_mix_yaml as mix

    run_dir = opts.work / "finder"
    last = run_dir / "train" / "weights" / "last.pt"
    if (run_dir / "done.json").exists():
        log("finder: trained before")
        return last
    size = int(json.loads(start.with_suffix(".json").read_text())["input"]["shape"][2])
    user_photos = sorted((train_root / "images" / "train").iterdir())
    replay = opts.work / "replay" / "images" / "val"
    # as many real photos as corrected ones at most: an epoch's time is its photos'
    replayed = (
        sorted(replay.iterdir())[: max(len(user_photos), FINDER_VAL_PHOTOS)]
        if replay.is_dir()
        else []
    )
    rebuilt = run_dir / "rebuilt.pt"
    if not rebuilt.exists():
        log(f"finder: rebuilding {start.name} as trainable weights …")
        weights_from_onnx(start, rebuilt, (user_photos + replayed)[:48], imgsz=size)
    val = write_yolo(
        [(p, replay.parent.parent / "labels" / "val" / f"{p.stem}.txt") for p in replayed][
            :FINDER_VAL_PHOTOS
        ],
        run_dir / "val",
        "val",
    )
    train_folders = [train_root / "images" / "train"] + ([replay] if replayed else [])
    data = mix(train_folders, val / "images" / "val", run_dir / "data.yaml")
    config = TrainConfig(
        data=str(data),
        name="train",
        model=str(rebuilt),
        epochs=opts.finder_epochs,
        imgsz=size,
        batch=8,
        nbs=8,
        lr0=5e-4,
        warmup_epochs=0.5,
        single_cls=True,
        seed=opts.seed,
        device=torch_device(opts.device),
        project=str(run_dir),
        augment=Augment(close_mosaic=1),
    )
    log(
        f"finder: {opts.finder_epochs} epochs on {len(user_photos)} corrected photos"
        f" and {len(replayed)} real val photos"
    )
    train(config, resume=last.exists())
    (run_dir / "done.json").write_text(json.dumps({"epochs": opts.finder_epochs}) + "\n")
    return last


#: The base namer's reading settings a retrained namer keeps: how a box is viewed (its
#: margins, later views only for the boxes the first doubts, the turned ones) is the reader's
#: choice, made on real val, not the weights'.
READING_VIEWS = ("view_margins", "more_views_below", "turned_views")


def carried_over(manifest: dict[str, Any], base: dict[str, Any], base_file: str) -> dict[str, Any]:
    """A retrained namer's ``manifest`` with what it keeps of the namer it was retrained from
    (``base``, its file ``base_file``): its reading views, and its partners — the gate (only
    "not a tile"), the blend (many sets' faces, the hard cases) and the bonus reader (flowers
    and seasons, closer) unchanged: the corrections teach the namer itself.

    >>> base = {"version": "v3", "preprocessing": {"margin": 0.08, "view_margins": [0.08, 0.12],
    ...         "turned_views": [0.08]}, "bonus": {"file": "b.onnx"}}
    >>> new = carried_over({"preprocessing": {"margin": 0.08}}, base, "n.onnx")
    >>> new["preprocessing"]
    {'margin': 0.08, 'view_margins': [0.08, 0.12], 'turned_views': [0.08]}
    >>> new["bonus"], new["retrained_from"]["version"]
    ({'file': 'b.onnx'}, 'v3')
    """
    out = dict(manifest)
    out["retrained_from"] = {"file": base_file, "version": base.get("version")}
    views = {k: v for k, v in base.get("preprocessing", {}).items() if k in READING_VIEWS}
    out["preprocessing"] = {**out.get("preprocessing", {}), **views}
    out.update({k: base[k] for k in PARTNER_KEYS if base.get(k)})
    return out


def export_finder(
    opts: RetrainOptions, weights: Path, start: Path, train_root: Path, version: str, log: Log
) -> Path:
    """The fine-tuned finder as ONNX + manifest in the output folder (int8 as the namer)."""
    from hupai.training.finder import export_onnx

    manifest = json.loads(start.with_suffix(".json").read_text())
    out = opts.out / FINDER_FILE
    export_onnx(
        weights,
        out,
        imgsz=int(manifest["input"]["shape"][2]),
        version=version,
        data="corrections: " + ", ".join(str(c) for c in opts.corrected),
        command="hupai retrain " + " ".join(str(c) for c in opts.corrected),
        finder_conf=float(manifest.get("finder_conf", 0.25)),
        int8_calib=_int8_calib(opts, train_root) if opts.int8 else None,
    )
    meta = json.loads(out.with_suffix(".json").read_text())
    meta["retrained_from"] = {"file": start.name, "version": manifest.get("version")}
    out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    log(f"finder: wrote {out}")
    return out


# -- 5. the model folder -----------------------------------------------------------------------


def export_folder(
    opts: RetrainOptions,
    weights: Path,
    base: tuple[Path, Path],
    train_root: Path,
    log: Log,
    finder_weights: Path | None = None,
) -> tuple[Path, Path]:
    """The namer exported (int8 where it costs nothing), the starting finder and gate beside
    it, and ``reader.json`` naming the pair."""
    from hupai.training.namer import export
    from hupai.training.quantize import quantize

    finder, namer = base
    out = opts.out
    out.mkdir(parents=True, exist_ok=True)
    new_namer = out / NAMER_FILE
    version = opts.version or time.strftime("retrained-%Y%m%d-%H%M")
    export(
        weights,
        new_namer,
        version=version,
        data="corrections: " + ", ".join(str(c) for c in opts.corrected),
        command="hupai retrain " + " ".join(str(c) for c in opts.corrected) + f" --out {out}",
    )
    if opts.int8:
        calib = _int8_calib(opts, train_root)
        if calib is None:
            log("int8: no real val photos to check int8 on: the namer stays float")
        else:
            quantize(new_namer, new_namer, calib=calib, val_limit=1500, log=log)
    manifest = json.loads(new_namer.with_suffix(".json").read_text())
    base_manifest = json.loads(namer.with_suffix(".json").read_text())
    for partner in PARTNER_KEYS:
        if base_manifest.get(partner):
            _copy_model(namer.parent / base_manifest[partner]["file"], out)
    manifest = carried_over(manifest, base_manifest, namer.name)
    new_namer.with_suffix(".json").write_text(json.dumps(manifest, indent=2) + "\n")
    if finder_weights is None:
        new_finder = _copy_model(finder, out)
    else:
        new_finder = export_finder(opts, finder_weights, finder, train_root, version, log)
    write_pair(out, new_finder, new_namer, version)
    log(f"wrote {out / PAIR_FILE}: {new_finder.name} + {new_namer.name} ({version})")
    return new_finder, new_namer


def _int8_calib(opts: RetrainOptions, train_root: Path) -> Path | None:
    """A folder to calibrate int8 on (the training part: the new set's own activations) and
    check it on (real val photos): ``images/train`` and ``images/val`` as the quantizer
    wants them."""
    if opts.real is None or not (opts.real / "images" / "val").is_dir():
        return None
    calib = opts.work / "int8"
    train = calib / "images" / "train"
    if not train.exists():
        for kind in ("images", "labels"):
            (calib / kind).mkdir(parents=True, exist_ok=True)
            os.symlink((train_root / kind / "train").resolve(), calib / kind / "train")
        val_root = opts.work / "replay"
        if (val_root / "images" / "val").is_dir():
            for kind in ("images", "labels"):
                os.symlink((val_root / kind / "val").resolve(), calib / kind / "val")
        else:
            for kind in ("images", "labels"):
                os.symlink((opts.real / kind / "val").resolve(), calib / kind / "val")
        (calib / "classes.txt").write_text("".join(n + "\n" for n in CLASS_NAMES))
    return calib


def _copy_model(onnx: Path, folder: Path) -> Path:
    target = folder / onnx.name
    if onnx.resolve() != target.resolve():
        shutil.copyfile(onnx, target)
        shutil.copyfile(onnx.with_suffix(".json"), target.with_suffix(".json"))
    return target


def write_pair(folder: Path, finder: Path, namer: Path, version: str) -> Path:
    """``reader.json`` in ``folder``: the finder and namer (files beside it) read together."""
    entries = {}
    for role, path in (("finder", finder), ("namer", namer)):
        meta = json.loads(path.with_suffix(".json").read_text())
        entries[role] = {
            "file": path.name,
            "name": meta.get("name"),
            "version": meta.get("version"),
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "bytes": path.stat().st_size,
        }
    pair = {"name": "hupai-reader", "version": version, **entries}
    target = folder / PAIR_FILE
    target.write_text(json.dumps(pair, indent=2) + "\n")
    return target


# -- 6. the table ------------------------------------------------------------------------------

#: The table's columns: (key in a row, heading).
COLUMNS = (
    ("exact_read", "exact-read"),
    ("precision", "tile precision"),
    ("recall", "tile recall"),
    ("named_right", "named right"),
)


def measure(
    root: Path, split: str, pair: tuple[Path, Path], threads: int | None, limit: int | None
) -> dict[str, Any]:
    """One pair on one folder through the product's path."""
    from hupai.evaluation import run

    finder, namer = pair
    e = run(root, model=str(finder), namer=str(namer), split=split, threads=threads, limit=limit)
    assert e.stages is not None
    return {
        "photos": e.report.photos,
        "exact_read": round(e.report.exact_read, 4),
        "precision": round(e.report.precision, 4),
        "recall": round(e.report.recall, 4),
        "named_right": round(e.stages.figures()["namer_accuracy"], 4),
    }


def before_after(
    opts: RetrainOptions,
    held_root: Path,
    before: tuple[Path, Path],
    after: tuple[Path, Path],
    log: Log,
) -> list[dict[str, Any]]:
    """Rows of the table: each set, before and after."""
    sets: list[tuple[str, Path, str, int | None]] = [
        ("held-out corrections", held_root, "test", None)
    ]
    if opts.real is not None and (opts.real / "images" / "test").is_dir():
        sets.append(("real test split", opts.real, "test", opts.real_test_limit))
    rows = []
    for name, root, split, limit in sets:
        for when, pair in (("before", before), ("after", after)):
            log(f"table: {name}, {when} …")
            rows.append(
                {"set": name, "model": when, **measure(root, split, pair, opts.threads, limit)}
            )
    return rows


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """The before/after table as aligned text, with the change under each pair of rows.

    >>> rows = [{"set": "s", "model": "before", "photos": 2, "exact_read": 0.5, "precision": 1,
    ...          "recall": 1, "named_right": 0.9},
    ...         {"set": "s", "model": "after", "photos": 2, "exact_read": 1.0, "precision": 1,
    ...          "recall": 1, "named_right": 1.0}]
    >>> print(format_table(rows))
    set  model   photos  exact-read  tile precision  tile recall  named right
    s    before       2       0.500           1.000        1.000        0.900
    s    after        2       1.000           1.000        1.000        1.000
    s    change               +0.500          +0.000       +0.000       +0.100
    """
    shown: list[list[str]] = []
    for k, row in enumerate(rows):
        shown.append(
            [row["set"], row["model"], str(row["photos"])]
            + [f"{float(row[key]):.3f}" for key, _ in COLUMNS]
        )
        prev = rows[k - 1] if k else None
        if row["model"] == "after" and prev is not None and prev["set"] == row["set"]:
            shown.append(
                [row["set"], "change", ""]
                + [f"{float(row[key]) - float(prev[key]):+.3f}" for key, _ in COLUMNS]
            )
    heads = ["set", "model", "photos"] + [h for _, h in COLUMNS]
    widths = [max(len(r[i]) for r in [heads, *shown]) for i in range(len(heads))]

    def line(cells: list[str]) -> str:
        left = [c.ljust(widths[i]) for i, c in enumerate(cells[:2])]
        right = [c.rjust(widths[i + 2]) for i, c in enumerate(cells[2:])]
        return "  ".join(left + right).rstrip()

    return "\n".join(line(r) for r in [heads, *shown])


# -- the whole run -----------------------------------------------------------------------------


def retrain(opts: RetrainOptions, log: Log | None = None) -> RetrainReport:
    """Every step not yet done (see the module's doc); returns the report."""
    began = time.perf_counter()
    if not opts.corrected:
        raise RetrainError("give at least one folder made by `hupai data import`")
    if opts.finder not in FINDER_CHOICES:
        raise RetrainError(f"finder: '{opts.finder}' is not one of {', '.join(FINDER_CHOICES)}")
    try:
        base = models_in(opts.base)
    except ModelError as exc:
        raise RetrainError(str(exc)) from None
    if opts.out.resolve() == opts.base.resolve():
        raise RetrainError(f"--out {opts.out}: is the starting model folder; give another")
    opts.work.mkdir(parents=True, exist_ok=True)
    log = log or stderr_log(opts.work / "retrain.log")
    report = RetrainReport(opts.out)
    split = split_photos(opts.corrected, opts.held_out, opts.seed)
    report.split = {"train": len(split.train), "held_out": len(split.held_out), "how": split.how}
    log(
        f"split: {len(split.train)} photos to train on, {len(split.held_out)} held out "
        f"({split.how})"
    )
    train_root = write_yolo(split.train, opts.work / "user", "train")
    held_root = write_yolo(split.held_out, opts.work / "user", "test")
    report.finder = _cached(
        opts.work / "finder-check.json",
        lambda: finder_check(train_root, base[0], opts.threads, log),
    )
    user, replay = build_crops(opts, train_root, log)
    weights = train_namer(opts, base[1], user, replay, log)
    finder_weights = None
    if opts.finder == "train" or (opts.finder == "auto" and report.finder["needs_training"]):
        finder_weights = train_finder(opts, base[0], train_root, log)
    report.finder["trained"] = finder_weights is not None
    after = export_folder(opts, weights, base, train_root, log, finder_weights)
    report.namer = {
        "file": after[1].name,
        "from": base[1].name,
        "epochs": opts.epochs,
        "epoch_crops": opts.epoch_crops,
    }
    report.table = before_after(opts, held_root, base, after, log)
    report.seconds = time.perf_counter() - began
    (opts.out / "retrain-report.json").write_text(json.dumps(report.to_dict(), indent=2) + "\n")
    return report


def _cached(path: Path, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    if path.exists():
        return dict(json.loads(path.read_text()))
    value = compute()
    path.write_text(json.dumps(value, indent=2) + "\n")
    return value
