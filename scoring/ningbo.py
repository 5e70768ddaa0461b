"""Ningbo 宁波麻将 — baida 百搭 wild tiles, tai 台 that add up, at least 4 tai to win
(seed 002; ../shared/rules/INTERPRETATION.md "Ningbo (002)"; docs/rules/ningbo.md).

The flipped **indicator** makes baida: by default its three remaining copies and all four
copies of the next tile (``baida_mode``); a flipped flower makes the other seven flowers
baida, held in the hand. Baida stand for any tile of the concealed hand. Every reading of the
hand (each wild assignment, each way the winning tile completes it) is scored on the **tai
table** and the reading that pays the winner most is kept; it must reach **4 tai**
(``min_tai``). Payment is tai × multiplier: the discarder pays a discard win, each of the
three others a self-draw; a kong win doubles; a robbed added kong, or the three-meld contract
三摊承包, makes one player pay alone, ×5.

The seed's own baida example (3 bamboo flipped → 3 and 4 bamboo are wild), with a hand that
uses a 4 bamboo for the East it lacks, wins on a single wait and self-draws:

>>> from scoring import score
>>> result = score({
...     "city": "ningbo", "indicator": "3s", "hand": "123m456m789p555z1z4s",
...     "win_tile": "4s", "win": "self_draw", "winner": 1,
... })
>>> [p.code for p in result.patterns]
['single_wait', 'baida_wild', 'baida_pair_self_drawn', 'self_draw', 'dragon_pung']
>>> result.deltas
(-5, 15, -5, -5)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache
from itertools import combinations_with_replacement
from types import MappingProxyType
from typing import Annotated

from hupai.scoring.city import City, Request, TileSet
from hupai.scoring.decompose import (
    Decomposition,
    Group,
    GroupKind,
    Shape,
    ShapeRules,
    Wait,
    WaitKind,
    decompose,
    kong_group,
    wait_kind,
)
from hupai.scoring.fields import Between, ScoringInputError, Seat, required, setting
from hupai.scoring.hand import Hand, Meld, MeldKind, WinContext, WinMethod, seat_wind
from hupai.scoring.house import HouseRules
from hupai.scoring.patterns import ALL_PUNGS, PURE_SUIT
from hupai.scoring.settlement import Json, Pattern, Reason, Result, Settlement
from hupai.scoring.succession import Succession, SuccessionRule
from hupai.scoring.tiles import KINDS, Suit, Tile, format_tiles

SEAT_NAMES = ("East", "South", "West", "North")
#: Four sets and a pair; the seed names no other winning shape (no seven pairs).
RULES = ShapeRules(standard=True, seven_pairs=False)
#: Melds claimed from one seat that form the three-meld contract 三摊承包.
CONTRACT_MELDS = 3


# -- options and table fields ------------------------------------------------------------------
class BaidaMode(StrEnum):
    """Which tiles the indicator makes wild."""

    SEVEN = "seven"  # the 3 remaining copies of the flipped tile and the 4 of the next tile
    THREE = "three"  # the 3 remaining copies of the flipped tile only
    NEXT_ONLY = "next_only"  # the 4 copies of the next tile only


class DragonCycle(StrEnum):
    """The order the indicator steps through the dragons (there are only two cycles)."""

    GREEN_RED_WHITE = "green_red_white"  # the seed's: Green → Red → White → Green
    GREEN_WHITE_RED = "green_white_red"  # Green → White → Red → Green

    @property
    def ranks(self) -> tuple[int, int, int]:
        """The dragon ranks (5z White, 6z Green, 7z Red) in cycle order."""
        return (6, 7, 5) if self is DragonCycle.GREEN_RED_WHITE else (6, 5, 7)


@dataclass(frozen=True)
class NingboOptions(HouseRules):
    baida_mode: BaidaMode = setting(
        BaidaMode.SEVEN,
        "seven: the 3 other copies of the flipped tile and the 4 of the next are baida; "
        "three: the flipped tile's copies only; next_only: the next tile's 4 only "
        "(a flipped flower always makes the other seven flowers baida)",
    )
    min_tai: Annotated[int, Between(0, 1000)] = setting(
        4, "fewest tai (before multipliers) a hand needs to win (0: no minimum)"
    )
    dragon_cycle: DragonCycle = setting(
        DragonCycle.GREEN_RED_WHITE, "the dragon after a flipped dragon: Green→Red→White (seed)"
    )


@dataclass(frozen=True)
class NingboTable:
    indicator: Tile = required(
        "the flipped baida indicator tile (a flower makes the other seven flowers baida)",
        shown=True,
    )
    contract: Seat | None = setting(
        None,
        "三摊承包: the seat the winner claimed three melds from; it alone pays tai × 5",
    )


# -- rule values -------------------------------------------------------------------------------
class Tai(StrEnum):
    """The tai table's rows (pattern codes)."""

    EDGE_WAIT = "edge_wait"
    CLOSED_WAIT = "closed_wait"
    SINGLE_WAIT = "single_wait"
    BAIDA_WILD = "baida_wild"
    NO_BAIDA = "no_baida"
    BAIDA_FACE_VALUE = "baida_face_value"
    BAIDA_PAIR_SELF_DRAWN = "baida_pair_self_drawn"
    PURE_SUIT = "pure_suit"
    HALF_PURE = "half_pure"
    ALL_TRIPLETS = "all_triplets"
    KONG_WIN = "kong_win"
    LAST_TILE = "last_tile"
    SELF_DRAW = "self_draw"
    DRAGON_PUNG = "dragon_pung"
    ROUND_WIND_PUNG = "round_wind_pung"
    SEAT_WIND_PUNG = "seat_wind_pung"
    EIGHT_FLOWERS = "eight_flowers"
    ALL_HONORS = "all_honors"
    HEAVENLY = "heavenly"
    EARTHLY = "earthly"


