"""The one photo decoder: the cost of a decode is bounded from the header, and the same bad
photo gets the same answer from bytes and from a file."""

from __future__ import annotations

import io
import resource
import time
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageOps

from hupai.vision.images import DECODE_PIXELS, PhotoError, decode_image, load_image


def jpeg(width: int, height: int, **save: object) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, "JPEG", **save)
    return out.getvalue()


def claiming(width: int, height: int) -> bytes:
    """A tiny JPEG whose header claims ``width × height``."""
    data = bytearray(jpeg(16, 16, quality=50))
    sof = data.find(b"\xff\xc0")
    data[sof + 5 : sof + 7] = height.to_bytes(2, "big")
    data[sof + 7 : sof + 9] = width.to_bytes(2, "big")
    return bytes(data)


def test_a_tiny_jpeg_claiming_7000_by_7000_is_cheap() -> None:
    data = claiming(7000, 7000)
    assert len(data) < 1000
    phone = jpeg(4032, 3024)
    start = time.perf_counter()
    decode_image(phone)
    phone_seconds = time.perf_counter() - start  # the machine's speed now (it may be busy)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    image = decode_image(data)
    seconds = time.perf_counter() - start
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert image.shape[0] * image.shape[1] <= DECODE_PIXELS
    assert seconds < 3 * phone_seconds + 0.1  # what a phone photo costs, not 4x its pixels
    assert grown_mb < 200


def test_a_phone_sized_jpeg_is_decoded_whole() -> None:
    assert decode_image(jpeg(4032, 3024)).shape == (3024, 4032, 3)


def test_a_larger_jpeg_is_decoded_at_half_size() -> None:
    assert decode_image(jpeg(6000, 4000)).shape == (2000, 3000, 3)


def test_exif_orientation_survives_the_reduced_decode() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to view
    out = io.BytesIO()
    Image.new("RGB", (6000, 4000)).save(out, "JPEG", exif=exif)
    assert decode_image(out.getvalue()).shape[:2] == (3000, 2000)


def test_too_many_pixels_says_how_many() -> None:
    with pytest.raises(PhotoError, match=r"7000×7000 = 49 megapixels is more than the 10 allowed"):
        decode_image(claiming(7000, 7000), max_pixels=10_000_000)


def test_pillows_own_bomb_refusal_is_ours() -> None:
    with pytest.raises(PhotoError) as info:
        decode_image(claiming(65000, 65000))
    assert info.value.code == "too_many_pixels"
    assert "Image size" not in info.value.message and "DOS" not in info.value.message


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "empty_photo"),
        (b"%PDF-1.7 not a photo", "unsupported_format"),
        (b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00", "unsupported_format"),
        (jpeg(8, 8), "photo_too_small"),
    ],
)
def test_bad_photos_get_a_code(data: bytes, code: str) -> None:
    with pytest.raises(PhotoError) as info:
        decode_image(data)
    assert info.value.code == code


def test_a_file_that_is_no_image_is_named_so_in_a_process_that_trained(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pillows_open = Image.open

    def as_ultralytics_patches_it(fp, mode="r", formats=None):  # type: ignore[no-untyped-def]
        """ultralytics.utils.patches.image_open: on a file Pillow cannot identify, import
        pi_heif (not installed here) and try again."""
        try:
            return pillows_open(fp, mode, formats)
        except Image.UnidentifiedImageError:
            raise ModuleNotFoundError("No module named 'pi_heif'") from None

    monkeypatch.setattr(Image, "open", as_ultralytics_patches_it)
    with pytest.raises(PhotoError) as info:
        decode_image(b"%PDF-1.7 not a photo")
    assert info.value.code == "unsupported_format"


def test_a_file_gets_the_same_answer_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "bomb.jpg"
    path.write_bytes(claiming(7000, 7000))
    with pytest.raises(PhotoError) as from_bytes:
        decode_image(path.read_bytes(), max_pixels=10_000_000)
    with pytest.raises(PhotoError) as from_file:
        load_image(path, max_pixels=10_000_000)
    assert from_file.value.code == from_bytes.value.code
    assert str(from_file.value) == f"{path}: {from_bytes.value}"


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(PhotoError, match=r"nothing\.jpg: no such file"):
        load_image(tmp_path / "nothing.jpg")


def test_a_jpeg_decodes_to_pillows_pixels_turned_by_its_exif() -> None:
    rng = np.random.default_rng(0)
    exif = Image.Exif()
    exif[0x0112] = 6
    out = io.BytesIO()
    Image.fromarray(rng.integers(0, 255, (48, 64, 3), np.uint8)).save(out, "JPEG", exif=exif)
    pillow = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(out.getvalue()))))
    assert np.array_equal(decode_image(out.getvalue()), pillow[:, :, ::-1])


def test_a_truncated_jpeg_is_refused_not_filled_in() -> None:
    data = jpeg(640, 480)
    with pytest.raises(PhotoError) as caught:
        decode_image(data[: len(data) // 2])
    assert caught.value.code == "damaged_photo"
