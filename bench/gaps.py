"""Gaps: what flagging "a row has room for a tile that was not found" does to the reading.

Real val photos (never test) are read once through the product's own path with the gap check
(:func:`hupai.vision.layout.missing_tiles`) off; the check is then run on each reading's own
frame and layout at several lower bounds (the smallest step between two neighbours flagged, in
the row's pitches) and — the peer, in the same run — not at all: exact-read, the confident share
and how exact it is, the photos with a gap (and how many of those had a labelled tile no read
box found). Then the miss the check is for is made by hand: in every row of 9-14 tiles read,
each found box is taken away in turn (the tile stays in the photo, unboxed — what a finder
that misses a blank white dragon leaves) and the check runs on what is left: is a gap flagged
where the tile lies? Inner tiles and row ends are counted apart (an end leaves no room to see).

    python bench/gaps.py [--real data/real] [--split val] [--lower 1.5 1.6 …]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hupai.vision import layout as layout_module  # noqa: E402
from hupai.vision.detections import Detections, box_iou  # noqa: E402
from hupai.vision.result import Reading  # noqa: E402

#: rows as long as a concealed hand (the issue's "a row of 9-14")
ROW_LENGTHS = range(9, 15)
#: a gap "where the tile lies": it overlaps the taken box by this much
HIT_IOU = 0.3


def without(det: Detections, i: int) -> Detections:
    keep = np.arange(len(det)) != i
    return Detections(det.xyxy[keep], det.confidence[keep], det.class_id[keep])


def read_all(folder: Path, split: str, model: str | None, namer: str | None) -> list[tuple]:
    from hupai.vision.detector import Detector, load_image
    from hupai.vision.namer import Namer
    from hupai.vision.reading import default_namer, read_image

    from hupai.evaluation import dataset_class_map, find_samples, load_truth

    detector = Detector(model, threads=1)
    the_namer = Namer(namer, threads=1) if namer else default_namer(1)
    class_map, _ = dataset_class_map(folder, split)
    out = []
    for sample in find_samples(folder, split):
        image = load_image(sample.image)
        h, w = image.shape[:2]
        truth = load_truth(sample, w, h, class_map)
        out.append((read_image(image, detector=detector, namer=the_namer), truth))
    return out


def gaps_of(reading: Reading, lower: float) -> int:
    """How many gaps the check finds in a reading (read with the check off) at ``lower``."""
    frame = reading.extra["frame"]
    det = Detections(frame["xyxy"], reading.detections.confidence, reading.detections.class_id)
    saved = layout_module.MISSING_GAP
    layout_module.MISSING_GAP = (lower, saved[1])
    try:
        return len(layout_module.missing_tiles(det, reading.layout))
    finally:
        layout_module.MISSING_GAP = saved


def photo_figures(readings: list[tuple], lower: float | None) -> dict[str, float | None]:
    """The figures with the check at ``lower`` (None: off, the peer)."""
    exact = confident = confident_exact = gapped = true_gaps = 0
    for reading, truth in readings:
        right = Counter(reading.detections.class_id.tolist()) == Counter(truth.class_id.tolist())
        gaps = 0 if lower is None else gaps_of(reading, lower)
        sure = reading.confident and not gaps
        exact += right
        confident += sure
        confident_exact += sure and right
        if gaps:
            gapped += 1
            found = box_iou(truth.xyxy, reading.detections.xyxy).max(axis=1, initial=0)
            true_gaps += bool((found < 0.5).any())
    n = max(len(readings), 1)
    return {
        "exact_read": exact / n,
        "confident_share": confident / n,
        "confident_exact": confident_exact / confident if confident else None,
        "photos with a gap": gapped / n,
        "  of them a tile missed": true_gaps / gapped if gapped else None,
    }


def taken_away(readings: list[tuple], lower: float) -> dict[str, tuple[int, int]]:
    """Per position kind (inner/end): (boxes taken, gap flagged where the box was)."""
    counts: dict[str, list[int]] = {"inner": [0, 0], "end": [0, 0]}
    saved = layout_module.MISSING_GAP
    layout_module.MISSING_GAP = (lower, saved[1])
    try:
        for reading, _truth in readings:
            det = reading.detections
            lay = layout_module.analyse(det)
            for row in lay.rows:
                if len(row.tiles) not in ROW_LENGTHS:
                    continue
                for k, i in enumerate(row.tiles):
                    kind = "end" if k in (0, len(row.tiles) - 1) else "inner"
                    rest = without(det, i)
                    gaps = layout_module.missing_tiles(rest, layout_module.analyse(rest))
                    hit = len(gaps) and box_iou(gaps, det.xyxy[i][None]).max() > HIT_IOU
                    counts[kind][0] += 1
                    counts[kind][1] += bool(hit)
    finally:
        layout_module.MISSING_GAP = saved
    return {k: (v[0], v[1]) for k, v in counts.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, default=ROOT / "data" / "real")
    parser.add_argument("--split", default="val", help="never test for choosing")
    parser.add_argument("--model")
    parser.add_argument("--namer")
    parser.add_argument(
        "--lower",
        type=float,
        nargs="+",
        default=[0.6, 0.7, 0.8, 0.9, 1.0],
        help="the smallest gap (tile widths beyond the row's spacing) flagged, swept",
    )
    args = parser.parse_args(argv)
    saved = layout_module.MISSING_GAP
    layout_module.MISSING_GAP = (float("inf"), float("inf"))  # read once, the check off
    try:
        readings = read_all(args.real, args.split, args.model, args.namer)
    finally:
        layout_module.MISSING_GAP = saved
    print(f"real {args.split}: {len(readings)} photos; the gap check at each lower bound")
    settings: list[float | None] = [None, *args.lower]
    figures = {s: photo_figures(readings, s) for s in settings}
    names = ["off (peer)", *(f"from {s:.2f}" for s in args.lower)]
    print(f"{'':26s}" + "".join(f"{name:>12s}" for name in names))
    for key in figures[None]:
        cells = [figures[s][key] for s in settings]
        print(f"{key:26s}" + "".join(f"{'—' if v is None else f'{v:.3f}':>12s}" for v in cells))
    span = f"{ROW_LENGTHS.start}-{ROW_LENGTHS.stop - 1}"
    print(f"\none found box taken away (the tile left unboxed) in rows of {span} tiles:")
    print("a gap flagged where it lay")
    for lower in args.lower:
        found = taken_away(readings, lower)
        cells = "  ".join(f"{k} {hit}/{n} = {hit / max(n, 1):.1%}" for k, (n, hit) in found.items())
        print(f"  from {lower:.2f}: {cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
