"""Reading benchmark: our model and reading pipeline against the PyPI ``mahjong-detector``
model on the same real photos, in one run.

Prints per-photo latency p50/p90 (ours: the whole ``read_image``; peer: its own
``detect_tiles`` API) with their ratio, and both models' tile precision/recall and photo
exact-read on the real test split, over the 34 tile kinds both know. ``--large N`` also
measures large-photo strategies (plain resize, zoom on the tiles' region, tiling) on N test
photos pasted small into 4000×3000 canvases, for both models through our runtime.

    .venv/bin/python bench/read.py [--split data/real] [--model M] [--threads 2] [--large 20]

The peer is a benchmark-only dev dependency (its model is AGPL-licensed; never shipped).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scoring.tiles import HAND_TILES  # noqa: E402
from vision.classes import class_by_name  # noqa: E402
from vision.detections import Detections  # noqa: E402
from vision.metrics import Boxes, evaluate  # noqa: E402

SHARED = list(range(len(HAND_TILES)))  # the 34 kinds both models know
PEER_NAMES = {
    "chun": "7z",
    "haku": "5z",
    "hatsu": "6z",
    "nan": "2z",
    "pe": "4z",
    "sha": "3z",
    "tou": "1z",
}


def load_split(split: Path, limit: int | None) -> list[tuple[Path, Boxes]]:
    images = sorted((split / "images" / "test").glob("*.jpg"))[:limit]
    out = []
    for img in images:
        import cv2

        pixels: Any = cv2.imread(str(img))
        h, w = pixels.shape[:2]
        rows = np.loadtxt(split / "labels" / "test" / f"{img.stem}.txt", ndmin=2)
        xy = np.stack(
            [
                (rows[:, 1] - rows[:, 3] / 2) * w,
                (rows[:, 2] - rows[:, 4] / 2) * h,
                (rows[:, 1] + rows[:, 3] / 2) * w,
                (rows[:, 2] + rows[:, 4] / 2) * h,
            ],
            axis=1,
        )
        out.append((img, Boxes.make(xy, rows[:, 0].astype(int))))
    return out


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) * 1000


def as_boxes(det: Detections) -> Boxes:
    return Boxes(det.xyxy, det.class_id, det.confidence)


# -- peer ---------------------------------------------------------------------------------


def peer_module() -> Any:
    try:
        import mahjong_detector
    except ImportError:
        return None
    return mahjong_detector


def peer_class_map(names: list[str]) -> np.ndarray:
    return np.array([class_by_name(PEER_NAMES.get(n, n)) for n in names], dtype=np.int64)


def peer_boxes(peer: Any, path: Path) -> Boxes:
    from mahjong_detector.predict import CLASS_NAMES as NAMES
    from mahjong_detector.predict import predict
    from mahjong_detector.preprocess import preprocess_image
    from PIL import Image

    img, padding = preprocess_image(Image.open(path))
    dets = predict(img, padding)
    cmap = peer_class_map(list(NAMES))
    return Boxes.make(
        [[d.x1, d.y1, d.x2, d.y2] for d in dets],
        [int(cmap[d.class_id]) for d in dets],
        [d.confidence for d in dets],
    )


class PeerDetector:
    """The peer's ONNX model inside our runtime (its grey, contrast-stretched input), so
    that the large-photo strategies can be compared on a second model."""

    def __new__(cls, threads: int | None) -> Any:
        from mahjong_detector.predict import CLASS_NAMES as NAMES
        from mahjong_detector.predict import model_path
        from PIL import Image, ImageOps

        from vision.detector import Detector, ModelManifest

        manifest = ModelManifest(
            "mahjong-detector", "0.0.6", tuple(NAMES), "images", (640, 640), pad_value=0
        )
        cmap = peer_class_map(list(NAMES))

        class _Peer(Detector):
            def blob(self, image: Any) -> Any:
                grey = np.asarray(
                    ImageOps.autocontrast(Image.fromarray(image[:, :, ::-1]).convert("L"))
                )
                return super().blob(np.repeat(grey[:, :, None], 3, axis=2))

            def detect(self, image: Any, *, conf: float | None = None) -> Detections:
                det = super().detect(image, conf=0.5 if conf is None else conf)
                return Detections(det.xyxy, det.confidence, cmap[det.class_id])

        return _Peer(model_path, threads=threads, manifest=manifest)


# -- runs ---------------------------------------------------------------------------------


def run_ours(
    detector: Any, photos: list[tuple[Path, Boxes]], repeat: int
) -> tuple[list[float], list[Boxes]]:
    from vision.detector import load_image
    from vision.reading import read_image

    times, preds = [], []
    for path, _ in photos:
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            reading = read_image(load_image(path), detector=detector, source=str(path))
            best = min(best, time.perf_counter() - t)
        times.append(best)
        preds.append(as_boxes(reading.detections))
    return times, preds


def run_peer(
    peer: Any, photos: list[tuple[Path, Boxes]], repeat: int
) -> tuple[list[float], list[Boxes]]:
    times, preds = [], []
    for path, _ in photos:
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            peer.detect_tiles(path)
            best = min(best, time.perf_counter() - t)
        times.append(best)
        preds.append(peer_boxes(peer, path))
    return times, preds


def large_photos(
    photos: list[tuple[Path, Boxes]], n: int, scale: float
) -> list[tuple[np.ndarray, Boxes]]:
    """Test photos pasted at ``scale`` into 4000×3000 canvases of their own mean colour."""
    import cv2

    rng = np.random.default_rng(0)
    out = []
    for path, truth in photos[:n]:
        img: Any = cv2.imread(str(path))
        small = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        canvas = np.empty((3000, 4000, 3), np.uint8)
        canvas[:] = img.reshape(-1, 3).mean(0).astype(np.uint8)
        h, w = small.shape[:2]
        x0, y0 = int(rng.integers(0, 4000 - w)), int(rng.integers(0, 3000 - h))
        canvas[y0 : y0 + h, x0 : x0 + w] = small
        xy = truth.xyxy * scale + np.array([x0, y0, x0, y0])
        out.append((canvas, Boxes(xy, truth.class_id, truth.confidence)))
    return out


def run_strategies(
    detector: Any, scenes: list[tuple[np.ndarray, Boxes]]
) -> dict[str, tuple[float, Any]]:
    from vision.reading import detect_photo

    def plain(img: np.ndarray) -> Any:
        return detector.detect(img)

    def tiled(img: np.ndarray) -> Any:
        return detector.detect_tiled(img, window=1280)

    def zoom(img: np.ndarray) -> Detections:
        det, to_image, _angle, _passes = detect_photo(detector, img)
        c = det.xyxy.reshape(-1, 2, 2)
        corners = np.stack(
            [
                c[:, 0],
                np.stack([c[:, 1, 0], c[:, 0, 1]], 1),
                c[:, 1],
                np.stack([c[:, 0, 0], c[:, 1, 1]], 1),
            ],
            1,
        )
        q = corners @ to_image[:, :2].T + to_image[:, 2]
        return Detections(np.concatenate([q.min(1), q.max(1)], 1), det.confidence, det.class_id)

    out = {}
    for name, fn in (
        ("plain resize", plain),
        ("zoom on tiles (ours)", zoom),
        ("tiling 1280", tiled),
    ):
        times, preds = [], []
        for img, _ in scenes:
            t = time.perf_counter()
            preds.append(as_boxes(fn(img)))
            times.append(time.perf_counter() - t)
        report = evaluate(preds, [t for _, t in scenes], 0.25, classes=SHARED)
        out[name] = (statistics.median(times), report)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", type=Path, default=ROOT / "data" / "real")
    parser.add_argument("--model", help="our ONNX model (default: the shipped one)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=int, help="at most this many photos")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs per photo (best kept)")
    parser.add_argument("--large", type=int, default=0, help="large-photo strategies on N photos")
    parser.add_argument("--large-scale", type=float, default=1.0)
    args = parser.parse_args()

    from vision.detector import Detector, ModelError

    photos = load_split(args.split, args.limit)
    if not photos:
        print(f"no test photos under {args.split}/images/test", file=sys.stderr)
        return 2
    try:
        ours = Detector(args.model, threads=args.threads)
    except ModelError as exc:
        print(f"our model: {exc}", file=sys.stderr)
        return 2
    peer = peer_module()
    truths = [t for _, t in photos]
    print(f"{len(photos)} photos from {args.split}/images/test, {args.threads} threads")
    print(f"ours: {ours.path} ({ours.manifest.name} {ours.manifest.version})")

    ours.detect(np.zeros((640, 640, 3), np.uint8))  # warm-up
    t_ours, p_ours = run_ours(ours, photos, args.repeat)
    rows = [("ours (read_image)", t_ours, evaluate(p_ours, truths, 0.25, classes=SHARED))]
    if peer is None:
        print("peer: mahjong-detector is not installed (pip install '.[dev]'); skipped")
    else:
        import onnxruntime as ort

        ort.set_default_logger_severity(3)
        peer.detect_tiles(photos[0][0])  # warm-up (its session is created lazily)
        t_peer, p_peer = run_peer(peer, photos, args.repeat)
        rows.append(
            ("mahjong-detector 0.0.6", t_peer, evaluate(p_peer, truths, 0.5, classes=SHARED))
        )

    print(
        f"\n{'model':<24}{'p50 ms':>9}{'p90 ms':>9}{'precision':>11}{'recall':>8}"
        f"{'exact':>7}{'mAP50':>7}"
    )
    for name, times, rep in rows:
        print(
            f"{name:<24}{pct(times, 50):>9.1f}{pct(times, 90):>9.1f}{rep.precision:>11.3f}"
            f"{rep.recall:>8.3f}{rep.exact_read:>7.3f}{rep.map50:>7.3f}"
        )
    if len(rows) == 2:
        print(
            f"latency ratio ours/peer: p50 {pct(rows[0][1], 50) / pct(rows[1][1], 50):.2f}, "
            f"p90 {pct(rows[0][1], 90) / pct(rows[1][1], 90):.2f}"
        )
    print(
        "(tiles of the 34 shared kinds; precision/recall at IoU 0.5, ours at conf 0.25, the peer"
        " at its own 0.5; exact = photos whose tile multiset is read exactly)"
    )

    if args.large:
        scenes = large_photos(photos, args.large, args.large_scale)
        side = np.median(
            [np.sqrt(np.prod(t.xyxy[:, 2:] - t.xyxy[:, :2], axis=1)).mean() for _, t in scenes]
        )
        print(
            f"\nlarge photos: {len(scenes)} test photos ×{args.large_scale} in 4000×3000 "
            f"(tiles ≈{side:.0f} px, ≈{side * 640 / 4000:.0f} px after a plain resize to 640)"
        )
        detectors = [("ours", ours)]
        if peer is not None:
            detectors.append(("peer", PeerDetector(args.threads)))
        for label, det in detectors:
            for name, (t, rep) in run_strategies(det, scenes).items():
                print(
                    f"  {label:<5} {name:<22} {t * 1000:>7.0f} ms  precision {rep.precision:.3f}"
                    f"  recall {rep.recall:.3f}  exact {rep.exact_read:.3f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
