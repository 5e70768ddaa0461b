"""Issue #40 rows 5 and 6: a read never waits for a writer, and a write waits for at most the
changes asked before it (SQLite has one write lock for the whole file)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hupai.ledger import store as store_module
from hupai.ledger.database import WriteQueue
from hupai.ledger.store import Ledger

PLAYERS = ["Ann", "Bo", "Chen", "Dee"]
WIN = {"winner": 1, "win": "self_draw", "hand": "123m456m789m123p55s", "win_tile": "5s"}


@pytest.fixture
def sqlite_path(tmp_path: Path) -> Path:
    return tmp_path / "tables.sqlite3"


@pytest.fixture
def ledger(sqlite_path: Path) -> Iterator[Ledger]:
    store = Ledger(f"sqlite:///{sqlite_path}")
    yield store
    store.close()


def table(ledger: Ledger, name: str = "") -> dict[str, Any]:
    made = ledger.create_table({"city": "shaanxi", "players": PLAYERS, "name": name})
    ledger.add_hand(made["write_token"], WIN)
    return made


def within(seconds: float, fn: Callable[[], Any]) -> bool:
    """Whether ``fn`` returns within ``seconds`` (it goes on in its thread if not)."""
    done = threading.Event()

    def run() -> None:
        fn()
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return done.wait(seconds)


READS: dict[str, Callable[[Ledger, str], Any]] = {
    "view": lambda ledger, token: ledger.view(token),
    "options_history": lambda ledger, token: ledger.options_history(token),
    "history": lambda ledger, token: ledger.history(token, 1),
    "hand": lambda ledger, token: ledger.hand(token, 1),
    "export_json": lambda ledger, token: ledger.export_json(token),
    "export_csv": lambda ledger, token: ledger.export_csv(token),
    "revision": lambda ledger, token: ledger.revision(token),
}


@pytest.mark.parametrize("read", sorted(READS))
def test_a_read_does_not_wait_for_a_writer(ledger: Ledger, sqlite_path: Path, read: str) -> None:
    """Row 5: ``GET …/options`` opened a write transaction and waited 4.65 s beside long
    edits (here: a writer holding SQLite's write lock)."""
    token = table(ledger)["read_token"]
    writer = sqlite3.connect(sqlite_path, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")  # a long change, in progress
    try:
        assert within(5, lambda: READS[read](ledger, token)), f"{read} waited for the writer"
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_write_waits_for_at_most_the_change_in_progress(
    ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Row 5: a write to another table waited through a series of long changes (4.55 s):
    SQLite's busy handler lets the writer that asks again at once win again. Counted, not
    timed: the changes of the busy table that begin while the quiet write waits."""
    busy, quiet = table(ledger, "busy"), table(ledger, "quiet")
    busy_id = _table_id(ledger, busy)
    real = store_module.store_played
    begun: list[float] = []

    def slow_store(row: Any, played: Any) -> None:
        if row.table_id == busy_id:
            begun.append(time.monotonic())
            time.sleep(0.25)  # a long change, holding the write lock
        real(row, played)

    monkeypatch.setattr(store_module, "store_played", slow_store)

    def changes() -> None:
        for _ in range(12):  # 3 s of changes, one after another
            ledger.add_hand(busy["write_token"], WIN)

    worker = threading.Thread(target=changes)
    worker.start()
    deadline = time.monotonic() + 10
    while not begun and time.monotonic() < deadline:
        time.sleep(0.01)
    began = time.monotonic()
    ledger.add_hand(quiet["write_token"], WIN)
    ended = time.monotonic()
    worker.join(60)
    during = [t for t in begun if began < t < ended]
    # at most the change that had its turn just before the quiet write asked
    assert len(during) <= 1, f"{len(during)} changes of another table went first"


def _table_id(ledger: Ledger, made: dict[str, Any]) -> int:
    from sqlalchemy import select

    from hupai.ledger.models import GameTable

    with ledger._session(write=False) as session:
        return int(
            session.scalars(
                select(GameTable.id).where(GameTable.read_token == made["read_token"])
            ).one()
        )


def test_the_write_queue_serves_in_the_order_asked() -> None:
    queue = WriteQueue()
    order: list[str] = []
    first_in = threading.Event()
    let_go = threading.Event()

    def first() -> None:
        with queue.turn():
            first_in.set()
            let_go.wait(5)
        with queue.turn():  # asks again at once: behind the one already waiting
            order.append("first again")

    def second() -> None:
        with queue.turn():
            order.append("second")

    a = threading.Thread(target=first)
    a.start()
    assert first_in.wait(5)
    b = threading.Thread(target=second)
    b.start()
    time.sleep(0.1)  # b is waiting
    let_go.set()
    a.join(5)
    b.join(5)
    assert order == ["second", "first again"]


def test_a_write_that_waits_too_long_is_a_clear_error() -> None:
    queue = WriteQueue()
    with queue.turn(), pytest.raises(TimeoutError):  # noqa: SIM117
        with queue.turn(timeout=0.05):
            pass
    with queue.turn(timeout=0.05):  # the abandoned place was given up
        pass
