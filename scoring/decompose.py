"""Every way a concealed hand completes a win, with or without wild tiles.

The engine works on **values**: a decomposition is a multiset of groups (chows, pungs, the
pair, …) whose tiles are what the hand's tiles *stand for*. Wild tiles (any kind listed in
``wilds``) are jokers: ``fills`` lists what they stand for, and a wild that stands for its own
kind is used at face value (``at_face_value``); the rest are ``as_wild``. Which physical copy
sits in which group never matters for scoring, so decompositions that differ only in that are
reported once.

A group made **only** of wilds can be any set (or any pair); enumerating the 55 sets for each
of them would swamp every caller, so such groups are reported as counts (``free_sets``,
``free_pairs``) and :meth:`Decomposition.expand` turns them into the candidates a city cares
about (a dragon pung for Ningbo, a pung of the suit for a pure hand, …).

>>> [str(d) for d in decompose(counts("11122233344455m"))]
['111m 222m 333m 444m 55m', '111m 234m 22m 345m 345m', '111m 234m 234m 234m 55m',
 '123m 123m 123m 444m 55m']
>>> d = decompose(counts("123m456p789s777z1z5m"), wilds=tiles("5m"))[0]
>>> str(d), format_tiles(d.fills), [str(w.kind) for w in d.waits(Tile.parse("5m"))]
('123m 456p 789s 11z 777z', '1z', ['single'])
>>> orphans = ShapeRules(thirteen_orphans=True)
>>> decompose(counts("19m19p19s11234567z"), wilds=tiles("1z"), rules=orphans)[0].shape
<Shape.THIRTEEN_ORPHANS: 'thirteen_orphans'>
>>> format_tiles(ready_tiles(counts("1112345678999m")))
'123456789m'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache
from itertools import combinations_with_replacement, pairwise, permutations, product

from hupai.scoring.tiles import HAND_TILES, KINDS, Suit, Tile, format_tiles, parse_tiles


class Shape(StrEnum):
    """The overall form of a complete hand."""

    STANDARD = "standard"  # four sets and a pair (melds included)
    SEVEN_PAIRS = "seven_pairs"
    THIRTEEN_ORPHANS = "thirteen_orphans"  # 十三幺: each terminal and honor, one doubled
    THIRTEEN_MISFITS = "thirteen_misfits"  # 十三烂: 14 singles, ranks 3+ apart, honors distinct
    ALL_UNRELATED = "all_unrelated"  # 全不靠: 14 singles from one knitted pattern plus honors
    KNITTED_DRAGON = "knitted_dragon"  # 组合龙: 147/258/369 in three suits, a set and a pair


class GroupKind(StrEnum):
    CHOW = "chow"  # numbered sequence, or an honor sequence when allowed
    PUNG = "pung"
    KONG = "kong"  # only from a kong meld (see ``meld_group``)
    PAIR = "pair"
    SINGLE = "single"  # one tile of an orphans/misfits/all-unrelated hand
    KNITTED = "knitted"  # 1-4-7, 2-5-8 or 3-6-9 of one suit


class WaitKind(StrEnum):
    """How the winning tile completed its group."""

    EDGE = "edge"  # 12+3 or 89+7 边张
    CLOSED = "closed"  # 13+2 嵌张
    SINGLE = "single"  # completes the pair (seven pairs included) 单钓
    TWO_SIDED = "two_sided"  # 23+1 or 23+4 两面
    DUAL_PUNG = "dual_pung"  # completes a pung 双碰
    IRREGULAR = "irregular"  # a single of a special hand, an honor or knitted sequence


@dataclass(frozen=True, slots=True)
class Group:
    """A group of tile values (after wilds took theirs), sorted."""

    kind: GroupKind
    tiles: tuple[Tile, ...]

    @property
    def tile(self) -> Tile:
        """The lowest tile: the tile of a pung, kong or pair."""
        return self.tiles[0]

    @property
    def is_pung_or_kong(self) -> bool:
        return self.kind in (GroupKind.PUNG, GroupKind.KONG)

    @property
    def is_set(self) -> bool:
        """A chow, pung or kong (one of the four sets)."""
        return self.kind in (GroupKind.CHOW, GroupKind.PUNG, GroupKind.KONG)

    def __str__(self) -> str:
        return format_tiles(self.tiles)


def _group(kind: GroupKind, indices: Sequence[int]) -> Group:
    return Group(kind, tuple(Tile.from_index(i) for i in sorted(indices)))


# Prebuilt groups, so that the engine never allocates one.
_PUNG = tuple(_group(GroupKind.PUNG, (i, i, i)) for i in range(KINDS))
_PAIR = tuple(_group(GroupKind.PAIR, (i, i)) for i in range(KINDS))
_SINGLE = tuple(_group(GroupKind.SINGLE, (i,)) for i in range(KINDS))
_CHOW = {
    i: _group(GroupKind.CHOW, (i, i + 1, i + 2)) for i in range(27) if i % 9 <= 6
}  # keyed by lowest index
_HONOR_CHOWS: tuple[tuple[int, int, int], ...] = (
    (27, 28, 29),
    (27, 28, 30),
    (27, 29, 30),
    (28, 29, 30),
    (31, 32, 33),
)
_HONOR_CHOW = {c: _group(GroupKind.CHOW, c) for c in _HONOR_CHOWS}
_ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
#: The three knitted patterns, as ranks 0-based: 1-4-7, 2-5-8, 3-6-9.
_KNITS = ((0, 3, 6), (1, 4, 7), (2, 5, 8))


def kong_group(tile: Tile) -> Group:
    return Group(GroupKind.KONG, (tile,) * 4)


@dataclass(frozen=True, slots=True)
class ShapeRules:
    """Which hand shapes a city accepts as complete."""

    standard: bool = True
    seven_pairs: bool = True
    #: a quad in the hand may count as two of the seven pairs (big/dragon seven pairs)
    quad_pairs: bool = False
    thirteen_orphans: bool = False
    thirteen_misfits: bool = False
    all_unrelated: bool = False
    knitted_dragon: bool = False
    #: any three different winds, or the three dragons, form a sequence (Nanchang)
    honor_sequences: bool = False


@dataclass(frozen=True, slots=True)
class Wait:
    """One way the winning tile completes a decomposition.

    ``group`` is the group it completes (None for a group made only of wilds, which the city
    may read as any set or pair); ``stands_for`` is the value a wild winning tile took.
    """

    kind: WaitKind
    group: Group | None
    stands_for: Tile | None = None


@dataclass(frozen=True, slots=True)
class Decomposition:
    """One complete reading of the concealed tiles (exposed melds are not repeated here)."""

    shape: Shape
    groups: tuple[Group, ...]
    #: what the wild tiles stand for inside ``groups`` (sorted)
    fills: tuple[Tile, ...] = ()
    #: sets made only of wilds: each may be any chow or pung (see ``expand``)
    free_sets: int = 0
    #: pairs made only of wilds (the pair, or some of the seven pairs)
    free_pairs: int = 0
    #: the wild tiles of the hand, as physical tiles (sorted)
    wild_tiles: tuple[Tile, ...] = ()

    # -- structure ---------------------------------------------------------------------
    @property
    def pair(self) -> Group | None:
        """The pair of a standard or knitted-dragon hand (None if the wilds make it)."""
        if self.shape in (Shape.STANDARD, Shape.KNITTED_DRAGON, Shape.THIRTEEN_ORPHANS):
            for g in self.groups:
                if g.kind is GroupKind.PAIR:
                    return g
        return None

    @property
    def sets(self) -> tuple[Group, ...]:
        """The chows and pungs among ``groups``."""
        return tuple(g for g in self.groups if g.is_set)

    @property
    def pairs(self) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.kind is GroupKind.PAIR)

    @property
    def values(self) -> tuple[Tile, ...]:
        """Every tile value of ``groups`` (sorted)."""
        return tuple(sorted(t for g in self.groups for t in g.tiles))

    @property
    def is_complete(self) -> bool:
        """True when no group is left free (every value is known)."""
        return self.free_sets == 0 and self.free_pairs == 0

    # -- wilds -------------------------------------------------------------------------
    @property
    def at_face_value(self) -> tuple[Tile, ...]:
        """Wild tiles that stand for their own kind (还搭 in Ningbo)."""
        return tuple(sorted((Counter(self.wild_tiles) & Counter(self.fills)).elements()))

    @property
    def as_wild(self) -> tuple[Tile, ...]:
        """Wild tiles that stand for another tile or fill a free group."""
        return tuple(sorted((Counter(self.wild_tiles) - Counter(self.fills)).elements()))

    @property
    def uses_wilds(self) -> bool:
        """True when some wild tile is used as a wild (not at face value)."""
        return bool(self.as_wild)

    # -- the winning tile --------------------------------------------------------------
    def waits(self, win_tile: Tile) -> tuple[Wait, ...]:
        """Each distinct way ``win_tile`` can be the tile that completed this reading.

        A natural winning tile sits in any group holding its value; a wild winning tile can
        be any of the ``fills`` or any tile of a free group.

        >>> d = decompose(counts("123m456m789m11z555z"))[0]
        >>> sorted(str(w.kind) for w in d.waits(Tile.parse("3m")))
        ['edge']
        >>> d = decompose(counts("123m345m789m11z555z"))[0]
        >>> sorted(str(w.kind) for w in d.waits(Tile.parse("3m")))
        ['edge', 'two_sided']
        """
        found: dict[tuple[WaitKind, Group | None, Tile | None], Wait] = {}
        if win_tile in self.wild_tiles:
            for value in sorted(set(self.fills)):
                for group in self.groups:
                    if value in group.tiles:
                        wait = Wait(wait_kind(group, value), group, value)
                        found.setdefault((wait.kind, group, value), wait)
            if self.free_sets:
                for kind in (
                    WaitKind.EDGE,
                    WaitKind.CLOSED,
                    WaitKind.TWO_SIDED,
                    WaitKind.DUAL_PUNG,
                ):
                    found.setdefault((kind, None, None), Wait(kind, None))
            if self.free_pairs:
                found.setdefault((WaitKind.SINGLE, None, None), Wait(WaitKind.SINGLE, None))
        else:
            for group in self.groups:
                if win_tile in group.tiles:
                    wait = Wait(wait_kind(group, win_tile), group)
                    found.setdefault((wait.kind, group, None), wait)
        return tuple(found.values())

    def wait_kinds(self, win_tile: Tile) -> frozenset[WaitKind]:
        return frozenset(w.kind for w in self.waits(win_tile))

    # -- free groups -------------------------------------------------------------------
    def expand(
        self,
        set_choices: Iterable[Group] = (),
        pair_choices: Iterable[Group] = (),
        max_copies: int = 4,
    ) -> Iterator[Decomposition]:
        """Concrete readings where each free set takes one of ``set_choices`` and each free
        pair one of ``pair_choices`` (a reading with no free group yields itself). Readings
        that would hold more than ``max_copies`` of a value are skipped.

        >>> readings = decompose(counts("123m456p789s123s55z"), wilds=tiles("5z"))
        >>> len(readings), [str(d) for d in readings if d.free_pairs]
        (6, ['123m 456p 123s 789s +free pair'])
        >>> d = next(d for d in readings if d.free_pairs)
        >>> [str(e) for e in d.expand(pair_choices=[pair_of("7z"), pair_of("1m")])]
        ['123m 456p 123s 789s 77z', '123m 11m 456p 123s 789s']
        """
        if self.is_complete:
            yield self
            return
        sets = tuple(set_choices)
        pairs = tuple(pair_choices)
        for chosen_sets in combinations_with_replacement(sets, self.free_sets):
            for chosen_pairs in combinations_with_replacement(pairs, self.free_pairs):
                extra = chosen_sets + chosen_pairs
                added = [t for g in extra for t in g.tiles]
                values = Counter(t for g in self.groups for t in g.tiles) + Counter(added)
                if any(n > max_copies for n in values.values()):
                    continue
                yield replace(
                    self,
                    groups=tuple(sorted(self.groups + extra, key=_group_order)),
                    fills=tuple(sorted(self.fills + tuple(added))),
                    free_sets=0,
                    free_pairs=0,
                )

    def __str__(self) -> str:
        text = " ".join(str(g) for g in self.groups)
        free = " +free set" * self.free_sets + " +free pair" * self.free_pairs
        return text + free


def _group_order(group: Group) -> tuple[int, int]:
    return (group.tiles[0].index, _KIND_ORDER[group.kind])


_KIND_ORDER = {k: i for i, k in enumerate(GroupKind)}


def wait_kind(group: Group, tile: Tile) -> WaitKind:
    """The wait of ``tile`` completing ``group``.

    >>> [str(wait_kind(chow_of("789p"), Tile.parse(t))) for t in ("7p", "8p", "9p")]
    ['edge', 'closed', 'two_sided']
    """
    if group.kind is GroupKind.PAIR:
        return WaitKind.SINGLE
    if group.kind in (GroupKind.PUNG, GroupKind.KONG):
        return WaitKind.DUAL_PUNG
    if group.kind is GroupKind.CHOW and group.tiles[0].is_numbered:
        low = group.tiles[0].rank
        position = tile.rank - low
        if position == 1:
            return WaitKind.CLOSED
        if position == 0:
            return WaitKind.EDGE if low == 7 else WaitKind.TWO_SIDED
        return WaitKind.EDGE if low == 1 else WaitKind.TWO_SIDED
    return WaitKind.IRREGULAR


# -- small constructors, handy in city code and tests ---------------------------------------
def counts(text: str) -> list[int]:
    """A 34-vector of counts from notation (flowers are refused)."""
    vector = [0] * KINDS
    for tile in parse_tiles(text):
        if tile.is_flower:
            raise ValueError(f"'{text}': flowers are not part of the hand")
        vector[tile.index] += 1
    return vector


def tiles(text: str) -> frozenset[Tile]:
    """A set of tile kinds from notation, e.g. the wild kinds ``tiles("3s4s")``."""
    return frozenset(parse_tiles(text))


def pung_of(text: str) -> Group:
    return _PUNG[Tile.parse(text).index]


def pair_of(text: str) -> Group:
    return _PAIR[Tile.parse(text).index]


def chow_of(text: str) -> Group:
    """The chow written as three tiles (``'345m'``) or an honor sequence (``'123z'``)."""
    indices = tuple(sorted(t.index for t in parse_tiles(text)))
    if len(indices) != 3:
        raise ValueError(f"'{text}' is not a chow")
    triple = (indices[0], indices[1], indices[2])
    group = _HONOR_CHOW.get(triple) if triple[0] >= 27 else _CHOW.get(triple[0])
    if group is None or tuple(t.index for t in group.tiles) != indices:
        raise ValueError(f"'{text}' is not a chow")
    return group


def all_sets(honor_sequences: bool = False) -> tuple[Group, ...]:
    """Every pung and chow (the candidates a free set can take)."""
    chows = tuple(_CHOW.values()) + (tuple(_HONOR_CHOW.values()) if honor_sequences else ())
    return tuple(sorted(_PUNG + chows, key=_group_order))


def all_pairs() -> tuple[Group, ...]:
    return _PAIR


# -- the engine ---------------------------------------------------------------------------
# A block option: (wilds used, sets, pairs, groups, fill indices).
_Option = tuple[int, int, int, tuple[Group, ...], tuple[int, ...]]


def decompose(
    counts: Sequence[int],
    melds: int = 0,
    wilds: Iterable[Tile] = (),
    rules: ShapeRules = ShapeRules(),
    limits: Sequence[int] | None = None,
) -> tuple[Decomposition, ...]:
    """Every complete reading of the concealed ``counts`` (a 34-vector, winning tile
    included) beside ``melds`` melds on the table (a kong counts as one meld).

    ``wilds`` are the wild kinds: every concealed tile of those kinds is a joker.
    ``limits`` caps how many of each value a reading may hold (default 4 each; pass
    ``4 - copies in melds`` so that wilds never stand for a fifth copy).
    An empty tuple means the tiles are not a win.

    >>> len(decompose(counts("11223344556677m")))  # seven pairs and three standard readings
    4
    >>> decompose(counts("123m456p789s111z222z"))
    Traceback (most recent call last):
    ...
    ValueError: 15 concealed tiles beside 0 melds; a complete hand has 14 (3 fewer per meld)
    """
    if len(counts) != KINDS:
        raise ValueError(f"expected 34 counts, got {len(counts)}")
    total = sum(counts)
    if total != 14 - 3 * melds or not 0 <= melds <= 4:
        raise ValueError(
            f"{total} concealed tiles beside {melds} melds; a complete hand has "
            f"{14 - 3 * melds} (3 fewer per meld)"
        )
    wild_mask = tuple(sorted({t.index for t in wilds if not t.is_flower}))
    has_wilds = any(counts[i] for i in wild_mask)
    caps = tuple(limits) if (limits is not None and has_wilds) else None
    return _decompose_cached(tuple(counts), melds, wild_mask if has_wilds else (), rules, caps)


def is_winning(
    counts: Sequence[int],
    melds: int = 0,
    wilds: Iterable[Tile] = (),
    rules: ShapeRules = ShapeRules(),
) -> bool:
    """True when ``decompose`` finds at least one reading.

    >>> hand = counts("123m456p789s12345z")
    >>> is_winning(hand), is_winning(hand, wilds=tiles("1z"))
    (False, False)
    """
    if (
        (wilds and any(counts[t.index] for t in wilds if not t.is_flower))
        or rules.honor_sequences
        or (melds == 0 and _has_special_shapes(rules))
        or len(counts) != KINDS
        or sum(counts) != 14 - 3 * melds
    ):
        return bool(decompose(counts, melds, wilds, rules))
    # the common case, without building a single reading
    if rules.standard and _plain_standard_wins(counts):
        return True
    return melds == 0 and rules.seven_pairs and _plain_seven_pairs(counts, rules.quad_pairs)


def _has_special_shapes(rules: ShapeRules) -> bool:
    return (
        rules.thirteen_orphans
        or rules.thirteen_misfits
        or rules.all_unrelated
        or rules.knitted_dragon
    )


def ready_tiles(
    counts: Sequence[int],
    melds: int = 0,
    wilds: Iterable[Tile] = (),
    rules: ShapeRules = ShapeRules(),
    candidates: Iterable[Tile] = HAND_TILES,
) -> tuple[Tile, ...]:
    """The tiles that complete a hand one tile short (13 concealed tiles beside no meld):
    听牌. A kind the hand already holds four of is not waited on.

    >>> format_tiles(ready_tiles(counts("1112223334445m"), candidates=tiles("123456789m")))
    '23456m'
    """
    wild_list = tuple(wilds)
    out: list[Tile] = []
    vector = list(counts)
    for tile in candidates:
        i = tile.index
        if tile.is_flower or vector[i] >= 4:
            continue
        vector[i] += 1
        if decompose(vector, melds, wild_list, rules):
            out.append(tile)
        vector[i] -= 1
    return tuple(sorted(out))


@lru_cache(maxsize=16384)
def _decompose_cached(
    hand: tuple[int, ...],
    melds: int,
    wild_mask: tuple[int, ...],
    rules: ShapeRules,
    caps: tuple[int, ...] | None,
) -> tuple[Decomposition, ...]:
    naturals = list(hand)
    jokers = 0
    wild_tiles: list[Tile] = []
    for i in wild_mask:
        jokers += naturals[i]
        wild_tiles.extend([Tile.from_index(i)] * naturals[i])
        naturals[i] = 0
    caps_t = caps if caps is not None else _FOUR
    wt = tuple(wild_tiles)
    nat = tuple(naturals)
    found: list[Decomposition] = []
    if rules.standard and not jokers and not rules.honor_sequences:
        for groups in _plain_standard(nat):
            found.append(Decomposition(Shape.STANDARD, groups))
    elif rules.standard:
        for groups, fills, free_sets, free_pair in _standard(
            nat, jokers, 4 - melds, caps_t, rules.honor_sequences
        ):
            found.append(
                Decomposition(Shape.STANDARD, groups, _tiles(fills), free_sets, free_pair, wt)
            )
    if melds == 0:
        if rules.seven_pairs:
            found.extend(_seven_pairs(nat, jokers, rules.quad_pairs, caps_t, wt))
        if rules.thirteen_orphans:
            found.extend(_thirteen_orphans(nat, jokers, wt))
        if rules.thirteen_misfits:
            found.extend(_singles(nat, jokers, wt, Shape.THIRTEEN_MISFITS))
        if rules.all_unrelated:
            found.extend(_singles(nat, jokers, wt, Shape.ALL_UNRELATED))
    if rules.knitted_dragon and melds <= 1:
        found.extend(_knitted_dragon(nat, jokers, 1 - melds, caps_t, wt))
    return tuple(found)


_FOUR = (4,) * KINDS

# -- without wilds: the common case, kept lean -------------------------------------------------
# Per suit, the readings of its 9 counts: (has the pair, groups). Memoised per suit; a suit
# holds 3n or 3n+2 tiles, so its readings fix how many sets it brings.
_SuitReadings = tuple[tuple[bool, tuple[Group, ...]], ...]
_PLAIN_SUITS: tuple[dict[tuple[int, ...], _SuitReadings], ...] = ({}, {}, {})
# the same order as the general scan: fewest chows first
_PUNG_PAIR_ORDER = ((1, 1), (1, 0), (0, 1), (0, 0))
_PUNG_ORDER = ((1, 0), (0, 0))


def _plain_suit(part: tuple[int, ...], offset: int) -> _SuitReadings:
    """Every reading of one suit's counts as sets (and the pair when 3n+2 tiles)."""
    cache = _PLAIN_SUITS[offset // 9]
    found = cache.get(part)
    if found is not None:
        return found
    out: list[tuple[bool, tuple[Group, ...]]] = []
    c = list(part)
    groups: list[Group] = []
    with_pair = sum(part) % 3 == 2

    def scan(r: int, pair: bool) -> None:
        while r < 9 and not c[r]:
            r += 1
        if r == 9:
            if pair == with_pair:
                out.append((pair, tuple(groups)))
            return
        x = c[r]
        for pung, pr in _PUNG_PAIR_ORDER if (with_pair and not pair) else _PUNG_ORDER:
            k = x - 3 * pung - 2 * pr  # the chows that must start here
            if k < 0 or (k and (r > 6 or c[r + 1] < k or c[r + 2] < k)):
                continue
            c[r] = 0
            if k:
                c[r + 1] -= k
                c[r + 2] -= k
                groups.extend([_CHOW[offset + r]] * k)
            if pung:
                groups.append(_PUNG[offset + r])
            if pr:
                groups.append(_PAIR[offset + r])
            scan(r + 1, pair or bool(pr))
            del groups[len(groups) - k - pung - pr :]
            if k:
                c[r + 1] += k
                c[r + 2] += k
            c[r] = x

    if sum(part) % 3 != 1:
        scan(0, False)
    result = tuple(out)
    cache[part] = result
    return result


def _plain_honors(nat: Sequence[int]) -> tuple[Group, ...] | None:
    """Honors without wilds: pungs and the pair only; None when they cannot be read."""
    groups: list[Group] = []
    for k in range(27, 34):
        n = nat[k]
        if n == 3:
            groups.append(_PUNG[k])
        elif n == 2:
            groups.append(_PAIR[k])
        elif n:
            return None
    return tuple(groups)


def _plain_standard(nat: Sequence[int]) -> list[tuple[Group, ...]]:
    """Four sets (beside the melds) and a pair, no wilds: the product of the suit readings."""
    honors = _plain_honors(nat)
    if honors is None:
        return []
    pairs = sum(1 for g in honors if g.kind is GroupKind.PAIR)
    blocks: list[_SuitReadings] = []
    for offset in (0, 9, 18):
        part = tuple(nat[offset : offset + 9])
        if any(part):
            readings = _plain_suit(part, offset)
            if not readings:
                return []
            pairs += readings[0][0]
            blocks.append(readings)
    if pairs != 1:
        return []
    out: list[tuple[Group, ...]] = []
    for combo in product(*blocks):
        groups: tuple[Group, ...] = ()
        for _, g in combo:
            groups += g
        out.append(groups + honors)
    return out


def _plain_standard_wins(nat: Sequence[int]) -> bool:
    """Whether ``_plain_standard`` finds a reading, without building them."""
    honors = nat[27:34]
    if 1 in honors or 4 in honors:
        return False
    pairs = honors.count(2)
    if pairs > 1:
        return False
    for part, cache in (
        (tuple(nat[0:9]), _SUIT_WINS[0]),
        (tuple(nat[9:18]), _SUIT_WINS[1]),
        (tuple(nat[18:27]), _SUIT_WINS[2]),
    ):
        ok = cache.get(part)
        if ok is None:
            ok = cache[part] = _suit_wins(part)
        if not ok:
            return False
        pairs += sum(part) % 3 == 2
    return pairs == 1


#: Per suit: can its counts be read as sets (and the pair when 3n+2 tiles)? Memoised.
_SUIT_WINS: tuple[dict[tuple[int, ...], bool], ...] = ({}, {}, {})


def _suit_wins(part: tuple[int, ...]) -> bool:
    """One suit as sets, plus the pair when it holds 3n+2 tiles. Sets alone are found
    greedily (the chows starting at the lowest rank can be taken as its count mod 3: three
    equal chows are three pungs); the pair can only sit on a rank p with 2p ≡ Σ rank·count
    (mod 3), since every set weighs 0 mod 3."""
    n = sum(part)
    if n % 3 == 1:
        return False
    if n % 3 == 0:
        return _sets_only(list(part))
    weight = sum(i * x for i, x in enumerate(part)) % 3
    for p in range(2 * weight % 3, 9, 3):
        if part[p] >= 2:
            c = list(part)
            c[p] -= 2
            if _sets_only(c):
                return True
    return False


def _sets_only(c: list[int]) -> bool:
    for r in range(7):
        k = c[r] % 3
        if k:
            c[r + 1] -= k
            c[r + 2] -= k
            if c[r + 1] < 0 or c[r + 2] < 0:
                return False
    return c[7] % 3 == 0 and c[8] % 3 == 0


def _plain_seven_pairs(nat: Sequence[int], quad_pairs: bool) -> bool:
    twos = list(nat).count(2)
    if not quad_pairs:
        return twos == 7
    fours = list(nat).count(4)
    return twos + 2 * fours == 7 and twos + fours + list(nat).count(0) == KINDS


def _tiles(indices: Iterable[int]) -> tuple[Tile, ...]:
    return tuple(Tile.from_index(i) for i in sorted(indices))


def _standard(
    nat: tuple[int, ...], jokers: int, need_sets: int, caps: tuple[int, ...], honor_seq: bool
) -> list[tuple[tuple[Group, ...], tuple[int, ...], int, int]]:
    """Readings as four sets and a pair: combine per-block options (m, p, s, honors)."""
    blocks: list[tuple[_Option, ...]] = []
    for offset in (0, 9, 18):
        part = nat[offset : offset + 9]
        if any(part):
            opts = _numbered_block(part, offset, jokers, need_sets, caps[offset : offset + 9])
            if not opts:
                return []
            blocks.append(opts)
    honors = nat[27:]
    if any(honors):
        opts = _honor_block(honors, jokers, need_sets, caps[27:], honor_seq)
        if not opts:
            return []
        blocks.append(opts)
    out: list[tuple[tuple[Group, ...], tuple[int, ...], int, int]] = []

    def combine(
        b: int, used: int, sets: int, pairs: int, groups: tuple[Group, ...], fills: tuple[int, ...]
    ) -> None:
        if b == len(blocks):
            free_sets = need_sets - sets
            free_pair = 1 - pairs
            if jokers - used == 3 * free_sets + 2 * free_pair:
                out.append((groups, fills, free_sets, free_pair))
            return
        for j, s, p, g, f in blocks[b]:
            if used + j <= jokers and sets + s <= need_sets and pairs + p <= 1:
                combine(b + 1, used + j, sets + s, pairs + p, groups + g, fills + f)

    combine(0, 0, 0, 0, (), ())
    return out


@lru_cache(maxsize=65536)
def _numbered_block(
    part: tuple[int, ...], offset: int, max_j: int, max_sets: int, caps: tuple[int, ...]
) -> tuple[_Option, ...]:
    """All anchored readings of one suit using at most ``max_j`` wilds: a scan over the ranks
    deciding, at each, how many chows start there, whether a pung and the pair sit there.

    Anchored: no group could be made of the fills alone (that reading is reported as a
    smaller one plus a free group), checked as soon as a group's ranks are all decided."""
    out: list[_Option] = []
    groups: list[Group] = []
    fills = [0] * 9
    c = part
    ahead = [sum(c[r:]) for r in range(10)]

    def scan(r: int, c1: int, c2: int, used: int, sets: int, pair: int) -> None:
        # c1: chows that started at r-1 (need r and r+1); c2: started at r-2 (need r)
        if r == 9:
            flat = tuple(offset + i for i in range(9) for _ in range(fills[i]))
            out.append((used, sets, pair, tuple(groups), flat))
            return
        base = c1 + c2
        have = c[r]
        cap = caps[r]
        left = max_j - used
        if base - have > left or base > cap:
            return
        # the naturals from r on must fit in the pending chows and the groups still to come
        if ahead[r] > 2 * c1 + c2 + 3 * (max_sets - sets) + 2 * (1 - pair):
            return
        max_new = min(max_sets - sets, cap - base) if r <= 6 else 0
        for new in range(max_new + 1):
            if new and c[r] + c[r + 1] + c[r + 2] == 0:
                break
            # the chows from r-1 and r both need r+1; those from r need r+2
            if new and (c1 + new - c[r + 1] > left or new - c[r + 2] > left):
                break
            for pung in (0, 1) if (have and sets + new < max_sets) else (0,):
                for pr in (0, 1) if (have and not pair) else (0,):
                    v = base + new + 3 * pung + 2 * pr
                    f = v - have
                    if v > cap or f < 0 or f > left:
                        continue
                    if f and ((pung and f >= 3) or (pr and f >= 2)):
                        continue  # the wilds alone make that pung / pair
                    if c2 and f and fills[r - 2] and fills[r - 1]:
                        continue  # the wilds alone make the chow that started at r-2
                    n_added = new + pung + pr
                    if new:
                        groups.extend([_CHOW[offset + r]] * new)
                    if pung:
                        groups.append(_PUNG[offset + r])
                    if pr:
                        groups.append(_PAIR[offset + r])
                    fills[r] = f
                    scan(r + 1, new, c1, used + f, sets + new + pung, pair + pr)
                    fills[r] = 0
                    if n_added:
                        del groups[-n_added:]

    scan(0, 0, 0, 0, 0, 0)
    return tuple(out)


def _anchored(groups: Sequence[Group], fills: Sequence[int]) -> bool:
    """False when the fills alone could make one of the groups: that reading is the same as
    a smaller one plus a free group, which is reported instead."""
    if not fills:
        return True
    have = Counter(fills)
    for g in groups:
        need = Counter(t.index for t in g.tiles)
        if all(have[i] >= n for i, n in need.items()):
            return False
    return True


@lru_cache(maxsize=16384)
def _honor_block(
    part: tuple[int, ...], max_j: int, max_sets: int, caps: tuple[int, ...], honor_seq: bool
) -> tuple[_Option, ...]:
    """All anchored readings of the honors: pungs and at most one pair per kind, plus the
    honor sequences when allowed."""
    out: list[_Option] = []
    chow_options: list[tuple[tuple[Group, ...], tuple[int, ...]]] = [((), (0,) * 7)]
    if honor_seq:
        chow_options = []
        for combo in _honor_chow_multisets(part, max_sets):
            covered_by = [0] * 7
            for chow in combo:
                for i in chow:
                    covered_by[i - 27] += 1
            chow_options.append((tuple(_HONOR_CHOW[c] for c in combo), tuple(covered_by)))
    for chows, cover in chow_options:
        per_kind: list[list[tuple[int, int, int, tuple[Group, ...]]]] = []  # (fill, sets, pair)
        ok = True
        for k in range(7):
            have, covered, cap = part[k], cover[k], caps[k]
            choices: list[tuple[int, int, int, tuple[Group, ...]]] = []
            for pung, pr in ((0, 0), (1, 0), (0, 1), (1, 1)):
                if (pung or pr) and not have:
                    continue
                v = covered + 3 * pung + 2 * pr
                if v < have or v > cap or v - have > max_j:  # more fills than wilds
                    continue
                g = ((_PUNG[27 + k],) if pung else ()) + ((_PAIR[27 + k],) if pr else ())
                choices.append((v - have, pung, pr, g))
            if not choices:
                ok = False
                break
            per_kind.append(choices)
        if not ok:
            continue
        for pick in _bounded_picks(per_kind, max_j, max_sets - len(chows)):
            used = sum(x[0] for x in pick)
            sets = len(chows) + sum(x[1] for x in pick)
            pairs = sum(x[2] for x in pick)
            if used > max_j or sets > max_sets or pairs > 1:
                continue
            groups = chows + tuple(g for x in pick for g in x[3])
            fills_l: list[int] = []
            for k in range(7):
                v = cover[k] + 3 * pick[k][1] + 2 * pick[k][2]
                fills_l.extend([27 + k] * (v - part[k]))
            if not _anchored(groups, fills_l):
                continue
            out.append(
                (len(fills_l), sets, pairs, tuple(sorted(groups, key=_group_order)), tuple(fills_l))
            )
    return tuple(out)


_Pick = tuple[int, int, int, tuple[Group, ...]]  # (fills, pungs, pairs, groups) of one kind


def _bounded_picks(
    per_kind: Sequence[Sequence[_Pick]], max_j: int, max_sets: int
) -> Iterator[tuple[_Pick, ...]]:
    """``product(*per_kind)`` in the same order, without the picks that use more than
    ``max_j`` fills, ``max_sets`` pungs or one pair (pruned as soon as a prefix exceeds)."""
    chosen: list[_Pick] = []

    def walk(k: int, used: int, sets: int, pairs: int) -> Iterator[tuple[_Pick, ...]]:
        if k == len(per_kind):
            yield tuple(chosen)
            return
        for pick in per_kind[k]:
            u, s, p = used + pick[0], sets + pick[1], pairs + pick[2]
            if u > max_j or s > max_sets or p > 1:
                continue
            chosen.append(pick)
            yield from walk(k + 1, u, s, p)
            chosen.pop()

    return walk(0, 0, 0, 0)


def _honor_chow_multisets(
    part: tuple[int, ...], max_sets: int
) -> list[tuple[tuple[int, int, int], ...]]:
    """Multisets of honor sequences, each holding at least one natural honor."""
    usable = [c for c in _HONOR_CHOWS if any(part[i - 27] for i in c)]
    out: list[tuple[tuple[int, int, int], ...]] = []
    for n in range(max_sets + 1):
        out.extend(combinations_with_replacement(usable, n))
    return out


def _seven_pairs(
    nat: tuple[int, ...], jokers: int, quad_pairs: bool, caps: tuple[int, ...], wt: tuple[Tile, ...]
) -> list[Decomposition]:
    groups: list[Group] = []
    fills: list[int] = []
    for i, n in enumerate(nat):
        if not n:
            continue
        if n <= 2:
            pairs = 1
        elif quad_pairs:
            pairs = 2
        else:
            return []
        if 2 * pairs > caps[i]:
            return []
        groups.extend([_PAIR[i]] * pairs)
        fills.extend([i] * (2 * pairs - n))
    if len(groups) > 7 or len(fills) > jokers:
        return []
    return [Decomposition(Shape.SEVEN_PAIRS, tuple(groups), _tiles(fills), 0, 7 - len(groups), wt)]


def _thirteen_orphans(
    nat: tuple[int, ...], jokers: int, wt: tuple[Tile, ...]
) -> list[Decomposition]:
    if any(n for i, n in enumerate(nat) if i not in _ORPHAN_SET):
        return []
    doubles = [i for i in _ORPHANS if nat[i] == 2]
    if any(nat[i] > 2 for i in _ORPHANS) or len(doubles) > 1:
        return []
    missing = [i for i in _ORPHANS if nat[i] == 0]
    out: list[Decomposition] = []
    for pair in doubles or list(_ORPHANS):
        fills = missing + ([] if doubles else [pair])
        if len(fills) != jokers:
            continue
        groups = tuple(_PAIR[i] if i == pair else _SINGLE[i] for i in _ORPHANS)
        out.append(Decomposition(Shape.THIRTEEN_ORPHANS, groups, _tiles(fills), 0, 0, wt))
    return out


_ORPHAN_SET = frozenset(_ORPHANS)


def _misfit_rank_sets() -> tuple[tuple[int, ...], ...]:
    """Rank sets (0-based) of one suit whose ranks are pairwise at least 3 apart."""
    found: list[tuple[int, ...]] = [()]
    for size in (1, 2, 3):
        for combo in combinations_with_replacement(range(9), size):
            if len(set(combo)) == size and all(b - a >= 3 for a, b in pairwise(combo)):
                found.append(combo)
    return tuple(found)


_MISFIT_RANK_SETS = _misfit_rank_sets()


def _singles(
    nat: tuple[int, ...], jokers: int, wt: tuple[Tile, ...], shape: Shape
) -> list[Decomposition]:
    """Thirteen misfits or all unrelated: 14 different tiles.

    With wilds there can be thousands of completions that differ only in which suited tile
    a wild stands for; none of the cities' patterns tells them apart, so two representative
    readings are reported: the one with the most honors (seven-star), and the one with the
    most wilds at face value (when different)."""
    if any(n > 1 for n in nat):
        return []
    wild_kinds = Counter(t.index for t in wt)
    honors_have = [27 + k for k in range(7) if nat[27 + k]]
    honors_missing = [27 + k for k in range(7) if not nat[27 + k]]
    # per suit: the rank sets the suit may end with, by the number of tiles filled
    if shape is Shape.THIRTEEN_MISFITS:
        layouts: list[tuple[tuple[tuple[int, ...], ...], ...]] = [
            tuple(_MISFIT_RANK_SETS for _ in range(3))
        ]
    else:
        layouts = [
            tuple(tuple(s for s in _subsets(_KNITS[perm[suit]])) for suit in range(3))
            for perm in permutations(range(3))
        ]
    best: dict[str, tuple[tuple[int, int], tuple[int, ...]]] = {}
    for layout in layouts:
        per_suit: list[dict[int, tuple[int, tuple[int, ...]]]] = []  # size -> (face, fills)
        ok = True
        for suit in range(3):
            have = tuple(r for r in range(9) if nat[suit * 9 + r])
            options: dict[int, tuple[int, tuple[int, ...]]] = {}
            for rank_set in layout[suit]:
                if not set(have) <= set(rank_set):
                    continue
                added = tuple(suit * 9 + r for r in rank_set if r not in have)
                face = sum(1 for i in added if wild_kinds[i])
                size = len(added)
                if size not in options or face > options[size][0]:
                    options[size] = (face, added)
            if not options:
                ok = False
                break
            per_suit.append(options)
        if not ok:
            continue
        honor_face = sorted(honors_missing, key=lambda i: -wild_kinds[i])
        for sizes in product(*(sorted(o) for o in per_suit)):
            suited = sum(sizes)
            n_honors = jokers - suited
            if not 0 <= n_honors <= len(honors_missing):
                continue
            honor_fill = tuple(honor_face[:n_honors])
            fills = tuple(i for s in range(3) for i in per_suit[s][sizes[s]][1]) + honor_fill
            at_face = sum(min(wild_kinds[i], 1) for i in set(fills))
            honors_total = len(honors_have) + n_honors
            ranking = (("honors", (honors_total, at_face)), ("face", (at_face, honors_total)))
            for name, rank in ranking:
                if name not in best or rank > best[name][0]:
                    best[name] = (rank, fills)
    out: list[Decomposition] = []
    seen: set[tuple[int, ...]] = set()
    for name in ("honors", "face"):
        if name not in best:
            continue
        fills = tuple(sorted(best[name][1]))
        if fills in seen:
            continue
        seen.add(fills)
        values = sorted([i for i, n in enumerate(nat) if n] + list(fills))
        groups = tuple(_SINGLE[i] for i in values)
        out.append(Decomposition(shape, groups, _tiles(fills), 0, 0, wt))
    return out


def _subsets(ranks: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    for mask in range(1 << len(ranks)):
        yield tuple(r for b, r in enumerate(ranks) if mask >> b & 1)


def _knitted_dragon(
    nat: tuple[int, ...], jokers: int, need_sets: int, caps: tuple[int, ...], wt: tuple[Tile, ...]
) -> list[Decomposition]:
    """1-4-7, 2-5-8, 3-6-9 each in a different suit, plus the remaining set(s) and a pair;
    no honors (INTERPRETATION.md, Shaanxi)."""
    if any(nat[27:]):
        return []
    out: list[Decomposition] = []
    for perm in permutations(range(3)):
        knit = [suit * 9 + r for suit in range(3) for r in _KNITS[perm[suit]]]
        rest = list(nat)
        fills: list[int] = []
        for i in knit:
            if rest[i]:
                rest[i] -= 1
            else:
                fills.append(i)
        left = jokers - len(fills)
        if left < 0:
            continue
        knitted = tuple(_group(GroupKind.KNITTED, knit[s * 3 : s * 3 + 3]) for s in range(3))
        caps_rest = tuple(caps[i] - (1 if i in knit else 0) for i in range(KINDS))
        for groups, more, free_sets, free_pair in _standard(
            tuple(rest), left, need_sets, caps_rest, False
        ):
            out.append(
                Decomposition(
                    Shape.KNITTED_DRAGON,
                    tuple(sorted(knitted + groups, key=_group_order)),
                    _tiles(fills + list(more)),
                    free_sets,
                    free_pair,
                    wt,
                )
            )
    return out


def clear_caches() -> None:
    """Forget memoised readings (benchmarks use it to time a cold engine)."""
    _decompose_cached.cache_clear()
    _numbered_block.cache_clear()
    _honor_block.cache_clear()
    for cache in _PLAIN_SUITS:
        cache.clear()
    for flags in _SUIT_WINS:
        flags.clear()


__all__ = [
    "Decomposition",
    "Group",
    "GroupKind",
    "Shape",
    "ShapeRules",
    "Suit",
    "Wait",
    "WaitKind",
    "all_pairs",
    "all_sets",
    "chow_of",
    "clear_caches",
    "counts",
    "decompose",
    "is_winning",
    "kong_group",
    "pair_of",
    "pung_of",
    "ready_tiles",
    "tiles",
    "wait_kind",
]
