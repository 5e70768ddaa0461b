"""Typed, frozen dataclasses read from JSON, with errors that name the field and quote the
value — used for every city's ``Options`` and per-city table fields.

Declare fields with :func:`setting` (a default and one line of documentation); the types
understood are ``bool``, ``int`` (optionally ``Annotated[int, Between(lo, hi)]``, e.g.
:data:`Seat`), ``str``, ``StrEnum`` subclasses, :class:`~hupai.scoring.tiles.Tile`, ``X | None``,
``tuple[X, ...]`` and fixed ``tuple[X, Y]``, and nested frozen dataclasses.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Demo:
...     min_points: int = setting(9, "smallest total that wins")
...     seat: Seat | None = setting(None, "a seat")
>>> parse_dataclass(Demo, {"min_points": 4}, "options")
Demo(min_points=4, seat=None)
>>> parse_dataclass(Demo, {"min_point": 4}, "options")
Traceback (most recent call last):
...
hupai.scoring.fields.ScoringInputError: options.min_point: unknown field; known: min_points, seat
>>> parse_dataclass(Demo, {"seat": 5}, "options")
Traceback (most recent call last):
...
hupai.scoring.fields.ScoringInputError: options.seat: 5 is outside 0-3
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Annotated, Any, TypeVar, cast

from hupai.scoring.quoting import quote
from hupai.scoring.tiles import Tile, TileError, parse_tiles

T = TypeVar("T")


class ScoringInputError(ValueError):
    """A request that cannot be scored as given: ``path`` names the field
    (``melds[1].tiles``), the message quotes the bad value."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


@dataclass(frozen=True, slots=True)
class Between:
    """``Annotated`` marker: an int from ``lo`` to ``hi`` inclusive."""

    lo: int
    hi: int


#: A seat number, 0 (dealer) to 3.
Seat = Annotated[int, Between(0, 3)]


def setting(default: T, doc: str, *, shown: bool = False) -> T:
    """A dataclass field with a default and a one-line description for ``GET /v1/cities``.
    ``shown=True`` marks tiles on the table (indicator, fishing tiles): the core counts
    them when it checks that no kind appears more than four times."""
    return field(default=default, metadata={"doc": doc, "shown": shown})


def required(doc: str, *, shown: bool = False) -> Any:
    """A field with no default (the request must give it)."""
    return field(metadata={"doc": doc, "shown": shown})


# -- parsing --------------------------------------------------------------------------------
def parse_dataclass(cls: type[T], data: object, path: str) -> T:
    """Build ``cls`` from a JSON object, rejecting unknown keys and wrong types."""
    if not isinstance(data, Mapping):
        raise ScoringInputError(path, f"expected an object, got {_quote(data)}")
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = {f.name: f for f in dataclasses.fields(cast(Any, cls)) if f.init}
    unknown = [k for k in data if k not in fields]
    if unknown:
        raise ScoringInputError(
            _join(path, str(unknown[0])), f"unknown field; known: {', '.join(fields) or 'none'}"
        )
    kwargs: dict[str, Any] = {}
    for name, f in fields.items():
        if name in data:
            kwargs[name] = parse_value(hints[name], data[name], _join(path, name))
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ScoringInputError(_join(path, name), "required")
    try:
        return cls(**kwargs)
    except (ValueError, TypeError) as exc:
        if isinstance(exc, ScoringInputError):
            raise
        raise ScoringInputError(path, str(exc)) from None


def parse_value(tp: Any, value: object, path: str) -> Any:
    """Check and convert one JSON value to type ``tp``."""
    checks: tuple[object, ...] = ()
    if typing.get_origin(tp) is Annotated:
        tp, *extra = typing.get_args(tp)
        checks = tuple(extra)
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None and len(args) < len(typing.get_args(tp)):
            return None
        if len(args) == 1:
            return parse_value(args[0], value, path)
        raise TypeError(f"unsupported union {tp}")
    out = _parse_plain(tp, origin, value, path)
    for check in checks:
        if isinstance(check, Between) and not check.lo <= out <= check.hi:
            raise ScoringInputError(path, f"{out} is outside {check.lo}-{check.hi}")
    return out


def _parse_plain(tp: Any, origin: Any, value: object, path: str) -> Any:
    if tp is bool:
        if not isinstance(value, bool):
            raise ScoringInputError(path, f"{_quote(value)} is not true or false")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScoringInputError(path, f"{_quote(value)} is not a whole number")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ScoringInputError(path, f"{_quote(value)} is not a number")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ScoringInputError(path, f"{_quote(value)} is not a string")
        return value
    if isinstance(tp, type) and issubclass(tp, Enum):
        choices = [str(m.value) for m in tp]
        if value not in choices:
            raise ScoringInputError(path, f"{_quote(value)} is not one of: {', '.join(choices)}")
        return tp(value)
    if tp is Tile:
        return parse_tile(value, path)
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            if args[0] is Tile and isinstance(value, str):
                return parse_tile_list(value, path)
            if not isinstance(value, list | tuple):
                raise ScoringInputError(path, f"expected a list, got {_quote(value)}")
            return tuple(parse_value(args[0], v, f"{path}[{i}]") for i, v in enumerate(value))
        if not isinstance(value, list | tuple) or len(value) != len(args):
            raise ScoringInputError(path, f"expected a list of {len(args)}, got {_quote(value)}")
        return tuple(
            parse_value(a, v, f"{path}[{i}]")
            for i, (a, v) in enumerate(zip(args, value, strict=True))
        )
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return parse_dataclass(tp, value, path)
    raise TypeError(f"{path}: unsupported field type {tp!r}")


