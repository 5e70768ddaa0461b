"""Guiyang 贵阳捉鸡麻将 — chickens 鸡, beans 豆, the kong permit, the dealer streak and the
yellow-tile draw 黄牌 (seed 003; ../shared/rules/INTERPRETATION.md; docs/rules/guiyang.md).

108 tiles (three suits), no chows claimed. The hand's points add up (plain 1 only when
nothing else applies); a discard win needs a kong or more than 1 point. Kongs (beans) are
paid at once and also count in the hand; every seat's chickens (1 bamboo, the wild
chicken after the flipped tile) are paid by each other seat; the hand pays
(hand points + winner's chicken points + winner's bean points) × dealer streak.

The seed's own check (dealer, first win, self-draw, plain hand, one chicken held, one
exposed kong): each opponent −5, the dealer +15.

>>> from scoring import score
>>> result = score({
...     "city": "guiyang", "hand": "234m567m1s2s3s99p", "win_tile": "9p",
...     "melds": [{"kind": "kong", "tiles": "5555p", "from": 2}],
...     "win": "self_draw", "winner": 0, "indicator": "7p",
... })
>>> result.deltas
(15, -5, -5, -5)
>>> [p.code for p in result.patterns]
['plain', 'chickens', 'beans']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from hupai.scoring import patterns as shared
from hupai.scoring.city import City, DrawRequest, Request, SeatHand, TileSet
from hupai.scoring.decompose import Decomposition, ShapeRules, decompose, ready_tiles
from hupai.scoring.fields import Between, ScoringInputError, Seat, required, setting
from hupai.scoring.hand import Meld, MeldKind, WinMethod, others
from hupai.scoring.house import HouseRules
from hupai.scoring.patterns import HandView
from hupai.scoring.settlement import ItemGroup, Json, Pattern, Reason, Result, Settlement
from hupai.scoring.succession import Succession, SuccessionRule
from hupai.scoring.tiles import HAND_TILES, Suit, Tile, format_tiles, next_tile

#: 1 bamboo 幺鸡: always a chicken.
CHICKEN = Tile(Suit.SOU, 1)
#: 8 dots 乌骨鸡: a chicken too under the house variant ``black_chicken``.
BLACK_CHICKEN = Tile(Suit.PIN, 8)
#: The 108 tiles' kinds (the candidates of a ready check).
SUIT_TILES: tuple[Tile, ...] = tuple(t for t in HAND_TILES if t.is_numbered)
#: Complete shapes: four sets and a pair, or seven pairs (a quad may count as two pairs:
#: dragon seven pairs 龙七对).
RULES = ShapeRules(standard=True, seven_pairs=True, quad_pairs=True)


# -- options ----------------------------------------------------------------------------------
class Combine(StrEnum):
    """How the hand patterns make the hand's points."""

    SUM = "sum"  # they add up (pure all pungs = 10 + 5); the default reading
    MAX = "max"  # only the best row of the seed's table (pure all pungs is its own row, 15)


class BeanPayer(StrEnum):
    """Who pays a bean (kong) at once."""

    ALL = "all"  # each of the three other players
    FEEDER = "feeder"  # only the player whose discard made the meld (its ``from``)


class WildChickenMode(StrEnum):
    """Which tiles the flipped indicator makes wild chickens."""

    NEXT = "next"  # the tile after it (9→1), the default reading
    FLIPPED_AND_NEXT = "flipped_and_next"  # the seed's "3 Bamboo → 3 and 4 Bamboo"


@dataclass(frozen=True)
class GuiyangOptions(HouseRules):
    combine: Combine = setting(
        Combine.SUM,
        "sum: the hand patterns add up (plain 1 only when nothing else applies); "
        "max: only the best row of the seed's table counts",
    )
    exposed_bean_payer: BeanPayer = setting(
        BeanPayer.ALL,
        "who pays an exposed kong's 1 point at once: all three others (the seed's table), "
        "or only the feeder who discarded the fourth tile (the seed's bean list)",
    )
    added_bean_payer: BeanPayer = setting(
        BeanPayer.ALL,
        "who pays an added kong's 3 points at once: all three others (the seed's bean list), "
        "or only the player whose discard made the pung (the seed's table)",
    )
    chickens_require_ready: bool = setting(
        False,
        "only the winner and ready seats (field 'ready') score chicken points; the others "
        "still pay",
    )
    wild_chicken: WildChickenMode = setting(
        WildChickenMode.NEXT,
        "next: the tile after the flipped indicator is the wild chicken; flipped_and_next: "
        "the flipped tile's kind too",
    )
    base_points: Annotated[int, Between(1, 1000)] = setting(
        1, "base score: multiplies the hand payout and the yellow-tile payout"
    )
    black_chicken: bool = setting(
        False,
        "乌骨鸡: the 8 dots are chickens too, 2 points each held (as Guiyang engines play); "
        "not golden, no rushing or responsibility chicken for them",
    )


