"""The one tile type and its notation.

Notation (../shared/rules/INTERPRETATION.md): digits followed by a suit letter —
``m`` characters 萬, ``p`` dots 筒, ``s`` bamboo 條, ``z`` honors (1-4 winds E S W N,
5 White, 6 Green, 7 Red) and ``f`` flowers (1-4 plum orchid chrysanthemum bamboo,
5-8 spring summer autumn winter).

>>> parse_tiles("123m456p11z")
(Tile('1m'), Tile('2m'), Tile('3m'), Tile('4p'), Tile('5p'), Tile('6p'), Tile('1z'), Tile('1z'))
>>> format_tiles(parse_tiles("5z1m1z9s"))
'1m9s15z'
>>> Tile.parse("7z").name
'Red'
>>> parse_tiles("10m")
Traceback (most recent call last):
...
hupai.scoring.tiles.TileError: '10m': '0' is not a rank (ranks are 1-9)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from hupai.scoring.quoting import quote


class TileError(ValueError):
    """A tile string or a tile multiset that is not valid; the message quotes the input."""


class Suit(StrEnum):
    """Tile suits, in notation order; the value is the notation letter."""

    MAN = "m"  # characters 萬
    PIN = "p"  # dots 筒
    SOU = "s"  # bamboo 條
    HONOR = "z"
    FLOWER = "f"

    @property
    def size(self) -> int:
        """How many ranks the suit has."""
        return _SUIT_SIZE[self]

    @property
    def offset(self) -> int:
        """Index of rank 1 of this suit in the 42-tile index."""
        return _SUIT_OFFSET[self]

    @property
    def is_numbered(self) -> bool:
        return self in (Suit.MAN, Suit.PIN, Suit.SOU)


_SUIT_SIZE = {Suit.MAN: 9, Suit.PIN: 9, Suit.SOU: 9, Suit.HONOR: 7, Suit.FLOWER: 8}
_SUIT_OFFSET = {Suit.MAN: 0, Suit.PIN: 9, Suit.SOU: 18, Suit.HONOR: 27, Suit.FLOWER: 34}
SUIT_ORDER = (Suit.MAN, Suit.PIN, Suit.SOU, Suit.HONOR, Suit.FLOWER)

#: Number of tile kinds that make up hands (suits and honors) and with flowers.
KINDS = 34
ALL_KINDS = 42

_HONOR_NAMES = ("East", "South", "West", "North", "White", "Green", "Red")
_HONOR_HANZI = ("東", "南", "西", "北", "白", "發", "中")
_FLOWER_NAMES = (
    "Plum",
    "Orchid",
    "Chrysanthemum",
    "Bamboo",
    "Spring",
    "Summer",
    "Autumn",
    "Winter",
)
_FLOWER_HANZI = ("梅", "蘭", "菊", "竹", "春", "夏", "秋", "冬")
_SUIT_NAMES = {Suit.MAN: "Characters", Suit.PIN: "Dots", Suit.SOU: "Bamboo"}
_SUIT_HANZI = {Suit.MAN: "萬", Suit.PIN: "筒", Suit.SOU: "條"}
_NUM_HANZI = "一二三四五六七八九"


@dataclass(frozen=True, slots=True)
class Tile:
    """One tile kind. Ordered by the 42-tile index (m, p, s, z, f)."""

    suit: Suit
    rank: int

    def __post_init__(self) -> None:
        if not 1 <= self.rank <= self.suit.size:
            raise TileError(
                f"'{self.rank}{self.suit.value}': rank {self.rank} is outside 1-{self.suit.size}"
            )

    # -- construction ------------------------------------------------------------------
    @staticmethod
    def parse(text: str) -> Tile:
        """Parse exactly one tile, e.g. ``'5p'``.

        >>> Tile.parse("5p")
        Tile('5p')
        >>> Tile.parse("55p")
        Traceback (most recent call last):
        ...
        hupai.scoring.tiles.TileError: '55p' is 2 tiles, expected one
        """
        tiles = parse_tiles(text)
        if len(tiles) != 1:
            raise TileError(f"'{text}' is {len(tiles)} tiles, expected one")
        return tiles[0]

    @staticmethod
    def from_index(index: int) -> Tile:
        """The tile at ``index`` in the 42-tile order (0 = 1m … 33 = 7z, 34 = 1f … 41 = 8f)."""
        return _BY_INDEX[index]

    # -- properties --------------------------------------------------------------------
    @property
    def index(self) -> int:
        return self.suit.offset + self.rank - 1

    @property
    def is_honor(self) -> bool:
        return self.suit is Suit.HONOR

    @property
    def is_flower(self) -> bool:
        return self.suit is Suit.FLOWER

    @property
    def is_numbered(self) -> bool:
        return self.suit.is_numbered

    @property
    def is_wind(self) -> bool:
        return self.suit is Suit.HONOR and self.rank <= 4

    @property
    def is_dragon(self) -> bool:
        return self.suit is Suit.HONOR and self.rank >= 5

    @property
    def is_terminal(self) -> bool:
        return self.is_numbered and self.rank in (1, 9)

    @property
    def is_terminal_or_honor(self) -> bool:
        return self.is_terminal or self.is_honor

    @property
    def name(self) -> str:
        """English name, e.g. ``'3 Bamboo'``, ``'Red'``, ``'Plum'``."""
        if self.suit is Suit.HONOR:
            return _HONOR_NAMES[self.rank - 1]
        if self.suit is Suit.FLOWER:
            return _FLOWER_NAMES[self.rank - 1]
        return f"{self.rank} {_SUIT_NAMES[self.suit]}"

    @property
    def hanzi(self) -> str:
        """Chinese name, e.g. ``'三條'``, ``'中'``."""
        if self.suit is Suit.HONOR:
            return _HONOR_HANZI[self.rank - 1]
        if self.suit is Suit.FLOWER:
            return _FLOWER_HANZI[self.rank - 1]
        return _NUM_HANZI[self.rank - 1] + _SUIT_HANZI[self.suit]

    def __str__(self) -> str:
        return f"{self.rank}{self.suit.value}"

    def __repr__(self) -> str:
        return f"Tile('{self}')"

    def __lt__(self, other: Tile) -> bool:
        return self.index < other.index

    def __le__(self, other: Tile) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Tile) -> bool:
        return self.index > other.index

    def __ge__(self, other: Tile) -> bool:
        return self.index >= other.index


_BY_INDEX: tuple[Tile, ...] = tuple(
    Tile(suit, rank) for suit in SUIT_ORDER for rank in range(1, suit.size + 1)
)
#: Every tile kind that can be part of a hand (34) and every kind including flowers (42).
HAND_TILES: tuple[Tile, ...] = _BY_INDEX[:KINDS]
EVERY_TILE: tuple[Tile, ...] = _BY_INDEX

_SUIT_BY_LETTER = {s.value: s for s in SUIT_ORDER}


#: Longest notation parsed: every tile of a set, with room for spaces (longer is refused
#: before it is read, so that a huge string costs nothing).
MAX_NOTATION = 600


#: Distinct notation strings whose parse is remembered (a game repeats a few hundred; a
#: client sending ever-new strings must not grow memory without end).
PARSE_CACHE_SIZE = 4096
#: The only characters read as ranks: ``str.isdigit`` also accepts superscripts (``¹``),
#: circled (``③``) and full-width (``１``) digits, which are refused by name instead.
_RANKS = frozenset("0123456789")


@lru_cache(maxsize=PARSE_CACHE_SIZE)
def _parse_cached(text: str) -> tuple[Tile, ...]:
    tiles: list[Tile] = []
    ranks = ""
    for char in text:
        if char.isspace():
            continue
        if char in _RANKS:
            ranks += char
            continue
        if char.isdigit() or char.isnumeric():
            raise TileError(
                f"{quote(text)}: {quote(char)} is not a rank; write ranks with the digits 1-9"
            )
        suit = _SUIT_BY_LETTER.get(char)
        if suit is None:
            raise TileError(
                f"{quote(text)}: {quote(char)} is not a suit letter "
                "(use m, p, s, z for honors, f for flowers)"
            )
        if not ranks:
            raise TileError(f"{quote(text)}: suit letter '{char}' has no ranks before it")
        for digit in ranks:
            rank = int(digit)
            if not 1 <= rank <= suit.size:
                if rank == 0:
                    raise TileError(f"{quote(text)}: '0' is not a rank (ranks are 1-9)")
                raise TileError(
                    f"{quote(text)}: '{digit}{char}' does not exist "
                    f"({_SUIT_DESCRIPTION[suit]} go 1-{suit.size})"
                )
            tiles.append(_BY_INDEX[suit.offset + rank - 1])
        ranks = ""
    if ranks:
        raise TileError(f"{quote(text)}: ranks '{ranks}' have no suit letter after them")
    return tuple(tiles)


_SUIT_DESCRIPTION = {
    Suit.MAN: "characters",
    Suit.PIN: "dots",
    Suit.SOU: "bamboo",
    Suit.HONOR: "honors",
    Suit.FLOWER: "flowers",
}


def parse_tiles(text: str) -> tuple[Tile, ...]:
    """Parse notation such as ``'123m456p11z'`` into tiles, in the order written.

    Spaces are ignored, so ``'123m 456p'`` is fine. Ranks are the ASCII digits only: a
    superscript, circled or full-width digit (``¹m``, ``③p``, ``１m``) is refused, naming it.

    >>> parse_tiles("8z")
    Traceback (most recent call last):
    ...
    hupai.scoring.tiles.TileError: '8z': '8z' does not exist (honors go 1-7)
    >>> parse_tiles("123")
    Traceback (most recent call last):
    ...
    hupai.scoring.tiles.TileError: '123': ranks '123' have no suit letter after them
    """
    if not isinstance(text, str):
        raise TileError(f"{quote(text)}: tiles must be written as a string such as '123m456p11z'")
    if len(text) > MAX_NOTATION:
        raise TileError(
            f"{quote(text)}: too long for tiles ({len(text)} characters; a table's "
            f"notation is at most {MAX_NOTATION})"
        )
    return _parse_cached(text)


def format_tiles(tiles: Iterable[Tile]) -> str:
    """Canonical notation: sorted, one suit letter per suit run.

    >>> format_tiles([Tile.parse("2m"), Tile.parse("1m"), Tile.parse("5z")])
    '12m5z'
    >>> format_tiles([])
    ''
    """
    ordered = sorted(tiles, key=lambda t: t.index)
    out: list[str] = []
    for i, tile in enumerate(ordered):
        out.append(str(tile.rank))
        if i + 1 == len(ordered) or ordered[i + 1].suit is not tile.suit:
            out.append(tile.suit.value)
    return "".join(out)


def counts34(tiles: Iterable[Tile]) -> list[int]:
    """Count vector over the 34 hand kinds (flowers are not allowed here).

    >>> counts34(parse_tiles("112m7z"))[:3], counts34(parse_tiles("7z"))[33]
    ([2, 1, 0], 1)
    """
    counts = [0] * KINDS
    for tile in tiles:
        if tile.is_flower:
            raise TileError(f"'{tile}': a flower is not part of the hand; list it under flowers")
        counts[tile.index] += 1
    return counts


def check_copies(tiles: Iterable[Tile], where: str = "hand", limit: int = 4) -> None:
    """Raise when a kind appears more often than a set holds (4, or 1 for each flower).

    >>> check_copies(parse_tiles("11111m"))
    Traceback (most recent call last):
    ...
    hupai.scoring.tiles.TileError: '11111m': 5 copies of 1m in the hand; a set has only 4
    """
    tiles = tuple(tiles)
    for tile, n in Counter(tiles).items():
        cap = 1 if tile.is_flower else limit
        if n > cap:
            raise TileError(
                f"'{format_tiles(tiles)}': {n} copies of {tile} in the {where}; "
                f"a set has only {cap}"
            )


def next_tile(tile: Tile, dragon_cycle: tuple[int, ...] = (6, 7, 5)) -> Tile:
    """The tile an indicator points to: 1→2 … 9→1 in a suit, E→S→W→N→E, and the dragons
    in ``dragon_cycle`` order (default Green→Red→White, the seeds' order).

    >>> [str(next_tile(Tile.parse(t))) for t in ("3s", "9s", "1z", "4z", "6z", "7z", "5z")]
    ['4s', '1s', '2z', '1z', '7z', '5z', '6z']
    """
    if tile.is_numbered:
        return Tile(tile.suit, tile.rank % 9 + 1)
    if tile.is_wind:
        return Tile(Suit.HONOR, tile.rank % 4 + 1)
    if tile.is_dragon:
        position = dragon_cycle.index(tile.rank)
        return Tile(Suit.HONOR, dragon_cycle[(position + 1) % len(dragon_cycle)])
    return Tile(Suit.FLOWER, tile.rank % 8 + 1)
