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
    report = run(_dataset(tmp_path), model=str(model), use_namer=False).report
    assert report.map50 == pytest.approx(0.995)
    assert (report.precision, report.recall, report.exact_read) == (1.0, 1.0, 1.0)


def test_a_misread_tile_is_a_confusion(tmp_path: Path) -> None:
    boxes = [(*TILES[0][0], 0, 0.9), (*TILES[1][0], 10, 0.9), (*TILES[2][0], 27, 0.9)]
    report = run(_dataset(tmp_path), model=str(fake_model(tmp_path, boxes)), use_namer=False).report
    assert report.confusions == [(9, 10, 1)]
    assert report.exact_read == 0.0


def test_cli_prints_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = fake_model(tmp_path, [(*box, c, 0.9) for box, c in TILES])
    out = tmp_path / "figures.json"
    args = ["eval", str(_dataset(tmp_path)), "--model", str(model), "--no-namer"]
    assert main([*args, "--json", str(out)]) == 0
    assert "photo exact-read 100.0%" in capsys.readouterr().out
    assert json.loads(out.read_text())["per_class"]["1z"]["boxes"] == 1


def test_a_folder_without_labels_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "photos").mkdir()
    with pytest.raises(DatasetError, match="no labels folder"):
        find_samples(tmp_path / "photos")


def test_cli_names_a_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err


# -- classes travel by name ----------------------------------------------------------------


def test_a_roboflow_data_yaml_maps_its_classes_by_name(tmp_path: Path) -> None:
    root = _dataset(tmp_path)
    # the Roboflow set's own order and codes: 1m is 'sc1', 1p 'sd1', 1z 'hwe'
    (root / "data.yaml").write_text("names: ['sd1', 'hwe', 'sc1']\nnc: 3\n")
    theirs = {0: 2, 9: 0, 27: 1}  # hupai's class → the set's class id
    lines = [f"{theirs[c]} {x / 640} {y / 640} {w / 640} {h / 640}" for (x, y, w, h), c in TILES]
    (root / "labels" / "test" / "a.txt").write_text("\n".join(lines) + "\n")
    model = fake_model(tmp_path, [(*box, c, 0.9) for box, c in TILES])
    evaluation = run(root, model=str(model), use_namer=False)
    assert evaluation.report.exact_read == 1.0
    assert "reordered" in evaluation.class_note


def test_a_class_name_hupai_does_not_know_is_an_error_that_lists_it(tmp_path: Path) -> None:
    root = _dataset(tmp_path)
    (root / "classes.txt").write_text("1m\ndragon-ish\n5p\nwidget\n")
    with pytest.raises(DatasetError, match="dragon-ish, widget"):
        run(root, model=str(fake_model(tmp_path, [])), use_namer=False)


def test_a_folder_without_names_is_read_in_hupais_order_with_a_warning(tmp_path: Path) -> None:
    model = fake_model(tmp_path, [(*box, c, 0.9) for box, c in TILES])
    evaluation = run(_dataset(tmp_path), model=str(model), use_namer=False)
    assert evaluation.class_note.startswith("warning: no data.yaml or classes.txt")


# -- the namer alone on single-tile photos ------------------------------------------------


def _tile_photos(tmp_path: Path, rows: list[tuple[str, int, str]]) -> Path:
    from PIL import Image

    folder = tmp_path / "tiles"
    (folder / "images").mkdir(parents=True)
    lines = ["image,tile"]
    for name, red, tile in rows:
        Image.new("RGB", (60, 80), (red, 30, 30)).save(folder / "images" / name)
        lines.append(f"{name},{tile}")
    (folder / "labels.csv").write_text("\n".join(lines) + "\n")
    return folder


def test_the_namer_alone_on_tile_photos(tmp_path: Path) -> None:
    from fake_models import fake_namer

    from hupai.evaluation import run_crops
    from hupai.vision.classes import class_by_name

    namer = fake_namer(tmp_path, {class_by_name("3s"): 50.0, class_by_name("7z"): 200.0})
    rows = [("a.png", 50, "3s"), ("b.png", 200, "7z"), ("c.png", 200, "3s")]
    result = run_crops(_tile_photos(tmp_path, rows), namer=str(namer))
    assert result.n == 3 and result.accuracy == pytest.approx(2 / 3)
    assert result.confusions == [(class_by_name("3s"), class_by_name("7z"), 1)]


def test_a_tile_photo_labelled_with_an_unknown_name_is_an_error(tmp_path: Path) -> None:
    from fake_models import fake_namer

    from hupai.evaluation import run_crops

    folder = _tile_photos(tmp_path, [("a.png", 50, "joker")])
    with pytest.raises(DatasetError, match="'joker' is not a tile name"):
        run_crops(folder, namer=str(fake_namer(tmp_path, {0: 50.0})))


# -- where the reading and the labels disagree (--disagreements) -----------------------------


def test_disagreements_list_a_renamed_label_by_its_line_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    boxes = [(*TILES[0][0], 0, 0.9), (*TILES[1][0], 10, 0.95), (*TILES[2][0], 27, 0.9)]
    model = fake_model(tmp_path, boxes)
    out = tmp_path / "review"
    args = ["eval", str(_dataset(tmp_path)), "--model", str(model), "--no-namer"]
    assert main([*args, "--disagreements", str(out)]) == 0
    (first, *rest) = json.loads((out / "disagreements.json").read_text())
    assert (first["kind"], first["line"], first["label"], first["read"]) == (
        "renamed",
        2,
        "1p",
        "2p",
    )
    assert first["labels"] == "labels/test/a.txt" and rest == []
    assert (out / "sheet-01.png").is_file()
    assert "1 renamed, 0 twice, 0 unlabelled, 0 unread" in capsys.readouterr().out


def test_a_tile_labelled_twice_and_a_tile_read_on_no_label_are_listed(tmp_path: Path) -> None:
    root = _dataset(tmp_path)
    label = root / "labels" / "test" / "a.txt"
    label.write_text(label.read_text() + label.read_text().splitlines()[0] + "\n")  # line 4
    extra = ((320, 520, 100, 140), 5)
    model = fake_model(tmp_path, [(*box, c, 0.9) for box, c in [*TILES, extra]])
    found = {
        (d.kind, d.line)
        for d, _ in run(root, model=str(model), use_namer=False, review=True).review
    }
    assert found == {("twice", 4), ("unlabelled", 0)}


def test_disagreements_never_write_into_a_folder_with_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "review"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    model = fake_model(tmp_path, [(*box, c, 0.9) for box, c in TILES])
    args = ["eval", str(_dataset(tmp_path)), "--model", str(model), "--no-namer"]
    assert main([*args, "--disagreements", str(out)]) == 2
    assert "is not an empty folder" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]