def parse_tile(value: object, path: str) -> Tile:
    """One tile in notation, e.g. ``'5m'``."""
    if not isinstance(value, str):
        raise ScoringInputError(path, f"{_quote(value)} is not a tile such as '5m'")
    try:
        return Tile.parse(value)
    except TileError as exc:
        raise ScoringInputError(path, str(exc)) from None


def parse_tile_list(value: object, path: str) -> tuple[Tile, ...]:
    """Tiles in notation (``'123m5z'``) or a list of single tiles (``['1m', '2m']``)."""
    try:
        if isinstance(value, str):
            return parse_tiles(value)
        if isinstance(value, list | tuple):
            return tuple(parse_tile(v, f"{path}[{i}]") for i, v in enumerate(value))
    except TileError as exc:
        raise ScoringInputError(path, str(exc)) from None
    raise ScoringInputError(path, f"{_quote(value)} is not tiles such as '123m5z'")


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


_quote = quote


# -- reading back ---------------------------------------------------------------------------
def shown_tiles(instance: object) -> tuple[Tile, ...]:
    """The tiles of the fields declared ``shown=True`` (recursively into dataclasses)."""
    out: list[Tile] = []
    for f in dataclasses.fields(cast(Any, instance)):
        value = getattr(instance, f.name)
        if f.metadata.get("shown"):
            out.extend(_tiles_in(value))
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            out.extend(shown_tiles(value))
    return tuple(out)


def shown_fields(instance: object) -> tuple[tuple[str, tuple[Tile, ...]], ...]:
    """The tiles of each top-level field that is, or holds, a ``shown=True`` field, by
    field name (so that an error can name ``indicator`` or ``fishing``)."""
    out: list[tuple[str, tuple[Tile, ...]]] = []
    for f in dataclasses.fields(cast(Any, instance)):
        value = getattr(instance, f.name)
        if f.metadata.get("shown"):
            out.append((f.name, tuple(_tiles_in(value))))
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            out.append((f.name, shown_tiles(value)))
    return tuple((name, tiles) for name, tiles in out if tiles)


def _tiles_in(value: object) -> list[Tile]:
    if isinstance(value, Tile):
        return [value]
    if isinstance(value, tuple | list):
        return [t for v in value for t in _tiles_in(v)]
    return []


def to_json(value: object) -> Any:
    """A JSON-ready copy: enums → values, tiles → notation, dataclasses → objects."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Tile):
        return str(value)
    if isinstance(value, tuple | list):
        if value and all(isinstance(v, Tile) for v in value):
            return "".join(f"{t.rank}{t.suit.value}" for t in cast(tuple[Tile, ...], value))
        return [to_json(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    return value


def describe_type(tp: Any) -> dict[str, Any]:
    """A JSON description of a field type, for ``GET /v1/cities``.

    >>> describe_type(Seat | None)
    {'type': 'integer', 'min': 0, 'max': 3, 'nullable': True}
    """
    extra: dict[str, Any] = {}
    out: dict[str, Any]
    if typing.get_origin(tp) is Annotated:
        tp, *meta = typing.get_args(tp)
        for m in meta:
            if isinstance(m, Between):
                extra.update(min=m.lo, max=m.hi)
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        out = describe_type(args[0])
        out.update(extra)
        out["nullable"] = True
        return out
    if tp is bool:
        out = {"type": "boolean"}
    elif tp is int:
        out = {"type": "integer"}
    elif tp is float:
        out = {"type": "number"}
    elif tp is str:
        out = {"type": "string"}
    elif isinstance(tp, type) and issubclass(tp, Enum):
        out = {"type": "string", "enum": [m.value for m in tp]}
    elif tp is Tile:
        out = {"type": "tile"}
    elif origin is tuple:
        items = typing.get_args(tp)
        if len(items) == 2 and items[1] is Ellipsis:
            out = (
                {"type": "tiles"}
                if items[0] is Tile
                else {"type": "list", "items": describe_type(items[0])}
            )
        else:
            out = {"type": "list", "items": [describe_type(a) for a in items]}
    elif dataclasses.is_dataclass(tp):
        out = {"type": "object", "fields": describe_fields(cast(type, tp))}
    else:
        out = {"type": repr(tp)}
    out.update(extra)
    return out


def describe_fields(cls: type) -> list[dict[str, Any]]:
    """Name, type, default and documentation of each field of a dataclass."""
    hints = typing.get_type_hints(cls, include_extras=True)
    out: list[dict[str, Any]] = []
    for f in dataclasses.fields(cls):
        entry: dict[str, Any] = {"name": f.name, **describe_type(hints[f.name])}
        if f.default is not dataclasses.MISSING:
            entry["default"] = to_json(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            entry["default"] = to_json(f.default_factory())
        else:
            entry["required"] = True
        entry["doc"] = f.metadata.get("doc", "")
        out.append(entry)
    return out
