"""Hand layouts as players photograph them: which tiles lie where on the table.

A layout is a list of :class:`PlacedTile` in table millimetres (x to the player's right, y away
from the player, z up), grouped into a concealed hand row, exposed melds set apart by gaps
(the called tile turned sideways, an added kong stacked on it, a concealed kong with two
face-down tiles), flowers beside, and an indicator tile or up to three fishing tiles set
apart above the hand. The hand content is a real winning shape (four sets and a pair, or
seven pairs) that respects the four copies of each tile.

>>> import numpy as np
>>> layout = random_layout(np.random.default_rng(1), TileSize(30, 40, 22))
>>> sum(t.role is Role.HAND for t in layout.tiles) + 3 * len(layout.melds) >= 14
True
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from hupai.scoring.tiles import EVERY_TILE, KINDS, Tile
from hupai.vision.classes import BACK, class_of


class Role(StrEnum):
    HAND = "hand"
    MELD = "meld"
    FLOWERS = "flowers"
    INDICATOR = "indicator"
    FISHING = "fishing"
    DISCARD = "discard"  # other tiles lying face up on the table (discards, a scattered pile)
    WALL = "wall"  # a row of face-down tiles, often two high


class MeldKind(StrEnum):
    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"  # exposed (melded) kong: one tile sideways
    ADDED_KONG = "added_kong"  # a pung with the fourth tile stacked on the sideways tile
    CONCEALED_KONG = "concealed_kong"  # four tiles, two of them face down


class Pose(StrEnum):
    FLAT = "flat"  # lying on the table, face up (or down)
    STANDING = "standing"  # upright on its bottom edge, face towards the player


@dataclass(frozen=True)
class TileSize:
    """Tile body in mm: face width, face height, thickness."""

    width: float
    height: float
    thickness: float


@dataclass
class PlacedTile:
    """One tile of a layout, placed on the table (centre of its footprint, in mm)."""

    tile: Tile
    x: float
    y: float
    yaw: float = 0.0  # degrees about the table normal; 90 = turned sideways
    z: float = 0.0  # height of its lowest point (a stacked tile lies on another)
    pose: Pose = Pose.FLAT
    lean: float = 0.0  # standing tiles: degrees leaned back from upright
    face_down: bool = False
    sideways: bool = False
    stacked: bool = False
    winning: bool = False
    row: int = 0
    group: int = 0
    role: Role = Role.HAND
    meld: MeldKind | None = None

    @property
    def cls(self) -> int:
        """Detector class: the tile's, or ``back`` when it lies face down."""
        return BACK if self.face_down else class_of(self.tile)


@dataclass
class Group:
    id: int
    role: Role
    row: int
    meld: MeldKind | None = None
    tiles: list[int] = field(default_factory=list)  # indices into Layout.tiles


@dataclass(frozen=True)
class Prop:
    """A box on the table that is not a tile: ``x1 y1 x2 y2`` footprint and height, in mm."""

    kind: str
    x1: float
    y1: float
    x2: float
    y2: float
    height: float


@dataclass
class Layout:
    size: TileSize
    tiles: list[PlacedTile] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    scene: str = "hand"  # "hand": a winning hand; "block": tiles set out in a grid
    props: list[Prop] = field(default_factory=list)  # things that are not tiles (a rack)

    @property
    def melds(self) -> list[Group]:
        return [g for g in self.groups if g.role is Role.MELD]


# -- hand content ----------------------------------------------------------------------------

SUITED = [t for t in EVERY_TILE[:27]]
HONORS = list(EVERY_TILE[27:KINDS])
FLOWERS = list(EVERY_TILE[KINDS:])


@dataclass
class HandPlan:
    concealed: list[Tile]
    melds: list[tuple[MeldKind, list[Tile]]]
    winning: Tile
    flowers: list[Tile]
    indicator: list[Tile]  # 0 or 1 tile
    fishing: list[Tile]  # 0-3 tiles


def _draw_set(rng: np.random.Generator, used: Counter[Tile], chow: bool) -> list[Tile] | None:
    if chow:
        suit = int(rng.integers(3))
        start = int(rng.integers(7))
        tiles = [EVERY_TILE[suit * 9 + start + k] for k in range(3)]
    else:
        pool = SUITED + HONORS * 2  # honors are common in photos of winning hands
        tiles = [pool[int(rng.integers(len(pool)))]] * 3
    need = Counter(tiles)
    if any(used[t] + n > 4 for t, n in need.items()):
        return None
    used.update(need)
    return tiles


