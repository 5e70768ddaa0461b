"""What a request gives, checked: the uploaded photo's bytes, form fields, JSON text. Each
refusal is an :class:`~hupai.service.errors.ApiError` naming the field."""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from fastapi import UploadFile

from hupai.scoring import ScoringInputError, city_names, get_city
from hupai.scoring.tiles import Tile, TileError
from hupai.service.errors import ApiError
from hupai.service.pipeline import PhotoRead
from hupai.service.settings import Settings
from hupai.service.text import read_json

PHOTO_DOC = "the photo: JPEG, PNG, WebP, BMP, TIFF or GIF (docs/reading.md says how to shoot)"


async def upload_bytes(photo: UploadFile, settings: Settings) -> bytes:
    data = await photo.read(settings.max_upload_bytes + 1)
    if len(data) > settings.max_upload_bytes:
        raise ApiError(
            413,
            "too_large",
            f"photo: more than the {settings.max_upload_bytes / 2**20:g} MiB allowed",
            field="photo",
            hint="Send a smaller photo (a phone's normal photo size is fine).",
        )
    return data


def win_tile(value: object, field: str) -> Tile | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ApiError(422, "invalid_request", f"{field}: expected a tile like '5p'", field=field)
    try:
        return Tile.parse(value)
    except TileError as exc:
        raise ApiError(422, "invalid_request", f"{field}: {exc}", field=field) from None


def check_city(name: object, field: str) -> str:
    if name is None:
        known = ", ".join(city_names())
        raise ApiError(422, "invalid_request", f"{field}: required; known: {known}", field=field)
    try:
        return get_city(name).name
    except ScoringInputError as exc:
        raise ApiError(422, "invalid_request", f"{field}: {exc.message}", field=field) from None


def json_object(value: Any, field: str) -> dict[str, Any]:
    """``value`` when it is a JSON object, else a 422 naming ``field``."""
    if not isinstance(value, dict):
        raise ApiError(422, "invalid_request", f"{field}: expected a JSON object", field=field)
    return value


def seat_or_none(value: object) -> int | None:
    """A winner given as 0-3 (a seat, or a table's player), else None: the reading then
    leaves claimed melds' ``from`` out, and scoring names the bad value."""
    return value if type(value) is int and 0 <= value <= 3 else None


def no_tiles(read: PhotoRead) -> None:
    if "no_tiles" in read.codes:
        from hupai.vision.reading import WARNING_CODES

        raise ApiError(
            422,
            "no_tiles",
            "photo: no tiles were found in the photo",
            field="photo",
            hint=WARNING_CODES["no_tiles"],
        )


async def parse_json(text: str | bytes, field: str) -> Any:
    """JSON in a form field or a body, read by the API's one reader (:func:`read_json`) in a
    worker thread: the event loop only moves bytes."""
    return await anyio.to_thread.run_sync(read_json, text, field)
