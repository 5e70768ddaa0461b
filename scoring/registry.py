"""Where the cities are found.

Each city lives in ``scoring/<name>.py`` and exposes an instance of its ``City`` subclass as
the module attribute ``CITY``. The modules are imported on first use, so importing
``scoring`` does nothing; a city module that does not exist yet is skipped (an import error
*inside* a city module is not hidden).

>>> "nanning" in CITY_MODULES
True
>>> get_city("atlantis")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
hupai.scoring.registry.UnknownCityError: city: 'atlantis' is not a known city; known: ...
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from hupai.scoring.city import City
from hupai.scoring.fields import ScoringInputError
from hupai.scoring.quoting import quote
from hupai.scoring.request import parse_draw_request, parse_request, request_kind
from hupai.scoring.settlement import Result

#: The city modules under ``scoring/``, in the order ``GET /v1/cities`` lists them.
CITY_MODULES = ("nanning", "nanchang", "ningbo", "guiyang", "shaanxi")

_loaded: dict[str, City[Any, Any]] | None = None
_extra: dict[str, City[Any, Any]] = {}


class UnknownCityError(ScoringInputError):
    """The request names a city the registry does not know."""


def _load() -> dict[str, City[Any, Any]]:
    global _loaded
    if _loaded is None:
        found: dict[str, City[Any, Any]] = {}
        for module_name in CITY_MODULES:
            qualified = f"hupai.scoring.{module_name}"
            try:
                module = importlib.import_module(qualified)
            except ModuleNotFoundError as exc:
                if exc.name != qualified:
                    raise
                continue  # that city is not written yet
            city = getattr(module, "CITY", None)
            if isinstance(city, City):
                found[city.name] = city
        _loaded = found
    return {**_loaded, **_extra}


def register(city: City[Any, Any]) -> City[Any, Any]:
    """Add a city that does not live in ``scoring/`` (a test's toy city, a plug-in)."""
    _extra[city.name] = city
    return city


def unregister(name: str) -> None:
    _extra.pop(name, None)


def cities() -> tuple[City[Any, Any], ...]:
    """Every known city, in registry order."""
    return tuple(_load().values())


def city_names() -> tuple[str, ...]:
    return tuple(_load())


def get_city(name: object) -> City[Any, Any]:
    """The city called ``name``; an unknown name is an error listing the known ones."""
    known = _load()
    if isinstance(name, str) and name in known:
        return known[name]
    names = ", ".join(known) or "none yet"
    raise UnknownCityError("city", f"{quote(name)} is not a known city; known: {names}")


def describe_cities() -> list[dict[str, Any]]:
    """Every city with its options, defaults and per-city fields, as plain data."""
    return [city.describe() for city in cities()]


def score(data: Mapping[str, Any] | Any) -> Result:
    """Score one JSON request (already parsed from JSON).

    Raises ScoringInputError (a ValueError) for malformed input; a legal hand that does
    not win is a Result with ``valid`` False and a reason code. A request of ``kind``
    ``draw`` (all four hands, no winner) goes to the city's ``score_draw``. The table's house
    rules (``cap``, ``dealer_double``: hupai.scoring.house) are applied to either.
    """
    if not isinstance(data, Mapping):
        raise ScoringInputError("request", f"expected a JSON object, got {quote(data)}")
    if "city" not in data:
        raise ScoringInputError("city", f"required; known: {', '.join(city_names()) or 'none yet'}")
    city = get_city(data["city"])
    if request_kind(data) == "draw":
        return city.settle(parse_draw_request(data, city))
    return city.settle(parse_request(data, city))
