"""Nanchang 南昌麻将 — spirit tiles 精: wild spirits from the indicator, honor sequences, base
points × multipliers, virtuous country 德国, the table-wide spirit settlement and kong payouts
(seed 001; ../shared/rules/INTERPRETATION.md, docs/rules/nanchang.md).

The flipped **indicator** is the primary spirit 正精, the next tile the secondary 副精; every
copy of both is wild in the concealed hand and also counts at face value. The hand is worth
the highest **base** row times every **multiplier** (self-draw, robbing a kong, spirit fishing,
virtuous country ×2 then +5 or true virtuous ×4 then +5). Whoever won, every seat's spirits
are settled at the end: 2 per primary, 1 per secondary, explosive T×(T−3) from 5, +10 per
spirit kong, doubled when only one seat holds spirits.

The seed's spirit example (3 bamboo flipped: 3 and 4 bamboo are spirits), on a self-drawn
plain hand holding one 4s used as a wild for the missing 9p:

>>> from scoring import score
>>> result = score({
...     "city": "nanchang", "hand": "123m456p78p4s789s55z", "win_tile": "4s",
...     "win": "self_draw", "winner": 1, "indicator": "3s",
... })
>>> [p.code for p in result.patterns], result.details["share"]  # 1 × 2 from each
(['plain', 'self_draw'], 2)
>>> result.details["spirits"][1]["score"]  # one secondary held: 1 point, alone: ×2
2
>>> result.deltas  # 2 for the hand and 2 for the spirits, from each of the three
(-4, 12, -4, -4)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
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
    all_pairs,
    decompose,
)
from hupai.scoring.fields import Between, ScoringInputError, Seat, required, setting
from hupai.scoring.hand import SEATS, Hand, MeldKind, WinContext, WinMethod, others
from hupai.scoring.house import HouseRules
from hupai.scoring.patterns import BIG_SEVEN_PAIRS, SEVEN_PAIRS, HandView
from hupai.scoring.settlement import ItemGroup, Json, Pattern, Reason, Result, Settlement
from hupai.scoring.succession import Succession, SuccessionRule
from hupai.scoring.tiles import KINDS, Tile, format_tiles, next_tile

SEAT_NAMES = ("East", "South", "West", "North")


# -- options ---------------------------------------------------------------------------------
class DragonCycle(StrEnum):
    """The order in which a flipped dragon points to the next one (only two cycles exist)."""

    GREEN_RED_WHITE = "green_red_white"  # the seed's: Green → Red → White → Green
    RED_GREEN_WHITE = "red_green_white"  # 中发白: Red → Green → White → Red

    @property
    def ranks(self) -> tuple[int, int, int]:
        """The cycle as honor ranks (5 White, 6 Green, 7 Red) for ``next_tile``."""
        return (6, 7, 5) if self is DragonCycle.GREEN_RED_WHITE else (7, 6, 5)


class VirtuousMode(StrEnum):
    """When the winner earns virtuous country 德国 (and true virtuous 德中德)."""

    #: 德国 when some reading uses no spirit as a wild (spirits at face value are fine)
    NATURAL = "natural"
    #: 德国 only when the winner holds no spirit tile at all (the seed's first clause)
    NO_SPIRITS = "no_spirits"
    #: neither 德国 nor 德中德 is played
    OFF = "off"


class Indomitable(StrEnum):
    """What 霸王精 (the only seat holding spirits) does to that seat's spirit score."""

    DOUBLE = "double"  # the seed's ×2
    PLUS_TEN = "plus_ten"  # a Nanchang engine's room option 霸王精+10


class PaymentModel(StrEnum):
    """Who pays the hand (the seed is silent)."""

    #: discard or robbed kong: that seat pays; self-draw: each of the three others pays
    DISCARDER = "discarder"
    #: as ``discarder`` on a self-draw; on a discard the discarder pays double, the others single
    ALL_PAY = "all_pay"


