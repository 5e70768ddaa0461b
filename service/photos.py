"""The one decoder's refusals (:class:`hupai.vision.images.PhotoError`) as API errors; the
annotated photo as a ``data:`` URL. Photos are decoded in :mod:`hupai.service.pipeline` through
:func:`hupai.vision.photo_read.read_photo_data`.

>>> from hupai.vision.images import decode_image
>>> try:
...     decode_image(b"")
... except PhotoError as exc:
...     print(photo_error(exc))
photo: the file is empty
"""

from __future__ import annotations

import base64

from hupai.service.errors import ApiError
from hupai.vision.images import PhotoError

#: The decoder's reason → (HTTP status, the API's error code).
STATUS = {
    "empty_photo": (422, "empty_photo"),
    "unsupported_format": (415, "unsupported_media_type"),
    "too_many_pixels": (413, "too_many_pixels"),
    "too_costly": (413, "too_costly"),
    "damaged_photo": (422, "damaged_photo"),
    "photo_too_small": (422, "photo_too_small"),
}


def photo_error(exc: PhotoError) -> ApiError:
    status, code = STATUS.get(exc.code, (422, exc.code))
    return ApiError(status, code, f"photo: {exc.message}", field="photo", hint=exc.hint)


def data_url(jpeg: bytes) -> str:
    """A ``data:`` URL an ``<img>`` can show.

    >>> data_url(b"abc")
    'data:image/jpeg;base64,YWJj'
    """
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
