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
from hupai.vision.classes import CLASS_NAMES
from hupai.vision.detector import Detector

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
    assert (
        main(["train", "export", str(weights), "--out", str(out), "--imgsz", "160", "--no-int8"])
        == 0
    )
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


# -- the namer: every stage on a tiny real set and a few synthetic scenes --------------------


@pytest.fixture(scope="module")
def namer_exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("efficientnet_lite_pytorch")
    root = tmp_path_factory.mktemp("namer")
    fixture = Path(__file__).parents[1] / "datasets" / "fixtures" / "roboflow-mini"
    real = root / "real"
    assert main(["data", "import-roboflow", str(fixture), "--out", str(real)]) == 0
    runs, crops = root / "runs", root / "crops"
    args = ["train", "namer", "--name", "smoke", "--project", str(runs), "--data", str(crops)]
    args += ["--real", str(real), "--synth-scenes", "3", "--synth-val-scenes", "2"]
    args += ["--epochs", "1", "--epoch-crops", "64"]
    assert main(args) == 0
    assert main(args) == 0  # a rerun resumes: every stage is done, nothing is redone
    best = runs / "smoke" / "weights" / "best.pt"
    out = root / "namer.onnx"
    assert main(["train", "namer-export", str(best), "--out", str(out), "--no-int8"]) == 0
    return out


def test_the_exported_namer_names_crops_in_onnxruntime(namer_exported: Path) -> None:
    from hupai.vision.namer import NAMER_CLASSES, Namer

    namer = Namer(namer_exported)
    names = namer.name(np.full((200, 300, 3), 128, np.uint8), np.array([[10, 10, 60, 80.0]]))
    assert names.probs.shape == (1, len(NAMER_CLASSES))
    assert np.isclose(names.probs.sum(), 1.0)


def test_the_exported_namer_computes_what_torch_computes(namer_exported: Path) -> None:
    import torch

    from hupai.training.namer import build_model, predict
    from hupai.vision.namer import Namer

    best = namer_exported.parent / "runs" / "smoke" / "weights" / "best.pt"
    model = build_model()
    model.load_state_dict(torch.load(best, map_location="cpu", weights_only=False)["model"])
    crops = np.random.default_rng(0).integers(0, 255, (4, 64, 64, 3), dtype=np.uint8)
    expected = predict(model, crops)
    got = Namer(namer_exported).name_crops(crops).probs
    assert np.abs(expected - got).max() < 2e-3  # float16-stored weights


# -- the bonus reader: a tiny run, exported, named by a namer as its bonus reader ------------


@pytest.fixture(scope="module")
def bonus_exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("efficientnet_lite_pytorch")
    root = tmp_path_factory.mktemp("bonus")
    fixture = Path(__file__).parents[1] / "datasets" / "fixtures" / "roboflow-mini"
    real = root / "real"
    assert main(["data", "import-roboflow", str(fixture), "--out", str(real)]) == 0
    runs = root / "runs"
    args = ["train", "bonus", "--name", "smoke", "--project", str(runs)]
    args += ["--data", str(root / "crops"), "--real", str(real), "--styles", "2"]
    args += ["--val-styles", "1", "--art-variants", "1", "--epochs", "1", "--epoch-crops", "48"]
    args += ["--blocks", "8", "--head", "32"]  # Lite0 cut short, as shipped
    assert main(args) == 0
    best = runs / "smoke" / "weights" / "best.pt"
    out = root / "models" / "bonus.onnx"
    assert main(["train", "bonus-export", str(best), "--out", str(out), "--no-int8"]) == 0
    return out


def test_a_namer_reads_flowers_with_the_exported_bonus_reader(bonus_exported: Path) -> None:
    import json
    import shutil

    from hupai.vision.detector import shipped_file
    from hupai.vision.namer import NAMER_CLASSES, Namer

    namer = shipped_file("namer")
    assert namer is not None
    folder = bonus_exported.parent
    shutil.copy(namer, folder / namer.name)
    manifest = json.loads(namer.with_suffix(".json").read_text())
    # the smoke run trains the eight and the bird (the default): a bonus and a bird reader
    manifest["bonus"] = {"file": bonus_exported.name}
    manifest["bird"] = {"file": bonus_exported.name, "turned": True}
    # (and a bird reader of every tile: the shipped namer names one, whose file is not here)
    manifest["bird_others"] = {"file": bonus_exported.name, "turned": True, "namer_from": 0.01}
    (folder / namer.name).with_suffix(".json").write_text(json.dumps(manifest))
    loaded = Namer(folder / namer.name)
    assert loaded.bonus is not None and loaded.bonus.input_size == 128
    assert loaded.bird is not None and loaded.bird.input_size == 128
    assert loaded.bird_others is not None
    names = loaded.name(np.full((200, 300, 3), 128, np.uint8), np.array([[10, 10, 60, 80.0]]))
    assert names.probs.shape == (1, len(NAMER_CLASSES))
    assert np.isclose(names.probs.sum(), 1.0)


def test_the_bonus_readers_int8_copy_is_checked_on_its_own_selection_tiles(
    bonus_exported: Path, tmp_path: Path
) -> None:
    import json

    from hupai.training.bonus import BONUS_TOLERANCE

    root = bonus_exported.parents[1]
    best = root / "runs" / "smoke" / "weights" / "best.pt"
    out = tmp_path / "bonus.onnx"
    args = ["train", "bonus-export", str(best), "--out", str(out), "--calib", str(root / "real")]
    assert main(args) == 0
    quantization = json.loads(out.with_suffix(".json").read_text())["quantization"]
    assert set(quantization["val"]["float"]) == {"real-val", "heldout-mincho"}
    assert quantization["tolerance"] == BONUS_TOLERANCE


def test_a_bonus_export_without_its_selection_tiles_says_so(
    bonus_exported: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    root = bonus_exported.parents[1]
    best = root / "runs" / "smoke" / "weights" / "best.pt"
    moved = tmp_path / "crops"
    shutil.move(root / "crops", moved)
    try:
        args = ["train", "bonus-export", str(best), "--out", str(tmp_path / "b.onnx")]
        assert main([*args, "--calib", str(root / "real")]) == 2
    finally:
        shutil.move(moved, root / "crops")
    assert "selection crops are not there" in capsys.readouterr().err


def test_a_bird_reader_of_every_tile_trains_on_from_another_readers_weights(
    bonus_exported: Path,
) -> None:
    import torch

    root = bonus_exported.parents[1]
    best = root / "runs" / "smoke" / "weights" / "best.pt"
    args = ["train", "bonus", "--name", "every", "--project", str(root / "runs")]
    args += ["--data", str(root / "crops"), "--real", str(root / "real"), "--styles", "1"]
    args += ["--val-styles", "1", "--art-variants", "1", "--epochs", "1", "--epoch-crops", "48"]
    args += ["--blocks", "8", "--head", "32", "--every-tile", "--init", str(best)]
    assert main(args) == 0
    assert f"init: {best}" in (root / "runs" / "every" / "train.log").read_text()
    ckpt = torch.load(root / "runs" / "every" / "weights" / "best.pt", weights_only=False)
    assert ckpt["config"]["bonus"]["every_tile"] is True
    assert (root / "crops" / "gen-s0-n1-every.npz").exists()
