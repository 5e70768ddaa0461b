"""The namer's calibration: a temperature and a name threshold in its manifest, read by the
runtime, chosen on val by ``hupai train calibrate`` (which writes them)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("onnx")
from fake_models import fake_model, fake_namer

from hupai.cli import main
from hupai.vision.classes import class_by_name
from hupai.vision.detector import Detector
from hupai.vision.namer import REJECT, Namer, NamerError, softmax
from hupai.vision.reading import read_image, rebuild

RED = {class_by_name("1m"): 40.0, class_by_name("5p"): 120.0, class_by_name("9s"): 200.0}
RED[REJECT] = 250.0
REDS = [40, 40, 120, 200, 120]


def _calibrated(namer: Path, **calibration: float) -> Path:
    manifest = json.loads(namer.with_suffix(".json").read_text())
    manifest["calibration"] = calibration
    namer.with_suffix(".json").write_text(json.dumps(manifest))
    return namer


def _scene() -> tuple[np.ndarray, list[tuple[float, float, float, float, int, float]]]:
    """Five tiles in a row, painted so the fake namer's colour code names them."""
    img = np.full((640, 640, 3), 90, np.uint8)
    boxes = []
    for k, red in enumerate(REDS):
        x0 = 100 + 62 * k
        img[300:380, x0 : x0 + 60] = (30, 30, red)
        boxes.append((x0 + 30.0, 340.0, 60.0, 80.0, 0, 0.8))
    return img, boxes


def test_a_namers_temperature_divides_its_logits(tmp_path: Path) -> None:
    crops = np.full((2, 32, 32, 3), (30, 30, 70), np.uint8)  # between 1m (40) and 5p (120)
    plain = Namer(fake_namer(tmp_path, RED))
    logits = plain.logits(crops)
    warm = Namer(_calibrated(plain.path, temperature=4.0))
    np.testing.assert_allclose(warm.name_crops(crops).probs, softmax(logits, 4.0), atol=1e-9)
    assert warm.name_crops(crops).probs.max() < plain.name_crops(crops).probs.max()


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [("temperature", 0.0, "temperature 0.0"), ("check_below", 1.5, "check_below 1.5")],
)
def test_a_calibration_out_of_range_is_named(
    tmp_path: Path, field: str, value: float, match: str
) -> None:
    namer = _calibrated(fake_namer(tmp_path, RED), **{field: value})
    with pytest.raises(NamerError, match=match):
        Namer(namer)


def test_the_namers_threshold_decides_which_tiles_need_a_check(tmp_path: Path) -> None:
    img, boxes = _scene()
    finder = Detector(fake_model(tmp_path, boxes, names=("tile",)))
    namer = fake_namer(tmp_path, RED)
    sure = read_image(img, detector=finder, namer=Namer(namer))
    assert sure.check == () and float(sure.detections.confidence.min()) < 1.0
    strict = read_image(img, detector=finder, namer=Namer(_calibrated(namer, check_below=1.0)))
    assert strict.check == tuple(range(5)) and not strict.confident
    # the same photo named otherwise by hand keeps the namer's threshold
    assert rebuild(strict, strict.detections.class_id).check == tuple(range(5))


def _dataset(root: Path, split: str = "val", photos: int = 3) -> Path:
    img, boxes = _scene()
    (root / "images" / split).mkdir(parents=True)
    (root / "labels" / split).mkdir(parents=True)
    (root / "classes.txt").write_text("\n".join(["1m", "5p", "9s"]) + "\n")
    cls = {40: 0, 120: 1, 200: 2}
    rows = "".join(
        f"{cls[red]} {cx / 640:.6f} {cy / 640:.6f} {w / 640:.6f} {h / 640:.6f}\n"
        for red, (cx, cy, w, h, _, _) in zip(REDS, boxes, strict=True)
    )
    for k in range(photos):
        cv2.imwrite(str(root / "images" / split / f"p{k}.png"), img)
        (root / "labels" / split / f"p{k}.txt").write_text(rows)
    return root


def test_calibrate_writes_the_temperature_and_threshold_it_chose_into_the_manifest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, boxes = _scene()
    finder = fake_model(tmp_path, boxes, names=("tile",))
    namer = fake_namer(tmp_path, RED)
    before = json.loads(namer.with_suffix(".json").read_text())
    data = _dataset(tmp_path / "real")
    args = ["train", "calibrate", "--data", str(data), "--model", str(finder)]
    assert main([*args, "--namer", str(namer)]) == 0
    out = capsys.readouterr().out
    manifest = json.loads(namer.with_suffix(".json").read_text())
    cal = manifest.pop("calibration")
    assert manifest == before  # nothing else changed
    assert cal["check_below"] in [row["check_below"] for row in cal["curve"]]
    assert "temperature" in cal and "val (3 photos" in cal["chosen_on"]
    assert f"check_below {cal['check_below']}" in out
    chosen = next(row for row in cal["curve"] if row["check_below"] == cal["check_below"])
    assert chosen["share"] == 1.0 and chosen["exact"] == 1.0  # every photo read right, trusted
    runtime = Namer(namer).manifest
    assert (runtime.temperature, runtime.check_below) == (cal["temperature"], cal["check_below"])


def test_calibrate_never_chooses_on_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _dataset(tmp_path / "real", split="test")
    assert main(["train", "calibrate", "--data", str(data), "--split", "test"]) != 0
    assert "never chosen on" in capsys.readouterr().err


def test_a_labelled_photo_read_back_keeps_the_namers_threshold_and_its_clutter_doubt(
    tmp_path: Path,
) -> None:
    from hupai.labeling.read import label_photo, reading_of

    img, boxes = _scene()
    photo = tmp_path / "hand.png"
    cv2.imwrite(str(photo), img)
    finder = Detector(fake_model(tmp_path, boxes, names=("tile",)))
    namer = Namer(_calibrated(fake_namer(tmp_path, RED), check_below=1.0))
    entry = label_photo(finder, "hand.png", photo, namer=namer)
    assert reading_of(entry, "hand.png").check == tuple(range(5))
    entry["frame"]["check_below"], entry["frame"]["box_confidence"] = 0.5, [0.8] * 5
    entry["frame"]["reject"] = [0.0, 0.0, 0.6, 0.0, 0.0]  # 0.8 x 0.4 = 0.32: clutter
    assert reading_of(entry, "hand.png").check == (2,)


def test_the_fitted_temperature_never_makes_the_namer_surer() -> None:
    """Names right but unsure (least NLL would sharpen them): the fit keeps 1.0 — a namer
    sharpened on the one real set is surer on sets it never saw too."""
    from hupai.calibration import Recorded, fit_temperature, nll
    from hupai.vision.detections import Detections
    from hupai.vision.reading import FoundTiles

    boxes = np.array([[10.0, 10, 40, 50], [50, 10, 80, 50]])
    det = Detections(boxes, np.full(2, 0.9), np.zeros(2, np.int64))
    identity = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    found = FoundTiles(det, identity, 0.0, ("full",), Detections.empty())
    views = np.zeros((1, 2, 44), np.float32)
    views[0, 0, 3], views[0, 1, 7] = 3.0, 3.0  # right, at about 0.3
    truth = Detections(boxes, np.ones(2), np.array([3, 7]))
    rec = Recorded("a.jpg", np.zeros((100, 100, 3), np.uint8), found, views, (100, 100), truth)
    assert nll(views, np.array([3, 7]), 0.6) < nll(views, np.array([3, 7]), 1.0)
    fitted, losses = fit_temperature([rec])
    assert fitted == 1.0 and min(losses) == 1.0
