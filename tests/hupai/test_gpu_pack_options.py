"""The GPU pack's command line: an option given changes that field of the run's config, one
not given keeps the config's (the defaults', or the dry run's with ``--tiny``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from hupai.training import gpu


def _packed_config(monkeypatch: pytest.MonkeyPatch, *argv: str) -> gpu.GpuConfig:
    seen: list[gpu.GpuConfig] = []

    def pack(out: Path, **kwargs: object) -> Path:
        seen.append(kwargs["config"])  # type: ignore[arg-type]
        raise gpu.PackError("not packed")

    monkeypatch.setattr(gpu, "pack", pack)
    assert gpu.main(["pack", "--out", "unused", *argv]) == 2
    return seen[0]


def test_a_pack_without_options_gets_the_default_config(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _packed_config(monkeypatch) == gpu.GpuConfig()


def test_tiny_keeps_the_dry_runs_config(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _packed_config(monkeypatch, "--tiny") == gpu.TINY


def test_an_option_given_changes_its_field_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    got = _packed_config(monkeypatch, "--tiny", "--minutes", "2", "--namer-epochs", "0")
    assert got == replace(gpu.TINY, minutes=2.0, namer_epochs=0)