@dataclass(frozen=True, slots=True)
class TaiRow:
    name: str
    tai: int


#: The seed's table "Scoring Payout Tables for Ningbo Mahjong", row by row.
TAI_TABLE: Mapping[Tai, TaiRow] = MappingProxyType(
    {
        Tai.EDGE_WAIT: TaiRow("Edge wait 边张", 1),
        Tai.CLOSED_WAIT: TaiRow("Closed wait 嵌张", 1),
        Tai.SINGLE_WAIT: TaiRow("Single wait 单吊", 1),
        Tai.BAIDA_WILD: TaiRow("Baida used as wild 百搭", 1),
        Tai.NO_BAIDA: TaiRow("No baida in hand 无搭", 1),
        Tai.BAIDA_FACE_VALUE: TaiRow("Baida at face value 还搭", 1),
        Tai.BAIDA_PAIR_SELF_DRAWN: TaiRow("Self-drawn baida completes the pair 炮搭摸搭", 1),
        Tai.PURE_SUIT: TaiRow("Pure suit 清一色", 4),
        Tai.HALF_PURE: TaiRow("Half pure 混一色", 2),
        Tai.ALL_TRIPLETS: TaiRow("All triplets 碰碰和", 2),
        Tai.KONG_WIN: TaiRow("Kong win 杠上开花", 1),
        Tai.LAST_TILE: TaiRow("Last tile 海底捞月", 1),
        Tai.SELF_DRAW: TaiRow("Self-draw 自摸", 1),
        Tai.DRAGON_PUNG: TaiRow("Dragon pung 箭刻", 1),
        Tai.ROUND_WIND_PUNG: TaiRow("Round-wind pung 圈风刻", 1),
        Tai.SEAT_WIND_PUNG: TaiRow("Seat-wind pung 门风刻", 1),
        Tai.EIGHT_FLOWERS: TaiRow("Eight flowers 八花", 10),
        Tai.ALL_HONORS: TaiRow("All honors 字一色", 10),
        Tai.HEAVENLY: TaiRow("Heavenly hand 天和", 10),
        Tai.EARTHLY: TaiRow("Earthly hand 地和", 10),
    }
)


class Multiplier(StrEnum):
    """The seed's "Special Payment Penalties Multiplier Table" (pattern codes, unit ×)."""

    KONG_WIN = "kong_win_double"
    ROBBED_KONG = "robbed_kong_penalty"
    CONTRACT = "contract_penalty"


MULTIPLIERS: Mapping[Multiplier, TaiRow] = MappingProxyType(
    {
        Multiplier.KONG_WIN: TaiRow("Kong win ×2 (paid as a self-draw) 杠上开花", 2),
        Multiplier.ROBBED_KONG: TaiRow("Robbing a kong: the robbed player pays alone 捉杠", 5),
        Multiplier.CONTRACT: TaiRow("Three-meld contract: the contracted pays alone 三摊承包", 5),
    }
)


class NingboReason(StrEnum):
    """Ningbo's own result codes (besides ``not_a_winning_hand`` and ``below_minimum``)."""

    BAIDA_CANNOT_BE_CLAIMED = "baida_cannot_be_claimed"


# -- baida ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Baida:
    """The wild tiles of a hand: tile ``kinds`` (every concealed copy is wild) or, after a
    flipped flower, the seven other ``flowers``.

    >>> for flipped in ("3s", "9s", "1z", "6z"):
    ...     print(flipped, "→", format_tiles(Baida.of(Tile.parse(flipped)).kinds))
    3s → 34s
    9s → 19s
    1z → 12z
    6z → 67z
    >>> format_tiles(Baida.of(Tile.parse("3s"), BaidaMode.NEXT_ONLY).kinds)
    '4s'
    >>> format_tiles(Baida.of(Tile.parse("2f")).flowers)
    '1345678f'
    """

    indicator: Tile
    kinds: frozenset[Tile]
    flowers: frozenset[Tile] = frozenset()

    @staticmethod
    def of(
        indicator: Tile,
        mode: BaidaMode = BaidaMode.SEVEN,
        cycle: DragonCycle = DragonCycle.GREEN_RED_WHITE,
    ) -> Baida:
        if indicator.is_flower:
            flowers = frozenset(Tile(Suit.FLOWER, r) for r in range(1, 9)) - {indicator}
            return Baida(indicator, frozenset(), flowers)
        following = _next(indicator, cycle)
        kinds = {
            BaidaMode.SEVEN: {indicator, following},
            BaidaMode.THREE: {indicator},
            BaidaMode.NEXT_ONLY: {following},
        }[mode]
        return Baida(indicator, frozenset(kinds))

    def __contains__(self, tile: object) -> bool:
        return tile in self.kinds or tile in self.flowers

    def __str__(self) -> str:
        return format_tiles(self.kinds | self.flowers)


