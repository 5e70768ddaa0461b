"""The confident flag's curve: how many photos come back confident, and how many of those are
read exactly, as the threshold on the weakest tile's name probability moves — at the namer's
own temperature (its manifest's ``calibration``) and at 1 (the namer as trained), side by side.

Real val (never test) is read once through the product's own path and named again at each
temperature from the kept logits (:mod:`hupai.calibration`, the same code as
``hupai train calibrate --dry-run``, which also fits the temperature); the other checks (box,
clutter, doubled, gaps, border) as shipped. The shipped threshold is marked; the model card
quotes this table.

    python bench/confident.py [--real data/real] [--split val] [--model F.onnx --namer N.onnx]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gaps import reader_arguments  # noqa: E402

from hupai import calibration  # noqa: E402
from hupai.vision.checks import CHECK_BELOW  # noqa: E402
from hupai.vision.namer import Namer  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    args = reader_arguments(__doc__.splitlines()[0], argv)
    namer = Namer(args.namer, threads=1)
    recorded = calibration.record(args.real, args.split, model=args.model, namer=namer, threads=1)
    m = namer.manifest
    cal = calibration.calibrate(recorded, temperature=m.temperature)
    shipped = CHECK_BELOW if m.check_below is None else m.check_below
    cal = calibration.Calibration(**{**cal.__dict__, "check_below": shipped})
    print(f"real {args.split}: {len(recorded)} photos; confident at each name threshold")
    print(calibration.report(cal).replace("<- chosen", "<- shipped"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
