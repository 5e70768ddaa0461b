"""Fit and weigh the clutter model (:mod:`hupai.vision.clutter`): which boxes the reader keeps
are on no tile, from the finder's score, the namer's "not a tile", its margin between names,
the box's shape, its size beside the photo's other boxes, where it lies among them and the
colour of its face's ground beside theirs.

Every box the shipped reader keeps (the clutter model off) is gathered with its features
and what it lies on — a tile named right, a tile misnamed, no tile (clutter), two tiles or a
cut one — in four sets: synthetic scenes of the trained-on art sets and procedural families
(training seeds) and real train (fit: the scenes' tiles and clutter, real train's tiles),
then the held-out scenes of ``bench/heldout.py`` (seeds 7000; dorothys, samoheen, the held-out
procedural family) and real val (the cut is chosen on them). Prints the fitted model and, for
each cut, the boxes each set would drop by kind.

    python bench/clutter.py [--scenes 150] [--held-out 60] [--real 400] [--hold 7]
    python bench/clutter.py --model F.onnx [--namer N.onnx]

A new finder or namer scores boxes otherwise: refit the model for it (``--model``/``--namer``)
before weighing it through the reader. ``--hold 7`` keeps the shipped model's seven weights
chosen before the colour of a face's ground was weighed, and fits the bias and that colour's
weight beside them (how the shipped model was made).

Never reads the test split.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import heldout  # noqa: E402
from heldout import write_scenes  # noqa: E402

from hupai.vision import clutter, reading  # noqa: E402
from hupai.vision.classes import BACK  # noqa: E402
from hupai.vision.detections import Detections, box_iou  # noqa: E402

KINDS = ("right", "misnamed", "clutter", "other")
CUTS = (1.0, 1.5, 2.0, 2.5, 3.0)


def gather(
    folder: Path, split: str, models: tuple[Any, Any], limit: int | None = None
) -> tuple[NDArray, NDArray]:
    """Features (n, k) and kinds (n,) of every box the reader (``models``: its finder and
    namer) keeps in a YOLO folder's split."""
    from hupai.evaluation import dataset_class_map, find_samples, load_truth
    from hupai.vision.detector import load_image
    from hupai.vision.reading import read_image

    detector, namer = models
    class_map, _ = dataset_class_map(folder, split)
    rows, kinds = [], []
    for sample in find_samples(folder, split)[:limit]:
        image = load_image(sample.image)
        h, w = image.shape[:2]
        truth = load_truth(sample, w, h, class_map)
        read = read_image(image, detector=detector, namer=namer)
        d, frame = read.detections, read.extra["frame"]
        if len(d) == 0 or read.alternative_probs is None:
            continue
        boxes = Detections(frame["xyxy"], frame["box_confidence"], d.class_id)
        # as the reader weighs them (its backs: by the namer's first name, before decoding;
        # here as decoded — the same all but never)
        grounds = clutter.grounds_weighed(
            clutter.face_grounds(image, frame["xyxy"], frame["to_image"]),
            d.class_id == BACK,
            np.asarray(frame["in_room"], bool),
        )
        features = clutter.clutter_features(boxes, read.alternative_probs, frame["reject"], grounds)
        rows.append(features)
        iou = box_iou(d.xyxy, truth.xyxy) if len(truth) else np.zeros((len(d), 1))
        for i in range(len(d)):
            j = int(iou[i].argmax())
            if len(truth) and iou[i, j] >= 0.5:
                kinds.append(0 if truth.class_id[j] == d.class_id[i] else 1)
            else:
                kinds.append(3 if (iou[i] > 0.1).any() else 2)
    return np.concatenate(rows), np.asarray(kinds)


