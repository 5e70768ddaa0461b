"""A table's game across hands: who deals, the round wind, the dealer's streak, totals.

Pure: no storage. A table is four **players** in fixed chairs (0–3, in turn order). Each hand
is given in players' terms — ``winner``, ``discarder``, a meld's ``from`` and every seat
field of the city are players — and :func:`play` turns it into the hand's own seats (seat 0 =
that hand's dealer), fills in what follows from the hands before it (``round_wind``, the
city's streak field, the options), scores it, and maps the per-seat deltas back to players.
The rules are in ../shared/rules/INTERPRETATION.md, "Across hands".

>>> setup = TableSetup("shaanxi", first_dealer=0)
>>> state = GameState.start(setup)
>>> win = {"kind": "win", "winner": 2, "win": "self_draw", "hand": "123m456m789m123p55s",
...        "win_tile": "5s"}
>>> played = play(setup, state, win)
>>> played.seating.seat_of(2), played.deltas
(2, (-6, -6, 18, -6))
>>> played.after.seating.dealer, played.after.totals
(1, (-6, -6, 18, -6))
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from hupai.scoring.fields import Between, ScoringInputError, parse_dataclass, parse_value
from hupai.scoring.quoting import quote
from hupai.scoring.registry import get_city, score
from hupai.scoring.request import result_to_dict
from hupai.scoring.succession import OTHER_WIN_CHOICES, Succession, SuccessionRule

PLAYERS = (0, 1, 2, 3)
WIND_NAMES = ("East", "South", "West", "North")
#: Fields of a win that the table fills in; a hand that gives them is refused.
FILLED_BY_TABLE = ("city", "options", "round_wind")
#: The fields of a draw, besides ``kind``.
DRAW_ENTRY_FIELDS = ("last_drawer", "kong_declared", "hands")
_SEAT_RANGE = Between(0, 3)
_PLAYER_TEXT = "a player (0-3, the table's chair order)"


class HandKind(StrEnum):
    WIN = "win"
    DRAW = "draw"


@dataclass(frozen=True)
class TableSetup:
    """What a table agrees before the first hand: the city and its options (JSON, as in a
    score request), the player who deals first, each player's starting points, and — where
    the seed is silent on a non-dealer's win — who deals next (``next`` or ``winner``)."""

    city: str
    options: Mapping[str, Any] = field(default_factory=dict)
    first_dealer: int = 0
    starting_points: int = 0
    succession: str | None = None

    def check(self) -> None:
        """Raise :class:`ScoringInputError` naming what is wrong.

        >>> TableSetup("ningbo", succession="winner").check()
        Traceback (most recent call last):
        ...
        hupai.scoring.fields.ScoringInputError: succession: ningbo's seed says who deals next; \
no choice to make
        """
        city = get_city(self.city)
        parse_dataclass(city.options_type, self.options, "options")
        _player(self.first_dealer, "first_dealer")
        parse_value(int, self.starting_points, "starting_points")
        if abs(self.starting_points) > 10**9:
            raise ScoringInputError("starting_points", f"{self.starting_points} is too large")
        if self.succession is not None:
            if not city.succession.other_win_option:
                raise ScoringInputError(
                    "succession", f"{city.name}'s seed says who deals next; no choice to make"
                )
            if not isinstance(self.succession, str) or self.succession not in OTHER_WIN_CHOICES:
                raise ScoringInputError(
                    "succession",
                    f"{quote(self.succession)} is not one of: {', '.join(OTHER_WIN_CHOICES)}",
                )

    def rule(self) -> SuccessionRule:
        rule = get_city(self.city).succession
        if self.succession is not None:
            return rule.with_other_win(OTHER_WIN_CHOICES[self.succession])
        return rule


