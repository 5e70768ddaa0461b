"""COCO JSON: our files and other tools' (other category ids) read back to pixels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hupai.datasets.coco import coco_dict, coco_items, load_coco, save_coco
from hupai.datasets.image_labels import ImageLabels
from hupai.datasets.labels import LabelError
from hupai.vision.classes import BACK
from hupai.vision.detections import Detections


def _items() -> list[ImageLabels]:
    det = Detections.make(
        [[10.5, 20.25, 110.0, 160.0], [300, 0, 333.25, 47.75]], [5, BACK], [0.91, 0.42]
    )
    return [
        ImageLabels("sub/a.jpg", 640, 480, det, {"id": 7}),
        ImageLabels("b.png", 100, 50, Detections.empty()),
    ]


def test_save_then_load_gives_the_pixel_boxes_back(tmp_path: Path) -> None:
    save_coco(tmp_path / "c.json", _items())
    a, b = load_coco(tmp_path / "c.json")
    assert (a.image, a.width, a.height, a.meta["id"]) == ("sub/a.jpg", 640, 480, 7)
    assert a.detections.xyxy.tolist() == _items()[0].detections.xyxy.tolist()
    assert a.detections.class_id.tolist() == [5, BACK]
    assert a.detections.confidence.tolist() == [0.91, 0.42]
    assert (b.image, len(b.detections), b.meta["id"]) == ("b.png", 0, 2)


def test_the_file_follows_coco() -> None:
    data = coco_dict(_items())
    ann = data["annotations"][0]
    assert ann["bbox"] == [10.5, 20.25, 99.5, 139.75] and ann["area"] == pytest.approx(
        99.5 * 139.75
    )
    assert (ann["image_id"], ann["category_id"], ann["iscrowd"]) == (7, 6, 0)
    assert [c["id"] for c in data["categories"]] == list(range(1, 44))
    assert "score" not in coco_dict(_items(), scores=False)["annotations"][0]


def test_categories_are_matched_by_name_whatever_their_ids() -> None:
    data = {
        "images": [{"id": 1, "file_name": "x.jpg", "width": 10, "height": 10}],
        "annotations": [{"image_id": 1, "category_id": 0, "bbox": [1, 2, 3, 4]}],
        "categories": [{"id": 0, "name": "7z"}, {"id": 1, "name": "1m"}],
    }
    (item,) = coco_items(data)
    assert item.detections.class_id.tolist() == [33] and item.detections.confidence.tolist() == [
        1.0
    ]
    assert item.detections.xyxy.tolist() == [[1, 2, 4, 6]]


def _ann(image_id: int, category_id: int) -> dict[str, object]:
    return {"image_id": image_id, "category_id": category_id, "bbox": [0, 0, 1, 1]}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"categories": [{"id": 1, "name": "tile"}]}, "'tile' is not a class name"),
        ({"annotations": [_ann(9, 1)]}, r"annotations\[0\]: image_id 9"),
        ({"annotations": [_ann(1, 5)]}, "category_id 5 is not"),
        ({"annotations": [{"image_id": 1, "category_id": 1}]}, "not a box annotation"),
        ({"images": [{"id": 1, "file_name": "x.jpg"}]}, r"images\[0\]: not an image entry"),
    ],
)  # fmt: skip
def test_bad_files_are_errors_naming_the_entry(change: dict[str, object], message: str) -> None:
    data = {
        "images": [{"id": 1, "file_name": "x.jpg", "width": 10, "height": 10}],
        "annotations": [],
        "categories": [{"id": 1, "name": "1m"}],
        **change,
    }
    with pytest.raises(LabelError, match=message):
        coco_items(json.loads(json.dumps(data)))


def test_the_reference_reader_pycocotools_reads_our_file(tmp_path: Path) -> None:
    coco_api = pytest.importorskip("pycocotools.coco")
    cocoeval = pytest.importorskip("pycocotools.cocoeval")
    save_coco(tmp_path / "c.json", _items())
    gt = coco_api.COCO(str(tmp_path / "c.json"))
    assert len(gt.getImgIds()) == 2 and len(gt.getAnnIds()) == 2
    names = [c["name"] for c in gt.loadCats(gt.getCatIds())]
    assert names[5] == "6m" and names[-1] == "back"
    (ann,) = gt.loadAnns(gt.getAnnIds(imgIds=[7]))[:1]
    assert ann["bbox"] == [10.5, 20.25, 99.5, 139.75]
    # the file scored against itself: every box found, AP 1
    detections = [{**a, "score": 1.0} for a in gt.loadAnns(gt.getAnnIds())]
    evaluation = cocoeval.COCOeval(gt, gt.loadRes(detections), "bbox")
    evaluation.evaluate()
    evaluation.accumulate()
    precision = evaluation.eval["precision"][0, :, :, 0, -1]  # IoU 0.5, all areas, 100 dets
    assert precision[precision > -1].min() > 0.999
