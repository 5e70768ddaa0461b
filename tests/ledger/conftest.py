"""Fixtures for the ledger: a database URL for each backend — SQLite in a temporary file, and
a real PostgreSQL server (Debian's ``postgresql``, started here in a temporary directory on a
Unix socket; skipped, with the reason, where it is not installed)."""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hupai.ledger.store import Ledger

_databases = itertools.count()


def _pg_bin() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(versions[-1]).parent if versions else None


class PostgresServer:
    """A throw-away PostgreSQL cluster: ``initdb`` + ``pg_ctl start`` in a temporary folder,
    listening only on a Unix socket there (no TCP port, no password: trust)."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="hupai-pg-"))
        self.data = self.root / "data"
        self.socket = self.root
        # PostgreSQL refuses to run as root: run it as the postgres user Debian created
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            self.as_user = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.root, "postgres")

    def _run(self, *args: str) -> None:
        subprocess.run([*self.as_user, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._run(str(self.bindir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "hupai")
        options = f"-k {self.socket} -c listen_addresses='' -c fsync=off"
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.root / "log"),
            "-w",
            "start",
        )

    def stop(self) -> None:
        try:
            self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://hupai@/{database}?host={self.socket}"

    def new_database(self) -> str:
        import psycopg

        name = f"t{os.getpid()}_{next(_databases)}"
        conninfo = f"host={self.socket} user=hupai dbname=postgres"
        with psycopg.connect(conninfo, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        pytest.skip("running as root without runuser: cannot start PostgreSQL as its user")
    server = PostgresServer(bindir)
    try:
        server.start()
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, LookupError) as exc:
        log = server.root / "log"
        detail = log.read_text()[-500:] if log.exists() else getattr(exc, "stderr", b"")
        shutil.rmtree(server.root, ignore_errors=True)
        pytest.skip(f"PostgreSQL did not start: {detail!r}")
    yield server
    server.stop()


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
