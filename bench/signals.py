"""What each of ``confident``'s tile signals adds: the photos read once through the product's
path (:func:`hupai.calibration.record`), then ``confident`` judged with the shipped checks and
with each signal taken away or added, side by side — the confident share and how many of
those photos are read exactly (and how many wrong).

Signals: the name threshold and temperature (the namer's manifest, ``hupai train calibrate``);
**clutter** (the finder's score × the namer's 1 - "not a tile", :data:`BOX_CHECK_BELOW`;
taken away: the finder's score alone); **doubled** (a box more than :data:`DOUBLED_ABOVE`
inside another); measured, not shipped: **views disagree** (a tile's name under the threshold
at either view margin, not only on their average), **views name differently** (a doubted tile,
one the reader looks at twice, given another best name by its second view: on reader 8 it
changes no confident answer on real val or the composites — their wrong confident tiles are
named alike by both views) and the namer as trained (temperature 1, threshold 0.85).

    python bench/signals.py [--real data/real --split val] [--model F.onnx --namer N.onnx]
    python bench/signals.py --composites 200 [--model F.onnx --namer N.onnx]

Real val is what the thresholds are chosen on; the camerash composites (bench/composites.py,
saved as photos and read from the files) are a measurement only, never chosen on.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gaps import reader_arguments  # noqa: E402

from hupai import calibration  # noqa: E402
from hupai.vision import checks  # noqa: E402
from hupai.vision.checks import BOX_CHECK_BELOW, DOUBLED_ABOVE  # noqa: E402
from hupai.vision.detections import Detections  # noqa: E402
from hupai.vision.namer import REJECT, softmax  # noqa: E402
from hupai.vision.result import Reading  # noqa: E402

#: The clutter cuts weighed beside the shipped :data:`BOX_CHECK_BELOW` (the finder's cut is 0.3:
#: its boxes score from there).
CLUTTER_CUTS = (0.3, 0.32, 0.35, 0.38, 0.42)
#: The white dragon's own clutter cuts weighed (:data:`WHITE_DRAGON_BOX_CHECK_BELOW`).
WHITE_DRAGON_CUTS = (0.0, 0.2, 0.25, 0.3, 0.35, 0.4)
#: (reading, the photo as kept) → confident under a variant
Judge = Callable[[Reading, calibration.Recorded], bool]


def _confident(
    reading: Reading,
    reject: bool = True,
    doubled: bool = True,
    box_below: float | None = None,
    white_below: float | None = None,
) -> bool:
    """``confident`` with the clutter signal (``reject``: the namer's part of it; ``box_below``:
    its cut, default :data:`BOX_CHECK_BELOW`; ``white_below``: the white dragon's, default
    :data:`WHITE_DRAGON_BOX_CHECK_BELOW`) and the doubled signal on or off."""
    frame = reading.extra["frame"]
    det = Detections(frame["xyxy"], reading.detections.confidence, reading.detections.class_id)
    saved = checks.DOUBLED_ABOVE, checks.BOX_CHECK_BELOW, checks.WHITE_DRAGON_BOX_CHECK_BELOW
    checks.DOUBLED_ABOVE = DOUBLED_ABOVE if doubled else 1.0
    checks.BOX_CHECK_BELOW = BOX_CHECK_BELOW if box_below is None else box_below
    if white_below is not None:
        checks.WHITE_DRAGON_BOX_CHECK_BELOW = white_below
    elif box_below is not None:  # a clutter cut weighed alone holds every tile to it
        checks.WHITE_DRAGON_BOX_CHECK_BELOW = box_below
    try:
        check = checks.tiles_to_check(
            checks.check_reasons(
                det,
                frame["box_confidence"],
                reading.warnings,
                frame["check_below"],
                frame["reject"] if reject else None,
            )
        )
    finally:
        (
            checks.DOUBLED_ABOVE,
            checks.BOX_CHECK_BELOW,
            checks.WHITE_DRAGON_BOX_CHECK_BELOW,
        ) = saved
    return checks.is_confident(det, reading.warnings, check)


def _tile_views(rec: calibration.Recorded, temperature: float) -> np.ndarray:
    """Each view's names ``(views, tiles, classes)`` of the boxes the reading kept as tiles
    (on average not "not a tile"), "not a tile" taken out and the rest summing to 1."""
    views = np.stack([softmax(v, temperature) for v in rec.views])
    kept = views.mean(axis=0)[:, REJECT] < 0.5
    views = views[:, kept]
    views[:, :, REJECT] = 0.0
    views /= views.sum(axis=2, keepdims=True)
    return views


def _views_agree(reading: Reading, rec: calibration.Recorded, temperature: float) -> bool:
    """Every tile's chosen name at least the threshold likely at each view, not only on
    average."""
    views = _tile_views(rec, temperature)
    chosen = reading.detections.class_id
    at = views[:, np.arange(len(chosen)), chosen]
    return bool(len(chosen)) and float(at.min()) >= reading.extra["frame"]["check_below"]


def _views_name_alike(reading: Reading, rec: calibration.Recorded, temperature: float) -> bool:
    """Every doubted tile (its first view's best name under the manifest's
    ``more_views_below``, the boxes the reader looks at twice) given the same best name by
    each view."""
    views = _tile_views(rec, temperature)
    below = 1.0 if rec.more_views_below is None else rec.more_views_below
    doubted = views[0].max(axis=1) < below
    best = views[:, doubted].argmax(axis=2)
    return bool((best == best[0]).all())


def measure(recorded: list[calibration.Recorded], temperature: float, check_below: float) -> None:
    variants: dict[str, Judge] = {
        "shipped": lambda r, _: _confident(r),
        "without clutter (box alone)": lambda r, _: _confident(r, reject=False),
        "without doubled": lambda r, _: _confident(r, doubled=False),
        "without both": lambda r, _: _confident(r, reject=False, doubled=False),
        **{
            f"clutter under {cut:g}": (lambda c: lambda r, _: _confident(r, box_below=c))(cut)
            for cut in CLUTTER_CUTS
        },
        **{
            f"white dragon under {cut:g}": (lambda c: lambda r, _: _confident(r, white_below=c))(
                cut
            )
            for cut in WHITE_DRAGON_CUTS
        },
        "+ views disagree": lambda r, rec: _confident(r) and _views_agree(r, rec, temperature),
        "+ views name differently": lambda r, rec: (
            _confident(r) and _views_name_alike(r, rec, temperature)
        ),
    }
    rows: dict[str, list[tuple[bool, bool]]] = {k: [] for k in variants}
    rows["namer as trained (T 1, 0.85)"] = []
    for rec in recorded:
        reading = calibration.replay(rec, temperature, check_below)
        exact = calibration.exact(reading, rec.truth)
        for name, judge in variants.items():
            rows[name].append((judge(reading, rec), exact))
        plain = calibration.replay(rec, 1.0, checks.CHECK_BELOW)
        rows["namer as trained (T 1, 0.85)"].append(
            (_confident(plain), calibration.exact(plain, rec.truth))
        )
    n = len(recorded)
    print(f"{'variant':32s} {'share':>7s} {'exact':>7s} {'wrong':>6s}")
    for name, pairs in rows.items():
        sure = [e for c, e in pairs if c]
        exact = f"{sum(sure) / len(sure):.3f}" if sure else "—"
        print(f"{name:32s} {len(sure) / n:7.3f} {exact:>7s} {len(sure) - sum(sure):6d}")


def main(argv: list[str] | None = None) -> int:
    args = reader_arguments(__doc__.splitlines()[0], argv, composites=True)
    from hupai.vision.namer import Namer

    namer = Namer(args.namer, threads=1)
    with tempfile.TemporaryDirectory() as tmp:
        folder, split = args.real, args.split
        if args.composites:
            import composites

            faces, tables = composites.load_faces(), composites.table_photos()
            made = [
                composites.compose(
                    np.random.default_rng([args.seed, i]),
                    faces,
                    composites.context_of(i)[0],
                    tables=tables,
                )
                for i in range(args.composites)
            ]
            folder, split = Path(tmp), "test"
            composites.save(made, folder)
        recorded = calibration.record(folder, split, model=args.model, namer=namer, threads=1)
    m = namer.manifest
    below = checks.CHECK_BELOW if m.check_below is None else m.check_below
    where = f"{args.composites} camerash composites" if args.composites else f"real {split}"
    print(
        f"{where}: {len(recorded)} photos; namer temperature {m.temperature}, check_below {below}"
    )
    print(
        f"(clutter under {BOX_CHECK_BELOW}, a white dragon under"
        f" {checks.WHITE_DRAGON_BOX_CHECK_BELOW}, doubled above {DOUBLED_ABOVE})"
    )
    measure(recorded, m.temperature, below)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