# -- table fields -----------------------------------------------------------------------------
class KongKind(StrEnum):
    """The kind of another seat's kong (the values of a meld's ``kind``)."""

    KONG = "kong"
    ADDED_KONG = "added_kong"
    CONCEALED_KONG = "concealed_kong"

    @property
    def meld_kind(self) -> MeldKind:
        return MeldKind(self.value)


@dataclass(frozen=True)
class OtherKong:
    """A kong (bean) of a seat other than the winner; the winner's kongs are its melds."""

    seat: Seat = required("the seat that declared it")
    kind: KongKind = required("kong (exposed), added_kong or concealed_kong")
    tile: Tile = required("its tile, e.g. '5p'")
    fed_by: Seat | None = setting(
        None,
        "the seat whose discard completed an exposed kong, or made an added kong's pung "
        "(needed when its bean is paid by the feeder)",
    )


Seats4 = tuple[tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...], tuple[Tile, ...]]


@dataclass(frozen=True)
class GuiyangTable:
    indicator: Tile | None = setting(
        None,
        "the tile flipped after the win; the tile after it is the wild chicken "
        "(none after a last-tile win)",
        shown=True,
    )
    dealer_streak: Annotated[int, Between(1, 100)] = setting(
        1, "the dealer's n-th consecutive win multiplies the hand by n (a dealer win only)"
    )
    chickens: Seats4 = setting(
        ((), (), (), ()),
        "by seat: the chicken tiles (1s, wild chickens) each other seat holds in hand and "
        "melds; the winner's entry stays empty (read from the hand)",
        shown=True,
    )
    responsibility: Seat | None = setting(
        None,
        "责任鸡: the other seat that claimed a pung or kong of 1s (the winner's is read from "
        "its melds)",
    )
    rushing_chicken: Seat | None = setting(
        None, "冲锋鸡: the seat that discarded the hand's first 1s"
    )
    ready: tuple[Seat, ...] | None = setting(
        None,
        "the other seats that were ready when the hand ended (needed with chickens_require_ready)",
    )
    kongs: tuple[OtherKong, ...] = setting(
        (), "the kongs of the other seats, paid at once like the winner's"
    )


# -- rule tables ------------------------------------------------------------------------------
@dataclass(frozen=True)
class BeanRow:
    """A kind of kong and what it is worth (paid at once, and again inside the hand)."""

    code: str
    name: str
    points: int


BEANS: dict[MeldKind, BeanRow] = {
    MeldKind.CONCEALED_KONG: BeanRow("concealed_kong", "silent bean 闷豆 (concealed kong)", 2),
    MeldKind.ADDED_KONG: BeanRow("added_kong", "turning bean 转弯豆 (added kong)", 3),
    MeldKind.KONG: BeanRow("exposed_kong", "pointed bean 点豆 (exposed kong)", 1),
}


@dataclass(frozen=True)
class ChickenRow:
    """A way to score chicken points; 1-bamboo rows double when the chicken is golden."""

    code: str
    name: str
    points: int


HELD = ChickenRow("chicken", "chicken 鸡", 1)
RESPONSIBILITY = ChickenRow("responsibility_chicken", "responsibility chicken 责任鸡", 1)
RUSHING = ChickenRow("rushing_chicken", "rushing chicken 冲锋鸡", 2)
BLACK = ChickenRow("black_chicken", "black-bone chicken 乌骨鸡", 2)
#: 金鸡: when the wild chicken is 1 bamboo, every 1-bamboo payout doubles.
GOLDEN_FACTOR = 2