def _next(tile: Tile, cycle: DragonCycle) -> Tile:
    """The tile after an indicator: 1→2 … 9→1, E→S→W→N→E, dragons in ``cycle`` order."""
    if tile.is_numbered:
        return Tile(tile.suit, tile.rank % 9 + 1)
    if tile.is_wind:
        return Tile(Suit.HONOR, tile.rank % 4 + 1)
    ranks = cycle.ranks
    return Tile(Suit.HONOR, ranks[(ranks.index(tile.rank) + 1) % 3])


# -- what a reading looks like to the tai table -----------------------------------------------
@dataclass(frozen=True, slots=True)
class Situation:
    """The facts of the win that no reading changes."""

    win: WinContext
    win_tile: Tile
    win_is_baida: bool
    flowers: tuple[Tile, ...]
    #: a concealed kong of a baida kind (four natural copies, allowed by the seed)
    baida_kong: bool

    @property
    def seat_wind(self) -> Tile:
        return seat_wind(self.win.winner)


@dataclass(frozen=True, slots=True)
class Reading:
    """A concrete reading: the four sets by value (melds included), the pair, the baida."""

    sets: tuple[Group, ...]
    pair: Group
    #: baida tiles among the concealed tiles
    holds_baida: bool
    #: some baida stands for another tile (or fills a free group)
    as_wild: bool
    #: some baida stands for its own kind (还搭)
    at_face_value: bool
    #: the suits of every value (honors are ``Suit.HONOR``)
    suits: frozenset[Suit]

    @staticmethod
    def of(
        sets: tuple[Group, ...], pair: Group, holds_baida: bool, as_wild: bool, at_face: bool
    ) -> Reading:
        suits = frozenset(g.tiles[0].suit for g in (*sets, pair))
        return Reading(sets, pair, holds_baida, as_wild, at_face, suits)

    @property
    def shape(self) -> Shape:
        """Always four sets and a pair (for the shared patterns, hupai.scoring.patterns)."""
        return Shape.STANDARD

    @property
    def pairs(self) -> tuple[Group, ...]:
        return (self.pair,)

    def pungs_of(self, tile: Tile) -> int:
        return sum(1 for g in self.sets if g.is_pung_or_kong and g.tile == tile)


# -- the tai patterns, one function each (how many times the row applies) -----------------------
def edge_wait(wait: Wait, s: Situation) -> int:
    """12+3 or 89+7."""
    return int(wait.kind is WaitKind.EDGE)


def closed_wait(wait: Wait, s: Situation) -> int:
    """13+2."""
    return int(wait.kind is WaitKind.CLOSED)


def single_wait(wait: Wait, s: Situation) -> int:
    """The winning tile completes the pair."""
    return int(wait.kind is WaitKind.SINGLE)


def baida_pair_self_drawn(wait: Wait, s: Situation) -> int:
    """炮搭摸搭: a self-drawn baida is the winning tile and completes the pair."""
    return int(wait.kind is WaitKind.SINGLE and s.win_is_baida and s.win.is_self_drawn)


def baida_wild(r: Reading, s: Situation) -> int:
    """A baida stands for another tile."""
    return int(r.as_wild)


def no_baida(r: Reading, s: Situation) -> int:
    """No baida among the concealed tiles (a concealed kong of baida counts as held)."""
    return int(not r.holds_baida and not s.baida_kong)


def baida_face_value(r: Reading, s: Situation) -> int:
    """还搭: a baida is used as its own tile (a concealed kong of baida included)."""
    return int(r.at_face_value or s.baida_kong)


def pure_suit(r: Reading, s: Situation) -> int:
    """Every tile (baida by the value they take) of one suit, no honors.

    >>> pure_suit(_reading("123m", "456m", "789m", "111m", "55m"), _SIT)
    1
    """
    return int(PURE_SUIT.applies(r))


def half_pure(r: Reading, s: Situation) -> int:
    """One suit and honors.

    >>> half_pure(_reading("123m", "456m", "789m", "111z", "55m"), _SIT)
    1
    """
    suits = r.suits
    return int(len(suits) == 2 and Suit.HONOR in suits)


def all_honors(r: Reading, s: Situation) -> int:
    return int(r.suits == {Suit.HONOR})


