"""Leave-one-art-set-out: how the reader does on tile art it never saw in training.

Scenes (render 4: clutter, tight rows, tall tiles, low views) are drawn with the faces of
xmahjongg's ``dorothys`` set — a drawn Western-style set that no hupai model is trained on
(:data:`hupai.datasets.sheets.HELD_OUT_GIF`) — and, as the peer in the same run, the same scenes
(same seeds: same layouts, cameras, tables) drawn with a set the models did see. Both are read
through the product's own path (``hupai eval``: finder passes, namer, decoding) and measured:
exact-read, tile precision/recall, the confident share and how exact it is, and the failure
kinds of issue #25 per photo (a box on no tile, over two tiles, on a tile cut by the edge; a
tile misnamed, a tile missed).

    python bench/heldout.py --n 200 [--seen samoheen] [--model F.onnx --namer N.onnx] [--no-family]
    python bench/heldout.py --n 60 --clean     # the namer's share: sharp tiles seen from above

``--clean`` draws the same sets' scenes with nothing that makes them hard to see — no clutter,
glare, blur or noise, seen from 60-90° above, tiles 60-90 px — so that what is still misnamed
there is the namer's reading of the art, not the scene (``named right``: of the tiles boxed at
IoU 0.5, the share named right).

The held-out art is GPL-2.0-or-later (Debian's xmahjongg): fetched at run time with
``apt-get download`` into data/debian-art (:func:`hupai.datasets.sheets.fetch`), never committed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hupai.datasets.sheets import fetch, held_out_glyphs  # noqa: E402
from hupai.datasets.synth.art import build_cache, load_glyphs  # noqa: E402
from hupai.datasets.synth.faces import HELD_OUT_FAMILY  # noqa: E402
from hupai.datasets.synth.render import GeneratedFaces, Renderer, RenderOptions  # noqa: E402
from hupai.vision.classes import CLASS_NAMES  # noqa: E402
from hupai.vision.detections import Detections, box_iou  # noqa: E402

HELD_OUT = "dorothys"
KINDS = ("not a tile", "two tiles", "part tile", "misnamed", "missed")


def renderers(seen: str = "samoheen", family: bool = True) -> dict[str, Renderer]:
    """The scenes measured, by name: the held-out art set, the trained-on ``seen`` one (the
    peer) and, with ``family``, the held-out procedural style family."""
    out = {
        HELD_OUT: Renderer({HELD_OUT: held_out_glyphs(fetch(ROOT / "data" / "debian-art"))}),
        seen: Renderer({seen: load_glyphs(build_cache())[seen]}),
    }
    if family:
        out[f"gen-{HELD_OUT_FAMILY}"] = Renderer({}, GeneratedFaces(1.0, (HELD_OUT_FAMILY,)))
    return out


#: ``--clean``: the scenes as sharp as they come, from above, tiles of a readable size.
CLEAN = RenderOptions(clean=True, tile_px=(60, 90), elevation=(60, 90))


def write_scenes(
    renderer: Renderer, out: Path, n: int, seed: int, options: RenderOptions | None = None
) -> Path:
    """``n`` scenes as a YOLO folder (images/test, labels/test, classes.txt)."""
    import cv2

    images, labels = out / "images" / "test", out / "labels" / "test"
    images.mkdir(parents=True)
    labels.mkdir(parents=True)
    (out / "classes.txt").write_text("\n".join(CLASS_NAMES) + "\n")
    for i in range(n):
        scene = renderer.render(np.random.default_rng([seed, i]), 640, options=options)
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


def failure_kinds(truth: Detections, read: Detections, w: int, h: int) -> Counter[str]:
    """The issue's failure kinds in one photo: a kept box over two tiles, over a tile cut by
    the photo's edge, over no tile at all (clutter, table); a tile misnamed; a tile missed."""
    kinds: Counter[str] = Counter()
    iou = box_iou(read.xyxy, truth.xyxy)
    matched_truth: set[int] = set()
    for i in range(len(read)):
        j = int(np.argmax(iou[i])) if len(truth) else -1
        if j >= 0 and iou[i, j] >= 0.5 and j not in matched_truth:
            matched_truth.add(j)
            if read.class_id[i] != truth.class_id[j]:
                kinds["misnamed"] += 1
            continue
        x1, y1, x2, y2 = read.xyxy[i]
        covered = (box_iou(read.xyxy[i : i + 1], truth.xyxy)[0] > 0.1).sum() if len(truth) else 0
        if covered >= 2:
            kinds["two tiles"] += 1
        elif min(x1, y1) <= 2 or x2 >= w - 2 or y2 >= h - 2:
            kinds["part tile"] += 1
        else:
            kinds["not a tile"] += 1
    kinds["missed"] += len(truth) - len(matched_truth)
    return kinds


