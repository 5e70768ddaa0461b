"""The read pipeline: a photo's bytes → decoded, read, drawn — everything CPU-bound, in one
call made in a worker thread (:class:`~hupai.service.dependencies.ReadPool`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hupai.scoring.tiles import Tile
from hupai.service.errors import ApiError
from hupai.service.photos import photo_error
from hupai.service.reader import Reader
from hupai.service.settings import Settings
from hupai.vision.images import Image, PhotoError, encode_jpeg, thumbnail_jpeg
from hupai.vision.result import Reading


@dataclass(frozen=True)
class PhotoRead:
    reading: dict[str, Any]  # Reading.to_dict(city)
    request_fields: dict[str, Any]  # Reading.to_request_fields(city, winner)
    codes: tuple[str, ...]
    annotated: bytes | None  # JPEG
    thumbnail: bytes | None = None  # small JPEG (a table's hand)


def read_pipeline(
    *,
    reader: Reader,
    data: bytes,
    settings: Settings,
    source: str,
    city: str | None,
    winner: int | None = None,
    win_tile: Tile | None = None,
    annotate: bool = False,
    thumbnail: bool = False,
    context: dict[str, Any] | None = None,
) -> PhotoRead:
    """Decode (with the guards), read, and draw. With the score request's ``context``, a
    reading that does not win gets a suggestion: the likeliest winning reading that renames
    only uncertain tiles. ``annotate``: the annotated photo; ``thumbnail``: also the small
    annotated JPEG a table keeps (drawn once for both)."""
    from hupai.vision.annotate import annotate as draw
    from hupai.vision.photo_read import read_photo_data
    from hupai.vision.reading import ReadTimeout, read_deadline
    from hupai.vision.suggest import suggest, wins_with

    def read(image: Image) -> Reading:
        return reader.read(image, win_tile=win_tile, source=source)

    try:
        with read_deadline(settings.read_timeout):
            image, reading = read_photo_data(data, read, settings.max_pixels)
    except PhotoError as exc:
        raise photo_error(exc) from None
    except ReadTimeout as exc:
        raise ApiError(
            422,
            "read_timeout",
            f"photo: {exc}",
            field="photo",
            hint="Send a smaller photo, or one cropped to the hand.",
        ) from None
    jpeg = small = None
    if (annotate or thumbnail) and len(reading.detections):
        drawn = draw(image, reading, labels=False)  # the page words the tiles itself
        jpeg = encode_jpeg(drawn, settings.annotated_max_side) if annotate else None
        small = thumbnail_jpeg(drawn) if thumbnail else None
    read_dict = reading.to_dict(city)
    if context is not None:
        found = suggest(reading, wins_with(context), city, winner)
        read_dict["suggestion"] = None if found is None else found.to_dict()
    return PhotoRead(
        reading=read_dict,
        request_fields=reading.to_request_fields(city, winner),
        codes=tuple(reading.codes),
        annotated=jpeg,
        thumbnail=small,
    )


def photo_source(filename: str | None) -> str:
    """The name a reading gives its photo (the upload's file name, cut short)."""
    return (filename or "photo")[:200]
