"""Shaanxi 陕西麻将 (seed 004): base 3, special hands, dealer double, Pao Zi antes, kong payouts.

Read as ../shared/rules/INTERPRETATION.md fixes it (docs/rules/shaanxi.md quotes the seed):

* hand payout per payer = 3 × win type (discard 1, self-draw 2, robbed kong 1) × dealer 2 ×
  special hand (seven pairs 2, all unrelated 2, knitted dragon 3, thirteen wonders 4);
  self-draw: each of three pays, discard: the discarder, robbed kong: the kong's declarer;
* Pao Zi 炮子: per paying seat, (payer's ante + winner's ante) × win type × 3, its own item,
  not doubled for the dealer nor multiplied by a special hand;
* kong instant payouts: concealed 6 from each other, exposed 6 from the discarder, added 3
  from each other.

The seed's two checks:

>>> hand_payment(BASE_SCORE, WIN_TYPES[WinMethod.DISCARD], dealer_multiplier(0), None)
6
>>> paozi_payment(BASE_SCORE, WIN_TYPES[WinMethod.DISCARD], payer_ante=3, winner_ante=2)
15
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from hupai.scoring.city import City, Request, TileSet
from hupai.scoring.decompose import Decomposition, Shape, ShapeRules
from hupai.scoring.fields import Between, ScoringInputError, Seat, required, setting
from hupai.scoring.hand import DEALER, Hand, MeldKind, WinContext, WinMethod, others
from hupai.scoring.house import HouseRules
from hupai.scoring.patterns import PURE_SUIT, HandView
from hupai.scoring.settlement import ItemGroup, Pattern, Reason, Result, Settlement
from hupai.scoring.succession import Succession, SuccessionRule
from hupai.scoring.tiles import Tile

# -- rule values ------------------------------------------------------------------------------
#: "The Base Score for Shaanxi Mahjong is 3." (default of the ``base_score`` option)
BASE_SCORE = 3
#: "If the dealer wins, all payouts are doubled." (the hand only: INTERPRETATION.md)
DEALER_MULTIPLIER = 2
#: Pao Zi antes run "from 0 to 4".
MAX_ANTE = 4
#: House variant ``pure_suit_double`` (not in the seed): a pure suit 清一色 doubles the hand.
PURE_SUIT_MULTIPLIER = 2
#: House variant ``discarder_pays_all`` 点炮包三家: the discarder pays the three shares.
SHARES_OF_ALL = 3


@dataclass(frozen=True, slots=True)
class WinType:
    """One row of the win-type column of the seed's payout table."""

    code: str
    name: str
    multiplier: int


WIN_TYPES: Mapping[WinMethod, WinType] = {
    WinMethod.DISCARD: WinType("claimed_discard", "Claimed discard 放胡", 1),
    WinMethod.SELF_DRAW: WinType("self_draw", "Self-draw 自摸", 2),
    # The seed is silent on 杠上开花: the winner drew the tile, so it is a self-draw.
    WinMethod.KONG_REPLACEMENT: WinType("self_draw", "Self-draw 自摸 (kong replacement)", 2),
    WinMethod.ROBBED_KONG: WinType("robbing_the_kong", "Robbing the kong 抢杠", 1),
}


@dataclass(frozen=True, slots=True)
class SpecialHand:
    """A hand outside the four-sets-and-a-pair rule, with its multiplier."""

    code: str
    name: str
    multiplier: int


SPECIAL_HANDS: Mapping[Shape, SpecialHand] = {
    Shape.SEVEN_PAIRS: SpecialHand("seven_pairs", "Seven pairs 七对", 2),
    Shape.ALL_UNRELATED: SpecialHand("all_unrelated", "All unrelated 全不靠", 2),
    Shape.KNITTED_DRAGON: SpecialHand("knitted_dragon", "Knitted dragon 组合龙", 3),
    Shape.THIRTEEN_ORPHANS: SpecialHand("thirteen_wonders", "Thirteen wonders 十三幺", 4),
}

#: The shapes that win: seven *different* pairs (a quad is not two pairs), no honor chows.
SHAPES = ShapeRules(
    standard=True,
    seven_pairs=True,
    quad_pairs=False,
    thirteen_orphans=True,
    all_unrelated=True,
    knitted_dragon=True,
)


class KongKind(StrEnum):
    """A declared kong; the values are the meld notation of the request."""

    CONCEALED = "concealed_kong"  # 暗杠
    EXPOSED = "kong"  # 放杠, completed with a discard
    ADDED = "added_kong"  # 明杠, a self-drawn fourth tile added to an exposed pung


class KongPayers(StrEnum):
    EACH_OTHER = "each_other"
    DISCARDER = "discarder"


