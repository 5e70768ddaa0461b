"""House rules a table sets once, with the same names in every city's ``options``.

* ``cap`` 封顶 — the most one payer pays for one hand (0: no cap);
* ``dealer_double`` 庄家翻倍 — the dealer pays double for a hand it pays, and is paid double
  for a hand it wins (where the city does not double a dealer's win already).

Both act on the **hand** items of a settlement (the win itself, or a drawn hand's payments):
instant payments — kongs, spirits, chickens, paid whoever won — are neither doubled nor
capped. Each change is an item of its own (reason ``dealer_double`` or ``cap``) so that
players see why a number moved; the dealer double comes first, the cap has the last word.
Every item still moves points from one seat to another, so the settlement stays zero-sum.

A dealer (seat 0) who discards 6 into seat 2's hand, at a table playing both, capped at 10:

>>> s = Settlement().pay(0, 2, 6, "hand", "discard win")
>>> doubled = dealer_double(s)
>>> [(i.reason, i.payer, i.payee, i.amount) for i in doubled.items]
[('hand', 0, 2, 6), ('dealer_double', 0, 2, 6)]
>>> [(i.reason, i.payer, i.payee, i.amount) for i in capped(doubled, 10).items][-1]
('cap', 2, 0, 2)
>>> capped(doubled, 10).deltas
(-10, 0, 10, 0)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Annotated

from hupai.scoring.fields import Between, setting
from hupai.scoring.hand import DEALER
from hupai.scoring.settlement import Item, ItemGroup, Json, Result, Settlement

#: The largest cap a table may set (a cap above any real hand is no cap).
MAX_CAP = 1_000_000
SEAT_NAMES = ("East", "South", "West", "North")
#: Item reasons of the two house rules (stable codes).
DEALER_DOUBLE = "dealer_double"
CAP = "cap"


@dataclass(frozen=True)
class HouseRules:
    """The house rules every city's ``Options`` starts with (subclass it)."""

    cap: Annotated[int, Between(0, MAX_CAP)] = setting(
        0,
        "封顶 cap: the most one payer pays for one hand (the win, dealer double included; "
        "kong, spirit and chicken payments are not capped); 0: no cap",
    )
    dealer_double: bool = setting(
        False,
        "庄家翻倍: the dealer pays double for a hand it pays and is paid double for a hand it "
        "wins (where the city already doubles a dealer's win, only the paying side is added)",
    )

    @property
    def house_rules(self) -> dict[str, int | bool]:
        """The two house rules as JSON."""
        return {"cap": self.cap, "dealer_double": self.dealer_double}


def dealer_double(
    settlement: Settlement,
    *,
    win_already_doubled: bool = False,
    skip: Collection[str] = (),
) -> Settlement:
    """One ``dealer_double`` item per (payer, payee) for the hand items the dealer pays or
    is paid; ``win_already_doubled``: the city doubles a dealer's win itself, so only what
    the dealer pays is doubled; ``skip``: item reasons the city never doubles for the
    dealer (Shaanxi's Pao Zi).

    >>> s = Settlement().each_pays(0, 3, "hand", "self-draw")
    >>> dealer_double(s).deltas, dealer_double(s, win_already_doubled=True).deltas
    ((18, -6, -6, -6), (9, -3, -3, -3))
    >>> dealer_double(Settlement().pay(1, 2, 4, "hand", "win")).deltas  # no dealer involved
    (0, -4, 4, 0)
    """
    extra: dict[tuple[int, int], int] = defaultdict(int)
    for item in settlement.items:
        if item.group is not ItemGroup.HAND or item.reason in skip:
            continue
        if item.payer == DEALER or (item.payee == DEALER and not win_already_doubled):
            extra[(item.payer, item.payee)] += item.amount
    out = settlement
    for (payer, payee), amount in extra.items():
        if payer == DEALER:
            text = f"dealer double 庄家翻倍: the dealer ({SEAT_NAMES[payer]}) pays {amount} more"
        else:
            text = (
                f"dealer double 庄家翻倍: the dealer wins, {amount} more from {SEAT_NAMES[payer]}"
            )
        out = out.pay(payer, payee, amount, DEALER_DOUBLE, text)
    return out


def capped(settlement: Settlement, cap: int) -> Settlement:
    """What each payer pays each payee for the hand, brought down to ``cap`` by an item of
    its own (reason ``cap``: the payee hands back what is over it). 0: no cap.

    >>> s = Settlement().each_pays(1, {0: 40, 2: 8, 3: 20}, "hand", "win")
    >>> capped(s, 16).deltas
    (-16, 40, -8, -16)
    >>> capped(s, 0) == s
    True
    """
    if cap <= 0:
        return settlement
    paid: dict[tuple[int, int], int] = defaultdict(int)
    for item in settlement.items:
        if item.group is ItemGroup.HAND:
            paid[(item.payer, item.payee)] += item.amount
    out = settlement
    for (payer, payee), total in paid.items():
        if total > cap:
            text = (
                f"cap 封顶 {cap}: {SEAT_NAMES[payer]} owes {total} for the hand, pays {cap}; "
                f"{total - cap} back"
            )
            out = Settlement((*out.items, Item(CAP, text, payee, payer, total - cap)))
    return out


def apply_house_rules(
    result: Result,
    rules: object,
    *,
    win_already_doubled: bool = False,
    skip: Collection[str] = (),
) -> Result:
    """``result`` with the table's house rules applied (a result that does not win, or
    options that are not :class:`HouseRules`, come back unchanged). When a rule is on,
    ``details["house_rules"]`` says which."""
    if not result.valid or not isinstance(rules, HouseRules):
        return result
    if not rules.cap and not rules.dealer_double:
        return result
    settlement = result.settlement
    if rules.dealer_double:
        settlement = dealer_double(settlement, win_already_doubled=win_already_doubled, skip=skip)
    settlement = capped(settlement, rules.cap)
    house: dict[str, Json] = dict(rules.house_rules)
    details: dict[str, Json] = {**result.details, "house_rules": house}
    return replace(result, settlement=settlement, details=details)
