"""Label corrections applied on import: boxes renamed or dropped, each one checked against the
published label it corrects; the corrections hupai ships for the real set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hupai.cli import main
from hupai.datasets.corrections import (
    PACKAGED,
    CorrectionsError,
    corrections_for,
    export_id,
    load_corrections,
)
from hupai.datasets.labels import load_yolo_labels
from hupai.datasets.roboflow import (
    ROBOFLOW_TO_NOTATION,
    RoboflowImportError,
    import_roboflow,
    read_class_names,
)
from hupai.vision.classes import CLASS_NAMES

FIXTURE = Path(__file__).parent / "fixtures" / "roboflow-mini"
VAL = "hand_001_jpg.rf.ee8239663790be295ec00c30cbda4dec.txt"
SHIPPED = PACKAGED / "chinese-mahjong-detection-v4.json"
REAL_EXPORT = Path(__file__).resolve().parents[3] / "shared/data/chinese-mahjong-detection-v4"


def _published(line: int) -> str:
    """The fixture's val label on ``line`` (from 1), in hupai's notation."""
    names = read_class_names(FIXTURE / "data.yaml")
    cls = int((FIXTURE / "valid" / "labels" / VAL).read_text().splitlines()[line - 1].split()[0])
    return ROBOFLOW_TO_NOTATION[names[cls]]


def _corrections(tmp_path: Path, *boxes: dict[str, object]) -> Path:
    path = tmp_path / "fixes.json"
    path.write_text(json.dumps({"boxes": list(boxes)}))
    return path


def _fix(line: int, now: str | None, was: str | None = None) -> dict[str, object]:
    return {
        "file": f"valid/labels/{VAL}",
        "line": line,
        "was": was or _published(line),
        "now": now,
        "why": "test",
    }


def _val_names(out: Path) -> list[str]:
    return [CLASS_NAMES[b.cls] for b in load_yolo_labels(out / "labels" / "val" / VAL)]


def test_a_renamed_box_is_written_with_its_right_name(tmp_path: Path) -> None:
    other = "9s" if _published(2) != "9s" else "8s"
    fixes = _corrections(tmp_path, _fix(2, other))
    report = import_roboflow(FIXTURE, tmp_path / "out", corrections=fixes)
    published = import_roboflow(FIXTURE, tmp_path / "as-published", corrections=False)
    names, before = _val_names(tmp_path / "out"), _val_names(tmp_path / "as-published")
    assert names[1] == other
    assert names[:1] + names[2:] == before[:1] + before[2:]
    assert report.corrections is not None and report.corrections["renamed"] == {"val": 1}
    assert published.corrections is None


def test_a_box_corrected_away_is_not_written(tmp_path: Path) -> None:
    fixes = _corrections(tmp_path, _fix(3, None))
    report = import_roboflow(FIXTURE, tmp_path / "out", corrections=fixes)
    before = import_roboflow(FIXTURE, tmp_path / "pub", corrections=False)
    assert report.boxes["val"] == before.boxes["val"] - 1
    assert report.corrections is not None and report.corrections["dropped"] == {"val": 1}


def test_a_correction_of_another_name_is_refused_naming_the_line(tmp_path: Path) -> None:
    wrong = "1m" if _published(2) != "1m" else "2m"
    fixes = _corrections(tmp_path, _fix(2, "9p" if wrong != "9p" else "8p", was=wrong))
    with pytest.raises(
        RoboflowImportError, match=rf"{VAL} line 2 is labelled .* corrects a {wrong}"
    ):
        import_roboflow(FIXTURE, tmp_path / "out", corrections=fixes)
    assert not (tmp_path / "out").exists()


def test_a_correction_of_a_line_the_file_lacks_is_refused(tmp_path: Path) -> None:
    fixes = _corrections(tmp_path, _fix(1, "9p" if _published(1) != "9p" else "8p") | {"line": 999})
    with pytest.raises(RoboflowImportError, match="has no box on line 999"):
        import_roboflow(FIXTURE, tmp_path / "out", corrections=fixes)


def test_corrections_of_files_a_cut_of_the_export_lacks_are_counted(tmp_path: Path) -> None:
    report = import_roboflow(FIXTURE, tmp_path / "out")  # the shipped corrections, a cut export
    assert report.corrections is not None
    assert report.corrections["file"] == str(SHIPPED)
    assert report.corrections["elsewhere"] == len(load_corrections(SHIPPED).boxes)


def test_cli_imports_the_labels_as_published_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["data", "import-roboflow", str(FIXTURE), "--out", str(tmp_path / "o")]
    assert main([*args, "--no-corrections"]) == 0
    assert "label corrections: none" in capsys.readouterr().out
    assert json.loads((tmp_path / "o" / "import-report.json").read_text())["corrections"] is None


def test_cli_names_a_corrections_file_that_is_not_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "fixes.json"
    bad.write_text(
        '{"boxes": [{"file": "valid/labels/x.txt", "line": 1, "was": "10m", "now": null}]}'
    )
    args = ["data", "import-roboflow", str(FIXTURE), "--out", str(tmp_path / "o")]
    assert main([*args, "--corrections", str(bad)]) == 2
    assert "box 1: valid/labels/x.txt line 1: '10m' is not a tile name" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"file": "a", "line": 0, "was": "1m", "now": "2m"}, "numbered from 1"),
        ({"file": "a", "line": 1, "was": "1m", "now": "1m"}, "renamed 1m to itself"),
        ({"file": "a", "line": 1, "was": "1m"}, "expected file, line, was, now"),
        ({"file": "a", "line": "1", "was": "1m", "now": "2m"}, "line a number"),
    ],
)
def test_a_malformed_correction_is_named(
    tmp_path: Path, entry: dict[str, object], message: str
) -> None:
    with pytest.raises(CorrectionsError, match=message):
        load_corrections(_corrections(tmp_path, entry))


def test_a_box_corrected_twice_is_refused(tmp_path: Path) -> None:
    entry = {"file": "a", "line": 1, "was": "1m", "now": "2m"}
    with pytest.raises(CorrectionsError, match="corrected twice"):
        load_corrections(_corrections(tmp_path, entry, entry))


def test_the_shipped_corrections_are_found_for_their_export() -> None:
    assert export_id(FIXTURE / "data.yaml") == (
        "riichimahjongdetection",
        "chinese-mahjong-detection",
        4,
    )
    assert corrections_for(FIXTURE / "data.yaml") == SHIPPED


def test_the_shipped_corrections_touch_val_only_and_say_why() -> None:
    fixes = load_corrections(SHIPPED).boxes.values()
    assert fixes and all(f.file.startswith("valid/labels/") for f in fixes)  # never test
    assert all(f.why for f in fixes)


@pytest.mark.skipif(not REAL_EXPORT.is_dir(), reason="the real export is not beside the checkout")
def test_the_shipped_corrections_fit_the_real_export(tmp_path: Path) -> None:
    report = import_roboflow(REAL_EXPORT, tmp_path / "real")
    assert report.corrections is not None and report.corrections["elsewhere"] == 0
    assert report.corrections["renamed"] == {"val": 135}
    assert report.corrections["dropped"] == {"val": 4}


# -- single-tile photos (labels.csv: image,tile), found by the file's digest -----------------


def test_photo_corrections_are_found_by_the_labels_files_digest(tmp_path: Path) -> None:
    import hashlib

    from hupai.datasets.corrections import corrected_tile, photo_corrections

    labels = tmp_path / "labels.csv"
    labels.write_text("image,tile\n1.jpg,8m\n2.jpg,3p\n")
    digest = hashlib.sha256(labels.read_bytes()).hexdigest()
    fixes_dir = tmp_path / "fixes"
    fixes_dir.mkdir()
    photos = [{"image": "1.jpg", "was": "8m", "now": "8p", "why": "eight dots"}]
    (fixes_dir / "set.json").write_text(json.dumps({"labels_sha256": digest, "photos": photos}))
    fixes = photo_corrections(labels, fixes_dir)
    assert corrected_tile(fixes, "1.jpg", "8m") == "8p"
    assert corrected_tile(fixes, "2.jpg", "3p") == "3p"
    labels.write_text("image,tile\n1.jpg,8m\n")  # another file: its corrections are not these
    assert photo_corrections(labels, fixes_dir) == {}


CAMERASH = REAL_EXPORT.parent / "camerash-tiles"


@pytest.mark.skipif(not CAMERASH.is_dir(), reason="the camerash photos are not beside the checkout")
def test_the_shipped_camerash_corrections_fit_its_labels() -> None:
    import csv

    from hupai.datasets.corrections import photo_corrections

    fixes = photo_corrections(CAMERASH / "labels.csv")
    with (CAMERASH / "labels.csv").open() as f:
        published = {row["image"]: row["tile"] for row in csv.DictReader(f)}
    assert fixes and all(published[image] == was for image, (was, _) in fixes.items())
