"""The output folder's state: the manifest and its journal (:class:`Store`), the lock that
keeps one job per folder, hashes and atomic writes.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import cache
from pathlib import Path
from typing import IO, Any

from hupai.labeling.options import MANIFEST_FORMAT, MANIFEST_VERSION, LabelJobError


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename,
    so that a reader (or a crash) never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a label is an ordinary file
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@cache
def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


class Store:
    """The manifest (``manifest.json``) and its journal (``journal.jsonl``): what was read
    from each photo, and the hashes of every file hupai wrote. Changes go to the journal
    first (one JSON line each, flushed); :meth:`commit` folds them into the manifest."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.manifest_path = state / "manifest.json"
        self.journal_path = state / "journal.jsonl"
        self.photos: dict[str, dict[str, Any]] = {}
        self.files: dict[str, list[str]] = {}
        self._journal: IO[str] | None = None

    @staticmethod
    def open(state: Path) -> Store:
        store = Store(state)
        if store.manifest_path.exists():
            try:
                data = json.loads(store.manifest_path.read_text(encoding="utf-8"))
                if data.get("format") != MANIFEST_FORMAT:
                    raise ValueError("not a hupai label manifest")
                if data.get("version") != MANIFEST_VERSION:
                    raise ValueError(f"manifest version {data.get('version')} is not known")
                store.photos = dict(data["photos"])
                store.files = {k: list(v) for k, v in data["files"].items()}
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                raise LabelJobError(
                    f"{store.manifest_path}: cannot read the manifest ({exc}); without it hupai "
                    "cannot tell which labels a person edited. Move the output folder aside "
                    "and label into a new one"
                ) from None
        if store.journal_path.exists():
            for line in store.journal_path.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    continue  # the last line of an interrupted run
                store._apply(entry)
        return store

    def _apply(self, entry: dict[str, Any]) -> None:
        if "photo" in entry:
            self.photos[entry["photo"]] = entry["entry"]
        elif "file" in entry:
            hashes = self.files.setdefault(entry["file"], [])
            if entry["sha256"] not in hashes:
                hashes.append(entry["sha256"])

    def _log(self, entry: dict[str, Any]) -> None:
        self._apply(entry)
        if self._journal is None:
            self.state.mkdir(parents=True, exist_ok=True)
            self._journal = open(self.journal_path, "a", encoding="utf-8")  # noqa: SIM115
        self._journal.write(json.dumps(entry, separators=(",", ":")) + "\n")
        self._journal.flush()

    def put_photo(self, rel: str, entry: dict[str, Any]) -> None:
        self._log({"photo": rel, "entry": entry})

    def wrote(self, path: str, sha: str) -> None:
        """Record (before writing) that hupai puts content ``sha`` at ``path``."""
        if sha not in self.files.get(path, []):
            self._log({"file": path, "sha256": sha})

    def ours(self, path: str, sha: str) -> bool:
        return sha in self.files.get(path, [])

    def commit(self) -> None:
        data = {
            "format": MANIFEST_FORMAT,
            "version": MANIFEST_VERSION,
            "photos": dict(sorted(self.photos.items())),
            "files": dict(sorted(self.files.items())),
        }
        atomic_write(self.manifest_path, (json.dumps(data, indent=1) + "\n").encode())
        if self._journal is not None:
            self._journal.close()
            self._journal = None
        self.journal_path.unlink(missing_ok=True)


class _Lock:
    """One job per output folder: ``.hupai/lock`` holds the pid of the job writing there."""

    def __init__(self, state: Path) -> None:
        self.path = state / "lock"

    def __enter__(self) -> _Lock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                try:
                    pid = int(self.path.read_text().strip() or 0)
                except (OSError, ValueError):
                    pid = 0
                if pid and pid != os.getpid() and _alive(pid):
                    raise LabelJobError(
                        f"{self.path.parent.parent}: another hupai label (pid {pid}) is "
                        f"writing there; wait for it, or remove {self.path} if it is gone"
                    ) from None
                self.path.unlink(missing_ok=True)  # left by a job that died
                continue
            with os.fdopen(fd, "w") as f:
                f.write(str(os.getpid()))
            return self
        raise LabelJobError(f"{self.path}: cannot take the output folder's lock")

    def __exit__(self, *exc: object) -> None:
        self.path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