def reader_models(model: str | None, namer: str | None) -> tuple[Any, Any]:
    """The finder and namer a bench reads with (one thread each): the shipped ones, or the
    ONNX files given."""
    from hupai.vision.detector import Detector
    from hupai.vision.namer import Namer
    from hupai.vision.reading import default_namer

    return Detector(model, threads=1), Namer(namer, threads=1) if namer else default_namer(1)


def measure(folder: Path, model: str | None, namer: str | None) -> dict[str, float | None]:
    from hupai.evaluation import dataset_class_map, find_samples, load_truth
    from hupai.vision.detector import load_image
    from hupai.vision.reading import read_image

    detector, the_namer = reader_models(model, namer)
    kinds: Counter[str] = Counter()
    exact = confident = confident_exact = tp = n_read = n_truth = 0
    samples = find_samples(folder, "test")
    class_map, _ = dataset_class_map(folder, "test")
    for sample in samples:
        image = load_image(sample.image)
        h, w = image.shape[:2]
        truth = load_truth(sample, w, h, class_map)
        reading = read_image(image, detector=detector, namer=the_namer)
        read = reading.detections
        photo = failure_kinds(truth, read, w, h)
        kinds += photo
        right = Counter(read.class_id.tolist()) == Counter(truth.class_id.tolist())
        exact += right
        confident += reading.confident
        confident_exact += reading.confident and right
        n_read, n_truth = n_read + len(read), n_truth + len(truth)
        tp += len(read) - sum(
            photo[k] for k in ("two tiles", "part tile", "not a tile", "misnamed")
        )
    n = max(len(samples), 1)
    return {
        "exact_read": exact / n,
        "precision": tp / max(n_read, 1),
        "recall": tp / max(n_truth, 1),
        "confident_share": confident / n,
        "confident_exact": confident_exact / confident if confident else None,
        "named right": tp / max(tp + kinds["misnamed"], 1),  # of the tiles boxed (IoU 0.5)
        **{f"{k} /photo": kinds[k] / n for k in KINDS},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="scenes per art set")
    parser.add_argument("--seed", type=int, default=7000, help="scene seeds (not training's)")
    parser.add_argument("--seen", default="samoheen", help="a trained-on art set, the peer")
    parser.add_argument("--model", help="finder ONNX (default: the shipped one)")
    parser.add_argument("--namer", help="namer ONNX (default: the shipped one)")
    parser.add_argument("--real", type=Path, help="also the real test split of this dataset root")
    parser.add_argument(
        "--no-family", action="store_true", help="leave out the held-out procedural style family"
    )
    parser.add_argument(
        "--clean", action="store_true", help="sharp scenes seen from above (the namer's share)"
    )
    args = parser.parse_args(argv)
    rows = {}
    options = CLEAN if args.clean else None
    with tempfile.TemporaryDirectory() as tmp:
        for name, renderer in renderers(args.seen, not args.no_family).items():
            folder = write_scenes(renderer, Path(tmp) / name, args.n, args.seed, options)
            rows[name] = measure(folder, args.model, args.namer)
        if args.real:
            rows["real test"] = measure(args.real, args.model, args.namer)
    held_out = [HELD_OUT, *([] if args.no_family else [f"gen-{HELD_OUT_FAMILY}"])]
    kind = "clean scenes" if args.clean else "scenes"
    print(f"{args.n} {kind} per art set, seeds ({args.seed}, i); held out: {', '.join(held_out)}")
    labels = {**{h: " (held out)" for h in held_out}, args.seen: " (seen)"}
    names = {n: n + labels.get(n, "") for n in rows}
    print(f"{'':22s}" + "".join(f"{v:>22s}" for v in names.values()))
    for key in next(iter(rows.values())):
        cells = [rows[n][key] for n in rows]
        print(f"{key:22s}" + "".join(f"{'—' if v is None else f'{v:.3f}':>22s}" for v in cells))
    seen = rows[args.seen]["exact_read"]
    for name in held_out:
        held = rows[name]["exact_read"]
        if held is not None and seen:
            print(f"exact-read {name} / seen: {held / seen:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
