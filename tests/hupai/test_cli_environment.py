"""Settings come from the environment only at the edges: service/settings.py and the CLI's
entry (hupai/cli.py) — never inside vision/."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from hupai.cli import UserError, environment_defaults

VISION = Path(__file__).resolve().parents[2] / "vision"


def test_vision_reads_no_environment() -> None:
    readers = [
        f"{path.name}:{n}"
        for path in sorted(VISION.glob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"os\.environ|getenv\(", line)
    ]
    assert readers == []


def test_the_cli_fills_left_out_options_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HUPAI_MODEL", "m.onnx")
    monkeypatch.setenv("HUPAI_THREADS", "3")
    args = argparse.Namespace(command="read", model=None, namer="given.onnx", threads=None)
    environment_defaults(args)
    assert (args.model, args.namer, args.threads) == ("m.onnx", "given.onnx", 3)


def test_a_bad_thread_count_in_the_environment_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUPAI_THREADS", "many")
    with pytest.raises(UserError, match="HUPAI_THREADS='many'"):
        environment_defaults(argparse.Namespace(command="read", threads=None))


def test_training_keeps_its_own_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUPAI_MODEL", "m.onnx")
    args = argparse.Namespace(command="train", model=None)
    environment_defaults(args)
    assert args.model is None
