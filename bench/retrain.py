"""``hupai retrain`` on a new tile set: the stand-in for "50 corrected photos of a new set".

No real photos of a second set exist here, so the corrected photos are synthetic scenes
(render 4) drawn with the held-out art set of bench/heldout.py — xmahjongg's ``dorothys``,
which no hupai model was trained on — written as ``hupai data import`` writes a corrected
folder (``images/train``, ``labels/train``, ``classes.txt``, ``data.yaml``): their labels are
what a person's corrections would be, exact. Then ``hupai retrain`` runs on it, timed, and an
extra set of scenes of the same art (other seeds) is read by both pairs, a larger check than
the retrain's own held-out fifth.

    python bench/retrain.py --n 50 --out runs/retrain-bench [--extra 100] [--epochs 3 …]

The held-out art is GPL-2.0-or-later (Debian's xmahjongg): fetched at run time into
data/debian-art, never committed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.heldout import HELD_OUT, write_scenes  # noqa: E402
from hupai.datasets.sheets import fetch, held_out_glyphs  # noqa: E402
from hupai.datasets.synth.render import Renderer  # noqa: E402
from hupai.datasets.yolo import data_yaml_text  # noqa: E402


def corrected_folder(out: Path, n: int, seed: int) -> Path:
    """``n`` held-out-art scenes as a ``hupai data import`` folder (split train)."""
    if (out / "images" / "train").is_dir():
        return out
    renderer = Renderer({HELD_OUT: held_out_glyphs(fetch(ROOT / "data" / "debian-art"))})
    tmp = write_scenes(renderer, out.with_name(out.name + ".tmp"), n, seed)
    for kind in ("images", "labels"):
        (out / kind).mkdir(parents=True, exist_ok=True)
        (tmp / kind / "test").rename(out / kind / "train")
    (tmp / "classes.txt").rename(out / "classes.txt")
    shutil.rmtree(tmp)
    (out / "data.yaml").write_text(data_yaml_text(["train"]))
    (out / "import-report.json").write_text(
        json.dumps({"source": f"synthetic: {n} scenes of {HELD_OUT}, seeds ({seed}, i)"}) + "\n"
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50, help="corrected photos")
    parser.add_argument("--seed", type=int, default=9000, help="scene seeds (not training's)")
    parser.add_argument("--extra", type=int, default=100, help="more scenes to measure on")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "retrain-bench")
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--epoch-crops", type=int, default=8000)
    parser.add_argument("--real-test-limit", type=int, help="real test photos in the table")
    parser.add_argument("--finder", default="keep", choices=("auto", "train", "keep"))
    args = parser.parse_args(argv)

    from hupai.evaluation import run
    from hupai.labeling.retrain import RetrainOptions, format_table, retrain
    from hupai.vision.detector import SHIPPED_MODELS, models_in

    corrected = corrected_folder(args.out / "corrected", args.n, args.seed)
    opts = RetrainOptions(
        corrected=(corrected,),
        out=args.out / "models",
        epochs=args.epochs,
        epoch_crops=args.epoch_crops,
        real=ROOT / "data" / "real",
        real_test_limit=args.real_test_limit,
        finder=args.finder,
    )
    began = time.perf_counter()
    report = retrain(opts)
    minutes = (time.perf_counter() - began) / 60
    print(format_table(report.table))
    print(f"hupai retrain on {args.n} photos: {minutes:.1f} min")
    if args.extra:
        extra = args.out / "extra"
        if not (extra / "images" / "test").is_dir():
            renderer = Renderer({HELD_OUT: held_out_glyphs(fetch(ROOT / "data" / "debian-art"))})
            write_scenes(renderer, extra, args.extra, args.seed + 1)
        for name, folder in (("before", SHIPPED_MODELS), ("after", args.out / "models")):
            finder, namer = models_in(folder)
            e = run(extra, model=str(finder), namer=str(namer), split="test")
            assert e.stages is not None
            print(
                f"{args.extra} more {HELD_OUT} scenes, {name}: exact-read "
                f"{e.report.exact_read:.3f}, precision {e.report.precision:.3f}, recall "
                f"{e.report.recall:.3f}, named right {e.stages.figures()['namer_accuracy']:.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
