"""Namer benchmark: speed and accuracy of the tile namer alone, in one run.

Speed: ms a crop through onnxruntime, batched (the reader's way) against one crop a call
(the peer in the same process), on real crops, at the shipped input size — with
``--sizes`` also other input sizes (a fresh, untrained head of the same backbone would be
needed for other sizes, so those rows time the shipped graph's cost only when its input is
dynamic; here they are skipped unless the ONNX accepts them).

Accuracy: real val crops (hupai's own split, used for selection), and the synthetic val
crops per art set (``data/crops/synth-val-*.npz``, built by ``hupai train namer``).

    .venv/bin/python bench/namer.py [--namer models/hupai-namer-v6.onnx] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hupai.datasets.crops import CropSet  # noqa: E402
from hupai.training.namer import (  # noqa: E402
    NamerConfig,
    accuracy_report,
    art_set_of,
    big_enough,
    centre_inputs,
    crop_paths,
)
from hupai.vision.namer import Namer  # noqa: E402


def timed(namer: Namer, crops: np.ndarray, batch: int, rounds: int) -> float:
    """Median ms a crop over ``rounds`` passes of ``crops`` in batches of ``batch``."""
    per_round = []
    for _ in range(rounds):
        began = time.perf_counter()
        for i in range(0, len(crops), batch):
            namer.name_crops(crops[i : i + batch])
        per_round.append(1000 * (time.perf_counter() - began) / len(crops))
    return statistics.median(per_round)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--namer", help="namer ONNX (default: the shipped one)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "crops")
    parser.add_argument("--n", type=int, default=512, help="crops timed")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--min-side", type=float, default=20.0, help="leave out synthetic tiles smaller than this"
    )
    args = parser.parse_args()

    namer = Namer(args.namer, threads=args.threads)
    size = namer.input_size
    crops = crop_paths(NamerConfig(data=str(args.data), real=str(ROOT / "data" / "real")))
    real_val = CropSet.load(crops["real-val"])
    inputs = centre_inputs(real_val.images, size)
    sample = inputs[: args.n]
    namer.name_crops(sample[:32])  # warm up
    batched = timed(namer, sample, 32, args.rounds)
    single = timed(namer, sample[: max(64, args.n // 8)], 1, args.rounds)
    print(f"namer {namer.path.name}, input {size} px, {args.threads} threads")
    print(f"  batched (32): {batched:.3f} ms a crop   one a call (peer): {single:.3f} ms a crop")
    print(f"  ratio batched/one-a-call: {batched / single:.2f}")

    report = accuracy_report(namer.name_crops(inputs).probs, real_val.labels)
    print(
        f"real val crops: {report['n']}  accuracy {report['accuracy']:.4f}  tiles "
        f"{report['tiles_accuracy']:.4f}  top-3 {report['top3']:.4f}  reject recall "
        f"{report['reject_recall']}"
    )
    for path in sorted(args.data.glob("synth-val-*.npz")):
        crops = big_enough(CropSet.load(path), args.min_side)
        probs = namer.name_crops(centre_inputs(crops.images, size)).probs
        sets = np.array([art_set_of(s) for s in crops.sources])[crops.groups]
        print(
            f"synthetic val {path.name}, tiles of {args.min_side:g} px and more: per art set "
            "(crops, accuracy, flowers)"
        )
        for art in sorted(set(sets.tolist())):
            sel = sets == art
            r = accuracy_report(probs[sel], crops.labels[sel])
            flowers = r.get("flowers_accuracy")
            shown = "-" if flowers is None else f"{flowers:.4f}"
            print(f"  {art:>12}: {r['n']:5d}  {r['accuracy']:.4f}  flowers {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
