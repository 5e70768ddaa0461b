"""Nanning 南宁麻将 — Lucky Catch: table rows per win type, minimum 9, fishing 钓鱼, kong
payouts and sealing 封胡 (seed 000; ../shared/rules/INTERPRETATION.md, docs/rules/nanning.md).

The hand is worth the **highest applicable row** of the seed's table (option ``combine``);
a self-draw figure is paid by each of the three others, a discard figure by the discarder.
After a win the winner may flip up to three **fishing** tiles; each names a seat, and every
payer's share is multiplied by 2 for each tile naming the winner or that payer.

The seed's own check (dealer self-draws a 5-point hand, fishing tiles 1m 8s 6z):

>>> from scoring import score
>>> result = score({
...     "city": "nanning", "hand": "123m456p789s111z55z", "win_tile": "5z",
...     "win": "self_draw", "winner": 0, "fishing": "1m8s6z", "hand_points": 5,
... })
>>> result.deltas
(50, -20, -10, -20)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Annotated

from hupai.scoring.city import City, Request, TileSet
from hupai.scoring.decompose import Decomposition, Shape, ShapeRules, WaitKind
from hupai.scoring.fields import Between, ScoringInputError, Seat, required, setting
from hupai.scoring.hand import Hand, MeldKind, WinContext, WinMethod, others
from hupai.scoring.house import HouseRules
from hupai.scoring.patterns import ALL_PUNGS, BIG_SEVEN_PAIRS, PURE_SUIT, SEVEN_PAIRS, HandView
from hupai.scoring.settlement import Item, ItemGroup, Json, Pattern, Reason, Result, Settlement
from hupai.scoring.succession import Succession, SuccessionRule
from hupai.scoring.tiles import Suit, Tile, format_tiles, parse_tiles

SEAT_NAMES = ("East", "South", "West", "North")
#: The fewest tiles the winner must hold outside exposed melds to fish, and the most flipped.
FISHING_MIN_TILES = 9
FISHING_MAX_TILES = 3


# -- options and table fields ------------------------------------------------------------------
class Combine(StrEnum):
    """How the applicable rows make the hand's points."""

    MAX = "max"  # the highest applicable row (the default reading)
    SUM = "sum"  # every applicable row added up (plain only when no other row applies)


@dataclass(frozen=True)
class NanningOptions(HouseRules):
    combine: Combine = setting(
        Combine.MAX, "max: the highest applicable row pays; sum: the applicable rows add up"
    )
    min_points: Annotated[int, Between(0, 1000)] = setting(
        9, "smallest total the winner collects before sealing and fishing (0: no minimum)"
    )
    allow_chow_claim: bool = setting(
        False, "accept exposed chows (the seed describes claiming only pungs and kongs)"
    )
    plain_needs_self_draw: bool = setting(
        False,
        "平胡需自摸: a hand worth only the plain row cannot win on a discard (as Nanning rooms "
        "offer; matters when min_points lets a plain discard win through)",
    )


@dataclass(frozen=True)
class Sealing:
    """封胡: ``seat`` is sealed by ``by`` (the player it let pung or kong three times)."""

    seat: Seat = required("the sealed seat: it cannot win this hand")
    by: Seat = required("the sealing seat: when it wins, the sealed seat pays (see the rules)")


@dataclass(frozen=True)
class NanningTable:
    fishing: tuple[Tile, ...] = setting(
        (), "up to three tiles flipped from the end of the wall after the win", shown=True
    )
    sealed: Sealing | None = setting(None, "封胡: which seat is sealed, and by whom")
    hand_points: Annotated[int, Between(1, 10_000)] | None = setting(
        None,
        "override: the hand is worth this many points instead of the table's rows "
        "(the seed's fishing examples use a 5-point hand)",
    )

    def __post_init__(self) -> None:
        shown = format_tiles(self.fishing)
        if len(self.fishing) > FISHING_MAX_TILES:
            raise ScoringInputError(
                "fishing",
                f"'{shown}' is {len(self.fishing)} tiles; the winner flips at most "
                f"{FISHING_MAX_TILES}",
            )
        if any(t.is_flower for t in self.fishing):
            raise ScoringInputError(
                "fishing", f"'{shown}' holds a flower; nanning is played without flowers"
            )