# -- hand patterns ----------------------------------------------------------------------------
#: One decomposition seen together with the melds: what the hand patterns look at.
Reading = HandView


def is_all_pungs(r: Reading) -> bool:
    """大对子: four pungs (or kongs) and a pair.

    >>> from hupai.scoring.decompose import counts
    >>> is_all_pungs(HandView.of(decompose(counts("111m555m777p999p55s"))[0]))
    True
    >>> is_all_pungs(HandView.of(decompose(counts("123m456m111p222p55s"))[0]))
    False
    """
    return shared.ALL_PUNGS.applies(r)


def is_seven_pairs(r: Reading) -> bool:
    """七对: seven pairs, none of them doubled by a quad."""
    return shared.SEVEN_PAIRS.applies(r)


def is_dragon_seven_pairs(r: Reading) -> bool:
    """龙七对: seven pairs where four alike count as two pairs (worth 20 instead of 10)."""
    return shared.BIG_SEVEN_PAIRS.applies(r)


def is_pure_suit(r: Reading) -> bool:
    """清一色: every tile, melds included, of one suit."""
    return shared.PURE_SUIT.applies(r)


@dataclass(frozen=True)
class HandPattern:
    """A row of the seed's points table."""

    code: str
    name: str
    points: int
    applies: Callable[[Reading], bool]

    @property
    def pattern(self) -> Pattern:
        return Pattern(self.code, self.name, self.points)


PLAIN = HandPattern("plain", "Standard win 平胡", 1, lambda r: True)
ALL_PUNGS = HandPattern("all_pungs", "All pungs 大对子", 5, is_all_pungs)
SEVEN_PAIRS = HandPattern("seven_pairs", "Seven pairs 七对", 10, is_seven_pairs)
DRAGON_SEVEN_PAIRS = HandPattern(
    "dragon_seven_pairs", "Dragon seven pairs 龙七对", 20, is_dragon_seven_pairs
)
PURE_SUIT = HandPattern("pure_suit", "Pure suit 清一色", 10, is_pure_suit)
#: The patterns that add up (plain counts only when none applies).
HAND_PATTERNS = (ALL_PUNGS, SEVEN_PAIRS, DRAGON_SEVEN_PAIRS, PURE_SUIT)
#: With ``combine=max``: the seed's own row for a pure suit in all pungs.
PURE_ALL_PUNGS = HandPattern(
    "pure_all_pungs",
    "Pure all pungs 清大对",
    15,
    lambda r: is_pure_suit(r) and is_all_pungs(r),
)


def hand_points(reading: Reading, combine: Combine) -> tuple[int, tuple[Pattern, ...]]:
    """The hand's points and the patterns that make them.

    >>> from hupai.scoring.decompose import counts
    >>> pure_pungs = HandView.of(decompose(counts("111p222p333p444p55p"), rules=RULES)[0])
    >>> hand_points(pure_pungs, Combine.SUM)[0], hand_points(pure_pungs, Combine.MAX)[0]
    (15, 15)
    >>> pure_dragon = HandView.of(decompose(counts("11223355779999p"), rules=RULES)[0])
    >>> hand_points(pure_dragon, Combine.SUM)[0], hand_points(pure_dragon, Combine.MAX)[0]
    (30, 20)
    """
    found = [p for p in HAND_PATTERNS if p.applies(reading)]
    if not found:
        return PLAIN.points, (PLAIN.pattern,)
    if combine is Combine.MAX:
        rows = [*found, PURE_ALL_PUNGS] if PURE_ALL_PUNGS.applies(reading) else found
        best = max(rows, key=lambda p: p.points)
        return best.points, (best.pattern,)
    return sum(p.points for p in found), tuple(p.pattern for p in found)


def best_hand(
    readings: Iterable[Decomposition], melds: Sequence[Meld], combine: Combine
) -> tuple[int, tuple[Pattern, ...], Decomposition] | None:
    """The reading worth the most points (the first of equals), or None without one."""
    best: tuple[int, tuple[Pattern, ...], Decomposition] | None = None
    for d in readings:
        points, patterns = hand_points(HandView.of(d, melds), combine)
        if best is None or points > best[0]:
            best = (points, patterns, d)
    return best


