"""Who pays whom: itemised, zero-sum settlements and the result of scoring a hand.

Every amount moves from a payer to a payee, so the four deltas always sum to zero.

>>> s = Settlement().each_pays(0, 3, "self_draw", "self-draw, 3 from each")
>>> s = s.pay(2, 0, 1, "exposed_kong", "exposed kong 5m", ItemGroup.INSTANT)
>>> s.deltas
(10, -3, -4, -3)
>>> s.scaled(2, payer=1).deltas
(13, -6, -4, -3)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TypeAlias

from hupai.scoring.decompose import Decomposition, WaitKind
from hupai.scoring.hand import SEATS, others

#: A value that JSON can carry (for ``Result.details``).
Json: TypeAlias = str | int | float | bool | list["Json"] | dict[str, "Json"] | None


class ItemGroup(StrEnum):
    """``hand``: the win itself; ``instant``: kong payouts and the table-wide spirit and
    chicken settlements, paid whoever won."""

    HAND = "hand"
    INSTANT = "instant"


class Reason(StrEnum):
    """Stable result codes shared by the cities (a city may add its own strings)."""

    OK = "ok"
    NOT_A_WINNING_HAND = "not_a_winning_hand"
    BELOW_MINIMUM = "below_minimum"
    NEEDS_KONG_TO_WIN_ON_DISCARD = "needs_kong_to_win_on_discard"
    SEALED_PLAYER_CANNOT_WIN = "sealed_player_cannot_win"


@dataclass(frozen=True, slots=True)
class Item:
    """One payment: ``payer`` gives ``amount`` (> 0) to ``payee``."""

    reason: str  # stable code, e.g. "hand", "concealed_kong", "spirits"
    text: str  # for people, e.g. "concealed kong 5m: 2 from each"
    payer: int
    payee: int
    amount: int
    group: ItemGroup = ItemGroup.HAND

    def __post_init__(self) -> None:
        if self.payer not in SEATS or self.payee not in SEATS or self.payer == self.payee:
            raise ValueError(f"payment from seat {self.payer} to seat {self.payee}")
        if self.amount <= 0:
            raise ValueError(f"payment of {self.amount} ({self.reason}); amounts are positive")


Amount = int | Mapping[int, int] | Callable[[int], int]


@dataclass(frozen=True, slots=True)
class Settlement:
    """An immutable list of items; every method returns a new settlement."""

    items: tuple[Item, ...] = ()

    # -- building ----------------------------------------------------------------------
    def pay(
        self,
        payer: int,
        payee: int,
        amount: int,
        reason: str,
        text: str,
        group: ItemGroup = ItemGroup.HAND,
    ) -> Settlement:
        """Add one payment (nothing when ``amount`` is 0)."""
        if amount == 0:
            return self
        return Settlement((*self.items, Item(reason, text, payer, payee, amount, group)))

    def each_pays(
        self,
        payee: int,
        amount: Amount,
        reason: str,
        text: str,
        group: ItemGroup = ItemGroup.HAND,
        payers: Iterable[int] | None = None,
    ) -> Settlement:
        """Each of ``payers`` (default: the three other seats) pays ``payee``. ``amount``
        is one figure, a mapping seat → amount, or a function of the payer's seat.

        >>> Settlement().each_pays(1, {0: 4, 2: 2, 3: 2}, "hand", "win").deltas
        (-4, 8, -2, -2)
        """
        out = self
        for payer in others(payee) if payers is None else payers:
            value = _amount_for(amount, payer)
            out = out.pay(payer, payee, value, reason, text, group)
        return out

    def pays_each(
        self,
        payer: int,
        amount: Amount,
        reason: str,
        text: str,
        group: ItemGroup = ItemGroup.HAND,
        payees: Iterable[int] | None = None,
    ) -> Settlement:
        """``payer`` pays each of ``payees`` (default: the three other seats)."""
        out = self
        for payee in others(payer) if payees is None else payees:
            out = out.pay(payer, payee, _amount_for(amount, payee), reason, text, group)
        return out

    def __add__(self, other: Settlement) -> Settlement:
        return Settlement(self.items + other.items)

    def scaled(
        self,
        factor: int,
        *,
        payer: int | None = None,
        group: ItemGroup | None = None,
        reason: str | None = None,
    ) -> Settlement:
        """Multiply the items that match every filter given (payer, group, reason)."""

        def hit(item: Item) -> bool:
            return (
                (payer is None or item.payer == payer)
                and (group is None or item.group is group)
                and (reason is None or item.reason == reason)
            )

        return Settlement(
            tuple(replace(i, amount=i.amount * factor) if hit(i) else i for i in self.items)
        )

    # -- reading -----------------------------------------------------------------------
    @property
    def deltas(self) -> tuple[int, int, int, int]:
        """Net gain of each seat; sums to zero."""
        d = [0, 0, 0, 0]
        for item in self.items:
            d[item.payer] -= item.amount
            d[item.payee] += item.amount
        return (d[0], d[1], d[2], d[3])

    def total(
        self, *, payer: int | None = None, payee: int | None = None, group: ItemGroup | None = None
    ) -> int:
        """Sum of the amounts of the items that match the filters."""
        return sum(
            i.amount
            for i in self.items
            if (payer is None or i.payer == payer)
            and (payee is None or i.payee == payee)
            and (group is None or i.group is group)
        )

    def gain(self, seat: int) -> int:
        """Net gain of ``seat`` (its delta)."""
        return self.deltas[seat]


def _amount_for(amount: Amount, seat: int) -> int:
    if isinstance(amount, int):
        return amount
    if callable(amount):
        return amount(seat)
    return amount.get(seat, 0)


@dataclass(frozen=True, slots=True)
class Pattern:
    """A scoring element the hand earned: ``value`` in ``unit`` (points, tai, ×…)."""

    code: str  # stable, e.g. "seven_pairs"
    name: str  # for people, e.g. "Seven pairs 七小对"
    value: int
    unit: str = "points"  # "points", "tai", "x" (a multiplier) …


@dataclass(frozen=True)
class Result:
    """The outcome of scoring one request.

    A legal request that is not a valid win has ``valid`` False, a stable ``reason`` code and
    a ``message``; its settlement is usually empty. ``decomposition`` is the reading the
    score uses (the one that pays the winner most), with the ``wait`` it was read with.
    """

    city: str
    valid: bool
    reason: str
    message: str = ""
    decomposition: Decomposition | None = None
    wait: WaitKind | None = None
    patterns: tuple[Pattern, ...] = ()
    settlement: Settlement = field(default_factory=Settlement)
    warnings: tuple[str, ...] = ()
    #: city-specific facts worth showing (fishing multipliers, spirit scores …), JSON-ready
    details: Mapping[str, Json] = field(default_factory=dict)

    @property
    def items(self) -> tuple[Item, ...]:
        return self.settlement.items

    @property
    def deltas(self) -> tuple[int, int, int, int]:
        return self.settlement.deltas

    @staticmethod
    def invalid(
        city: str,
        reason: str,
        message: str,
        *,
        decomposition: Decomposition | None = None,
        patterns: tuple[Pattern, ...] = (),
        warnings: tuple[str, ...] = (),
        details: Mapping[str, Json] | None = None,
    ) -> Result:
        """A legal hand that does not win: stable ``reason`` code, human ``message``.

        >>> Result.invalid("toy", Reason.NOT_A_WINNING_HAND, "no reading").deltas
        (0, 0, 0, 0)
        """
        return Result(
            city,
            False,
            str(reason),
            message,
            decomposition,
            None,
            patterns,
            Settlement(),
            warnings,
            dict(details or {}),
        )
