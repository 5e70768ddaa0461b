"""The one photo decoder: bytes or a file → an upright BGR image, with the guards a public
endpoint needs; and an image → JPEG. Every read of a photo (:mod:`hupai.vision.photo_read`:
the service, ``hupai read``/``label``/``eval``/``score --photo``), ``hupai table add --photo``
and :func:`hupai.vision.detector.load_image` decode here, so that the same bad photo gets the
same answer everywhere (the service maps :class:`PhotoError`'s ``code`` to its HTTP status).

What a decode may cost is bounded from the file's header, before any pixel is decoded: the
size in pixels is checked (decompression bombs), and a JPEG larger than :data:`DECODE_PIXELS`
is decoded at 1/2, 1/4 or 1/8 of its size by libjpeg itself (a 700-byte file whose header
claims 7000 × 7000 costs what a phone photo costs, not 150 MB per copy and seconds). A
progressive JPEG's cost grows with its scans as well as its pixels, and no reduction lowers
it (every scan is entropy-decoded whole, into a buffer of the whole photo's coefficients):
its scans are counted in one pass over its markers (:func:`jpeg_scans`), and one with more than
:data:`MAX_SCANS`, or whose size and scans would cost more than :data:`SCAN_BUDGET`, is refused
before decoding (a 243 KB file of 6,000 scans once cost 13.5 s of CPU; a camera writes one
scan, or about ten).

>>> decode_image(b"")
Traceback (most recent call last):
...
hupai.vision.images.PhotoError: the file is empty
>>> decode_image(b"%PDF-1.7 ...")
Traceback (most recent call last):
...
hupai.vision.images.PhotoError: not an image file hupai can read (JPEG, PNG, WebP, BMP, TIFF, GIF)
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: A BGR uint8 image, as OpenCV and the detector use.
Image = NDArray[np.uint8]

#: What Pillow decodes that a phone or a scanner produces (MPO: JPEG with a depth map).
FORMATS = {"JPEG", "MPO", "PNG", "WEBP", "BMP", "TIFF", "GIF"}
FORMAT_NAMES = "JPEG, PNG, WebP, BMP, TIFF, GIF"
#: Formats libjpeg can decode at a reduced scale (``draft``).
_SCALABLE = {"JPEG", "MPO"}
MIN_SIDE = 16
#: Largest image accepted by default (width × height, from the header).
MAX_PIXELS = 50_000_000
#: A JPEG with more pixels is decoded at the smallest reduction that fits: a 12-MP phone
#: photo (4032 × 3024) is decoded whole, a 48-MP one at half size (plenty for ~100-px tiles).
#: The service decodes smaller first (:mod:`hupai.vision.photo_read`), whole only for small tiles.
DECODE_PIXELS = 16_000_000
#: ISO base media brands of HEIC/HEIF/AVIF photos (bytes 8-12 after ``ftyp``).
_HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"mif1", b"msf1", b"heim", b"heis", b"avif"}
#: The most scans a progressive JPEG may have: libjpeg and mozjpeg write 6-12, and each scan
#: costs a pass over the photo's coefficients (~0.07 ms a megapixel, more for brightness).
MAX_SCANS = 64
#: What a JPEG of several scans may cost to decode, in megapixels × (scans + 6): measured
#: ~1 ms of CPU a unit (the 6: the coefficient buffer and the last pass), so at most ~0.3 s —
#: a camera's ten scans up to 20 MP, about 3× what a 12-MP photo's read costs in all. One
#: scan (baseline, what phones write) is streamed and decoded reduced: not counted.
SCAN_BUDGET = 320
#: The most markers read while counting scans: a camera writes a few dozen, and the count
#: itself must stay cheap (a file of 4-byte segments would make millions).
MAX_MARKERS = 4096
RESEND = "Send the photo again; if it keeps failing, take a new one."
AS_TAKEN = "Send the photo as the camera saved it."
SMALLER = "Send a smaller photo (a phone's normal photo size is fine)."


class ImageError(ValueError):
    """An image that cannot be read or written; the message names the file."""


class PhotoError(ImageError):
    """A photo hupai cannot use. ``code`` says why, for a program: ``empty_photo``,
    ``unsupported_format``, ``too_many_pixels``, ``damaged_photo``, ``photo_too_small``,
    ``no_such_file``; the message says it for a person, ``hint`` what to do."""

    def __init__(self, code: str, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint


def load_image(path: str | Path, max_pixels: int = MAX_PIXELS) -> Image:
    """The photo in the file at ``path`` decoded whole (see :func:`decode_image`); a
    :class:`PhotoError` names the file. Reading a photo decodes it no larger than its tiles
    need: :func:`hupai.vision.photo_read.read_photo_file`."""
    data = photo_bytes(path)
    try:
        return decode_image(data, max_pixels)
    except PhotoError as exc:
        raise PhotoError(exc.code, f"{path}: {exc.message}", exc.hint) from None


def photo_bytes(path: str | Path) -> bytes:
    """The bytes of the photo file at ``path``; a :class:`PhotoError` (``no_such_file``)
    names the file where it cannot be read."""
    path = Path(path)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise PhotoError("no_such_file", f"{path}: no such file") from None
    except IsADirectoryError:
        raise PhotoError("no_such_file", f"{path}: is a folder, not a photo") from None
    except OSError as exc:
        raise PhotoError("no_such_file", f"{path}: cannot be read ({exc.strerror})") from None


def decode_image(data: bytes, max_pixels: int = MAX_PIXELS, budget: int | None = None) -> Image:
    """The photo as a BGR uint8 array, turned upright by its EXIF orientation; a JPEG over
    ``budget`` pixels (:data:`DECODE_PIXELS` by default) decoded at 1/2, 1/4 or 1/8."""
    from PIL import Image as PILImage
    from PIL import UnidentifiedImageError

    if not data:
        raise PhotoError("empty_photo", "the file is empty")
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        raise PhotoError(
            "unsupported_format",
            "HEIC/HEIF/AVIF photos are not supported; send a JPEG",
            "On an iPhone: Settings › Camera › Formats › Most Compatible, or share the "
            "photo as JPEG.",
        )
    try:
        with PILImage.open(io.BytesIO(data)) as opened:
            _check_header(opened, max_pixels)
            if opened.format in _SCALABLE:
                _check_scans(data, *opened.size)
            scale = _scale(opened, DECODE_PIXELS if budget is None else budget)
            bgr = _whole_jpeg_by_opencv(data, opened.format, scale)
            if bgr is None:
                if scale > 1:
                    width, height = opened.size
                    opened.draft("RGB", (-(-width // scale), -(-height // scale)))
                bgr = np.ascontiguousarray(_upright_rgb(opened)[:, :, ::-1])
    except PhotoError:
        raise
    except (UnidentifiedImageError, ImportError):
        # ImportError: ultralytics, once imported in the process (training, retraining, mAP),
        # replaces PIL's open with one that tries pi_heif on any file Pillow cannot identify
        # — not installed here — so an unreadable file raised it instead of Pillow's error
        raise PhotoError(
            "unsupported_format", f"not an image file hupai can read ({FORMAT_NAMES})"
        ) from None
    except PILImage.DecompressionBombError:
        # Pillow's own refusal, at open, of a header claiming hundreds of megapixels
        raise PhotoError(
            "too_many_pixels",
            f"its header claims more than {_megapixels(2 * _pillow_limit())} megapixels; "
            f"at most {_megapixels(max_pixels)} are allowed",
            SMALLER,
        ) from None
    except (OSError, SyntaxError, ValueError, EOFError, IndexError, KeyError) as exc:
        # Pillow's truncated/damaged-file errors come in all of these types.
        raise PhotoError(
            "damaged_photo",
            f"cannot read the image: it is truncated or damaged ({_first_line(exc)})",
            RESEND,
        ) from None
    if bgr.ndim != 3 or bgr.shape[0] < MIN_SIDE or bgr.shape[1] < MIN_SIDE:
        raise PhotoError(
            "photo_too_small", f"{bgr.shape[1]}×{bgr.shape[0]} px is too small to read tiles"
        )
    return bgr


def photo_size(data: bytes) -> tuple[int, int]:
    """Width and height as the file's header states them (before its EXIF turn), read
    without decoding; ``(0, 0)`` when the header cannot be read."""
    from PIL import Image as PILImage

    try:
        with PILImage.open(io.BytesIO(data)) as opened:
            return opened.size
    except Exception:  # decode_image gives the reason; this only measures
        return (0, 0)


#: OpenCV's flags for a JPEG decoded at 1/1, 1/2, 1/4, 1/8 (EXIF orientation applied).
_OPENCV_FLAGS = {1: 1, 2: 17, 4: 33, 8: 65}  # IMREAD_COLOR, IMREAD_REDUCED_COLOR_2/4/8


def _whole_jpeg_by_opencv(data: bytes, fmt: str | None, scale: int) -> Image | None:
    """A complete JPEG decoded by OpenCV's libjpeg-turbo straight into BGR: the same pixels
    as Pillow's, in about 0.4× the time (no RGB copy, no separate EXIF turn). None where
    Pillow should decode: not a JPEG, or a file that does not end with the JPEG end
    marker (a truncated upload, which Pillow refuses with a reason and OpenCV would fill
    with grey)."""
    if fmt not in _SCALABLE or not data.rstrip(b"\0").endswith(b"\xff\xd9"):
        return None
    import cv2

    try:
        bgr = cv2.imdecode(np.frombuffer(data, np.uint8), _OPENCV_FLAGS[scale])
    except cv2.error:
        return None
    if bgr is None or bgr.ndim != 3:
        return None
    return np.asarray(bgr, dtype=np.uint8)


def _check_header(opened: Any, max_pixels: int) -> None:
    """Refuse, from the header alone, what is not a photo or is too large to decode."""
    if opened.format not in FORMATS:
        raise PhotoError(
            "unsupported_format",
            f"{opened.format} images are not supported ({FORMAT_NAMES})",
        )
    width, height = opened.size
    if width * height > max_pixels:
        raise PhotoError(
            "too_many_pixels",
            f"{width}×{height} = {_megapixels(width * height)} megapixels is more than the "
            f"{_megapixels(max_pixels)} allowed",
            SMALLER,
        )


def _check_scans(data: bytes, width: int, height: int) -> None:
    """Refuse a JPEG whose scans would cost more than a photo may (:data:`MAX_SCANS`,
    :data:`SCAN_BUDGET`)."""
    scans = jpeg_scans(data)
    if scans is None:
        raise PhotoError(
            "too_costly",
            f"a JPEG of more than {MAX_MARKERS} segments and scans; a camera writes a few dozen",
            AS_TAKEN,
        )
    if scans > MAX_SCANS:
        raise PhotoError(
            "too_costly",
            f"a progressive JPEG of {scans} scans; at most {MAX_SCANS} are read (a camera "
            "writes one, or about ten)",
            AS_TAKEN,
        )
    megapixels = width * height / 1e6
    if scans > 1 and megapixels * (scans + 6) > SCAN_BUDGET:
        allowed = int(SCAN_BUDGET / megapixels) - 6
        room = f"at most {allowed} at this size" if allowed > 1 else "none at this size"
        raise PhotoError(
            "too_costly",
            f"a progressive JPEG of {scans} scans over {_megapixels(width * height)} "
            f"megapixels costs more to decode than a photo may ({room})",
            "Send the photo as the camera saved it, or a smaller one.",
        )


#: Where a JPEG's entropy-coded data ends: a 0xFF that is neither a stuffed 0x00 nor a
#: restart marker (RST0-7 sit inside a scan's data).
_SCAN_END = re.compile(rb"\xff[^\x00\xd0-\xd7]")
#: Markers without a length: TEM, RST0-7 (SOI and EOI are handled apart).
_BARE = {0x01, *range(0xD0, 0xD8)}


def jpeg_scans(data: bytes) -> int | None:
    """The scans (SOS markers) of the JPEG's first image, counted in one pass over its
    markers: a segment's length skips it (an EXIF thumbnail's scans are not counted), a
    scan's data is skipped by one search for the next marker. None when the file has more
    than :data:`MAX_MARKERS` markers before its end.

    >>> two = "ffd8 ffda0002 6162ff0063ffd064 ffda0002 65 ffd9"  # stuffing, a restart
    >>> jpeg_scans(bytes.fromhex(two))
    2
    >>> jpeg_scans(bytes.fromhex("ffd8" + "ff01" * 5000 + "ffd9")) is None
    True
    """
    pos, scans, markers, end = 2, 0, 0, len(data)
    while pos < end - 1:
        if data[pos] != 0xFF or data[pos + 1] == 0x00:  # stray bytes: libjpeg skips them
            found = _SCAN_END.search(data, pos + 1)
            if found is None:
                break
            pos = found.start()
            continue
        code = data[pos + 1]
        if code == 0xFF:  # fill byte before a marker
            pos += 1
            continue
        markers += 1
        if markers > MAX_MARKERS:
            return None
        if code == 0xD9:
            break
        if code in _BARE or code == 0xD8:
            pos += 2
            continue
        length = int.from_bytes(data[pos + 2 : pos + 4], "big")
        pos += 2 + max(length, 2)
        if code == 0xDA:
            scans += 1
            found = _SCAN_END.search(data, pos)
            if found is None:
                break
            pos = found.start()
    return scans


def _scale(opened: Any, budget: int) -> int:
    """How much a JPEG is reduced as it is decoded (1 for other formats)."""
    width, height = opened.size
    return reduction(width, height, budget) if opened.format in _SCALABLE else 1


def reduction(width: int, height: int, budget: int = DECODE_PIXELS) -> int:
    """The JPEG scale denominator (1, 2, 4 or 8) that brings ``width × height`` within
    ``budget`` pixels (8 at most: libjpeg's smallest).

    >>> reduction(4032, 3024), reduction(8000, 6000), reduction(7000, 7000), reduction(60000, 60000)
    (1, 2, 2, 8)
    """
    scale = 1
    while scale < 8 and (width // scale) * (height // scale) > budget:
        scale *= 2
    return scale


def _upright_rgb(opened: Any) -> NDArray[np.uint8]:
    from PIL import ImageOps

    upright = ImageOps.exif_transpose(opened)
    rgb = upright if upright.mode == "RGB" else upright.convert("RGB")
    return np.asarray(rgb, dtype=np.uint8)


def _pillow_limit() -> int:
    from PIL import Image as PILImage

    return int(PILImage.MAX_IMAGE_PIXELS or 0)


def _megapixels(pixels: int) -> str:
    return f"{pixels / 1e6:.1f}".removesuffix(".0")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:160] if text else type(exc).__name__


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
        raise RuntimeError("OpenCV could not encode the image as JPEG")
    return bytes(buf)


#: The annotated thumbnail kept with a table's hand read from a photo (long side, px).
THUMBNAIL_SIDE = 360


def thumbnail_jpeg(drawn: Image) -> bytes:
    """The small annotated JPEG a table keeps with a hand read from a photo."""
    return encode_jpeg(drawn, THUMBNAIL_SIDE, quality=75)
