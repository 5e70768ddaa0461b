"""Gaps: what flagging "a row has room for a tile that was not found" does to the reading.

Real val photos (never test) are read once through the product's own path with the gap check
off; the check is then run on each reading's own frame, layout, photo and doubtful boxes in
the variants measured side by side — the boxes alone (:func:`hupai.vision.layout.missing_tiles`,
the check before the photo judged it), the photo-judged check as shipped
(:func:`hupai.vision.rooms.judge`: a doubtful body in the room, or the room's colour near the
faces beside it), each of its two kinds of evidence alone, and other colour distances — and,
the peer in the same run, not at all: exact-read, the confident share and how exact it is,
the photos with a gap (and how many of those had a labelled tile no read box found). Then
the miss the check is for is made by hand: in every row of 9-14 tiles read, each found box is
taken away in turn (the tile stays in the photo, unboxed — what a finder that misses a blank
white dragon leaves) and the check runs on what is left: is a gap flagged where the tile
lies? Inner tiles and row ends are counted apart (an end leaves no room to see). Last, as
the product reads (:func:`hupai.vision.reading.read_in_rooms`): is the inner tile so taken
away read back, in its place, with the name the reading gave it — or with another, or not?

With ``--composites N`` the photos are instead N camerash composites (bench/composites.py:
single-tile photos of sets never trained on, laid out as winning hands) — the issue's "held-out
scenes with one tile removed".

    python bench/gaps.py [--real data/real] [--split val] [--model F.onnx --namer N.onnx]
    python bench/gaps.py --composites 200 [--model F.onnx --namer N.onnx]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hupai.vision import layout as layout_module  # noqa: E402
from hupai.vision import rooms  # noqa: E402
from hupai.vision.detections import Detections, box_iou  # noqa: E402
from hupai.vision.layout import HandLayout  # noqa: E402
from hupai.vision.namer import Namer  # noqa: E402
from hupai.vision.result import Reading  # noqa: E402

#: rows as long as a concealed hand (the issue's "a row of 9-14")
ROW_LENGTHS = range(9, 15)
#: a gap "where the tile lies": it overlaps the taken box by this much
HIT_IOU = 0.3

#: (reading, truth, photo) of one photo read
Read = tuple[Reading, Detections, NDArray[np.uint8]]
#: a gap check: (photo read, detections, their layout) → gap boxes in the detections' frame
Check = Callable[[Read, Detections, HandLayout], NDArray[np.float64]]


def without(det: Detections, i: int) -> Detections:
    keep = np.arange(len(det)) != i
    return Detections(det.xyxy[keep], det.confidence[keep], det.class_id[keep])


def read_all(folder: Path, split: str, model: str | None, the_namer: Namer) -> list[Read]:
    """Every photo of the split read through the product's path, with its labels and pixels."""
    from hupai.evaluation import dataset_class_map, find_samples, load_truth
    from hupai.vision.detector import Detector, load_image
    from hupai.vision.reading import read_image

    detector = Detector(model, threads=1)
    class_map, _ = dataset_class_map(folder, split)
    out = []
    for sample in find_samples(folder, split):
        image = load_image(sample.image)
        h, w = image.shape[:2]
        truth = load_truth(sample, w, h, class_map)
        out.append((read_image(image, detector=detector, namer=the_namer), truth, image))
    return out


@contextlib.contextmanager
def check_set(module: object = layout_module, **constants: object) -> Iterator[None]:
    """The gap check with some of a module's constants changed."""
    saved = {name: getattr(module, name) for name in constants}
    for name, value in constants.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


def frame_of(reading: Reading) -> Detections:
    frame = reading.extra["frame"]
    return Detections(frame["xyxy"], reading.detections.confidence, reading.detections.class_id)


def boxes_alone(read: Read, det: Detections, lay: HandLayout) -> NDArray[np.float64]:
    return layout_module.missing_tiles(det, lay)


def photo_judged(read: Read, det: Detections, lay: HandLayout) -> NDArray[np.float64]:
    """The rooms judged by a doubtful body or the face colour (no namer looks)."""
    reading, _truth, image = read
    doubtful = np.asarray(reading.extra["doubtful_xyxy"], np.float64).reshape(-1, 4)
    return rooms.judge(image, det, lay, reading.extra["frame"]["to_image"], doubtful)