class NanningReason(StrEnum):
    """Nanning's own result codes (besides the shared ones)."""

    PLAIN_NEEDS_SELF_DRAW = "plain_needs_self_draw"


# -- the table's rows --------------------------------------------------------------------------
class RowCode(StrEnum):
    PLAIN = "plain"
    CONCEALED_HAND = "concealed_hand"
    PURE_ONE_SUIT = "pure_one_suit"
    ALL_TRIPLETS = "all_triplets"
    SEVEN_PAIRS = "seven_pairs"
    BIG_SEVEN_PAIRS = "big_seven_pairs"
    THIRTEEN_ORPHANS = "thirteen_orphans"
    ALL_HONORS = "all_honors"
    HEAVENLY = "heavenly"
    EARTHLY = "earthly"
    GLOBAL_WIN = "global_win"
    LAST_TILE_SELF_DRAW = "last_tile_self_draw"
    LAST_TILE_DISCARD = "last_tile_discard"


@dataclass(frozen=True, slots=True)
class Situation:
    """One reading of the hand with how it was won: what every row looks at."""

    hand: Hand
    win: WinContext
    reading: Decomposition

    @property
    def self_drawn(self) -> bool:
        """Self-draw or kong replacement (the self-draw column)."""
        return self.win.is_self_drawn

    @property
    def view(self) -> HandView:
        """The reading with the melds, for the shared patterns (hupai.scoring.patterns)."""
        return HandView.of(self.reading, self.hand.melds)


def plain(s: Situation) -> bool:
    """Any win: the self-draw and discard rows of the seed's table."""
    return True


def concealed_hand(s: Situation) -> bool:
    """门清: no exposed meld (a concealed kong keeps the hand concealed)."""
    return s.hand.is_concealed


def pure_one_suit(s: Situation) -> bool:
    """清一色 (the seed's "All Simples"): every tile, melds included, from one suit."""
    return PURE_SUIT.applies(s.view)


def all_triplets(s: Situation) -> bool:
    """碰碰胡: four pungs or kongs (melds included) and a pair."""
    return ALL_PUNGS.applies(s.view)


def seven_pairs(s: Situation) -> bool:
    """七小对: seven different pairs."""
    return SEVEN_PAIRS.applies(s.view)


def big_seven_pairs(s: Situation) -> bool:
    """大七对: seven pairs with a quad in the hand counting as two of them."""
    return BIG_SEVEN_PAIRS.applies(s.view)


def thirteen_orphans(s: Situation) -> bool:
    """十三幺: each terminal and honor once, one of them twice."""
    return s.reading.shape is Shape.THIRTEEN_ORPHANS


def all_honors(s: Situation) -> bool:
    """字一色: winds and dragons only."""
    return all(t.is_honor for t in s.hand.all_tiles)


def heavenly(s: Situation) -> bool:
    """天胡: the dealer wins on the dealt hand."""
    return s.win.first_turn and s.self_drawn and s.win.winner_is_dealer


def earthly(s: Situation) -> bool:
    """地胡: a non-dealer wins on the first tile it draws."""
    return s.win.first_turn and s.self_drawn and not s.win.winner_is_dealer


def global_win(s: Situation) -> bool:
    """全求人: all four sets exposed, winning on a discard with a single wait on the pair."""
    return (
        len(s.hand.exposed_melds) == 4
        and not s.self_drawn
        and WaitKind.SINGLE in s.reading.wait_kinds(s.hand.win_tile)
    )


def last_tile(s: Situation) -> bool:
    """海底捞月 / 海底炮: the win uses the last tile of the wall."""
    return s.win.last_tile


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the seed's points table; None: the row does not pay on that kind of win."""

    code: RowCode
    name: str
    self_draw: int | None
    discard: int | None
    applies: Callable[[Situation], bool]

    def value(self, s: Situation) -> int | None:
        """Points of this row for ``s``, or None when it does not apply."""
        figure = self.self_draw if s.self_drawn else self.discard
        return figure if figure is not None and self.applies(s) else None


