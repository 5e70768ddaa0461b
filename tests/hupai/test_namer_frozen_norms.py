"""A namer rebuilt from ONNX has identity batch norms that must stay frozen — also when a
later run starts from that run's checkpoint. Needs the ``train`` extra."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

if importlib.util.find_spec("torch") is None:
    pytest.skip("needs the train extra (make train-deps)", allow_module_level=True)

import torch

from hupai.training.namer import NamerConfig, frozen_norms

pytestmark = pytest.mark.train


def _checkpoint(path: Path, init: str | None) -> str:
    torch.save({"config": {"init": init}}, path)
    return str(path)


def test_a_checkpoint_of_a_run_from_onnx_keeps_norms_frozen(tmp_path: Path) -> None:
    first = _checkpoint(tmp_path / "first.pt", "models/hupai-namer-v6.onnx")
    second = _checkpoint(tmp_path / "second.pt", first)
    assert frozen_norms(NamerConfig(init=second))


def test_a_checkpoint_of_a_run_from_imagenet_trains_its_norms(tmp_path: Path) -> None:
    assert not frozen_norms(NamerConfig(init=_checkpoint(tmp_path / "a.pt", None)))