@dataclass(frozen=True)
class NanchangOptions(HouseRules):
    dragon_cycle: DragonCycle = setting(
        DragonCycle.GREEN_RED_WHITE,
        "which dragon a flipped dragon points to: the seed's Green→Red→White, or Red→Green→White",
    )
    virtuous_mode: VirtuousMode = setting(
        VirtuousMode.NATURAL,
        "natural: 德国 when a reading uses no spirit as a wild; no_spirits: only when the "
        "winner holds no spirit; off: no 德国 / 德中德",
    )
    payment_model: PaymentModel = setting(
        PaymentModel.DISCARDER,
        "discarder: the discarder pays a discard win; all_pay: discarder double, others single",
    )
    indomitable: Indomitable = setting(
        Indomitable.DOUBLE,
        "霸王精, the only seat holding spirits: double (the seed's ×2) or plus_ten (+10, as "
        "some Nanchang rooms play)",
    )
    spirit_groups: bool = setting(
        True,
        "a set or pair may be made of spirits alone, standing for any tile (the default "
        "reading: every spirit is wild); false: a group of spirits alone only at face value",
    )


# -- table fields ----------------------------------------------------------------------------
Count = Annotated[int, Between(0, 4)]


@dataclass(frozen=True)
class SeatSpirits:
    """The spirit tiles one seat holds at the end of the hand (in hand and in melds)."""

    seat: Seat = required("the seat (0 is the dealer)")
    primary: Count = setting(0, "primary spirits 正精 held (hand and melds)")
    secondary: Count = setting(0, "secondary spirits 副精 held (hand and melds)")
    kongs: Annotated[int, Between(0, 2)] = setting(
        0, "spirit kongs 杠精 declared (four copies of a spirit)"
    )


@dataclass(frozen=True)
class NanchangTable:
    indicator: Tile = required(
        "the flipped tile: it is the primary spirit 正精, the next tile the secondary 副精",
        shown=True,
    )
    spirits: tuple[SeatSpirits, ...] = setting(
        (),
        "the other seats' spirits for the spirit settlement (a seat not given holds none); "
        "the winner's are read from the hand",
    )


# -- spirits ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Spirits:
    """The two spirit kinds a flipped indicator makes.

    >>> [str(Spirits.of(Tile.parse(t))) for t in ("3s", "9p", "4z", "6z", "5z")]
    ['3s/4s', '9p/1p', '4z/1z', '6z/7z', '5z/6z']
    >>> str(Spirits.of(Tile.parse("6z"), DragonCycle.RED_GREEN_WHITE))
    '6z/5z'
    """

    primary: Tile
    secondary: Tile

    @staticmethod
    def of(indicator: Tile, cycle: DragonCycle = DragonCycle.GREEN_RED_WHITE) -> Spirits:
        return Spirits(indicator, next_tile(indicator, cycle.ranks))

    @property
    def kinds(self) -> frozenset[Tile]:
        return frozenset((self.primary, self.secondary))

    def holding(self, hand: Hand) -> Holding:
        """What the winner holds: every spirit tile in the hand and the melds, and the
        kongs made of a spirit kind."""
        tiles = hand.all_tiles
        kongs = sum(1 for m in hand.kongs if m.tile in self.kinds)
        return Holding(tiles.count(self.primary), tiles.count(self.secondary), kongs)

    def __str__(self) -> str:
        return f"{self.primary}/{self.secondary}"


#: Points per spirit tile held (the seed's spirit table).
PRIMARY_POINTS = 2
SECONDARY_POINTS = 1
#: From this many spirit points the explosive bonus 冲关 applies: T × (T − 3).
EXPLOSIVE_FROM = 5
#: Added per spirit kong 杠精.
SPIRIT_KONG_POINTS = 10
#: Indomitable spirit 霸王精: the only seat holding spirits has its score multiplied.
INDOMITABLE_FACTOR = 2
#: House variant ``indomitable=plus_ten`` (a Nanchang engine's room option 霸王精+10).
INDOMITABLE_BONUS = 10


def explosive(points: int) -> int:
    """Spirit points after the explosive bonus 冲关: from 5 on, T × (T − 3) — the seed's
    "5 points x 2, 6 points x 3, … 10 points x 7", continued the same way above 10.

    >>> [explosive(t) for t in range(4, 12)]
    [4, 10, 18, 28, 40, 54, 70, 88]
    """
    return points * (points - 3) if points >= EXPLOSIVE_FROM else points


