"""A toy city, the worked example of docs/core-api.md (kept runnable by the tests)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from hupai.scoring import (
    City,
    Decomposition,
    ItemGroup,
    Pattern,
    Reason,
    Request,
    Result,
    Seat,
    Settlement,
    Shape,
    ShapeRules,
    Tile,
    TileSet,
    next_tile,
    setting,
)


class Combine(StrEnum):
    MAX = "max"
    SUM = "sum"


@dataclass(frozen=True)
class ToyOptions:
    base: int = setting(1, "points of a plain win")
    combine: Combine = setting(Combine.MAX, "take the best pattern, or add them up")
    min_points: int = setting(0, "smallest hand that may win (0: any)")


@dataclass(frozen=True)
class ToyTable:
    indicator: Tile | None = setting(None, "flipped tile; the next tile is wild", shown=True)
    lucky_seat: Seat | None = setting(None, "this seat pays double")


class Toy(City[ToyOptions, ToyTable]):
    name = "toy"
    title = "Toytown — a worked example"
    tile_set = TileSet.STANDARD
    exposed_chows = True
    options_type = ToyOptions
    table_type = ToyTable

    RULES = ShapeRules(seven_pairs=True)

    def score(self, request: Request[ToyOptions, ToyTable]) -> Result:
        hand, win, table, options = request.hand, request.win, request.table, request.options
        wilds = frozenset() if table.indicator is None else frozenset({next_tile(table.indicator)})
        readings = self.decompositions(hand, self.RULES, wilds)
        if not readings:
            return Result.invalid(self.name, Reason.NOT_A_WINNING_HAND, "no four sets and a pair")
        candidates = [self._score_one(request, d) for d in readings]
        best = max(candidates, key=lambda r: r.deltas[win.winner])
        if options.min_points and sum(p.value for p in best.patterns) < options.min_points:
            return Result.invalid(self.name, Reason.BELOW_MINIMUM, "below the minimum")
        return best

    def _score_one(self, request: Request[ToyOptions, ToyTable], reading: Decomposition) -> Result:
        hand, win, table, options = request.hand, request.win, request.table, request.options
        patterns = [Pattern("plain", "Plain win", options.base)]
        if reading.shape is Shape.SEVEN_PAIRS:
            patterns.append(Pattern("seven_pairs", "Seven pairs 七对", 4 * options.base))
        if options.combine is Combine.MAX:
            points = max(p.value for p in patterns)
        else:
            points = sum(p.value for p in patterns)

        def amount(payer: int) -> int:
            return points * (2 if payer == table.lucky_seat else 1)

        if win.is_self_drawn:
            settlement = Settlement().each_pays(win.winner, amount, "hand", "self-draw")
        else:
            assert win.discarder is not None
            settlement = Settlement().pay(
                win.discarder, win.winner, amount(win.discarder), "hand", "discard"
            )
        for meld in hand.kongs:
            settlement = settlement.each_pays(
                win.winner, 1, "kong", f"kong {meld.tile}", ItemGroup.INSTANT
            )
        waits = reading.waits(hand.win_tile)
        return Result(
            self.name,
            True,
            Reason.OK,
            decomposition=reading,
            wait=waits[0].kind if waits else None,
            patterns=tuple(patterns),
            settlement=settlement,
            details={"points": points},
        )


CITY = Toy()