@dataclass(frozen=True, slots=True)
class KongPayout:
    """One row of the seed's instant payout table: base score × ``factor`` from ``payers``."""

    reason: str
    name: str
    factor: int
    payers: KongPayers


KONG_PAYOUTS: Mapping[KongKind, KongPayout] = {
    KongKind.CONCEALED: KongPayout(
        "concealed_kong", "concealed kong 暗杠", 2, KongPayers.EACH_OTHER
    ),
    KongKind.EXPOSED: KongPayout("exposed_kong", "exposed kong 放杠", 2, KongPayers.DISCARDER),
    KongKind.ADDED: KongPayout("added_kong", "added kong 明杠", 1, KongPayers.EACH_OTHER),
}

_MELD_KONG = {
    MeldKind.CONCEALED_KONG: KongKind.CONCEALED,
    MeldKind.KONG: KongKind.EXPOSED,
    MeldKind.ADDED_KONG: KongKind.ADDED,
}

Ante = Annotated[int, Between(0, MAX_ANTE)]


# -- options and table fields -----------------------------------------------------------------
@dataclass(frozen=True)
class ShaanxiOptions(HouseRules):
    """INTERPRETATION.md names no option for Shaanxi; the base score is the one figure the
    seed writes every formula with ("Base Score x 2"), so a table may change it."""

    base_score: Annotated[int, Between(1, 1000)] = setting(
        BASE_SCORE, "base score: the hand, Pao Zi and kong payouts are multiples of it"
    )
    pure_suit_double: bool = setting(
        False,
        "清一色翻倍: a hand of one suit (no honors, melds included) doubles the hand payment, "
        "a special hand's multiplier too; Pao Zi and kongs are not doubled",
    )
    discarder_pays_all: bool = setting(
        False,
        "点炮包三家: on a discard (or robbed kong) the discarder pays the hand for all three "
        "seats (× 3), as Shaanxi rooms without Pao Zi play; its own Pao Zi is unchanged",
    )


@dataclass(frozen=True)
class DeclaredKong:
    """A kong another seat declared this hand (paid at once, whoever wins)."""

    seat: Seat = required("the seat that declared it (the winner's kongs are its melds)")
    kind: KongKind = required("concealed_kong, kong (exposed, on a discard) or added_kong")
    tile: Tile | None = setting(None, "its tile, if known (counted against the four copies)")
    discarder: Seat | None = setting(None, "exposed kong only: the seat whose discard made it")


@dataclass(frozen=True)
class ShaanxiTable:
    paozi: tuple[Ante, Ante, Ante, Ante] = setting(
        (0, 0, 0, 0), "Pao Zi 炮子: each seat's pre-round ante, 0-4, by seat"
    )
    kongs: tuple[DeclaredKong, ...] = setting(
        (), "kongs declared by the other seats this hand (instant payouts)"
    )


# -- scoring patterns -------------------------------------------------------------------------
def dealer_multiplier(winner: int) -> int:
    """×2 when the dealer wins, else ×1.

    >>> dealer_multiplier(0), dealer_multiplier(3)
    (2, 1)
    """
    return DEALER_MULTIPLIER if winner == DEALER else 1


def special_hand(reading: Decomposition) -> SpecialHand | None:
    """The special hand a reading is, or None for four sets and a pair."""
    return SPECIAL_HANDS.get(reading.shape)


def hand_payment(
    base: int, win_type: WinType, dealer: int, special: SpecialHand | None, pure_suit: int = 1
) -> int:
    """What each payer pays for the hand itself (``pure_suit``: the house variant's ×2).

    >>> hand_payment(3, WIN_TYPES[WinMethod.SELF_DRAW], 2, SPECIAL_HANDS[Shape.SEVEN_PAIRS])
    24
    >>> hand_payment(3, WIN_TYPES[WinMethod.DISCARD], 1, None, pure_suit=PURE_SUIT_MULTIPLIER)
    6
    """
    return base * win_type.multiplier * dealer * (special.multiplier if special else 1) * pure_suit


def paozi_payment(base: int, win_type: WinType, *, payer_ante: int, winner_ante: int) -> int:
    """One paying seat's Pao Zi: (its ante + the winner's) × win type × base; never dealer
    doubled.

    >>> paozi_payment(3, WIN_TYPES[WinMethod.SELF_DRAW], payer_ante=0, winner_ante=4)
    24
    """
    return (payer_ante + winner_ante) * win_type.multiplier * base


def hand_payers(win: WinContext) -> tuple[int, ...]:
    """Self-draw: each of three; discard: the discarder; robbed kong: the kong's declarer.

    >>> hand_payers(WinContext(WinMethod.SELF_DRAW, 1))
    (0, 2, 3)
    >>> hand_payers(WinContext(WinMethod.ROBBED_KONG, 1, discarder=3))
    (3,)
    """
    if win.is_self_drawn:
        return others(win.winner)
    assert win.discarder is not None
    return (win.discarder,)