@dataclass(frozen=True, slots=True)
class Holding:
    """One seat's spirits: tiles of each kind (hand and melds) and spirit kongs.

    >>> Holding(2, 1).points, Holding(2, 1).score  # 2·2 + 1 = 5 → explosive 10
    (5, 10)
    >>> Holding(0, 4, kongs=1).score  # 4 → 4, plus 10 for the kong
    14
    """

    primary: int = 0
    secondary: int = 0
    kongs: int = 0

    @property
    def points(self) -> int:
        """T = 2 per primary + 1 per secondary."""
        return PRIMARY_POINTS * self.primary + SECONDARY_POINTS * self.secondary

    @property
    def holds_spirits(self) -> bool:
        return self.points > 0

    @property
    def score(self) -> int:
        """Explosive points plus the spirit kongs (before the indomitable doubling)."""
        return explosive(self.points) + SPIRIT_KONG_POINTS * self.kongs

    def describe(self) -> str:
        parts = [f"{self.primary} primary", f"{self.secondary} secondary"]
        text = f"{' + '.join(parts)} = {self.points}"
        if self.points >= EXPLOSIVE_FROM:
            text += f", explosive ×{self.points - 3} = {explosive(self.points)}"
        if self.kongs:
            text += f", {self.kongs} spirit kong(s) +{SPIRIT_KONG_POINTS * self.kongs}"
        return text


@dataclass(frozen=True, slots=True)
class SpiritSettlement:
    """Every seat's spirit score; each seat is paid its score by each other seat.

    >>> s = SpiritSettlement.of({0: Holding(1, 1), 2: Holding(0, 2)})  # 3 and 2 points
    >>> s.scores, s.settlement().deltas  # delta = 4·S − ΣS
    ((3, 0, 2, 0), (7, -5, 3, -5))
    >>> SpiritSettlement.of({3: Holding(2, 1)}).scores  # alone: 霸王精 doubles 10
    (0, 0, 0, 20)
    >>> SpiritSettlement.of({3: Holding(0, 1)}, Indomitable.PLUS_TEN).scores  # 1 + 10
    (0, 0, 0, 11)
    """

    holdings: tuple[Holding, Holding, Holding, Holding]
    mode: Indomitable = Indomitable.DOUBLE

    @staticmethod
    def of(
        by_seat: Mapping[int, Holding], mode: Indomitable = Indomitable.DOUBLE
    ) -> SpiritSettlement:
        h = tuple(by_seat.get(seat, Holding()) for seat in SEATS)
        return SpiritSettlement((h[0], h[1], h[2], h[3]), mode)

    def _lone(self, score: int) -> int:
        """The lone holder's score after 霸王精."""
        if self.mode is Indomitable.PLUS_TEN:
            return score + INDOMITABLE_BONUS
        return score * INDOMITABLE_FACTOR

    @property
    def lone_text(self) -> str:
        if self.mode is Indomitable.PLUS_TEN:
            return f"+{INDOMITABLE_BONUS}"
        return f"×{INDOMITABLE_FACTOR}"

    @property
    def indomitable(self) -> int | None:
        """The seat that alone holds spirits (霸王精), if exactly one does."""
        holders = [seat for seat in SEATS if self.holdings[seat].holds_spirits]
        return holders[0] if len(holders) == 1 else None

    @property
    def scores(self) -> tuple[int, ...]:
        lone = self.indomitable
        return tuple(
            self._lone(h.score) if seat == lone else h.score for seat, h in enumerate(self.holdings)
        )

    def settlement(self) -> Settlement:
        out = Settlement()
        lone = self.indomitable
        for seat, (holding, value) in enumerate(zip(self.holdings, self.scores, strict=True)):
            if not value:
                continue
            text = f"spirits of {SEAT_NAMES[seat]}: {holding.describe()}"
            if seat == lone:
                text += f", only holder 霸王精 {self.lone_text}"
            text += f" → {value} from each"
            out = out.each_pays(seat, value, "spirits", text, ItemGroup.INSTANT)
        return out


# -- one reading of the win --------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Situation:
    """One reading of the hand, the wait it was completed with, and the table facts that
    the base rows and multipliers look at."""

    hand: Hand
    win: WinContext
    reading: Decomposition
    wait: Wait | None
    spirits: Spirits
    mode: VirtuousMode
    #: the winner holds some spirit tile (hand or melds)
    winner_holds_spirits: bool
    #: the three other seats were all given in ``spirits`` and hold none
    others_hold_none: bool
    #: this reading uses no spirit as a wild (spirits at face value only)
    natural: bool


