"""The versioned API (``/v1``): thin routes over ``vision`` and ``scoring``.

Photos are decoded, read and annotated in a worker thread (:class:`ReadPool`: a few at a
time, a bounded queue); scoring runs in a worker thread too. The event loop only moves bytes.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import anyio
import anyio.to_thread
from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from fastapi.responses import JSONResponse, Response

from scoring import ScoringInputError, city_names, describe_cities, get_city, result_to_dict, score
from scoring.request import loads_request
from scoring.tiles import Tile, TileError
from service.errors import ApiError, scoring_error
from service.photos import data_url, decode_photo
from service.reader import Reader
from service.schemas import (
    COMMON_FIELDS,
    SEAT_NAMES,
    WIN_METHODS,
    CitiesResponse,
    ErrorBody,
    ImageMode,
    ReadResponse,
    ScoreResponse,
    ScoreResult,
    score_request_schema,
)
from service.settings import Settings
from vision.images import encode_jpeg, thumbnail_jpeg

T = TypeVar("T")

#: Request fields a photo supplies; scoring errors on them are the reading's, fixable by
#: editing the tiles, and come back beside the reading rather than as a 422.
PHOTO_FIELDS = ("hand", "win_tile", "melds", "flowers", "indicator", "fishing")
RESHOOT = "Tap a tile to fix what was read, or take the photo again (docs/reading.md)."


# -- dependencies ------------------------------------------------------------------------------


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_reader(request: Request) -> Reader:
    """The photo reader loaded at start-up (tests override this dependency)."""
    reader: Reader | None = getattr(request.app.state, "reader", None)
    if reader is None:
        raise ApiError(503, "not_ready", "the tile reader is not loaded yet; try again shortly")
    return reader


class ReadPool:
    """Runs photo reads in worker threads, ``concurrency`` at a time; beyond ``max_waiting``
    requests in flight, new ones are turned away (503) instead of queueing without end."""

    def __init__(self, concurrency: int, max_waiting: int) -> None:
        self.limiter = anyio.CapacityLimiter(concurrency)
        self.max_waiting = max_waiting
        self.in_flight = 0

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        if self.in_flight >= self.max_waiting:
            raise ApiError(
                503,
                "busy",
                f"the server is reading {self.in_flight} photos; try again in a moment",
                headers={"Retry-After": "2"},
            )
        self.in_flight += 1
        try:
            return await anyio.to_thread.run_sync(fn, *args, limiter=self.limiter)
        finally:
            self.in_flight -= 1


def get_pool(request: Request) -> ReadPool:
    pool: ReadPool = request.app.state.pool
    return pool


class AnnotatedStore:
    """The latest annotated photos, for ``?image=url`` (in memory, this process only)."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._images: OrderedDict[str, bytes] = OrderedDict()

    def put(self, jpeg: bytes) -> str:
        key = uuid.uuid4().hex
        self._images[key] = jpeg
        while len(self._images) > self.keep:
            self._images.popitem(last=False)
        return key

    def get(self, key: str) -> bytes | None:
        return self._images.get(key)


def get_store(request: Request) -> AnnotatedStore:
    store: AnnotatedStore = request.app.state.annotated
    return store


# -- the read pipeline (worker thread) ---------------------------------------------------------


@dataclass(frozen=True)
class PhotoRead:
    reading: dict[str, Any]  # Reading.to_dict(city)
    request_fields: dict[str, Any]  # Reading.to_request_fields(city, winner)
    codes: tuple[str, ...]
    annotated: bytes | None  # JPEG
    thumbnail: bytes | None = None  # small JPEG (a table's hand)


def read_pipeline(
    reader: Reader,
    data: bytes,
    settings: Settings,
    *,
    win_tile: Tile | None,
    source: str,
    city: str | None,
    winner: int | None,
    annotate: bool,
    context: dict[str, Any] | None = None,
    thumbnail: bool = False,
) -> PhotoRead:
    """Decode (with the guards), read, and draw: everything CPU-bound, in one worker call.
    With the table's ``context`` (a score request), a reading that does not win gets a
    suggestion: the likeliest winning reading that renames only uncertain tiles.
    ``thumbnail``: also the small annotated JPEG a table keeps (drawn once for both)."""
    from vision.annotate import annotate as draw
    from vision.reading import ReadTimeout, read_deadline
    from vision.suggest import suggest, wins_with

    image = decode_photo(data, settings.max_pixels)
    try:
        with read_deadline(settings.read_timeout):
            reading = reader.read(image, win_tile=win_tile, source=source)
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
        drawn = draw(image, reading)
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


