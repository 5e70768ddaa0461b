"""The one way a photo is read: its bytes (or its file) → a reading, decoding no more pixels
than the tiles need. ``hupai read``, ``hupai score --photo``, ``hupai label``, ``hupai eval``,
the service and the Label Studio backend all read through :func:`read_photo_data` (a file:
:func:`read_photo_file`), so that a photo costs the same and reads the same everywhere.

A phone photo is 12 MP and more, but a hand that fills the frame has tiles of 200-400 px:
decoding all of it is most of a read's time (issue #26: decode 0.63 s of a 1.1 s read on a
busy machine). So the photo is first decoded at about :data:`FIRST_PIXELS` (libjpeg's 1/2
or 1/4 scale, ~0.3× the time of a whole decode) and read; only where that first look saw
small tiles — the finder's boxes with a median longer side under :data:`WHOLE_BELOW_PX` — is
it decoded whole and read again (a small hand far away: the level look and the namer need
the photo's own pixels) — and where the first look boxed nothing surely but doubted a small
box (:data:`hupai.vision.passes.DOUBTFUL_FROM`: a hand too far for this decode). A first
look that boxed nothing at all, not even doubtfully, is the answer: a photo of nothing (or a
tiny file whose header claims 7000 × 7000 px) is not decoded and read twice.

The reading comes back in the photo's own pixels (upright: EXIF turn applied), whatever
scale it was decoded at; the image read is returned with it (to draw on: the annotation
scales to it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from hupai.vision.images import (
    DECODE_PIXELS,
    MAX_PIXELS,
    Image,
    PhotoError,
    decode_image,
    photo_bytes,
    photo_size,
)
from hupai.vision.result import Reading

#: The first decode's budget: a 12-MP JPEG (4032×3024) is decoded at 1/2 (2016×1512).
FIRST_PIXELS = 4_000_000
#: Read again from the whole photo when the tiles' median longer side is under this
#: (decoded px): the namer looks at 64-px crops, and measured with ``bench/read.py
#: --sweep``, tiles of 39 px at a 1/2 decode were found 80 % against 94 % whole.
WHOLE_BELOW_PX = 64.0
#: ... and when the first look boxed nothing surely but doubted a box whose shorter side is
#: under this (decoded px): a far hand, boxed as one blob. Measured (``bench/read.py --sweep``
#: and the doubtful boxes of its scenes): hands spanning 5 % of a 12-MP photo's long side are
#: doubted as boxes of 100-120 px at the 1/2 decode and found whole (39-px tiles); a blank photo
#: or a tiny file claiming 7000 × 7000 px is doubted nowhere.
DOUBTFUL_BELOW_PX = 4 * WHOLE_BELOW_PX

#: How a photo's image is read (e.g. :func:`hupai.vision.reading.read_image` with its models).
Read = Callable[[Image], Reading]


def read_photo_file(
    path: str | Path, read: Read, max_pixels: int = MAX_PIXELS
) -> tuple[Image, Reading]:
    """:func:`read_photo_data` of the file at ``path``; a :class:`PhotoError` names the file."""
    data = photo_bytes(path)
    try:
        return read_photo_data(data, read, max_pixels)
    except PhotoError as exc:
        raise PhotoError(exc.code, f"{path}: {exc.message}", exc.hint) from None


def read_photo_data(data: bytes, read: Read, max_pixels: int = MAX_PIXELS) -> tuple[Image, Reading]:
    """Decode ``data`` at :data:`FIRST_PIXELS` and ``read`` it; decode whole and read again
    only where the first look boxed tiles too small for that decode. Returns the image read
    and its reading, in the photo's own (upright) pixels. A photo hupai cannot decode raises
    :class:`hupai.vision.images.PhotoError` from the first decode."""
    stored = photo_size(data)
    image = decode_image(data, max_pixels, budget=FIRST_PIXELS)
    reading = read(image)
    if reduced(stored, image) and small_tiles(reading):
        image = decode_image(data, max_pixels, budget=DECODE_PIXELS)
        reading = read(image)
    return image, in_photo_pixels(reading, upright_size(stored, image))


def reduced(stored: tuple[int, int], image: Image) -> bool:
    """Whether ``image`` was decoded at less than the file's size (``stored``, its header's).

    >>> reduced((4032, 3024), np.zeros((1512, 2016, 3), np.uint8))
    True
    >>> reduced((0, 0), np.zeros((10, 10, 3), np.uint8))
    False
    """
    return bool(stored[0] * stored[1] > image.shape[0] * image.shape[1])


def small_tiles(reading: Reading) -> bool:
    """Whether the first look saw tiles too small for its decode: the tiles read, or where
    none was kept the finder's boxes (``found_xyxy``, before the namer), with a median longer
    side under :data:`WHOLE_BELOW_PX`; or, where it boxed nothing, a doubtful box
    (``doubtful_xyxy``: scored under the finder's cut) whose shorter side is under
    :data:`DOUBTFUL_BELOW_PX` — a far hand, too small to be boxed surely at this decode.
    Nothing at all: nothing the whole photo would show (a blank photo, a tiny file claiming
    7000 × 7000 px)."""
    xyxy = reading.detections.xyxy
    if not len(xyxy):
        xyxy = _boxes(reading, "found_xyxy")
    if len(xyxy):
        return float(np.median(_sides(xyxy).max(axis=1))) < WHOLE_BELOW_PX
    doubtful = _boxes(reading, "doubtful_xyxy")
    return bool(len(doubtful)) and float(_sides(doubtful).min(axis=1).min()) < DOUBTFUL_BELOW_PX


def _boxes(reading: Reading, key: str) -> NDArray[np.float64]:
    return np.asarray(reading.extra.get(key, np.zeros((0, 4))), np.float64).reshape(-1, 4)


def _sides(xyxy: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.stack([xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1]], axis=1)


def upright_size(stored: tuple[int, int], image: Image) -> tuple[int, int]:
    """The photo's own size as seen (EXIF turn applied): the header's ``stored`` size, its
    sides swapped where the decoded ``image`` was turned a quarter; the image's size where
    the header cannot say.

    >>> upright_size((4032, 3024), np.zeros((1008, 756, 3), np.uint8))
    (3024, 4032)
    >>> upright_size((0, 0), np.zeros((30, 40, 3), np.uint8))
    (40, 30)
    """
    h, w = image.shape[:2]
    width, height = stored
    if not (width and height):
        return (w, h)
    if width != height and (width > height) != (w > h):
        width, height = height, width
    return (int(width), int(height))


def in_photo_pixels(reading: Reading, size: tuple[int, int]) -> Reading:
    """``reading`` (of an image decoded at some scale) in the pixels of a photo of ``size``
    (width, height): its boxes, corners, gaps, the frame's map to the photo and the finder's
    boxes. The layout, in its own frame, is unchanged."""
    import dataclasses

    if (reading.width, reading.height) == size or not (reading.width and reading.height):
        return reading
    fx, fy = size[0] / reading.width, size[1] / reading.height
    boxes = np.array([fx, fy, fx, fy])
    det = reading.detections
    extra = dict(reading.extra)
    for key in ("found_xyxy", "doubtful_xyxy"):
        if key in extra:
            extra[key] = np.asarray(extra[key], np.float64).reshape(-1, 4) * boxes
    if "frame" in extra:
        frame = dict(extra["frame"])
        frame["to_image"] = _scaled_affine(frame["to_image"], fx, fy)
        extra["frame"] = frame
    return dataclasses.replace(
        reading,
        width=size[0],
        height=size[1],
        detections=type(det)(det.xyxy * boxes, det.confidence, det.class_id),
        quads=np.asarray(reading.quads, np.float64) * np.array([fx, fy]),
        gaps=np.asarray(reading.gaps, np.float64).reshape(-1, 4) * boxes,
        extra=extra,
    )


def _scaled_affine(m: NDArray[np.float64] | None, fx: float, fy: float) -> NDArray[np.float64]:
    """A frame → image affine followed by the image → photo scale."""
    base = np.array([[1.0, 0, 0], [0, 1.0, 0]]) if m is None else np.asarray(m, np.float64)
    return np.asarray(base * np.array([[fx], [fy]]), np.float64)