# Base rows: one predicate each.
def plain(s: Situation) -> bool:
    """平胡: four sets (honor sequences included) and a pair."""
    return s.reading.shape is Shape.STANDARD


def seven_pairs(s: Situation) -> bool:
    """小七对: seven pairs, no four alike."""
    return SEVEN_PAIRS.applies(HandView.of(s.reading))


def big_seven_pairs(s: Situation) -> bool:
    """大七对: seven pairs holding four identical tiles (counted as two pairs)."""
    return BIG_SEVEN_PAIRS.applies(HandView.of(s.reading))


def thirteen_misfits(s: Situation) -> bool:
    """十三烂: 14 single tiles, same-suit ranks at least 3 apart, honors all different."""
    return s.reading.shape is Shape.THIRTEEN_MISFITS


def seven_star_misfits(s: Situation) -> bool:
    """七星十三烂: thirteen misfits holding all seven honors."""
    if not thirteen_misfits(s):
        return False
    return len({t for t in s.reading.values if t.is_honor}) == 7


def heavenly(s: Situation) -> bool:
    """天胡: the dealer wins with the dealt hand (first turn, self-drawn)."""
    return s.win.first_turn and s.win.method is WinMethod.SELF_DRAW and s.win.winner_is_dealer


def earthly(s: Situation) -> bool:
    """地胡: a player wins on the dealer's first discard."""
    return s.win.first_turn and s.win.method is WinMethod.DISCARD and s.win.discarder == 0


class BaseCode(StrEnum):
    PLAIN = "plain"
    SEVEN_PAIRS = "seven_pairs"
    BIG_SEVEN_PAIRS = "big_seven_pairs"
    THIRTEEN_MISFITS = "thirteen_misfits"
    SEVEN_STAR_MISFITS = "seven_star_misfits"
    HEAVENLY = "heavenly"
    EARTHLY = "earthly"


@dataclass(frozen=True, slots=True)
class BaseRow:
    code: BaseCode
    name: str
    points: int
    applies: Callable[[Situation], bool]


#: The seed's payout table, base rows (the highest applicable row counts).
BASE_ROWS: tuple[BaseRow, ...] = (
    BaseRow(BaseCode.PLAIN, "Basic win 平胡", 1, plain),
    BaseRow(BaseCode.SEVEN_PAIRS, "Small seven pairs 小七对", 2, seven_pairs),
    BaseRow(BaseCode.BIG_SEVEN_PAIRS, "Big seven pairs 大七对", 4, big_seven_pairs),
    BaseRow(BaseCode.THIRTEEN_MISFITS, "Thirteen misfits 十三烂", 2, thirteen_misfits),
    BaseRow(BaseCode.SEVEN_STAR_MISFITS, "Seven-star misfits 七星十三烂", 4, seven_star_misfits),
    BaseRow(BaseCode.HEAVENLY, "Heavenly win 天胡", 20, heavenly),
    BaseRow(BaseCode.EARTHLY, "Earthly win 地胡", 20, earthly),
)


def base_row(s: Situation) -> BaseRow:
    """The highest applicable base row (the first listed on a tie)."""
    return max((row for row in BASE_ROWS if row.applies(s)), key=lambda row: row.points)


# Multipliers: one predicate each.
def self_drawn(s: Situation) -> bool:
    """自摸: self-draw (a kong replacement tile too)."""
    return s.win.is_self_drawn


def robbing_kong(s: Situation) -> bool:
    """抢杠胡: the winning tile was robbed from another player's kong."""
    return s.win.method is WinMethod.ROBBED_KONG


def spirit_fishing(s: Situation) -> bool:
    """精钓: a single wait (the pair) whose pair holds a spirit standing in as a wild —
    either the winning tile is that spirit, or the spirit was the held single.
    """
    wait = s.wait
    if wait is None or wait.kind is not WaitKind.SINGLE:
        return False
    win_tile = s.hand.win_tile
    if win_tile in s.reading.wild_tiles:  # the winning tile is a wild in this reading
        return wait.group is None or wait.stands_for != win_tile
    # a natural winning tile completes its pair; a wild standing for the same value may be
    # the tile it was waiting with
    return (
        wait.group is not None and wait.group.kind is GroupKind.PAIR and win_tile in s.reading.fills
    )


