"""Uploaded bytes → a BGR image through the one decoder (:mod:`vision.images`), its refusals
as API errors; the annotated photo as a ``data:`` URL.

>>> decode_photo(b"", 1000)
Traceback (most recent call last):
...
service.errors.ApiError: photo: the file is empty
>>> decode_photo(b"%PDF-1.7 ...", 1000)
Traceback (most recent call last):
...
service.errors.ApiError: photo: not an image file hupai can read (JPEG, PNG, WebP, BMP, TIFF, GIF)
"""

from __future__ import annotations

import base64

from service.errors import ApiError
from vision.images import Image, PhotoError, decode_image

#: The decoder's reason → (HTTP status, the API's error code).
STATUS = {
    "empty_photo": (422, "empty_photo"),
    "unsupported_format": (415, "unsupported_media_type"),
    "too_many_pixels": (413, "too_many_pixels"),
    "damaged_photo": (422, "damaged_photo"),
    "photo_too_small": (422, "photo_too_small"),
}


def decode_photo(data: bytes, max_pixels: int) -> Image:
    """The photo as a BGR uint8 array, turned upright by its EXIF orientation."""
    try:
        return decode_image(data, max_pixels)
    except PhotoError as exc:
        raise photo_error(exc) from None


def photo_error(exc: PhotoError) -> ApiError:
    status, code = STATUS.get(exc.code, (422, exc.code))
    return ApiError(status, code, f"photo: {exc.message}", field="photo", hint=exc.hint)


def data_url(jpeg: bytes) -> str:
    """A ``data:`` URL an ``<img>`` can show.

    >>> data_url(b"abc")
    'data:image/jpeg;base64,YWJj'
    """
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
