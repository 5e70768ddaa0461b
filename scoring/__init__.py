"""The hupai scoring core: tiles, hands, decomposition, settlement and the city registry.

Pure standard library, no I/O. The entry point for a JSON request is :func:`score`::

    >>> from scoring import score, result_to_dict
    >>> score({"city": "atlantis"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hupai.scoring.registry.UnknownCityError: city: 'atlantis' is not a known city; known: ...

See docs/core-api.md for how a city plugs in and docs/schema.md for the request.
"""

from hupai.scoring.city import City, DrawRequest, NoOptions, NoTable, Request, SeatHand, TileSet
from hupai.scoring.decompose import (
    Decomposition,
    Group,
    GroupKind,
    Shape,
    ShapeRules,
    Wait,
    WaitKind,
    decompose,
    is_winning,
    ready_tiles,
)
from hupai.scoring.fields import Between, ScoringInputError, Seat, required, setting
from hupai.scoring.hand import Hand, Meld, MeldKind, WinContext, WinMethod, others, seat_wind
from hupai.scoring.registry import (
    UnknownCityError,
    cities,
    city_names,
    describe_cities,
    get_city,
    register,
    score,
)
from hupai.scoring.request import parse_request, result_to_dict
from hupai.scoring.settlement import Item, ItemGroup, Pattern, Reason, Result, Settlement
from hupai.scoring.tiles import Suit, Tile, TileError, format_tiles, next_tile, parse_tiles

__all__ = [
    "Between",
    "City",
    "Decomposition",
    "DrawRequest",
    "Group",
    "GroupKind",
    "Hand",
    "Item",
    "ItemGroup",
    "Meld",
    "MeldKind",
    "NoOptions",
    "NoTable",
    "Pattern",
    "Reason",
    "Request",
    "Result",
    "ScoringInputError",
    "Seat",
    "SeatHand",
    "Settlement",
    "Shape",
    "ShapeRules",
    "Suit",
    "Tile",
    "TileError",
    "TileSet",
    "UnknownCityError",
    "Wait",
    "WaitKind",
    "WinContext",
    "WinMethod",
    "cities",
    "city_names",
    "decompose",
    "describe_cities",
    "format_tiles",
    "get_city",
    "is_winning",
    "next_tile",
    "others",
    "parse_request",
    "parse_tiles",
    "ready_tiles",
    "register",
    "required",
    "result_to_dict",
    "score",
    "seat_wind",
    "setting",
]
