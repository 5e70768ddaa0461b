"""``hupai label``: a folder of real photos (plus a broken file and a note) labelled into every
format, checked file by file; resume, edits a person made, workers, Ray.

The detector is a tiny ONNX model that always outputs the same 14 boxes (a winning hand,
123m456p789s11222z with the 2z set apart), so that every format's content is known exactly
while the photos, decoding, sessions and processes are real.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hupai.datasets.coco import load_coco
from hupai.datasets.image_labels import to_yolo_boxes
from hupai.datasets.labels import format_yolo_line, load_yolo_labels
from hupai.datasets.labelstudio import load_labelstudio
from hupai.labeling import LabelOptions, Store, run_label_job
from hupai.vision.classes import CLASS_NAMES

pytest.importorskip("onnx")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))  # the fake models
from fake_models import fake_model

TESTS = Path(__file__).resolve().parent.parent
REAL = sorted(TESTS.glob("*/fixtures/**/*.jpg"))  # credited Roboflow photos, 640×640
HAND = [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 27, 28, 28]  # 123m456p789s11222 z…
BOXES = [(60 + 36 * k, 320, 34, 46, c, 0.9) for k, c in enumerate(HAND)]
BOXES.append((60 + 36 * 13 + 14, 320, 34, 46, 28, 0.9))  # the winning 2z, set apart
FIRST_LINE_SQUARE = "0 0.093750 0.500000 0.053125 0.071875"  # 60/640, 320/640, 34/640, 46/640
FIRST_LINE_WIDE = "0 0.093750 0.500000 0.053125 0.143750"  # 960×480: letterboxed ×2/3, 160 px pad


def make_photos(folder: Path, n: int = len(REAL)) -> Path:
    """Real photos (some in a subfolder), one resized to 960×480, a broken JPEG, a note."""
    from PIL import Image

    (folder / "sub").mkdir(parents=True)
    for i, src in enumerate(REAL[:n]):
        shutil.copy(src, (folder / "sub" if i % 2 else folder) / f"hand{i}.jpg")
    with Image.open(REAL[0]) as im:
        im.resize((960, 480)).save(folder / "wide.jpg", quality=90)
    (folder / "broken.jpg").write_bytes(REAL[0].read_bytes()[:3000])  # a cut-off JPEG
    (folder / "notes.txt").write_text("taken at the club, March\n")
    return folder


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fake_model(tmp_path_factory.mktemp("model"), BOXES)


@pytest.fixture(scope="module")
def labelled(tmp_path_factory: pytest.TempPathFactory, model: Path) -> dict[str, Any]:
    """One run of the command over the folder, every format, previews, scoring."""
    from hupai.cli import main

    root = tmp_path_factory.mktemp("label")
    photos = make_photos(root / "photos")
    context = root / "context.json"
    context.write_text(json.dumps({"win": "self_draw", "photos": {"wide.jpg": {"winner": 2}}}))
    out = root / "out"
    args = ["label", str(photos), "--out", str(out), "--model", str(model), "--workers", "1"]
    args.append("--no-namer")  # the fake detector names the tiles
    args += ["--previews", "--city", "shaanxi", "--winner", "0", "--context", str(context)]
    rc = main([*args, "--quiet"])
    return {"rc": rc, "photos": photos, "out": out, "model": model}


def _photo_names() -> list[str]:
    names = [f"{'sub/' if i % 2 else ''}hand{i}.jpg" for i in range(len(REAL))]
    return sorted([*names, "wide.jpg"])


# -- one run: every format's content -----------------------------------------------------


def test_run_reports_the_broken_file_and_the_note_and_goes_on(labelled: dict[str, Any]) -> None:
    report = json.loads((labelled["out"] / "report.json").read_text())
    assert labelled["rc"] == 1  # some photos could not be read
    assert report["photos"] == len(REAL) + 2 and report["labelled"] == len(REAL) + 1
    ((failed),) = report["failed"]
    assert failed["photo"] == "broken.jpg" and "cannot read the image" in failed["error"]
    assert report["not_photos"] == ["notes.txt"]
    assert report["kept"] == []


def test_yolo_layout(labelled: dict[str, Any]) -> None:
    out, photos = labelled["out"], labelled["photos"]
    labels = sorted(p.relative_to(out / "labels").as_posix() for p in out.glob("labels/**/*.txt"))
    assert labels == [n.replace(".jpg", ".txt") for n in _photo_names()]
    lines = (out / "labels/sub/hand1.txt").read_text().splitlines()
    assert len(lines) == 14 and lines[0] == FIRST_LINE_SQUARE
    assert (out / "labels/wide.txt").read_text().splitlines()[0] == FIRST_LINE_WIDE
    # images/ mirrors the folder with links to the photos themselves
    assert (out / "images/sub/hand1.jpg").is_symlink()
    assert (out / "images/sub/hand1.jpg").resolve() == (photos / "sub/hand1.jpg").resolve()
    assert not (out / "images/broken.jpg").exists()
    yaml = (out / "data.yaml").read_text()
    assert "\npath:" not in yaml and "\ntrain: images" in yaml and "nc: 43" in yaml
    assert (out / "classes.txt").read_text().splitlines() == list(CLASS_NAMES)


def test_the_output_and_its_photos_move_together(labelled: dict[str, Any], tmp_path: Path) -> None:
    import os
    import shutil

    out, photos = labelled["out"], labelled["photos"]
    assert not os.path.isabs(os.readlink(out / "images/sub/hand1.jpg"))  # a relative link
    assert out.parent == photos.parent
    moved = tmp_path / "elsewhere"  # both folders moved (copied, links kept as links)
    shutil.copytree(out.parent, moved, symlinks=True)
    link = moved / out.name / "images/sub/hand1.jpg"
    assert link.is_symlink() and link.resolve() == (moved / photos.name / "sub/hand1.jpg")


def test_the_report_ranks_the_photos_for_review_doubtful_first(labelled: dict[str, Any]) -> None:
    report = json.loads((labelled["out"] / "report.json").read_text())
    review = report["review"]
    assert sorted(r["photo"] for r in review) == _photo_names()
    assert [r["score"] for r in review] == sorted(r["score"] for r in review)
    assert all((r["score"] >= 0.5) == r["confident"] for r in review)
    assert all(r["doubts"] or r["confident"] or r["score"] == 0.0 for r in review)


def test_the_report_says_why_tiles_are_marked_for_review(labelled: dict[str, Any]) -> None:
    review = json.loads((labelled["out"] / "report.json").read_text())["review"]
    reasons = {"name", "clutter", "doubled", "warned"}
    assert all(set(r["marked"]) <= reasons for r in review)
    assert all(n > 0 for r in review for n in r["marked"].values())


def test_marked_tiles_are_counted_by_why() -> None:
    import numpy as np

    from hupai.labeling.outputs import marked_tiles
    from hupai.vision.detections import Detections
    from hupai.vision.reading import NamedTiles, build_reading

    hand = [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 27, 28, 28, 28]
    xy = [[60 + 36 * k, 300, 60 + 36 * k + 34, 346] for k in range(len(hand))]
    p = [0.99] * len(hand)
    p[2] = p[5] = 0.7  # two unsure names
    box = np.array([0.9] * len(hand))
    box[8] = 0.2  # a box the finder doubts: maybe clutter
    det = Detections.make(xy, hand, p)
    alt = np.array([[c, 0, 0] for c in hand], np.int64)
    names = NamedTiles(det, alt, np.array([[q, 0, 0] for q in p]), box, 0.85, None)
    reading = build_reading(det, None, 0.0, (800, 600), names=names)
    assert marked_tiles(reading) == {"name": 2, "clutter": 1}


def test_a_label_studio_task_scores_like_its_photos_review(labelled: dict[str, Any]) -> None:
    out = labelled["out"]
    review = {
        r["photo"]: r["score"] for r in json.loads((out / "report.json").read_text())["review"]
    }
    tasks = json.loads((out / "labelstudio.json").read_text())
    assert {t["data"]["photo"]: t["predictions"][0]["score"] for t in tasks} == review


def test_labelstudio_tasks_round_trip_to_the_yolo_labels(labelled: dict[str, Any]) -> None:
    out = labelled["out"]
    tasks = json.loads((out / "labelstudio.json").read_text())
    assert [t["data"]["photo"] for t in tasks] == _photo_names()
    task = tasks[0]
    assert task["data"]["image"] == "/data/local-files/?d=images/hand0.jpg"
    (pred,) = task["predictions"]
    # the task's score is the photo's review score (confident: 0.5 and up), each box's its own
    assert pred["model_version"] == "fake 0" and pred["score"] == 0.95
    first = pred["result"][0]
    assert first["value"]["rectanglelabels"] == ["1m"] and first["score"] == 0.9
    assert first["original_width"] == 640 and first["value"]["x"] == pytest.approx(43 / 6.4)
    for item in load_labelstudio(out / "labelstudio.json"):
        stem = item.image.split("?d=images/")[1].rsplit(".", 1)[0]
        assert [format_yolo_line(b) for b in to_yolo_boxes(item)] == (
            out / f"labels/{stem}.txt"
        ).read_text().splitlines()
    config = (out / "labelstudio-config.xml").read_text()
    assert config.count("<Label ") == 43 and 'toName="image"' in config


def test_coco_json(labelled: dict[str, Any]) -> None:
    out = labelled["out"]
    data = json.loads((out / "coco.json").read_text())
    images = {im["file_name"]: im for im in data["images"]}
    assert sorted(images) == _photo_names()
    assert (images["wide.jpg"]["width"], images["wide.jpg"]["height"]) == (960, 480)
    wide = [a for a in data["annotations"] if a["image_id"] == images["wide.jpg"]["id"]]
    assert len(wide) == 14 and len(data["annotations"]) == 14 * len(images)
    first = min(wide, key=lambda a: a["bbox"][0])
    assert first["bbox"] == pytest.approx([64.5, 205.5, 51.0, 69.0])  # (60±17, 320±23 - 160) × 1.5
    assert first["category_id"] == 1 and first["score"] == 0.9
    assert data["categories"][42] == {"id": 43, "name": "back", "supercategory": "back"}
    for item in load_coco(out / "coco.json"):
        lines = (out / "labels" / item.image).with_suffix(".txt").read_text().splitlines()
        yolo = [format_yolo_line(b) for b in to_yolo_boxes(item)]
        assert len(yolo) == len(lines) and all(
            np.allclose([float(v) for v in a.split()], [float(v) for v in b.split()], atol=1e-5)
            for a, b in zip(yolo, lines, strict=True)
        )


def test_readings_with_scores(labelled: dict[str, Any]) -> None:
    import csv

    out = labelled["out"]
    rows = [json.loads(line) for line in (out / "readings.jsonl").read_text().splitlines()]
    assert [r["photo"] for r in rows] == _photo_names()
    by = {r["photo"]: r for r in rows}
    r = by["hand0.jpg"]
    assert (r["hand"], r["win_tile"], r["warnings"]) == ("123m456p789s11222z", "2z", [])
    assert r["score"]["result"]["valid"] is True and r["score"]["request"]["winner"] == 0
    # the score says whether it can be trusted, as `hupai score --photo` does
    assert (r["score"]["confident"], r["score"]["doubts"], r["score"]["settled"]) == (True, [], [])
    deltas = r["score"]["result"]["deltas"]
    assert sum(deltas) == 0 and deltas[0] == max(deltas)
    wide = by["wide.jpg"]["score"]["result"]["deltas"]  # the context file's seat for this photo
    assert wide[2] == max(wide) and by["wide.jpg"]["score"]["request"]["winner"] == 2
    table = list(csv.DictReader((out / "readings.csv").open()))
    assert [t["photo"] for t in table] == _photo_names()
    assert table[0]["hand"] == "123m456p789s11222z" and table[0]["tiles"] == "14"
    assert table[0]["valid"] == "True" and table[0]["deltas"] == " ".join(map(str, deltas))


def test_previews_are_contact_sheets(labelled: dict[str, Any]) -> None:
    import cv2

    sheet = cv2.imread(str(labelled["out"] / "previews/sheet-001.jpg"))
    assert sheet is not None and sheet.shape[1] == 1600 and sheet.shape[0] >= 2 * 300


# -- resume, edits, interruptions ---------------------------------------------------------


def _run(photos: Path, out: Path, model: Path, **kw: Any) -> Any:
    kw.setdefault("no_namer", True)
    return run_label_job(LabelOptions(photos=photos, out=out, model=str(model), **kw))


def test_rerun_skips_done_photos_keeps_edited_labels_restores_missing_ones(
    tmp_path: Path, model: Path
) -> None:
    photos, out = make_photos(tmp_path / "photos", n=3), tmp_path / "out"
    first = _run(photos, out, model)
    assert first.labelled == 4
    edited = out / "labels/hand0.txt"
    edited.write_text("0 0.5 0.5 0.1 0.1\n")  # a person's correction
    (out / "labels/wide.txt").unlink()  # gone: rewritten (deleting is not editing)
    shutil.copy(REAL[3], photos / "new.jpg")
    again = _run(photos, out, model)
    assert (again.labelled, again.already_done) == (1, 4)  # only the new photo is read
    assert edited.read_text() == "0 0.5 0.5 0.1 0.1\n"
    assert again.kept == [{"path": "labels/hand0.txt", "reason": "changed since hupai wrote it"}]
    assert (out / "labels/wide.txt").read_text().splitlines()[0] == FIRST_LINE_WIDE
    assert (out / "labels/new.txt").is_file()
    forced = _run(photos, out, model, overwrite=True)
    assert forced.labelled == 0 and forced.kept == []
    assert edited.read_text().splitlines()[0] == FIRST_LINE_SQUARE


def test_a_label_file_not_written_by_hupai_is_kept(tmp_path: Path, model: Path) -> None:
    photos, out = make_photos(tmp_path / "photos", n=1), tmp_path / "out"
    (out / "labels").mkdir(parents=True)
    (out / "labels/hand0.txt").write_text("5 0.5 0.5 0.2 0.2\n")
    report = _run(photos, out, model, formats=("yolo",))
    assert load_yolo_labels(out / "labels/hand0.txt")[0].cls == 5
    assert report.kept == [{"path": "labels/hand0.txt", "reason": "not written by hupai"}]


def test_an_edited_collected_file_is_kept_and_the_new_one_written_beside(
    tmp_path: Path, model: Path
) -> None:
    photos, out = make_photos(tmp_path / "photos", n=1), tmp_path / "out"
    _run(photos, out, model, formats=("coco",))
    data = json.loads((out / "coco.json").read_text())
    data["annotations"] = data["annotations"][:3]  # a person pruned it
    (out / "coco.json").write_text(json.dumps(data))
    shutil.copy(REAL[1], photos / "more.jpg")
    report = _run(photos, out, model, formats=("coco",))
    assert len(json.loads((out / "coco.json").read_text())["annotations"]) == 3
    assert report.kept[0]["new"] == "coco.new.json"
    assert len(json.loads((out / "coco.new.json").read_text())["images"]) == 3


def test_an_interrupted_run_resumes_where_it_stopped(
    tmp_path: Path, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hupai.labeling.read as labeling  # the engines call it through this module

    photos, out = make_photos(tmp_path / "photos", n=3), tmp_path / "out"
    real, calls = labeling.label_photo, []

    def dies_on_the_third(*args: Any, **kw: Any) -> dict[str, Any]:
        calls.append(args[1])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kw)

    monkeypatch.setattr(labeling, "label_photo", dies_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        _run(photos, out, model)
    monkeypatch.setattr(labeling, "label_photo", real)
    assert not (out / ".hupai/lock").exists()
    assert not list(out.glob("**/.*.tmp"))  # no half-written file
    resumed = _run(photos, out, model)
    # read before the stop: broken.jpg (unreadable: tried again) and hand0.jpg (done)
    assert calls[:2] == ["broken.jpg", "hand0.jpg"]
    assert (resumed.labelled, resumed.already_done, len(resumed.failed)) == (3, 1, 1)
    assert resumed.kept == []  # the labels of the first run are recognised as hupai's


def test_journal_replays_what_a_killed_run_did_not_commit(tmp_path: Path) -> None:
    store = Store.open(tmp_path)
    store.put_photo("a.jpg", {"sha256": "x"})
    store.wrote("labels/a.txt", "h1")
    assert store._journal is not None
    store._journal.write('{"photo": "b.jpg", "ent')  # the line a kill cut short
    store._journal.flush()
    again = Store.open(tmp_path)  # no commit happened: everything comes from the journal
    assert list(again.photos) == ["a.jpg"] and again.ours("labels/a.txt", "h1")


def test_changed_model_threshold_rereads_the_photos(tmp_path: Path, model: Path) -> None:
    photos, out = make_photos(tmp_path / "photos", n=1), tmp_path / "out"
    _run(photos, out, model, formats=("yolo",))
    assert _run(photos, out, model, formats=("yolo",), conf=0.95).labelled == 2
    assert (out / "labels/hand0.txt").read_text() == ""  # 0.9 boxes are below 0.95


def test_a_changed_namer_rereads_the_photos(tmp_path: Path, model: Path) -> None:
    from fake_models import fake_namer

    photos, out = make_photos(tmp_path / "photos", n=1), tmp_path / "out"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = str(fake_namer(tmp_path / "a", {0: 128.0}))
    second = str(fake_namer(tmp_path / "b", {1: 128.0}))
    _run(photos, out, model, formats=("yolo",), no_namer=False, namer=first)
    assert _run(photos, out, model, formats=("yolo",), no_namer=False, namer=first).labelled == 0
    assert _run(photos, out, model, formats=("yolo",), no_namer=False, namer=second).labelled == 2


def test_a_namer_whose_manifest_changed_rereads_the_photos(tmp_path: Path, model: Path) -> None:
    """The same ONNX, another calibration (or another partner named): other readings."""
    import json

    from fake_models import fake_namer

    photos, out = make_photos(tmp_path / "photos", n=1), tmp_path / "out"
    namer = fake_namer(tmp_path, {0: 128.0})
    _run(photos, out, model, formats=("yolo",), no_namer=False, namer=str(namer))
    manifest = json.loads(namer.with_suffix(".json").read_text())
    manifest["calibration"] = {"temperature": 2.0, "check_below": 0.5}
    namer.with_suffix(".json").write_text(json.dumps(manifest))
    assert (
        _run(photos, out, model, formats=("yolo",), no_namer=False, namer=str(namer)).labelled == 2
    )


def test_photos_read_under_earlier_reading_rules_are_read_again(
    tmp_path: Path, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hupai.labeling.job as job

    photos, out = make_photos(tmp_path / "photos", n=1), tmp_path / "out"
    monkeypatch.setattr(job, "READER_RULES", job.READER_RULES - 1)
    _run(photos, out, model, formats=("yolo",))
    monkeypatch.undo()
    assert _run(photos, out, model, formats=("yolo",)).labelled == 2


# -- other layouts --------------------------------------------------------------------------


def test_photos_already_in_out_images_are_labelled_in_place(tmp_path: Path, model: Path) -> None:
    out = tmp_path / "data"
    photos = make_photos(out / "images", n=1)
    report = _run(photos, out, model, formats=("yolo",))
    assert report.labelled == 2 and (out / "labels/hand0.txt").is_file()
    assert not (out / "images/hand0.jpg").is_symlink()


def test_copies_and_clashing_names(tmp_path: Path, model: Path) -> None:
    from PIL import Image

    photos, out = tmp_path / "photos", tmp_path / "out"
    photos.mkdir()
    shutil.copy(REAL[0], photos / "a.jpg")
    with Image.open(REAL[1]) as im:
        im.save(photos / "a.png")
    _run(photos, out, model, formats=("yolo",), images="copy")
    assert (out / "labels/a.txt").is_file() and (out / "labels/a_png.txt").is_file()
    assert (out / "images/a_png.png").is_file() and not (out / "images/a.jpg").is_symlink()
    assert (out / "images/a.jpg").read_bytes() == (photos / "a.jpg").read_bytes()


# -- workers and Ray: the same outputs ------------------------------------------------------


def _outputs(out: Path) -> dict[str, bytes]:
    names = ["coco.json", "labelstudio.json", "readings.csv"]
    files = {n: (out / n).read_bytes() for n in names}
    files.update({p.name: p.read_bytes() for p in out.glob("labels/**/*.txt")})
    return files


def test_two_worker_processes_write_what_one_writes(tmp_path: Path, model: Path) -> None:
    photos = make_photos(tmp_path / "photos", n=4)
    one = _run(photos, tmp_path / "one", model)
    two = _run(photos, tmp_path / "two", model, workers=2)
    assert two.labelled == one.labelled == 5 and len(two.failed) == 1
    assert _outputs(tmp_path / "two") == _outputs(tmp_path / "one")


def test_ray_engine_on_a_local_ray_instance(
    tmp_path: Path, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ray = pytest.importorskip("ray", reason="Ray is not installed (the 'ray' extra)")
    photos = make_photos(tmp_path / "photos", n=2)
    one = _run(photos, tmp_path / "one", model)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # a throwaway local instance
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        report = _run(photos, tmp_path / "ray", model, engine="ray", workers=2)
    finally:
        ray.shutdown()
    assert report.labelled == one.labelled == 3 and report.failed == one.failed
    assert _outputs(tmp_path / "ray") == _outputs(tmp_path / "one")


# -- the command's errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--format", "yolo,voc"], "'voc' is not a format"),
        (["--city", "shaanxi"], "--city shaanxi needs the table context: --winner, --win"),
        (["--winner", "1"], "needs --city"),
        (["--city", "paris", "--winner", "0", "--win", "self_draw"], "'paris' is not a known"),
        (["--conf", "1.5"], "between 0 and 1"),
        (["--workers", "0"], "--workers 0: need at least one"),
    ],
)
def test_command_errors_are_one_line(
    tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    from hupai.cli import main

    (tmp_path / "photos").mkdir()
    args = ["label", str(tmp_path / "photos"), "--out", str(tmp_path / "out")]
    assert main([*args, "--model", str(model), "--no-namer", *extra]) == 2
    assert message in capsys.readouterr().err


def test_folder_errors(tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hupai.cli import main

    photos = make_photos(tmp_path / "photos", n=1)
    base = ["--model", str(model), "--no-namer", "--quiet"]
    assert main(["label", str(tmp_path / "nope"), "--out", str(tmp_path / "o"), *base]) == 2
    assert "nope: no such folder" in capsys.readouterr().err
    assert main(["label", str(photos), "--out", str(photos), *base]) == 2
    assert "is the photos folder" in capsys.readouterr().err
    busy = tmp_path / "busy"
    (busy / ".hupai").mkdir(parents=True)
    (busy / ".hupai/lock").write_text(str(os.getppid()))  # a live process holds it
    assert main(["label", str(photos), "--out", str(busy), *base]) == 2
    assert "another hupai label" in capsys.readouterr().err


# -- with a namer ----------------------------------------------------------------------------


@pytest.mark.parametrize("workers", [1, 2])
def test_a_namer_names_the_boxes_and_its_alternatives_reach_the_readings(
    tmp_path: Path, workers: int
) -> None:
    from fake_models import fake_namer

    finder = fake_model(tmp_path, [(*b[:4], 0, b[5]) for b in BOXES], names=("tile",))
    namer = fake_namer(tmp_path, {c: 10.0 + 15 * k for k, c in enumerate(range(0, 34, 2))})
    photos = make_photos(tmp_path / "photos", n=2)
    report = _run(
        photos, tmp_path / "out", finder, namer=str(namer), no_namer=False, workers=workers
    )
    assert report.labelled == 3
    rows = [json.loads(line) for line in (tmp_path / "out" / "readings.jsonl").open()]
    for row in rows:
        alternatives = row["detections"]["alternatives"]
        assert len(alternatives) == len(row["detections"]["class_id"]) > 0
        assert all(
            a[0]["tile"] == name
            for a, name in zip(alternatives, row["detections"]["class_name"], strict=True)
        )
        assert all(a["tile"] in CLASS_NAMES[0:34:2] for a in alternatives[0])


def test_a_ray_worker_rebuilds_the_shipped_namer_with_its_partners() -> None:
    """A Ray actor gets the namer's files as bytes: the blend, gate, bonus or bird reader its
    manifest names travels too (without it the actor could not open the shipped namer)."""
    from hupai.labeling.engines import RayLabeller, namer_files
    from hupai.vision.detector import SHIPPED_MODELS, models_in
    from hupai.vision.namer import Namer

    finder, namer = models_in(SHIPPED_MODELS)
    shipped = Namer(namer)
    partners = [
        p.path.name
        for p in (shipped.blend, shipped.gate, shipped.bonus, shipped.bird, shipped.bird_others)
        if p
    ]
    files = namer_files(namer)
    assert {namer.name, *partners} <= set(files)
    blob = {"onnx": finder.read_bytes(), "json": finder.with_suffix(".json").read_bytes()}
    actor = RayLabeller(
        {**blob, "namer": namer.name.encode(), "namer_files": files}, 1, 0.25, False
    )
    assert actor.namer is not None
    assert (actor.namer.blend is None) == (shipped.blend is None)
    assert (actor.namer.bonus is None) == (shipped.bonus is None)
    assert (actor.namer.bird is None) == (shipped.bird is None)
    assert (actor.namer.bird_others is None) == (shipped.bird_others is None)
    assert actor.namer.manifest.views == shipped.manifest.views
