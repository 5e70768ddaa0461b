"""One import namespace: the top-level folders are imported as hupai.* (pyproject's package-dir)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: folders pyproject.toml maps under hupai, each to hupai.<folder>
MAPPED = ("scoring", "vision", "datasets", "service", "ledger", "models")


def package_name(folder: Path) -> str:
    parts = folder.relative_to(ROOT).parts
    return ".".join(parts if parts[0] == "hupai" else ("hupai", *parts))


def test_every_package_folder_is_listed_in_pyproject() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = sorted(
        package_name(init.parent)
        for top in ("hupai", *MAPPED)
        for init in (ROOT / top).rglob("__init__.py")
    )
    assert sorted(setuptools["packages"]) == folders
    assert setuptools["package-dir"] == {"hupai": "hupai"} | {f"hupai.{m}": m for m in MAPPED}


def test_importing_hupai_loads_no_generic_top_level_name(tmp_path: Path) -> None:
    """Run outside the checkout, so that nothing but the installed mapping is found."""
    code = (
        "import sys, hupai.cli, hupai.service.app, hupai.ledger.store, hupai.datasets.synth.render;"
        "hupai.cli.build_parser();"
        f"print(sorted(set(sys.modules) & {set(MAPPED)!r}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
