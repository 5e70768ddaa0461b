"""Reading benchmark: our reading (finder + namer) against the PyPI ``mahjong-detector``
model on the same real photos, in one run; our single-stage detector (the namer off) as a
second row.

Prints per-photo latency p50/p90 (ours: the whole ``read_image``; peer: its own
``detect_tiles`` API) with their ratio, and the tile precision/recall and photo exact-read
on the real test split, over the 34 tile kinds all know.

``--phone N`` (20 by default): the same for 12-MP phone JPEGs made from N real val photos
(4000×3000, quality 90, half with EXIF orientation), file → decode + read, start-up excluded —
the one read path every command takes (``hupai read``'s: a reduced decode first,
:mod:`hupai.vision.photo_read`) against a whole decode then a read — and the peer on the same
files; then photos with no tile (a 700-byte JPEG claiming 7000×7000, a blank and a textured
12-MP JPEG) through the one path, against the real photos' p50.

``--large N``: large-photo strategies (plain resize, zoom on the tiles' region, tiling) on N
test photos pasted small into 4000×3000 canvases.

``--sweep N``: the scale sweep — N test photos' hands pasted into 4000×3000 canvases so that
the hand spans 2 % to 90 % of the long side, saved as JPEGs: tiles found (class-agnostic)
and named right per step, and the decode + read time, the service's way and whole.

    .venv/bin/python bench/read.py [--split data/real] [--threads 2] [--phone 20] [--large 20]
        [--sweep 10] [--model F.onnx --namer N.onnx] [--first-pixels 4000000]
        [--one-view] [--every-view] [--upright-only]

The peer is a benchmark-only dev dependency (its model is AGPL-licensed; never shipped).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hupai.scoring.tiles import HAND_TILES  # noqa: E402
from hupai.vision.classes import class_by_name  # noqa: E402
from hupai.vision.detections import Detections  # noqa: E402
from hupai.vision.metrics import evaluate  # noqa: E402

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


def load_split(split: Path, limit: int | None, part: str = "test") -> list[tuple[Path, Detections]]:
    images = sorted((split / "images" / part).glob("*.jpg"))[:limit]
    out = []
    for img in images:
        import cv2

        pixels: Any = cv2.imread(str(img))
        h, w = pixels.shape[:2]
        rows = np.loadtxt(split / "labels" / part / f"{img.stem}.txt", ndmin=2)
        xy = np.stack(
            [
                (rows[:, 1] - rows[:, 3] / 2) * w,
                (rows[:, 2] - rows[:, 4] / 2) * h,
                (rows[:, 1] + rows[:, 3] / 2) * w,
                (rows[:, 2] + rows[:, 4] / 2) * h,
            ],
            axis=1,
        )
        out.append((img, Detections.make(xy, rows[:, 0].astype(int))))
    return out


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) * 1000


# -- peer ---------------------------------------------------------------------------------


def peer_module() -> Any:
    try:
        import mahjong_detector
    except ImportError:
        return None
    return mahjong_detector


def peer_class_map(names: list[str]) -> np.ndarray:
    return np.array([class_by_name(PEER_NAMES.get(n, n)) for n in names], dtype=np.int64)


def peer_boxes(peer: Any, path: Path) -> Detections:
    from mahjong_detector.predict import CLASS_NAMES as NAMES
    from mahjong_detector.predict import predict
    from mahjong_detector.preprocess import preprocess_image
    from PIL import Image

    img, padding = preprocess_image(Image.open(path))
    dets = predict(img, padding)
    cmap = peer_class_map(list(NAMES))
    return Detections.make(
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

        from hupai.vision.detector import Detector, ModelManifest

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

            def detect(
                self, image: Any, *, conf: float | None = None, agnostic: bool = False
            ) -> Detections:
                det = super().detect(image, conf=0.5 if conf is None else conf, agnostic=agnostic)
                return Detections(det.xyxy, det.confidence, cmap[det.class_id])

        return _Peer(model_path, threads=threads, manifest=manifest)


# -- runs ---------------------------------------------------------------------------------


def run_ours(
    detector: Any, photos: list[tuple[Path, Detections]], repeat: int, namer: Any = None
) -> tuple[list[float], list[Detections]]:
    from hupai.vision.detector import load_image
    from hupai.vision.reading import read_image

    times, preds = [], []
    for path, _ in photos:
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            image = load_image(path)
            reading = read_image(image, detector=detector, namer=namer, source=str(path))
            best = min(best, time.perf_counter() - t)
        times.append(best)
        preds.append(reading.detections)
    return times, preds


def run_peer(
    peer: Any, photos: list[tuple[Path, Detections]], repeat: int
) -> tuple[list[float], list[Detections]]:
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
    photos: list[tuple[Path, Detections]], n: int, scale: float
) -> list[tuple[np.ndarray, Detections]]:
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
        out.append((canvas, Detections(xy, truth.confidence, truth.class_id)))
    return out


def run_strategies(
    detector: Any, scenes: list[tuple[np.ndarray, Detections]]
) -> dict[str, tuple[float, Any]]:
    from hupai.vision.reading import detect_photo

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
            preds.append(fn(img))
            times.append(time.perf_counter() - t)
        report = evaluate(preds, [t for _, t in scenes], 0.25, classes=SHARED)
        out[name] = (statistics.median(times), report)
    return out


# -- 12-MP phone photos ---------------------------------------------------------------------

PHONE = (4000, 3000)
#: EXIF orientation 6: the sensor's landscape pixels are shown turned a quarter clockwise (a
#: phone held upright); 1: shown as stored.
EXIF_ORIENTATION = 0x0112


def phone_photo(path: Path, truth: Detections, out: Path, k: int) -> tuple[Path, Detections]:
    """A real photo made into a 12-MP phone JPEG: upscaled (cubic) so that it fills the
    short side, pasted on a blurred, stretched copy of itself (a table that goes on), with
    sensor noise, saved at JPEG quality 90; every other one stored sideways with EXIF
    orientation 6, as a phone held upright stores it. Returns the file and the truth in the
    upright photo's pixels."""
    import cv2
    from PIL import Image

    img: Any = cv2.imread(str(path))
    portrait = k % 2 == 1
    w, h = (PHONE[1], PHONE[0]) if portrait else PHONE
    canvas = cv2.GaussianBlur(cv2.resize(img, (w // 8, h // 8)), (0, 0), 3)
    canvas = cv2.resize(canvas, (w, h), interpolation=cv2.INTER_LINEAR)
    scale = min(w, h) / max(img.shape[:2])
    big = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    x0, y0 = (w - big.shape[1]) // 2, (h - big.shape[0]) // 2
    canvas[y0 : y0 + big.shape[0], x0 : x0 + big.shape[1]] = big
    noise = np.random.default_rng(k).normal(0, 2.0, canvas.shape)
    canvas = np.clip(canvas + noise, 0, 255).astype(np.uint8)
    rgb = Image.fromarray(canvas[:, :, ::-1])
    exif = Image.Exif()
    exif[EXIF_ORIENTATION] = 6 if portrait else 1
    if portrait:  # stored as the sensor saw it: landscape, the upright view turned back
        rgb = rgb.transpose(Image.Transpose.ROTATE_90)
    file = out / f"phone-{k:02d}.jpg"
    if not file.is_file():  # made once: a second run reads the same files
        partial = file.with_suffix(".part")
        rgb.save(partial, format="JPEG", quality=90, exif=exif, subsampling=2)
        partial.replace(file)
    xy = truth.xyxy * scale + np.array([x0, y0, x0, y0])
    return file, Detections(xy, truth.confidence, truth.class_id)


def phone_photos(split: Path, n: int, out: Path) -> list[tuple[Path, Detections]]:
    """``n`` 12-MP phone JPEGs from real *val* photos (made once, kept in ``out``)."""
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for k, (path, truth) in enumerate(load_split(split, n, part="val")):
        made.append(phone_photo(path, truth, out, k))
    return made


def phone_row(detector: Any, namer: Any, peer: Any, photos: list[tuple[Path, Detections]]) -> None:
    """Decode + read of 12-MP phone photos, p50/p90: the one read path every command takes
    (:func:`hupai.vision.reading.read_photo_image` on the file, as ``hupai read`` calls it
    per photo: a reduced decode first, the whole photo only for small tiles) against the
    whole decode then a read (the CLI before issue #37), photo by photo in turn, and the
    peer's own decode + detect of the same files."""
    from hupai.vision.images import DECODE_PIXELS, decode_image
    from hupai.vision.reading import read_image, read_photo_image

    looks: list[int] = []

    def read(image: Any) -> Any:
        return read_image(image, detector=detector, namer=namer)

    def looked(image: Any) -> Any:
        looks[-1] += 1
        return read(image)

    def one_path(path: Path) -> Any:
        return read_photo_image(path, detector=detector, namer=namer)[1]

    def whole(path: Path) -> Any:
        return read(decode_image(path.read_bytes(), budget=DECODE_PIXELS))

    def counted(path: Path) -> Any:  # the one path, counting its looks
        from hupai.vision.photo_read import read_photo_file

        return read_photo_file(path, looked)[1]

    paths = {"hupai read (one path)": one_path, "whole decode + read": whole}
    times: dict[str, list[float]] = {k: [] for k in paths}
    preds: dict[str, list[Detections]] = {k: [] for k in paths}
    for path, _ in photos:
        for name, run in paths.items():
            t0 = time.perf_counter()
            reading = run(path)
            times[name].append(time.perf_counter() - t0)
            preds[name].append(reading.detections)  # in the photo's own pixels, as the truth
        looks.append(0)
        counted(path)
    again = sum(n > 1 for n in looks)
    print(
        f"\n12-MP phone photos: {len(photos)} real val photos as {PHONE[0]}×{PHONE[1]} JPEGs "
        "(quality 90, half stored sideways with EXIF orientation 6), file → decode + read "
        f"(start-up excluded); the one path read {again} of them again whole"
    )
    truths = [t for _, t in photos]
    print(f"{'':<32}{'p50 ms':>9}{'p90 ms':>9}{'exact':>7}{'recall':>8}")
    for name in paths:
        rep = evaluate(preds[name], truths, 0.0, classes=SHARED)
        print(
            f"{'ours: ' + name:<32}{pct(times[name], 50):>9.1f}{pct(times[name], 90):>9.1f}"
            f"{rep.exact_read:>7.3f}{rep.recall:>8.3f}"
        )
    ours, before = times["hupai read (one path)"], times["whole decode + read"]
    print(
        f"one path / whole decode: p50 {pct(ours, 50) / pct(before, 50):.2f}, "
        f"p90 {pct(ours, 90) / pct(before, 90):.2f}"
    )
    if peer is not None:
        peer_times, peer_preds = run_peer(peer, photos, 1)
        prep = evaluate(peer_preds, truths, 0.5, classes=SHARED)
        print(
            f"{'mahjong-detector 0.0.6':<32}{pct(peer_times, 50):>9.1f}"
            f"{pct(peer_times, 90):>9.1f}{prep.exact_read:>7.3f}{prep.recall:>8.3f}"
        )
        print(
            f"12-MP ratio one path/peer: p50 {pct(ours, 50) / pct(peer_times, 50):.2f}, "
            f"p90 {pct(ours, 90) / pct(peer_times, 90):.2f}"
        )
    nothing_rows(detector, namer, statistics.median(ours), ROOT / "runs" / "bench-nothing")


def nothing_photos(out: Path) -> dict[str, Path]:
    """Photos with no tile in them: a 700-byte JPEG whose header claims 7000×7000, a blank
    12-MP JPEG, and a 12-MP JPEG of a textured cloth (not featureless: the finder looks)."""
    import cv2

    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    _, tiny = cv2.imencode(
        ".jpg", np.full((16, 16, 3), 120, np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 50]
    )
    claim = bytearray(tiny.tobytes())
    sof = claim.find(b"\xff\xc0")
    claim[sof + 5 : sof + 9] = (7000).to_bytes(2, "big") * 2
    blank = np.full((3000, 4000, 3), (90, 120, 60), np.uint8)
    noise = rng.normal(0, 1, (375, 500, 3)).astype(np.float32)
    cloth = cv2.resize(cv2.GaussianBlur(noise, (0, 0), 2), (4000, 3000))
    cloth = np.clip(110 + 60 * cloth / max(float(cloth.std()), 1e-6), 0, 255).astype(np.uint8)
    made = {"700-byte JPEG claiming 7000×7000": bytes(claim)}
    for name, img in (("blank 12-MP JPEG", blank), ("12-MP JPEG of a cloth", cloth)):
        made[name] = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
    paths = {}
    for k, (name, data) in enumerate(made.items()):
        paths[name] = out / f"nothing-{k}.jpg"
        paths[name].write_bytes(data)
    return paths


def nothing_rows(detector: Any, namer: Any, real_p50: float, out: Path) -> None:
    """Photos of nothing through the one read path, against a real 12-MP photo's p50."""
    from hupai.vision.reading import read_photo_image

    print(
        "\nphotos with no tile, the one read path (median of 5; a real 12-MP photo's p50 "
        f"{real_p50 * 1000:.1f} ms)"
    )
    for name, path in nothing_photos(out).items():
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            _, reading = read_photo_image(path, detector=detector, namer=namer)
            times.append(time.perf_counter() - t0)
        ms = statistics.median(times) * 1000
        print(
            f"  {name:<36}{ms:>8.1f} ms  {ms / 1000 / real_p50:>5.2f}× a real photo"
            f"  ({len(reading.detections)} tiles; {', '.join(reading.passes)})"
        )


@contextlib.contextmanager
def plain_sessions() -> Iterator[None]:
    """Sessions opened inside are plain onnxruntime ones (threads that spin, as before the
    settings of issue #26), for a before/after row in one run."""
    import onnxruntime as ort

    from hupai.vision import detector

    chosen = detector.session_options

    def plain(threads: int | None) -> Any:
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        return options

    detector.session_options = plain
    try:
        yield
    finally:
        detector.session_options = chosen


def first_decode(pixels: int) -> None:
    """What-if for :data:`hupai.vision.photo_read.FIRST_PIXELS` (the bench only)."""
    from hupai.vision import photo_read

    photo_read.FIRST_PIXELS = pixels


SWEEP = (0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.7, 0.9)


def hand_scene(path: Path, truth: Detections, span: float) -> tuple[np.ndarray, Detections]:
    """The photo's tiles (their region and a margin) pasted into a 4000×3000 canvas of its
    mean colour, scaled so that the region spans ``span`` of the long side."""
    import cv2

    img: Any = cv2.imread(str(path))
    lo, hi = truth.xyxy[:, :2].min(0), truth.xyxy[:, 2:].max(0)
    pad = 0.15 * (hi - lo)
    x0, y0 = np.maximum(lo - pad, 0).astype(int)
    x1, y1 = np.minimum(hi + pad, [img.shape[1], img.shape[0]]).astype(int)
    region = img[y0:y1, x0:x1]
    scale = span * 4000 / max(region.shape[1], region.shape[0])
    scale = min(scale, 2900 / region.shape[0], 3900 / region.shape[1])
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    small = cv2.resize(region, None, fx=scale, fy=scale, interpolation=interp)
    canvas = np.empty((3000, 4000, 3), np.uint8)
    canvas[:] = region.reshape(-1, 3).mean(0).astype(np.uint8)
    h, w = small.shape[:2]
    ox, oy = (4000 - w) // 2, (3000 - h) // 2
    canvas[oy : oy + h, ox : ox + w] = small
    xy = (truth.xyxy - [x0, y0, x0, y0]) * scale + [ox, oy, ox, oy]
    return canvas, Detections(xy, truth.confidence, truth.class_id)


def sweep(detector: Any, namer: Any, photos: list[tuple[Path, Detections]]) -> None:
    """The hands at each span saved as quality-90 JPEGs and read the service's way
    (:mod:`hupai.vision.photo_read`: a reduced decode first) — the ``again`` column counts those
    read again whole — and, for comparison, decoded whole then read."""
    import cv2

    from hupai.vision.images import DECODE_PIXELS, decode_image
    from hupai.vision.metrics import StageReport
    from hupai.vision.photo_read import read_photo_data
    from hupai.vision.reading import read_image

    def read(image: Any) -> Any:
        return read_image(image, detector=detector, namer=namer)

    def whole(data: bytes, read: Any) -> tuple[Any, Any]:
        image = decode_image(data, budget=DECODE_PIXELS)
        return image, read(image)

    print(f"\nscale sweep: {len(photos)} hands in 4000×3000 JPEGs (12 MP), decode + read")
    print(
        f"{'':>20}{'service path':^38}{'whole decode + read':^30}\n"
        f"{'hand spans':>11}{'tile px':>9}{'found':>8}{'named':>8}{'exact':>7}{'p50 ms':>8}"
        f"{'again':>7}{'found':>8}{'named':>8}{'exact':>7}{'p50 ms':>8}"
    )
    for span in SWEEP:
        figures, sides, again = [], [], 0
        for run in (read_photo_data, whole):
            stages, reads, truths, times = StageReport(), [], [], []
            for path, truth in photos:
                canvas, moved = hand_scene(path, truth, span)
                _, buf = cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, 90])
                t = time.perf_counter()
                image, reading = run(bytes(buf), read)
                times.append(time.perf_counter() - t)
                scale = reading.width / canvas.shape[1]  # the one path: the photo's pixels
                moved = Detections(moved.xyxy * scale, moved.confidence, moved.class_id)
                again += run is read_photo_data and image.shape[1] == canvas.shape[1]
                stages.add(
                    moved, reading.extra["found_xyxy"], reading.detections, reading.alternatives
                )
                reads.append(reading.detections)
                truths.append(moved)
                if run is whole:
                    sides.append(float(np.median((moved.xyxy[:, 2:] - moved.xyxy[:, :2]).max(1))))
            f = stages.figures()
            figures.append(
                f"{f['found_recall']:>8.3f}{f['found_recall'] * f['namer_accuracy']:>8.3f}"
                f"{evaluate(reads, truths, 0.0).exact_read:>7.2f}"
                f"{statistics.median(times) * 1000:>8.0f}"
            )
        print(f"{span:>10.0%}{np.median(sides):>9.0f}{figures[0]}{again:>7}{figures[1]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", type=Path, default=ROOT / "data" / "real")
    parser.add_argument("--model", help="our ONNX model (default: the shipped one)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--limit", type=int, help="at most this many photos")
    parser.add_argument("--repeat", type=int, default=2, help="timed runs per photo (best kept)")
    parser.add_argument("--large", type=int, default=0, help="large-photo strategies on N photos")
    parser.add_argument("--large-scale", type=float, default=1.0)
    parser.add_argument("--sweep", type=int, default=0, help="scale sweep on N photos' hands")
    parser.add_argument(
        "--single",
        help="also time a single-stage detector alone (e.g. reader 1's hupai-tiles-v1.onnx)",
    )
    parser.add_argument("--namer", help="our namer ONNX (default: the shipped one)")
    parser.add_argument(
        "--before",
        action="store_true",
        help="also time the shipped float pair, and in plain sessions (before issue #26)",
    )
    parser.add_argument(
        "--one-view",
        action="store_true",
        help="also time the reader naming each box in one view (its margin), before reader 6",
    )
    parser.add_argument(
        "--every-view",
        action="store_true",
        help="also time the reader naming every box at every view (before reader 8's "
        "more_views_below: later views only for the boxes the first view doubts)",
    )
    parser.add_argument(
        "--upright-only",
        action="store_true",
        help="also time the reader naming doubted boxes upright only (before turned views)",
    )
    parser.add_argument(
        "--phone", type=int, default=20, help="12-MP phone JPEGs made from N val photos (0: none)"
    )
    parser.add_argument(
        "--first-pixels",
        type=int,
        help="what-if: the service path's first decode budget "
        "(hupai.vision.photo_read.FIRST_PIXELS)",
    )
    args = parser.parse_args()
    if args.first_pixels:
        first_decode(args.first_pixels)

    from hupai.vision.detector import Detector, ModelError
    from hupai.vision.namer import Namer
    from hupai.vision.reading import default_namer

    photos = load_split(args.split, args.limit)
    if not photos:
        print(f"no test photos under {args.split}/images/test", file=sys.stderr)
        return 2
    try:
        ours = Detector(args.model, threads=args.threads)
        single = Detector(args.single, threads=args.threads) if args.single else None
    except ModelError as exc:
        print(f"our model: {exc}", file=sys.stderr)
        return 2
    namer = Namer(args.namer, threads=args.threads) if args.namer else default_namer(args.threads)
    peer = peer_module()
    truths = [t for _, t in photos]
    print(f"{len(photos)} photos from {args.split}/images/test, {args.threads} threads")
    print(f"ours: {ours.path} ({ours.manifest.name} {ours.manifest.version})")
    if namer is not None:
        print(f"      + {namer.path} ({namer.manifest.name} {namer.manifest.version})")

    ours.detect(np.zeros((640, 640, 3), np.uint8))  # warm-up
    t_ours, p_ours = run_ours(ours, photos, args.repeat, namer)
    conf = 0.0 if namer is not None else 0.25  # named tiles are read tiles
    rows = [("ours (read_image)", t_ours, evaluate(p_ours, truths, conf, classes=SHARED))]
    if args.before:
        shipped = Detector(None, threads=args.threads), Namer(None, threads=args.threads)
        with plain_sessions():
            old = Detector(None, threads=args.threads), Namer(None, threads=args.threads)
        for label, (d, n) in (("shipped float", shipped), ("before (float, plain)", old)):
            t_old, p_old = run_ours(d, photos, args.repeat, n)
            rows.append((label, t_old, evaluate(p_old, truths, 0.0, classes=SHARED)))

    def namer_row(label: str, **manifest: Any) -> None:
        """A row for the shipped namer run with ``manifest`` fields changed."""
        import dataclasses

        assert namer is not None
        variant = Namer(namer.path, threads=args.threads)
        variant.manifest = dataclasses.replace(variant.manifest, **manifest)
        times, read = run_ours(ours, photos, args.repeat, variant)
        rows.append((label, times, evaluate(read, truths, 0.0, classes=SHARED)))

    if args.one_view and namer is not None and len(namer.manifest.views) > 1:
        namer_row("ours, one view", view_margins=())  # the margin alone
    if args.every_view and namer is not None and namer.manifest.more_views_below is not None:
        namer_row("ours, every view", more_views_below=None)
    if args.upright_only and namer is not None and namer.manifest.turned_margins:
        namer_row("ours, upright only", turned_margins=())
    if single is not None:
        t_one, p_one = run_ours(single, photos, args.repeat)
        rows.append(("ours, detector alone", t_one, evaluate(p_one, truths, 0.25, classes=SHARED)))
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
        f"\n{'model':<28}{'p50 ms':>9}{'p90 ms':>9}{'precision':>11}{'recall':>8}"
        f"{'exact':>7}{'mAP50':>7}"
    )
    for name, times, rep in rows:
        print(
            f"{name:<28}{pct(times, 50):>9.1f}{pct(times, 90):>9.1f}{rep.precision:>11.3f}"
            f"{rep.recall:>8.3f}{rep.exact_read:>7.3f}{rep.map50:>7.3f}"
        )
    if rows[-1][0].startswith("mahjong-detector"):
        print(
            f"latency ratio ours/peer: p50 {pct(rows[0][1], 50) / pct(rows[-1][1], 50):.2f}, "
            f"p90 {pct(rows[0][1], 90) / pct(rows[-1][1], 90):.2f}"
        )
    print(
        "(tiles of the 34 shared kinds; precision/recall at IoU 0.5, ours at conf 0.25, the peer"
        " at its own 0.5; exact = photos whose tile multiset is read exactly)"
    )

    if args.phone:
        made = phone_photos(args.split, args.phone, ROOT / "runs" / "bench-phone")
        phone_row(ours, namer, peer, made)
    if args.sweep:
        sweep(ours, namer, photos[: args.sweep])
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