# -- chickens ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Chickens:
    """This hand's chicken tiles: 1 bamboo always, and the wild chickens (none when no tile
    was flipped).

    >>> c = Chickens.flipped(Tile.parse("3p"), WildChickenMode.NEXT)
    >>> format_tiles(c.tiles), c.golden
    ('4p1s', False)
    >>> g = Chickens.flipped(Tile.parse("9s"), WildChickenMode.NEXT)
    >>> g.golden, g.value(CHICKEN)
    (True, 2)
    >>> b = Chickens.flipped(None, WildChickenMode.NEXT, black=True)
    >>> format_tiles(b.tiles), b.value(BLACK_CHICKEN)
    ('8p1s', 2)
    """

    wild: frozenset[Tile] = frozenset()
    #: 乌骨鸡: the 8 dots are chickens (option ``black_chicken``)
    black: bool = False

    @staticmethod
    def flipped(indicator: Tile | None, mode: WildChickenMode, *, black: bool = False) -> Chickens:
        if indicator is None:
            return Chickens(black=black)
        wild = {next_tile(indicator)}
        if mode is WildChickenMode.FLIPPED_AND_NEXT:
            wild.add(indicator)
        return Chickens(frozenset(wild), black)

    def is_black(self, tile: Tile) -> bool:
        return self.black and tile == BLACK_CHICKEN

    @property
    def golden(self) -> bool:
        """金鸡: the wild chicken is 1 bamboo."""
        return CHICKEN in self.wild

    @property
    def tiles(self) -> tuple[Tile, ...]:
        black = {BLACK_CHICKEN} if self.black else set()
        return tuple(sorted(self.wild | {CHICKEN} | black))

    def is_chicken(self, tile: Tile) -> bool:
        return tile == CHICKEN or tile in self.wild or self.is_black(tile)

    def factor(self, tile: Tile) -> int:
        """×2 for a 1-bamboo payout when golden."""
        return GOLDEN_FACTOR if tile == CHICKEN and self.golden else 1

    def value(self, tile: Tile) -> int:
        """Points of one tile held (a tile both 1s and wild counts once, doubled; the 8 dots
        under ``black_chicken`` count once, as the black chicken)."""
        if self.is_black(tile):
            return BLACK.points
        return HELD.points * self.factor(tile) if self.is_chicken(tile) else 0


@dataclass(frozen=True)
class ChickenScore:
    """One seat's chicken points, row by row: (row, points, text)."""

    seat: int
    rows: tuple[tuple[ChickenRow, int, str], ...] = ()

    @property
    def points(self) -> int:
        return sum(points for _, points, _ in self.rows)


def seat_chickens(
    seat: int,
    held: Sequence[Tile],
    responsible: bool,
    rushing: bool,
    chickens: Chickens,
) -> ChickenScore:
    """A seat's chicken points: tiles held, a meld claimed on 1s, the first 1s discarded.

    >>> golden = Chickens(frozenset({CHICKEN}))
    >>> seat_chickens(2, [CHICKEN] * 3, True, True, golden).points  # 3×2 + 1×2 + 2×2
    12
    """
    rows: list[tuple[ChickenRow, int, str]] = []
    golden = " (golden ×2)" if chickens.golden else ""
    ordinary = [t for t in held if not chickens.is_black(t)]
    held_points = sum(chickens.value(t) for t in ordinary)
    if held_points:
        kept = format_tiles([t for t in ordinary if chickens.is_chicken(t)])
        rows.append((HELD, held_points, f"{HELD.name}: {kept} held"))
    black = [t for t in held if chickens.is_black(t)]
    if black:
        rows.append((BLACK, BLACK.points * len(black), f"{BLACK.name}: {format_tiles(black)} held"))
    if responsible:
        points = RESPONSIBILITY.points * chickens.factor(CHICKEN)
        rows.append((RESPONSIBILITY, points, f"{RESPONSIBILITY.name}: claimed 1s{golden}"))
    if rushing:
        points = RUSHING.points * chickens.factor(CHICKEN)
        rows.append((RUSHING, points, f"{RUSHING.name}: discarded the first 1s{golden}"))
    return ChickenScore(seat, tuple(rows))


