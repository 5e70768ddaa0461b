"""Labelling benchmark: photos per second of ``hupai label`` with 1 and 2 worker processes
(and Ray, with ``--ray``), against a plain loop of ``read_image`` over the same photos in
this process (the peer: what the job costs beyond reading).

For each configuration the job labels the photos into a fresh folder (every format, no
previews) and the table shows the reading phase's rate (photos/s while photos are read) and
the whole job's rate (start-up of workers and sessions, outputs and manifest included), with
ratios against the plain loop.

    .venv/bin/python bench/label.py [--photos DIR] [-n 40] [--model M] [--ray]

Photos default to the real test split in ../shared (Roboflow "Chinese Mahjong Detection"
v4). The machine's other load (a training job) skews the figures: run it twice.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hupai.labeling import IMAGE_SUFFIXES, LabelOptions, run_label_job  # noqa: E402

SHARED_TEST = ROOT.parent / "shared/data/chinese-mahjong-detection-v4/test/images"


def pick_photos(source: Path, n: int, into: Path) -> list[Path]:
    photos = sorted(p for p in source.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)[:n]
    if not photos:
        sys.exit(f"bench/label.py: no photos under {source}")
    into.mkdir(parents=True)
    for p in photos:
        shutil.copy(p, into / p.name)
    return sorted(into.iterdir())


def plain_loop(photos: list[Path], model: str | None) -> float:
    """Photos/s of read_image in a loop, one session with the default threads."""
    from hupai.vision.detector import Detector, load_image
    from hupai.vision.reading import read_image

    detector = Detector(model)
    read_image(load_image(photos[0]), detector=detector)  # warm up
    began = time.perf_counter()
    for p in photos:
        read_image(load_image(p), detector=detector, source=str(p))
    return len(photos) / (time.perf_counter() - began)


def job(photos: Path, out: Path, model: str | None, **kw: object) -> tuple[float, float]:
    began = time.perf_counter()
    report = run_label_job(LabelOptions(photos=photos, out=out, model=model, **kw))  # type: ignore[arg-type]
    total = time.perf_counter() - began
    if report.failed:
        print(f"  ({len(report.failed)} photos unreadable)")
    return report.photos_per_second, report.labelled / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=Path, default=SHARED_TEST)
    parser.add_argument("-n", type=int, default=40, help="photos to label (default 40)")
    parser.add_argument("--model", help="ONNX model (default: the shipped one)")
    parser.add_argument("--ray", action="store_true", help="also run the Ray engine (2 actors)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="hupai-bench-label-") as tmp:
        folder = Path(tmp) / "photos"
        photos = pick_photos(args.photos, args.n, folder)
        cores = os.cpu_count() or 1
        print(f"{len(photos)} photos from {args.photos}, {cores} cores")
        peer = plain_loop(photos, args.model)
        rows = [("read_image loop (peer)", peer, peer)]
        configs: list[tuple[str, dict[str, object]]] = [
            ("label, 1 worker", {"workers": 1}),
            ("label, 2 workers", {"workers": 2}),
        ]
        if args.ray:
            configs.append(("label, Ray, 2 actors", {"workers": 2, "engine": "ray"}))
        for k, (name, kw) in enumerate(configs):
            reading, whole = job(folder, Path(tmp) / f"out{k}", args.model, **kw)
            rows.append((name, reading, whole))
        print(f"{'':26}{'reading':>10}{'ratio':>8}{'whole job':>12}{'ratio':>8}   photos/s")
        for name, reading, whole in rows:
            print(f"{name:26}{reading:10.2f}{reading / peer:8.2f}{whole:12.2f}{whole / peer:8.2f}")


if __name__ == "__main__":
    main()
