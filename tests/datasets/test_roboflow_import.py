"""Importer of the Roboflow export, on a tiny fixture cut from the real set."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hupai.cli import main
from hupai.datasets.labels import load_yolo_labels
from hupai.datasets.roboflow import (
    ROBOFLOW_TO_NOTATION,
    RoboflowImportError,
    import_roboflow,
    photo_key,
    read_class_names,
)
from hupai.vision.classes import BACK, class_by_name

FIXTURE = Path(__file__).parent / "fixtures" / "roboflow-mini"
EMPTY = "hand_001_jpg.rf.016d6c3bca0cd0b1cd00d4169d31ebe0"


def _files(root: Path, split: str) -> list[str]:
    folder = root / "images" / split
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_mapping_covers_the_export_names_one_to_one() -> None:
    names = read_class_names(FIXTURE / "data.yaml")
    assert len(names) == 42 == len(set(names))
    ours = {class_by_name(ROBOFLOW_TO_NOTATION[n]) for n in names}
    assert ours == set(range(42))  # every tile class once, never 'back'
    assert BACK not in ours


def test_seasons_and_flowers_map_to_their_own_tiles() -> None:
    # bs = seasons 春夏秋冬 (5f-8f), bf = flowers 梅蘭菊竹 (1f-4f); checked on labelled crops.
    assert [ROBOFLOW_TO_NOTATION[f"bs{i}"] for i in range(1, 5)] == ["5f", "6f", "7f", "8f"]
    assert [ROBOFLOW_TO_NOTATION[f"bf{i}"] for i in range(1, 5)] == ["1f", "2f", "3f", "4f"]
    assert [ROBOFLOW_TO_NOTATION[c] for c in ("hdw", "hdg", "hdr")] == ["5z", "6z", "7z"]


def test_import_keeps_splits_and_drops_the_empty_label_file(tmp_path: Path) -> None:
    report = import_roboflow(FIXTURE, tmp_path / "out")
    out = tmp_path / "out"
    assert report.images == {"train": 2, "val": 1, "test": 1}
    assert report.dropped_empty == [f"train/images/{EMPTY}.jpg"]
    assert EMPTY + ".jpg" not in _files(out, "train")
    assert (out / "data.yaml").read_text().count("images/") == 3
    assert (out / "classes.txt").read_text().splitlines()[-1] == "back"


def test_polygon_lines_become_boxes_around_their_points(tmp_path: Path) -> None:
    report = import_roboflow(FIXTURE, tmp_path / "out")
    assert report.polygons_to_boxes > 0
    src = FIXTURE / "train" / "labels"
    name = "hand_001_jpg.rf.37dac76b785fbf049c5113e3fbc56813.txt"
    first_polygon = next(ln for ln in (src / name).read_text().splitlines() if len(ln.split()) > 5)
    values = [float(v) for v in first_polygon.split()[1:]]
    boxes = load_yolo_labels(tmp_path / "out" / "labels" / "train" / name)
    expected = (min(values[0::2]), min(values[1::2]), max(values[0::2]), max(values[1::2]))
    assert any(
        all(abs(a - min(1.0, b)) < 1e-5 for a, b in zip(box.xyxy, expected, strict=True))
        for box in boxes
    )


def test_class_ids_are_translated(tmp_path: Path) -> None:
    import_roboflow(FIXTURE, tmp_path / "out")
    names = read_class_names(FIXTURE / "data.yaml")
    name = "hand_001_jpg.rf.ee8239663790be295ec00c30cbda4dec.txt"
    src_ids = [int(ln.split()[0]) for ln in (FIXTURE / "valid" / "labels" / name).open()]
    out_ids = [b.cls for b in load_yolo_labels(tmp_path / "out" / "labels" / "val" / name)]
    assert out_ids == [class_by_name(ROBOFLOW_TO_NOTATION[names[i]]) for i in src_ids]


def test_same_name_different_photos_are_reported_and_kept(tmp_path: Path) -> None:
    report = import_roboflow(FIXTURE, tmp_path / "out")
    assert [c["photo"] for c in report.name_collisions] == ["hand_001_jpg"]
    assert report.leaks_removed == []


def test_a_photo_shared_by_train_and_test_is_never_trained_on(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(FIXTURE, src)
    shutil.rmtree(src / "valid")
    for sub in ("images", "labels"):
        for p in (src / "test" / sub).iterdir():
            p.unlink()
    stem = "hand_001_jpg.rf.37dac76b785fbf049c5113e3fbc56813"
    shutil.copy(src / "train/images" / f"{stem}.jpg", src / "test/images/hand_001_jpg.rf.x.jpg")
    shutil.copy(src / "train/labels" / f"{stem}.txt", src / "test/labels/hand_001_jpg.rf.x.txt")
    report = import_roboflow(src, tmp_path / "out")
    assert [c["photo"] for c in report.leaks_removed] == ["hand_001_jpg"]
    assert not (tmp_path / "out" / "images" / "train").exists()
    assert _files(tmp_path / "out", "test") == ["hand_001_jpg.rf.x.jpg"]


def test_resplit_keeps_copies_of_a_photo_together_and_test_untouched(tmp_path: Path) -> None:
    import_roboflow(FIXTURE, tmp_path / "out", resplit=0.5, seed=1)
    out = tmp_path / "out"
    train = (
        {photo_key(n) for n in _files(out, "train")} if (out / "images/train").exists() else set()
    )
    val = {photo_key(n) for n in _files(out, "val")} if (out / "images/val").exists() else set()
    assert not train & val
    assert _files(out, "test") == sorted(p.name for p in (FIXTURE / "test" / "images").iterdir())


def test_existing_output_is_not_overwritten_without_asking(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    with pytest.raises(RoboflowImportError, match="not empty"):
        import_roboflow(FIXTURE, out)
    with pytest.raises(RoboflowImportError, match="not a dataset folder"):
        import_roboflow(FIXTURE, out, overwrite=True)
    assert (out / "mine.txt").read_text() == "keep me"


def test_cli_prints_counts_and_stats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data", "import-roboflow", str(FIXTURE), "--out", str(tmp_path / "o")]) == 0
    text = capsys.readouterr().out
    assert "train: 2 images of 1 photos" in text
    assert "dropped, empty label file" in text
    assert (tmp_path / "o" / "stats.json").exists()


def test_cli_names_a_folder_that_is_not_an_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["data", "import-roboflow", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "no data.yaml" in capsys.readouterr().err