def all_triplets(r: Reading, s: Situation) -> int:
    """Four pungs or kongs.

    >>> all_triplets(_reading("111m", "444p", "777s", "555z", "22z"), _SIT)
    1
    """
    return int(ALL_PUNGS.applies(r))


def dragon_pungs(r: Reading, s: Situation) -> int:
    """Each pung or kong of White, Green or Red counts once.

    >>> dragon_pungs(_reading("555z", "666z", "123m", "456m", "11z"), _SIT)
    2
    """
    return sum(1 for g in r.sets if g.is_pung_or_kong and g.tile.is_dragon)


def round_wind_pung(r: Reading, s: Situation) -> int:
    return r.pungs_of(s.win.round_wind)


def seat_wind_pung(r: Reading, s: Situation) -> int:
    return r.pungs_of(s.seat_wind)


def self_draw(s: Situation) -> int:
    """Self-drawn, a kong win included ("also counts as a self-draw")."""
    return int(s.win.is_self_drawn)


def kong_win(s: Situation) -> int:
    return int(s.win.method is WinMethod.KONG_REPLACEMENT)


def last_tile(s: Situation) -> int:
    """海底捞月: the last tile of the wall, drawn (not a discard after it)."""
    return int(s.win.last_tile and s.win.is_self_drawn)


def eight_flowers(s: Situation) -> int:
    return int(len(s.flowers) == 8)


def heavenly(s: Situation) -> int:
    """The dealer wins on the dealt hand."""
    return int(s.win.first_turn and s.win.winner_is_dealer and s.win.is_self_drawn)


def earthly(s: Situation) -> int:
    """A non-dealer wins on the dealer's first discard."""
    w = s.win
    return int(
        w.first_turn
        and not w.winner_is_dealer
        and w.method is WinMethod.DISCARD
        and w.discarder == 0
    )


WAIT_PATTERNS: tuple[tuple[Tai, Callable[[Wait, Situation], int]], ...] = (
    (Tai.EDGE_WAIT, edge_wait),
    (Tai.CLOSED_WAIT, closed_wait),
    (Tai.SINGLE_WAIT, single_wait),
    (Tai.BAIDA_PAIR_SELF_DRAWN, baida_pair_self_drawn),
)
READING_PATTERNS: tuple[tuple[Tai, Callable[[Reading, Situation], int]], ...] = (
    (Tai.BAIDA_WILD, baida_wild),
    (Tai.NO_BAIDA, no_baida),
    (Tai.BAIDA_FACE_VALUE, baida_face_value),
    (Tai.PURE_SUIT, pure_suit),
    (Tai.HALF_PURE, half_pure),
    (Tai.ALL_HONORS, all_honors),
    (Tai.ALL_TRIPLETS, all_triplets),
    (Tai.DRAGON_PUNG, dragon_pungs),
    (Tai.ROUND_WIND_PUNG, round_wind_pung),
    (Tai.SEAT_WIND_PUNG, seat_wind_pung),
)
SITUATION_PATTERNS: tuple[tuple[Tai, Callable[[Situation], int]], ...] = (
    (Tai.KONG_WIN, kong_win),
    (Tai.SELF_DRAW, self_draw),
    (Tai.LAST_TILE, last_tile),
    (Tai.EIGHT_FLOWERS, eight_flowers),
    (Tai.HEAVENLY, heavenly),
    (Tai.EARTHLY, earthly),
)
#: The order patterns are reported in: the seed table's order.
_ORDER = {code: i for i, code in enumerate(TAI_TABLE)}

Hits = tuple[tuple[Tai, int], ...]


def _tai(hits: Hits) -> int:
    return sum(TAI_TABLE[code].tai * times for code, times in hits)


# -- the city ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Best:
    tai: int
    decomposition: Decomposition
    wait: Wait | None
    hits: Hits


