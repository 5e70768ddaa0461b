"""Row geometry on and off: what dropping boxes that straddle two neighbours of a level row
(:mod:`vision.rows`) does to the reading.

Each set is read twice through the product's own path, with the straddler check and — the
peer, in the same run — without it: the real val split (never test), and render-4 scenes
drawn with the held-out art set and with a seen one (as ``bench/heldout.py``). Printed per
set and way: exact-read, tile precision/recall, the confident share, and the failure kinds
of issue #25 per photo.

    python bench/rows.py [--n 60] [--real data/real] [--model F.onnx --namer N.onnx]
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from heldout import HELD_OUT, measure, write_scenes  # noqa: E402

import vision.rows  # noqa: E402
from datasets.sheets import fetch, held_out_glyphs  # noqa: E402
from datasets.synth.art import build_cache, load_glyphs  # noqa: E402
from datasets.synth.render import Renderer  # noqa: E402


@contextlib.contextmanager
def straddlers_kept() -> Iterator[None]:
    """The check off: no box is ever covered enough to be a straddler."""
    saved = vision.rows.STRADDLE_COVER
    vision.rows.STRADDLE_COVER = float("inf")
    try:
        yield
    finally:
        vision.rows.STRADDLE_COVER = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60, help="scenes per art set")
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--seen", default="samoheen")
    parser.add_argument("--real", type=Path, default=ROOT / "data" / "real")
    parser.add_argument("--model")
    parser.add_argument("--namer")
    args = parser.parse_args(argv)
    banks = {
        HELD_OUT: {HELD_OUT: held_out_glyphs(fetch(ROOT / "data" / "debian-art"))},
        args.seen: {args.seen: load_glyphs(build_cache())[args.seen]},
    }
    rows: dict[str, dict[str, float | None]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sets = [(args.real, "val", "real val")]
        for name, bank in banks.items():
            folder = write_scenes(Renderer(bank), Path(tmp) / name, args.n, args.seed)
            sets.append((folder, "test", name))
        for folder, part, name in sets:
            rows[f"{name} on"] = measure(folder, args.model, args.namer, part)
            with straddlers_kept():
                rows[f"{name} off"] = measure(folder, args.model, args.namer, part)
    print(f"straddler check on / off (peer); {args.n} scenes per art set, held out: {HELD_OUT}")
    print(f"{'':22s}" + "".join(f"{n:>17s}" for n in rows))
    for key in next(iter(rows.values())):
        cells = [rows[n][key] for n in rows]
        print(f"{key:22s}" + "".join(f"{'—' if v is None else f'{v:.3f}':>17s}" for v in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