# -- the city ---------------------------------------------------------------------------------
class Guiyang(City[GuiyangOptions, GuiyangTable]):
    name = "guiyang"
    # 003: yellow tile "the dealer remains the same"; "Dealer Continuous Win"; a
    # non-dealer's win is not stated (option succession=next|winner)
    succession = SuccessionRule(
        Succession.KEEPS,
        Succession.PASSES,
        Succession.KEEPS,
        other_win_option=True,
        streak_field="dealer_streak",
    )
    title = "Guiyang — Chicken Catching 贵阳捉鸡麻将"
    seed = "003"
    tile_set = TileSet.SUITS
    exposed_chows = False
    scores_draws = True
    options_type = GuiyangOptions
    table_type = GuiyangTable

    # -- input checks ----------------------------------------------------------------------
    def check(self, request: Request[GuiyangOptions, GuiyangTable]) -> None:
        hand, win, table, options = request.hand, request.win, request.table, request.options
        winner = win.winner
        if table.dealer_streak > 1 and not win.winner_is_dealer:
            raise ScoringInputError(
                "dealer_streak",
                f"{table.dealer_streak} given, but the winner (seat {winner}) is not the "
                "dealer (seat 0); the streak multiplies a dealer's win only",
            )
        if win.last_tile and table.indicator is not None:
            raise ScoringInputError(
                "indicator",
                f"'{table.indicator}' given, but the win took the last tile: no tile is left "
                "to flip, so there is no wild chicken",
            )
        chickens = Chickens.flipped(
            table.indicator, options.wild_chicken, black=options.black_chicken
        )
        for seat, tiles in enumerate(table.chickens):
            path = f"chickens[{seat}]"
            if seat == winner and tiles:
                raise ScoringInputError(
                    path,
                    f"'{format_tiles(tiles)}': seat {seat} is the winner, whose chickens are "
                    "read from the hand; leave it empty",
                )
            for tile in tiles:
                if not chickens.is_chicken(tile):
                    raise ScoringInputError(
                        path,
                        f"'{tile}' is not a chicken this hand (chickens: "
                        f"{format_tiles(chickens.tiles)})",
                    )
        if options.chickens_require_ready and table.ready is None:
            raise ScoringInputError(
                "ready",
                "required with options.chickens_require_ready: list the other seats that "
                "were ready (an empty list if none)",
            )
        for meld_index, meld in enumerate(hand.melds):
            self._check_feeder(f"melds[{meld_index}].from", meld.kind, meld.claimed_from, options)
        for i, kong in enumerate(table.kongs):
            self._check_other_kong(i, kong, request, chickens)
        self._check_kong_copies(request, chickens)
        self._responsible_seat(request)  # raises on a contradiction

    def _check_kong_copies(
        self, request: Request[GuiyangOptions, GuiyangTable], chickens: Chickens
    ) -> None:
        """At most four copies with the other seats' kongs counted (the core counted the
        hand, melds, indicator and ``chickens``, which hold any kong of a chicken)."""
        table = request.table
        seen = Counter(request.hand.all_tiles)
        seen.update(t for t in (table.indicator,) if t is not None)
        seen.update(t for tiles in table.chickens for t in tiles)
        for kong in table.kongs:
            if not chickens.is_chicken(kong.tile):
                seen[kong.tile] += 4
        for i, kong in enumerate(table.kongs):
            if seen[kong.tile] > 4:
                raise ScoringInputError(
                    f"kongs[{i}]",
                    f"{seen[kong.tile]} copies of {kong.tile} with the hand, melds, indicator, "
                    "chickens and kongs; a set has only 4",
                )

    def _check_feeder(
        self, path: str, kind: MeldKind, feeder: int | None, options: GuiyangOptions
    ) -> None:
        option = {
            MeldKind.KONG: ("exposed_bean_payer", options.exposed_bean_payer),
            MeldKind.ADDED_KONG: ("added_bean_payer", options.added_bean_payer),
        }.get(kind)
        if option is not None and option[1] is BeanPayer.FEEDER and feeder is None:
            raise ScoringInputError(
                path,
                f"required: options.{option[0]} is 'feeder', so the {BEANS[kind].name} is "
                "paid by the seat that fed it",
            )

    def _check_other_kong(
        self,
        index: int,
        kong: OtherKong,
        request: Request[GuiyangOptions, GuiyangTable],
        chickens: Chickens,
    ) -> None:
        path = f"kongs[{index}]"
        win, table = request.win, request.table
        if kong.seat == win.winner:
            raise ScoringInputError(
                f"{path}.seat", f"{kong.seat} is the winner, whose kongs are its melds"
            )
        if kong.tile.is_honor or kong.tile.is_flower:
            raise ScoringInputError(
                f"{path}.tile", f"'{kong.tile}' is not used in guiyang (108 tiles: three suits)"
            )
        if kong.kind is KongKind.CONCEALED_KONG and kong.fed_by is not None:
            raise ScoringInputError(f"{path}.fed_by", "a concealed kong is not claimed from anyone")
        if kong.fed_by is not None and kong.fed_by == kong.seat:
            raise ScoringInputError(f"{path}.fed_by", f"{kong.fed_by} is the kong's own seat")
        self._check_feeder(f"{path}.fed_by", kong.kind.meld_kind, kong.fed_by, request.options)
        if (
            win.method is WinMethod.ROBBED_KONG
            and kong.seat == win.discarder
            and kong.tile == request.hand.win_tile
        ):
            raise ScoringInputError(
                path,
                f"seat {kong.seat}'s kong of {kong.tile} was robbed: it was never made and "
                "pays nothing; leave it out",
            )
        if chickens.is_chicken(kong.tile):
            held = table.chickens[kong.seat].count(kong.tile)
            if held < 4:
                raise ScoringInputError(
                    f"chickens[{kong.seat}]",
                    f"seat {kong.seat} has a kong of {kong.tile} (a chicken) but only {held} "
                    f"listed; list all four",
                )

    def _responsible_seat(self, request: Request[GuiyangOptions, GuiyangTable]) -> int | None:
        """The one seat with a pung or kong claimed on 1s, if any (only four 1s exist, so
        at most one seat can claim a meld of them)."""
        win, table = request.win, request.table
        claimed: dict[int, str] = {}
        if any(m.tile == CHICKEN and m.kind.is_claimed for m in request.hand.melds):
            claimed[win.winner] = "melds"
        for i, kong in enumerate(table.kongs):
            if kong.tile == CHICKEN and kong.kind is not KongKind.CONCEALED_KONG:
                claimed.setdefault(kong.seat, f"kongs[{i}]")
        if table.responsibility is not None:
            seat = table.responsibility
            if seat == win.winner:
                raise ScoringInputError(
                    "responsibility",
                    f"{seat} is the winner, whose responsibility chicken is read from its melds",
                )
            held = table.chickens[seat].count(CHICKEN)
            if held < 3:
                raise ScoringInputError(
                    "responsibility",
                    f"seat {seat} claimed a meld of 1s, but chickens[{seat}] lists {held} "
                    "1s; list the meld's tiles too",
                )
            claimed.setdefault(seat, "responsibility")
        if len(claimed) > 1:
            where = ", ".join(f"seat {s} ({w})" for s, w in sorted(claimed.items()))
            raise ScoringInputError(
                "responsibility",
                f"melds of 1s claimed by {where}; there are only four 1s",
            )
        return next(iter(claimed), None)

    # -- a win -----------------------------------------------------------------------------
    def score(self, request: Request[GuiyangOptions, GuiyangTable]) -> Result:
        hand, win, table, options = request.hand, request.win, request.table, request.options
        best = best_hand(self.decompositions(hand, RULES), hand.melds, options.combine)
        if best is None:
            return Result.invalid(
                self.name,
                Reason.NOT_A_WINNING_HAND,
                f"'{hand}' is neither four sets and a pair nor seven pairs",
            )
        points, patterns, reading = best
        if win.method.has_discarder and not hand.kongs and points <= PLAIN.points:
            return Result.invalid(
                self.name,
                Reason.NEEDS_KONG_TO_WIN_ON_DISCARD,
                f"a {win.method.value} win needs a kong (bean) or a hand worth more than "
                f"{PLAIN.points} point; this hand is worth {points} and has no kong",
                decomposition=reading,
                patterns=patterns,
            )
        chickens = Chickens.flipped(
            table.indicator, options.wild_chicken, black=options.black_chicken
        )
        scores = self._chicken_scores(request, chickens)
        bean_points = sum(BEANS[m.kind].points for m in hand.kongs)
        streak = table.dealer_streak if win.winner_is_dealer else 1
        chicken_points = scores[win.winner].points
        per_payer = (points + chicken_points + bean_points) * streak * options.base_points

        # a discard: the discarder; a self-draw, and a robbed kong (the seed): all three
        payers = win.losers
        if win.method is WinMethod.DISCARD:
            assert win.discarder is not None
            payers = (win.discarder,)
        how = {
            WinMethod.SELF_DRAW: "self-draw",
            WinMethod.KONG_REPLACEMENT: "self-draw on a kong replacement",
            WinMethod.DISCARD: f"discard of seat {win.discarder}",
            WinMethod.ROBBED_KONG: f"robbed kong of seat {win.discarder}, all three pay",
        }[win.method]
        formula = f"({points} hand + {chicken_points} chickens + {bean_points} beans)"
        if streak > 1:
            formula += f" × {streak} dealer streak"
        if options.base_points > 1:
            formula += f" × {options.base_points} base"
        settlement = Settlement().each_pays(
            win.winner, per_payer, "hand", f"{how}: {formula} = {per_payer}", payers=payers
        )
        settlement += self._bean_settlement(request)
        settlement += chicken_settlement(scores)

        all_patterns = list(patterns)
        if chicken_points:
            all_patterns.append(Pattern("chickens", "Chicken points 鸡", chicken_points))
        if bean_points:
            all_patterns.append(Pattern("beans", "Bean points 豆", bean_points))
        if streak > 1:
            all_patterns.append(Pattern("dealer_streak", "Dealer streak 连庄", streak, "x"))
        waits = reading.waits(hand.win_tile)
        warnings: list[str] = []
        if table.indicator is None and not win.last_tile:
            warnings.append("no indicator given: no wild chicken counted (only 1s)")
        details: dict[str, Json] = {
            "hand_points": points,
            "chicken_points": [s.points for s in scores],
            "bean_points": bean_points,
            "dealer_streak": streak,
            "per_payer": per_payer,
            "wild_chickens": format_tiles(sorted(chickens.wild)),
            "golden_chicken": chickens.golden,
        }
        return Result(
            self.name,
            True,
            Reason.OK,
            decomposition=reading,
            wait=waits[0].kind if waits else None,
            patterns=tuple(all_patterns),
            settlement=settlement,
            warnings=tuple(warnings),
            details=details,
        )

    def _chicken_scores(
        self, request: Request[GuiyangOptions, GuiyangTable], chickens: Chickens
    ) -> tuple[ChickenScore, ...]:
        hand, win, table, options = request.hand, request.win, request.table, request.options
        responsible = self._responsible_seat(request)
        ready = set(table.ready or ())
        out: list[ChickenScore] = []
        for seat in range(4):
            if options.chickens_require_ready and seat != win.winner and seat not in ready:
                out.append(ChickenScore(seat))
                continue
            held = hand.all_tiles if seat == win.winner else table.chickens[seat]
            out.append(
                seat_chickens(
                    seat, held, responsible == seat, table.rushing_chicken == seat, chickens
                )
            )
        return tuple(out)

    def _bean_settlement(self, request: Request[GuiyangOptions, GuiyangTable]) -> Settlement:
        win, options = request.win, request.options
        kongs = [(win.winner, m.kind, m.tile, m.claimed_from) for m in request.hand.kongs]
        kongs += [(k.seat, k.kind.meld_kind, k.tile, k.fed_by) for k in request.table.kongs]
        payer_option = {
            MeldKind.KONG: options.exposed_bean_payer,
            MeldKind.ADDED_KONG: options.added_bean_payer,
            MeldKind.CONCEALED_KONG: BeanPayer.ALL,
        }
        out = Settlement()
        for seat, kind, tile, feeder in kongs:
            row = BEANS[kind]
            if payer_option[kind] is BeanPayer.FEEDER and feeder is not None:
                payers: tuple[int, ...] = (feeder,)
                text = f"{row.name} {tile} of seat {seat}: {row.points} from the feeder"
            else:
                payers = others(seat)
                text = f"{row.name} {tile} of seat {seat}: {row.points} from each"
            out = out.each_pays(seat, row.points, row.code, text, ItemGroup.INSTANT, payers)
        return out

    # -- a draw (黄牌) ---------------------------------------------------------------------
    def score_draw(self, request: DrawRequest[GuiyangOptions]) -> Result:
        """Yellow tile: every seat that is not ready pays each ready seat that seat's best
        hand points (× base); no beans, no chickens, no dealer streak."""
        options = request.options
        seats = [ready_hand(h, options.combine) for h in request.hands]
        ready = [s for s in seats if s.ready]
        not_ready = [s for s in seats if not s.ready]
        settlement = Settlement()
        if ready and not_ready:
            for payer in not_ready:
                for payee in ready:
                    amount = payee.points * options.base_points
                    settlement = settlement.pay(
                        payer.seat,
                        payee.seat,
                        amount,
                        "yellow_tile",
                        f"yellow tile 黄牌: seat {payer.seat} not ready pays ready seat "
                        f"{payee.seat} its hand ({_points(payee.points)}"
                        + (f" × {options.base_points} base" if options.base_points > 1 else "")
                        + ")",
                    )
        outcome = "some_ready" if ready and not_ready else "all_ready" if ready else "none_ready"
        message = {
            "some_ready": "seats {} not ready pay seats {} ready".format(
                ", ".join(str(s.seat) for s in not_ready), ", ".join(str(s.seat) for s in ready)
            ),
            "all_ready": "every seat is ready: a draw, nobody pays",
            "none_ready": "no seat is ready: a draw, nobody pays",
        }[outcome]
        details: dict[str, Json] = {
            "kind": "draw",
            "outcome": outcome,
            "seats": [s.to_json() for s in seats],
        }
        return Result(self.name, True, Reason.OK, message, settlement=settlement, details=details)


