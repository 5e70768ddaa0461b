"""A winning hand and how it was won: melds, the hand, the win context, seats.

Seats are 0..3 in turn order starting at the dealer (0 = dealer = East, 1 = South, who
plays next, 2 = West, 3 = North); see ../shared/rules/INTERPRETATION.md.

>>> hand = Hand.of("234m567p55s", melds=[Meld.of("pung", "777z", claimed_from=2)], win_tile="5s")
>>> hand.concealed_count, len(hand.melds), str(hand.win_tile)
(8, 1, '5s')
>>> hand.is_concealed, format_tiles(hand.all_tiles)
(False, '234m567p55s777z')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from hupai.scoring.quoting import quote
from hupai.scoring.tiles import KINDS, Suit, Tile, format_tiles, parse_tiles

#: The four seats, in turn order; seat 0 is the dealer.
SEATS: tuple[int, ...] = (0, 1, 2, 3)
DEALER = 0

EAST = Tile(Suit.HONOR, 1)


def others(seat: int) -> tuple[int, ...]:
    """The three seats other than ``seat``, in turn order.

    >>> others(2)
    (0, 1, 3)
    """
    return tuple(s for s in SEATS if s != seat)


def seat_wind(seat: int) -> Tile:
    """The wind tile of a seat: 0 → East ``1z`` … 3 → North ``4z``.

    >>> str(seat_wind(3))
    '4z'
    """
    return Tile(Suit.HONOR, seat + 1)


def previous_seat(seat: int) -> int:
    """The seat that plays just before ``seat`` (the only one a chow can be claimed from).

    >>> previous_seat(0), previous_seat(2)
    (3, 1)
    """
    return (seat + 3) % 4


class MeldKind(StrEnum):
    """A set on the table. Values are the request notation."""

    CHOW = "chow"  # claimed sequence
    PUNG = "pung"  # claimed triplet
    KONG = "kong"  # exposed kong 明杠, completed with a discard
    ADDED_KONG = "added_kong"  # 补杠/加杠: a claimed pung plus the self-drawn fourth tile
    CONCEALED_KONG = "concealed_kong"  # 暗杠, four self-drawn tiles

    @property
    def is_kong(self) -> bool:
        return self in (MeldKind.KONG, MeldKind.ADDED_KONG, MeldKind.CONCEALED_KONG)

    @property
    def size(self) -> int:
        return 4 if self.is_kong else 3

    @property
    def is_claimed(self) -> bool:
        """Made with another player's tile (everything but a concealed kong)."""
        return self is not MeldKind.CONCEALED_KONG


class MeldError(ValueError):
    """Tiles that do not form the meld they are said to form; the message quotes them."""


def _is_sequence(tiles: Sequence[Tile], honor_sequences: bool) -> bool:
    if len(tiles) != 3:
        return False
    a, b, c = sorted(tiles)
    if a.is_numbered:
        return a.suit is b.suit is c.suit and (a.rank + 1, a.rank + 2) == (b.rank, c.rank)
    if not honor_sequences or not (a.is_honor and b.is_honor and c.is_honor):
        return False
    if len({a, b, c}) != 3:
        return False
    return (a.is_wind and b.is_wind and c.is_wind) or (a.is_dragon and b.is_dragon and c.is_dragon)


def meld_kind_of(tiles: Sequence[Tile], honor_sequences: bool = False) -> MeldKind | None:
    """The meld kind that ``tiles`` can only be read as, or None (``kong`` for four alike).

    >>> meld_kind_of(parse_tiles("345s")), meld_kind_of(parse_tiles("5555z"))
    (<MeldKind.CHOW: 'chow'>, <MeldKind.KONG: 'kong'>)
    >>> meld_kind_of(parse_tiles("124s")) is None
    True
    """
    if any(t.is_flower for t in tiles):
        return None
    if len(tiles) in (3, 4) and len(set(tiles)) == 1:
        return MeldKind.PUNG if len(tiles) == 3 else MeldKind.KONG
    if _is_sequence(tiles, honor_sequences):
        return MeldKind.CHOW
    return None


@dataclass(frozen=True, slots=True)
class Meld:
    """A meld on the table. ``claimed_from`` is the seat whose discard completed it (for an
    added kong: the seat whose discard made the original pung); None for a concealed kong or
    when unknown (a photo does not show it)."""

    kind: MeldKind
    tiles: tuple[Tile, ...]
    claimed_from: int | None = None

    def __post_init__(self) -> None:
        if len(self.tiles) != self.kind.size or not self._shape_ok():
            raise MeldError(f"'{format_tiles(self.tiles)}' is not {_MELD_DESCRIPTION[self.kind]}")
        if self.kind is MeldKind.CONCEALED_KONG and self.claimed_from is not None:
            raise MeldError("a concealed kong is not claimed from anyone")
        if self.claimed_from is not None and self.claimed_from not in SEATS:
            raise MeldError(f"{quote(self.claimed_from)} is not a seat (0-3)")

    def _shape_ok(self) -> bool:
        if any(t.is_flower for t in self.tiles):
            return False
        if self.kind is MeldKind.CHOW:
            return _is_sequence(self.tiles, honor_sequences=True)
        return len(set(self.tiles)) == 1

    @staticmethod
    def of(kind: MeldKind | str, tiles: str, claimed_from: int | None = None) -> Meld:
        """Build from notation: ``Meld.of("pung", "555m", claimed_from=1)``."""
        return Meld(MeldKind(kind), tuple(sorted(parse_tiles(tiles))), claimed_from)

    @property
    def tile(self) -> Tile:
        """The lowest tile (the tile of a pung or kong)."""
        return min(self.tiles)

    @property
    def is_kong(self) -> bool:
        return self.kind.is_kong

    @property
    def is_chow(self) -> bool:
        return self.kind is MeldKind.CHOW

    @property
    def is_pung_or_kong(self) -> bool:
        return self.kind is not MeldKind.CHOW

    @property
    def is_concealed(self) -> bool:
        """Only a concealed kong is concealed."""
        return self.kind is MeldKind.CONCEALED_KONG

    @property
    def is_honor_sequence(self) -> bool:
        return self.kind is MeldKind.CHOW and self.tiles[0].is_honor

    def __str__(self) -> str:
        return f"{self.kind.value} {format_tiles(self.tiles)}"


