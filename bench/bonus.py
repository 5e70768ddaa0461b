"""Bonus-reader benchmark: what the closer look at flowers and seasons costs and is worth, the
shipped namer with its bonus reader against the same namer without it (the peer), in one run.

Cost: the whole ``read_image`` (finder + namer + layout + checks) on the real test photos,
the two readers interleaved photo by photo, ``--repeats`` rounds; p50/p90 and their ratio.
Worth: the camerash tiles (measure only) named right, all and flowers/seasons, each way.

    .venv/bin/python bench/bonus.py [--repeats 2] [--threads 2] [--split data/real]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hupai.evaluation import find_samples, run_crops  # noqa: E402
from hupai.vision.detector import load_image  # noqa: E402
from hupai.vision.namer import BONUS, Namer, find_namer  # noqa: E402
from hupai.vision.reading import get_detector, read_image  # noqa: E402


def without_bonus(namer: Path, folder: Path) -> Path:
    """A copy of ``namer`` whose manifest names no bonus reader."""
    shutil.copy(namer, folder / namer.name)
    manifest = json.loads(namer.with_suffix(".json").read_text())
    if "bonus" not in manifest:
        raise SystemExit(f"{namer}: its manifest names no bonus reader: nothing to compare")
    manifest.pop("bonus")
    (folder / namer.name).with_suffix(".json").write_text(json.dumps(manifest))
    return folder / namer.name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", type=Path, default=ROOT / "data" / "real")
    ap.add_argument("--camerash", type=Path, default=ROOT.parent / "shared/data/camerash-tiles")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    shipped = find_namer()
    with tempfile.TemporaryDirectory() as tmp:
        peer = without_bonus(shipped, Path(tmp))
        readers = {"with bonus reader": shipped, "without (peer)": peer}
        namers = {k: Namer(v, threads=args.threads) for k, v in readers.items()}
        detector = get_detector(None, threads=args.threads)
        photos = [load_image(s.image) for s in find_samples(args.split, "test")]
        for image in photos[:3]:  # warm up
            for namer in namers.values():
                read_image(image, detector=detector, namer=namer)
        times: dict[str, list[float]] = {k: [] for k in namers}
        for _ in range(args.repeats):
            for image in photos:
                for key, namer in namers.items():
                    began = time.perf_counter()
                    read_image(image, detector=detector, namer=namer)
                    times[key].append(time.perf_counter() - began)
        print(f"read_image on {len(photos)} real test photos × {args.repeats}, interleaved")
        for key, t in times.items():
            p50, p90 = 1e3 * np.median(t), 1e3 * np.percentile(t, 90)
            print(f"  {key:<20} p50 {p50:6.1f} ms   p90 {p90:6.1f} ms")
        ratio = np.median(times["with bonus reader"]) / np.median(times["without (peer)"])
        print(f"  ratio (p50, with / without): {ratio:.3f}")
        if args.camerash.is_dir():
            print(f"camerash tiles ({args.camerash}; measure only)")
            for key, path in readers.items():
                e = run_crops(args.camerash, namer=str(path), threads=args.threads)
                flowers = [v for c, v in e.per_class.items() if c in BONUS]
                right, n = sum(r for _, r in flowers), sum(k for k, _ in flowers)
                print(f"  {key:<20} named right {e.accuracy:.2%}   flowers and seasons {right}/{n}")


if __name__ == "__main__":
    main()