def random_hand(rng: np.random.Generator) -> HandPlan:
    """A winning hand: melds, concealed tiles (incl. the winning tile), flowers, extras."""
    used: Counter[Tile] = Counter()
    n_melds = int(rng.choice([0, 1, 2, 3, 4], p=[0.3, 0.22, 0.22, 0.16, 0.1]))
    melds: list[tuple[MeldKind, list[Tile]]] = []
    concealed: list[Tile] = []
    if n_melds == 0 and rng.random() < 0.12:  # seven pairs
        kinds = rng.choice(KINDS, size=7, replace=False)
        for k in kinds:
            concealed += [EVERY_TILE[int(k)]] * 2
            used[EVERY_TILE[int(k)]] += 2
    else:
        sets = 0
        while sets < 4:
            chow = rng.random() < 0.55
            tiles = _draw_set(rng, used, chow)
            if tiles is None:
                continue
            if sets < n_melds:
                kind = MeldKind.CHOW if chow else MeldKind.PUNG
                if not chow and rng.random() < 0.45 and used[tiles[0]] < 4:
                    kind = MeldKind(
                        rng.choice([MeldKind.KONG, MeldKind.ADDED_KONG, MeldKind.CONCEALED_KONG])
                    )
                    tiles = [*tiles, tiles[0]]
                    used[tiles[0]] += 1
                melds.append((kind, tiles))
            else:
                concealed += tiles
            sets += 1
        while True:
            pair = (SUITED + HONORS)[int(rng.integers(KINDS))]
            if used[pair] <= 2:
                used[pair] += 2
                concealed += [pair, pair]
                break
    winning = concealed[int(rng.integers(len(concealed)))]
    n_flowers = int(rng.choice([0, 0, 0, 1, 1, 2, 3, 4]))
    flowers = [FLOWERS[int(i)] for i in rng.choice(8, size=n_flowers, replace=False)]
    free = [t for t in SUITED + HONORS if used[t] < 4]
    extra = rng.random()
    indicator = [free[int(rng.integers(len(free)))]] if extra < 0.3 else []
    fishing = []
    if 0.3 <= extra < 0.5:
        fishing = [
            free[int(i)] for i in rng.choice(len(free), size=int(rng.integers(1, 4)), replace=False)
        ]
    return HandPlan(concealed, melds, winning, flowers, indicator, fishing)


# -- placement -------------------------------------------------------------------------------


class _Builder:
    def __init__(self, rng: np.random.Generator, size: TileSize) -> None:
        self.rng, self.size, self.layout = rng, size, Layout(size)
        # between touching tiles, mm: a third of the hands stand edge to edge
        self.gap = 0.0 if rng.random() < 0.33 else float(rng.uniform(0.0, 1.2))
        # how carelessly tiles are laid — never more than half the gap, so that neighbours
        # do not interpenetrate (tiles pushed edge to edge stand in a neat row)
        self.jitter = min(float(rng.choice([0.0, 0.3, 0.8])), self.gap / 2)

    def group(self, role: Role, row: int, meld: MeldKind | None = None) -> Group:
        g = Group(len(self.layout.groups), role, row, meld)
        self.layout.groups.append(g)
        return g

    def add(
        self, g: Group, tile: Tile, x: float, y: float, *, exact: bool = False, **kw: object
    ) -> PlacedTile:
        j = 0.0 if exact else self.jitter  # exact: the caller already placed it with care
        p = PlacedTile(
            tile,
            x + float(self.rng.normal(0, j)),
            y + float(self.rng.normal(0, j)),
            yaw=float(kw.pop("yaw", 0.0)) + float(self.rng.normal(0, 1.2 * j)),  # type: ignore[arg-type]
            row=g.row,
            group=g.id,
            role=g.role,
            meld=g.meld,
            **kw,  # type: ignore[arg-type]
        )
        g.tiles.append(len(self.layout.tiles))
        self.layout.tiles.append(p)
        return p

    def flat_run(self, g: Group, tiles: list[Tile], x0: float, y0: float) -> float:
        """Tiles side by side, bottom edges on y0; returns the x after the last one."""
        w, h = self.size.width, self.size.height
        x = x0
        for t in tiles:
            self.add(g, t, x + w / 2, y0 + h / 2)
            x += w + self.gap
        return x

    def meld(self, g: Group, kind: MeldKind, tiles: list[Tile], x0: float, y0: float) -> float:
        w, h, th = self.size.width, self.size.height, self.size.thickness
        rng = self.rng
        x = x0
        if kind is MeldKind.CONCEALED_KONG:
            outer_down = rng.random() < 0.6
            for i, t in enumerate(tiles):
                down = (i in (0, 3)) == outer_down
                self.add(g, t, x + w / 2, y0 + h / 2, face_down=down)
                x += w + self.gap
            return x
        # The called tile turns sideways: left, middle or right (from whom it was called).
        side = int(rng.integers(3)) if kind is not MeldKind.KONG else int(rng.choice([0, 1, 3]))
        base = tiles[:3] if kind is MeldKind.ADDED_KONG else tiles
        for i, t in enumerate(base):
            if i == min(side, len(base) - 1):
                yaw = float(rng.choice([90.0, -90.0]))
                cx, cy = x + h / 2, y0 + w / 2
                self.add(g, t, cx, cy, yaw=yaw, sideways=True)
                if kind is MeldKind.ADDED_KONG:
                    if rng.random() < 0.7:  # stacked on the sideways tile
                        self.add(g, tiles[3], cx, cy, yaw=yaw, sideways=True, stacked=True, z=th)
                    else:  # or laid beside it, further from the player
                        self.add(g, tiles[3], cx, cy + w + self.gap, yaw=yaw, sideways=True)
                x += h + self.gap
            else:
                self.add(g, t, x + w / 2, y0 + h / 2)
                x += w + self.gap
        return x


