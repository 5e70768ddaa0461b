"""The JSON request → typed objects, with the checks every city shares; result → JSON.

The schema is documented in docs/schema.md; ``hupai score`` and the HTTP service both use
these two functions unchanged.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from hupai.scoring.city import City, DrawRequest, Request, SeatHand
from hupai.scoring.decompose import Decomposition
from hupai.scoring.fields import (
    ScoringInputError,
    parse_dataclass,
    parse_tile,
    parse_tile_list,
    parse_value,
    shown_fields,
    to_json,
)
from hupai.scoring.hand import (
    EAST,
    SEATS,
    Hand,
    Meld,
    MeldError,
    MeldKind,
    WinContext,
    WinMethod,
    meld_kind_of,
    previous_seat,
)
from hupai.scoring.quoting import quote
from hupai.scoring.settlement import Result
from hupai.scoring.tiles import Tile, format_tiles

#: Request fields every city reads; a city adds its own through its ``table_type``.
COMMON_FIELDS = (
    "city",
    "hand",
    "melds",
    "win_tile",
    "win",
    "winner",
    "discarder",
    "round_wind",
    "flowers",
    "last_tile",
    "first_turn",
    "options",
    "kind",
)
_MELD_FIELDS = ("kind", "tiles", "from")
#: ``kind``: a won hand (the default) or a drawn one (all four hands, see parse_draw_request).
REQUEST_KINDS = ("win", "draw")
#: The fields of a request of kind ``draw``.
DRAW_FIELDS = ("city", "kind", "hands", "options")
_SEAT_HAND_FIELDS = ("hand", "melds")


def loads_request(text: str | bytes, name: str, max_digits: int | None = None) -> Any:
    """A request's JSON text, read strictly: UTF-8, no duplicate keys, no NaN/Infinity and,
    given ``max_digits``, no number written with more digits than that (checked as each
    number is read: one pass, whatever the text). Errors are :class:`ScoringInputError` on
    ``name`` (a file name, ``stdin``, ``context``).

    >>> loads_request('{"a": 1, "a": 2}', "context")
    Traceback (most recent call last):
    ...
    hupai.scoring.fields.ScoringInputError: context: key 'a' appears twice in one object
    >>> loads_request('{"a": NaN}', "stdin")
    Traceback (most recent call last):
    ...
    hupai.scoring.fields.ScoringInputError: stdin: not valid JSON: NaN is not a JSON number
    >>> loads_request('[1.5, ' + "9" * 30 + ']', "request", max_digits=20)
    Traceback (most recent call last):
    ...
    hupai.scoring.fields.ScoringInputError: request: a number 30 digits long; at most 20
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ScoringInputError(
                name, f"not UTF-8 text ({exc.reason} at byte {exc.start})"
            ) from None
    if not text.strip():
        raise ScoringInputError(name, "empty; expected a JSON request object")
    hooks: dict[str, Any] = {}
    if max_digits is not None:
        hooks["parse_int"] = _bounded(int, max_digits)
        hooks["parse_float"] = _bounded(float, max_digits)
    try:
        return json.loads(
            text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant, **hooks
        )
    except _LongNumber as exc:
        raise ScoringInputError(
            name, f"a number {exc.digits} digits long; at most {exc.limit}"
        ) from None
    except json.JSONDecodeError as exc:
        raise ScoringInputError(
            name, f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except _DuplicateKey as exc:
        raise ScoringInputError(name, f"key '{exc.key}' appears twice in one object") from None
    except (ValueError, RecursionError) as exc:
        raise ScoringInputError(name, f"not valid JSON: {exc}") from None


_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def non_text(value: Any, field: str = "") -> tuple[str, str] | None:
    """The first string in a JSON value, keys included, that is not text any answer and any
    database can hold again — ``(where, why)`` — or None: a lone UTF-16 surrogate
    (``"\\ud800"`` is valid JSON but not text: echoing or storing it fails later) or a control
    character but tab and line breaks (PostgreSQL refuses NUL). Iterative: a deeply nested
    value costs no recursion.

    >>> non_text({"players": ["Ann", "B\\ud800"]})
    ('players[1]', 'a lone surrogate \\\\ud800 (half of a pair)')
    >>> non_text({"name": "a\\tb"}) is None
    True
    """
    stack: list[tuple[Any, str]] = [(value, field)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            why = _not_text(item)
            if why:
                return path, why
        elif isinstance(item, dict):
            for key, inner in item.items():
                inner_path = f"{path}.{key}" if path else str(key)
                why = _not_text(str(key))
                if why:
                    return inner_path[:120], why
                stack.append((inner, inner_path))
        elif isinstance(item, list):
            stack.extend((inner, f"{path}[{i}]") for i, inner in enumerate(item))
    return None


def _not_text(text: str) -> str | None:
    found = _SURROGATE.search(text)
    if found:
        return f"a lone surrogate \\u{ord(found.group()):04x} (half of a pair)"
    found = _CONTROL.search(text)
    if found:
        return f"the control character U+{ord(found.group()):04X}"
    return None


class _LongNumber(ValueError):
    def __init__(self, digits: int, limit: int) -> None:
        super().__init__(digits)
        self.digits = digits
        self.limit = limit


def _bounded(kind: type[int] | type[float], limit: int) -> Any:
    """A ``parse_int``/``parse_float`` hook: the number's literal is refused before it is
    converted when it has more than ``limit`` digits (Python's own int limit is 4,300 and its
    message advises ``sys.set_int_max_str_digits``)."""

    def parse(literal: str) -> int | float:
        if len(literal) > limit:
            digits = sum(ch.isdigit() for ch in literal)
            if digits > limit:
                raise _LongNumber(digits, limit)
        return kind(literal)

    return parse


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def request_kind(data: Mapping[str, Any]) -> str:
    """The request's ``kind``: ``win`` unless it says ``draw``.

    >>> request_kind({}), request_kind({"kind": "draw"})
    ('win', 'draw')
    """
    kind = data.get("kind", "win")
    if kind not in REQUEST_KINDS:
        raise ScoringInputError("kind", f"{quote(kind)} is not one of: {', '.join(REQUEST_KINDS)}")
    return str(kind)


def parse_request(data: object, city: City[Any, Any]) -> Request[Any, Any]:
    """Check a parsed JSON request for ``city`` and build the typed request.

    Raises ScoringInputError naming the field (``melds[1].tiles``) and quoting the value.
    """
    if not isinstance(data, Mapping):
        raise ScoringInputError("request", f"expected a JSON object, got {quote(data)}")
    if request_kind(data) != "win":
        raise ScoringInputError("kind", "a draw request is read by parse_draw_request")
    table_names = [f.name for f in dataclasses.fields(city.table_type)]
    for key in data:
        if key not in COMMON_FIELDS and key not in table_names:
            known = ", ".join([*COMMON_FIELDS, *table_names])
            raise ScoringInputError(str(key), f"unknown field for {city.name}; known: {known}")

    options = parse_dataclass(city.options_type, data.get("options", {}), "options")
    table_data = {k: data[k] for k in table_names if k in data}
    table = parse_dataclass(city.table_type, table_data, "")

    concealed = _concealed(data, city.flowers_in_hand(table, options))
    winner = _seat(data, "winner", required=True)
    assert winner is not None
    melds = _melds(data.get("melds", []), city, options, winner)
    win = _win_context(data, winner, melds)
    hand = Hand(
        tuple(sorted(concealed)),
        melds,
        _win_tile(data, concealed),
        _flowers(data, city),
    )
    _check_tiles(hand, city, table)
    request: Request[Any, Any] = Request(city.name, hand, win, table, options)
    city.check(request)
    return request


def parse_draw_request(data: object, city: City[Any, Any]) -> DrawRequest[Any]:
    """Check a request of kind ``draw`` — ``hands``: four objects by seat, each with the
    concealed ``hand`` (13 tiles, 3 fewer per meld) and its ``melds`` — and build it.

    The same checks as a win: notation, the city's tiles, meld shapes, at most four copies
    of a kind over the four hands.
    """
    if not isinstance(data, Mapping):
        raise ScoringInputError("request", f"expected a JSON object, got {quote(data)}")
    for key in data:
        if key not in DRAW_FIELDS:
            raise ScoringInputError(
                str(key), f"not part of a draw request; known: {', '.join(DRAW_FIELDS)}"
            )
    if not city.scores_draws:
        raise ScoringInputError("kind", f"{city.name} does not settle a drawn hand ('draw')")
    options = parse_dataclass(city.options_type, data.get("options", {}), "options")
    raw = data.get("hands")
    if not isinstance(raw, list) or len(raw) != 4:
        got = f"{len(raw)}" if isinstance(raw, list) else quote(raw)
        raise ScoringInputError(
            "hands", f"expected a list of 4 hands by seat (0 is the dealer), got {got}"
        )
    hands = tuple(_seat_hand(item, seat, city, options) for seat, item in enumerate(raw))
    _check_draw_tiles(hands, city)
    return DrawRequest(city.name, hands, options)


def _seat_hand(item: object, seat: int, city: City[Any, Any], options: Any) -> SeatHand:
    path = f"hands[{seat}]"
    if not isinstance(item, Mapping):
        raise ScoringInputError(path, f"expected an object with hand, melds; got {quote(item)}")
    for key in item:
        if key not in _SEAT_HAND_FIELDS:
            raise ScoringInputError(f"{path}.{key}", "unknown field; known: hand, melds")
    if "hand" not in item:
        raise ScoringInputError(f"{path}.hand", "required (the seat's concealed tiles)")
    try:
        concealed = _concealed(item)
        melds = _melds(item.get("melds", []), city, options, seat)
    except ScoringInputError as exc:
        raise ScoringInputError(f"{path}.{exc.path}", exc.message) from None
    expected = 13 - 3 * len(melds)
    if len(concealed) != expected:
        raise ScoringInputError(
            f"{path}.hand",
            f"'{format_tiles(concealed)}' is {len(concealed)} tiles beside {len(melds)} melds; "
            f"a hand between turns holds {expected} (13, 3 fewer per meld, a kong counting as 3)",
        )
    return SeatHand(seat, tuple(sorted(concealed)), melds)


def _check_draw_tiles(hands: tuple[SeatHand, ...], city: City[Any, Any]) -> None:
    seen: Counter[Tile] = Counter()
    for h in hands:
        for where, tiles in (
            (f"hands[{h.seat}].hand", h.concealed),
            (f"hands[{h.seat}].melds", h.meld_tiles),
        ):
            for tile in tiles:
                if not city.tile_set.uses(tile):
                    raise ScoringInputError(
                        where,
                        f"'{tile}' is not used in {city.name} ({city.tile_set.value} tiles: "
                        f"{_TILE_SET_TEXT[city.tile_set.value]})",
                    )
        seen.update(h.all_tiles)
    for tile, n in seen.items():
        if n > 4:
            where_text = ", ".join(
                f"seat {h.seat} {c}" for h in hands if (c := h.all_tiles.count(tile))
            )
            raise ScoringInputError(
                "hands", f"{n} copies of {tile} ({where_text}); a set has only 4"
            )


def _concealed(data: Mapping[str, Any], flowers_allowed: bool = False) -> tuple[Tile, ...]:
    if "hand" not in data:
        raise ScoringInputError("hand", "required (the concealed tiles, winning tile included)")
    tiles = parse_tile_list(data["hand"], "hand")
    for tile in tiles:
        if tile.is_flower and not flowers_allowed:
            raise ScoringInputError(
                "hand", f"'{tile}' is a flower; list flowers under 'flowers', not in the hand"
            )
    return tiles


def _seat(
    data: Mapping[str, Any], name: str, required: bool = False, path: str | None = None
) -> int | None:
    where = name if path is None else path
    if data.get(name) is None:
        if required:
            raise ScoringInputError(where, "required (a seat 0-3; 0 is the dealer)")
        return None
    value = data[name]
    if isinstance(value, bool) or not isinstance(value, int) or value not in SEATS:
        raise ScoringInputError(where, f"{quote(value)} is not a seat (0-3; 0 is the dealer)")
    return value


def _melds(raw: object, city: City[Any, Any], options: Any, winner: int) -> tuple[Meld, ...]:
    if not isinstance(raw, list):
        raise ScoringInputError("melds", f"expected a list of melds, got {quote(raw)}")
    if len(raw) > 4:
        raise ScoringInputError("melds", f"{len(raw)} melds; a hand has at most 4")
    out: list[Meld] = []
    for i, item in enumerate(raw):
        path = f"melds[{i}]"
        if not isinstance(item, Mapping):
            raise ScoringInputError(
                path, f"expected an object with kind, tiles, from; got {quote(item)}"
            )
        for key in item:
            if key not in _MELD_FIELDS:
                raise ScoringInputError(f"{path}.{key}", "unknown field; known: kind, tiles, from")
        if "tiles" not in item:
            raise ScoringInputError(f"{path}.tiles", "required")
        tiles = tuple(sorted(parse_tile_list(item["tiles"], f"{path}.tiles")))
        text = format_tiles(tiles)
        if any(t.is_flower for t in tiles):
            raise ScoringInputError(f"{path}.tiles", f"'{text}': flowers are never in a meld")
        if item.get("kind") is None:
            kind = meld_kind_of(tiles, honor_sequences=city.honor_sequences)
            if kind is None:
                raise ScoringInputError(f"{path}.tiles", f"'{text}' is not a chow/pung/kong")
        else:
            kind = parse_value(MeldKind, item["kind"], f"{path}.kind")
        claimed = _seat(item, "from", path=f"{path}.from")
        try:
            meld = Meld(kind, tiles, claimed)
        except MeldError as exc:
            raise ScoringInputError(f"{path}.tiles", str(exc)) from None
        if meld.is_chow:
            if not city.chows_allowed(options):
                raise ScoringInputError(
                    f"{path}.kind", f"{city.name} does not allow claiming a chow"
                )
            if meld.is_honor_sequence and not city.honor_sequences:
                raise ScoringInputError(
                    f"{path}.tiles",
                    f"'{text}' is not a chow (honor sequences are not played in {city.name})",
                )
            if claimed is not None and claimed != previous_seat(winner):
                raise ScoringInputError(
                    f"{path}.from",
                    f"a chow is claimed from the previous seat ({previous_seat(winner)}), "
                    f"not {claimed}",
                )
        if claimed is not None and claimed == winner:
            raise ScoringInputError(f"{path}.from", f"{claimed} is the winner's own seat")
        out.append(meld)
    return tuple(out)


def _win_context(data: Mapping[str, Any], winner: int, melds: tuple[Meld, ...]) -> WinContext:
    if "win" not in data:
        raise ScoringInputError(
            "win", "required: self_draw, discard, robbed_kong or kong_replacement"
        )
    method = parse_value(WinMethod, data["win"], "win")
    discarder = _seat(data, "discarder")
    if method.has_discarder:
        if discarder is None:
            who = (
                "the discarder" if method is WinMethod.DISCARD else "the seat whose kong was robbed"
            )
            raise ScoringInputError("discarder", f"required on a {method.value} win ({who})")
        if discarder == winner:
            raise ScoringInputError(
                "discarder", f"{discarder} is the winner; a player cannot feed himself"
            )
    elif discarder is not None:
        raise ScoringInputError(
            "discarder", f"{discarder} given, but a {method.value} win has no discarder"
        )
    if method is WinMethod.KONG_REPLACEMENT and not any(m.is_kong for m in melds):
        raise ScoringInputError("win", "kong_replacement needs a kong among the winner's melds")
    round_wind = EAST
    if data.get("round_wind") is not None:
        round_wind = parse_tile(data["round_wind"], "round_wind")
        if not round_wind.is_wind:
            raise ScoringInputError("round_wind", f"'{round_wind}' is not a wind (1z-4z)")
    last_tile = parse_value(bool, data.get("last_tile", False), "last_tile")
    first_turn = parse_value(bool, data.get("first_turn", False), "first_turn")
    return WinContext(method, winner, discarder, round_wind, last_tile, first_turn)


def _win_tile(data: Mapping[str, Any], concealed: tuple[Tile, ...]) -> Tile:
    if data.get("win_tile") is None:
        raise ScoringInputError("win_tile", "required (the tile that completed the hand)")
    tile = parse_tile(data["win_tile"], "win_tile")
    if tile not in concealed:
        raise ScoringInputError(
            "win_tile",
            f"'{tile}' is not in the hand '{format_tiles(concealed)}'; "
            "the hand includes the winning tile",
        )
    return tile


def _flowers(data: Mapping[str, Any], city: City[Any, Any]) -> tuple[Tile, ...]:
    flowers = parse_tile_list(data.get("flowers", ""), "flowers")
    for tile in flowers:
        if not tile.is_flower:
            raise ScoringInputError("flowers", f"'{tile}' is not a flower (1f-8f)")
    if flowers and not city.tile_set.has_flowers:
        raise ScoringInputError("flowers", f"{city.name} is played without flowers")
    return tuple(sorted(flowers))


def _check_tiles(hand: Hand, city: City[Any, Any], table: object) -> None:
    expected = 14 - 3 * len(hand.melds)
    if hand.concealed_count != expected:
        raise ScoringInputError(
            "hand",
            f"'{format_tiles(hand.concealed)}' is {hand.concealed_count} tiles beside "
            f"{len(hand.melds)} melds; a winning hand holds {expected} "
            "(14, 3 fewer per meld, a kong counting as 3)",
        )
    places = (
        ("hand", hand.concealed),
        ("melds", hand.meld_tiles),
        ("flowers", hand.flowers),
        *shown_fields(table),
    )
    for where, tiles in places:
        for tile in tiles:
            if not city.tile_set.uses(tile):
                raise ScoringInputError(
                    where,
                    f"'{tile}' is not used in {city.name} ({city.tile_set.value} tiles: "
                    f"{_TILE_SET_TEXT[city.tile_set.value]})",
                )
    seen: Counter[Tile] = Counter()
    for _, tiles in places:
        seen.update(tiles)
    for tile, n in seen.items():
        cap = 1 if tile.is_flower else 4
        if n > cap:
            where_text = ", ".join(
                f"{name} {c}" for name, tiles in places if (c := tiles.count(tile))
            )
            raise ScoringInputError(
                "hand" if "hand" in where_text else where_text.split()[0],
                f"{n} copies of {tile} ({where_text}); a set has only {cap}",
            )


_TILE_SET_TEXT = {
    "108": "three suits, no honors or flowers",
    "136": "suits and honors, no flowers",
    "144": "suits, honors and flowers",
}


# -- result → JSON ---------------------------------------------------------------------------
def decomposition_to_dict(decomposition: Decomposition) -> dict[str, Any]:
    return {
        "shape": decomposition.shape.value,
        "groups": [{"kind": g.kind.value, "tiles": str(g)} for g in decomposition.groups],
        "free_sets": decomposition.free_sets,
        "free_pairs": decomposition.free_pairs,
        "wilds": {
            "tiles": format_tiles(decomposition.wild_tiles),
            "stand_for": format_tiles(decomposition.fills),
            "at_face_value": format_tiles(decomposition.at_face_value),
            "as_wild": format_tiles(decomposition.as_wild),
        },
    }


def result_to_dict(result: Result) -> dict[str, Any]:
    """The JSON form of a result (docs/schema.md)."""
    return {
        "city": result.city,
        "valid": result.valid,
        "reason": result.reason,
        "message": result.message,
        "decomposition": (
            None if result.decomposition is None else decomposition_to_dict(result.decomposition)
        ),
        "wait": None if result.wait is None else result.wait.value,
        "patterns": [
            {"code": p.code, "name": p.name, "value": p.value, "unit": p.unit}
            for p in result.patterns
        ],
        "items": [
            {
                "reason": i.reason,
                "text": i.text,
                "payer": i.payer,
                "payee": i.payee,
                "amount": i.amount,
                "group": i.group.value,
            }
            for i in result.items
        ],
        "deltas": list(result.deltas),
        "warnings": list(result.warnings),
        "details": to_json(result.details),
    }
