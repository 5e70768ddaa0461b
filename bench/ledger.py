"""Ledger benchmark: adding a hand to a table that already holds N hands (default 1,000),
against adding one to a table that holds one (the peer, same process, same database), and
reading the totals; with editing the first hand (which must recompute all N) for contrast.

Appending must not recompute the game: the ratio "add to N / add to 1" should stay near 1
whatever N is, while "edit the first" grows with N.

    .venv/bin/python bench/ledger.py [--hands 1000] [--rounds 30] [--db URL]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hupai.ledger.store import Ledger  # noqa: E402

PLAYERS = ["Ann", "Bo", "Chen", "Dee"]
WIN = {"win": "self_draw", "hand": "123m456m789m123p55s", "win_tile": "5s"}


def median_ms(fn: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--db", help="database URL (default: SQLite in a temporary folder)")
    parser.add_argument(
        "--postgres", action="store_true", help="on a throw-away PostgreSQL server (fsync off)"
    )
    args = parser.parse_args()
    if args.postgres:
        from hupai.ledger.pgtemp import temporary_postgres

        with temporary_postgres() as server:
            return measure(args, server.new_database())
    url = args.db or f"sqlite:///{Path(tempfile.mkdtemp(prefix='hupai-bench-')) / 't.sqlite3'}"
    return measure(args, url)


def measure(args: argparse.Namespace, url: str) -> int:
    ledger = Ledger(url)
    spec = {"city": "shaanxi", "players": PLAYERS}
    big = ledger.create_table(spec)["write_token"]
    start = time.perf_counter()
    for i in range(args.hands):
        ledger.add_hand(big, {**WIN, "winner": i % 4})
    fill_s = time.perf_counter() - start
    small = ledger.create_table(spec)["write_token"]
    ledger.add_hand(small, {**WIN, "winner": 1})

    winner = iter(range(10**9))
    add_big = median_ms(
        lambda: ledger.add_hand(big, {**WIN, "winner": next(winner) % 4}), args.rounds
    )
    add_small = median_ms(
        lambda: ledger.add_hand(small, {**WIN, "winner": next(winner) % 4}), args.rounds
    )
    totals = median_ms(lambda: ledger.view(big, False), args.rounds)
    listing = median_ms(lambda: ledger.view(big, True), max(3, args.rounds // 10))
    revision = iter(range(1, 10**9))
    edit_first = median_ms(
        lambda: ledger.edit_hand(big, 1, {**WIN, "winner": 0}, next(revision)),
        max(3, args.rounds // 10),
    )
    first = ledger.hand(big, 1)["revision"]  # hand 1: the dealer won; now the next player
    deal_changed = median_ms(lambda: ledger.edit_hand(big, 1, {**WIN, "winner": 1}, first), 1)
    beside = _beside_a_long_edit(ledger, big, small)
    print(f"database: {url.split('://', 1)[0]}; filled {args.hands} hands in {fill_s:.1f} s")
    print(f"add a hand to a table of {args.hands + 1}+ hands: {add_big:7.2f} ms (median)")
    print(f"add a hand to a table of 1+ hands (peer):      {add_small:7.2f} ms")
    print(f"  ratio big/peer: {add_big / add_small:.2f}  (1 = no recomputation from scratch)")
    print(f"read the totals (no hand list):               {totals:7.2f} ms")
    print(f"read the table with every hand:               {listing:7.2f} ms")
    print(f"edit the first hand (recomputes all):         {edit_first:7.2f} ms")
    print(f"  ratio edit-first/add: {edit_first / add_big:.1f}")
    print(f"edit the first hand so that the deal changes:   {deal_changed:7.2f} ms")
    print(
        f"during an edit of the first hand ({beside['edit_ms']:.0f} ms): the other table "
        f"read in {beside['read_ms']:.1f} ms, a hand added to it in {beside['add_ms']:.1f} ms"
    )
    ledger.close()
    return 0


def _beside_a_long_edit(ledger: Ledger, big: str, small: str) -> dict[str, float]:
    """Edit the big table's first hand in a thread (back to the dealer winning: every later
    deal changes); meanwhile read the small table and add a hand to it: how long each
    waited."""
    import threading

    revision = ledger.hand(big, 1)["revision"]
    timings: dict[str, float] = {}

    def edit() -> None:
        start = time.perf_counter()
        ledger.edit_hand(big, 1, {**WIN, "winner": 0}, revision)
        timings["edit_ms"] = (time.perf_counter() - start) * 1000

    thread = threading.Thread(target=edit)
    thread.start()
    time.sleep(0.01)
    start = time.perf_counter()
    ledger.view(small, False)
    timings["read_ms"] = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    ledger.add_hand(small, {**WIN, "winner": 1})
    timings["add_ms"] = (time.perf_counter() - start) * 1000
    thread.join()
    return timings


if __name__ == "__main__":
    sys.exit(main())
