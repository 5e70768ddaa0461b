"""Label Studio tasks: our predictions and Label Studio's own export read back to pixels."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from hupai.datasets.image_labels import ImageLabels, from_yolo_boxes, to_yolo_boxes
from hupai.datasets.labels import LabelError, format_yolo_line, parse_yolo_line
from hupai.datasets.labelstudio import (
    labelstudio_config,
    labelstudio_items,
    load_labelstudio,
    save_labelstudio,
)
from hupai.vision.classes import BACK, CLASS_NAMES
from hupai.vision.detections import Detections


def _item() -> ImageLabels:
    det = Detections.make(
        [[10.5, 20.25, 110.0, 160.0], [300, 0, 333.3, 47.7]], [5, BACK], [0.91, 0.42]
    )
    return ImageLabels("/data/local-files/?d=images/x.jpg", 640, 480, det, {"data": {"k": 1}})


def test_save_then_load_gives_the_pixel_boxes_back(tmp_path: Path) -> None:
    save_labelstudio(tmp_path / "t.json", [_item()], model_version="hupai-tiles v1")
    (back,) = load_labelstudio(tmp_path / "t.json")
    assert back.image == "/data/local-files/?d=images/x.jpg" and (back.width, back.height) == (
        640,
        480,
    )
    assert np.allclose(back.detections.xyxy, _item().detections.xyxy, atol=1e-9)
    assert back.detections.class_id.tolist() == [5, BACK]
    assert back.detections.confidence.tolist() == [0.91, 0.42]
    assert back.meta["model_version"] == "hupai-tiles v1" and back.meta["data"]["k"] == 1


def test_percent_coordinates_round_trip_to_yolo(tmp_path: Path) -> None:
    lines = ["3 0.250000 0.500000 0.100000 0.200000", "42 0.912345 0.087654 0.031250 0.041667"]
    item = from_yolo_boxes("a.jpg", 1280, 720, [parse_yolo_line(x) for x in lines])
    save_labelstudio(tmp_path / "t.json", [item], model_version="m")
    task = json.loads((tmp_path / "t.json").read_text())[0]
    value = task["predictions"][0]["result"][0]["value"]
    assert (value["x"], value["y"], value["width"], value["height"]) == pytest.approx(
        (20, 40, 10, 20)
    )
    (back,) = load_labelstudio(tmp_path / "t.json")
    assert [format_yolo_line(b) for b in to_yolo_boxes(back)] == lines


def region(x: float, label: str) -> dict[str, object]:
    return {
        "type": "rectanglelabels",
        "original_width": 200,
        "original_height": 100,
        "value": {"x": x, "y": 10, "width": 10, "height": 20, "rectanglelabels": [label]},
    }


def test_a_persons_annotation_wins_over_the_prediction() -> None:
    task = {
        "data": {"image": "a.jpg"},
        "annotations": [
            {"was_cancelled": True, "result": [region(80, "9s")]},
            {"result": [region(50, "1z"), {"type": "choices", "value": {"choices": ["ok"]}}]},
        ],
        "predictions": [{"result": [region(10, "1m")]}],
    }
    (mine,) = labelstudio_items([task])
    assert mine.detections.class_id.tolist() == [27] and mine.meta["source"] == "annotations"
    assert mine.detections.xyxy.tolist() == [[100.0, 10.0, 120.0, 30.0]]
    (pred,) = labelstudio_items([task], source="predictions")
    assert CLASS_NAMES[int(pred.detections.class_id[0])] == "1m"


def test_label_studios_export_with_predictions_by_id_is_read() -> None:
    """The JSON that Label Studio 1.23's Export button writes lists predictions by id."""
    task = {
        "id": 7,
        "data": {"image": "/data/local-files/?d=images/a.jpg"},
        "annotations": [
            {"id": 1, "updated_at": "2026-11-20T10:00:00Z", "result": [region(50, "1z")]},
            {"id": 2, "updated_at": "2026-11-21T09:00:00Z", "result": [region(60, "2z")]},
        ],
        "predictions": [1],
    }
    (item,) = labelstudio_items([task])
    assert CLASS_NAMES[int(item.detections.class_id[0])] == "2z"  # the latest annotation
    with pytest.raises(LabelError, match=r"task 0 .*: not annotated"):
        labelstudio_items([{**task, "annotations": []}])


def test_a_rotated_rectangle_becomes_its_envelope() -> None:
    region = {
        "type": "rectanglelabels",
        "original_width": 100,
        "original_height": 100,
        "value": {
            "x": 50,
            "y": 50,
            "width": 20,
            "height": 10,
            "rotation": 90,
            "rectanglelabels": ["1m"],
        },
    }
    (item,) = labelstudio_items([{"data": {"image": "a"}, "annotations": [{"result": [region]}]}])
    # turned 90° clockwise about its top-left corner: spans x 40-50, y 50-70
    assert np.allclose(item.detections.xyxy, [[40, 50, 50, 70]])


def _task(label: str, size: dict[str, int]) -> dict[str, object]:
    value = {"x": 1, "y": 1, "width": 1, "height": 1, "rectanglelabels": [label]}
    region = {"type": "rectanglelabels", "value": value}
    return {"data": {"image": "a.jpg", **size}, "predictions": [{"result": [region]}]}


@pytest.mark.parametrize(
    ("task", "message"),
    [
        ({"data": {}}, "task 0: data.image is missing"),
        ([], "task 0: not a task"),
        (_task("1m", {}), "task 0 (a.jpg): a region has no original_width"),
        (_task("dragon", {"width": 10, "height": 10}), "'dragon' is not a class name"),
        ({"data": {"image": "a.jpg"}}, "task 0 (a.jpg): not annotated"),
        ({"data": {"image": "a.jpg"}, "annotations": [{"result": []}]}, "no image size"),
    ],
)  # fmt: skip
def test_bad_tasks_are_errors_naming_the_task(task: object, message: str) -> None:
    with pytest.raises(LabelError, match=re.escape(message)):
        labelstudio_items([task])


def test_a_file_that_is_not_json_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "t.json").write_text("[{")
    with pytest.raises(LabelError, match=r"t\.json: cannot read Label Studio tasks"):
        load_labelstudio(tmp_path / "t.json")


def test_config_names_every_class() -> None:
    config = labelstudio_config()
    assert all(f'<Label value="{n}"/>' in config for n in CLASS_NAMES)