def true_virtuous(s: Situation) -> bool:
    """德中德: no spirit tile in any of the four hands (every seat's counts given)."""
    return s.mode is not VirtuousMode.OFF and not s.winner_holds_spirits and s.others_hold_none


def virtuous(s: Situation) -> bool:
    """德国: the winner needs no spirit as a wild (``virtuous_mode``); 德中德 replaces it."""
    if s.mode is VirtuousMode.OFF or true_virtuous(s):
        return False
    if s.mode is VirtuousMode.NO_SPIRITS:
        return not s.winner_holds_spirits
    return s.natural


class MultiplierCode(StrEnum):
    SELF_DRAW = "self_draw"
    ROBBING_KONG = "robbing_kong"
    SPIRIT_FISHING = "spirit_fishing"
    VIRTUOUS_COUNTRY = "virtuous_country"
    TRUE_VIRTUOUS = "true_virtuous"


@dataclass(frozen=True, slots=True)
class Multiplier:
    """A multiplier of the seed's payout table; ``bonus`` is added after multiplying."""

    code: MultiplierCode
    name: str
    factor: int
    bonus: int
    applies: Callable[[Situation], bool]


MULTIPLIERS: tuple[Multiplier, ...] = (
    Multiplier(MultiplierCode.SELF_DRAW, "Self-drawn win 自摸", 2, 0, self_drawn),
    Multiplier(MultiplierCode.ROBBING_KONG, "Robbing a kong 抢杠胡", 2, 0, robbing_kong),
    Multiplier(MultiplierCode.SPIRIT_FISHING, "Spirit fishing 精钓", 2, 0, spirit_fishing),
    Multiplier(MultiplierCode.VIRTUOUS_COUNTRY, "Virtuous country 德国", 2, 5, virtuous),
    Multiplier(MultiplierCode.TRUE_VIRTUOUS, "True virtuous country 德中德", 4, 5, true_virtuous),
)


@dataclass(frozen=True, slots=True)
class Valuation:
    """What one (reading, wait) is worth to each payer: base × factors + bonus."""

    situation: Situation
    base: BaseRow
    multipliers: tuple[Multiplier, ...]

    @staticmethod
    def of(s: Situation) -> Valuation:
        return Valuation(s, base_row(s), tuple(m for m in MULTIPLIERS if m.applies(s)))

    @property
    def factor(self) -> int:
        out = 1
        for m in self.multipliers:
            out *= m.factor
        return out

    @property
    def bonus(self) -> int:
        return sum(m.bonus for m in self.multipliers)

    @property
    def value(self) -> int:
        """One payer's share (before ``all_pay`` doubles the discarder's).

        >>> hand = Hand.of("123m456p789s123s22z", win_tile="2z")
        >>> reading = decompose(hand.concealed_counts())[0]
        >>> s = Situation(hand, WinContext(WinMethod.SELF_DRAW, 1), reading, None,
        ...               Spirits.of(Tile.parse("5m")), VirtuousMode.NATURAL, False, False, True)
        >>> v = Valuation.of(s)
        >>> [m.code.value for m in v.multipliers], v.value  # 1 × 2 × 2, then + 5
        (['self_draw', 'virtuous_country'], 9)
        """
        return self.base.points * self.factor + self.bonus

    @property
    def patterns(self) -> tuple[Pattern, ...]:
        base = Pattern(self.base.code.value, self.base.name, self.base.points)
        factors = [
            Pattern(
                m.code.value, m.name + (f" (then +{m.bonus})" if m.bonus else ""), m.factor, "x"
            )
            for m in self.multipliers
        ]
        return (base, *factors)

    def formula(self) -> str:
        """The share in words, e.g. ``Basic win 平胡 1 × 2 (self-draw) = 2``."""
        text = f"{self.base.name} {self.base.points}"
        for m in self.multipliers:
            text += f" × {m.factor} ({m.name})"
        return f"{text} = {self.base.points * self.factor}"


# -- kongs -----------------------------------------------------------------------------------
#: Instant kong payouts, paid by every other player (the seed's kong table).
KONG_PAYOUT: Mapping[MeldKind, int] = {
    MeldKind.CONCEALED_KONG: 2,
    MeldKind.KONG: 1,
    MeldKind.ADDED_KONG: 1,
}
KONG_REASON: Mapping[MeldKind, str] = {
    MeldKind.CONCEALED_KONG: "concealed_kong",
    MeldKind.KONG: "exposed_kong",
    MeldKind.ADDED_KONG: "added_kong",
}
_KONG_NAME: Mapping[MeldKind, str] = {
    MeldKind.CONCEALED_KONG: "concealed kong 暗杠",
    MeldKind.KONG: "exposed kong 明杠",
    MeldKind.ADDED_KONG: "added kong 补杠",
}


