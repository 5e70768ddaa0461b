"""The ledger's database: engines (SQLite tuned for one writer at a time, PostgreSQL), the
Alembic migrations, and the queue this process's writers wait in."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def default_url() -> str:
    """SQLite in the user's data folder (``$XDG_DATA_HOME/hupai/tables.sqlite3``)."""
    import os

    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return f"sqlite:///{base / 'hupai' / 'tables.sqlite3'}"


#: The execution option that marks a connection as a writer's (SQLite: ``BEGIN IMMEDIATE``).
WRITE_OPTION = "hupai_writes"


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, a busy timeout, foreign keys, and ``BEGIN
    IMMEDIATE`` for writes only (a writer waits for the other instead of failing half-way;
    readers never wait)."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        from sqlalchemy.pool import StaticPool

        memory = not path or path == ":memory:"
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            poolclass=StaticPool if memory else None,
        )

        @event.listens_for(engine, "connect")
        def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
            cursor = dbapi_connection.cursor()
            if not memory:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Any) -> None:
            # A write takes the write lock at once (it waits its turn rather than failing
            # half-way); a read begins deferred, so that in WAL mode it never waits for a
            # writer, and a long edit of one table never holds up reading another.
            writes = conn.get_execution_options().get(WRITE_OPTION, False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True)


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision`` with Alembic (creates it on first use; an upgrade
    keeps every existing table and hand)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # Alembic's context is process-global (one migration at a time per process); across
    # processes, SQLite's BEGIN IMMEDIATE or PostgreSQL's advisory lock serialises them.
    with _MIGRATING, engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK_ID})")
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


#: Seconds a write waits for its turn (as SQLite's busy timeout did).
WRITE_WAIT = 30.0


class WriteQueue:
    """A lock handed to its waiters in the order they asked (first come, first served):
    a writer that ends and asks again queues behind those already waiting.

    >>> queue = WriteQueue()
    >>> with queue.turn():
    ...     pass
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._held = False
        self._waiting: deque[threading.Event] = deque()

    @contextmanager
    def turn(self, timeout: float = WRITE_WAIT) -> Iterator[None]:
        """Hold the lock in turn; :class:`TimeoutError` after ``timeout`` s of waiting."""
        with self._guard:
            mine = None if not self._held else threading.Event()
            if mine is None:
                self._held = True
            else:
                self._waiting.append(mine)
        if mine is not None and not mine.wait(timeout):
            with self._guard:
                if not mine.is_set():  # handed over meanwhile? then it is ours after all
                    self._waiting.remove(mine)
                    raise TimeoutError
        try:
            yield
        finally:
            with self._guard:
                if self._waiting:
                    self._waiting.popleft().set()  # held passes on, never released between
                else:
                    self._held = False


@contextmanager
def no_wait() -> Iterator[None]:
    """The turn of a writer that needs no queue (PostgreSQL's row locks order the writers)."""
    yield


#: One migration at a time in this process (Alembic's context is process-global); across
#: processes PostgreSQL's advisory lock with this id (SQLite: BEGIN IMMEDIATE).
_MIGRATING = threading.Lock()
_MIGRATION_LOCK_ID = 0x68757061  # "hupa"
