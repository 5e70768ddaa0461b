"""``/v1/tables``: a table's whole game (thin routes over :mod:`ledger`).

A table is reached by one of its two unguessable tokens: the write link changes it, the
read link (to share with the other players) only shows it. Hands are given in players'
terms (0–3, the table's chair order); the table fills in the dealer, seats, round wind and
streak. See docs/service.md, "Tables".
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import anyio.to_thread
from fastapi import (
    APIRouter,
    Body,
    Depends,
    File,
    Form,
    Header,
    Path,
    Query,
    Request,
    UploadFile,
)
from fastapi.responses import JSONResponse, Response

from hupai.ledger.errors import LedgerError
from hupai.ledger.store import Ledger, PhotoRecord
from hupai.scoring.fields import describe_fields
from hupai.scoring.house import HouseRules
from hupai.service.dependencies import (
    AnnotatedStore,
    ReadPool,
    get_pool,
    get_reader,
    get_settings,
    get_store,
    spend_table_creation,
)
from hupai.service.errors import ApiError
from hupai.service.inputs import (
    PHOTO_DOC,
    json_object,
    no_tiles,
    parse_json,
    seat_or_none,
    upload_bytes,
)
from hupai.service.pipeline import photo_source, read_pipeline
from hupai.service.reader import Reader
from hupai.service.schemas import ErrorBody
from hupai.service.settings import Settings
from hupai.vision.images import decode_image, thumbnail_jpeg
from hupai.vision.trust import score_doubts, trust_fields

T = TypeVar("T")

router = APIRouter(prefix="/v1/tables", tags=["tables"])

Token = Annotated[
    str,
    Path(description="the table's write token, or its read token for a read-only view"),
]
Number = Annotated[int, Path(ge=1, le=10**9, description="the hand's number at the table")]
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "a body that is not JSON (or not multipart)"},
    403: {"model": ErrorBody, "description": "the read-only link cannot change the table"},
    404: {"model": ErrorBody, "description": "no such table or hand"},
    409: {"model": ErrorBody, "description": "the hand changed since it was loaded (revision)"},
    410: {"model": ErrorBody, "description": "the photo named by `photo` is no longer kept"},
    422: {"model": ErrorBody, "description": "invalid field, or a hand that does not score"},
    413: {"model": ErrorBody, "description": "a body larger than allowed"},
    503: {"model": ErrorBody, "description": "the table database cannot be reached"},
}

TABLE_EXAMPLE = {
    "name": "Friday",
    "city": "guiyang",
    "players": ["Ann", "Bo", "Chen", "Dee"],
    "first_dealer": 0,
    "starting_points": 0,
    "rate": "0.5",
    "options": {"cap": 50, "dealer_double": True},
}
HAND_EXAMPLE = {
    "kind": "win",
    "winner": 2,
    "win": "discard",
    "discarder": 1,
    "hand": "123p123p456m789m55s",
    "win_tile": "5s",
    "indicator": "9p",
}


def _house_rules_schema() -> dict[str, Any]:
    """The house rules every city's options start with, as JSON Schema properties, from
    scoring's own field descriptions (``GET /v1/cities`` lists every city's options)."""
    out: dict[str, Any] = {}
    for f in describe_fields(HouseRules):
        prop: dict[str, Any] = {"type": f["type"], "default": f["default"], "description": f["doc"]}
        if "min" in f:
            prop["minimum"] = f["min"]
        if "max" in f:
            prop["maximum"] = f["max"]
        out[f["name"]] = prop
    return out


#: A table's ``options`` (JSON Schema): the house rules, then any option of the city.
OPTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "the city's options, set once for the table and used for every hand: the "
    "house rules every city takes (`cap`, `dealer_double`) and the city's own options and "
    "variants (`GET /v1/cities` lists each city's, with types, defaults and docs)",
    "properties": _house_rules_schema(),
    "additionalProperties": True,
}
TABLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["city", "players"],
    "properties": {
        "city": {"type": "string", "description": "the city's rules (GET /v1/cities)"},
        "players": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 4,
            "maxItems": 4,
            "description": "four names in chair order (turn order)",
        },
        "name": {"type": "string", "description": "a name for the table"},
        "options": {**OPTIONS_SCHEMA, "type": ["object", "null"]},
        "first_dealer": {"type": "integer", "minimum": 0, "maximum": 3, "default": 0},
        "starting_points": {"type": "integer", "default": 0},
        "rate": {"type": ["string", "number", "null"], "description": "money per point"},
        "succession": {
            "type": ["string", "null"],
            "enum": ["next", "winner", None],
            "description": "who deals after a non-dealer's win, where the seed is silent",
        },
    },
}
OPTIONS_CHANGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["revision", "options"],
    "properties": {
        "revision": {
            "type": "integer",
            "description": "the table's `revision` the change was made from (a newer one "
            "answers 409)",
        },
        "options": {**OPTIONS_SCHEMA, "description": "the table's new options, whole"},
        "city": {
            "type": "string",
            "description": "a new city for the table (GET /v1/cities): every hand already "
            "recorded is scored again under its rules (`options` are then the new city's)",
        },
    },
}


def get_ledger(request: Request) -> Ledger:
    """The ledger (tests override this dependency)."""
    ledger: Ledger = request.app.state.ledger
    return ledger


LedgerDep = Annotated[Ledger, Depends(get_ledger)]


async def _call(
    fn: Callable[..., T], *args: Any, hint: str | None = None, extra: dict[str, Any] | None = None
) -> T:
    """Run a ledger call in a worker thread; its refusals become API errors (with ``hint``
    and ``extra`` fields added)."""
    try:
        return await anyio.to_thread.run_sync(fn, *args)
    except LedgerError as exc:
        raise ApiError(
            exc.status,
            exc.code,
            exc.message,
            field=exc.field,
            hint=hint,
            extra={**exc.extra, **(extra or {})},
        ) from None


@router.post(
    "",
    status_code=201,
    responses={**ERRORS, 429: {"model": ErrorBody, "description": "too many tables just now"}},
)
async def create_table(
    request: Request,
    ledger: LedgerDep,
    table: Annotated[
        dict[str, Any],
        Body(
            description="`city`, `players` (4 names in chair order, i.e. turn order), and "
            "optionally `name`, `options` (the city's), `first_dealer` (0–3), "
            "`starting_points`, `rate` (money per point), `succession` (`next` or "
            "`winner`, where the city's seed leaves it open)",
            examples=[TABLE_EXAMPLE],
            json_schema_extra=TABLE_SCHEMA,
        ),
    ],
) -> JSONResponse:
    """Start a table. The answer holds the write token (keep it) and the read token (share
    it); each is the key in this API's paths and in the page's link."""
    client = spend_table_creation(request)  # a refusal below gives it back
    try:
        view = await _call(ledger.create_table, table)
    except ApiError:
        request.app.state.table_limit.refund(client)
        raise
    return JSONResponse(view, status_code=201)


@router.get(
    "/{token}",
    responses={**ERRORS, 304: {"description": "unchanged since the ETag in If-None-Match"}},
)
async def get_table(
    token: Token,
    ledger: LedgerDep,
    hands: Annotated[bool, Query(description="list the hands (false: totals only)")] = True,
    if_none_match: Annotated[str | None, Header(description="an earlier answer's ETag")] = None,
) -> Response:
    """The table: players, totals (and money at the rate), the next hand's dealer, round
    wind and streak, and every hand in play with its seating, tiles and deltas. The answer
    carries an ETag: polling with `If-None-Match` answers 304 (no body) until the table
    changes, so the read-only view can poll every second for little."""
    if if_none_match:  # a poll: answered from the table's revision, the view unbuilt
        tag = _etag(token, await _call(ledger.revision, token), hands)
        if tag in {t.strip().removeprefix("W/") for t in if_none_match.split(",")}:
            return Response(status_code=304, headers={"ETag": tag})
    view = await _call(ledger.view, token, hands)
    response = JSONResponse(view)
    response.headers["ETag"] = _etag(token, view["revision"], hands)
    return response


#: Changes when what a view shows for a revision changes (a new field): old tags then miss.
VIEW_VERSION = 1


def _etag(token: str, revision: int, hands: bool) -> str:
    """A view's ETag: every change raises the table's revision, and the token says which
    view (read or write) — so the tag is known without building the view."""
    key = f"{VIEW_VERSION}:{token}:{revision}:{int(hands)}"
    return '"' + hashlib.sha256(key.encode()).hexdigest()[:32] + '"'


@router.post("/{token}/hands", status_code=201, responses=ERRORS)
async def add_hand(
    token: Token,
    ledger: LedgerDep,
    hand: Annotated[
        dict[str, Any],
        Body(
            description="a win — the `hupai score` request without `city`, `options`, "
            "`round_wind` and the streak, with `winner`, `discarder`, melds' `from` and "
            "every seat field given as **players** (0–3 in chair order) — or a draw: "
            '`{"kind": "draw"}` with `last_drawer` (Nanning), `kong_declared` (Nanchang) or '
            "`hands` (four by player: Guiyang's yellow-tile settlement)",
            examples=[HAND_EXAMPLE, {"kind": "draw", "last_drawer": 3}],
        ),
    ],
    store: Annotated[AnnotatedStore, Depends(get_store)],
    photo: Annotated[
        str | None,
        Query(
            description="the key of a photo read a moment ago: `POST /v1/read?image=url` "
            "answered `/v1/annotated/{key}.jpg`; 410 `photo_gone` when it is no longer kept",
            pattern="^[0-9a-f]{32}$",
        ),
    ] = None,
) -> JSONResponse:
    """Add the next hand; it is scored with the table's context (dealer, seats, round wind,
    streak, options). A hand that does not score is refused with the scorer's reason. With
    `photo`, the reading and a thumbnail of a photo read a moment ago are kept with the hand —
    the tiles are the hand's as sent (the player may have fixed them) — and the photo need not
    be sent again."""
    record = None if photo is None else await anyio.to_thread.run_sync(kept_photo, store, photo)
    return JSONResponse(await _call(ledger.add_hand, token, hand, record), status_code=201)


def kept_photo(store: AnnotatedStore, key: str) -> PhotoRecord:
    """The reading and a thumbnail of the photo ``POST /v1/read?image=url`` kept as ``key``."""
    jpeg, reading = store.get(key), store.reading(key)
    if jpeg is None or reading is None:
        raise ApiError(
            410,
            "photo_gone",
            "photo: the photo read for this hand is no longer kept here (the server restarted "
            "or has read many photos since); nothing was added",
            field="photo",
            hint="Send the photo with the hand: POST /v1/tables/{token}/photo.",
        )
    return PhotoRecord(reading, thumbnail_jpeg(decode_image(jpeg)))


@router.post("/{token}/preview", responses=ERRORS)
async def preview_hand(
    token: Token,
    ledger: LedgerDep,
    hand: Annotated[
        dict[str, Any],
        Body(description="a hand as for `POST …/hands`", examples=[HAND_EXAMPLE]),
    ],
    number: Annotated[
        int | None,
        Query(ge=1, le=10**9, description="score it in place of this hand (an edit)"),
    ] = None,
) -> JSONResponse:
    """Score a hand with the table's context without keeping it: its seating, the request
    scored, the result, the deltas by player and the totals after it. Either link may ask."""
    return JSONResponse(await _call(ledger.preview, token, hand, number))


@router.post(
    "/{token}/photo",
    status_code=201,
    responses={**ERRORS, 415: {"model": ErrorBody, "description": "not a form, or not a photo"}},
)
async def add_hand_from_photo(
    token: Token,
    ledger: LedgerDep,
    photo: Annotated[UploadFile, File(description=PHOTO_DOC)],
    context: Annotated[
        str,
        Form(
            description="the rest of the hand as a JSON object in players' terms: `winner`, "
            "`win`, `discarder`, the city's fields; the photo supplies the tiles "
            "(`hand`, `melds`, `win_tile`, `flowers`, `indicator`/`fishing`) that the context "
            "does not give (tiles given here are corrections and win over the reading)",
            examples=['{"winner": 2, "win": "self_draw"}'],
        ),
    ],
    reader: Annotated[Reader, Depends(get_reader)],
    settings: Annotated[Settings, Depends(get_settings)],
    pool: Annotated[ReadPool, Depends(get_pool)],
) -> JSONResponse:
    """Read the photo and add it as the next hand, keeping the reading and a small annotated
    thumbnail. When the tiles as read do not score, nothing is added: the answer (422) holds
    the reading, so the tiles can be fixed and sent to `POST …/hands`."""
    ctx = json_object(await parse_json(context, "context"), "context")
    table = await _call(ledger.view, token, False)
    if table["access"] != "write":
        raise ApiError(403, "read_only", "this is the table's read-only link", field="token")
    player = seat_or_none(ctx.get("winner"))  # players and seats share the 0-3 range
    data = await upload_bytes(photo, settings)
    result = await pool.run(
        read_pipeline,
        reader=reader,
        data=data,
        settings=settings,
        source=photo_source(photo.filename),
        city=table["city"],
        winner=player,
        thumbnail=True,
    )
    no_tiles(result)
    # tiles given in the context were corrected by the player: they win over the reading,
    # and the photo's reading and thumbnail are kept beside them
    entry = {**result.request_fields, **ctx}
    added = await _call(
        ledger.add_hand,
        token,
        entry,
        PhotoRecord(result.reading, result.thumbnail),
        hint="Fix the tiles as read and send the hand to POST /v1/tables/{token}/hands.",
        extra={"reading": result.reading, "entry": entry},
    )
    hand = added["hand"]
    doubts = await anyio.to_thread.run_sync(
        lambda: score_doubts(
            result.reading,
            hand["request"],
            hand["result"],
            None,
            win_tile_given="win_tile" in ctx,
        )
    )
    return JSONResponse(
        {
            **added,
            "reading": result.reading,
            **trust_fields(result.reading, doubts),
        },
        status_code=201,
    )


@router.get("/{token}/hands/{number}", responses=ERRORS)
async def get_hand(token: Token, number: Number, ledger: LedgerDep) -> JSONResponse:
    """One hand in full: as given, its seating, the request scored, the result, the photo's
    reading."""
    return JSONResponse(await _call(ledger.hand, token, number))


@router.put("/{token}/hands/{number}", responses=ERRORS)
async def edit_hand(
    token: Token,
    number: Number,
    ledger: LedgerDep,
    change: Annotated[
        dict[str, Any],
        Body(
            description="`revision`: the hand's revision the change was made from (a newer "
            "one answers 409), and `hand`: the whole hand as for `POST …/hands`",
            examples=[{"revision": 1, "hand": HAND_EXAMPLE}],
        ),
    ],
) -> JSONResponse:
    """Replace a hand; every later hand's seating, streak, score and totals are recomputed.
    The previous version is kept (history, undo)."""
    revision = change.get("revision")
    if type(revision) is not int:
        raise ApiError(
            422,
            "invalid_request",
            "revision: required (the hand's revision you are changing)",
            field="revision",
        )
    hand = json_object(change.get("hand"), "hand")
    return JSONResponse(await _call(ledger.edit_hand, token, number, hand, revision))


@router.delete("/{token}/hands/{number}", responses=ERRORS)
async def delete_hand(
    token: Token,
    number: Number,
    ledger: LedgerDep,
    revision: Annotated[int, Query(description="the hand's revision being deleted")],
) -> JSONResponse:
    """Take a hand out of play (kept; undo restores it); later hands are recomputed."""
    return JSONResponse(await _call(ledger.delete_hand, token, number, revision))


@router.post("/{token}/hands/{number}/undo", responses=ERRORS)
async def undo_hand(token: Token, number: Number, ledger: LedgerDep) -> JSONResponse:
    """Put a hand back as it was before its latest change (undoing an add deletes it)."""
    return JSONResponse(await _call(ledger.undo, token, number))


@router.post("/{token}/undo", responses=ERRORS)
async def undo_last(token: Token, ledger: LedgerDep) -> JSONResponse:
    """Undo the table's latest change."""
    return JSONResponse(await _call(ledger.undo, token, None))