def kong_items(hand: Hand, winner: int) -> Settlement:
    """The winner's kongs: each of the three others pays the kong's payout."""
    out = Settlement()
    for meld in hand.kongs:
        amount = KONG_PAYOUT[meld.kind]
        text = f"{_KONG_NAME[meld.kind]} {meld.tile}: {amount} from each"
        out = out.each_pays(winner, amount, KONG_REASON[meld.kind], text, ItemGroup.INSTANT)
    return out


# -- the hand's payment ----------------------------------------------------------------------
def payer_shares(win: WinContext, model: PaymentModel) -> dict[int, int]:
    """How many shares each paying seat pays.

    >>> payer_shares(WinContext(WinMethod.DISCARD, 1, 3), PaymentModel.DISCARDER)
    {3: 1}
    >>> payer_shares(WinContext(WinMethod.DISCARD, 1, 3), PaymentModel.ALL_PAY)
    {0: 1, 2: 1, 3: 2}
    >>> payer_shares(WinContext(WinMethod.SELF_DRAW, 1), PaymentModel.ALL_PAY)
    {0: 1, 2: 1, 3: 1}
    """
    if win.is_self_drawn:
        return dict.fromkeys(others(win.winner), 1)
    assert win.discarder is not None
    if model is PaymentModel.ALL_PAY:
        return {**dict.fromkeys(others(win.winner), 1), win.discarder: 2}
    return {win.discarder: 1}


def hand_items(valuation: Valuation, win: WinContext, model: PaymentModel) -> Settlement:
    """The win's items: ``base × multipliers`` (reason ``hand``) and the virtuous ``+5``
    (reason ``virtuous_bonus``) per payer; under ``all_pay`` the discarder's share doubles."""
    winner = win.winner
    payers = payer_shares(win, model)
    product = valuation.base.points * valuation.factor
    out = Settlement()
    for seat, shares in payers.items():
        double = " × 2 (all pay: the discarder's share)" if shares == 2 else ""
        out = out.pay(seat, winner, product * shares, "hand", valuation.formula() + double)
        if valuation.bonus:
            names = " / ".join(m.name for m in valuation.multipliers if m.bonus)
            out = out.pay(
                seat, winner, valuation.bonus * shares, "virtuous_bonus", f"{names}: +5{double}"
            )
    return out


# -- the city --------------------------------------------------------------------------------
RULES = ShapeRules(
    standard=True,
    seven_pairs=True,
    quad_pairs=True,
    thirteen_misfits=True,
    honor_sequences=True,
)
#: Copies of a kind in the whole set.
COPIES = 4