def namer_judged(namer: Namer) -> Check:
    """The rooms judged by a doubtful body or the namer's look (as the product reads)."""
    from hupai.vision.reading import room_look

    def check(read: Read, det: Detections, lay: HandLayout) -> NDArray[np.float64]:
        reading, _truth, image = read
        doubtful = np.asarray(reading.extra["doubtful_xyxy"], np.float64).reshape(-1, 4)
        to_image = reading.extra["frame"]["to_image"]
        look = room_look(namer, image, to_image)
        return rooms.judge(image, det, lay, to_image, doubtful, look)

    return check


def with_constants(module: object, check: Check = photo_judged, **constants: object) -> Check:
    def changed(read: Read, det: Detections, lay: HandLayout) -> NDArray[np.float64]:
        with check_set(module, **constants):
            return check(read, det, lay)

    return changed


def variants(namer: Namer) -> dict[str, Check]:
    """The variants measured beside each other (the peer, no check at all, comes first)."""
    looked = namer_judged(namer)
    return {
        "boxes alone": boxes_alone,
        "colour": photo_judged,
        "colour, h 1.5": with_constants(layout_module, MISSING_HEIGHT_RATIO=1.5),
        "rooms (namer)": with_constants(rooms, looked, BODY_REJECT_BELOW=-1.0),
        "shipped": looked,
        "bodies < 0.01": with_constants(rooms, looked, BODY_REJECT_BELOW=0.01),
        "bodies < 0.05": with_constants(rooms, looked, BODY_REJECT_BELOW=0.05),
        "namer < 0.3": with_constants(rooms, looked, ROOM_REJECT_BELOW=0.3),
        "namer < 0.7": with_constants(rooms, looked, ROOM_REJECT_BELOW=0.7),
    }


def photo_figures(readings: list[Read], check: Check | None) -> dict[str, float | None]:
    """The figures with a check, or with none (the peer)."""
    exact = confident = confident_exact = gapped = true_gaps = 0
    for read in readings:
        reading, truth, _image = read
        right = Counter(reading.detections.class_id.tolist()) == Counter(truth.class_id.tolist())
        gaps = len(check(read, frame_of(reading), reading.layout)) if check else 0
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
        **{f"taken away, {k}: flagged": v for k, v in taken_away(readings, check).items()},
    }


def taken_away(readings: list[Read], check: Check | None) -> dict[str, float]:
    """Per position kind (inner/end): the share of boxes taken away flagged where they lay."""
    counts: dict[str, list[int]] = {"inner": [0, 0], "end": [0, 0]}
    for read in readings:
        reading = read[0]
        det = frame_of(reading)
        angle = reading.extra["frame"]["angle"]
        for row in reading.layout.rows:
            if len(row.tiles) not in ROW_LENGTHS:
                continue
            for k, i in enumerate(row.tiles):
                kind = "end" if k in (0, len(row.tiles) - 1) else "inner"
                counts[kind][0] += 1
                if check is None:
                    continue
                rest = without(det, i)
                gaps = check(read, rest, layout_module.analyse(rest, angle))
                hit = len(gaps) and box_iou(gaps, det.xyxy[i][None]).max() > HIT_IOU
                counts[kind][1] += bool(hit)
    return {k: hit / max(n, 1) for k, (n, hit) in counts.items()}


def read_back(readings: list[Read], namer: Namer) -> dict[str, float]:
    """Each inner box of a row of 9-14 taken away in turn, the photo read on as the product
    reads it (named, laid out, gaps judged, a tile read in each room): the shares of those
    tiles read back in their place with the reading's name for them, with another, or not."""
    from hupai.vision.reading import (
        FoundTiles,
        name_tiles,
        read_found,
        read_in_rooms,
        room_look,
    )

    right = wrong = n = 0
    for reading, _truth, image in readings:
        frame = reading.extra["frame"]
        to_image = frame["to_image"]
        scores = frame.get("box_confidence")
        if scores is None:
            continue
        det = Detections(frame["xyxy"], np.asarray(scores, np.float64), reading.detections.class_id)
        xyxy = np.asarray(reading.extra["doubtful_xyxy"], np.float64).reshape(-1, 4)
        doubtful = Detections.make(xyxy, np.zeros(len(xyxy)), np.zeros(len(xyxy)))  # no scores
        look = room_look(namer, image, to_image)
        for row in reading.layout.rows:
            if len(row.tiles) not in ROW_LENGTHS:
                continue
            for i in row.tiles[1:-1]:
                n += 1
                rest = without(det, i)
                found = FoundTiles(rest, to_image, frame["angle"], reading.passes, doubtful)
                named = name_tiles(namer, image, rest, to_image)
                first = read_found(image, found, named, look=look)
                again = read_in_rooms(namer, image, found, named, first, look)
                read = [k for w in again.warnings if w.code == "tile_in_room" for k in w.tiles]
                taken = reading.detections.xyxy[i][None]
                back = [
                    k for k in read if box_iou(taken, again.detections.xyxy[k][None])[0, 0] > 0.5
                ]
                if back:
                    same = again.detections.class_id[back[0]] == reading.detections.class_id[i]
                    right += bool(same)
                    wrong += not same
    total = max(n, 1)
    return {"tiles": n, "read back right": right / total, "read back wrong": wrong / total}