@dataclass(frozen=True)
class ReadyHand:
    """One seat at a draw: the tiles it waits on and its best hand over them."""

    seat: int
    waits: tuple[Tile, ...]
    points: int = 0
    patterns: tuple[Pattern, ...] = ()
    best_wait: Tile | None = None
    reading: Decomposition | None = None

    @property
    def ready(self) -> bool:
        return bool(self.waits)

    def to_json(self) -> dict[str, Json]:
        return {
            "seat": self.seat,
            "ready": self.ready,
            "waits": format_tiles(self.waits),
            "hand_points": self.points,
            "patterns": [p.code for p in self.patterns],
            "best_wait": None if self.best_wait is None else str(self.best_wait),
            "reading": None if self.reading is None else str(self.reading),
        }


def ready_hand(hand: SeatHand, combine: Combine) -> ReadyHand:
    """听牌 check of one seat (the core's ready check over the 108 tiles' kinds, a kind it
    already holds four of not counted) and its best hand points over the tiles it waits on.

    >>> from hupai.scoring.tiles import parse_tiles
    >>> r = ready_hand(SeatHand(1, parse_tiles("1112345678999p"), ()), Combine.SUM)
    >>> format_tiles(r.waits), r.points, str(r.best_wait)
    ('123456789p', 10, '1p')
    """
    counts = hand.concealed_counts()
    held = Counter(hand.all_tiles)
    candidates = [t for t in SUIT_TILES if held[t] < 4]
    waits = ready_tiles(counts, len(hand.melds), (), RULES, candidates)
    best: ReadyHand = ReadyHand(hand.seat, waits)
    for tile in waits:
        counts[tile.index] += 1
        found = best_hand(decompose(counts, len(hand.melds), (), RULES), hand.melds, combine)
        counts[tile.index] -= 1
        if found is not None and found[0] > best.points:
            best = ReadyHand(hand.seat, waits, found[0], found[1], tile, found[2])
    return best


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def chicken_settlement(scores: Sequence[ChickenScore]) -> Settlement:
    """Each seat is paid its chicken points by each other seat (row by row).

    >>> s = chicken_settlement([ChickenScore(0, ((HELD, 2, "held"),)), ChickenScore(1)])
    >>> s.deltas
    (6, -2, -2, -2)
    """
    out = Settlement()
    for score in scores:
        for row, points, text in score.rows:
            out = out.each_pays(
                score.seat, points, row.code, f"{text}: {points} from each", ItemGroup.INSTANT
            )
    return out


CITY = Guiyang()