class Nanchang(City[NanchangOptions, NanchangTable]):
    name = "nanchang"
    # 001: a draw — "the dealer remains the dealer. If any Kongs were declared … the dealer
    # will shift to the next player"; a win is not stated (option succession=next|winner)
    succession = SuccessionRule(
        Succession.KEEPS, Succession.PASSES, Succession.PASSES_IF_KONG, other_win_option=True
    )
    title = "Nanchang — Spirit tiles 南昌麻将"
    seed = "001"
    tile_set = TileSet.STANDARD
    exposed_chows = True
    honor_sequences = True
    options_type = NanchangOptions
    table_type = NanchangTable

    # -- checks ---------------------------------------------------------------------------
    def check(self, request: Request[NanchangOptions, NanchangTable]) -> None:
        hand, win, table, options = request.hand, request.win, request.table, request.options
        spirits = Spirits.of(table.indicator, options.dragon_cycle)
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
        _check_spirits(table.spirits, spirits, win.winner, spirits.holding(hand), table.indicator)

    # -- scoring --------------------------------------------------------------------------
    def score(self, request: Request[NanchangOptions, NanchangTable]) -> Result:
        hand, win, table, options = request.hand, request.win, request.table, request.options
        spirits = Spirits.of(table.indicator, options.dragon_cycle)
        readings = self.readings(hand, spirits, table.indicator, options.spirit_groups)
        if not readings:
            return Result.invalid(
                self.name,
                Reason.NOT_A_WINNING_HAND,
                f"'{hand}' with spirits {spirits} is not four sets and a pair, seven pairs "
                "or thirteen misfits",
                details={"primary": str(spirits.primary), "secondary": str(spirits.secondary)},
            )
        winner_holding = spirits.holding(hand)
        given = {s.seat: Holding(s.primary, s.secondary, s.kongs) for s in table.spirits}
        others_given = all(seat in given for seat in others(win.winner))
        others_hold_none = others_given and not any(
            given[seat].holds_spirits for seat in others(win.winner)
        )
        valuations = [
            Valuation.of(
                Situation(
                    hand,
                    win,
                    reading,
                    wait,
                    spirits,
                    options.virtuous_mode,
                    winner_holding.holds_spirits,
                    others_hold_none,
                    natural,
                )
            )
            for reading in readings
            for natural in (_natural(reading),)
            for wait in (reading.waits(hand.win_tile) or (None,))
        ]
        # every payer pays the same number of shares whatever the reading: the best reading
        # has the largest share (a natural one first on a tie)
        best = max(valuations, key=lambda v: (v.value, v.situation.natural))
        settlement = hand_items(best, win, options.payment_model) + kong_items(hand, win.winner)
        spirit_table = SpiritSettlement.of(
            {**given, win.winner: winner_holding}, options.indomitable
        )
        settlement += spirit_table.settlement()
        return Result(
            self.name,
            True,
            Reason.OK,
            message=f"{best.formula()}{f' + {best.bonus}' if best.bonus else ''} per share",
            decomposition=best.situation.reading,
            wait=None if best.situation.wait is None else best.situation.wait.kind,
            patterns=best.patterns,
            settlement=settlement,
            warnings=tuple(self._warnings(request, given, winner_holding, best)),
            details=self._details(
                spirits, spirit_table, given, win.winner, best, len(readings), hand
            ),
        )

    def readings(
        self, hand: Hand, spirits: Spirits, indicator: Tile, spirit_groups: bool = True
    ) -> tuple[Decomposition, ...]:
        """Every reading with spirits wild, then every reading with spirits at face value
        only (those earn 德国). Seven-pairs readings whose spirits make a free pair are
        spelled out, since a doubled pair makes big seven pairs. Without ``spirit_groups``
        a wild reading with a group made of spirits alone (a free set or pair) is dropped:
        such a group stands only as the spirits' own tiles (the face-value readings)."""
        limits = [COPIES] * KINDS
        for tile in (*hand.meld_tiles, indicator):
            limits[tile.index] -= 1
        counts = hand.concealed_counts()
        found: list[Decomposition] = []
        for wilds in (spirits.kinds, frozenset[Tile]()):
            for reading in decompose(counts, len(hand.melds), wilds, RULES, limits):
                if not spirit_groups and not reading.is_complete:
                    continue
                if reading.shape is Shape.SEVEN_PAIRS and reading.free_pairs:
                    found.extend(_spell_out_pairs(reading, limits))
                else:
                    found.append(reading)
        return tuple(found)

    # -- result parts ---------------------------------------------------------------------
    def _warnings(
        self,
        request: Request[NanchangOptions, NanchangTable],
        given: Mapping[int, Holding],
        winner_holding: Holding,
        best: Valuation,
    ) -> list[str]:
        win = request.win
        out: list[str] = []
        missing = [seat for seat in others(win.winner) if seat not in given]
        if missing:
            seats = ", ".join(f"{seat} ({SEAT_NAMES[seat]})" for seat in missing)
            text = f"spirits: seat(s) {seats} not given; counted as holding no spirits"
            if (
                request.options.virtuous_mode is not VirtuousMode.OFF
                and not winner_holding.holds_spirits
            ):
                text += "; true virtuous 德中德 needs every seat's counts, so it was not awarded"
            out.append(text)
        if win.first_turn and best.base.code not in (BaseCode.HEAVENLY, BaseCode.EARTHLY):
            out.append(
                "first_turn scores nothing here: heavenly is the dealer's self-drawn dealt "
                "hand, earthly a win on the dealer's first discard"
            )
        return out

    def _details(
        self,
        spirits: Spirits,
        table: SpiritSettlement,
        given: Mapping[int, Holding],
        winner: int,
        best: Valuation,
        n_readings: int,
        hand: Hand,
    ) -> dict[str, Json]:
        seats: list[Json] = []
        for seat, (holding, value) in enumerate(zip(table.holdings, table.scores, strict=True)):
            source = "hand" if seat == winner else ("given" if seat in given else "not given")
            seats.append(
                {
                    "seat": seat,
                    "primary": holding.primary,
                    "secondary": holding.secondary,
                    "kongs": holding.kongs,
                    "points": holding.points,
                    "score": value,
                    "source": source,
                }
            )
        reading = best.situation.reading
        return {
            "primary": str(spirits.primary),
            "secondary": str(spirits.secondary),
            "base": best.base.points,
            "multiplier": best.factor,
            "bonus": best.bonus,
            "share": best.value,
            "spirits_as_wild": format_tiles(reading.as_wild),
            "spirits_at_face_value": format_tiles(reading.at_face_value),
            "spirits": seats,
            "indomitable_seat": table.indomitable,
            "readings": n_readings,
        }


