"""``hupai data import`` on real Label Studio 1.23.2 exports (fixtures/labelstudio/README.md):
classes by name, the latest annotation, unannotated tasks reported, what changed against the
model, the round trip, and the outputs checked with the tools that read them."""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from hupai.cli import main
from hupai.datasets.importing import import_labels
from hupai.datasets.labels import LabelError, load_yolo_labels
from hupai.vision.classes import CLASS_NAMES

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "labelstudio"
PHOTOS = Path(__file__).resolve().parents[1] / "vision" / "fixtures" / "real"


def names(label: Path) -> list[str]:
    return sorted(CLASS_NAMES[b.cls] for b in load_yolo_labels(label))


def test_json_export_takes_the_latest_annotation_and_reports_the_unannotated(
    tmp_path: Path,
) -> None:
    report = import_labels(FIXTURES / "export.json", tmp_path / "d", images=PHOTOS)
    assert sorted(report.images) == ["images/train/row14a.jpg", "images/train/row14b.jpg"]
    assert report.not_annotated == ["/data/local-files/?d=images/row14c.jpg"]
    a = names(tmp_path / "d/labels/train/row14a.txt")
    assert "5z" in a and "6z" not in a and "9p" in a  # the later annotation, with its added box
    assert report.changes is None  # this export lists predictions by id only


def test_the_model_boxes_from_hupai_label_give_the_changes_per_class(tmp_path: Path) -> None:
    report = import_labels(
        FIXTURES / "export.json",
        tmp_path / "d",
        images=PHOTOS,
        predictions=FIXTURES / "tasks.json",
    )
    assert report.changes is not None
    c = report.changes.to_dict()
    assert (c["images_compared"], c["images_changed"]) == (2, 1)
    assert (c["boxes_renamed"], c["boxes_removed"], c["boxes_added"]) == (1, 1, 1)
    assert c["boxes_kept"] == 26
    assert c["added_by_class"] == {"9p": 1}
    assert c["renamed"][0]["to"] == "5z"
    saved = json.loads((tmp_path / "d/import-report.json").read_text())
    assert saved["changes"]["boxes_added"] == 1


def test_json_min_gives_the_same_boxes_as_json(tmp_path: Path) -> None:
    import_labels(FIXTURES / "export.json", tmp_path / "a", images=PHOTOS)
    report = import_labels(FIXTURES / "export-min.json", tmp_path / "b", images=PHOTOS)
    assert report.format == "labelstudio-min"
    assert report.not_annotated == ["/data/local-files/?d=images/row14c.jpg"]
    for name in ("row14a", "row14b"):
        a = load_yolo_labels(tmp_path / f"a/labels/train/{name}.txt")
        b = load_yolo_labels(tmp_path / f"b/labels/train/{name}.txt")
        assert [x.cls for x in a] == [x.cls for x in b]
        for x, y in zip(a, b, strict=True):
            assert max(abs(u - v) for u, v in zip(x.xyxy, y.xyxy, strict=True)) < 1e-6


def test_yolo_export_classes_are_mapped_by_name_not_by_id(tmp_path: Path) -> None:
    # Label Studio numbers classes alphabetically (1f 1m 1p …): id 29 is 6z there, 1m-9m are
    # 0-8 in hupai. Measured: with two annotations its YOLO file keeps the *earlier* one.
    assert (FIXTURES / "yolo/classes.txt").read_text().split()[:3] == ["1f", "1m", "1p"]
    report = import_labels(FIXTURES / "yolo", tmp_path / "d", images=PHOTOS)
    assert report.format == "yolo"
    assert names(tmp_path / "d/labels/train/row14b.txt") == names(
        FIXTURES / "predicted-row14b.txt"
    )  # task 2 accepted as predicted: hupai's ids again, by name
    assert "6z" in names(tmp_path / "d/labels/train/row14a.txt")
    assert report.empty == ["row14c"]  # the unannotated task: an empty file, skipped


def test_coco_export_skips_a_photo_listed_once_per_annotation(tmp_path: Path) -> None:
    report = import_labels(FIXTURES / "coco", tmp_path / "d", images=PHOTOS)
    assert report.format == "coco"
    assert report.ambiguous == ["row14a.jpg"]
    assert report.images == ["images/train/row14b.jpg"]
    assert report.empty == ["../lsdemo/out/images/row14c.jpg"]
    assert names(tmp_path / "d/labels/train/row14b.txt") == names(FIXTURES / "predicted-row14b.txt")


