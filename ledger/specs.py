"""A table's setup as a request gives it — city, players, options, rate — checked before it is
stored, with the error naming the field; and the figures derived from it (house rules, money).

>>> table_spec({"city": "shaanxi", "players": ["A", "B", "C", "D"]})["city"]
'shaanxi'
>>> parse_rate("0.50")
'0.5'
>>> money((-6, 18), "0.5")
['-3.00', '9.00']
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from hupai.ledger.errors import Invalid
from hupai.ledger.models import GameTable
from hupai.scoring import ScoringInputError, city_names, get_city
from hupai.scoring.fields import parse_dataclass
from hupai.scoring.game import TableSetup
from hupai.scoring.house import HouseRules
from hupai.scoring.quoting import quote

MAX_NAME = 40
MAX_TABLE_NAME = 200


def table_spec(data: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise Invalid(f"table: expected a JSON object, got {quote(data)}")
    fields = (
        "name",
        "city",
        "players",
        "options",
        "first_dealer",
        "starting_points",
        "rate",
        "succession",
    )
    for key in data:
        if key not in fields:
            raise Invalid(f"{quote(key)}: unknown field; known: {', '.join(fields)}", str(key))
    players = data.get("players")
    if (
        not isinstance(players, list)
        or len(players) != 4
        or not all(isinstance(p, str) and p.strip() for p in players)
    ):
        raise Invalid(
            f"players: expected 4 names in chair order (turn order), got {quote(players)}",
            "players",
        )
    for i, p in enumerate(players):
        if len(p.strip()) > MAX_NAME:  # refused, not cut: a name is kept as given
            raise Invalid(
                f"players[{i}]: a name of {len(p.strip())} characters; at most {MAX_NAME}",
                f"players[{i}]",
            )
    names = [p.strip() for p in players]
    # names are how players are told apart when typed (the CLI's --winner Ann): "ann" and
    # "Ann" would be the same player there
    if len({n.casefold() for n in names}) != 4:
        raise Invalid(
            f"players: two players share a name ({quote(names)}; capitals do not count)",
            "players",
        )
    name = data.get("name", "")
    if not isinstance(name, str):
        raise Invalid(f"name: expected text, got {quote(name)}", "name")
    if len(name.strip()) > MAX_TABLE_NAME:  # refused, not cut: a name is kept as given
        raise Invalid(f"name: {len(name.strip())} characters; at most {MAX_TABLE_NAME}", "name")
    options = data.get("options", {})
    if options is None:
        options = {}
    rate = parse_rate(data.get("rate"))
    city = data.get("city")
    if not isinstance(city, str):
        known = ", ".join(city_names())
        raise Invalid(f"city: required, one of: {known} (got {quote(city)})", "city")
    setup = TableSetup(
        city=city,
        options=options,
        first_dealer=data.get("first_dealer", 0),
        starting_points=data.get("starting_points", 0),
        succession=data.get("succession"),
    )
    try:
        setup.check()
    except ScoringInputError as exc:
        raise Invalid.of(exc) from None
    return {
        "name": name.strip(),
        "city": get_city(setup.city).name,
        "options": dict(options),
        "players": names,
        "first_dealer": setup.first_dealer,
        "starting_points": setup.starting_points,
        "rate": rate,
        "succession": setup.succession,
    }


def parse_rate(value: object) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise Invalid(f"rate: expected a number, got {quote(value)}", "rate")
    try:
        rate = Decimal(str(value))
    except InvalidOperation:
        raise Invalid(f"rate: {quote(value)} is not a number", "rate") from None
    if not rate.is_finite() or rate < 0 or rate > 10**6:
        raise Invalid(f"rate: {quote(value)} is not a rate (0 to 1000000 per point)", "rate")
    return str(rate.normalize())


def money(totals: tuple[int, ...], rate: str | None) -> list[str] | None:
    if rate is None:
        return None
    r = Decimal(rate)
    return [str((Decimal(t) * r).quantize(Decimal("0.01"))) for t in totals]


def checked_options(
    table: GameTable, options: object, city: str, succession: str | None
) -> dict[str, Any]:
    """New options for ``table`` under ``city``, checked as at its creation (field
    ``options.<name>``)."""
    if not isinstance(options, Mapping):
        raise Invalid(f"options: expected a JSON object, got {quote(options)}", "options")
    setup = TableSetup(city, options, table.first_dealer, table.starting_points, succession)
    try:
        setup.check()
    except ScoringInputError as exc:
        raise Invalid.of(exc) from None
    return dict(options)


def known_city(city: object) -> str:
    """A city's name as the scorer spells it, or :class:`Invalid` naming the known ones."""
    try:
        return get_city(city).name
    except ScoringInputError as exc:
        raise Invalid.of(exc) from None


def house_rules(city: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The table's house rules with the defaults filled in (``cap``, ``dealer_double``)."""
    parsed = parse_dataclass(get_city(city).options_type, options, "options")
    return dict(parsed.house_rules) if isinstance(parsed, HouseRules) else {}