def _natural(reading: Decomposition) -> bool:
    """The reading uses no spirit as a wild: each stands for itself (``not uses_wilds``,
    without building counters: both tuples are sorted)."""
    return reading.is_complete and reading.fills == reading.wild_tiles


def _spell_out_pairs(reading: Decomposition, limits: Sequence[int]) -> list[Decomposition]:
    """Concrete seven-pairs readings for the free pairs: doubling a pair the hand has (big
    seven pairs) or fresh kinds, within the copies left of each kind."""
    present = {g.tile for g in reading.pairs}
    fresh = [p for p in all_pairs() if p.tile not in present and limits[p.tile.index] == COPIES]
    choices: list[Group] = [p for p in all_pairs() if p.tile in present] + fresh[:3]
    out: list[Decomposition] = []
    for expanded in reading.expand(pair_choices=choices):
        used = Counter(t for g in expanded.groups for t in g.tiles)
        if all(n <= limits[t.index] for t, n in used.items()):
            out.append(expanded)
    return out


def _check_spirits(
    entries: Iterable[SeatSpirits],
    spirits: Spirits,
    winner: int,
    winner_holding: Holding,
    indicator: Tile,
) -> None:
    """Each seat at most once; the winner's entry (if any) agrees with the hand; no seat
    declares more kongs than its tiles make; the counts fit the copies in play."""
    seen: dict[int, int] = {}
    total = Counter({"primary": winner_holding.primary, "secondary": winner_holding.secondary})
    for i, entry in enumerate(entries):
        path = f"spirits[{i}]"
        if entry.seat in seen:
            raise ScoringInputError(
                f"{path}.seat", f"{entry.seat} is already given at spirits[{seen[entry.seat]}]"
            )
        seen[entry.seat] = i
        holding = Holding(entry.primary, entry.secondary, entry.kongs)
        if entry.seat == winner:
            if holding != winner_holding:
                raise ScoringInputError(
                    path,
                    f"seat {winner} is the winner: its hand holds {winner_holding.primary} "
                    f"primary ({spirits.primary}), {winner_holding.secondary} secondary "
                    f"({spirits.secondary}) and {winner_holding.kongs} spirit kong(s), not "
                    f"{entry.primary}, {entry.secondary} and {entry.kongs}; leave the winner "
                    "out (it is read from the hand)",
                )
            continue
        possible = entry.primary // COPIES + entry.secondary // COPIES
        if entry.kongs > possible:
            raise ScoringInputError(
                f"{path}.kongs",
                f"{entry.kongs} spirit kong(s), but a kong is four copies of a spirit and the "
                f"seat holds {entry.primary} primary and {entry.secondary} secondary",
            )
        total["primary"] += entry.primary
        total["secondary"] += entry.secondary
    for kind, tile in (("primary", spirits.primary), ("secondary", spirits.secondary)):
        in_play = COPIES - (1 if tile == indicator else 0)
        if total[kind] > in_play:
            raise ScoringInputError(
                "spirits",
                f"{total[kind]} {kind} spirits ({tile}) across the seats, winner's hand "
                f"included; only {in_play} are in play"
                + (" (the fourth is the flipped indicator)" if in_play < COPIES else ""),
            )


CITY = Nanchang()