class Ningbo(City[NingboOptions, NingboTable]):
    name = "ningbo"
    # 002: "After each hand, the dealer changes"
    succession = SuccessionRule(Succession.PASSES, Succession.PASSES, Succession.PASSES)
    title = "Ningbo 宁波麻将 — baida wild tiles, at least 4 tai"
    seed = "002"
    tile_set = TileSet.FLOWERS
    exposed_chows = True
    options_type = NingboOptions
    table_type = NingboTable

    def flowers_in_hand(self, table: NingboTable, options: NingboOptions) -> bool:
        """After a flipped flower the other seven flowers are baida, kept in the hand."""
        return table.indicator.is_flower

    # -- input checks ----------------------------------------------------------------------
    def check(self, request: Request[NingboOptions, NingboTable]) -> None:
        hand, win, table, options = request.hand, request.win, request.table, request.options
        baida = Baida.of(table.indicator, options.baida_mode, options.dragon_cycle)
        if baida.flowers and hand.flowers:
            raise ScoringInputError(
                "flowers",
                f"'{format_tiles(hand.flowers)}' laid aside, but the flipped flower "
                f"{table.indicator} makes the other seven flowers baida, kept in the hand",
            )
        for i, meld in enumerate(hand.melds):
            wild = [t for t in meld.tiles if t in baida]
            if wild and meld.kind is not MeldKind.CONCEALED_KONG:
                raise ScoringInputError(
                    f"melds[{i}].tiles",
                    f"'{format_tiles(meld.tiles)}' holds baida {wild[0]} (indicator "
                    f"{table.indicator}); baida cannot be claimed or sit in an exposed meld, "
                    "only four natural copies in a concealed kong",
                )
        if table.contract is not None:
            _check_contract(table.contract, hand.melds, win.winner)

    # -- scoring ---------------------------------------------------------------------------
    def score(self, request: Request[NingboOptions, NingboTable]) -> Result:
        hand, win, table, options = request.hand, request.win, request.table, request.options
        baida = Baida.of(table.indicator, options.baida_mode, options.dragon_cycle)
        details: dict[str, Json] = {"indicator": str(table.indicator), "baida": str(baida)}
        warnings = _warnings(request)
        if win.method.has_discarder and hand.win_tile in baida:
            return Result.invalid(
                self.name,
                NingboReason.BAIDA_CANNOT_BE_CLAIMED,
                f"the winning tile {hand.win_tile} is a baida; a discarded or added baida "
                "cannot be claimed, not even to win",
                warnings=warnings,
                details=details,
            )
        limits = _limits(hand, baida)
        readings = _readings(hand, baida, limits)
        if not readings:
            return Result.invalid(
                self.name,
                Reason.NOT_A_WINNING_HAND,
                f"'{format_tiles(hand.concealed)}' (baida {baida}) makes no four sets and a pair",
                warnings=warnings,
                details=details,
            )
        situation = Situation(
            win,
            hand.win_tile,
            hand.win_tile in baida,
            hand.flowers,
            any(m.is_concealed and m.tile in baida for m in hand.melds),
        )
        best = _best(hand, baida, limits, readings, situation)
        patterns = tuple(
            Pattern(code.value, TAI_TABLE[code].name, TAI_TABLE[code].tai * times, "tai")
            for code, times in best.hits
        )
        details["tai"] = best.tai
        if best.tai < options.min_tai:
            return Result.invalid(
                self.name,
                Reason.BELOW_MINIMUM,
                f"{best.tai} tai; a Ningbo win needs at least {options.min_tai}",
                decomposition=best.decomposition,
                patterns=patterns,
                warnings=warnings,
                details=details,
            )
        settlement, multipliers, multiplier = _settle(best.tai, win, table.contract)
        details["multiplier"] = multiplier
        return Result(
            self.name,
            True,
            Reason.OK,
            f"{best.tai} tai × {multiplier}",
            decomposition=best.decomposition,
            wait=None if best.wait is None else best.wait.kind,
            patterns=patterns + multipliers,
            settlement=settlement,
            warnings=warnings,
            details=details,
        )


def _check_contract(contract: int, melds: Sequence[Meld], winner: int) -> None:
    if contract == winner:
        raise ScoringInputError("contract", f"{contract} is the winner's own seat")
    possible = [m for m in melds if m.kind.is_claimed and m.claimed_from in (None, contract)]
    if len(possible) < CONTRACT_MELDS:
        raise ScoringInputError(
            "contract",
            f"seat {contract} is named, but only {len(possible)} of the winner's melds can "
            f"have been claimed from it; the contract needs {CONTRACT_MELDS}",
        )


def _warnings(request: Request[NingboOptions, NingboTable]) -> tuple[str, ...]:
    win, hand, table = request.win, request.hand, request.table
    out: list[str] = []
    if win.last_tile and not win.is_self_drawn:
        out.append("last_tile: 海底捞月 is the last tile drawn; a win on a discard earns no tai")
    if win.first_turn and not (heavenly(_bare(win)) or earthly(_bare(win))):
        out.append(
            "first_turn: heavenly needs the dealer's self-draw, earthly a non-dealer's win "
            "on the dealer's first discard; no tai"
        )
    if table.contract is None:
        by_seat = Counter(m.claimed_from for m in hand.melds if m.claimed_from is not None)
        for seat, n in sorted(by_seat.items()):
            if n >= CONTRACT_MELDS:
                out.append(
                    f"melds: {n} melds claimed from seat {seat}; give contract={seat} if the "
                    "three-meld contract 三摊承包 applies"
                )
    return tuple(out)


def _bare(win: WinContext) -> Situation:
    return Situation(win, Tile(Suit.MAN, 1), False, (), False)


# -- readings ------------------------------------------------------------------------------------
def _limits(hand: Hand, baida: Baida) -> list[int]:
    """How many of each value a reading may hold: 4, less the copies in melds and the
    indicator on the table."""
    limits = [4] * KINDS
    for tile in hand.meld_tiles:
        limits[tile.index] -= 1
    if not baida.indicator.is_flower:
        limits[baida.indicator.index] -= 1
    return limits


