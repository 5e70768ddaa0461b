"""``hupai eval`` on a tiny YOLO folder with a fake ONNX model whose output is known."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("onnx")
from fake_models import fake_model

from hupai.cli import main
from hupai.evaluation import DatasetError, find_samples, run

# Three tiles filling a 640×640 photo: (cx, cy, w, h) in pixels and their class. They are
# large so that the reader keeps its first look (a fake model cannot follow a zoom).
TILES = [((100, 300, 100, 140), 0), ((320, 300, 100, 140), 9), ((540, 300, 100, 140), 27)]


def _dataset(tmp_path: Path) -> Path:
    from PIL import Image

    root = tmp_path / "set"
    (root / "images" / "test").mkdir(parents=True)
    (root / "labels" / "test").mkdir(parents=True)
    Image.new("RGB", (640, 640), (30, 120, 60)).save(root / "images" / "test" / "a.jpg")
    lines = [f"{c} {x / 640} {y / 640} {w / 640} {h / 640}" for (x, y, w, h), c in TILES]
    (root / "labels" / "test" / "a.txt").write_text("\n".join(lines) + "\n")
    return root


def test_a_model_that_sees_the_truth_reads_the_photo_exactly(tmp_path: Path) -> None:
    model = fake_model(tmp_path, [(*box, c, 0.9) for box, c in TILES])
    report = run(_dataset(tmp_path), model=str(model)).report
    assert report.map50 == pytest.approx(0.995)
    assert (report.precision, report.recall, report.exact_read) == (1.0, 1.0, 1.0)


def test_a_misread_tile_is_a_confusion(tmp_path: Path) -> None:
    boxes = [(*TILES[0][0], 0, 0.9), (*TILES[1][0], 10, 0.9), (*TILES[2][0], 27, 0.9)]
    report = run(_dataset(tmp_path), model=str(fake_model(tmp_path, boxes))).report
    assert report.confusions == [(9, 10, 1)]
    assert report.exact_read == 0.0


def test_cli_prints_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = fake_model(tmp_path, [(*box, c, 0.9) for box, c in TILES])
    out = tmp_path / "figures.json"
    assert main(["eval", str(_dataset(tmp_path)), "--model", str(model), "--json", str(out)]) == 0
    assert "photo exact-read 100.0%" in capsys.readouterr().out
    assert json.loads(out.read_text())["per_class"]["1z"]["boxes"] == 1


def test_a_folder_without_labels_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "photos").mkdir()
    with pytest.raises(DatasetError, match="no labels folder"):
        find_samples(tmp_path / "photos")


def test_cli_names_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err