def _sorted_hand(rng: np.random.Generator, tiles: list[Tile]) -> list[Tile]:
    if rng.random() < 0.8:
        return sorted(tiles, key=lambda t: t.index)
    return [tiles[int(i)] for i in rng.permutation(len(tiles))]


def footprint(t: PlacedTile, size: TileSize) -> tuple[float, float, float, float]:
    """Axis-aligned box ``(x1, y1, x2, y2)`` around a tile's footprint on the table."""
    w = size.width
    d = size.thickness if t.pose is Pose.STANDING else size.height
    c, s = abs(np.cos(np.radians(t.yaw))), abs(np.sin(np.radians(t.yaw)))
    hx, hy = (c * w + s * d) / 2, (s * w + c * d) / 2
    return (t.x - hx, t.y - hy, t.x + hx, t.y + hy)


def _free_spot(
    box: tuple[float, float, float, float], taken: list[tuple[float, ...]], margin: float = 1.0
) -> bool:
    return all(
        min(box[2], o[2]) - max(box[0], o[0]) <= -margin
        or min(box[3], o[3]) - max(box[1], o[1]) <= -margin
        for o in taken
    )


def _add_table_tiles(rng: np.random.Generator, b: _Builder) -> None:
    """Discards (neat rows or a scattered pile) and a wall of face-down tiles, sometimes."""
    size, layout = b.size, b.layout
    w, h, th = size.width, size.height, size.thickness
    used = Counter(t.tile for t in layout.tiles)
    taken: list[tuple[float, ...]] = [footprint(t, size) for t in layout.tiles]

    def draw() -> Tile:
        free = [t for t in SUITED + HONORS if used[t] < 4]
        tile = free[int(rng.integers(len(free)))]
        used[tile] += 1
        return tile

    x_lo = min(o[0] for o in taken)
    x_hi = max(o[2] for o in taken)
    y_hi = max(o[3] for o in taken)
    y_lo = min(o[1] for o in taken)
    if rng.random() < 0.25:
        g = b.group(Role.DISCARD, row=4)
        n = int(rng.integers(4, 21))
        neat = rng.random() < 0.5
        base_y = (y_hi if rng.random() < 0.75 else y_lo - 4 * h) + float(rng.uniform(0.5, 2)) * h
        for k in range(n):
            for _try in range(30):
                if neat:  # discard rows of six, a little untidy
                    x = x_lo + (k % 6) * (w + 0.8) + w / 2 + float(rng.normal(0, 0.8))
                    y = base_y + (k // 6) * (h + 0.8) + h / 2 + float(rng.normal(0, 0.8))
                    yaw = float(rng.normal(0, 3))
                else:
                    x = float(rng.uniform(x_lo - 2 * w, x_hi + 2 * w))
                    y = base_y + float(rng.uniform(0, 4 * h))
                    yaw = float(rng.uniform(-180, 180))
                probe = PlacedTile(Tile.parse("1m"), x, y, yaw=yaw)
                box = footprint(probe, size)
                if _free_spot(box, taken):
                    taken.append(box)
                    b.add(g, draw(), x, y, yaw=yaw, exact=True)
                    break
    if rng.random() < 0.2:
        g = b.group(Role.WALL, row=5)
        n = int(rng.integers(5, 18))
        two_high = rng.random() < 0.7
        y = max(o[3] for o in taken) + float(rng.uniform(0.5, 3)) * h + h / 2
        x0 = x_lo + float(rng.uniform(-3, 3)) * w
        for k in range(n):
            x = x0 + k * (w + 1.0 + 3 * b.jitter) + w / 2
            b.add(g, draw(), x, y, face_down=True)
            if two_high:
                b.add(g, draw(), x, y, face_down=True, stacked=True, z=th)


def overlapping(layout: Layout, tolerance: float = 1.5) -> bool:
    """Whether two tiles on the same level would interpenetrate."""
    boxes = [(footprint(t, layout.size), t.z) for t in layout.tiles]
    for i, (a, za) in enumerate(boxes):
        for b, zb in boxes[i + 1 :]:
            if za != zb:
                continue
            if (
                min(a[2], b[2]) - max(a[0], b[0]) > tolerance
                and min(a[3], b[3]) - max(a[1], b[1]) > tolerance
            ):
                return True
    return False


#: Share of scenes that are a grid of tiles instead of a hand (as many real photos are).
BLOCK_SHARE = 0.1


def block_layout(rng: np.random.Generator, size: TileSize) -> Layout:
    """Tiles set out in rows and columns, touching or spaced (one group per row)."""
    b = _Builder(rng, size)
    b.layout.scene = "block"
    w, h = size.width, size.height
    rows, cols = int(rng.integers(1, 6)), int(rng.integers(3, 10))
    spaced = rng.random() < 0.3
    gx = float(rng.uniform(0.2, 1.2)) * w if spaced else b.gap
    gy = float(rng.uniform(0.2, 1.2)) * h if spaced else float(rng.uniform(0.0, 1.5))
    used: Counter[Tile] = Counter()
    kinds = [*SUITED, *HONORS, *FLOWERS]
    for r in range(rows):
        g = b.group(Role.DISCARD, row=r)
        for c in range(cols):
            tile = kinds[int(rng.integers(len(kinds)))]
            while used[tile] >= (1 if tile.is_flower else 4):
                tile = kinds[int(rng.integers(len(kinds)))]
            used[tile] += 1
            # Rows run away from the player: row 0 is nearest.
            b.add(
                g,
                tile,
                c * (w + gx) + w / 2,
                r * (h + gy) + h / 2,
                face_down=bool(rng.random() < 0.04),
            )
    return b.layout


#: Pictures on a printed sheet, and the thickness (mm) a printed picture is given.
PRINTED_PICTURES = (50, 100)
PRINT_THICKNESS = 0.2


def printed_layout(rng: np.random.Generator, size: TileSize) -> Layout:
    """A printed sheet of 50-100 tile pictures in rows (a chart of the tiles, a page of a
    rule book): each picture a flat tile of paper thickness, all of them labelled. Sheets
    mostly run through the tiles in order, suit by suit; pictures repeat freely."""
    w = float(rng.uniform(9, 20))
    picture = TileSize(w, w * size.height / size.width, PRINT_THICKNESS)
    b = _Builder(rng, picture)
    b.layout.scene = "printed"
    n = int(rng.integers(PRINTED_PICTURES[0], PRINTED_PICTURES[1] + 1))
    cols = int(rng.integers(8, 15))
    gx = float(rng.uniform(0.0, 0.5)) * w
    gy = float(rng.uniform(0.1, 0.9)) * picture.height  # room for captions between rows
    kinds = [*SUITED, *HONORS, *FLOWERS]
    ordered = rng.random() < 0.7
    start = int(rng.integers(len(kinds)))
    for k in range(n):
        r, c = divmod(k, cols)
        if c == 0:
            g = b.group(Role.DISCARD, row=r)
        tile = kinds[(start + k) % len(kinds)] if ordered else kinds[int(rng.integers(len(kinds)))]
        b.add(
            g,
            tile,
            c * (w + gx) + w / 2,
            -r * (picture.height + gy) - picture.height / 2,  # the first row is the far one
            exact=True,
        )
    return b.layout


def random_layout(rng: np.random.Generator, size: TileSize) -> Layout:
    """A random winning hand laid out on the table (or, sometimes, a block of tiles), no two
    tiles interpenetrating."""
    if rng.random() < BLOCK_SHARE:
        return block_layout(rng, size)
    for _ in range(20):
        b = _random_layout(rng, size)
        if not overlapping(b.layout):
            break
    _add_table_tiles(rng, b)
    return b.layout


def _random_layout(rng: np.random.Generator, size: TileSize) -> _Builder:
    plan = random_hand(rng)
    b = _Builder(rng, size)
    w, h, th = size.width, size.height, size.thickness

    def group_gap() -> float:
        return float(rng.uniform(0.25, 1.6)) * w

    # The concealed hand, the winning tile at its end (often set a little apart).
    concealed = list(plan.concealed)
    concealed.remove(plan.winning)
    concealed = _sorted_hand(rng, concealed)
    standing = rng.random() < 0.2
    lean = float(rng.choice([0.0, rng.uniform(5, 22)])) if standing else 0.0
    rack = float(rng.uniform(8, 20)) if standing and rng.random() < 0.6 else 0.0
    hand = b.group(Role.HAND, row=0)
    x = 0.0
    hand_y = 0.0
    if standing:
        for t in concealed:
            b.add(hand, t, x + w / 2, hand_y + th / 2, pose=Pose.STANDING, lean=lean)
            x += w + b.gap
    else:
        x = b.flat_run(hand, concealed, 0.0, hand_y)
    x += float(rng.choice([0.0, rng.uniform(0.3, 1.0) * w]))
    if standing:
        b.add(
            hand,
            plan.winning,
            x + w / 2,
            hand_y + th / 2,
            pose=Pose.STANDING,
            lean=lean,
            winning=True,
        )
    else:
        b.add(hand, plan.winning, x + w / 2, hand_y + h / 2, winning=True)
    x += w
    hand_end = x
    if rack:  # the rack's front lip, in front of the standing tiles
        b.layout.props.append(
            Prop(
                "rack",
                -3.0,
                hand_y - rack,
                hand_end + 3.0,
                hand_y - 0.5,
                float(rng.uniform(0.15, 0.35)) * h,
            )
        )

    # Exposed melds: same row after the hand, or a row of their own nearer the player
    # (standing hands) or beyond the hand.
    meld_row_y: float | None = None
    if plan.melds:
        where = rng.random()
        if standing:
            meld_row_y = -(h + rack + float(rng.uniform(0.3, 1.5)) * w)
        elif where < 0.6:
            meld_row_y = None
        else:
            meld_row_y = h + float(rng.uniform(0.4, 1.5)) * w
        mx = hand_end + group_gap() if meld_row_y is None else float(rng.uniform(-1, 3)) * w
        my = hand_y if meld_row_y is None else meld_row_y
        row = 0 if meld_row_y is None else 1
        order = list(plan.melds)
        if rng.random() < 0.5:
            order.reverse()
        for kind, tiles in order:
            g = b.group(Role.MELD, row=row, meld=kind)
            mx = b.meld(g, kind, tiles, mx, my) + group_gap() - b.gap

    # Flowers: beside the hand (left end) or on the meld row's end.
    if plan.flowers:
        g = b.group(Role.FLOWERS, row=0)
        if rng.random() < 0.5:
            fx = -(len(plan.flowers) * (w + b.gap)) - group_gap()
            b.flat_run(g, plan.flowers, fx, hand_y if not standing else -h - w)
        else:
            g.row = 2
            fy = -(h + w * float(rng.uniform(0.5, 1.5))) if not standing else -2.2 * h - w
            b.flat_run(g, plan.flowers, float(rng.uniform(0, 4)) * w, fy)

    # Indicator / fishing tiles: set apart above the hand (beyond it, away from the player).
    extra = plan.indicator or plan.fishing
    if extra:
        role = Role.INDICATOR if plan.indicator else Role.FISHING
        top = max(t.y for t in b.layout.tiles) + h / 2 if b.layout.tiles else 0.0
        g = b.group(role, row=3)
        ex = float(rng.uniform(0.0, max(w, hand_end - 4 * w)))
        b.flat_run(g, extra, ex, top + float(rng.uniform(0.6, 2.0)) * h)
    return b
