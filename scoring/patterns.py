"""Scoring patterns several cities share, written once: one small class per pattern.

A city keeps its own code, name and value for a pattern (they are its seed's table rows);
what is shared is the test of the tiles. Each pattern looks at a :class:`Shaped` hand — the
shape of a reading, its four sets (concealed groups and melds), its pairs and its suits —
built from a decomposition and the melds with :meth:`HandView.of` (or, for a city with its
own reading type such as Ningbo's, any object with those four properties).

>>> from hupai.scoring.decompose import ShapeRules, counts, decompose
>>> melds = [Meld.of("pung", "777m"), Meld.of("kong", "9999m")]
>>> pure = HandView.of(decompose(counts("111m234m55m"), 2)[0], melds)
>>> [p.code for p in PATTERNS if p.applies(pure)]
['pure_suit']
>>> quads = ShapeRules(quad_pairs=True)
>>> pairs = HandView.of(decompose(counts("11223355779999p"), rules=quads)[0])
>>> [p.code for p in PATTERNS if p.applies(pairs)]
['big_seven_pairs', 'pure_suit']
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

from hupai.scoring.decompose import Decomposition, Group, GroupKind, Shape, kong_group
from hupai.scoring.hand import Meld
from hupai.scoring.tiles import Suit


class Shaped(Protocol):
    """What the shared patterns look at."""

    @property
    def shape(self) -> Shape: ...

    @property
    def sets(self) -> tuple[Group, ...]: ...

    @property
    def pairs(self) -> tuple[Group, ...]: ...

    @property
    def suits(self) -> frozenset[Suit]: ...


def meld_group(meld: Meld) -> Group:
    """A meld as a group of the reading (a kong of any kind as a kong).

    >>> meld_group(Meld.of("concealed_kong", "5555p")).kind.value
    'kong'
    >>> meld_group(Meld.of("chow", "345s")).kind.value
    'chow'

    """
    if meld.is_kong:
        return kong_group(meld.tile)
    return Group(GroupKind.CHOW if meld.is_chow else GroupKind.PUNG, meld.tiles)


@dataclass(frozen=True, slots=True)
class HandView:
    """A reading seen together with the melds on the table."""

    shape: Shape
    sets: tuple[Group, ...]
    pairs: tuple[Group, ...]
    suits: frozenset[Suit]

    @staticmethod
    def of(reading: Decomposition, melds: Sequence[Meld] = ()) -> HandView:
        groups = tuple(meld_group(m) for m in melds)
        suits = frozenset(t.suit for t in reading.values) | frozenset(
            t.suit for g in groups for t in g.tiles
        )
        return HandView(reading.shape, reading.sets + groups, reading.pairs, suits)


class TilePattern(ABC):
    """One pattern of the tiles: a stable ``code``, its usual ``name`` and the test."""

    code: ClassVar[str]
    name: ClassVar[str]

    @abstractmethod
    def applies(self, hand: Shaped) -> bool:
        """Whether ``hand`` shows the pattern."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.code}>"


class SevenPairs(TilePattern):
    """七小对: seven *different* pairs (four alike is big seven pairs, not this).

    >>> from hupai.scoring.decompose import pair_of
    >>> SevenPairs().applies(HandView(Shape.SEVEN_PAIRS, (), tuple(pair_of(f"{r}m") for r in
    ...     range(1, 8)), frozenset({Suit.MAN})))
    True
    """

    code = "seven_pairs"
    name = "Seven pairs 七小对"

    def applies(self, hand: Shaped) -> bool:
        return hand.shape is Shape.SEVEN_PAIRS and len({p.tiles for p in hand.pairs}) == 7


class BigSevenPairs(TilePattern):
    """大七对 / 龙七对: seven pairs where four alike count as two of them."""

    code = "big_seven_pairs"
    name = "Big seven pairs 大七对"

    def applies(self, hand: Shaped) -> bool:
        return hand.shape is Shape.SEVEN_PAIRS and len({p.tiles for p in hand.pairs}) < 7


class PureSuit(TilePattern):
    """清一色: every tile, melds included, of one numbered suit (no honors)."""

    code = "pure_suit"
    name = "Pure suit 清一色"

    def applies(self, hand: Shaped) -> bool:
        return len(hand.suits) == 1 and Suit.HONOR not in hand.suits


class AllPungs(TilePattern):
    """碰碰胡 / 大对子: four pungs or kongs (melds included) and a pair."""

    code = "all_pungs"
    name = "All pungs 碰碰胡"

    def applies(self, hand: Shaped) -> bool:
        return (
            hand.shape is Shape.STANDARD
            and len(hand.sets) == 4
            and all(g.is_pung_or_kong for g in hand.sets)
        )


SEVEN_PAIRS = SevenPairs()
BIG_SEVEN_PAIRS = BigSevenPairs()
PURE_SUIT = PureSuit()
ALL_PUNGS = AllPungs()
#: Every shared pattern, in this order.
PATTERNS: tuple[TilePattern, ...] = (SEVEN_PAIRS, BIG_SEVEN_PAIRS, PURE_SUIT, ALL_PUNGS)
