"""How often each extra finder pass runs on real photos, and how often it changes the reading.

A read looks at the photo once, then may look again: shrunk (tiles too large for the model,
or no sure box), and level/zoomed (rows tilted, or tiles small in the model's input). Each
photo is read with every pass, and — where an extra pass ran — again with that pass turned
off (and with both off), through the product's own ``read_image``; a reading "changes" when
its tiles (names, as a multiset) differ. Exact-read is counted each way against the labels,
and the read time with and without. The peer of each row is the same photo read with the
pass, in the same run.

    .venv/bin/python bench/passes.py [--split data/real] [--part val] [--limit N]
        [--model F.onnx --namer N.onnx] [--threads 2]

The switches turn module constants of :mod:`hupai.vision.passes` (this bench only); the test split
is left alone unless asked for (``--part test``).
"""

from __future__ import annotations

import argparse
import contextlib
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hupai.vision.detections import Detections  # noqa: E402

LEVEL = re.compile(r"level ([+-]?\d+)° zoom ×([\d.]+)")


@contextlib.contextmanager
def without(pass_name: str) -> Iterator[None]:
    """Reads inside skip the ``shrunk`` or the ``level`` pass (or ``both``)."""
    from hupai.vision import passes

    saved = {k: getattr(passes, k) for k in ("_large_tiles", "LEVEL_ABOVE_DEG", "ZOOM_GAIN")}
    if pass_name in ("shrunk", "both"):
        passes._large_tiles = lambda det, scale: False
    if pass_name in ("level", "both"):
        passes.LEVEL_ABOVE_DEG = float("inf")
        passes.ZOOM_GAIN = float("inf")
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(passes, k, v)


def labelled(split: Path, part: str, limit: int | None) -> list[tuple[Path, Detections]]:
    from hupai.training.quantize import labelled_boxes

    photos = sorted((split / "images" / part).glob("*.jpg"))[:limit]
    out = []
    for photo in photos:
        boxes, ids = labelled_boxes(photo)
        out.append((photo, Detections.make(boxes, ids)))  # normalised: scaled on reading
    return out


