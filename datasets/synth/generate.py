"""Write a synthetic YOLO dataset: images, labels, a layout sidecar per image, data.yaml.

Image ``i`` is rendered from ``numpy.random.default_rng([seed, i])`` alone, so a dataset is
the same whatever the number of processes, and ``--start`` extends one without changing what
exists. Layout sidecars go to ``layouts/<split>/<stem>.json`` (format in docs/datasets.md).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hupai.datasets.synth.art import (
    CACHE_VERSION,
    DEFAULT_ART_ROOT,
    DEFAULT_CACHE_ROOT,
    ArtError,
    build_cache,
    load_glyphs,
)
from hupai.datasets.synth.faces import FONT_PACKAGES
from hupai.datasets.synth.render import RENDER_VERSION, GeneratedFaces, SceneMix
from hupai.datasets.yolo import split_dirs, write_dataset_files
from hupai.vision.classes import CLASS_NAMES, CLASSES_VERSION

SIDECAR_FORMAT = "hupai-synth-layout"
SIDECAR_VERSION = 1
MANIFEST = "synth.json"


class SynthError(ValueError):
    """Bad arguments or an output folder that must not be touched."""


@dataclass
class SynthResult:
    images: int
    boxes: int
    seconds: float
    workers: int

    @property
    def images_per_second(self) -> float:
        return self.images / self.seconds if self.seconds > 0 else 0.0


def sidecar(scene: Any, image_rel: str, seed: int, index: int) -> dict[str, Any]:
    """The layout of a rendered scene as JSON-ready data (see docs/datasets.md)."""
    cam = scene.camera
    tiles = []
    for i, r in enumerate(scene.tiles):
        t = r.placed
        tiles.append(
            {
                "id": i,
                "class": t.cls,
                "name": CLASS_NAMES[t.cls],
                "tile": str(t.tile),
                "xyxy": list(r.xyxy) if r.xyxy else None,
                "labelled": r.labelled,
                "visible_face": r.visible_face,
                "row": t.row,
                "group": t.group,
                "role": t.role.value,
                "meld": t.meld.value if t.meld else None,
                "sideways": t.sideways,
                "face_down": t.face_down,
                "stacked": t.stacked,
                "winning": t.winning,
                "pose": t.pose.value,
                "lean_deg": round(t.lean, 1),
                "table_mm": [round(t.x, 1), round(t.y, 1), round(t.z, 1)],
                "yaw_deg": round(t.yaw, 1),
            }
        )
    groups = [
        {
            "id": g.id,
            "role": g.role.value,
            "row": g.row,
            "meld": g.meld.value if g.meld else None,
            "tiles": list(g.tiles),
        }
        for g in scene.layout.groups
    ]
    h, w = scene.image.shape[:2]
    return {
        "format": SIDECAR_FORMAT,
        "version": SIDECAR_VERSION,
        "classes_version": CLASSES_VERSION,
        "image": image_rel,
        "width": w,
        "height": h,
        "seed": [seed, index],
        "scene": scene.layout.scene,
        "camera": {
            "elevation_deg": round(cam.elevation, 1),
            "azimuth_deg": round(cam.azimuth, 1),
            "roll_deg": round(cam.roll, 1),
            "fov_deg": round(cam.fov, 1),
        },
        "style": scene.info,
        "tiles": tiles,
        "groups": groups,
        "clutter": [{"kind": kind, "xyxy": list(box)} for kind, box in scene.clutter],
        "props": [
            {
                "kind": p.kind,
                "table_mm": [round(v, 1) for v in (p.x1, p.y1, p.x2, p.y2)],
                "height_mm": round(p.height, 1),
            }
            for p in scene.layout.props
        ],
    }


# -- worker side -----------------------------------------------------------------------------

_RENDERER: Any = None


def _init_worker(
    cache_folder: str,
    generated: Any = None,
    photos: tuple[str, ...] = (),
    photo_share: float = 0,
    mix: Any = None,
) -> None:
    import cv2

    from hupai.datasets.synth.photos import load_photos
    from hupai.datasets.synth.render import Renderer

    global _RENDERER
    cv2.setNumThreads(1)
    _RENDERER = Renderer(
        load_glyphs(Path(cache_folder)),
        generated,
        load_photos([Path(p) for p in photos]),
        photo_share,
        mix,
    )


def _split_of(seed: int, index: int, val_fraction: float) -> str:
    import numpy as np

    return "val" if np.random.default_rng([seed, index, 1]).random() < val_fraction else "train"


def render_one(task: tuple[int, int, int, float, str]) -> tuple[int, int]:
    """Render image ``index`` and write its image, label and sidecar; returns (index, boxes)."""
    import cv2
    import numpy as np

    index, seed, size, val_fraction, out_dir = task
    out = Path(out_dir)
    split = _split_of(seed, index, val_fraction)
    scene = _RENDERER.render(np.random.default_rng([seed, index]), size)
    stem = f"synth_s{seed}_{index:07d}"
    image_rel = f"images/{split}/{stem}.jpg"
    ok, jpg = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
    if not ok:  # pragma: no cover - OpenCV cannot fail on a uint8 BGR image
        raise RuntimeError(f"JPEG encoding failed for {stem}")
    (out / image_rel).write_bytes(jpg.tobytes())
    h, w = scene.image.shape[:2]
    lines = []
    for cls, (x1, y1, x2, y2) in scene.labels:
        lines.append(
            f"{cls} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} "
            f"{(y2 - y1) / h:.6f}\n"
        )
    (out / "labels" / split / f"{stem}.txt").write_text("".join(lines))
    (out / "layouts" / split / f"{stem}.json").write_text(
        json.dumps(sidecar(scene, image_rel, seed, index), separators=(",", ":")) + "\n"
    )
    return index, len(lines)


# -- driver ----------------------------------------------------------------------------------


def _prepare_out(out: Path, start: int, overwrite: bool) -> None:
    if out.exists() and any(out.iterdir()):
        ours = (out / MANIFEST).exists()
        if start > 0 and ours:
            return  # extending a dataset written before
        if not overwrite:
            raise SynthError(
                f"{out} exists and is not empty (pass --overwrite to replace it, "
                "or --start to extend a synthetic set)"
            )
        if not ours:
            raise SynthError(f"{out} is not a synthetic dataset written by hupai; not touching it")
        for sub in ("images", "labels", "layouts"):
            shutil.rmtree(out / sub, ignore_errors=True)


def generate(
    out: Path,
    *,
    n: int,
    seed: int = 0,
    art_root: Path | None = None,
    cache_root: Path | None = None,
    size: int = 640,
    val_fraction: float = 0.1,
    workers: int | None = None,
    start: int = 0,
    overwrite: bool = False,
    progress: bool = True,
    generated: GeneratedFaces | None = None,
    photos: Sequence[Path] = (),
    photo_share: float = 0.4,
    mix: SceneMix | None = None,
) -> SynthResult:
    """Render images ``start … start+n-1`` into the YOLO dataset folder ``out`` (``generated``:
    a share of the scenes drawn with procedural set styles, :mod:`hupai.datasets.synth.faces`;
    ``photos``: real photographs, ``photo_share`` of the tables and rooms drawn from them,
    :mod:`hupai.datasets.synth.photos`; ``mix``: shares of keyboard, printed-sheet and
    bookshelf scenes, :class:`hupai.datasets.synth.render.SceneMix`, its defaults if not given)."""
    if n < 1:
        raise SynthError(f"--n {n}: need at least one image")
    if not 64 <= size <= 4096:
        raise SynthError(f"--size {size}: expected 64-4096 px")
    if not 0 <= val_fraction < 1:
        raise SynthError(f"--val {val_fraction}: expected a fraction in [0, 1)")
    if start < 0:
        raise SynthError(f"--start {start}: must not be negative")
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise SynthError(f"--workers {workers}: need at least one")
    _prepare_out(out, start, overwrite)
    try:
        cache = build_cache(art_root or DEFAULT_ART_ROOT, cache_root or DEFAULT_CACHE_ROOT)
    except ArtError as exc:
        raise SynthError(str(exc)) from None

    for split in ("train", "val"):
        split_dirs(out, split)
        (out / "layouts" / split).mkdir(parents=True, exist_ok=True)
    tasks = [(i, seed, size, val_fraction, str(out)) for i in range(start, start + n)]
    mix = mix or SceneMix()
    init_args = (str(cache), generated, tuple(str(p) for p in photos), photo_share, mix)
    began = time.perf_counter()
    boxes = 0
    done = 0
    step = max(1, n // 20)
    if workers == 1:
        _init_worker(*init_args)
        results = map(render_one, tasks)
        boxes, done = _drain(results, n, step, began, progress)
    else:
        # spawn, not fork: a parent that already ran OpenCV (a GPU run packs, then renders)
        # can leave its thread pool locked in a forked child
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(workers, initializer=_init_worker, initargs=init_args) as pool:
            boxes, done = _drain(
                pool.imap_unordered(render_one, tasks, chunksize=4), n, step, began, progress
            )
    seconds = time.perf_counter() - began

    write_dataset_files(out, [s for s in ("train", "val") if any((out / "images" / s).iterdir())])
    manifest_path = out / MANIFEST
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"runs": []}
    manifest["runs"].append(
        {
            "seed": seed,
            "start": start,
            "n": n,
            "size": size,
            "val_fraction": val_fraction,
            "faces_cache": f"v{CACHE_VERSION}",
            "classes_version": CLASSES_VERSION,
            "render_version": RENDER_VERSION,
            "generated": asdict(generated) if generated else None,
            "photos": {"files": len(photos), "share": photo_share} if photos else None,
            "scene_mix": asdict(mix),
            "images_per_second": round(done / seconds, 2),
            "workers": workers,
        }
    )
    manifest["format"] = "hupai-synth"
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    (out / "CREDITS.txt").write_text(
        "Synthetic images rendered by `hupai data synth` from tile artwork in ../shared/art:\n"
        "FluffyStuff/riichi-mahjong-tiles (CC0), xhokir/riichi-mahjong-tiles (CC BY 4.0),\n"
        "samoheen/mahjong-tiles (CC0), lietxia/mahjong_graphic (free license),\n"
        "ffalt/mah uni.svg (MIT).\n"
        + (
            "Procedural faces set in CJK fonts from Debian ("
            + ", ".join(sorted(FONT_PACKAGES))
            + "): see hupai.datasets.synth.faces.FONT_PACKAGES for their licenses.\n"
            if generated
            else ""
        )
    )
    return SynthResult(done, boxes, seconds, workers)


def _drain(results: Any, n: int, step: int, began: float, progress: bool) -> tuple[int, int]:
    boxes = done = 0
    for _index, count in results:
        boxes += count
        done += 1
        if progress and (done % step == 0 or done == n):
            rate = done / max(1e-9, time.perf_counter() - began)
            print(f"  {done}/{n} images, {rate:.1f} images/s", file=sys.stderr, flush=True)
    return boxes, done