def _readings(hand: Hand, baida: Baida, limits: list[int]) -> tuple[Decomposition, ...]:
    """Every reading of the concealed tiles. Flower baida are not a tile kind of the engine:
    they are counted as jokers of a stand-in kind the hand does not hold, and reported as the
    flowers they are (a flower never stands for itself)."""
    counts = [0] * KINDS
    flowers: list[Tile] = []
    for tile in hand.concealed:
        if tile.is_flower:
            flowers.append(tile)
        else:
            counts[tile.index] += 1
    if not flowers:
        return decompose(counts, len(hand.melds), baida.kinds, RULES, limits)
    stand_in = next(i for i in range(KINDS) if counts[i] == 0)
    counts[stand_in] = len(flowers)
    found = decompose(counts, len(hand.melds), {Tile.from_index(stand_in)}, RULES, limits)
    return tuple(replace(d, wild_tiles=tuple(flowers)) for d in found)


def _best(
    hand: Hand,
    baida: Baida,
    limits: list[int],
    readings: Sequence[Decomposition],
    situation: Situation,
) -> _Best:
    """Score every reading with every way the winning tile completes it, and every choice
    that can score differently for a set or pair made only of baida; keep the most tai.
    Readings are taken by their ceiling (``_ceiling``), highest first, and the search stops
    when no ceiling left can beat the best so far; on a tie the first found stays, so the
    answer is stable."""
    fixed = tuple((code, n) for code, rule in SITUATION_PATTERNS if (n := rule(situation)))
    melds = tuple(_meld_group(m) for m in hand.melds)
    fixed_tai = _tai(fixed)
    wait_ceiling = max(_tai(_wait_hits(Wait(kind, None), situation)) for kind in WaitKind)
    ranked = sorted(
        (
            (fixed_tai + wait_ceiling + _ceiling(r, melds, situation), i, r)
            for i, r in enumerate(readings)
        ),
        key=lambda x: (-x[0], x[1]),
    )
    best: _Best | None = None
    for ceiling, _, reading in ranked:
        if best is not None and ceiling <= best.tai:
            break
        for option in _options(reading, baida, limits, situation):
            view = Reading.of(
                reading.sets + option.sets + melds,
                option.pair,
                bool(reading.wild_tiles),
                option.as_wild,
                option.at_face_value,
            )
            hits = tuple(
                (code, n) for code, rule in READING_PATTERNS if (n := rule(view, situation))
            )
            all_hits = fixed + hits + option.wait_hits
            tai = _tai(all_hits)
            if best is None or tai > best.tai:
                ordered = tuple(sorted(all_hits, key=lambda h: _ORDER[h[0]]))
                best = _Best(tai, option.complete(reading), option.wait, ordered)
    assert best is not None  # every reading has at least one completion
    return best


def _ceiling(reading: Decomposition, melds: tuple[Group, ...], situation: Situation) -> int:
    """The reading's rows, waits and situation left out: exact for a complete reading; for
    one with free groups at least what any completion scores — each row at its best, as if
    the free groups could serve them all at once."""
    groups = reading.groups + melds
    sets = tuple(g for g in groups if g.kind is not GroupKind.PAIR)
    if reading.is_complete:
        pair = reading.pair
        assert pair is not None
        view = Reading.of(
            sets, pair, bool(reading.wild_tiles), bool(reading.as_wild), bool(reading.at_face_value)
        )
        return _tai(tuple((code, rule(view, situation)) for code, rule in READING_PATTERNS))
    blocks = {_block(g.tiles[0]) for g in groups}
    if blocks <= {3}:
        suit = TAI_TABLE[Tai.ALL_HONORS].tai
    elif len(blocks) == 1:
        suit = TAI_TABLE[Tai.PURE_SUIT].tai
    elif len(blocks) == 2 and 3 in blocks:
        suit = TAI_TABLE[Tai.HALF_PURE].tai
    else:
        suit = 0
    triplets = TAI_TABLE[Tai.ALL_TRIPLETS].tai if all(g.is_pung_or_kong for g in sets) else 0
    honors = sum(_honor_tai(g.tiles[0], situation) for g in sets if g.is_pung_or_kong)
    free = sorted(
        (_honor_tai(Tile.from_index(i), situation) for i in range(27, KINDS)), reverse=True
    )
    honors += sum(free[: reading.free_sets])
    baida = TAI_TABLE[Tai.BAIDA_WILD].tai + TAI_TABLE[Tai.BAIDA_FACE_VALUE].tai
    return suit + triplets + honors + baida


def _honor_tai(tile: Tile, situation: Situation) -> int:
    """The tai a pung of ``tile`` earns by itself (dragon, round wind, seat wind)."""
    return (
        int(tile.is_dragon) * TAI_TABLE[Tai.DRAGON_PUNG].tai
        + int(tile == situation.win.round_wind) * TAI_TABLE[Tai.ROUND_WIND_PUNG].tai
        + int(tile == situation.seat_wind) * TAI_TABLE[Tai.SEAT_WIND_PUNG].tai
    )


