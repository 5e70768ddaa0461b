"""The HTTP boundary's shapes, for the OpenAPI document (``/docs``) and its clients.

The routes return what ``scoring`` and ``vision`` produce (``result_to_dict``,
``Reading.to_dict``) unchanged; these models describe that JSON. The score request itself is
``hupai score``'s (docs/schema.md): it is validated by ``scoring``, so that the service and
the CLI give the same errors, and described here as a JSON schema.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from hupai.scoring.hand import WinMethod

SEAT_NAMES = ("East", "South", "West", "North")


class ImageMode(StrEnum):
    """How the annotated photo comes back."""

    base64 = "base64"  # a data: URL in the JSON
    url = "url"  # a URL under /v1/annotated/ (kept in memory for a while)
    none = "none"  # not drawn at all


class ErrorBody(BaseModel):
    code: str = Field(description="stable error code", examples=["invalid_request"])
    message: str = Field(
        description="what is wrong; for scoring errors the `hupai score` line",
        examples=["hand: '10m': '0' is not a rank (ranks are 1-9)"],
    )
    field: str | None = Field(None, description="the field concerned", examples=["hand"])
    hint: str | None = Field(None, description="what to do about it")


class Pattern(BaseModel):
    code: str
    name: str
    value: int | float
    unit: str


class Item(BaseModel):
    reason: str
    text: str
    payer: int
    payee: int
    amount: int | float
    group: str = Field(description="`hand` or `instant`")


class ScoreResult(BaseModel):
    """The result of ``hupai score`` (docs/schema.md, "Result")."""

    model_config = ConfigDict(extra="allow")
    city: str
    valid: bool
    reason: str = Field(description="`ok`, or why a legal hand does not win")
    message: str
    decomposition: dict[str, Any] | None
    wait: str | None
    patterns: list[Pattern]
    items: list[Item]
    deltas: list[int | float] = Field(description="net gain by seat (0 = dealer); sums to 0")
    warnings: list[Any]
    details: dict[str, Any]


class ReadingWarning(BaseModel):
    code: str = Field(description="stable warning code (docs/reading.md)")
    message: str
    advice: str
    tiles: list[int] = Field(description="indices into `detections`")


class ReadMeld(BaseModel):
    kind: str
    tiles: str
    called_from: str | None
    inferred: bool
    detections: list[int]


class Reading(BaseModel):
    """What the photo shows (``Reading.to_dict``; docs/reading.md)."""

    model_config = ConfigDict(extra="allow")
    source: str
    size: list[int] = Field(description="[width, height] after EXIF rotation")
    hand: str = Field(description="concealed tiles, winning tile included")
    hand_in_order: str = Field(description="the same, left to right as in the photo")
    win_tile: str | None
    win_tile_set_apart: bool
    melds: list[ReadMeld]
    flowers: str
    set_apart: str = Field(description="indicator or fishing tiles")
    request: dict[str, Any] = Field(description="the score-request fields this photo gives")
    warnings: list[ReadingWarning]
    confident: bool = Field(
        False,
        description="the photo can be trusted as read: tiles were found, none needs a check "
        "and no warning doubts a tile (whether they make a winning hand is the score's "
        "verdict); see docs/reading.md",
    )
    gaps: list[list[float]] = Field(
        default_factory=list,
        description="boxes [x1, y1, x2, y2] in the photo where a tile may lie unread: a row's "
        "room for a tile not found, or a tile-shaped body the finder doubted and the namer "
        "takes for a tile (each raises the `gap` warning: the photo is not confident)",
    )
    detections: dict[str, list[Any]] = Field(
        description="columnar: xyxy, class_id, class_name, confidence (the chosen name's "
        "probability), alternatives (per tile: up to 3 names with probabilities, the chosen "
        "one first), role, sideways, check (the tile needs a look), check_reasons (why: "
        "name, clutter, doubled, warned)"
    )
    alternatives: dict[str, list[list[dict[str, Any]]]] = Field(
        default_factory=dict,
        description="each tile's names for `hand`, `flowers` and `set_apart`, in the order of "
        "the request's notation: the picker offers these first",
    )
    suggestion: dict[str, Any] | None = Field(
        None,
        description="a winning reading that changes only uncertain tiles to their second or "
        "third name, with its probability relative to the reading; never applied",
    )
    passes: list[str]
    seconds: float


class ReadResponse(BaseModel):
    reading: Reading
    annotated_image: str | None = Field(
        description="the annotated photo: a data: URL, a URL, or null (see `image`)"
    )


class Doubt(BaseModel):
    code: str = Field(
        description="tiles_unsure | unscorable | not_a_winning_hand | win_tile_matters"
    )
    message: str


class ScoreResponse(BaseModel):
    reading: Reading
    request: dict[str, Any] = Field(
        description="the score request that was scored: the context with the photo's tiles; "
        "edit it and send it to POST /v1/score/hand to re-score without the photo"
    )
    score: ScoreResult | None = Field(description="null when the tiles as read cannot be scored")
    score_error: ErrorBody | None = Field(
        description="why the tiles as read cannot be scored (field and message)"
    )
    confident: bool = Field(
        description="the score can be trusted as read: the tiles are confident and they make "
        "a complete winning hand for the city with the context given (and, when no tile was "
        "set apart or given as the winning tile, no other winning tile would change the "
        "deltas) — or the tiles it doubted for their names alone are settled by the hand's "
        "shape (`settled`); `doubts` says why not"
    )
    doubts: list[Doubt] = Field(description="why the score is not confident; empty when it is")
    settled: list[str] = Field(
        default_factory=list,
        description="tiles the reading marked for their names alone that the hand's shape "
        "settled: the hand wins as read and with no other of the namer's names for them "
        "(docs/reading.md); empty when the reading was confident or the score is not",
    )
    annotated_image: str | None


class CitiesResponse(BaseModel):
    cities: list[dict[str, Any]] = Field(
        description="each city: name, title, tiles, options (with defaults), fields "
        "(the city's own request fields)"
    )
    common: list[dict[str, Any]] = Field(description="the request fields every city reads")
    seats: list[str] = Field(description="seat names by number (0 = dealer)")
    win_methods: list[str]


class Health(BaseModel):
    status: str
    model: dict[str, Any]
    cities: list[str]


WIN_METHODS = tuple(m.value for m in WinMethod)

#: The request fields every city reads, described like a city's fields (``GET /v1/cities``).
COMMON_FIELDS: list[dict[str, Any]] = [
    {
        "name": "win",
        "type": "string",
        "enum": list(WIN_METHODS),
        "required": True,
        "doc": "how the hand was won",
    },
    {
        "name": "winner",
        "type": "integer",
        "min": 0,
        "max": 3,
        "required": True,
        "doc": "the winner's seat (0 = the dealer, East)",
    },
    {
        "name": "discarder",
        "type": "integer",
        "min": 0,
        "max": 3,
        "nullable": True,
        "default": None,
        "doc": "who gave the winning tile (discard), or whose added kong was robbed",
    },
    {
        "name": "round_wind",
        "type": "string",
        "enum": ["1z", "2z", "3z", "4z"],
        "default": "1z",
        "doc": "the prevailing wind: 1z East … 4z North",
    },
    {
        "name": "last_tile",
        "type": "boolean",
        "default": False,
        "doc": "won on the last tile of the wall",
    },
    {
        "name": "first_turn",
        "type": "boolean",
        "default": False,
        "doc": "won on the first turn (heavenly / earthly hand)",
    },
]

_TILES = {
    "anyOf": [
        {"type": "string", "maxLength": 80, "example": "123m456p789s11z"},
        {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 40},
    ]
}
_SEAT = {"type": "integer", "minimum": 0, "maximum": 3}
_MELD = {
    "type": "object",
    "properties": {
        "kind": {
            "type": "string",
            "enum": ["chow", "pung", "kong", "added_kong", "concealed_kong"],
        },
        "tiles": _TILES,
        "from": _SEAT,
    },
    "required": ["tiles"],
}


def score_request_schema(city_names: list[str]) -> dict[str, Any]:
    """JSON schema of the ``hupai score`` request (docs/schema.md): the common fields; each
    city's own fields are listed by ``GET /v1/cities`` (unknown ones are 422)."""
    return {
        "type": "object",
        "required": ["city"],
        "properties": {
            "city": {"type": "string", "enum": city_names},
            "kind": {"type": "string", "enum": ["win", "draw"], "default": "win"},
            "hand": _TILES,
            "win_tile": {"type": "string", "maxLength": 3},
            "melds": {"type": "array", "items": _MELD, "maxItems": 4},
            "win": {"type": "string", "enum": list(WIN_METHODS)},
            "winner": _SEAT,
            "discarder": _SEAT,
            "round_wind": {"type": "string", "enum": ["1z", "2z", "3z", "4z"]},
            "flowers": _TILES,
            "last_tile": {"type": "boolean"},
            "first_turn": {"type": "boolean"},
            "options": {"type": "object", "description": "the city's options"},
            "hands": {
                "type": "array",
                "description": "a draw: four {hand, melds} by seat",
                "items": {
                    "type": "object",
                    "properties": {
                        "hand": _TILES,
                        "melds": {"type": "array", "items": _MELD, "maxItems": 4},
                    },
                },
                "minItems": 4,
                "maxItems": 4,
            },
        },
        "additionalProperties": True,
        "example": {
            "city": "ningbo",
            "indicator": "3s",
            "hand": "123m456m789p55z7z3s4s",
            "win_tile": "7z",
            "win": "self_draw",
            "winner": 1,
        },
    }