def kong_settlement(
    base: int, seat: int, kind: KongKind, discarder: int | None, tile: Tile | None
) -> Settlement:
    """The instant payout of one kong declared by ``seat``.

    >>> kong_settlement(3, 2, KongKind.EXPOSED, 0, None).deltas
    (-6, 0, 6, 0)
    >>> kong_settlement(3, 2, KongKind.ADDED, None, None).deltas
    (-3, -3, 9, -3)
    """
    row = KONG_PAYOUTS[kind]
    amount = base * row.factor
    what = f"{row.name}{f' {tile}' if tile else ''} by seat {seat}"
    if row.payers is KongPayers.DISCARDER:
        assert discarder is not None
        text = f"{what}: base {base} × {row.factor} from the discarder"
        return Settlement().pay(discarder, seat, amount, row.reason, text, ItemGroup.INSTANT)
    text = f"{what}: base {base} × {row.factor} from each other seat"
    return Settlement().each_pays(seat, amount, row.reason, text, ItemGroup.INSTANT)


# -- the city ---------------------------------------------------------------------------------
class Shaanxi(City[ShaanxiOptions, ShaanxiTable]):
    name = "shaanxi"
    # 004: "if the dealer wins or the game results in a draw, the same player remains the
    # dealer … passes to the next player"
    succession = SuccessionRule(Succession.KEEPS, Succession.PASSES, Succession.KEEPS)
    title = "Shaanxi — Pao Zi antes 陕西麻将"
    seed = "004"
    tile_set = TileSet.STANDARD
    exposed_chows = True
    options_type = ShaanxiOptions
    table_type = ShaanxiTable
    # 004: "If the dealer wins, all payouts are doubled" (the hand, not Pao Zi): the house
    # rule dealer_double only adds the dealer paying double
    dealer_win_doubled = True
    dealer_double_skips = frozenset({"paozi"})

    def check(self, request: Request[ShaanxiOptions, ShaanxiTable]) -> None:
        hand, win, table = request.hand, request.win, request.table
        for i, meld in enumerate(hand.melds):
            if meld.kind is MeldKind.KONG and meld.claimed_from is None:
                raise ScoringInputError(
                    f"melds[{i}].from",
                    f"required for the exposed kong '{meld.tile}': its discarder pays the "
                    "instant payout",
                )
        per_seat: Counter[int] = Counter(len(hand.kongs) * [win.winner])
        for i, kong in enumerate(table.kongs):
            path = f"kongs[{i}]"
            if kong.seat == win.winner:
                raise ScoringInputError(
                    f"{path}.seat",
                    f"{kong.seat} is the winner; list the winner's kongs under 'melds'",
                )
            if kong.kind is KongKind.EXPOSED:
                if kong.discarder is None:
                    raise ScoringInputError(
                        f"{path}.discarder", "required for an exposed kong (the discarder pays)"
                    )
                if kong.discarder == kong.seat:
                    raise ScoringInputError(
                        f"{path}.discarder",
                        f"{kong.discarder} is the kong's own seat; a player cannot feed himself",
                    )
            elif kong.discarder is not None:
                raise ScoringInputError(
                    f"{path}.discarder",
                    f"{kong.discarder} given, but only an exposed kong ('kong') has a discarder "
                    f"('{kong.kind.value}' is paid by each other seat)",
                )
            per_seat[kong.seat] += 1
            if per_seat[kong.seat] > 4:
                raise ScoringInputError(
                    f"{path}.seat",
                    f"seat {kong.seat} has more than 4 kongs; a hand has at most 4",
                )
        _check_copies(hand, win, table)

    def score(self, request: Request[ShaanxiOptions, ShaanxiTable]) -> Result:
        hand, win = request.hand, request.win
        readings = self.decompositions(hand, SHAPES)
        if not readings:
            return Result.invalid(
                self.name,
                Reason.NOT_A_WINNING_HAND,
                "not four sets and a pair, seven different pairs, all unrelated, a knitted "
                "dragon or thirteen wonders",
                warnings=_warnings(win),
            )
        kongs = self._kong_payouts(request)
        scored = [self._score_reading(request, d, kongs, len(readings)) for d in readings]
        return max(scored, key=lambda r: r.deltas[win.winner])

    # -- pieces ----------------------------------------------------------------------------
    def _kong_payouts(self, request: Request[ShaanxiOptions, ShaanxiTable]) -> Settlement:
        base = request.options.base_score
        out = Settlement()
        for meld in request.hand.kongs:
            out += kong_settlement(
                base, request.win.winner, _MELD_KONG[meld.kind], meld.claimed_from, meld.tile
            )
        for kong in request.table.kongs:
            out += kong_settlement(base, kong.seat, kong.kind, kong.discarder, kong.tile)
        return out

    def _score_reading(
        self,
        request: Request[ShaanxiOptions, ShaanxiTable],
        reading: Decomposition,
        kongs: Settlement,
        n_readings: int,
    ) -> Result:
        hand, win, table = request.hand, request.win, request.table
        base = request.options.base_score
        win_type = WIN_TYPES[win.method]
        dealer = dealer_multiplier(win.winner)
        special = special_hand(reading)

        patterns = [
            Pattern("base", "Base score", base),
            Pattern(win_type.code, win_type.name, win_type.multiplier, "x"),
        ]
        factors = [f"base {base}", f"{win_type.code.replace('_', ' ')} {win_type.multiplier}"]
        if dealer > 1:
            patterns.append(Pattern("dealer_win", "Dealer win 庄家翻倍", dealer, "x"))
            factors.append(f"dealer {dealer}")
        if special is not None:
            patterns.append(Pattern(special.code, special.name, special.multiplier, "x"))
            factors.append(f"{special.code.replace('_', ' ')} {special.multiplier}")
        pure = 1
        if request.options.pure_suit_double and PURE_SUIT.applies(HandView.of(reading, hand.melds)):
            pure = PURE_SUIT_MULTIPLIER
            patterns.append(Pattern(PURE_SUIT.code, "Pure suit 清一色 (house rule)", pure, "x"))
            factors.append(f"pure suit {pure}")

        amount = hand_payment(base, win_type, dealer, special, pure)
        payers = hand_payers(win)
        text = f"{win_type.name}: {' × '.join(factors)} = {amount}"
        if request.options.discarder_pays_all and win.method.has_discarder:
            patterns.append(
                Pattern(
                    "discarder_pays_all", "Discarder pays for all 点炮包三家", SHARES_OF_ALL, "x"
                )
            )
            amount *= SHARES_OF_ALL
            text += f"; × {SHARES_OF_ALL}, the discarder pays for all three (点炮包三家)"
        settlement = Settlement().each_pays(win.winner, amount, "hand", text, payers=payers)
        winner_ante = table.paozi[win.winner]
        paozi: dict[str, int] = {}
        for payer in payers:
            ante = table.paozi[payer]
            value = paozi_payment(base, win_type, payer_ante=ante, winner_ante=winner_ante)
            paozi[str(payer)] = value
            settlement = settlement.pay(
                payer,
                win.winner,
                value,
                "paozi",
                f"Pao Zi 炮子: (ante {ante} + winner's {winner_ante}) × {factors[1]} × "
                f"base {base} = {value}",
            )
        settlement += kongs

        waits = reading.waits(hand.win_tile)
        return Result(
            self.name,
            True,
            Reason.OK,
            decomposition=reading,
            wait=waits[0].kind if waits else None,
            patterns=tuple(patterns),
            settlement=settlement,
            warnings=_warnings(win),
            details={
                "hand_per_payer": amount,
                "payers": list(payers),
                "paozi_by_payer": dict(paozi),
                "special_hand": special.code if special else None,
                "readings": n_readings,
            },
        )


