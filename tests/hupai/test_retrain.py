"""``hupai retrain``'s steps that need no torch: which photos are held out, the folders it
trains on, the table, and what it refuses."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hupai.labeling.retrain import RetrainError, corrected_photos, split_photos, write_yolo
from hupai.vision.classes import CLASS_NAMES

REAL = Path(__file__).resolve().parents[1] / "vision" / "fixtures" / "real"


def corrected(folder: Path, photos: dict[str, list[str]], names: list[str] | None = None) -> Path:
    """A folder as `hupai data import` writes it: photos by split, labels, classes.txt."""
    for split, stems in photos.items():
        (folder / "images" / split).mkdir(parents=True)
        (folder / "labels" / split).mkdir(parents=True)
        for stem in stems:
            shutil.copy(REAL / "row14a.jpg", folder / "images" / split / f"{stem}.jpg")
            (folder / "labels" / split / f"{stem}.txt").write_text("1 0.5 0.5 0.1 0.2\n")
    (folder / "classes.txt").write_text("\n".join(names or CLASS_NAMES) + "\n")
    return folder


def test_photos_imported_as_test_are_the_held_out_part(tmp_path: Path) -> None:
    folder = corrected(tmp_path / "c", {"train": ["a", "b"], "test": ["t"]})
    split = split_photos([folder], 0.2, seed=0)
    assert [p.name for p, _ in split.held_out] == ["t.jpg"]
    assert [p.name for p, _ in split.train] == ["a.jpg", "b.jpg"]


def test_without_val_or_test_a_fifth_is_held_out(tmp_path: Path) -> None:
    folder = corrected(tmp_path / "c", {"train": [f"p{k}" for k in range(10)]})
    split = split_photos([folder], 0.2, seed=0)
    assert (len(split.train), len(split.held_out)) == (8, 2)


def test_the_held_out_part_depends_on_the_names_and_seed_only(tmp_path: Path) -> None:
    names = [f"p{k}" for k in range(10)]
    a = split_photos([corrected(tmp_path / "a", {"train": names})], 0.2, seed=0)
    b = split_photos([corrected(tmp_path / "b", {"train": names[::-1]})], 0.2, seed=0)
    assert [p.name for p, _ in a.held_out] == [p.name for p, _ in b.held_out]


def test_several_folders_are_pooled(tmp_path: Path) -> None:
    a = corrected(tmp_path / "a", {"train": ["x", "y"]})
    b = corrected(tmp_path / "b", {"train": ["x", "z"]})
    split = split_photos([a, b], 0.25, seed=0)
    assert len(split.train) + len(split.held_out) == 4


def test_labels_are_rewritten_in_hupais_order(tmp_path: Path) -> None:
    alphabetical = sorted(CLASS_NAMES)  # Label Studio's YOLO export numbers classes so
    folder = corrected(tmp_path / "c", {"train": ["a"]}, names=alphabetical)
    pairs = corrected_photos(folder)["train"]
    root = write_yolo(pairs, tmp_path / "w", "train")
    (label,) = (root / "labels" / "train").iterdir()
    assert label.read_text().split()[0] == str(CLASS_NAMES.index(alphabetical[1]))


def test_a_folder_that_is_no_import_is_named(tmp_path: Path) -> None:
    with pytest.raises(RetrainError, match="no images/ folder"):
        corrected_photos(tmp_path)


def test_a_single_photo_leaves_nothing_to_train_on(tmp_path: Path) -> None:
    folder = corrected(tmp_path / "c", {"train": ["only"]})
    with pytest.raises(RetrainError, match="no photo left to train on"):
        split_photos([folder], 0.2, seed=0)
