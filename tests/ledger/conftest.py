"""Fixtures for the ledger: a database URL for each backend — SQLite in a temporary file, and
a real PostgreSQL server (Debian's ``postgresql``, started here in a temporary directory on a
Unix socket; skipped, with the reason, where it is not installed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hupai.ledger.pgtemp import PostgresServer, PostgresUnavailable, temporary_postgres
from hupai.ledger.store import Ledger


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    try:
        with temporary_postgres() as server:
            yield server
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'tables.sqlite3'}"
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.new_database()


@pytest.fixture
def ledger(database_url: str) -> Iterator[Ledger]:
    store = Ledger(database_url)
    yield store
    store.close()
