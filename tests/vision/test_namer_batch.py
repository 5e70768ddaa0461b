"""The namer's crop batch, prepared in one go (geometry of all boxes at once, one warp a box,
a table lookup for normalising), gives exactly what the box-by-box way gave."""

from __future__ import annotations

import numpy as np
import pytest

from hupai.vision.namer import MEAN, STD, crop_tiles, to_blob

cv2 = pytest.importorskip("cv2")


def _reference_crop(image, xyxy, size, margin, to_image):  # type: ignore[no-untyped-def]
    """The box-by-box crop as it was written before the batch (vision/namer.py, 6ee9024)."""
    x1, y1, x2, y2 = (float(v) for v in xyxy)
    bw, bh = max(x2 - x1, 1.0), max(y2 - y1, 1.0)
    span_w, span_h = bw * (1 + 2 * margin), bh * (1 + 2 * margin)
    sx, sy = span_w / size, span_h / size
    out_to_frame = np.array(
        [[sx, 0, x1 - margin * bw + 0.5 * sx - 0.5], [0, sy, y1 - margin * bh + 0.5 * sy - 0.5]]
    )
    a = np.eye(3)
    if to_image is not None:
        a[:2] = to_image
    m = (a @ np.vstack([out_to_frame, [0, 0, 1]]))[:2]
    step = float(np.sqrt(abs(np.linalg.det(m[:, :2]))))
    src = image
    if step > 1.25:
        h, w = image.shape[:2]
        corners = m @ np.array([[0, 0, 1], [size, 0, 1], [0, size, 1], [size, size, 1.0]]).T
        rx1, ry1 = (max(0, int(np.floor(v)) - 2) for v in corners.min(axis=1))
        rx2 = min(w, int(np.ceil(corners[0].max())) + 2)
        ry2 = min(h, int(np.ceil(corners[1].max())) + 2)
        if rx2 <= rx1 or ry2 <= ry1:
            return np.zeros((size, size, 3), np.uint8)
        region = image[ry1:ry2, rx1:rx2]
        k = 1 / step
        rw, rh = max(1, round(region.shape[1] * k)), max(1, round(region.shape[0] * k))
        src = cv2.resize(region, (rw, rh), interpolation=cv2.INTER_AREA)
        kx, ky = rw / region.shape[1], rh / region.shape[0]
        to_src = np.array(
            [[kx, 0, (0.5 - rx1) * kx - 0.5], [0, ky, (0.5 - ry1) * ky - 0.5], [0, 0, 1]]
        )
        m = (to_src @ np.vstack([m, [0, 0, 1]]))[:2]
    crop = cv2.warpAffine(
        src,
        m,
        (size, size),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    if bw > bh:
        crop = np.rot90(crop)
    return np.ascontiguousarray(crop, dtype=np.uint8)


def _photo(h: int, w: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    noise = rng.integers(0, 256, (h // 8, w // 8, 3), dtype=np.uint8)
    return np.asarray(cv2.resize(noise, (w, h), interpolation=cv2.INTER_CUBIC), np.uint8)


def _boxes(rng: np.random.Generator, w: int, h: int, n: int, side: float) -> np.ndarray:
    """Tall and wide boxes of about ``side`` px, some past the photo's edge."""
    cx, cy = rng.uniform(-0.05, 1.05, n) * w, rng.uniform(-0.05, 1.05, n) * h
    bw, bh = side * rng.uniform(0.5, 1.6, n), side * rng.uniform(0.5, 1.6, n)
    return np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1)


TURNED = np.array([[0.9, 0.2, -30.0], [-0.2, 0.9, 40.0]])  # a level, turned frame
ZOOMED = np.array([[0.2, 0.05, 10.0], [-0.05, 0.2, 5.0]])  # a frame zoomed 5× onto the photo


@pytest.mark.parametrize("to_image", [None, TURNED, ZOOMED], ids=["photo", "turned", "zoomed"])
@pytest.mark.parametrize("shape,side", [((480, 640), 60.0), ((1500, 2000), 240.0)])
def test_the_batch_is_the_box_by_box_crops(to_image, shape, side) -> None:  # type: ignore[no-untyped-def]
    h, w = shape
    image = _photo(h, w, seed=int(side))
    boxes = _boxes(np.random.default_rng(1), w, h, 24, side)
    if to_image is ZOOMED:
        boxes = boxes * 5  # frame pixels
    batch = crop_tiles(image, boxes, 64, 0.08, to_image)
    expected = np.stack([_reference_crop(image, b, 64, 0.08, to_image) for b in boxes])
    assert batch.dtype == np.uint8 and batch.flags.c_contiguous
    np.testing.assert_array_equal(batch, expected)


def test_no_boxes_no_crops() -> None:
    assert crop_tiles(np.zeros((50, 50, 3), np.uint8), np.zeros((0, 4)), 32).shape == (0, 32, 32, 3)
    assert to_blob(np.zeros((0, 32, 32, 3), np.uint8)).shape == (0, 3, 32, 32)


def test_the_blob_is_the_per_pixel_formula() -> None:
    crops = np.random.default_rng(2).integers(0, 256, (7, 64, 64, 3), dtype=np.uint8)
    scaled = crops[..., ::-1].astype(np.float32) / np.float32(255)
    x = (scaled - np.asarray(MEAN, np.float32)) / np.asarray(STD, np.float32)
    expected = np.ascontiguousarray(x.transpose(0, 3, 1, 2), dtype=np.float32)
    blob = to_blob(crops)
    assert blob.dtype == np.float32 and blob.flags.c_contiguous
    np.testing.assert_array_equal(blob, expected)
