"""A photo's bytes are decoded at a reduced size first and whole only when its tiles are
small (hupai.vision.photo_read)."""

from __future__ import annotations

import io
from types import SimpleNamespace
from typing import Any

import numpy as np
from hupai.vision.detections import Detections
from hupai.vision.photo_read import read_photo_data
from PIL import Image


def jpeg(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (90, 120, 60)).save(out, "JPEG", quality=80)
    return out.getvalue()


class Reader:
    """Reads tiles of ``side`` pixels of the whole photo (none when ``side`` is 0), scaled
    to the image it is given; records the sizes it was given."""

    def __init__(self, side: float, whole_width: int) -> None:
        self.side, self.whole_width, self.seen = side, whole_width, []

    def __call__(self, image: Any) -> Any:
        self.seen.append(image.shape[:2])
        s = self.side * image.shape[1] / self.whole_width
        xyxy = np.array([[10, 10, 10 + 0.7 * s, 10 + s]] * 14) if self.side else np.zeros((0, 4))
        n = len(xyxy)
        return SimpleNamespace(detections=Detections(xyxy, np.ones(n), np.zeros(n, int)))


def test_a_phone_photo_of_large_tiles_is_read_once_at_half_size() -> None:
    reader = Reader(side=300, whole_width=4032)
    image, _ = read_photo_data(jpeg(4032, 3024), reader)
    assert reader.seen == [(1512, 2016)]
    assert image.shape == (1512, 2016, 3)


def test_small_tiles_are_read_again_from_the_whole_photo() -> None:
    reader = Reader(side=80, whole_width=4032)  # 40 px at half size
    _, reading = read_photo_data(jpeg(4032, 3024), reader)
    assert reader.seen == [(1512, 2016), (3024, 4032)]
    assert reading.detections.xyxy[0, 3] == 90  # the whole photo's reading is the one kept


def test_a_photo_with_no_tile_found_is_read_again_whole() -> None:
    reader = Reader(side=0, whole_width=4032)
    read_photo_data(jpeg(4032, 3024), reader)
    assert reader.seen[-1] == (3024, 4032)


def test_a_photo_within_the_first_budget_is_read_once_whole() -> None:
    reader = Reader(side=0, whole_width=1600)
    read_photo_data(jpeg(1600, 1200), reader)
    assert reader.seen == [(1200, 1600)]