@dataclass(frozen=True)
class Seating:
    """Where a hand sits in the game: its dealer (a player), the round wind (0 East … 3 North),
    which deal of the round it is (1, 2 …; a dealer who keeps the deal keeps the number), and
    ``streak``: the hands the dealer won in a row just before this one (draws neither add nor
    break it)."""

    dealer: int
    round_wind: int = 0
    deal: int = 1
    streak: int = 0

    def seat_of(self, player: int) -> int:
        """The seat a player sits in this hand (0 = dealer).

        >>> Seating(dealer=3).seat_of(0), Seating(dealer=3).player_of(1)
        (1, 0)
        """
        return (player - self.dealer) % 4

    def player_of(self, seat: int) -> int:
        return (self.dealer + seat) % 4

    @property
    def dealer_streak(self) -> int:
        """Guiyang's ``dealer_streak`` if the dealer wins this hand: 1 + earlier wins."""
        return 1 + self.streak

    @property
    def round_wind_tile(self) -> str:
        return f"{self.round_wind + 1}z"

    def to_dict(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "round_wind": self.round_wind_tile,
            "round_wind_name": WIND_NAMES[self.round_wind],
            "deal": self.deal,
            "dealer_streak": self.dealer_streak,
            "seats": [self.player_of(s) for s in PLAYERS],
        }


@dataclass(frozen=True)
class GameState:
    """The game before a hand: that hand's seating and each player's running total."""

    seating: Seating
    totals: tuple[int, int, int, int]
    hands: int = 0

    @staticmethod
    def start(setup: TableSetup) -> GameState:
        points = setup.starting_points
        return GameState(Seating(setup.first_dealer), (points, points, points, points))

    def to_dict(self) -> dict[str, Any]:
        return {"seating": self.seating.to_dict(), "totals": list(self.totals), "hands": self.hands}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> GameState:
        """The inverse of :meth:`to_dict` (a stored checkpoint)."""
        seating = data["seating"]
        wind = int(seating["round_wind"][0]) - 1
        t = [int(x) for x in data["totals"]]
        streak = int(seating["dealer_streak"]) - 1
        return GameState(
            Seating(int(seating["dealer"]), wind, int(seating["deal"]), streak),
            (t[0], t[1], t[2], t[3]),
            int(data["hands"]),
        )


@dataclass(frozen=True)
class PlayedHand:
    """One hand played: its seating, the request scored (seats), the result (JSON, or None
    for a draw the city does not settle), the deltas by player, and the game after it.
    ``problem``: why a recorded hand scores nothing (``not_a_winning_hand`` …), else None."""

    kind: HandKind
    seating: Seating
    request: dict[str, Any] | None
    result: dict[str, Any] | None
    deltas: tuple[int, int, int, int]
    after: GameState
    problem: str | None = None


def play(setup: TableSetup, state: GameState, entry: Mapping[str, Any]) -> PlayedHand:
    """Play one hand (in players' terms) from the game ``state`` before it.

    Malformed input raises :class:`ScoringInputError`; a legal hand that does not score (not a
    winning hand, below the minimum …) is played with zero deltas and its ``problem`` set —
    the deal still follows who won.
    """
    if not isinstance(entry, Mapping):
        raise ScoringInputError("hand", f"expected a JSON object, got {quote(entry)}")
    kind = parse_value(HandKind, entry.get("kind", "win"), "kind")
    if kind is HandKind.WIN:
        return _play_win(setup, state, entry)
    return _play_draw(setup, state, entry)


def _play_win(setup: TableSetup, state: GameState, entry: Mapping[str, Any]) -> PlayedHand:
    city = get_city(setup.city)
    rule = setup.rule()
    for name in (*FILLED_BY_TABLE, *([rule.streak_field] if rule.streak_field else [])):
        if name in entry:
            raise ScoringInputError(name, "filled in by the table; leave it out")
    seating = state.seating
    winner = _player(entry.get("winner"), "winner")
    _check_players(entry, winner)
    request = to_seats(entry, city.table_type, seating)
    request.pop("kind", None)
    request.update(city=city.name, options=dict(setup.options), round_wind=seating.round_wind_tile)
    if rule.streak_field and winner == seating.dealer:
        request[rule.streak_field] = seating.dealer_streak
    result = result_to_dict(score(request))
    problem = None if result["valid"] else str(result["reason"])
    deltas = _by_player(result["deltas"], seating) if result["valid"] else (0, 0, 0, 0)
    succession = rule.after_win(winner_is_dealer=winner == seating.dealer)
    after = _next(setup, state, succession, deltas, winner=winner)
    return PlayedHand(HandKind.WIN, seating, request, result, deltas, after, problem)


