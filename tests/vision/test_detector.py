"""The ONNX runtime on tiny hand-made ONNX graphs that output fixed detections."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hupai.vision.classes import CLASS_NAMES
from hupai.vision.detections import Detections
from hupai.vision.detector import Detector, ImageError, ModelError, decode, letterbox, load_image

pytest.importorskip("onnx")
from fake_models import fake_model


def test_detect_maps_boxes_back_through_the_letterbox(tmp_path: Path) -> None:
    # a 1280x640 photo is halved and padded by 160 px above and below
    model = fake_model(tmp_path, [(100, 200, 20, 40, 5, 0.9), (300, 300, 20, 40, 42, 0.8)])
    det = Detector(model, threads=1).detect(np.zeros((640, 1280, 3), np.uint8))
    assert det.class_id.tolist() == [5, 42]
    assert det.xyxy[0].tolist() == pytest.approx([180, 40, 220, 120])


def test_nms_and_cross_class_duplicates(tmp_path: Path) -> None:
    model = fake_model(
        tmp_path,
        [
            (100, 100, 30, 40, 3, 0.9),
            (101, 100, 30, 40, 3, 0.7),  # same tile, same class: NMS
            (100, 101, 30, 40, 4, 0.6),  # same tile, another class: dropped
            (300, 100, 30, 40, 4, 0.6),
            (500, 100, 30, 40, 4, 0.1),  # under the threshold
        ],
    )
    det = Detector(model, threads=1).detect(np.zeros((640, 640, 3), np.uint8))
    assert sorted(det.class_id.tolist()) == [3, 4]


def test_tiled_detection_merges_windows(tmp_path: Path) -> None:
    model = fake_model(tmp_path, [(320, 320, 30, 40, 7, 0.9)])
    det = Detector(model, threads=1).detect_tiled(np.zeros((1000, 1000, 3), np.uint8), 640, 0.25)
    # each window sees one tile at its centre; they land at different places
    assert len(det) >= 2 and set(det.class_id.tolist()) == {7}


def test_class_list_mismatch_is_a_clear_error(tmp_path: Path) -> None:
    names = list(CLASS_NAMES)
    names[3], names[4] = names[4], names[3]
    model = fake_model(tmp_path, [], names=tuple(names))
    with pytest.raises(ModelError, match="class 3 is '5m', hupai's is '4m'"):
        Detector(model)


def test_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no such model file"):
        Detector(tmp_path / "nope.onnx")


def test_decode_rejects_a_wrong_output_shape() -> None:
    with pytest.raises(ModelError, match="expected 47"):
        decode(np.zeros((1, 10, 8400), np.float32), 43, 0.25, 0.5)


def test_letterbox_pads_grey() -> None:
    out, lb = letterbox(np.zeros((320, 640, 3), np.uint8), (640, 640))
    assert out[0, 0].tolist() == [114, 114, 114] and lb.dy == 160


def test_exif_orientation_is_applied(tmp_path: Path) -> None:
    from PIL import Image

    img = Image.new("RGB", (60, 30), (255, 0, 0))
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to view
    path = tmp_path / "rotated.jpg"
    img.save(path, exif=exif)
    assert load_image(path).shape[:2] == (60, 30)


def test_unreadable_photo(tmp_path: Path) -> None:
    bad = tmp_path / "notes.jpg"
    bad.write_text("not an image")
    with pytest.raises(ImageError, match="not an image file"):
        load_image(bad)


def test_detections_columns_must_agree() -> None:
    with pytest.raises(ValueError, match="same boxes"):
        Detections(np.zeros((2, 4)), np.zeros(3), np.zeros(2, np.int64))


def _hand_model(tmp_path: Path) -> tuple[Path, Path]:
    """A fake model that 'sees' a 14-tile hand row (winning tile apart) and a photo."""
    from PIL import Image

    classes = [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 27, 28, 28]
    boxes = [(60 + 36 * k, 320, 34, 46, c, 0.9) for k, c in enumerate(classes)]
    boxes.append((60 + 36 * 13 + 14, 320, 34, 46, 28, 0.9))
    model = fake_model(tmp_path, boxes)
    photo = tmp_path / "hand.jpg"
    Image.new("RGB", (640, 640), (30, 120, 60)).save(photo)
    return model, photo


def test_cli_read_json_and_annotate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hupai.cli import main

    model, photo = _hand_model(tmp_path)
    out = tmp_path / "annotated.png"
    assert (
        main(
            [
                "read",
                str(photo),
                "--json",
                "--model",
                str(model),
                "--no-namer",
                "--annotate",
                str(out),
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["hand"] == "123m456p789s11222z" and data["win_tile"] == "2z"
    assert data["win_tile_set_apart"] is True and data["warnings"] == []
    assert len(data["detections"]["xyxy"]) == 14
    assert out.stat().st_size > 1000


def test_cli_read_text_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hupai.cli import main

    model, photo = _hand_model(tmp_path)
    assert main(["read", str(photo), "--model", str(model), "--no-namer"]) == 0
    assert "123m456p789s11222z" in capsys.readouterr().out
    assert main(["read", str(tmp_path / "missing.jpg"), "--model", str(model), "--no-namer"]) == 2
    assert "no such file" in capsys.readouterr().err
    assert (
        main(["read", str(photo), "--model", str(model), "--no-namer", "--annotate", str(photo)])
        == 2
    )
    assert "would overwrite an input photo" in capsys.readouterr().err


def test_cli_score_photo_needs_a_city(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hupai.cli import main

    model, photo = _hand_model(tmp_path)
    assert main(["score", "--photo", str(photo), "--model", str(model), "--no-namer"]) == 2
    assert "--photo needs --city" in capsys.readouterr().err


def test_cli_score_photo_says_whether_the_score_is_confident(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hupai.cli import main

    model, photo = _hand_model(tmp_path)
    args = ["score", "--photo", str(photo), "--model", str(model), "--no-namer"]
    assert main([*args, "--city", "shaanxi", "--winner", "0", "--win", "self_draw"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["valid"] is True
    assert (result["confident"], result["doubts"], result["settled"]) == (True, [], [])


def test_cli_score_photo_builds_the_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request handed to the scorer holds the context options and the photo's fields."""
    from hupai import scoring
    from hupai.cli import main

    model, photo = _hand_model(tmp_path)
    seen: dict[str, object] = {}

    def fake_score(data: dict[str, object]) -> object:
        seen.update(data)
        raise scoring.ScoringInputError("city", "stop here")

    monkeypatch.setattr(scoring, "score", fake_score)
    args = [
        "score",
        "--photo",
        str(photo),
        "--model",
        str(model),
        "--no-namer",
        "--city",
        "nanning",
    ]
    assert main([*args, "--winner", "0", "--win", "self_draw"]) == 2
    assert seen == {
        "city": "nanning",
        "winner": 0,
        "win": "self_draw",
        "hand": "123m456p789s11222z",
        "win_tile": "2z",
        "melds": [],
    }


