"""Labelling benchmark: photos per second of ``hupai label`` with 1 and 2 worker processes
on 12-MP phone photos (and the Ray engine with 2 actors, with ``--ray``), against a plain loop
of the one read path (:func:`hupai.vision.reading.read_photo_image`, as ``hupai read`` reads
each photo) over the same photos in this process (the peer: what the job costs beyond
reading).

For each configuration the job labels the photos into a fresh folder (every format, no
previews) and the table shows the reading phase's rate (photos/s while photos are read) and
the whole job's rate (start-up of workers and sessions, outputs and manifest included), with
ratios against the plain loop. Workers get ``cores / workers`` onnxruntime threads each.

    .venv/bin/python bench/label.py [--phone 40 | --photos DIR -n 40] [--model M --namer N]
        [--ray]

``--phone N`` (the default, 40): N real val photos of ``--split`` made into 12-MP phone
JPEGs (4000×3000, quality 90, half stored sideways with EXIF orientation 6, as
``bench/read.py --phone`` makes them, kept in runs/bench-phone). ``--photos DIR``: the
photos of a folder instead. The machine's other load skews the figures: run it twice.
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


def pick_photos(source: Path, n: int, into: Path) -> list[Path]:
    photos = sorted(p for p in source.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)[:n]
    if not photos:
        sys.exit(f"bench/label.py: no photos under {source}")
    into.mkdir(parents=True)
    for p in photos:
        shutil.copy(p, into / p.name)
    return sorted(into.iterdir())


def phone_folder(split: Path, n: int, into: Path) -> list[Path]:
    """``n`` 12-MP phone JPEGs made from real val photos (bench/read.py's), copied into ``into``."""
    sys.path.insert(0, str(ROOT / "bench"))
    from read import phone_photos  # bench/read.py

    made = phone_photos(split, n, ROOT / "runs" / "bench-phone")
    if not made:
        sys.exit(f"bench/label.py: no val photos under {split}/images/val")
    into.mkdir(parents=True)
    for path, _ in made:
        shutil.copy(path, into / path.name)
    return sorted(into.iterdir())


def plain_loop(photos: list[Path], model: str | None, namer: str | None) -> float:
    """Photos/s of the one read path in a loop, one session with the default threads."""
    from hupai.vision.detector import Detector
    from hupai.vision.namer import Namer
    from hupai.vision.reading import default_namer, read_photo_image

    detector = Detector(model)
    the_namer = Namer(namer) if namer else default_namer()
    read_photo_image(photos[0], detector=detector, namer=the_namer)  # warm up
    began = time.perf_counter()
    for p in photos:
        read_photo_image(p, detector=detector, namer=the_namer)
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
    parser.add_argument("--photos", type=Path, help="a folder of photos (default: --phone)")
    parser.add_argument("-n", type=int, default=40, help="photos to label (default 40)")
    parser.add_argument("--split", type=Path, default=ROOT / "data" / "real")
    parser.add_argument("--model", help="ONNX finder (default: the shipped one)")
    parser.add_argument("--namer", help="ONNX namer (default: the shipped one)")
    parser.add_argument("--ray", action="store_true", help="also run the Ray engine (2 actors)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="hupai-bench-label-") as tmp:
        folder = Path(tmp) / "photos"
        if args.photos is not None:
            photos = pick_photos(args.photos, args.n, folder)
            what = str(args.photos)
        else:
            photos = phone_folder(args.split, args.n, folder)
            what = "12-MP phone JPEGs made from real val photos"
        cores = os.cpu_count() or 1
        print(f"{len(photos)} photos ({what}), {cores} cores")
        peer = plain_loop(photos, args.model, args.namer)
        rows = [("one read path loop (peer)", peer, peer)]
        configs: list[tuple[str, dict[str, object]]] = [
            ("label, 1 worker", {"workers": 1}),
            ("label, 2 workers", {"workers": 2}),
        ]
        if args.ray:
            configs.append(("label, Ray, 2 actors", {"workers": 2, "engine": "ray"}))
        for k, (name, kw) in enumerate(configs):
            reading, whole = job(folder, Path(tmp) / f"out{k}", args.model, namer=args.namer, **kw)
            rows.append((name, reading, whole))
        print(f"{'':28}{'reading':>10}{'ratio':>8}{'whole job':>12}{'ratio':>8}   photos/s")
        for name, reading, whole in rows:
            print(f"{name:28}{reading:10.2f}{reading / peer:8.2f}{whole:12.2f}{whole / peer:8.2f}")


if __name__ == "__main__":
    main()
