"""Training smoke test: a few steps on tiny synthetic scenes, then export and read back
through the product's runtime. Needs the ``train`` extra (torch, ultralytics), which CI does
not install (several GB): run it with ``make test-train``."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

# Not importorskip: importing ultralytics at collection patches PIL's Image.open for every
# test that shares the worker process.
if importlib.util.find_spec("ultralytics") is None:
    pytest.skip("needs the train extra (make train-deps)", allow_module_level=True)

from hupai.cli import main
from vision.classes import CLASS_NAMES
from vision.detector import Detector

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("train")
    data = root / "synth"
    assert (
        main(
            [
                "data",
                "synth",
                "--n",
                "6",
                "--seed",
                "5",
                "--size",
                "160",
                "--val",
                "0.34",
                "--workers",
                "1",
                "--out",
                str(data),
            ]
        )
        == 0
    )
    runs = root / "runs"
    assert (
        main(
            [
                "train",
                "run",
                "--name",
                "smoke",
                "--project",
                str(runs),
                "--train",
                str(data / "images" / "train"),
                "--val",
                str(data / "images" / "val"),
                "--epochs",
                "1",
                "--imgsz",
                "160",
                "--batch",
                "2",
            ]
        )
        == 0
    )
    weights = runs / "smoke" / "weights" / "last.pt"
    assert weights.is_file()
    out = root / "model.onnx"
    assert main(["train", "export", str(weights), "--out", str(out), "--imgsz", "160"]) == 0
    return out


def test_export_writes_a_manifest_with_our_classes(exported: Path) -> None:
    import json

    manifest = json.loads(exported.with_suffix(".json").read_text())
    assert manifest["class_names"] == list(CLASS_NAMES)
    assert manifest["input"]["shape"] == [1, 3, 160, 160]


def test_the_runtime_loads_the_exported_model(exported: Path) -> None:
    detector = Detector(exported)
    detections = detector.detect(np.full((120, 160, 3), 128, np.uint8))
    assert detections.xyxy.shape[1] == 4
