"""Unfamiliar faces: does the namer's embedding say "this face is unlike anything trained on"?

Any namer ONNX ends in a pooled feature vector and one linear layer; the features are
exposed as an extra output (in memory: the model file is not changed). Class centroids are
the mean (unit-length) features of labelled real **train** crops. A read tile's distance is
one minus the cosine between its features and its named class's centroid. Measured, never
chosen on test:

* per tile, on real val and on camerash composites (bench/composites.py, sets never seen):
  how far named-right and misnamed tiles lie (medians, AUROC);
* per photo: the confident share and how exact it is when a tile farther than each
  threshold of a sweep loses ``confident`` (gets ``check``), against none (the peer).

    python bench/unfamiliar.py [--train-photos 300] [--composites 200] [--model F --namer N]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gaps import Read, read_all, read_composites  # noqa: E402

from hupai.vision.detections import box_iou  # noqa: E402
from hupai.vision.namer import Namer, crop_tiles, to_blob  # noqa: E402

THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


class Embedder:
    """A namer's pooled features for crops (the input of its last linear layer)."""

    def __init__(self, namer: Namer) -> None:
        import onnx
        import onnxruntime as ort

        model = onnx.load(str(namer.path))
        producer = {o: n for n in model.graph.node for o in n.output}
        name = model.graph.output[0].name
        while producer[name].op_type not in ("Gemm", "MatMul"):
            name = producer[name].input[0]  # back through QuantizeLinear/DequantizeLinear
        features = producer[name].input[0]
        model.graph.output.append(onnx.helper.make_tensor_value_info(features, 1, None))
        self.session = ort.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        self.features = features
        self.manifest = namer.manifest

    def __call__(self, crops: NDArray[np.uint8]) -> NDArray[np.float64]:
        m = self.manifest
        out = []
        for start in range(0, len(crops), 64):
            blob = to_blob(crops[start : start + 64], m.mean, m.std)
            (f,) = self.session.run([self.features], {m.input_name: blob})
            f = np.asarray(f, np.float64).reshape(len(blob), -1)
            out.append(f / np.maximum(np.linalg.norm(f, axis=1, keepdims=True), 1e-9))
        return np.concatenate(out) if out else np.zeros((0, 1))


def centroids(embed: Embedder, real: Path, photos: int) -> NDArray[np.float64]:
    """Each class's mean unit feature over the labelled crops of real train photos."""
    from hupai.evaluation import dataset_class_map, find_samples, load_truth
    from hupai.vision.detector import load_image
    from hupai.vision.namer import NAMER_CLASSES

    class_map, _ = dataset_class_map(real, "train")
    samples = find_samples(real, "train")
    pick = np.random.default_rng(0).permutation(len(samples))[:photos]
    sums: dict[int, NDArray[np.float64]] = {}
    counts: Counter[int] = Counter()
    size, margin = embed.manifest.input_size, embed.manifest.margin
    for k in pick:
        image = load_image(samples[k].image)
        h, w = image.shape[:2]
        truth = load_truth(samples[k], w, h, class_map)
        if len(truth) == 0:
            continue
        feats = embed(crop_tiles(image, truth.xyxy, size, margin))
        for c, f in zip(truth.class_id.tolist(), feats, strict=True):
            sums[c] = sums.get(c, 0) + f
            counts[c] += 1
    out = np.zeros((len(NAMER_CLASSES), feats.shape[1]))
    for c, s in sums.items():
        out[c] = s / np.linalg.norm(s)
    return out


def distances(embed: Embedder, cents: NDArray[np.float64], read: Read) -> NDArray[np.float64]:
    """Each read tile's distance to its named class's centroid."""
    reading, _truth, image = read
    frame = reading.extra["frame"]
    if len(reading.detections) == 0:
        return np.zeros(0)
    crops = crop_tiles(
        image, frame["xyxy"], embed.manifest.input_size, embed.manifest.margin, frame["to_image"]
    )
    feats = embed(crops)
    return np.asarray(1.0 - (feats * cents[reading.detections.class_id]).sum(1), np.float64)


def named_right(read: Read) -> NDArray[np.bool_]:
    reading, truth, _image = read
    det = reading.detections
    if len(det) == 0 or len(truth) == 0:
        return np.zeros(len(det), bool)
    iou = box_iou(det.xyxy, truth.xyxy)
    j = iou.argmax(1)
    return np.asarray((iou.max(1) >= 0.5) & (truth.class_id[j] == det.class_id), bool)


def auroc(pos: NDArray[np.float64], neg: NDArray[np.float64]) -> float | None:
    """P(a misnamed tile lies farther than a named-right one)."""
    if len(pos) == 0 or len(neg) == 0:
        return None
    order = np.concatenate([pos, neg]).argsort().argsort() + 1
    rank_sum = order[: len(pos)].sum()
    return float((rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def report(name: str, reads: list[Read], dist: list[NDArray[np.float64]]) -> None:
    right = [named_right(r) for r in reads]
    d_all, r_all = np.concatenate(dist), np.concatenate(right)
    wrong, ok = d_all[~r_all], d_all[r_all]
    area = auroc(wrong, ok)
    print(f"\n{name}: {len(reads)} photos, {len(d_all)} tiles read ({len(wrong)} not named right)")
    print(
        f"  distance median: named right {np.median(ok):.3f}, not {np.median(wrong):.3f}; "
        f"AUROC {'—' if area is None else f'{area:.3f}'}"
    )
    print(f"  {'far from':>9s} {'share':>7s} {'exact':>7s} {'tiles far':>10s}")
    for t in (None, *THRESHOLDS):
        sure = exact = 0
        for read, d in zip(reads, dist, strict=True):
            reading, truth, _ = read
            confident = reading.confident and (t is None or not (d > t).any())
            right_photo = Counter(reading.detections.class_id.tolist()) == Counter(
                truth.class_id.tolist()
            )
            sure += confident
            exact += confident and right_photo
        far = "" if t is None else f"{(d_all > t).mean():10.3f}"
        label = "(none)" if t is None else f"{t:.2f}"
        shown = f"{exact / sure:.3f}" if sure else "—"
        print(f"  {label:>9s} {sure / len(reads):7.3f} {shown:>7s} {far}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, default=ROOT / "data" / "real")
    parser.add_argument("--train-photos", type=int, default=300, help="for the centroids")
    parser.add_argument("--composites", type=int, default=200)
    parser.add_argument("--seed", type=int, default=3600)
    parser.add_argument("--model", help="finder ONNX (default: the shipped one)")
    parser.add_argument("--namer", help="namer ONNX (default: the shipped one)")
    args = parser.parse_args(argv)
    namer = Namer(args.namer, threads=1)
    embed = Embedder(namer)
    cents = centroids(embed, args.real, args.train_photos)
    print(
        f"namer {namer.path.name}: features {embed.features!r}; centroids from "
        f"{args.train_photos} real train photos"
    )
    sets = {
        "real val": read_all(args.real, "val", args.model, namer),
        "camerash composites": read_composites(args.composites, args.seed, args.model, namer),
    }
    for name, reads in sets.items():
        report(name, reads, [distances(embed, cents, r) for r in reads])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
