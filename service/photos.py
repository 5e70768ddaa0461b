"""Uploaded bytes → a BGR image, with the guards a public endpoint needs; the annotated
photo → JPEG.

The size in pixels is checked from the file's header, before anything is decoded
(decompression bombs); a file that is not an image is 415 whatever its declared type; a
truncated or damaged image is 422.

>>> decode_photo(b"", 1000)
Traceback (most recent call last):
...
service.errors.ApiError: photo: the file is empty
>>> decode_photo(b"%PDF-1.7 ...", 1000)
Traceback (most recent call last):
...
service.errors.ApiError: photo: not an image hupai can read (JPEG, PNG, WebP, BMP, TIFF, GIF)
"""

from __future__ import annotations

import base64
import io

import numpy as np

from service.errors import ApiError
from vision.detector import Image

#: What Pillow decodes that a phone or a scanner produces (MPO: JPEG with a depth map).
FORMATS = {"JPEG", "MPO", "PNG", "WEBP", "BMP", "TIFF", "GIF"}
FORMAT_NAMES = "JPEG, PNG, WebP, BMP, TIFF, GIF"
MIN_SIDE = 16
#: ISO base media brands of HEIC/HEIF/AVIF photos (bytes 8-12 after ``ftyp``).
_HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"mif1", b"msf1", b"heim", b"heis", b"avif"}


def decode_photo(data: bytes, max_pixels: int) -> Image:
    """The photo as a BGR uint8 array, turned upright by its EXIF orientation."""
    from PIL import Image as PILImage
    from PIL import ImageOps, UnidentifiedImageError

    if not data:
        raise ApiError(422, "empty_photo", "photo: the file is empty", field="photo")
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        raise ApiError(
            415,
            "unsupported_media_type",
            "photo: HEIC/HEIF/AVIF photos are not supported; send a JPEG",
            field="photo",
            hint="On an iPhone: Settings › Camera › Formats › Most Compatible, or share the "
            "photo as JPEG.",
        )
    try:
        with PILImage.open(io.BytesIO(data)) as opened:
            if opened.format not in FORMATS:
                raise ApiError(
                    415,
                    "unsupported_media_type",
                    f"photo: {opened.format} images are not supported ({FORMAT_NAMES})",
                    field="photo",
                )
            width, height = opened.size
            _check_pixels(width, height, max_pixels)
            upright = ImageOps.exif_transpose(opened)
            rgb = np.asarray(upright.convert("RGB"))
    except UnidentifiedImageError:
        raise ApiError(
            415,
            "unsupported_media_type",
            f"photo: not an image hupai can read ({FORMAT_NAMES})",
            field="photo",
        ) from None
    except PILImage.DecompressionBombError as exc:
        raise ApiError(413, "too_many_pixels", f"photo: {exc}", field="photo") from None
    except (OSError, SyntaxError, ValueError, EOFError, IndexError, KeyError) as exc:
        # Pillow's truncated/damaged-file errors come in all of these types.
        raise ApiError(
            422,
            "damaged_photo",
            f"photo: the image is truncated or damaged ({exc})",
            field="photo",
            hint="Send the photo again; if it keeps failing, take a new one.",
        ) from None
    if rgb.ndim != 3 or rgb.shape[0] < MIN_SIDE or rgb.shape[1] < MIN_SIDE:
        raise ApiError(
            422,
            "photo_too_small",
            f"photo: {rgb.shape[1]}×{rgb.shape[0]} px is too small to read tiles",
            field="photo",
        )
    return np.ascontiguousarray(rgb[:, :, ::-1])


def _check_pixels(width: int, height: int, max_pixels: int) -> None:
    if width * height > max_pixels:
        raise ApiError(
            413,
            "too_many_pixels",
            f"photo: {width}×{height} = {width * height / 1e6:.1f} megapixels is more than "
            f"the {max_pixels / 1e6:g} allowed",
            field="photo",
            hint="Send a smaller photo (a phone's normal photo size is fine).",
        )


def encode_jpeg(image: Image, max_side: int, quality: int = 85) -> bytes:
    """``image`` scaled down to ``max_side`` (never up) as JPEG bytes."""
    import cv2

    h, w = image.shape[:2]
    scale = max_side / max(h, w)
    if scale < 1:
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        image = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover - OpenCV encodes any uint8 BGR image
        raise RuntimeError("OpenCV could not encode the annotated photo")
    return bytes(buf)


#: The annotated thumbnail kept with a table's hand read from a photo (long side, px).
THUMBNAIL_SIDE = 360


def thumbnail_jpeg(drawn: Image) -> bytes:
    """The small annotated JPEG a table keeps with a hand read from a photo."""
    return encode_jpeg(drawn, THUMBNAIL_SIDE, quality=75)


def data_url(jpeg: bytes) -> str:
    """A ``data:`` URL an ``<img>`` can show.

    >>> data_url(b"abc")
    'data:image/jpeg;base64,YWJj'
    """
    return "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
