"""A photo's bytes are decoded at a reduced size first and whole only when the first look saw
small tiles (hupai.vision.photo_read); the reading comes back in the photo's own pixels."""

from __future__ import annotations

import dataclasses
import io
from typing import Any

import numpy as np
import pytest
from PIL import Image

from hupai.vision.detections import Detections
from hupai.vision.images import PhotoError
from hupai.vision.photo_read import read_photo_data, read_photo_file
from hupai.vision.reading import build_reading
from hupai.vision.result import Reading


def jpeg(width: int, height: int, orientation: int | None = None) -> bytes:
    out = io.BytesIO()
    exif = Image.Exif()
    if orientation is not None:
        exif[0x0112] = orientation
    Image.new("RGB", (width, height), (90, 120, 60)).save(out, "JPEG", quality=80, exif=exif)
    return out.getvalue()


def claiming(width: int, height: int) -> bytes:
    """A tiny JPEG whose header claims ``width × height``."""
    data = bytearray(jpeg(16, 16))
    sof = data.find(b"\xff\xc0")
    data[sof + 5 : sof + 7] = height.to_bytes(2, "big")
    data[sof + 7 : sof + 9] = width.to_bytes(2, "big")
    return bytes(data)


class Reader:
    """Reads 14 tiles of ``side`` pixels of the whole photo (none when ``side`` is 0), scaled
    to the image it is given; ``found``: boxes of that side the finder saw but the namer
    rejected (the reading keeps none). Records the sizes it was given."""

    def __init__(
        self, side: float, whole_width: int, found: bool = False, doubtful: float = 0.0
    ) -> None:
        self.side, self.whole_width, self.found = side, whole_width, found
        self.doubtful = doubtful  # a doubtful box's side (whole photo px), none when 0
        self.seen: list[tuple[int, ...]] = []

    def __call__(self, image: Any) -> Reading:
        self.seen.append(image.shape[:2])
        s = self.side * image.shape[1] / self.whole_width
        boxes = np.array([[10 + k * s, 10, 10 + (k + 0.7) * s, 10 + s] for k in range(14)])
        xyxy = boxes if self.side and not self.found else np.zeros((0, 4))
        n = len(xyxy)
        h, w = image.shape[:2]
        reading = build_reading(Detections(xyxy, np.ones(n), np.zeros(n, int)), None, 0.0, (w, h))
        found = boxes if self.side else np.zeros((0, 4))
        d = self.doubtful * image.shape[1] / self.whole_width
        doubtful = np.array([[100, 100, 100 + 5 * d, 100 + d]]) if d else np.zeros((0, 4))
        extra = {**reading.extra, "found_xyxy": found, "doubtful_xyxy": doubtful}
        return dataclasses.replace(reading, extra=extra)


def test_a_phone_photo_of_large_tiles_is_read_once_at_half_size() -> None:
    reader = Reader(side=300, whole_width=4032)
    image, _ = read_photo_data(jpeg(4032, 3024), reader)
    assert reader.seen == [(1512, 2016)]
    assert image.shape == (1512, 2016, 3)


def test_the_reading_of_a_reduced_decode_is_in_the_photos_own_pixels() -> None:
    reader = Reader(side=300, whole_width=4032)
    _, reading = read_photo_data(jpeg(4032, 3024), reader)
    assert (reading.width, reading.height) == (4032, 3024)
    assert reading.detections.xyxy[0].tolist() == pytest.approx([20, 20, 20 + 210, 20 + 300])
    assert reading.quads[0, 2].tolist() == pytest.approx([230, 320])
    assert reading.extra["found_xyxy"][0, 3] == pytest.approx(320)
    to_image = reading.extra["frame"]["to_image"]
    np.testing.assert_allclose(to_image, [[2, 0, 0], [0, 2, 0]])


def test_a_reduced_decodes_gaps_are_in_the_photos_own_pixels() -> None:
    from hupai.vision.photo_read import in_photo_pixels

    reader = Reader(side=300, whole_width=4032)
    _, half = read_photo_data(jpeg(2016, 1512), reader)  # read whole: its own pixels
    with_gap = dataclasses.replace(half, gaps=np.array([[10.0, 20, 30, 40]]))
    doubled = in_photo_pixels(with_gap, (4032, 3024))
    assert doubled.gaps.tolist() == [[20.0, 40, 60, 80]]


def test_a_photo_turned_by_its_exif_is_measured_upright() -> None:
    reader = Reader(side=300, whole_width=3024)
    image, reading = read_photo_data(jpeg(4032, 3024, orientation=6), reader)
    assert image.shape[:2] == (2016, 1512)
    assert (reading.width, reading.height) == (3024, 4032)


def test_small_tiles_are_read_again_from_the_whole_photo() -> None:
    reader = Reader(side=80, whole_width=4032)  # 40 px at half size
    _, reading = read_photo_data(jpeg(4032, 3024), reader)
    assert reader.seen == [(1512, 2016), (3024, 4032)]
    assert reading.detections.xyxy[0, 3] == 90  # the whole photo's reading is the one kept


def test_small_boxes_the_namer_rejected_are_read_again_from_the_whole_photo() -> None:
    reader = Reader(side=80, whole_width=4032, found=True)
    read_photo_data(jpeg(4032, 3024), reader)
    assert reader.seen == [(1512, 2016), (3024, 4032)]


def test_a_photo_where_nothing_was_boxed_is_answered_from_the_first_look() -> None:
    reader = Reader(side=0, whole_width=4032)
    _, reading = read_photo_data(jpeg(4032, 3024), reader)
    assert reader.seen == [(1512, 2016)]
    assert reading.codes == ["no_tiles"] and (reading.width, reading.height) == (4032, 3024)


def test_a_small_doubtful_box_is_read_again_from_the_whole_photo() -> None:
    reader = Reader(side=0, whole_width=4032, doubtful=40)  # a far hand, 20 px high at 1/2
    read_photo_data(jpeg(4032, 3024), reader)
    assert reader.seen == [(1512, 2016), (3024, 4032)]


def test_a_large_doubtful_box_is_no_reason_to_look_again() -> None:
    reader = Reader(side=0, whole_width=4032, doubtful=1200)  # 600 px at 1/2: a region
    read_photo_data(jpeg(4032, 3024), reader)
    assert reader.seen == [(1512, 2016)]


def test_a_tiny_jpeg_claiming_7000_px_a_side_is_decoded_and_read_once() -> None:
    reader = Reader(side=0, whole_width=7000)
    data = claiming(7000, 7000)
    assert len(data) < 1000
    _, reading = read_photo_data(data, reader)
    assert reader.seen == [(1750, 1750)]
    assert (reading.width, reading.height) == (7000, 7000)


def test_a_photo_within_the_first_budget_is_read_once_whole() -> None:
    reader = Reader(side=0, whole_width=1600)
    read_photo_data(jpeg(1600, 1200), reader)
    assert reader.seen == [(1200, 1600)]


def test_a_bad_photo_file_is_named_in_the_error(tmp_path: Any) -> None:
    path = tmp_path / "hand.jpg"
    path.write_bytes(b"%PDF-1.7")
    with pytest.raises(PhotoError, match=r"hand\.jpg: not an image file"):
        read_photo_file(path, Reader(side=0, whole_width=16))
    with pytest.raises(PhotoError, match=r"missing\.jpg: no such file"):
        read_photo_file(tmp_path / "missing.jpg", Reader(side=0, whole_width=16))