#: The seed's "Points and Payout Table", as INTERPRETATION.md reads it.
ROWS: tuple[Row, ...] = (
    Row(RowCode.PLAIN, "Plain win", 3, 2, plain),
    Row(RowCode.CONCEALED_HAND, "Concealed hand 门清", 4, None, concealed_hand),
    Row(RowCode.PURE_ONE_SUIT, "Pure one suit 清一色", 6, 9, pure_one_suit),
    Row(RowCode.ALL_TRIPLETS, "All triplets 碰碰胡", 6, 9, all_triplets),
    Row(RowCode.SEVEN_PAIRS, "Seven pairs 七小对", 8, 12, seven_pairs),
    Row(RowCode.BIG_SEVEN_PAIRS, "Big seven pairs 大七对", 16, 24, big_seven_pairs),
    Row(RowCode.THIRTEEN_ORPHANS, "Thirteen orphans 十三幺", 24, 36, thirteen_orphans),
    Row(RowCode.ALL_HONORS, "All honors 字一色", 24, 36, all_honors),
    Row(RowCode.HEAVENLY, "Heavenly win 天胡", 24, None, heavenly),
    Row(RowCode.EARTHLY, "Earthly win 地胡", 24, None, earthly),
    Row(RowCode.GLOBAL_WIN, "Global win 全求人", None, 18, global_win),
    Row(RowCode.LAST_TILE_SELF_DRAW, "Last tile self-draw 海底捞月", 6, None, last_tile),
    Row(RowCode.LAST_TILE_DISCARD, "Last tile discard 海底炮", None, 9, last_tile),
)

RULES = ShapeRules(standard=True, seven_pairs=True, quad_pairs=True, thirteen_orphans=True)


def applicable_rows(s: Situation) -> tuple[Pattern, ...]:
    """Every row that applies to ``s``, with its points for this kind of win."""
    out: list[Pattern] = []
    for row in ROWS:
        value = row.value(s)
        if value is not None:
            out.append(Pattern(row.code.value, row.name, value))
    return tuple(out)


def counted_rows(rows: Sequence[Pattern], combine: Combine) -> tuple[Pattern, ...]:
    """The rows that make the points: the highest one (first on a tie), or under ``sum``
    every row but plain (plain only when it is alone).

    >>> rows = (Pattern("plain", "", 3), Pattern("concealed_hand", "", 4),
    ...         Pattern("pure_one_suit", "", 6))
    >>> [p.code for p in counted_rows(rows, Combine.MAX)]
    ['pure_one_suit']
    >>> [p.code for p in counted_rows(rows, Combine.SUM)]
    ['concealed_hand', 'pure_one_suit']
    """
    if combine is Combine.MAX:
        best = max(rows, key=lambda p: p.value)
        return (best,)
    special = tuple(p for p in rows if p.code != RowCode.PLAIN)
    return special or tuple(rows)


# -- fishing 钓鱼 --------------------------------------------------------------------------------
#: The seat each honor names: East and Red → 0, South and Green → 1, West and White → 2,
#: North → 3. Numbered tiles name seat (rank − 1) mod 4: 1 5 9 → 0, 2 6 → 1, 3 7 → 2, 4 8 → 3.
HONOR_SEAT: Mapping[int, int] = {1: 0, 2: 1, 3: 2, 4: 3, 5: 2, 6: 1, 7: 0}


def seat_named_by(tile: Tile) -> int:
    """The seat a flipped tile names.

    >>> [seat_named_by(Tile.parse(t)) for t in ("1m", "5p", "9s", "6s", "8s", "5z", "6z", "7z")]
    [0, 0, 0, 1, 3, 2, 1, 0]
    """
    if tile.suit is Suit.HONOR:
        return HONOR_SEAT[tile.rank]
    return (tile.rank - 1) % 4


@dataclass(frozen=True, slots=True)
class Catch:
    """The fishing tiles of one win, read for ``winner``.

    >>> catch = Catch.of("1m6s5z", winner=0)  # the seed's first scenario
    >>> catch.seats, catch.multiplier(2), catch.multiplier(1), catch.multiplier(3)
    ((0, 1, 2), 4, 4, 2)
    """

    tiles: tuple[Tile, ...]
    winner: int

    @staticmethod
    def of(text: str, winner: int) -> Catch:
        return Catch(parse_tiles(text), winner)

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(seat_named_by(t) for t in self.tiles)

    def named(self, seat: int) -> int:
        """How many tiles name ``seat``."""
        return self.seats.count(seat)

    def multiplier(self, payer: int) -> int:
        """2^(W+P): W tiles naming the winner, P tiles naming ``payer``."""
        return int(2 ** (self.named(self.winner) + self.named(payer)))

    def describe(self, payer: int) -> str:
        """The multiplier of ``payer``'s share in words ('' when it is 1).

        >>> Catch.of("1m8s6z", winner=0).describe(3)
        ' × 4 (fishing: 1m names the winner, 8s names North)'
        """
        if self.multiplier(payer) == 1:
            return ""
        names = [f"{t} names the winner" for t in self.tiles if seat_named_by(t) == self.winner]
        names += [f"{t} names {SEAT_NAMES[payer]}" for t in self.tiles if seat_named_by(t) == payer]
        return f" × {self.multiplier(payer)} (fishing: {', '.join(names)})"


