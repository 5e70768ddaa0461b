"""``hupai train distill`` dry-run on a tiny config: the shipped ensemble (two namers, two
views) teaches one namer that names each box once; a rerun resumes; the student exports like
every namer and reads back through the runtime. Needs the ``train`` extra (torch): run it
with ``make test-train``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hupai.cli import main

pytestmark = pytest.mark.train


@pytest.fixture(scope="module")
def distilled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    pytest.importorskip("efficientnet_lite_pytorch")
    root = tmp_path_factory.mktemp("distill")
    fixture = Path(__file__).parents[1] / "datasets" / "fixtures" / "roboflow-mini"
    real = root / "real"
    assert main(["data", "import-roboflow", str(fixture), "--out", str(real)]) == 0
    runs, crops = root / "runs", root / "crops"
    args = ["train", "distill", "--name", "tiny", "--project", str(runs), "--data", str(crops)]
    args += ["--real", str(real), "--synth-scenes", "3", "--synth-val-scenes", "2"]
    args += ["--epochs", "1", "--epoch-crops", "32", "--batch", "16", "--clutter-share", "0"]
    args += ["--val-limit", "40"]
    assert main(args) == 0
    assert main(args) == 0  # a rerun resumes: the crops and the epoch are done, nothing redone
    return runs / "tiny"


def test_the_student_is_measured_against_its_teacher(distilled: Path) -> None:
    (row,) = [json.loads(line) for line in (distilled / "history.jsonl").read_text().splitlines()]
    assert 0.0 <= row["val"]["teacher_agreement"] <= 1.0 and row["val"]["teacher_kl"] >= 0.0
    assert set(row["hard"]) == {"hard-val"}  # only the hard sets it trained on
    log = (distilled / "train.log").read_text()
    teacher = next(line for line in log.splitlines() if "distill: teacher" in line)
    assert '"views": [0.08, 0.12]' in teacher  # the shipped namer's own views teach


def test_the_student_exports_as_one_namer_with_one_view(distilled: Path) -> None:
    from hupai.vision.namer import NAMER_CLASSES, Namer

    out = distilled.parent / "student.onnx"
    best = distilled / "weights" / "best.pt"
    assert main(["train", "namer-export", str(best), "--out", str(out), "--no-int8"]) == 0
    namer = Namer(out)
    assert namer.manifest.views == (namer.manifest.margin,)
    assert namer.blend is None and namer.gate is None
    names = namer.name(np.full((200, 300, 3), 128, np.uint8), np.array([[10, 10, 60, 80.0]]))
    assert names.probs.shape == (1, len(NAMER_CLASSES))