def fit(x: NDArray, y: NDArray, l2: float = 1e-3, hold: int = 0) -> tuple[float, NDArray]:
    """Logistic regression (standardised features, a little L2), returned on raw features.
    ``hold``: the shipped model's first ``hold`` weights are kept as they are, the bias and
    the other weights fitted beside them (a feature added to a model already chosen)."""
    from scipy.optimize import minimize

    held = np.asarray(clutter.WEIGHTS[:hold], np.float64)
    offset, x = x[:, :hold] @ held, x[:, hold:]
    mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = np.column_stack([np.ones(len(x)), (x - mu) / sd])

    def loss(w: NDArray) -> tuple[float, NDArray]:
        s = offset + z @ w
        p = 1 / (1 + np.exp(-s))
        value = float(np.mean(np.logaddexp(0, s) - y * s) + l2 * np.sum(w[1:] ** 2))
        grad = z.T @ (p - y) / len(y)
        grad[1:] += 2 * l2 * w[1:]
        return value, grad

    w = minimize(loss, np.zeros(z.shape[1]), jac=True, method="L-BFGS-B").x
    weights = np.concatenate([held, w[1:] / sd])
    return float(w[0] - np.sum(w[1:] * mu / sd)), weights


def scenes(kind: str, n: int, seed: int, tmp: Path) -> list[Path]:
    """``n`` scenes (seeds ``(seed, i)``) of each renderer of ``kind`` as YOLO folders: "fit",
    the trained-on art sets and procedural families; else ``bench/heldout.py``'s."""
    from hupai.datasets.synth.art import build_cache, load_glyphs
    from hupai.datasets.synth.render import GeneratedFaces, Renderer

    made: dict[str, Renderer] = (
        {
            "seen-art": Renderer(load_glyphs(build_cache())),
            "families": Renderer({}, GeneratedFaces(1.0)),
        }
        if kind == "fit"
        else heldout.renderers()
    )
    return [write_scenes(renderer, tmp / name, n, seed) for name, renderer in made.items()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=150, help="fit scenes per kind")
    parser.add_argument("--held-out", type=int, default=60, help="held-out scenes per art set")
    parser.add_argument("--real", type=int, default=400, help="real photos per split")
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "real")
    parser.add_argument("--model", help="finder ONNX (default: the shipped one)")
    parser.add_argument("--namer", help="namer ONNX (default: the shipped one)")
    parser.add_argument(
        "--hold",
        type=int,
        default=0,
        help="keep the shipped model's first HOLD weights; fit the bias and the rest",
    )
    args = parser.parse_args(argv)
    models = heldout.reader_models(args.model, args.namer)
    reading.CLUTTER_ABOVE = np.inf  # every box the namer keeps, the model off
    sets: dict[str, tuple[NDArray, NDArray]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (kind, n, seed) in {
            "fit scenes": ("fit", args.scenes, 100),
            "held-out scenes": ("held-out", args.held_out, 7000),
        }.items():
            parts = [gather(f, "test", models) for f in scenes(kind, n, seed, Path(tmp))]
            sets[name] = (
                np.concatenate([p[0] for p in parts]),
                np.concatenate([p[1] for p in parts]),
            )
    sets["real train"] = gather(args.data, "train", models, args.real)
    sets["real val"] = gather(args.data, "val", models, args.real)
    (xs, ks), (xr, kr) = sets["fit scenes"], sets["real train"]
    scene_rows, real_rows = ks <= 2, kr <= 1  # real train's "clutter" is mostly tiles unlabelled
    x = np.concatenate([xs[scene_rows], xr[real_rows]])
    y = np.concatenate([ks[scene_rows] == 2, kr[real_rows] == 2]).astype(np.float64)
    bias, weights = fit(x, y, hold=args.hold)
    print(f"fitted on {len(y)} boxes ({int(y.sum())} clutter)")
    print(f"BIAS = {bias:.3f}\nWEIGHTS = ({', '.join(f'{v:.3f}' for v in weights)})")
    print(f"shipped: BIAS {clutter.BIAS}, WEIGHTS {clutter.WEIGHTS}, cut {clutter.CLUTTER_ABOVE}")
    for label, b, w in (("fitted", bias, weights), ("shipped", clutter.BIAS, clutter.WEIGHTS)):
        print(f"\nboxes dropped by the {label} model: " + ", ".join(KINDS) + " (of each)")
        for cut in CUTS:
            cells = []
            for name, (xf, kf) in sets.items():
                drop = b + xf @ np.asarray(w) > cut
                counts = "/".join(f"{int((drop & (kf == k)).sum())}" for k in range(4))
                totals = "/".join(f"{int((kf == k).sum())}" for k in range(4))
                cells.append(f"{name}: {counts} of {totals}")
            print(f"  cut {cut:g}: " + " | ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
