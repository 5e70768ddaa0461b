"""A throw-away PostgreSQL server for tests and benchmarks: Debian's ``initdb`` + ``pg_ctl``
in a temporary folder, listening only on a Unix socket there (no TCP port; trust auth), run
as the ``postgres`` user when started by root (PostgreSQL refuses root).

>>> find_bindir() is None or (find_bindir() / "initdb").exists()
True
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_databases = itertools.count()


def find_bindir() -> Path | None:
    """The folder of ``initdb``/``pg_ctl``: on PATH, else Debian's newest version."""
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


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server can be started here (the message says why)."""


@contextmanager
def temporary_postgres() -> Iterator[PostgresServer]:
    """A started server, stopped and removed on exit."""
    bindir = find_bindir()
    if bindir is None:
        raise PostgresUnavailable(
            "PostgreSQL is not installed (Debian: apt-get install postgresql)"
        )
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        raise PostgresUnavailable("running as root without runuser: cannot start PostgreSQL")
    server = PostgresServer(bindir)
    try:
        server.start()
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, LookupError) as exc:
        log = server.root / "log"
        detail = log.read_text()[-500:] if log.exists() else getattr(exc, "stderr", b"")
        shutil.rmtree(server.root, ignore_errors=True)
        raise PostgresUnavailable(f"PostgreSQL did not start: {detail!r}") from None
    try:
        yield server
    finally:
        server.stop()