def _check_copies(hand: Hand, win: WinContext, table: ShaanxiTable) -> None:
    """No kind more than four times across the hand, the other seats' kongs and, on a robbed
    kong, the robbed pung (whose three copies stay on the table)."""
    seen: Counter[Tile] = Counter(hand.all_tiles)
    if win.method is WinMethod.ROBBED_KONG and seen[hand.win_tile] > 1:
        raise ScoringInputError(
            "win_tile",
            f"'{hand.win_tile}' was robbed from an added kong, whose pung holds the other three "
            f"copies; the hand holds {seen[hand.win_tile]}",
        )
    for i, kong in enumerate(table.kongs):
        if kong.tile is None:
            continue
        seen[kong.tile] += 4
        if seen[kong.tile] > 4:
            raise ScoringInputError(
                f"kongs[{i}].tile",
                f"'{kong.tile}': a kong takes all four copies, but the hand or another kong "
                "holds one too",
            )
        if win.method is WinMethod.ROBBED_KONG and kong.tile == hand.win_tile:
            raise ScoringInputError(
                f"kongs[{i}].tile",
                f"'{kong.tile}' is the robbed tile; its other copies are in the robbed pung",
            )


def _warnings(win: WinContext) -> tuple[str, ...]:
    out: list[str] = []
    if win.first_turn:
        out.append("first_turn: Shaanxi has no heavenly/earthly hand; ignored")
    if win.last_tile:
        out.append("last_tile: Shaanxi pays nothing for the last tile; ignored")
    return tuple(out)


CITY = Shaanxi()
