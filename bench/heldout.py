"""Leave-one-art-set-out: how the reader does on tile art it never saw in training.

Scenes (render 4: clutter, tight rows, tall tiles, low views) are drawn with the faces of
xmahjongg's ``dorothys`` set — a drawn Western-style set that no hupai model is trained on
(:data:`datasets.sheets.HELD_OUT_GIF`) — and, as the peer in the same run, the same scenes
(same seeds: same layouts, cameras, tables) drawn with a set the models did see. Both are read
through the product's own path (``hupai eval``: finder passes, namer, decoding) and measured:
exact-read, tile precision/recall, found/named, the confident share and how exact it is.

    python bench/heldout.py --n 200 [--seen samoheen] [--model F.onnx --namer N.onnx]

The held-out art is GPL-2.0-or-later (Debian's xmahjongg): fetched at run time with
``apt-get download`` into data/debian-art (:func:`datasets.sheets.fetch`), never committed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from datasets.sheets import fetch, held_out_glyphs  # noqa: E402
from datasets.synth.art import build_cache, load_glyphs  # noqa: E402
from datasets.synth.render import Renderer  # noqa: E402
from hupai.evaluation import run  # noqa: E402
from vision.classes import CLASS_NAMES  # noqa: E402

HELD_OUT = "dorothys"


def write_scenes(renderer: Renderer, out: Path, n: int, seed: int) -> Path:
    """``n`` scenes as a YOLO folder (images/test, labels/test, classes.txt)."""
    import cv2

    images, labels = out / "images" / "test", out / "labels" / "test"
    images.mkdir(parents=True)
    labels.mkdir(parents=True)
    (out / "classes.txt").write_text("\n".join(CLASS_NAMES) + "\n")
    for i in range(n):
        scene = renderer.render(np.random.default_rng([seed, i]), 640)
        h, w = scene.image.shape[:2]
        cv2.imwrite(
            str(images / f"{i:05d}.jpg"),
            scene.image,
            [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality],
        )
        rows = []
        for cls, (x1, y1, x2, y2) in scene.labels:
            cx, cy, bw, bh = (x1 + x2) / 2 / w, (y1 + y2) / 2 / h, (x2 - x1) / w, (y2 - y1) / h
            rows.append(f"{cls} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}")
        (labels / f"{i:05d}.txt").write_text("\n".join(rows) + ("\n" if rows else ""))
    return out


def measure(folder: Path, model: str | None, namer: str | None) -> dict[str, float | None]:
    e = run(folder, model=model, namer=namer, split="test", threads=1)
    stages = e.stages.figures() if e.stages is not None else {}
    return {
        "exact_read": e.report.exact_read,
        "precision": e.report.precision,
        "recall": e.report.recall,
        "found": stages.get("found_recall"),
        "named": stages.get("namer_accuracy"),
        "confident_share": e.confident_share,
        "confident_exact": e.confident_exact,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="scenes per art set")
    parser.add_argument("--seed", type=int, default=7000, help="scene seeds (not training's)")
    parser.add_argument("--seen", default="samoheen", help="a trained-on art set, the peer")
    parser.add_argument("--model", help="finder ONNX (default: the shipped one)")
    parser.add_argument("--namer", help="namer ONNX (default: the shipped one)")
    args = parser.parse_args(argv)
    banks = {
        HELD_OUT: {HELD_OUT: held_out_glyphs(fetch(ROOT / "data" / "debian-art"))},
        args.seen: {args.seen: load_glyphs(build_cache())[args.seen]},
    }
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, bank in banks.items():
            folder = write_scenes(Renderer(bank), Path(tmp) / name, args.n, args.seed)
            rows[name] = measure(folder, args.model, args.namer)
    keys = list(next(iter(rows.values())))
    print(f"{args.n} scenes per art set, seeds ({args.seed}, i); held out: {HELD_OUT}")
    print(f"{'':18s}" + "".join(f"{k:>17s}" for k in keys))
    for name, row in rows.items():
        cells = "".join(f"{'—' if v is None else f'{v:.3f}':>17s}" for v in row.values())
        print(f"{name + (' (held out)' if name == HELD_OUT else ' (seen)'):18s}{cells}")
    held, seen = rows[HELD_OUT]["exact_read"], rows[args.seen]["exact_read"]
    if held is not None and seen:
        print(f"exact-read held out / seen: {held / seen:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
