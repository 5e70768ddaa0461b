"""A photo's bytes → a reading, decoding no more pixels than the tiles need.

A phone photo is 12 MP and more, but a hand that fills the frame has tiles of 200-400 px:
decoding all of it is most of a read's time (issue #26: decode 0.63 s of a 1.1 s read on a
busy machine). So the photo is first decoded at about :data:`FIRST_PIXELS` (libjpeg's 1/2
or 1/4 scale, ~0.3× the time of a whole decode) and read; only where that reading's tiles come
out smaller than :data:`WHOLE_BELOW_PX` — or none is found — is it decoded whole and read
again (a small hand far away: the level look and the namer need the photo's own pixels).

The reading's boxes are in the pixels of the image it was read from, which is returned with it
(to draw on, or to scale by).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from hupai.vision.images import DECODE_PIXELS, MAX_PIXELS, Image, decode_image, photo_size
from hupai.vision.result import Reading

#: The first decode's budget: a 12-MP JPEG (4032×3024) is decoded at 1/2 (2016×1512).
FIRST_PIXELS = 4_000_000
#: Read again from the whole photo when the tiles' median longer side is under this
#: (decoded px): the namer looks at 64-px crops, and measured with ``bench/read.py
#: --sweep``, tiles of 39 px at a 1/2 decode were found 80 % against 94 % whole.
WHOLE_BELOW_PX = 64.0


def read_photo_data(
    data: bytes,
    read: Callable[[Image], Reading],
    max_pixels: int = MAX_PIXELS,
) -> tuple[Image, Reading]:
    """Decode ``data`` at :data:`FIRST_PIXELS` and ``read`` it; decode whole and read again
    where the tiles are too small for that decode. Returns the image read and its reading.
    A photo hupai cannot decode raises :class:`hupai.vision.images.PhotoError` from the first
    decode."""
    image = decode_image(data, max_pixels, budget=FIRST_PIXELS)
    reading = read(image)
    if not reduced(data, image) or not tiles_too_small(reading):
        return image, reading
    whole = decode_image(data, max_pixels, budget=DECODE_PIXELS)
    return whole, read(whole)


def reduced(data: bytes, image: Image) -> bool:
    """Whether ``image`` was decoded at less than the file's size.

    >>> reduced(b"not an image", np.zeros((10, 10, 3), np.uint8))
    False
    """
    width, height = photo_size(data)
    return bool(width * height > image.shape[0] * image.shape[1])


def tiles_too_small(reading: Reading) -> bool:
    """No tile found, or their median longer side under :data:`WHOLE_BELOW_PX`."""
    xyxy = reading.detections.xyxy
    if not len(xyxy):
        return True
    sides = np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
    return float(np.median(sides)) < WHOLE_BELOW_PX