def _block(tile: Tile) -> int:
    """0, 1, 2 for the suits m, p, s; 3 for the honors."""
    return tile.index // 9 if tile.is_numbered else 3


@dataclass(frozen=True, slots=True)
class _Option:
    """One reading with its free sets / free pair given values, and its best wait."""

    sets: tuple[Group, ...]  # the free sets' values (the reading's own sets not repeated)
    pair: Group
    extra: tuple[Group, ...]  # every group given to a free set or pair
    as_wild: bool
    at_face_value: bool
    wait: Wait | None
    wait_hits: Hits

    def complete(self, reading: Decomposition) -> Decomposition:
        """The reading with the free groups spelled out (as ``Decomposition.expand`` does)."""
        if not self.extra:
            return reading
        added = tuple(t for g in self.extra for t in g.tiles)
        return replace(
            reading,
            groups=tuple(sorted(reading.groups + self.extra, key=_group_key)),
            fills=tuple(sorted(reading.fills + added)),
            free_sets=0,
            free_pairs=0,
        )


def _group_key(group: Group) -> tuple[int, int]:
    return (group.tiles[0].index, list(GroupKind).index(group.kind))


def _options(
    reading: Decomposition, baida: Baida, limits: list[int], situation: Situation
) -> Iterator[_Option]:
    """The reading as it is, or — when some set or pair is made only of baida and may be
    anything — one option per choice among those that can score differently."""
    held = Counter(t.index for t in reading.wild_tiles)
    fills = Counter(t.index for t in reading.fills)
    win_waits = [
        (w, _wait_hits(w, situation)) for w in reading.waits(situation.win_tile) if w.group
    ]
    fixed_wait, fixed_hits = max(win_waits, key=lambda x: _tai(x[1]), default=(None, ()))
    if reading.is_complete:
        pair = reading.pair
        assert pair is not None
        yield _Option(
            (),
            pair,
            (),
            bool(reading.as_wild),
            bool(reading.at_face_value),
            fixed_wait,
            fixed_hits,
        )
        return
    room = list(limits)
    for tile in reading.values:
        room[tile.index] -= 1
    set_choices = _set_choices(room, baida, situation, reading.free_sets)
    pair_choices = _pair_choices(room, baida, situation) if reading.free_pairs else ()
    win_in_free = situation.win_is_baida
    for extra_sets in combinations_with_replacement(set_choices, reading.free_sets):
        for extra_pairs in combinations_with_replacement(pair_choices, reading.free_pairs):
            extra = extra_sets + extra_pairs
            added = Counter(t.index for g in extra for t in g.tiles)
            if any(n > room[i] for i, n in added.items()):
                continue
            pair = reading.pair or extra_pairs[0]
            wait, hits = fixed_wait, fixed_hits
            if win_in_free:
                for group in extra:
                    for value in dict.fromkeys(group.tiles):
                        candidate = Wait(wait_kind(group, value), group, value)
                        candidate_hits = _wait_hits(candidate, situation)
                        if _tai(candidate_hits) > _tai(hits):
                            wait, hits = candidate, candidate_hits
            yield _Option(
                extra_sets,
                pair,
                extra,
                any(n > fills[i] + added[i] for i, n in held.items()),
                any(fills[i] + added[i] for i in held),
                wait,
                hits,
            )


def _wait_hits(wait: Wait, situation: Situation) -> Hits:
    return tuple((code, n) for code, rule in WAIT_PATTERNS if (n := rule(wait, situation)))


def _meld_group(meld: Meld) -> Group:
    if meld.is_kong:
        return kong_group(meld.tile)
    kind = GroupKind.CHOW if meld.is_chow else GroupKind.PUNG
    return Group(kind, meld.tiles)


#: Kinds of each block: the three suits and the honors.
_BLOCKS = (range(0, 9), range(9, 18), range(18, 27), range(27, 34))


def _set_choices(
    room: list[int], baida: Baida, situation: Situation, free_sets: int
) -> tuple[Group, ...]:
    """What a set made only of baida may be: every pung and chow with room, less those
    that score exactly like others already kept (see ``_signature``; as many are kept as
    there are free sets, so that they can share a kind of choice). A chow that holds no
    baida kind and cannot hold the winning tile scores no better than a pung of its suit,
    so it is only kept where its suit has fewer such pungs than free sets."""
    wild = frozenset(t.index for t in baida.kinds)
    candidates: list[Group] = []
    for block in _BLOCKS:
        plain_pungs = 0
        for i in block:
            if room[i] >= 3:
                candidates.append(_pung(i))
                plain_pungs += i not in wild
        if block.start >= 27:
            continue
        for i in block[:7]:
            if all(room[j] >= 1 for j in (i, i + 1, i + 2)):
                holds_wild = any(j in wild for j in (i, i + 1, i + 2))
                if holds_wild or situation.win_is_baida or plain_pungs < free_sets:
                    candidates.append(_chow(i))
    return _distinct(candidates, wild, situation, keep=free_sets)