# -- sealing 封胡 --------------------------------------------------------------------------------
class SealCase(StrEnum):
    """Which of the seed's sealing payouts applies."""

    NONE = "none"  # nobody sealed, or the sealing player did not win: normal payout
    SELF_DRAW = "self_draw"  # sealed pays all three shares (kong blossom too)
    SEALED_DISCARD = "sealed_discard"  # sealed pays twice his share
    OTHER_DISCARD = "other_discard"  # discarder and sealed pay one share each


def seal_case(sealing: Sealing | None, win: WinContext) -> SealCase:
    if sealing is None or win.winner != sealing.by:
        return SealCase.NONE
    if win.is_self_drawn:
        return SealCase.SELF_DRAW
    if win.discarder == sealing.seat:
        return SealCase.SEALED_DISCARD
    return SealCase.OTHER_DISCARD


# -- kongs ---------------------------------------------------------------------------------------
KONG_PAYOUT = 1
KONG_REASON: Mapping[MeldKind, str] = {
    MeldKind.CONCEALED_KONG: "concealed_kong",
    MeldKind.KONG: "exposed_kong",
    MeldKind.ADDED_KONG: "added_kong",
}


def kong_items(hand: Hand, winner: int) -> Settlement:
    """Instant payouts for the winner's kongs: concealed — each other pays 1; exposed — the
    discarder pays 1; added — the player whose discard made the pung pays 1."""
    out = Settlement()
    for meld in hand.kongs:
        reason = KONG_REASON[meld.kind]
        if meld.kind is MeldKind.CONCEALED_KONG:
            text = f"concealed kong {meld.tile}: {KONG_PAYOUT} from each"
            out = out.each_pays(winner, KONG_PAYOUT, reason, text, ItemGroup.INSTANT)
        else:
            assert meld.claimed_from is not None  # checked in Nanning.check
            kind = "exposed" if meld.kind is MeldKind.KONG else "added"
            text = f"{kind} kong {meld.tile}: {KONG_PAYOUT} from {SEAT_NAMES[meld.claimed_from]}"
            out = out.pay(meld.claimed_from, winner, KONG_PAYOUT, reason, text, ItemGroup.INSTANT)
    return out


# -- the city ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Valuation:
    """What one reading is worth before sealing and fishing."""

    reading: Decomposition
    points: int
    patterns: tuple[Pattern, ...]
    rows: tuple[Pattern, ...]