def _nms_by_matrix(
    xyxy: np.ndarray,
    scores: np.ndarray,
    class_id: np.ndarray | None,
    iou: float,
    cover: float | None,
) -> list[int]:
    """Greedy NMS the plain way, from the whole n × n suppression matrix: the reference."""
    from hupai.vision.detections import box_intersection, box_iou

    order = np.argsort(-scores, kind="stable")
    boxes = xyxy[order]
    suppress = box_iou(boxes, boxes) > iou
    if cover is not None:
        area = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1e-9)
        inside = box_intersection(boxes, boxes) / area[None, :]
        similar = np.minimum(area[:, None], area[None, :]) / np.maximum(area[:, None], area)
        suppress |= (inside >= cover) & (similar >= 0.5)
    if class_id is not None:
        cls = class_id[order]
        suppress &= cls[:, None] == cls[None, :]
    alive, kept = np.ones(len(boxes), bool), []
    for i in range(len(boxes)):
        if alive[i]:
            kept.append(int(order[i]))
            alive &= ~suppress[i]
    return kept


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 120),
    by_class=st.booleans(),
    cover=st.sampled_from([None, 0.85]),
)
def test_nms_keeps_what_the_whole_matrix_keeps(
    seed: int, n: int, by_class: bool, cover: float | None
) -> None:
    from hupai.vision.detections import nms

    rng = np.random.default_rng(seed)
    corner = rng.uniform(0, 100, (n, 2))
    xyxy = np.concatenate([corner, corner + rng.uniform(1, 30, (n, 2))], axis=1)
    scores = np.where(rng.random(n) < 0.2, 0.5, rng.random(n))  # ties too
    class_id = rng.integers(0, 3, n) if by_class else None
    kept = nms(xyxy, scores, class_id, 0.5, cover=cover).tolist()
    assert kept == _nms_by_matrix(xyxy, scores, class_id, 0.5, cover)


def test_the_finder_input_is_the_per_pixel_formula(tmp_path: Path) -> None:
    """The one-pass blob is the letterboxed photo, RGB, channels first, times the scale."""
    detector = Detector(fake_model(tmp_path, []), threads=1)
    photo = np.random.default_rng(5).integers(0, 256, (300, 500, 3), dtype=np.uint8)
    blob, _ = detector.blob(photo)
    boxed, _ = letterbox(photo, detector.input_size, detector.manifest.pad_value)
    scale = np.float32(detector.manifest.scale)
    expected = boxed[:, :, ::-1].transpose(2, 0, 1)[None].astype(np.float32) * scale
    assert blob.dtype == np.float32 and blob.flags.c_contiguous
    np.testing.assert_array_equal(blob, expected)