@router.get("/{token}/hands/{number}/history", responses=ERRORS)
async def hand_history(token: Token, number: Number, ledger: LedgerDep) -> JSONResponse:
    """Every version of a hand, oldest first."""
    return JSONResponse({"versions": await _call(ledger.history, token, number)})


@router.get(
    "/{token}/hands/{number}/thumbnail.jpg",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}}}, **ERRORS},
)
async def hand_thumbnail(token: Token, number: Number, ledger: LedgerDep) -> Response:
    """The annotated thumbnail of a hand read from a photo."""
    jpeg = await _call(ledger.thumbnail, token, number)
    return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "private"})


@router.get("/{token}/export.json", responses=ERRORS)
async def export_json(token: Token, ledger: LedgerDep) -> JSONResponse:
    """The whole table as JSON: setup, hands with their requests and results, totals."""
    data = await _call(ledger.export_json, token)
    return JSONResponse(
        data, headers={"Content-Disposition": 'attachment; filename="hupai-table.json"'}
    )


@router.get(
    "/{token}/export.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}, **ERRORS},
)
async def export_csv(
    token: Token,
    ledger: LedgerDep,
    lang: Annotated[
        str,
        Query(pattern="^(en|zh)$", description="the headers' and codes' language: en or zh"),
    ] = "en",
) -> Response:
    """One line per hand: its number, round, dealer, outcome, tiles and melds, each player's
    delta and total; with `lang=zh` the headers and codes in Chinese (the page's language)."""
    text = await _call(ledger.export_csv, token)
    if lang == "zh":
        text = _csv_in_chinese(text)
    return Response(
        text.encode("utf-8-sig"),  # the BOM makes spreadsheet programs read the names as UTF-8
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="hupai-table.csv"'},
    )


