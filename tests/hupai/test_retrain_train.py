"""``hupai retrain`` end to end on a small corrected folder (tiny sizes): the model folder it
writes loads, and the before/after table is printed. Needs the ``train`` extra: run by
``make test-train``."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

if importlib.util.find_spec("efficientnet_lite_pytorch") is None:
    pytest.skip("needs the train extra (make train-deps)", allow_module_level=True)

from hupai.cli import main
from hupai.vision.detector import models_in

pytestmark = pytest.mark.train
REAL = Path(__file__).resolve().parents[2] / "data" / "real"


@pytest.fixture(scope="module")
def retrained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    if not (REAL / "images" / "val").is_dir():
        pytest.skip("needs data/real (hupai data import-roboflow …)")
    root = tmp_path_factory.mktemp("retrain")
    corrected = root / "corrected"
    for kind in ("images", "labels"):
        (corrected / kind / "train").mkdir(parents=True)
    shutil.copy(REAL / "classes.txt", corrected / "classes.txt")
    for photo in sorted((REAL / "images" / "val").glob("*.jpg"))[:6]:
        shutil.copy(photo, corrected / "images" / "train" / photo.name)
        label = REAL / "labels" / "val" / f"{photo.stem}.txt"
        shutil.copy(label, corrected / "labels" / "train" / label.name)
    out = root / "models"
    argv = ["retrain", str(corrected), "--out", str(out), "--epochs", "1", "--epoch-crops",
            "64", "--real-test-limit", "3", "--no-int8", "--threads", "2", "--finder", "train",
            "--finder-epochs", "1"]  # fmt: skip
    return out, _run(argv)


def _run(argv: list[str]) -> str:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(argv) == 0
    return buf.getvalue()


def test_the_table_shows_both_sets_before_and_after(retrained: tuple[Path, str]) -> None:
    _, printed = retrained
    # (the training libraries may print before it: ultralytics' first-run settings notice)
    lines = printed.splitlines()
    header = [i for i, line in enumerate(lines) if line.split()[:3] == ["set", "model", "photos"]]
    assert len(header) == 1
    lines = lines[header[0] :]
    assert sum(line.startswith("held-out corrections") for line in lines) == 3
    assert sum(line.startswith("real test split") for line in lines) == 3


def test_the_model_folder_reads_a_photo(retrained: tuple[Path, str]) -> None:
    out, _ = retrained
    for model in models_in(out):  # both fine-tuned (--finder train)
        assert json.loads(model.with_suffix(".json").read_text())["retrained_from"]
    photo = sorted((REAL / "images" / "test").glob("*.jpg"))[0]
    assert _run(["read", str(photo), "--models", str(out)])


def test_a_rerun_resumes_instead_of_training_again(retrained: tuple[Path, str]) -> None:
    out, _ = retrained
    assert (out / ".retrain" / "namer" / "done.json").is_file()
    assert (out / "retrain-report.json").is_file()