def reader_arguments(
    description: str, argv: list[str] | None, composites: bool = False
) -> argparse.Namespace:
    """The real split to read (val: never test for choosing) and the models to read it with
    (``composites``: or camerash composites instead)."""
    parser = argparse.ArgumentParser(description=description)
    if composites:
        parser.add_argument("--composites", type=int, help="read N camerash composites instead")
        parser.add_argument("--seed", type=int, default=3600, help="the composites' seeds")
    parser.add_argument("--real", type=Path, default=ROOT / "data" / "real")
    parser.add_argument("--split", default="val", help="never test for choosing")
    parser.add_argument("--model", help="finder ONNX (default: the shipped one)")
    parser.add_argument("--namer", help="namer ONNX (default: the shipped one)")
    return parser.parse_args(argv)


def the_namer(args: argparse.Namespace) -> Namer:
    """The namer asked for (default: the shipped one), on one thread."""
    from hupai.vision.namer import Namer
    from hupai.vision.reading import default_namer

    return Namer(args.namer, threads=1) if args.namer else default_namer(1)


def read_unchecked(args: argparse.Namespace, namer: Namer) -> list[Read]:
    """The split (or the composites) read with the gap check off (no room is ever found)."""
    never = float("inf"), float("inf")
    with check_set(MISSING_GAP=never), check_set(rooms, BODY_REJECT_BELOW=-1.0):
        if getattr(args, "composites", None):
            return read_composites(args.composites, args.seed, args.model, namer)
        return read_all(args.real, args.split, args.model, namer)


def read_composites(n: int, seed: int, model: str | None, the_namer: Namer) -> list[Read]:
    """``n`` camerash composites (bench/composites.py) read through the product's path."""
    sys.path.insert(0, str(ROOT / "bench"))
    from composites import compose, context_of, load_faces, table_photos

    from hupai.vision.detector import Detector
    from hupai.vision.reading import read_image

    detector = Detector(model, threads=1)
    faces, tables = load_faces(), table_photos()
    out = []
    for i in range(n):
        c = compose(np.random.default_rng([seed, i]), faces, context_of(i)[0], tables=tables)
        truth = Detections.make([box for _cls, box in c.labels], [cls for cls, _box in c.labels])
        out.append((read_image(c.image, detector=detector, namer=the_namer), truth, c.image))
    return out


def main(argv: list[str] | None = None) -> int:
    args = reader_arguments(__doc__.splitlines()[0], argv, composites=True)
    namer = the_namer(args)
    readings = read_unchecked(args, namer)
    figures = {"off (peer)": photo_figures(readings, None)}
    for name, check in variants(namer).items():
        figures[name] = photo_figures(readings, check)
    span = f"{ROW_LENGTHS.start}-{ROW_LENGTHS.stop - 1}"
    what = f"camerash composites (seed {args.seed})" if args.composites else f"real {args.split}"
    print(f"{what}: {len(readings)} photos; the gap check off and in each variant")
    print(f"(taken away: one found box in a row of {span} tiles, the tile left unboxed)")
    print(f"{'':28s}" + "".join(f"{name:>14s}" for name in figures))
    for key in figures["shipped"]:
        cells = [figures[name][key] for name in figures]
        print(f"{key:28s}" + "".join(f"{'—' if v is None else f'{v:.3f}':>14s}" for v in cells))
    back = read_back(readings, namer)
    print(
        f"as read (read_in_rooms): of {back['tiles']} inner tiles taken away, read back right "
        f"{back['read back right']:.3f}, read back wrong {back['read back wrong']:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