def score_dict(data: Any) -> dict[str, Any]:
    return result_to_dict(score(data))


# -- helpers -----------------------------------------------------------------------------------


async def _upload_bytes(photo: UploadFile, settings: Settings) -> bytes:
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


def _win_tile(value: object, field: str) -> Tile | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ApiError(422, "invalid_request", f"{field}: expected a tile like '5p'", field=field)
    try:
        return Tile.parse(value)
    except TileError as exc:
        raise ApiError(422, "invalid_request", f"{field}: {exc}", field=field) from None


def _check_city(name: object, field: str) -> str:
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
        from vision.reading import WARNING_CODES

        raise ApiError(
            422,
            "no_tiles",
            "photo: no tiles were found in the photo",
            field="photo",
            hint=WARNING_CODES["no_tiles"],
        )


def _image_link(read: PhotoRead, mode: ImageMode, store: AnnotatedStore) -> str | None:
    if read.annotated is None:
        return None
    if mode is ImageMode.url:
        return f"/v1/annotated/{store.put(read.annotated)}.jpg"
    return data_url(read.annotated)


def parse_json(text: str | bytes, field: str) -> Any:
    """JSON as ``hupai score`` reads it (no duplicate keys, no NaN/Infinity), errors as 422.

    >>> parse_json('{"a": 1, "a": 2}', "context")
    Traceback (most recent call last):
    ...
    service.errors.ApiError: context: key 'a' appears twice in one object
    """
    try:
        return loads_request(text, field)
    except ScoringInputError as exc:
        raise ApiError(422, "invalid_request", str(exc), field=field) from None


# -- routes ------------------------------------------------------------------------------------

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "a malformed multipart body"},
    413: {"model": ErrorBody, "description": "photo larger than allowed (bytes or pixels)"},
    415: {"model": ErrorBody, "description": "not an image hupai can read"},
    422: {
        "model": ErrorBody,
        "description": "invalid field (`field` names it), damaged photo, or no tiles found "
        "(`code` no_tiles, with a reshoot hint)",
    },
    503: {"model": ErrorBody, "description": "busy (too many photos in flight) or not ready"},
}

PHOTO_DOC = "the photo: JPEG, PNG, WebP, BMP, TIFF or GIF (docs/reading.md says how to shoot)"
IMAGE_DOC = "annotated photo as a data: URL (base64), a URL under /v1/annotated/ (url), or none"

router = APIRouter(prefix="/v1", tags=["v1"])


@router.get("/cities", response_model=CitiesResponse)
async def cities() -> dict[str, Any]:
    """Every city with its options (defaults) and its own request fields; the common fields."""
    return {
        "cities": describe_cities(),
        "common": COMMON_FIELDS,
        "seats": list(SEAT_NAMES),
        "win_methods": list(WIN_METHODS),
    }


@router.post("/read", response_model=ReadResponse, responses=ERRORS)
async def read(
    photo: Annotated[UploadFile, File(description=PHOTO_DOC)],
    reader: Annotated[Reader, Depends(get_reader)],
    settings: Annotated[Settings, Depends(get_settings)],
    pool: Annotated[ReadPool, Depends(get_pool)],
    store: Annotated[AnnotatedStore, Depends(get_store)],
    city: Annotated[
        str | None, Form(description="city whose field to use: indicator or fishing")
    ] = None,
    win_tile: Annotated[
        str | None, Form(description="the winning tile, when it is not set apart (e.g. 5p)")
    ] = None,
    image: Annotated[ImageMode, Query(description=IMAGE_DOC)] = ImageMode.base64,
) -> JSONResponse:
    """Read the hand from a photo: tiles, melds, winning tile, flowers, indicator or fishing
    tiles, warnings with advice, and the annotated photo."""
    city_name = None if city in (None, "") else _check_city(city, "city")
    win = _win_tile(win_tile, "win_tile")
    data = await _upload_bytes(photo, settings)
    result = await pool.run(
        _pipeline(reader, data, settings, win, photo, city_name, None, image is not ImageMode.none)
    )
    no_tiles(result)
    return JSONResponse(
        {"reading": result.reading, "annotated_image": _image_link(result, image, store)}
    )


