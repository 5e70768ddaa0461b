"""Synthetic renderer speed: images per second, by stage, and the write path.

    .venv/bin/python bench/synth.py [--n 40] [--seed 0] [--size 640]

Prints, in one process:

* render only — ``Renderer.render`` on seeds (seed, 0…n-1), images/s and ms per image;
* the same scenes without photo effects (``RenderOptions(clean=True)``, no clutter either),
  and the ratio: what the effects cost;
* the full write path — ``generate(workers=1)`` and ``generate(workers=<cores>)`` into a
  temporary folder (JPEG, labels, sidecar), and the speed-up from the extra processes;
* ``--kinds``: render 6's scene kinds (:class:`SceneMix`) one at a time against the same seeds
  with none of them (mix 0, sharp edges) — every scene a whole keyboard, every scene a printed
  sheet, every room a bookshelf, rounded edges — and the default mix, each as a ratio.

The numbers depend on what else runs on the machine; compare ratios, not absolutes.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from hupai.datasets.synth.art import build_cache, load_glyphs
from hupai.datasets.synth.generate import generate
from hupai.datasets.synth.render import Renderer, RenderOptions, SceneMix


def _kinds(renderer: Renderer, n: int, seed: int, size: int, rounds: int = 3) -> None:
    """Scenes per second of each render-6 kind against a peer with none, same seeds: the
    cases interleaved in ``rounds`` rounds of ``n`` scenes, medians (a loaded machine's
    slow spells then fall on every case alike)."""

    def with_mix(mix: SceneMix) -> Renderer:
        return Renderer(renderer.bank, mix=mix)

    none = SceneMix(0, 0, 0)
    cases = (
        ("none of render 6's kinds, sharp edges", none, RenderOptions(edge_round=0)),
        ("rounded edges (the looks' own)", none, RenderOptions()),
        ("every scene a whole keyboard", none, RenderOptions(keyboard=True, edge_round=0)),
        ("every scene a printed sheet", SceneMix(0, 1, 0), RenderOptions(edge_round=0)),
        ("every room a bookshelf", SceneMix(0, 0, 1), RenderOptions(edge_round=0)),
        ("the default mix (render 6)", SceneMix(), RenderOptions()),
    )
    rates: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    for _round in range(rounds):
        for name, mix, opts in cases:
            rates[name].append(_rate(with_mix(mix), n, seed, size, opts))
    peer = float(np.median(rates[cases[0][0]]))
    for name, _, _ in cases:
        rate = float(np.median(rates[name]))
        print(f"{name:38s}: {rate:6.2f} scenes/s  ×{rate / peer:.2f} of the first's rate")


def _rate(renderer: Renderer, n: int, seed: int, size: int, opts: RenderOptions) -> float:
    began = time.perf_counter()
    for i in range(n):
        renderer.render(np.random.default_rng([seed, i]), size, options=opts)
    return n / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=640)
    parser.add_argument("--kinds", action="store_true", help="render 6's scene kinds only")
    args = parser.parse_args()

    renderer = Renderer(load_glyphs(build_cache()))
    renderer.render(np.random.default_rng(0), args.size)  # warm up
    if args.kinds:
        _kinds(renderer, args.n, args.seed, args.size)
        return
    full = _rate(renderer, args.n, args.seed, args.size, RenderOptions())
    clean = _rate(renderer, args.n, args.seed, args.size, RenderOptions(clean=True))
    print(f"render, full scene      : {full:6.2f} images/s ({1000 / full:6.1f} ms)")
    print(
        f"render, no photo effects: {clean:6.2f} images/s ({1000 / clean:6.1f} ms)  "
        f"effects cost ×{clean / full:.2f}"
    )

    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as tmp:
        one = generate(
            Path(tmp) / "one", n=args.n, seed=args.seed, size=args.size, workers=1, progress=False
        )
        many = generate(
            Path(tmp) / "many",
            n=args.n,
            seed=args.seed,
            size=args.size,
            workers=cores,
            progress=False,
        )
    print(f"write, 1 process        : {one.images_per_second:6.2f} images/s")
    print(
        f"write, {cores} processes      : {many.images_per_second:6.2f} images/s  "
        f"speed-up ×{many.images_per_second / one.images_per_second:.2f}"
    )


if __name__ == "__main__":
    main()