class Nanning(City[NanningOptions, NanningTable]):
    name = "nanning"
    # 000: "if another player wins, that player becomes the new dealer"; "the player who
    # draws the last tile becomes the dealer"
    succession = SuccessionRule(Succession.KEEPS, Succession.WINNER, Succession.LAST_DRAWER)
    title = "Nanning — Lucky Catch 南宁麻将"
    seed = "000"
    tile_set = TileSet.STANDARD
    exposed_chows = False
    options_type = NanningOptions
    table_type = NanningTable

    def chows_allowed(self, options: NanningOptions) -> bool:
        return options.allow_chow_claim

    def check(self, request: Request[NanningOptions, NanningTable]) -> None:
        hand, win, table = request.hand, request.win, request.table
        for i, meld in enumerate(hand.melds):
            if meld.kind in (MeldKind.KONG, MeldKind.ADDED_KONG) and meld.claimed_from is None:
                who = (
                    "the discarder of the fourth tile"
                    if meld.kind is MeldKind.KONG
                    else "the player whose discard made the pung"
                )
                raise ScoringInputError(
                    f"melds[{i}].from",
                    f"required for the {meld.kind.value} '{format_tiles(meld.tiles)}' "
                    f"in nanning: {who} pays its kong payout",
                )
        if table.fishing and win.last_tile:
            raise ScoringInputError(
                "fishing",
                f"'{format_tiles(table.fishing)}' given, but the win took the last tile: "
                "the wall is empty and nothing is flipped",
            )
        if table.sealed is not None and table.sealed.seat == table.sealed.by:
            raise ScoringInputError(
                "sealed.by", f"{table.sealed.by} is the sealed seat itself; a player seals another"
            )
        if win.method is WinMethod.ROBBED_KONG:
            copies = hand.all_tiles.count(hand.win_tile)
            if copies != 1:
                raise ScoringInputError(
                    "win_tile",
                    f"'{hand.win_tile}' appears {copies} times in the winner's tiles; a robbed "
                    "kong's tile is the fourth copy, the other three are in the robbed pung",
                )
        if win.first_turn and hand.exposed_melds:
            raise ScoringInputError(
                "first_turn",
                f"true, but the hand shows {len(hand.exposed_melds)} claimed meld(s); "
                "a first-turn win has claimed nothing",
            )

    def score(self, request: Request[NanningOptions, NanningTable]) -> Result:
        hand, win, table, options = request.hand, request.win, request.table, request.options
        if table.sealed is not None and win.winner == table.sealed.seat:
            return Result.invalid(
                self.name,
                Reason.SEALED_PLAYER_CANNOT_WIN,
                f"seat {win.winner} is sealed by seat {table.sealed.by} (封胡) and cannot "
                "win this hand",
            )
        readings = self.decompositions(hand, RULES)
        if not readings:
            return Result.invalid(
                self.name,
                Reason.NOT_A_WINNING_HAND,
                f"'{hand}' is not four sets and a pair, seven pairs or thirteen orphans",
            )
        results = [self._score_reading(request, v) for v in self._valuations(request, readings)]
        best = max(results, key=lambda r: r.deltas[win.winner])
        best = replace(best, details={**best.details, "readings": len(readings)})
        if (
            options.plain_needs_self_draw
            and not win.is_self_drawn
            and table.hand_points is None
            and [p.code for p in best.patterns] == [RowCode.PLAIN.value]
        ):
            return Result.invalid(
                self.name,
                NanningReason.PLAIN_NEEDS_SELF_DRAW,
                "a plain hand wins only by self-draw at this table (平胡需自摸)",
                decomposition=best.decomposition,
                patterns=best.patterns,
                warnings=best.warnings,
                details=best.details,
            )
        normal_total = _points(best) * (3 if win.is_self_drawn else 1)
        if options.min_points and normal_total < options.min_points:
            return Result.invalid(
                self.name,
                Reason.BELOW_MINIMUM,
                f"the winner would collect {normal_total} before sealing and fishing; "
                f"the minimum is {options.min_points}",
                decomposition=best.decomposition,
                patterns=best.patterns,
                warnings=best.warnings,
                details={**best.details, "collects": normal_total},
            )
        return best

    # -- steps ----------------------------------------------------------------------------
    def _valuations(
        self, request: Request[NanningOptions, NanningTable], readings: Sequence[Decomposition]
    ) -> list[Valuation]:
        hand, win, table, options = request.hand, request.win, request.table, request.options
        out: list[Valuation] = []
        for reading in readings:
            rows = applicable_rows(Situation(hand, win, reading))
            if table.hand_points is not None:
                override = Pattern(
                    "hand_points", "Hand value set by the request (hand_points)", table.hand_points
                )
                out.append(Valuation(reading, table.hand_points, (override,), rows))
                continue
            counted = counted_rows(rows, options.combine)
            out.append(Valuation(reading, sum(p.value for p in counted), counted, rows))
        return out

    def _score_reading(
        self, request: Request[NanningOptions, NanningTable], valuation: Valuation
    ) -> Result:
        hand, win, table = request.hand, request.win, request.table
        warnings: list[str] = []
        eligible = hand.concealed_count >= FISHING_MIN_TILES
        fished = table.fishing if eligible else ()
        if table.fishing and not eligible:
            warnings.append(
                f"fishing tiles '{format_tiles(table.fishing)}' ignored: the winner holds "
                f"{hand.concealed_count} tiles outside exposed melds and concealed kongs; "
                f"fishing needs {FISHING_MIN_TILES}"
            )
        if win.first_turn and not win.is_self_drawn:
            warnings.append(
                "first_turn on a discard scores no row in nanning "
                "(heavenly and earthly wins are self-drawn)"
            )
        catch = Catch(fished, win.winner)
        case = seal_case(table.sealed, win)
        hand_items = _hand_settlement(valuation, win, catch, table.sealed, case)
        if case is not SealCase.NONE and table.sealed is not None:
            shown = sum(
                1
                for m in hand.melds
                if m.is_pung_or_kong
                and not m.is_concealed
                and m.claimed_from in (table.sealed.seat, None)
            )
            if shown < 3:
                warnings.append(
                    f"sealed: the seed seals a player after three pungs or kongs claimed from "
                    f"him, but the winner's melds show {shown} that may come from seat "
                    f"{table.sealed.seat}"
                )
        settlement = hand_items + kong_items(hand, win.winner)
        patterns = valuation.patterns
        if catch.named(win.winner):
            patterns += (
                Pattern(
                    "lucky_catch",
                    f"Lucky catch 钓鱼: {catch.named(win.winner)} tile(s) name the winner",
                    2 ** catch.named(win.winner),
                    unit="x",
                ),
            )
        waits = valuation.reading.waits(hand.win_tile)
        details: dict[str, Json] = {
            "points": valuation.points,
            "rows": {p.code: p.value for p in valuation.rows},
            "fishing": {
                "tiles": format_tiles(table.fishing),
                "eligible": eligible,
                "seats": list(catch.seats),
                "multipliers": {str(seat): catch.multiplier(seat) for seat in _hand_payers(win)},
            },
            "sealing": case.value,
        }
        if win.method is WinMethod.ROBBED_KONG:
            details["robbed_kong"] = f"seat {win.discarder}'s kong is robbed: its payout is void"
        return Result(
            self.name,
            True,
            Reason.OK,
            decomposition=valuation.reading,
            wait=waits[0].kind if waits else None,
            patterns=patterns,
            settlement=settlement,
            warnings=tuple(warnings),
            details=details,
        )


