"""Gaps: what flagging "a row has room for a tile that was not found" does to the reading.

Real val photos (never test) are read once through the product's own path with the gap check
(:func:`hupai.vision.layout.missing_tiles`) off; the check is then run on each reading's own
frame and layout as shipped and in a few variants (the smallest step between two neighbours
flagged, in the row's pitches; the winning tile; flowers) and — the peer, in the same run — not
at all: exact-read, the confident share and how exact it is, the photos with a gap (and how
many of those had a labelled tile no read box found). Then the miss the check is for is made by
hand: in every row of 9-14 tiles read, each found box is taken away in turn (the tile stays in
the photo, unboxed — what a finder that misses a blank white dragon leaves) and the check runs
on what is left: is a gap flagged where the tile lies? Inner tiles and row ends are counted
apart (an end leaves no room to see).

    python bench/gaps.py [--real data/real] [--split val]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections import Counter
from collections.abc import Iterator
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
    from hupai.evaluation import dataset_class_map, find_samples, load_truth
    from hupai.vision.detector import Detector, load_image
    from hupai.vision.namer import Namer
    from hupai.vision.reading import default_namer, read_image

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


@contextlib.contextmanager
def check_set(**constants: object) -> Iterator[None]:
    """The gap check with some of :mod:`hupai.vision.layout`'s constants changed."""
    saved = {name: getattr(layout_module, name) for name in constants}
    for name, value in constants.items():
        setattr(layout_module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(layout_module, name, value)


#: the variants measured beside each other: as shipped, and one change each
VARIANTS: dict[str, dict[str, object]] = {
    "shipped": {},
    "from 1.5": {"MISSING_GAP": (1.5, 3.4)},
    "from 1.9": {"MISSING_GAP": (1.9, 3.4)},
    "win apart 2.0": {"WIN_APART": 2.0},
    "win never": {"WIN_APART": float("inf")},
    "flowers in row": {"FLOWERS_APART": False},
}


def gaps_of(reading: Reading) -> int:
    """How many gaps the check finds in a reading's own frame and layout."""
    frame = reading.extra["frame"]
    det = Detections(frame["xyxy"], reading.detections.confidence, reading.detections.class_id)
    return len(layout_module.missing_tiles(det, reading.layout))


def photo_figures(readings: list[tuple], on: bool) -> dict[str, float | None]:
    """The figures with the check (as currently set) on, or off (the peer)."""
    exact = confident = confident_exact = gapped = true_gaps = 0
    for reading, truth in readings:
        right = Counter(reading.detections.class_id.tolist()) == Counter(truth.class_id.tolist())
        gaps = gaps_of(reading) if on else 0
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
        **{f"taken away, {k}: flagged": v for k, v in taken_away(readings, on).items()},
    }


def taken_away(readings: list[tuple], on: bool) -> dict[str, float]:
    """Per position kind (inner/end): the share of boxes taken away flagged where they lay."""
    counts: dict[str, list[int]] = {"inner": [0, 0], "end": [0, 0]}
    for reading, _truth in readings:
        det = reading.detections
        lay = layout_module.analyse(det)
        for row in lay.rows:
            if len(row.tiles) not in ROW_LENGTHS:
                continue
            for k, i in enumerate(row.tiles):
                kind = "end" if k in (0, len(row.tiles) - 1) else "inner"
                counts[kind][0] += 1
                if not on:
                    continue
                rest = without(det, i)
                gaps = layout_module.missing_tiles(rest, layout_module.analyse(rest))
                hit = len(gaps) and box_iou(gaps, det.xyxy[i][None]).max() > HIT_IOU
                counts[kind][1] += bool(hit)
    return {k: hit / max(n, 1) for k, (n, hit) in counts.items()}


def reader_arguments(description: str, argv: list[str] | None) -> argparse.Namespace:
    """The real split to read (val: never test for choosing) and the models to read it with."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--real", type=Path, default=ROOT / "data" / "real")
    parser.add_argument("--split", default="val", help="never test for choosing")
    parser.add_argument("--model")
    parser.add_argument("--namer")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = reader_arguments(__doc__.splitlines()[0], argv)
    with check_set(MISSING_GAP=(float("inf"), float("inf"))):  # read once, the check off
        readings = read_all(args.real, args.split, args.model, args.namer)
    figures = {"off (peer)": photo_figures(readings, on=False)}
    for name, constants in VARIANTS.items():
        with check_set(**constants):
            figures[name] = photo_figures(readings, on=True)
    span = f"{ROW_LENGTHS.start}-{ROW_LENGTHS.stop - 1}"
    print(f"real {args.split}: {len(readings)} photos; the gap check off and in each variant")
    print(f"(taken away: one found box in a row of {span} tiles, the tile left unboxed)")
    print(f"{'':28s}" + "".join(f"{name:>15s}" for name in figures))
    for key in figures["shipped"]:
        cells = [figures[name][key] for name in figures]
        print(f"{key:28s}" + "".join(f"{'—' if v is None else f'{v:.3f}':>15s}" for v in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
