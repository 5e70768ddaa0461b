"""The boxes of one image in pixels, shared by the label formats (COCO, Label Studio, YOLO).

A format's ``save_*`` takes a list of :class:`ImageLabels` and its ``load_*`` gives one back,
so that any two formats convert through it (supervision style: ``xyxy`` in pixels, class
ids from hupai's class list, a confidence per box; 1.0 for boxes a person drew).

>>> from hupai.vision.detections import Detections
>>> item = ImageLabels("a.jpg", 200, 100, Detections.make([[20, 10, 60, 50]], [3], [0.9]))
>>> [b.xyxy for b in to_yolo_boxes(item)]
[(0.1, 0.1, 0.3, 0.5)]
>>> from_yolo_boxes("a.jpg", 200, 100, to_yolo_boxes(item)).detections.xyxy.tolist()
[[20.0, 10.0, 60.0, 50.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hupai.datasets.labels import LabelBox
from hupai.vision.detections import Detections


@dataclass(frozen=True)
class ImageLabels:
    """One image's boxes: ``image`` is how the format refers to the image (a file name
    relative to the images folder, or a URL); ``meta`` carries what else the format keeps
    (task data, the prediction's model version, …)."""

    image: str
    width: int
    height: int
    detections: Detections
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0:
            raise ValueError(f"{self.image}: image size {self.width}×{self.height} is not a size")


def to_yolo_boxes(item: ImageLabels) -> list[LabelBox]:
    """The boxes normalised to the image (YOLO label lines through
    :func:`hupai.datasets.labels.format_yolo_line`)."""
    scale = np.array([item.width, item.height, item.width, item.height], dtype=np.float64)
    norm = np.clip(item.detections.xyxy / scale, 0.0, 1.0)
    return [
        LabelBox(int(c), (float(b[0]), float(b[1]), float(b[2]), float(b[3])))
        for b, c in zip(norm, item.detections.class_id, strict=True)
    ]


def from_yolo_boxes(image: str, width: int, height: int, boxes: Sequence[LabelBox]) -> ImageLabels:
    """Pixel boxes from YOLO boxes (confidence 1)."""
    xyxy = [
        [b.xyxy[0] * width, b.xyxy[1] * height, b.xyxy[2] * width, b.xyxy[3] * height]
        for b in boxes
    ]
    return ImageLabels(image, width, height, Detections.make(xyxy, [b.cls for b in boxes]))