def _points(result: Result) -> int:
    value = result.details["points"]
    assert isinstance(value, int)
    return value


def _hand_payers(win: WinContext) -> tuple[int, ...]:
    """The seats whose shares make the hand's payment (the sealed player may pay them)."""
    if win.is_self_drawn:
        return others(win.winner)
    assert win.discarder is not None
    return (win.discarder,)


def _hand_settlement(
    valuation: Valuation,
    win: WinContext,
    catch: Catch,
    sealing: Sealing | None,
    case: SealCase,
) -> Settlement:
    """The win's items: each share is points × 2^(W+P) of the seat it belongs to; sealing
    moves (and on a discard adds) shares to the sealed seat."""
    points = valuation.points
    label = " + ".join(p.name for p in valuation.patterns)
    how = "self-draw" if win.is_self_drawn else "discard"
    winner = win.winner

    def share(seat: int) -> int:
        return points * catch.multiplier(seat)

    def text(seat: int, extra: str = "") -> str:
        return f"{label} ({how}): {points}{catch.describe(seat)}{extra}"

    sealed = None if sealing is None else sealing.seat
    items: list[Item] = []
    if case is SealCase.NONE or sealed is None:
        for seat in _hand_payers(win):
            items.append(Item("hand", text(seat), seat, winner, share(seat)))
    elif case is SealCase.SELF_DRAW:
        for seat in others(winner):
            whose = "his own share" if seat == sealed else f"{SEAT_NAMES[seat]}'s share"
            note = f"; {whose}, paid by the sealed {SEAT_NAMES[sealed]} (封胡)"
            items.append(Item("hand", text(seat, note), sealed, winner, share(seat)))
    elif case is SealCase.SEALED_DISCARD:
        note = f"; × 2, the sealed {SEAT_NAMES[sealed]} discarded (封胡)"
        items.append(Item("hand", text(sealed, note), sealed, winner, 2 * share(sealed)))
    else:
        assert win.discarder is not None
        note = f"; one more share from the sealed {SEAT_NAMES[sealed]} (封胡)"
        items.append(Item("hand", text(win.discarder), win.discarder, winner, share(win.discarder)))
        items.append(Item("hand", text(sealed, note), sealed, winner, share(sealed)))
    return Settlement(tuple(items))


CITY = Nanning()