def _play_draw(setup: TableSetup, state: GameState, entry: Mapping[str, Any]) -> PlayedHand:
    city = get_city(setup.city)
    rule = setup.rule()
    for key in entry:
        if key != "kind" and key not in DRAW_ENTRY_FIELDS:
            raise ScoringInputError(
                str(key), f"not part of a draw; known: kind, {', '.join(DRAW_ENTRY_FIELDS)}"
            )
    seating = state.seating
    drawer = None
    if rule.draw_needs_drawer:
        if entry.get("last_drawer") is None:
            raise ScoringInputError(
                "last_drawer", f"required in {city.name}: who drew the last tile deals next"
            )
        drawer = _player(entry["last_drawer"], "last_drawer")
    elif entry.get("last_drawer") is not None:
        _player(entry["last_drawer"], "last_drawer")  # recorded; it does not move the deal
    kong = parse_value(bool, entry.get("kong_declared", False), "kong_declared")
    request = result = None
    deltas = (0, 0, 0, 0)
    if entry.get("hands") is not None:
        if not city.scores_draws:
            raise ScoringInputError("hands", f"{city.name} does not settle a drawn hand")
        hands = _rotated(entry["hands"], seating, "hands")
        request = {
            "city": city.name,
            "kind": "draw",
            "hands": [_meld_sources(h, seating, f"hands[{i}]") for i, h in enumerate(hands)],
            "options": dict(setup.options),
        }
        result = result_to_dict(score(request))
        deltas = _by_player(result["deltas"], seating)
    succession = rule.draw
    if succession is Succession.PASSES_IF_KONG:
        succession = Succession.PASSES if kong else Succession.KEEPS
    after = _next(setup, state, succession, deltas, drawer=drawer)
    return PlayedHand(HandKind.DRAW, seating, request, result, deltas, after)


def _next(
    setup: TableSetup,
    state: GameState,
    succession: Succession,
    deltas: tuple[int, int, int, int],
    *,
    winner: int | None = None,
    drawer: int | None = None,
) -> GameState:
    seating = state.seating
    dealer = seating.dealer
    if succession is Succession.PASSES:
        dealer = (dealer + 1) % 4
    elif succession is Succession.WINNER:
        assert winner is not None
        dealer = winner
    elif succession is Succession.LAST_DRAWER:
        assert drawer is not None
        dealer = drawer
    if dealer == seating.dealer:
        streak = seating.streak + 1 if winner == dealer else seating.streak
        if winner is not None and winner != dealer:
            streak = 0  # beaten, yet kept the deal (no seed does this): the run is over
        following = Seating(dealer, seating.round_wind, seating.deal, streak)
    elif dealer == setup.first_dealer:  # the deal went round the table: the wind moves on
        following = Seating(dealer, (seating.round_wind + 1) % 4, 1, 0)
    else:
        following = Seating(dealer, seating.round_wind, seating.deal + 1, 0)
    t = state.totals
    totals = (t[0] + deltas[0], t[1] + deltas[1], t[2] + deltas[2], t[3] + deltas[3])
    return GameState(following, totals, state.hands + 1)


# -- players → seats ---------------------------------------------------------------------------
def to_seats(entry: Mapping[str, Any], table_type: type[Any], seating: Seating) -> dict[str, Any]:
    """A win given in players' terms as the score request in this hand's seats: ``winner``,
    ``discarder``, melds' ``from``, and every field of the city's ``table_type`` typed as a
    seat (a 4-tuple typed field is by seat: rotated).

    >>> from hupai.scoring.shaanxi import ShaanxiTable
    >>> to_seats({"winner": 1, "paozi": [0, 1, 2, 3]}, ShaanxiTable, Seating(dealer=1))
    {'winner': 0, 'paozi': [1, 2, 3, 0]}
    """
    out: dict[str, Any] = dict(_meld_sources(entry, seating, ""))
    for name in ("winner", "discarder"):
        if out.get(name) is not None:
            out[name] = seating.seat_of(_player(out[name], name))
    hints = typing.get_type_hints(table_type, include_extras=True)
    for f in dataclasses.fields(table_type):
        if f.name in out:
            out[f.name] = _reseat(hints[f.name], out[f.name], seating, f.name)
    return out