#: The CSV's headers and codes in Chinese (``lang=zh``); names and tiles stay as they are.
_CSV_ZH = {
    "hand": "局",
    "round_wind": "圈风",
    "deal": "本圈第几庄",
    "dealer": "庄家",
    "kind": "结果",
    "winner": "胡牌者",
    "win": "胡法",
    "discarder": "放炮者",
    "tiles": "手牌",
    "melds": "副露",
    "problem": "问题",
}
_CSV_VALUES_ZH = {
    "kind": {"win": "胡牌", "draw": "流局"},
    "win": {
        "self_draw": "自摸",
        "discard": "点炮",
        "robbed_kong": "抢杠",
        "kong_replacement": "杠上开花",
    },
    "round_wind": {"East": "东", "South": "南", "West": "西", "North": "北"},
}


def _csv_in_chinese(text: str) -> str:
    """The ledger's CSV with its headers and codes in Chinese (cells otherwise unchanged:
    the ledger has already made every text cell safe from running as a formula)."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return text
    header = rows[0]
    columns = {name: i for i, name in enumerate(header)}
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([_csv_header_zh(h) for h in header])
    for row in rows[1:]:
        for name, values in _CSV_VALUES_ZH.items():
            i = columns.get(name)
            if i is not None and i < len(row):
                row[i] = values.get(row[i], row[i])
        writer.writerow(row)
    return out.getvalue()


def _csv_header_zh(header: str) -> str:
    if header.startswith("delta "):
        return f"{header.removeprefix('delta ')} 本局得失"
    if header.startswith("total "):
        return f"{header.removeprefix('total ')} 累计"
    return _CSV_ZH.get(header, header)


@router.put("/{token}/options", responses=ERRORS)
async def set_options(
    token: Token,
    ledger: LedgerDep,
    change: Annotated[
        dict[str, Any],
        Body(
            description="`revision`: the table's revision the change was made from (a newer "
            "one answers 409), `options`: the table's options, whole (house rules and "
            "the city's variants), and optionally `city`: a new city for the table",
            examples=[
                {"revision": 3, "options": {"cap": 50, "dealer_double": True}},
                {"revision": 3, "city": "guiyang", "options": {}},
            ],
            json_schema_extra=OPTIONS_CHANGE_SCHEMA,
        ),
    ],
) -> JSONResponse:
    """Change the table's house rules and options, or its city: every hand is scored again
    with them, as after an edit. Under a new city each hand is scored as it was given (so
    changing the city back restores every score); a hand the new city cannot score is kept
    with its `problem`, to be fixed or deleted. The options and city before are kept
    (`GET …/options`). Answers the table."""
    revision = change.get("revision")
    if type(revision) is not int:
        raise ApiError(
            422,
            "invalid_request",
            "revision: required (the table's revision you are changing)",
            field="revision",
        )
    city = change.get("city")
    if city is not None and not isinstance(city, str):
        raise ApiError(
            422, "invalid_request", "city: expected a city's name (GET /v1/cities)", field="city"
        )
    return JSONResponse(
        await _call(ledger.set_options, token, change.get("options"), revision, city)
    )


@router.get("/{token}/options", responses=ERRORS)
async def options_history(token: Token, ledger: LedgerDep) -> JSONResponse:
    """The city and options the table has played with, oldest first; the last are in force
    (each with its house rules, defaults filled in)."""
    return JSONResponse({"versions": await _call(ledger.options_history, token)})