def test_a_downloaded_zip_is_read_like_the_folder(tmp_path: Path) -> None:
    archive = tmp_path / "project-1-yolo.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in (FIXTURES / "yolo").rglob("*"):
            if f.is_file():
                z.write(f, f.relative_to(FIXTURES / "yolo").as_posix())
    report = import_labels(archive, tmp_path / "d", images=PHOTOS)
    assert len(report.images) == 2


def test_the_round_trip_label_edit_import_keeps_boxes_and_names(tmp_path: Path) -> None:
    # task 2 was accepted as predicted: the imported label equals hupai label's own
    import_labels(FIXTURES / "export.json", tmp_path / "d", images=PHOTOS)
    ours = load_yolo_labels(FIXTURES / "predicted-row14b.txt")
    back = load_yolo_labels(tmp_path / "d/labels/train/row14b.txt")
    assert sorted((b.cls, tuple(round(v, 4) for v in b.xyxy)) for b in back) == sorted(
        (b.cls, tuple(round(v, 4) for v in b.xyxy)) for b in ours
    )


def test_photos_not_found_are_named_with_the_fix(tmp_path: Path) -> None:
    with pytest.raises(LabelError, match="give --images DIR"):
        import_labels(FIXTURES / "export.json", tmp_path / "d", images=tmp_path)


def test_nothing_in_the_output_is_replaced_without_overwrite(tmp_path: Path) -> None:
    import_labels(FIXTURES / "export.json", tmp_path / "d", images=PHOTOS)
    with pytest.raises(LabelError, match="add --overwrite"):
        import_labels(FIXTURES / "export.json", tmp_path / "d", images=PHOTOS)
    import_labels(FIXTURES / "export.json", tmp_path / "d", images=PHOTOS, overwrite=True)


def test_an_unknown_class_name_is_listed(tmp_path: Path) -> None:
    folder = tmp_path / "yolo"
    shutil.copytree(FIXTURES / "yolo", folder)
    text = (folder / "classes.txt").read_text().replace("1f\n", "joker\n", 1)
    (folder / "classes.txt").write_text(text)
    with pytest.raises(LabelError, match="class names hupai does not know: joker"):
        import_labels(folder, tmp_path / "d", images=PHOTOS)


def test_linked_photos_are_relative(tmp_path: Path) -> None:
    import os

    import_labels(FIXTURES / "export.json", tmp_path / "d", images=PHOTOS, link=True)
    link = tmp_path / "d/images/train/row14a.jpg"
    assert link.is_symlink() and not os.path.isabs(os.readlink(link))
    assert link.resolve() == (PHOTOS / "row14a.jpg").resolve()


def test_the_command_prints_the_changes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "data", "import", str(FIXTURES / "export.json"), "--out", str(tmp_path / "d"),
            "--images", str(PHOTOS), "--predictions", str(FIXTURES / "tasks.json"),
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "not annotated (skipped): 1" in out
    assert "boxes kept 26, added 1, removed 1, renamed 1" in out


def test_the_imported_dataset_passes_ultralytics_own_check(tmp_path: Path) -> None:
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("ultralytics") is None:
        pytest.skip("ultralytics is not installed (the train extra)")
    import_labels(FIXTURES / "export.json", tmp_path / "d", images=PHOTOS)
    moved = tmp_path / "moved"
    shutil.move(str(tmp_path / "d"), moved)  # relative paths: it still checks after a move
    # in its own process: importing ultralytics patches PIL for the whole process
    check = (
        "import json, sys; from ultralytics.data.utils import check_det_dataset; "
        "d = check_det_dataset(sys.argv[1]); print(json.dumps([d['nc'], str(d['train'])]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", check, str(moved / "data.yaml")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "YOLO_OFFLINE": "1"},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    nc, train = json.loads(done.stdout.strip().splitlines()[-1])
    assert nc == len(CLASS_NAMES)
    assert Path(train).resolve() == (moved / "images/train").resolve()


def test_the_imported_dataset_is_measured_by_hupai_eval(tmp_path: Path) -> None:
    from hupai.evaluation import dataset_class_map

    import_labels(FIXTURES / "export.json", tmp_path / "d", images=PHOTOS)
    ids, note = dataset_class_map(tmp_path / "d", "train")
    assert ids == list(range(len(CLASS_NAMES))) and "classes by name" in note


def test_a_yolo_folder_without_names_is_read_in_hupais_order_with_a_warning(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "plain"
    (folder / "labels").mkdir(parents=True)
    shutil.copy(FIXTURES / "predicted-row14b.txt", folder / "labels/row14b.txt")
    report = import_labels(folder, tmp_path / "d", images=PHOTOS)
    assert report.classes.startswith("warning: no data.yaml or classes.txt")
    assert names(tmp_path / "d/labels/train/row14b.txt") == names(FIXTURES / "predicted-row14b.txt")