def _pair_choices(room: list[int], baida: Baida, situation: Situation) -> tuple[Group, ...]:
    """What a pair made only of baida may be: one pair per way of scoring (its block, and
    the baida kinds it is made of)."""
    wild = frozenset(t.index for t in baida.kinds)
    candidates = [_pair(i) for i in range(KINDS) if room[i] >= 2]
    return _distinct(candidates, wild, situation, keep=1)


def _distinct(
    groups: Sequence[Group], wild: frozenset[int], situation: Situation, keep: int
) -> tuple[Group, ...]:
    seen: Counter[tuple[object, ...]] = Counter()
    out: list[Group] = []
    for group in groups:
        key = _signature(group, wild, situation)
        if seen[key] < keep:
            seen[key] += 1
            out.append(group)
    return tuple(out)


@lru_cache(maxsize=8192)
def _signature(group: Group, wild: frozenset[int], situation: Situation) -> tuple[object, ...]:
    """Everything of a free group the tai table can see: its block, pung or chow, the
    honor patterns it makes, how many values of each baida kind it holds (还搭 and baida
    used as wild), and the waits it offers a baida winning tile. Groups with the same
    signature score alike (given room for their copies).

    >>> sig = lambda text: _signature(_reading(text, "11m").sets[0], frozenset({21}), _SIT)
    >>> sig("123m") == sig("789m"), sig("123m") == sig("456m"), sig("111p") == sig("999p")
    (True, True, True)
    >>> sig("234s") == sig("789s"), sig("555z") == sig("666z"), sig("222z") == sig("333z")
    (False, True, False)
    """
    first = group.tiles[0]
    honor = _honor_tai(first, situation) if group.is_pung_or_kong else 0
    wilds = tuple(sum(1 for t in group.tiles if t.index == w) for w in sorted(wild))
    wait = max(
        _tai(_wait_hits(Wait(wait_kind(group, t), group, t), situation)) for t in group.tiles
    )
    return (_block(first), group.kind, honor, wilds, wait)


def _pung(index: int) -> Group:
    return Group(GroupKind.PUNG, (Tile.from_index(index),) * 3)


def _pair(index: int) -> Group:
    return Group(GroupKind.PAIR, (Tile.from_index(index),) * 2)


def _chow(index: int) -> Group:
    return Group(GroupKind.CHOW, tuple(Tile.from_index(j) for j in (index, index + 1, index + 2)))


# -- payment -------------------------------------------------------------------------------------
def _settle(
    tai: int, win: WinContext, contract: int | None
) -> tuple[Settlement, tuple[Pattern, ...], int]:
    """Tai × multiplier: the discarder, or each of three on a self-draw; a kong win ×2; a
    robbed kong's declarer, or the contracted seat, pays alone ×5 (the contract first)."""
    patterns: list[Pattern] = []
    factor = 1
    if win.method is WinMethod.KONG_REPLACEMENT:
        factor *= _multiply(patterns, Multiplier.KONG_WIN)
    winner = win.winner
    if contract is not None:
        factor *= _multiply(patterns, Multiplier.CONTRACT)
        text = f"{tai} tai × {factor}: {SEAT_NAMES[contract]} pays alone (三摊承包)"
        settlement = Settlement().pay(contract, winner, tai * factor, "hand", text)
    elif win.method is WinMethod.ROBBED_KONG:
        assert win.discarder is not None
        factor *= _multiply(patterns, Multiplier.ROBBED_KONG)
        text = f"{tai} tai × {factor}: the robbed kong's declarer pays alone (捉杠)"
        settlement = Settlement().pay(win.discarder, winner, tai * factor, "hand", text)
    elif win.method is WinMethod.DISCARD:
        assert win.discarder is not None
        text = f"{tai} tai: the discarder pays"
        settlement = Settlement().pay(win.discarder, winner, tai * factor, "hand", text)
    else:
        text = f"{tai} tai × {factor}: self-drawn, each pays"
        settlement = Settlement().each_pays(winner, tai * factor, "hand", text)
    return settlement, tuple(patterns), factor


def _multiply(patterns: list[Pattern], code: Multiplier) -> int:
    row = MULTIPLIERS[code]
    patterns.append(Pattern(code.value, row.name, row.tai, "x"))
    return row.tai


# -- doctest helpers -----------------------------------------------------------------------------
def _reading(*groups: str) -> Reading:
    """A natural reading from notation (the last group is the pair), for the doctests."""
    from hupai.scoring.decompose import chow_of, pair_of, pung_of

    def group(text: str) -> Group:
        if len(text) == 3:
            return pair_of(text[0] + text[2])
        return pung_of(text[0] + text[3]) if text[0] == text[1] else chow_of(text)

    *sets, pair = groups
    return Reading.of(tuple(group(g) for g in sets), group(pair), False, False, False)


_SIT = Situation(
    WinContext(WinMethod.DISCARD, 1, 0), Tile(Suit.MAN, 1), False, (), baida_kong=False
)

CITY = Ningbo()
