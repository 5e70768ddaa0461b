"""A turned row's tiles are reported in the first look's boxes where it boxed them
(:func:`hupai.vision.detections.first_look_boxes`): the level look's boxes turned back onto the
photo cover neighbours where tiles are seen in perspective, and miss their labels."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from hupai.labeling import reading_of
from hupai.vision.detections import Detections, envelopes, first_look_boxes, photo_quads
from hupai.vision.reading import build_reading

C, S = math.cos(math.pi / 6), math.sin(math.pi / 6)
TURNED = np.array([[C, -S, 200.0], [S, C, 0.0]])  # a level frame turned 30° onto the photo
ROW = np.array([[40.0 * k, 100, 40.0 * k + 36, 148] for k in range(3)])


def test_each_first_look_box_stands_for_one_tile_only() -> None:
    quads = photo_quads(ROW, TURNED)
    one = envelopes(quads)[1] + np.array([2.0, 2, -2, -2])  # the middle tile's, a little inside
    boxes = first_look_boxes(quads, one[None, :])
    assert (boxes[1] == one).all()
    assert (boxes[[0, 2]] == envelopes(quads)[[0, 2]]).all()


def test_a_first_look_box_beside_the_tile_is_not_its_box() -> None:
    quads = photo_quads(ROW[:1], TURNED)
    beside = envelopes(quads)[0] + np.array([30.0, 0, 30, 0])  # its centre off the tile
    assert (first_look_boxes(quads, beside[None, :]) == envelopes(quads)).all()


def _entry(photo_xyxy: list[list[float]] | None) -> dict[str, object]:
    entry: dict[str, object] = {
        "frame": {"xyxy": ROW.tolist(), "class_id": [0, 1, 2], "confidence": [0.9] * 3},
        "to_image": TURNED.tolist(),
        "angle": 0.0,
        "width": 640,
        "height": 480,
    }
    if photo_xyxy is not None:
        entry["photo_xyxy"] = photo_xyxy
    return entry


def test_a_labelling_manifest_gives_back_the_photo_boxes_it_kept() -> None:
    kept = (envelopes(photo_quads(ROW, TURNED)) + np.array([3.0, 3, -3, -3])).tolist()
    assert np.allclose(reading_of(_entry(kept), "row.jpg").detections.xyxy, kept)


def test_a_manifest_written_before_gives_the_envelopes() -> None:
    boxes = reading_of(_entry(None), "row.jpg").detections.xyxy
    assert np.allclose(boxes, envelopes(photo_quads(ROW, TURNED)))


def test_a_reading_read_again_with_other_names_keeps_its_photo_boxes() -> None:
    from hupai.vision.reading import rebuild

    kept = envelopes(photo_quads(ROW, TURNED)) + np.array([3.0, 3, -3, -3])
    det = Detections.make(ROW, [0, 1, 2], [0.9] * 3)
    reading = build_reading(det, TURNED, 0.0, (640, 480), photo_xyxy=kept)
    again = rebuild(reading, np.array([3, 4, 5]))
    assert np.allclose(again.detections.xyxy, kept)
    assert again.detections.class_id.tolist() == [3, 4, 5]


def test_the_label_command_writes_the_boxes_it_reads(tmp_path: Path) -> None:
    """The labelling job's YOLO labels are the reading's own photo boxes (row14a turned 30°:
    a level look, its tiles in the first look's boxes)."""
    import cv2

    from hupai.vision.reading import read_image

    photo = Path(__file__).parent / "fixtures" / "real" / "row14a.jpg"  # credited Roboflow photo
    image = cv2.imread(str(photo))
    h, w = image.shape[:2]
    turned = cv2.warpAffine(
        image, cv2.getRotationMatrix2D((w / 2, h / 2), 30, 0.8), (w, h), borderValue=(90, 120, 60)
    )
    (tmp_path / "in").mkdir()
    cv2.imwrite(str(tmp_path / "in" / "turned.jpg"), turned)
    reading = read_image(cv2.imread(str(tmp_path / "in" / "turned.jpg")))
    assert any(p.startswith("level") for p in reading.passes)
    assert not np.allclose(reading.detections.xyxy, envelopes(reading.quads), atol=1.0)

    from hupai.cli import main

    assert main(["label", str(tmp_path / "in"), "--out", str(tmp_path / "out")]) == 0
    rows = np.loadtxt(tmp_path / "out" / "labels" / "turned.txt").reshape(-1, 5)
    got = np.column_stack(
        [
            (rows[:, 1] - rows[:, 3] / 2) * w,
            (rows[:, 2] - rows[:, 4] / 2) * h,
            (rows[:, 1] + rows[:, 3] / 2) * w,
            (rows[:, 2] + rows[:, 4] / 2) * h,
        ]
    )
    want = reading.detections.xyxy
    assert len(got) == len(want)
    assert np.allclose(np.sort(got, axis=0), np.sort(want, axis=0), atol=1.0)
