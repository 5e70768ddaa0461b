"""Namer training crops from a YOLO folder read its classes by name."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from hupai.datasets.crops import crops_from_yolo
from hupai.datasets.labels import LabelError, load_yolo_labels

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "labelstudio"
PHOTOS = Path(__file__).resolve().parents[1] / "vision" / "fixtures" / "real"


def label_studio_yolo(root: Path) -> Path:
    """Label Studio's YOLO export of row14b (classes numbered alphabetically), with its photo."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    shutil.copy(FIXTURES / "yolo/classes.txt", root / "classes.txt")
    shutil.copy(FIXTURES / "yolo/labels/row14b.txt", root / "labels/row14b.txt")
    shutil.copy(PHOTOS / "row14b.jpg", root / "images/row14b.jpg")
    return root


def test_crops_of_a_label_studio_yolo_export_are_named_by_class_name(tmp_path: Path) -> None:
    root = label_studio_yolo(tmp_path / "ls")
    crops = crops_from_yolo(root / "images", root / "labels", negatives=False)
    expected = Counter(b.cls for b in load_yolo_labels(FIXTURES / "predicted-row14b.txt"))
    assert Counter(int(c) for c in crops.labels) == expected  # hupai's ids, not LS's


def test_a_class_id_beyond_the_names_is_an_error(tmp_path: Path) -> None:
    root = label_studio_yolo(tmp_path / "ls")
    (root / "labels/row14b.txt").write_text("99 0.5 0.5 0.1 0.1\n")
    with pytest.raises(LabelError, match="a class id beyond the 43 names"):
        crops_from_yolo(root / "images", root / "labels", negatives=False)


def test_training_refuses_a_folder_numbered_in_another_order(tmp_path: Path) -> None:
    from hupai.training.finder import write_mix_yaml

    root = label_studio_yolo(tmp_path / "ls")
    with pytest.raises(ValueError, match="hupai data import"):
        write_mix_yaml([root / "images"], root / "images", tmp_path / "mix.yaml")
