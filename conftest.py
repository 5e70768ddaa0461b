"""Doctests of every module, each run in the module as hupai imports it.

pyproject.toml maps the top-level folders under one namespace (``scoring/tiles.py`` is
``hupai.scoring.tiles``). pytest would name a module by its folder and import a second copy
(``scoring.tiles``) whose classes are not hupai's; here a mapped folder is a plain directory to
pytest, and its modules' doctests run in the modules ``import hupai.…`` gives. This stands in
for ``--doctest-modules``, which would collect each of them twice.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest
from _pytest.doctest import DoctestModule  # pytest's own collector, only its import replaced

ROOT = Path(__file__).resolve().parent
#: the folders pyproject.toml's package-dir maps under hupai (hupai itself included)
MAPPED = ("hupai", "scoring", "vision", "datasets", "service", "ledger", "models")


def installed_name(path: Path) -> str | None:
    """``scoring/tiles.py`` → ``hupai.scoring.tiles``; None outside the mapped folders."""
    parts = path.resolve().relative_to(ROOT).with_suffix("").parts
    if not parts or parts[0] not in MAPPED:
        return None
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts if parts[0] == "hupai" else ("hupai", *parts))


class InstalledDoctestModule(DoctestModule):
    def _getobj(self) -> ModuleType:
        name = installed_name(self.path)
        assert name is not None
        return importlib.import_module(name)


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A mapped folder is a plain directory (not a Package pytest would import by its path)."""
    if path.resolve() != ROOT and installed_name(path / "__init__.py") is not None:
        return pytest.Dir.from_parent(parent, path=path)
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix != ".py" or file_path.name in ("__main__.py", "conftest.py"):
        return None
    if installed_name(file_path) is not None:
        return InstalledDoctestModule.from_parent(parent, path=file_path)
    if file_path.resolve().is_relative_to(ROOT / "tests"):
        return DoctestModule.from_parent(parent, path=file_path)
    return None