_MELD_DESCRIPTION = {
    MeldKind.CHOW: "a chow (three consecutive tiles of one suit)",
    MeldKind.PUNG: "a pung (three identical tiles)",
    MeldKind.KONG: "a kong (four identical tiles)",
    MeldKind.ADDED_KONG: "an added kong (four identical tiles)",
    MeldKind.CONCEALED_KONG: "a concealed kong (four identical tiles)",
}


@dataclass(frozen=True, slots=True)
class Hand:
    """What the winner shows: ``concealed`` tiles (sorted, including the winning tile), the
    melds on the table, the winning tile and the flowers laid aside."""

    concealed: tuple[Tile, ...]
    melds: tuple[Meld, ...]
    win_tile: Tile
    flowers: tuple[Tile, ...] = ()

    @staticmethod
    def of(
        concealed: str,
        melds: Iterable[Meld] = (),
        win_tile: str | None = None,
        flowers: str = "",
    ) -> Hand:
        """Build from notation; the winning tile defaults to the last tile written."""
        tiles = parse_tiles(concealed)
        win = Tile.parse(win_tile) if win_tile is not None else tiles[-1]
        return Hand(tuple(sorted(tiles)), tuple(melds), win, tuple(sorted(parse_tiles(flowers))))

    @property
    def concealed_count(self) -> int:
        return len(self.concealed)

    def concealed_counts(self) -> list[int]:
        """The concealed tiles as a 34-vector of counts (index = ``Tile.index``); flowers
        held in the hand (see ``City.flowers_in_hand``) are not counted."""
        counts = [0] * KINDS
        for tile in self.concealed:
            if not tile.is_flower:
                counts[tile.index] += 1
        return counts

    @property
    def meld_tiles(self) -> tuple[Tile, ...]:
        return tuple(t for m in self.melds for t in m.tiles)

    @property
    def all_tiles(self) -> tuple[Tile, ...]:
        """Concealed and meld tiles (kongs with four), not flowers."""
        return self.concealed + self.meld_tiles

    @property
    def kongs(self) -> tuple[Meld, ...]:
        return tuple(m for m in self.melds if m.is_kong)

    @property
    def exposed_melds(self) -> tuple[Meld, ...]:
        """Melds other than concealed kongs."""
        return tuple(m for m in self.melds if not m.is_concealed)

    @property
    def is_concealed(self) -> bool:
        """No melds but concealed kongs (门清)."""
        return not self.exposed_melds

    @property
    def suits(self) -> frozenset[Suit]:
        """Suits present among the concealed and meld tiles (honors count as ``Suit.HONOR``)."""
        return frozenset(t.suit for t in self.all_tiles)

    def __str__(self) -> str:
        parts = [format_tiles(self.concealed)] + [f"[{m}]" for m in self.melds]
        if self.flowers:
            parts.append(f"flowers {format_tiles(self.flowers)}")
        return " ".join(parts) + f" win {self.win_tile}"


class WinMethod(StrEnum):
    """How the winning tile came. Values are the request notation."""

    SELF_DRAW = "self_draw"
    DISCARD = "discard"
    ROBBED_KONG = "robbed_kong"  # 抢杠: the tile another player added to a pung
    KONG_REPLACEMENT = "kong_replacement"  # 杠上开花: the replacement tile after a kong

    @property
    def is_self_drawn(self) -> bool:
        """Self-draw or kong replacement: the winner drew the tile."""
        return self in (WinMethod.SELF_DRAW, WinMethod.KONG_REPLACEMENT)

    @property
    def has_discarder(self) -> bool:
        """A discard or a robbed kong: one other player gave the tile."""
        return not self.is_self_drawn


@dataclass(frozen=True, slots=True)
class WinContext:
    """Who won, how, and the table facts every city reads.

    ``discarder`` is the seat that gave the winning tile: the discarder on a discard, the
    player whose added kong was robbed on ``robbed_kong``; None on a self-draw.
    """

    method: WinMethod
    winner: int
    discarder: int | None = None
    round_wind: Tile = EAST
    last_tile: bool = False
    first_turn: bool = False

    def __post_init__(self) -> None:
        if self.winner not in SEATS:
            raise ValueError(f"winner {quote(self.winner)} is not a seat (0-3)")
        if self.method.has_discarder:
            if self.discarder not in SEATS or self.discarder == self.winner:
                raise ValueError(
                    f"{self.method.value} needs a discarder seat other than the winner, "
                    f"got {quote(self.discarder)}"
                )
        elif self.discarder is not None:
            raise ValueError(f"{self.method.value} has no discarder, got {quote(self.discarder)}")
        if not self.round_wind.is_wind:
            raise ValueError(f"round wind '{self.round_wind}' is not a wind (1z-4z)")

    @property
    def dealer(self) -> int:
        return DEALER

    @property
    def winner_is_dealer(self) -> bool:
        return self.winner == DEALER

    @property
    def is_self_drawn(self) -> bool:
        return self.method.is_self_drawn

    @property
    def seat_wind(self) -> Tile:
        return seat_wind(self.winner)

    @property
    def losers(self) -> tuple[int, ...]:
        """The three other seats."""
        return others(self.winner)