def in_pixels(truth: Detections, w: int, h: int) -> Detections:
    xy = truth.xyxy
    cx, cy, bw, bh = (xy[:, k] for k in range(4))
    boxes = np.stack([(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h])
    return Detections.make(boxes.T, truth.class_id)


def tiles(det: Detections) -> Counter[int]:
    return Counter(int(c) for c in det.class_id)


@dataclass
class Row:
    """One extra pass: photos where it ran, where turning it off changed the reading, and
    what that did to exact-read."""

    ran: int = 0
    changed: int = 0
    fixed: int = 0  # exact with the pass, not without
    broke: int = 0  # exact without the pass, not with
    saved_ms: list[float] = field(default_factory=list)
    triggers: list[tuple[str, bool, bool, bool]] = field(default_factory=list)


def read(image: Any, detector: Any, namer: Any) -> tuple[Any, float]:
    from hupai.vision.reading import read_image

    began = time.perf_counter()
    reading = read_image(image, detector=detector, namer=namer)
    return reading, time.perf_counter() - began


def first_look(detector: Any, image: Any) -> str:
    """What the first look saw that sets the shrunk pass off: its sure boxes and their
    tiles' side in model pixels."""
    from hupai.vision import passes

    conf = getattr(detector.manifest, "finder_conf", None) or passes.FINDER_CONF
    det = detector.detect(image, agnostic=True, conf=conf)
    sure = det.above(passes.PLAN_CONF)
    side = passes._tile_side(sure) * max(detector.input_size) / max(image.shape[:2])
    return f"{len(sure):>2} sure, {side:.0f} px"


def trigger(passes: tuple[str, ...], kind: str) -> str:
    """What set the level pass off, in words, from its name: angle and zoom gain."""
    for p in passes:
        m = LEVEL.match(p)
        if kind == "level" and m:
            return f"{int(m.group(1)):+d}° ×{float(m.group(2)):.1f}"
    return "-"


def ran(passes: tuple[str, ...], kind: str) -> bool:
    prefix = "shrunk" if kind == "shrunk" else "level"
    return any(p.startswith(prefix) for p in passes)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", type=Path, default=ROOT / "data" / "real")
    parser.add_argument("--part", default="val", help="val (default) or train; test if asked")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--model", help="finder ONNX (default: the shipped one)")
    parser.add_argument("--namer", help="namer ONNX (default: the shipped one)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    from hupai.vision.detector import Detector, load_image
    from hupai.vision.metrics import evaluate
    from hupai.vision.namer import Namer

    detector = Detector(args.model, threads=args.threads)
    namer = Namer(args.namer, threads=args.threads)
    photos = labelled(args.split, args.part, args.limit)
    rows = {"shrunk": Row(), "level": Row(), "both": Row()}
    exact = {"all passes": 0, "no shrunk": 0, "no level": 0, "first look only": 0}
    seconds: dict[str, list[float]] = {"all passes": [], "first look only": []}
    for k, (path, truth_n) in enumerate(photos):
        image = load_image(path)
        truth = in_pixels(truth_n, image.shape[1], image.shape[0])
        full, t_full = read(image, detector, namer)

        def is_exact(reading: Any, truth: Detections = truth) -> bool:
            return bool(evaluate([reading.detections], [truth], 0.0).exact_read == 1.0)

        ok_full = is_exact(full)
        seconds["all passes"].append(t_full)
        verdicts = {"all passes": ok_full}
        for kind in ("shrunk", "level", "both"):
            needed = ran(full.passes, "shrunk") or ran(full.passes, "level")
            if kind != "both":
                needed = ran(full.passes, kind)
            name = {"shrunk": "no shrunk", "level": "no level", "both": "first look only"}[kind]
            if not needed:
                verdicts[name] = ok_full
                if kind == "both":
                    seconds[name].append(t_full)
                continue
            with without(kind):
                other, t_other = read(image, detector, namer)
            ok_other = is_exact(other)
            verdicts[name] = ok_other
            row = rows[kind]
            row.ran += 1
            differs = tiles(other.detections) != tiles(full.detections)
            row.changed += differs
            row.fixed += ok_full and not ok_other
            row.broke += ok_other and not ok_full
            row.saved_ms.append(1000 * (t_full - t_other))
            if kind != "both":
                what = (
                    first_look(detector, image) if kind == "shrunk" else trigger(full.passes, kind)
                )
                row.triggers.append((what, differs, ok_full, ok_other))
            if kind == "both":
                seconds[name].append(t_other)
        for name, ok in verdicts.items():
            exact[name] += ok
        print(f"\r{k + 1}/{len(photos)} photos", end="", file=sys.stderr)
    print(file=sys.stderr)
    report(rows, exact, seconds, len(photos), args)
    return 0


def report(
    rows: dict[str, Row],
    exact: dict[str, int],
    seconds: dict[str, list[float]],
    n: int,
    args: argparse.Namespace,
) -> None:
    print(f"{n} photos of {args.split}/images/{args.part}, {args.threads} threads")
    print(f"\n{'extra pass':<18}{'ran':>6}{'changed':>9}{'fixed':>7}{'broke':>7}{'ms saved':>10}")
    for kind, row in rows.items():
        saved = statistics.median(row.saved_ms) if row.saved_ms else 0.0
        label = "both (first only)" if kind == "both" else kind
        print(f"{label:<18}{row.ran:>6}{row.changed:>9}{row.fixed:>7}{row.broke:>7}{saved:>10.1f}")
    print("(ran: photos where the pass ran; changed: the tiles read differ without it; fixed:")
    print(" exact with it and not without; broke: exact without it and not with; ms saved: median")
    print(" read time with minus without, on the photos where it ran)")
    print(f"\n{'exact-read':<18}")
    for name, count in exact.items():
        print(f"  {name:<16}{count:>5}/{n}  {count / max(n, 1):.3f}")
    p50 = {k: statistics.median(v) * 1000 for k, v in seconds.items() if v}
    if len(p50) == 2:
        ratio = p50["first look only"] / p50["all passes"]
        print(
            f"\nread p50: all passes {p50['all passes']:.1f} ms, first look only "
            f"{p50['first look only']:.1f} ms (ratio {ratio:.2f})"
        )
    for kind in ("shrunk", "level"):
        row = rows[kind]
        if not row.triggers:
            continue
        print(f"\n{kind}: what set it off → changed / exact with / exact without")
        for what, differs, ok_with, ok_without in sorted(row.triggers):
            print(f"  {what:<22}{'changed' if differs else '-':>9}{ok_with!s:>7}{ok_without!s:>7}")


if __name__ == "__main__":
    sys.exit(main())
