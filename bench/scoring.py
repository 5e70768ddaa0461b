"""Scoring speed: hupai's decomposition engine against the PyPI ``mahjong`` package.

    .venv/bin/python bench/scoring.py [--hands 2000] [--passes 3] [--seed 2024]

Prints hands per second on a fixed, seeded set of winning and non-winning 14-tile hands:

* all decompositions — ``hupai.scoring.decompose`` vs ``mahjong``'s ``HandDivider.divide_hand``
  on the wild-free hands (same hands, same process; standard shape and seven different
  pairs, the shapes ``HandDivider`` knows), then the ratio;
* the yes/no check — ``scoring.is_winning`` vs ``mahjong``'s ``Agari.is_agari``;
* hands with 1 to 7 wild tiles (no peer: the package has no wilds), with the slowest hand;
* ``CASES``: one worst-case line per city (append yours: one function, one entry).

"Fresh caches" clears every memo before each pass (sub-results found in earlier hands of the
same pass are reused, as in a running service); "cold" clears them before every hand.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hupai.scoring.decompose import (
    ShapeRules,
    all_sets,
    clear_caches,
    decompose,
    is_winning,
)
from hupai.scoring.tiles import HAND_TILES, Tile

RULES = ShapeRules(seven_pairs=True)  # the shapes HandDivider knows
WILD_RULES = ShapeRules(seven_pairs=True, quad_pairs=True, thirteen_orphans=True)


@dataclass(frozen=True)
class Case:
    """One worst-case line: ``run`` scores (or decomposes) one hand per call."""

    name: str
    run: Callable[[], object]


def _seven_wilds_misfit() -> object:
    # Nanchang-like: 3s primary and 4s secondary spirit, 7 of them, misfits and seven pairs on
    vector = [0] * 34
    for t in ("1m", "5m", "9m", "1p", "3p", "9p", "7z"):
        vector[Tile.parse(t).index] += 1
    vector[Tile.parse("3s").index] = 3
    vector[Tile.parse("4s").index] = 4
    rules = ShapeRules(quad_pairs=True, thirteen_misfits=True, honor_sequences=True)
    return decompose(vector, 0, (Tile.parse("3s"), Tile.parse("4s")), rules)


def _ningbo_seven_baida() -> object:
    # Ningbo: 3s flipped, all seven baida in the hand (3s x3, 4s x4), the winning tile a baida:
    # 248 readings, free baida sets and pairs, every wait of a wild winning tile (among the two
    # slowest of 600 random seven-baida hands); the city's own memo is cleared too
    from hupai.scoring import score
    from hupai.scoring.ningbo import _signature

    _signature.cache_clear()
    return score(
        {
            "city": "ningbo",
            "indicator": "3s",
            "hand": "3334444s9m3456p57s",
            "win_tile": "4s",
            "win": "self_draw",
            "winner": 0,
        }
    )


def _nanchang_seven_spirits() -> object:
    # Nanchang: 3s flipped, the 3 primaries in play and all 4 secondaries in one hand (the most
    # spirits a hand can hold); the slowest of 150 random such hands (339 readings scored)
    from hupai.scoring import score

    return score(
        {
            "city": "nanchang",
            "hand": "3s3s3s4s4s4s4s3m3m5m7m3p4p4p",
            "win_tile": "4p",
            "win": "self_draw",
            "winner": 1,
            "indicator": "3s",
        }
    )


#: Worst cases, one line each. City engineers: append ``Case("<city>: <what>", function)``
#: where the function scores your slowest realistic request, e.g. with ``scoring.score``.
CASES: list[Case] = [
    Case("core: 7 wilds, every shape incl. misfits and honor sequences", _seven_wilds_misfit),
    Case("nanchang: score a hand holding 7 spirits", _nanchang_seven_spirits),
    Case("ningbo: all 7 baida in hand, baida winning tile (score)", _ningbo_seven_baida),
]


# -- hand sets ------------------------------------------------------------------------------
def winning_hand(rng: random.Random) -> list[int]:
    sets = all_sets()
    while True:
        vector = [0] * 34
        for _ in range(4):
            for t in rng.choice(sets).tiles:
                vector[t.index] += 1
        vector[rng.randrange(34)] += 2
        if max(vector) <= 4:
            return vector


def random_hand(rng: random.Random) -> list[int]:
    wall = [i for i in range(34) for _ in range(4)]
    vector = [0] * 34
    for i in rng.sample(wall, 14):
        vector[i] += 1
    return vector


def near_miss(rng: random.Random) -> list[int]:
    while True:
        vector = winning_hand(rng)
        src = rng.choice([i for i in range(34) if vector[i]])
        vector[src] -= 1
        vector[rng.randrange(34)] += 1
        if max(vector) <= 4:
            return vector


def hand_set(n: int, seed: int) -> list[list[int]]:
    """Half winning hands, a quarter near misses, a quarter random deals."""
    rng = random.Random(seed)
    hands = [winning_hand(rng) for _ in range(n // 2)]
    hands += [near_miss(rng) for _ in range(n // 4)]
    hands += [random_hand(rng) for _ in range(n - len(hands))]
    rng.shuffle(hands)
    return hands


def wild_hand_set(n: int, seed: int, n_wilds: int) -> list[tuple[list[int], tuple[Tile, ...]]]:
    """Winning-shaped hands whose tiles are partly replaced by wilds (two wild kinds)."""
    rng = random.Random(seed * 100 + n_wilds)
    out: list[tuple[list[int], tuple[Tile, ...]]] = []
    while len(out) < n:
        a = rng.randrange(27)
        kinds = (HAND_TILES[a], HAND_TILES[a - a % 9 + (a % 9 + 1) % 9])
        vector = winning_hand(rng) if rng.random() < 0.7 else random_hand(rng)
        for k in kinds:
            vector[k.index] = 0
        while sum(vector) > 14 - n_wilds:
            vector[rng.choice([i for i in range(34) if vector[i]])] -= 1
        while sum(vector) < 14 - n_wilds:
            vector[
                rng.choice([i for i in range(34) if i not in (kinds[0].index, kinds[1].index)])
            ] += 1
        for _ in range(n_wilds):
            vector[rng.choice(kinds).index] += 1
        if max(vector) <= 4:
            out.append((vector, kinds))
    return out


# -- timing ---------------------------------------------------------------------------------
def best_rate(run_pass: Callable[[], None], n: int, passes: int) -> float:
    """Hands per second of the fastest of ``passes`` passes."""
    best = float("inf")
    for _ in range(passes):
        start = time.perf_counter()
        run_pass()
        best = min(best, time.perf_counter() - start)
    return n / best


def fmt(rate: float) -> str:
    return f"{rate:>10,.0f} hands/s"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)

    from mahjong.agari import Agari
    from mahjong.hand_calculating.divider import HandDivider

    hands = hand_set(args.hands, args.seed)
    n = len(hands)
    wins = sum(1 for h in hands if decompose(h, 0, (), RULES))
    theirs_wins = sum(1 for h in hands if HandDivider.divide_hand(h))
    print(
        f"{n} wild-free hands (seed {args.seed}): {wins} winning by hupai, {theirs_wins} by mahjong"
    )
    if wins != theirs_wins:
        print("!! the two engines disagree on which hands win")

    def ours_fresh() -> None:
        clear_caches()
        for h in hands:
            decompose(h, 0, (), RULES)

    def ours_cold() -> None:
        for h in hands:
            clear_caches()
            decompose(h, 0, (), RULES)

    def theirs_divide() -> None:
        HandDivider._divide_hand_impl.cache_clear()
        for h in hands:
            HandDivider.divide_hand(h)

    def ours_check() -> None:
        clear_caches()
        for h in hands:
            is_winning(h, 0, (), RULES)

    def theirs_check() -> None:
        for h in hands:
            Agari.is_agari(h)

    print("\nall decompositions")
    fresh = best_rate(ours_fresh, n, args.passes)
    cold = best_rate(ours_cold, n, args.passes)
    divide = best_rate(theirs_divide, n, args.passes)
    print(f"  hupai decompose, fresh caches  {fmt(fresh)}   ratio {fresh / divide:5.2f}x mahjong")
    print(f"  hupai decompose, cold          {fmt(cold)}   ratio {cold / divide:5.2f}x mahjong")
    print(f"  mahjong HandDivider.divide_hand{fmt(divide)}")

    print("\nwinning or not")
    check = best_rate(ours_check, n, args.passes)
    agari = best_rate(theirs_check, n, args.passes)
    print(f"  hupai is_winning, fresh caches {fmt(check)}   ratio {check / agari:5.2f}x mahjong")
    print(f"  mahjong Agari.is_agari         {fmt(agari)}")

    print("\nwith wilds (two wild kinds; seven pairs, quads as pairs, thirteen orphans)")
    for n_wilds in (1, 2, 4, 7):
        wild_hands = wild_hand_set(max(n // 4, 50), args.seed, n_wilds)
        times: list[float] = []
        readings = 0
        for vector, kinds in wild_hands:
            best = float("inf")
            for _ in range(3):  # best of 3 per hand: the machine is shared
                clear_caches()
                start = time.perf_counter()
                found = decompose(vector, 0, kinds, WILD_RULES)
                best = min(best, time.perf_counter() - start)
            times.append(best)
            readings = max(readings, len(found))
        rate = len(times) / sum(times)
        print(
            f"  {n_wilds} wilds, cold {fmt(rate)}   median {statistics.median(times) * 1e3:.2f} ms"
            f"   slowest {max(times) * 1e3:.2f} ms   most readings {readings}"
        )

    print("\nworst cases (cold, best of 5)")
    for case in CASES:
        best = float("inf")
        for _ in range(5):
            clear_caches()
            start = time.perf_counter()
            case.run()
            best = min(best, time.perf_counter() - start)
        print(f"  {case.name:<60} {best * 1e3:7.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