@router.post("/score", response_model=ScoreResponse, responses=ERRORS)
async def score_photo(
    photo: Annotated[UploadFile, File(description=PHOTO_DOC)],
    context: Annotated[
        str,
        Form(
            description="the rest of the score request as a JSON object: `city`, `win`, "
            "`winner`, `discarder`, the city's fields and `options` (docs/schema.md); the "
            "photo's tiles replace any `hand`/`melds`/… given here; `win_tile` here tells "
            "which tile won when it is not set apart",
            examples=['{"city": "guiyang", "win": "self_draw", "winner": 1}'],
        ),
    ],
    reader: Annotated[Reader, Depends(get_reader)],
    settings: Annotated[Settings, Depends(get_settings)],
    pool: Annotated[ReadPool, Depends(get_pool)],
    store: Annotated[AnnotatedStore, Depends(get_store)],
    image: Annotated[ImageMode, Query(description=IMAGE_DOC)] = ImageMode.base64,
) -> JSONResponse:
    """Read the photo and score it with the table context: the reading, the request that was
    scored, the score (or why the tiles as read cannot be scored) and the annotated photo."""
    ctx = json_object(parse_json(context, "context"), "context")
    city = _check_city(ctx.get("city"), "context.city")
    win = _win_tile(ctx.get("win_tile"), "context.win_tile")
    seat = seat_or_none(ctx.get("winner"))
    data = await _upload_bytes(photo, settings)
    result = await pool.run(
        _pipeline(reader, data, settings, win, photo, city, seat, image is not ImageMode.none, ctx)
    )
    no_tiles(result)
    request = {**ctx, **result.request_fields}
    scored: dict[str, Any] | None = None
    problem: dict[str, Any] | None = None
    try:
        scored = await anyio.to_thread.run_sync(score_dict, request)
    except ScoringInputError as exc:
        if _root(exc.path) not in PHOTO_FIELDS:
            raise scoring_error(exc, "context.") from None
        problem = {
            "code": "unscorable_reading",
            "message": str(exc),
            "field": exc.path,
            "hint": RESHOOT,
        }
    return JSONResponse(
        {
            "reading": result.reading,
            "request": request,
            "score": scored,
            "score_error": problem,
            "annotated_image": _image_link(result, image, store),
        }
    )


@router.post(
    "/score/hand",
    response_model=ScoreResult,
    responses={
        415: {"model": ErrorBody, "description": "not sent as JSON"},
        422: {"model": ErrorBody, "description": "invalid request; `field` names the field"},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": score_request_schema(list(city_names()))}},
        }
    },
)
async def score_hand(request: Request) -> JSONResponse:
    """Score a hand given as the `hupai score` JSON request (docs/schema.md): for tiles
    corrected by hand, without the photo. Returns the `hupai score` result."""
    kind = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if kind != "application/json" and not kind.endswith("+json"):
        raise ApiError(
            415,
            "unsupported_media_type",
            f"send the request as application/json, not {kind or 'no content type'}",
        )
    data = parse_json(await request.body(), "request")
    try:
        result = await anyio.to_thread.run_sync(score_dict, data)
    except ScoringInputError as exc:
        raise scoring_error(exc) from None
    return JSONResponse(result)


@router.get(
    "/annotated/{key}.jpg",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}}}, 404: {"model": ErrorBody}},
)
async def annotated(key: str, store: Annotated[AnnotatedStore, Depends(get_store)]) -> Response:
    """An annotated photo made by `?image=url` (the latest few are kept)."""
    jpeg = store.get(key)
    if jpeg is None:
        raise ApiError(404, "not_found", "no such annotated photo (or no longer kept)")
    return Response(
        jpeg, media_type="image/jpeg", headers={"Cache-Control": "private, max-age=600"}
    )


def _pipeline(
    reader: Reader,
    data: bytes,
    settings: Settings,
    win: Tile | None,
    photo: UploadFile,
    city: str | None,
    winner: int | None,
    annotate: bool,
    context: dict[str, Any] | None = None,
    thumbnail: bool = False,
) -> Callable[[], PhotoRead]:
    source = (photo.filename or "photo")[:200]

    def run() -> PhotoRead:
        return read_pipeline(
            reader,
            data,
            settings,
            win_tile=win,
            source=source,
            city=city,
            winner=winner,
            annotate=annotate,
            context=context,
            thumbnail=thumbnail,
        )

    return run


def _root(path: str) -> str:
    """``melds[1].tiles`` → ``melds``."""
    for i, ch in enumerate(path):
        if ch in ".[":
            return path[:i]
    return path
