"""COCO detection JSON: ``save_coco`` / ``load_coco``.

``images`` (``file_name`` relative to the images folder, width, height), ``annotations``
(``bbox`` as ``[x, y, width, height]`` in pixels, ``area``, ``iscrowd`` 0, and ``score`` for
model predictions) and ``categories``: hupai's classes, ``id`` = class id + 1 (COCO keeps 0
free), ``name`` the tile notation or ``back``. Loading maps categories **by name**, so files
from other tools (any id scheme) load as long as their names are hupai's class names.

>>> from hupai.vision.detections import Detections
>>> item = ImageLabels("a.jpg", 200, 100, Detections.make([[20, 10, 60, 50]], [3], [0.9]))
>>> data = coco_dict([item])
>>> data["annotations"][0]["bbox"], data["annotations"][0]["category_id"]
([20.0, 10.0, 40.0, 40.0], 4)
>>> coco_items(data)[0].detections.xyxy.tolist()
[[20.0, 10.0, 60.0, 50.0]]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hupai.datasets.image_labels import ImageLabels
from hupai.datasets.labels import LabelError
from hupai.vision.classes import BACK, CLASS_NAMES, class_by_name
from hupai.vision.detections import Detections


def coco_categories() -> list[dict[str, Any]]:
    return [
        {"id": i + 1, "name": name, "supercategory": "back" if i == BACK else "tile"}
        for i, name in enumerate(CLASS_NAMES)
    ]


def coco_dict(
    items: Sequence[ImageLabels], *, info: dict[str, Any] | None = None, scores: bool = True
) -> dict[str, Any]:
    """The COCO object. An item's ``meta["id"]`` is its image id (else its 1-based place);
    ``meta["coco"]`` adds fields to its image entry."""
    images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    for k, item in enumerate(items, start=1):
        image_id = int(item.meta.get("id", k))
        images.append(
            {
                "id": image_id,
                "file_name": item.image,
                "width": item.width,
                "height": item.height,
                **item.meta.get("coco", {}),
            }
        )
        det = item.detections
        for j in range(len(det)):
            x1, y1, x2, y2 = (float(v) for v in det.xyxy[j])
            w, h = x2 - x1, y2 - y1
            ann: dict[str, Any] = {
                "id": len(annotations) + 1,
                "image_id": image_id,
                "category_id": int(det.class_id[j]) + 1,
                "bbox": [round(x1, 3), round(y1, 3), round(w, 3), round(h, 3)],
                "area": round(w * h, 3),
                "iscrowd": 0,
                "segmentation": [],
            }
            if scores:
                ann["score"] = round(float(det.confidence[j]), 4)
            annotations.append(ann)
    return {
        "info": info or {"description": "hupai tile labels"},
        "licenses": [],
        "images": images,
        "annotations": annotations,
        "categories": coco_categories(),
    }


def save_coco(path: str | Path, items: Sequence[ImageLabels], **kw: Any) -> None:
    Path(path).write_text(
        json.dumps(coco_dict(items, **kw), ensure_ascii=False) + "\n", encoding="utf-8"
    )


def load_coco(path: str | Path) -> list[ImageLabels]:
    """Read a COCO file; raises :class:`LabelError` naming the file and the entry."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LabelError(f"{path}: cannot read COCO JSON ({exc})") from None
    try:
        return coco_items(data)
    except LabelError as exc:
        raise LabelError(f"{path}: {exc}") from None


def coco_items(data: Any) -> list[ImageLabels]:
    """The images of a COCO object, in its order, with their boxes."""
    if not isinstance(data, dict) or not isinstance(data.get("images"), list):
        raise LabelError("not a COCO object (no 'images' list)")
    try:
        classes = {int(c["id"]): class_by_name(str(c["name"])) for c in data.get("categories", [])}
    except (KeyError, TypeError, ValueError) as exc:
        raise LabelError(f"categories: {exc}") from None
    boxes: dict[int, tuple[list[list[float]], list[int], list[float]]] = {}
    for k, img in enumerate(data["images"]):
        try:
            if int(img["width"]) <= 0 or int(img["height"]) <= 0 or not str(img["file_name"]):
                raise ValueError
            boxes[int(img["id"])] = ([], [], [])
        except (KeyError, TypeError, ValueError):
            raise LabelError(
                f"images[{k}]: not an image entry (id, file_name, width, height): {img}"
            ) from None
    for k, ann in enumerate(data.get("annotations", [])):
        try:
            x, y, w, h = (float(v) for v in ann["bbox"])
            image_id, cat = int(ann["image_id"]), int(ann["category_id"])
        except (KeyError, TypeError, ValueError):
            raise LabelError(f"annotations[{k}]: not a box annotation: {ann}") from None
        if image_id not in boxes:
            raise LabelError(f"annotations[{k}]: image_id {image_id} is not an image of the file")
        if cat not in classes:
            raise LabelError(f"annotations[{k}]: category_id {cat} is not a category of the file")
        xyxy, cls, conf = boxes[image_id]
        xyxy.append([x, y, x + w, y + h])
        cls.append(classes[cat])
        conf.append(float(ann.get("score", 1.0)))
    out = []
    for img in data["images"]:
        xyxy, cls, conf = boxes[int(img["id"])]
        extra = {k: v for k, v in img.items() if k not in ("id", "file_name", "width", "height")}
        meta = {"id": int(img["id"]), "coco": extra}
        out.append(
            ImageLabels(
                str(img["file_name"]),
                int(img["width"]),
                int(img["height"]),
                Detections.make(xyxy, cls, conf),
                meta,
            )
        )
    return out
