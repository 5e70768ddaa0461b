"""The confident flag's curve: how many photos come back confident, and how many of those are
read exactly, as the threshold on the weakest tile's name probability moves.

Real val (never test) is read once through the product's own path; each photo's weakest name,
weakest box and doubting warnings decide ``confident`` at every threshold of the sweep (the box
threshold and the warnings as shipped, :mod:`hupai.vision.checks`). The shipped threshold is
marked; the model card quotes this table.

    python bench/confident.py [--real data/real] [--split val] [--model F.onnx --namer N.onnx]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gaps import read_all, reader_arguments  # noqa: E402

from hupai.vision import checks  # noqa: E402

THRESHOLDS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.99)


def curve(readings: list[tuple]) -> list[tuple[float, float, float | None]]:
    rows = []
    for reading, truth, _image in readings:
        det = reading.detections
        boxes = reading.extra["frame"].get("box_confidence")
        doubts = {w.code for w in reading.warnings if w.code in checks.DOUBTS} - {"low_confidence"}
        rows.append(
            (
                float(det.confidence.min()) if len(det) else -1.0,
                float(np.min(boxes)) if boxes is not None and len(boxes) else 1.0,
                bool(doubts),
                Counter(det.class_id.tolist()) == Counter(truth.class_id.tolist()),
            )
        )
    out = []
    for t in THRESHOLDS:
        sure = [
            exact
            for name_p, box_p, doubted, exact in rows
            if name_p >= t and box_p >= checks.BOX_CHECK_BELOW and not doubted
        ]
        out.append((t, len(sure) / len(rows), sum(sure) / len(sure) if sure else None))
    return out


def main(argv: list[str] | None = None) -> int:
    args = reader_arguments(__doc__.splitlines()[0], argv)
    readings = read_all(args.real, args.split, args.model, args.namer)
    print(f"real {args.split}: {len(readings)} photos; confident at each name threshold")
    print(f"{'threshold':>10s} {'share':>8s} {'exact':>8s}")
    for t, share, exact in curve(readings):
        mark = "  (shipped)" if t == checks.CHECK_BELOW else ""
        shown = "—" if exact is None else f"{exact:.3f}"
        print(f"{t:10.2f} {share:8.3f} {shown:>8s}{mark}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
