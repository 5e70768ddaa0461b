"""The versioned API's routes (``/v1``): thin routes over ``vision`` and ``scoring``.

What a route is given is in :mod:`hupai.service.dependencies`, how a request's fields are
checked in :mod:`hupai.service.inputs`, and the photo's decode-read-draw in
:mod:`hupai.service.pipeline` (run in a worker thread by the read pool); scoring runs in a
worker thread too. The event loop only moves bytes.
"""

from __future__ import annotations

from typing import Annotated, Any

import anyio.to_thread
from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from fastapi.responses import JSONResponse, Response

from hupai.scoring import ScoringInputError, city_names, describe_cities
from hupai.service.dependencies import (
    AnnotatedStore,
    ReadPool,
    get_pool,
    get_reader,
    get_settings,
    get_store,
)
from hupai.service.errors import ApiError, scoring_error
from hupai.service.inputs import (
    PHOTO_DOC,
    check_city,
    json_object,
    no_tiles,
    parse_json,
    seat_or_none,
    upload_bytes,
)
from hupai.service.inputs import win_tile as parse_win_tile
from hupai.service.photos import data_url
from hupai.service.pipeline import PhotoRead, photo_source, read_pipeline
from hupai.service.reader import Reader
from hupai.service.schemas import (
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
from hupai.service.settings import Settings
from hupai.vision.trust import score_dict, score_doubts, trust_fields

#: Request fields a photo supplies; scoring errors on them are the reading's, fixable by
#: editing the tiles, and come back beside the reading rather than as a 422.
PHOTO_FIELDS = ("hand", "win_tile", "melds", "flowers", "indicator", "fishing")
RESHOOT = "Tap a tile to fix what was read, or take the photo again (docs/reading.md)."


def _image_link(read: PhotoRead, mode: ImageMode, store: AnnotatedStore) -> str | None:
    if read.annotated is None:
        return None
    if mode is ImageMode.url:
        return f"/v1/annotated/{store.put(read.annotated, read.reading)}.jpg"
    return data_url(read.annotated)


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
    city_name = None if city in (None, "") else check_city(city, "city")
    win = parse_win_tile(win_tile, "win_tile")
    data = await upload_bytes(photo, settings)
    result = await pool.run(
        read_pipeline,
        reader=reader,
        data=data,
        settings=settings,
        source=photo_source(photo.filename),
        city=city_name,
        win_tile=win,
        annotate=image is not ImageMode.none,
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
    ctx = json_object(await parse_json(context, "context"), "context")
    city = check_city(ctx.get("city"), "context.city")
    win = parse_win_tile(ctx.get("win_tile"), "context.win_tile")
    seat = seat_or_none(ctx.get("winner"))
    data = await upload_bytes(photo, settings)
    result = await pool.run(
        read_pipeline,
        reader=reader,
        data=data,
        settings=settings,
        source=photo_source(photo.filename),
        city=city,
        winner=seat,
        win_tile=win,
        annotate=image is not ImageMode.none,
        context=ctx,
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
    doubts = await anyio.to_thread.run_sync(
        lambda: score_doubts(
            result.reading,
            request,
            scored,
            None if problem is None else problem["message"],
            win_tile_given=win is not None,
        )
    )
    return JSONResponse(
        {
            "reading": result.reading,
            "request": request,
            "score": scored,
            "score_error": problem,
            **trust_fields(result.reading, doubts),
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
    data = await parse_json(await request.body(), "request")
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


def _root(path: str) -> str:
    """``melds[1].tiles`` → ``melds``."""
    for i, ch in enumerate(path):
        if ch in ".[":
            return path[:i]
    return path