def _meld_sources(data: Any, seating: Seating, path: str) -> Any:
    if not isinstance(data, Mapping) or not isinstance(data.get("melds"), list):
        return data
    melds = []
    for i, meld in enumerate(data["melds"]):
        if isinstance(meld, Mapping) and meld.get("from") is not None:
            where = f"{path}.melds[{i}].from".lstrip(".")
            meld = {**meld, "from": seating.seat_of(_player(meld["from"], where))}
        melds.append(meld)
    return {**data, "melds": melds}


def _reseat(tp: Any, value: Any, seating: Seating, path: str) -> Any:
    """Walk ``value`` (JSON) along the type ``tp``, turning players into seats."""
    if value is None:
        return None
    if typing.get_origin(tp) is typing.Annotated:
        base, *extra = typing.get_args(tp)
        if base is int and _SEAT_RANGE in extra:
            return seating.seat_of(_player(value, path))
        return _reseat(base, value, seating, path)
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return _reseat(args[0], value, seating, path) if len(args) == 1 else value
    if origin is tuple and isinstance(value, list):
        items = typing.get_args(tp)
        if len(items) == 2 and items[1] is Ellipsis:
            return [_reseat(items[0], v, seating, f"{path}[{i}]") for i, v in enumerate(value)]
        if len(items) == 4:  # one entry per seat
            rotated = _rotated(value, seating, path)
            return [_reseat(items[s], v, seating, f"{path}[{s}]") for s, v in enumerate(rotated)]
        return value
    if dataclasses.is_dataclass(tp) and isinstance(value, Mapping):
        hints = typing.get_type_hints(tp, include_extras=True)
        return {
            k: _reseat(hints[k], v, seating, f"{path}.{k}") if k in hints else v
            for k, v in value.items()
        }
    return value


def _rotated(value: Any, seating: Seating, path: str) -> list[Any]:
    """A list of four by player → the same by seat."""
    if not isinstance(value, list) or len(value) != 4:
        raise ScoringInputError(
            path, f"expected a list of 4, one per player in chair order; got {quote(value)}"
        )
    return [value[seating.player_of(s)] for s in PLAYERS]


def _by_player(seat_deltas: Any, seating: Seating) -> tuple[int, int, int, int]:
    out = [0, 0, 0, 0]
    for seat, delta in enumerate(seat_deltas):
        out[seating.player_of(seat)] = int(delta)
    return (out[0], out[1], out[2], out[3])


def _check_players(entry: Mapping[str, Any], winner: int) -> None:
    """The checks whose messages would otherwise quote seats: said here in players."""
    discarder = entry.get("discarder")
    if discarder is not None and _player(discarder, "discarder") == winner:
        raise ScoringInputError(
            "discarder", f"player {winner} is the winner; a player cannot feed himself"
        )
    melds = entry.get("melds")
    for i, meld in enumerate(melds if isinstance(melds, list) else []):
        if not isinstance(meld, Mapping) or meld.get("from") is None:
            continue
        source = _player(meld["from"], f"melds[{i}].from")
        if source == winner:
            raise ScoringInputError(f"melds[{i}].from", f"player {source} is the winner")
        previous = (winner + 3) % 4
        if meld.get("kind") == "chow" and source != previous:
            raise ScoringInputError(
                f"melds[{i}].from",
                f"a chow is claimed from the player before the winner ({previous}), not {source}",
            )


def _player(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in PLAYERS:
        if value is None:
            raise ScoringInputError(path, f"required ({_PLAYER_TEXT})")
        raise ScoringInputError(path, f"{quote(value)} is not {_PLAYER_TEXT}")
    return value
