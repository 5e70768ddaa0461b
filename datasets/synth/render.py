"""Render a hand layout as a photo: 3-D tile boxes seen by a pinhole camera, with exact labels.

Each tile is a box (face width × face height × thickness) with a textured face, a coloured
back and two-tone body sides. A camera 20-70° above the table (sometimes nearly overhead)
looks at the layout from the player's side or elsewhere, rolled, at a distance that makes
tiles 20-120 px wide. Tiles are painted far to near; an id buffer records which tile owns
each pixel, so every label is the tight box of the tile's *visible* pixels (face and body, as
the real set's annotators drew them), and a tile whose face is mostly hidden (under a stacked
kong tile, off the image, behind an object) is left unlabelled and flagged in the sidecar.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from hupai.datasets.synth import effects, surfaces
from hupai.datasets.synth.art import GlyphBank, stored_glyph
from hupai.datasets.synth.faces import (
    RED_FIVES,
    TRAINING_FAMILIES,
    StyleGlyphs,
    draw_face,
    random_style,
)
from hupai.datasets.synth.layout import (
    Layout,
    PlacedTile,
    Pose,
    Prop,
    TileSize,
    printed_layout,
    random_layout,
)
from hupai.datasets.synth.photos import photo_surface
from hupai.scoring.tiles import EVERY_TILE
from hupai.vision.classes import CLASS_NAMES, WHITE_DRAGON

Rng = np.random.Generator

#: Bump when the rendering changes what a seed produces (recorded in each dataset's synth.json).
#: 1: first release (synth-v1); 2: discards and walls, ink palette swaps, more overhead views,
#: mostly white faces, corner indices, some images squeezed to a square, block scenes,
#: leaning standing hands behind a rack; 3: close-ups (tiles 19 % to 70 % of the short
#: side) and far views (tiles 11-22 px) for the class-agnostic finder; 4: the world outside
#: one set — clutter carrying glyphs on the table (text, keyboard keys, cards, dominoes,
#: dice, coins, phones: :mod:`hupai.datasets.clutter`), tiles from squat to tall (width/height
#: 0.6-0.85), a third of the rows edge to edge, and the 60 % rule for tiles cut or hidden.
#: 5: tile faces from procedural set styles (:mod:`hupai.datasets.synth.faces`) when the
#: renderer is given a share of them, with their red fives; standing rows also seen from a low
#: webcam (elevation from 8°); real photographs as tables and rooms when given
#: (:mod:`hupai.datasets.synth.photos`).
#: 6: what fools a one-set reader (issue #35, :class:`SceneMix`): whole keyboards on the
#: table, backlit or not, tiles lying on them; bookshelves beyond the table; cups and shelf
#: edges among the pasted clutter; printed sheets of 50-100 tile pictures, every picture
#: labelled; tile bodies with rounded edges catching the light (:func:`tile_polygons`).
#: 7: a :attr:`SceneMix.plain_white` share of scenes whose white dragons are plain — a blank
#: face or an empty frame ruled in one ink (:func:`plain_white_face`) — a pair or pung of them
#: in a row (finder v3 on render 6 missed a third of the camerash composites' white dragons,
#: framed faces: a plain face was too rare to be learnt as a tile). A mix without
#: that share renders what render 6 rendered. :attr:`SceneMix.tile_shaped`: the share of
#: scenes whose pasted clutter may hold dominoes and lettered blocks (1: as render 6).
#: 8: :data:`hupai.datasets.clutter.TILE_SHAPED` takes in playing cards and phones too (a
#: finder shown cards, a fifth of them framed with a corner letter, passed over the camerash
#: sets' framed white dragons: finder v4c, models/MODEL_CARD.md). Default mix: as render 7.
RENDER_VERSION = 8
#: Share of non-square images squeezed to a square afterwards, like the real set's photos.
STRETCH_SHARE = 0.15
#: A tile is labelled when at least this share of its face (or back) is visible — cut by
#: the photo's edge or hidden under another. The same rule as the namer's part tiles
#: (:data:`hupai.datasets.hard_negatives.COUNTS_FROM`): less than that is not a tile to read.
MIN_VISIBLE_FACE = 0.6
#: Aspect ratios (width, height) an image is drawn with; the long side is the image size.
ASPECTS = ((4, 3), (3, 4), (16, 9), (9, 16), (1, 1))

# Box corners: bottom (z=0) 0-3, top (z=T) 4-7, each (-x,-y) (+x,-y) (+x,+y) (-x,+y).
_SIGNS = np.array(
    [
        [-1, -1, 0],
        [1, -1, 0],
        [1, 1, 0],
        [-1, 1, 0],
        [-1, -1, 1],
        [1, -1, 1],
        [1, 1, 1],
        [-1, 1, 1],
    ],
    np.float32,
)
# Faces as (texture, corners tl tr br bl, outward normal); the face's glyph top is +y.
_FACES = (
    ("face", (7, 6, 5, 4), (0, 0, 1)),
    ("back", (2, 3, 0, 1), (0, 0, -1)),
    ("side_w", (4, 5, 1, 0), (0, -1, 0)),
    ("side_w", (6, 7, 3, 2), (0, 1, 0)),
    ("side_h", (7, 4, 0, 3), (-1, 0, 0)),
    ("side_h", (5, 6, 2, 1), (1, 0, 0)),
)


def _rz(deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)


_FLIP = np.diag([-1.0, 1.0, -1.0])  # face down: turned over about the tile's long axis


def _rx(deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]], np.float64)


def tile_pose(t: PlacedTile, size: TileSize) -> tuple[np.ndarray, np.ndarray]:
    """Rotation and translation taking the tile's local box into table coordinates: the box
    is turned (yaw, upright and leaning back, face down), then moved so that its footprint is
    centred on ``(x, y)`` and its lowest point is at height ``z``."""
    rot = _rz(t.yaw)
    if t.pose is Pose.STANDING:
        rot = rot @ _rx(90.0 - t.lean)  # face towards -y, tilted up by the lean
    if t.face_down:
        rot = rot @ _FLIP
    local = _SIGNS * np.array([size.width / 2, size.height / 2, size.thickness])
    turned = local @ rot.T
    centre = (turned.min(0) + turned.max(0)) / 2
    offset = np.array([t.x - centre[0], t.y - centre[1], t.z - turned[:, 2].min()])
    return rot, offset


def tile_corners(t: PlacedTile, size: TileSize) -> np.ndarray:
    """The 8 corners of a tile's box in table coordinates (mm)."""
    half = np.array([size.width / 2, size.height / 2, size.thickness])
    local = _SIGNS * half
    rot, offset = tile_pose(t, size)
    return np.asarray(local @ rot.T + offset)


#: A rounded edge is drawn as this many flat strips (a quarter circle in facets).
ROUND_STEPS = 3
# The four edges of a ring of box corners (indices into _SIGNS' top or bottom four) and
# their outward directions.
_EDGES_TOP = (((4, 5), (0, -1, 0)), ((6, 7), (0, 1, 0)), ((7, 4), (-1, 0, 0)), ((5, 6), (1, 0, 0)))
_EDGES_BOTTOM = (
    ((1, 0), (0, -1, 0)),
    ((3, 2), (0, 1, 0)),
    ((0, 3), (-1, 0, 0)),
    ((2, 1), (1, 0, 0)),
)


def _box_points(hx: float, hy: float, z0: float, z1: float) -> np.ndarray:
    """The 8 corners (``_SIGNS`` order) of a box ``±hx × ±hy`` from height ``z0`` to ``z1``."""
    pts = np.asarray(_SIGNS, np.float64) * np.array([hx, hy, 1.0])
    pts[:, 2] = np.where(_SIGNS[:, 2] > 0, z1, z0)
    return np.asarray(pts, np.float64)


def tile_polygons(size: TileSize, radius: float) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """A tile body's surface in its own coordinates (before :func:`tile_pose`) as flat
    polygons ``(texture, corners 4×3, outward normal)``: the face and back (their texture's
    top-left corner first), the four sides, and — with a ``radius`` (mm) — the rounded edges
    around the face and the back as :data:`ROUND_STEPS` strips each (``round_face``,
    ``round_back``), mitred at the corners. The body stays within the sharp box."""
    hx, hy, t = size.width / 2, size.height / 2, size.thickness
    r = float(min(radius, 0.45 * t, 0.45 * size.width))
    core = _box_points(hx - r, hy - r, 0.0, t)
    sides = _box_points(hx, hy, r, t - r)
    polys = [
        ("face", core[[7, 6, 5, 4]], np.array([0.0, 0.0, 1.0])),
        ("back", core[[2, 3, 0, 1]], np.array([0.0, 0.0, -1.0])),
    ]
    for name, idx, normal in _FACES[2:]:
        polys.append((name, sides[list(idx)], np.array(normal, np.float64)))
    if r <= 0:
        return polys
    angles = np.linspace(0.0, math.pi / 2, ROUND_STEPS + 1)
    # ring k: inset by r(1 - sin a), lowered from the face by r(1 - cos a)
    rings = [
        _box_points(
            hx - r * (1 - math.sin(a)),
            hy - r * (1 - math.sin(a)),
            r * (1 - math.cos(a)),
            t - r * (1 - math.cos(a)),
        )
        for a in angles
    ]
    for k in range(ROUND_STEPS):
        mid = float(angles[k] + angles[k + 1]) / 2
        a, b = rings[k], rings[k + 1]
        for tex, edges, up in (
            ("round_face", _EDGES_TOP, 1.0),
            ("round_back", _EDGES_BOTTOM, -1.0),
        ):
            for (i, j), outward in edges:
                tilt = math.cos(mid) * np.array([0.0, 0.0, up]) + math.sin(mid) * np.array(
                    outward, np.float64
                )
                polys.append((tex, np.stack([a[i], a[j], b[j], b[i]]), tilt))
    return polys


def _soft_blur(mask: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; wide ones are done at a quarter of the resolution (same look, faster)."""
    if sigma < 4:
        return cv2.GaussianBlur(mask, (0, 0), sigma)
    h, w = mask.shape[:2]
    small = cv2.resize(mask, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / 4)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def prop_box(p: Prop) -> np.ndarray:
    """The 8 corners of a prop's box, in the same order as a tile's."""
    xs = np.where(_SIGNS[:, 0] < 0, p.x1, p.x2)
    ys = np.where(_SIGNS[:, 1] < 0, p.y1, p.y2)
    return np.stack([xs, ys, _SIGNS[:, 2] * p.height], axis=1).astype(np.float64)


# -- camera ----------------------------------------------------------------------------------


@dataclass
class Camera:
    """A pinhole camera: ``P`` maps table points (mm) to pixels."""

    P: np.ndarray  # 3×4
    centre: np.ndarray
    elevation: float
    azimuth: float
    roll: float
    fov: float
    focal: float
    width: int
    height: int

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pixels and depths of table points ``(N, 3)``."""
        h = pts @ self.P[:, :3].T + self.P[:, 3]  # (no homogeneous column: called per polygon)
        depth = h[:, 2]
        return h[:, :2] / np.where(np.abs(depth) < 1e-9, 1e-9, depth)[:, None], depth


def look_at(
    target: np.ndarray,
    elevation: float,
    azimuth: float,
    distance: float,
    focal: float,
    roll: float,
    cx: float,
    cy: float,
) -> tuple[np.ndarray, np.ndarray]:
    el, az = math.radians(elevation), math.radians(azimuth)
    direction = np.array([math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)])
    centre = target + distance * direction
    fwd = -direction
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    rcam = np.stack([right, down, fwd])
    c, s = math.cos(math.radians(roll)), math.sin(math.radians(roll))
    k = np.array([[c * focal, -s * focal, cx], [s * focal, c * focal, cy], [0, 0, 1]])
    return k @ np.c_[rcam, -rcam @ centre], centre


# -- the scene -------------------------------------------------------------------------------


@dataclass
class TileRender:
    """What became of one placed tile in the image."""

    placed: PlacedTile
    xyxy: tuple[int, int, int, int] | None  # tight box of visible pixels, None if none
    visible_face: float  # share of the face (or back) visible
    labelled: bool


@dataclass
class Scene:
    image: np.ndarray  # uint8 BGR
    layout: Layout
    tiles: list[TileRender]
    camera: Camera
    info: dict[str, Any] = field(default_factory=dict)
    jpeg_quality: int = 90
    #: things of about a tile's size that are not tiles (keyboard caps, pasted clutter):
    #: ``(kind, xyxy)`` in the image, for the namer's negatives and the benches' counts
    clutter: list[tuple[str, tuple[int, int, int, int]]] = field(default_factory=list)

    @property
    def labels(self) -> list[tuple[int, tuple[int, int, int, int]]]:
        """``(class, xyxy)`` of every labelled tile."""
        return [(r.placed.cls, r.xyxy) for r in self.tiles if r.labelled and r.xyxy]


@dataclass
class RenderOptions:
    """Switches for tests and ablations; the defaults render a full random scene."""

    clean: bool = False  # no clutter, occluders, glare, lighting, blur or noise
    elevation: tuple[float, float] | None = None
    tile_px: tuple[float, float] | None = None
    keyboard: bool | None = None  # a whole keyboard on the table: forced on/off, or by the mix
    edge_round: float | None = None  # rounded edges' radius (mm): fixed, or the look's
    whole: bool = False  # frame the whole layout (no close-up, nothing cut by the edge)


@dataclass(frozen=True)
class SceneMix:
    """Shares of the scene kinds that fool a reader trained on one set's photos (issue #35):
    ``keyboard`` of the scenes lay a whole keyboard on the table (the tiles on it, or beside
    it), ``printed`` are printed sheets of tile pictures instead of a hand, and ``shelf`` of
    the views that see past the table see a bookshelf there."""

    keyboard: float = 0.08
    printed: float = 0.04
    shelf: float = 0.3
    #: scenes whose white dragons are plain (blank, or an empty frame), a few of them in a row
    plain_white: float = 0.0
    #: scenes whose pasted clutter may hold things shaped like a tile body (dominoes, blocks
    #: with a letter, playing cards, phones: :data:`hupai.datasets.clutter.TILE_SHAPED`): for
    #: a finder, 0 — to the finder any tile body is a tile; the namer's "not a tile" judges
    #: the face
    tile_shaped: float = 1.0

    def __post_init__(self) -> None:
        for name in ("keyboard", "printed", "shelf", "plain_white", "tile_shaped"):
            value = getattr(self, name)
            if not 0 <= value <= 1:
                raise ValueError(f"{name} share {value}: expected a fraction in [0, 1]")


@dataclass(frozen=True)
class GeneratedFaces:
    """Scenes drawn with a procedural set style (:mod:`hupai.datasets.synth.faces`): this
    ``share`` of them (all when the glyph bank is empty), styles of these ``families``."""

    share: float = 0.5
    families: tuple[str, ...] = ()  # empty: the training families
    red_fives: float = 0.3  # share of a style's fives drawn red, in sets that have them

    def __post_init__(self) -> None:
        if not 0 <= self.share <= 1:
            raise ValueError(f"generated share {self.share}: expected a fraction in [0, 1]")


#: A blank face: the white dragon of most Japanese and many Chinese sets.
BLANK_FACE = stored_glyph(np.zeros((0, 0, 4), np.uint8))
#: How a plain white dragon is drawn, and how often: blank, a frame, a double frame.
PLAIN_WHITES = {"blank": 0.4, "frame": 0.35, "double": 0.25}


def plain_white_face(rng: Rng) -> np.ndarray:
    """A white dragon's glyph with nothing inside: blank, or an empty frame (single or
    double) in one of the procedural styles' frame inks.

    >>> rng = np.random.default_rng(0)
    >>> {plain_white_face(rng).shape[:2] == (1, 1) for _ in range(12)}  # blank, and frames
    {False, True}
    """
    kinds = list(PLAIN_WHITES)
    kind = kinds[int(rng.choice(len(kinds), p=list(PLAIN_WHITES.values())))]
    if kind == "blank":
        return BLANK_FACE
    return draw_face(replace(random_style(rng), white=kind), WHITE_DRAGON)


def with_white_dragons(rng: Rng, layout: Layout) -> Layout:
    """``layout`` with a run of 2-3 face-up tiles of one row turned into white dragons (a pair
    or pung of them, as a hand holds them), so that plain faces are seen often enough.

    >>> from hupai.datasets.synth.layout import TileSize, random_layout
    >>> rng = np.random.default_rng(3)
    >>> out = with_white_dragons(rng, random_layout(rng, TileSize(26, 35, 18)))
    >>> sum(t.tile.index == WHITE_DRAGON for t in out.tiles) >= 2
    True
    """
    runs = [
        [i for i in g.tiles if not layout.tiles[i].face_down and not layout.tiles[i].stacked]
        for g in layout.groups
    ]
    runs = [r for r in runs if len(r) >= 2] or [
        [i for i, t in enumerate(layout.tiles) if not t.face_down]
    ]
    up = runs[int(rng.integers(len(runs)))]
    if len(up) < 2:
        return layout
    n = min(len(up), int(rng.integers(2, 4)))
    start = int(rng.integers(len(up) - n + 1))
    chosen = set(up[start : start + n])
    white = EVERY_TILE[WHITE_DRAGON]
    tiles = [replace(t, tile=white) if i in chosen else t for i, t in enumerate(layout.tiles)]
    return replace(layout, tiles=tiles)


class Renderer:
    """Renders scenes from one glyph bank (and, given ``generated``, procedural set styles);
    cheap to call many times in one process."""

    def __init__(
        self,
        bank: GlyphBank,
        generated: GeneratedFaces | None = None,
        photos: list[np.ndarray] | None = None,
        photo_share: float = 0.4,
        mix: SceneMix | None = None,
    ) -> None:
        if not bank and generated is None:
            raise ValueError("no glyphs: the art cache is empty")
        self.bank = bank
        self.set_names = sorted(bank)
        self.generated = generated
        # real photographs as tables and rooms (hupai.datasets.synth.photos), this share of each
        self.photos = photos or []
        self.photo_share = photo_share
        self.mix = mix or SceneMix()

    # -- choices -----------------------------------------------------------------------------
    def _camera(
        self, rng: Rng, layout: Layout, width: int, height: int, opts: RenderOptions
    ) -> tuple[Camera, list[np.ndarray], float]:
        size = layout.size
        corners = [tile_corners(t, size) for t in layout.tiles]
        pts = np.concatenate(corners)
        lo, hi = pts.min(0), pts.max(0)
        extent = float(max(hi[0] - lo[0], hi[1] - lo[1], size.height))
        standing = any(t.pose is Pose.STANDING for t in layout.tiles)

        if opts.elevation:
            elevation = float(rng.uniform(*opts.elevation))
        elif standing:  # a seated player's phone, or a webcam low over the table's edge
            elevation = float(rng.uniform(15, 55) if rng.random() < 0.75 else rng.uniform(8, 15))
        else:
            r = rng.random()  # mostly from above, as hands are photographed; rarely grazing
            elevation = float(
                rng.uniform(35, 70)
                if r < 0.55
                else rng.uniform(20, 35)
                if r < 0.8
                else rng.uniform(70, 88)
            )
        r = rng.random()
        if standing:
            azimuth = float(rng.uniform(-35, 35))
        elif r < 0.6:
            azimuth = float(rng.normal(0, 20))
        elif r < 0.85:
            azimuth = float(rng.uniform(-90, 90))
        else:
            azimuth = float(rng.uniform(-180, 180))
        r = rng.random()
        roll = float(
            rng.normal(0, 6)
            if r < 0.6
            else rng.uniform(-45, 45)
            if r < 0.85
            else rng.uniform(-180, 180)
        )
        if opts.clean:
            azimuth, roll = float(rng.uniform(-10, 10)), float(rng.uniform(-5, 5))
        fov = float(rng.uniform(55, 80))
        focal = math.hypot(width, height) / 2 / math.tan(math.radians(fov) / 2)

        target = (lo + hi) / 2
        target[2] = 0
        target[:2] += rng.normal(0, 0.08 * extent, 2)
        # Measure the layout at a reference distance to know which tile size fits it all.
        ref_px = 40.0
        ref_distance = focal * size.width / ref_px
        p_ref, _ = look_at(target, elevation, azimuth, ref_distance, focal, roll, 0, 0)
        uv, depth = Camera(
            p_ref, target, elevation, azimuth, roll, fov, focal, width, height
        ).project(pts)
        uv = uv[depth > 0.05 * ref_distance]
        span = np.ptp(uv, axis=0) if len(uv) else np.array([1.0, 1.0])
        fit_px = ref_px * 0.92 * min(width / max(span[0], 1), height / max(span[1], 1))
        scale_draw = rng.random()
        if opts.tile_px:
            tile_px = float(rng.uniform(*opts.tile_px))
        elif opts.whole:
            tile_px = float(np.clip(0.9 * fit_px, 6, 160))
        elif scale_draw < 0.12:  # close up: a few tiles fill much of the frame
            short = min(width, height)  # 120-450 px at 640
            tile_px = float(math.exp(rng.uniform(math.log(0.19 * short), math.log(0.7 * short))))
        elif scale_draw < 0.2:  # far: many small tiles
            tile_px = float(rng.uniform(11, 22))
        elif scale_draw < 0.65:  # the whole layout in the picture, filling much of it
            tile_px = float(np.clip(rng.uniform(0.7, 1.05) * fit_px, 14, 120))
        else:  # closer: part of the layout may fall outside the picture
            tile_px = float(math.exp(rng.uniform(math.log(25), math.log(120))))
        distance = ref_distance * ref_px / tile_px

        p0, _ = look_at(target, elevation, azimuth, distance, focal, roll, 0, 0)
        cam0 = Camera(p0, target, elevation, azimuth, roll, fov, focal, width, height)
        uv, depth = cam0.project(pts)
        uv = uv[depth > 0.05 * distance]
        (bx1, by1), (bx2, by2) = uv.min(0), uv.max(0)
        cx = self._place(rng, bx1, bx2, width)
        cy = self._place(rng, by1, by2, height)
        p, centre = look_at(target, elevation, azimuth, distance, focal, roll, cx, cy)
        cam = Camera(p, centre, elevation, azimuth, roll, fov, focal, width, height)
        return cam, corners, tile_px

    @staticmethod
    def _place(rng: Rng, lo: float, hi: float, span: int) -> float:
        """Principal point offset putting the projected extent [lo, hi] into [0, span]."""
        margin = 0.02 * span
        a, b = margin - lo, span - margin - hi
        return float(rng.uniform(min(a, b), max(a, b)))

    def _style(self, rng: Rng) -> StyleGlyphs | None:
        """A procedural set style for this scene, or ``None`` for a set of the bank."""
        gen = self.generated
        if gen is None or (self.set_names and rng.random() >= gen.share):
            return None
        style = random_style(rng, gen.families or TRAINING_FAMILIES)
        return StyleGlyphs(style, red_fives=gen.red_fives if rng.random() < 0.3 else 0.0)

    @staticmethod
    def _style_glyph(rng: Rng, style: StyleGlyphs, cls: int) -> np.ndarray:
        return style.glyph(cls, red=cls in RED_FIVES and rng.random() < style.red_fives)

    def _glyph(self, rng: Rng, set_name: str, cls: int, fallback: list[str]) -> np.ndarray:
        for name in (set_name, *fallback):
            variants = self.bank.get(name, {}).get(cls)
            if variants:
                if len(variants) > 1 and rng.random() < 0.3:
                    return variants[int(rng.integers(1, len(variants)))]
                return variants[0]
        raise ValueError(f"no glyph for class {CLASS_NAMES[cls]} in any art set")

    # -- drawing -----------------------------------------------------------------------------
    def _table(
        self, rng: Rng, cam: Camera, layout: Layout, clean: bool, tile_px: float
    ) -> np.ndarray:
        """The table (in perspective) and, beyond its edge, the room (a bookshelf in a
        :attr:`SceneMix.shelf` share); a printed layout's sheet of paper on the table."""
        w, h = cam.width, cam.height
        pts = np.concatenate([tile_corners(t, layout.size) for t in layout.tiles])
        lo, hi = pts.min(0)[:2], pts.max(0)[:2]
        half = float(rng.uniform(350, 750))
        centre = (lo + hi) / 2 + rng.normal(0, 100, 2)
        x0, y0 = centre - half
        res = int(min(640, max(256, 2 * half * 0.9)))
        s = res / (2 * half)  # texture px per mm
        photo = bool(self.photos) and rng.random() < self.photo_share
        if photo:  # a real photograph as the table (a share of scenes, when given photos)
            tex = photo_surface(rng, self.photos, res, res)
        else:
            tex = surfaces.table_texture(rng, res, res)
        keep = ((lo[0] - x0) * s, (lo[1] - y0) * s, (hi[0] - x0) * s, (hi[1] - y0) * s)
        if layout.scene == "printed":  # the sheet the pictures are printed on
            pad = float(rng.uniform(0.3, 1.2)) * layout.size.height * s
            paper = surfaces.jitter_colour(rng, (238, 242, 244), 0.05)
            cv2.rectangle(
                tex,
                (int(keep[0] - pad), int(keep[1] - pad)),
                (int(keep[2] + pad), int(keep[3] + pad)),
                [float(c) for c in paper],
                -1,
            )
        if not clean and rng.random() < 0.6:
            surfaces.flat_clutter(rng, tex, s, keep, int(rng.integers(1, 6)))

        a = np.array([[1 / s, 0, x0], [0, 1 / s, y0], [0, 0, 1]])
        hom = cam.P[:, [0, 1, 3]] @ a
        inside = cv2.warpPerspective(
            np.ones((res, res), np.float32),
            hom,
            (w, h),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=0,
        )
        table = cv2.warpPerspective(
            tex, hom, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        # Pixels whose ray does not meet the table in front of the camera see the room.
        inv = np.linalg.inv(hom)
        xs, ys = np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)
        wgt = inv[2, 0] * xs[None, :] + inv[2, 1] * ys[:, None] + inv[2, 2]
        front = wgt > 0  # inverse homography weight = 1/depth: positive in front
        inside = np.where(front, inside, 0)[..., None]
        if inside.min() >= 1:  # the table fills the picture: no room to draw
            return table
        if self.photos and rng.random() < self.photo_share:  # a photo beyond the table, blurred
            back = photo_surface(rng, self.photos, h, w)
            back = cv2.GaussianBlur(back, (0, 0), float(rng.uniform(0.5, 3)))
        elif not clean and rng.random() < self.mix.shelf:  # a bookshelf, a little blurred
            from hupai.datasets.clutter import shelf_backdrop

            # a shelf holds books 3-7 tiles tall; drawn at half size (a third of the cost),
            # then enlarged: a little soft, as what lies beyond the table mostly is
            unit = float(np.clip(tile_px * rng.uniform(3, 7), 60, 0.8 * max(h, w)))
            small = shelf_backdrop(rng, max(8, h // 2), max(8, w // 2), unit / 2)
            back = cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
            back = cv2.GaussianBlur(back, (0, 0), float(rng.uniform(0.3, 1.2)))
        else:
            back = surfaces.room(rng, h, w)
        return table * inside + back * (1 - inside)

    def _keyboard(
        self, rng: Rng, cam: Camera, layout: Layout, img: np.ndarray, tile_px: float
    ) -> tuple[str, list[tuple[str, tuple[int, int, int, int]]]]:
        """A whole keyboard lying on the table (drawn into ``img``): a laptop's deck or a
        desk keyboard, under the tiles (they lie on its keys) or beside them. Returns where
        (``under``, ``beside``) and the caps' boxes in the image."""
        from hupai.datasets.clutter import draw_keyboard

        pts = np.concatenate([tile_corners(t, layout.size) for t in layout.tiles])
        lo, hi = pts.min(0)[:2], pts.max(0)[:2]
        pitch_mm = float(rng.uniform(17, 19.5))
        cols, rows = float(rng.uniform(13, 16)), float(rng.choice([5, 6]))
        kw, kh = cols * pitch_mm, rows * pitch_mm
        under = rng.random() < 0.7
        centre = (lo + hi) / 2 + rng.normal(0, 0.15, 2) * (hi - lo)
        if not under:  # beside the hand: beyond it or to one side
            centre = centre + (
                np.array([0.0, (hi[1] - lo[1]) / 2 + kh / 2 + float(rng.uniform(5, 60))])
                if rng.random() < 0.5
                else np.array([float(rng.choice([-1, 1])) * ((hi[0] - lo[0]) / 2 + kw / 2 + 20), 0])
            )
        bezel = float(rng.uniform(3, 12))
        # texture px per mm: twice the picture's, at most 1,200 px wide
        px_mm = float(np.clip(2.0 * tile_px / layout.size.width, 1.0, 1200 / (kw + 2 * bezel)))
        tw, th = int((kw + 2 * bezel) * px_mm), int((kh + 2 * bezel) * px_mm)
        canvas, caps = draw_keyboard(
            rng, th, tw, pitch_mm * px_mm, origin=(bezel * px_mm, bezel * px_mm)
        )
        alpha = surfaces.rounded_alpha(th, tw, 4 * px_mm)
        x0, y0 = centre[0] - kw / 2 - bezel, centre[1] + kh / 2 + bezel  # texture top = far
        # texture (u, v) -> table (x0 + u/px, y0 - v/px): rows run away from the camera
        a = np.array([[1 / px_mm, 0, x0], [0, -1 / px_mm, y0], [0, 0, 1]])
        hom = cam.P[:, [0, 1, 3]] @ a
        h, w = img.shape[:2]
        seen, cover = (
            cv2.warpPerspective(
                layer,
                hom,
                (w, h),
                flags=cv2.INTER_AREA,
                borderMode=cv2.BORDER_CONSTANT,
                borderValue=0,
            )
            for layer in (canvas.astype(np.float32), alpha)
        )
        inv = np.linalg.inv(hom)
        xs, ys = np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)
        front = (inv[2, 0] * xs[None, :] + inv[2, 1] * ys[:, None] + inv[2, 2]) > 0
        cover = np.where(front, cover, 0)[..., None]
        img[:] = img * (1 - cover) + seen * cover
        boxes: list[tuple[str, tuple[int, int, int, int]]] = []
        for x1, y1, x2, y2 in caps:
            corner = np.array([[x1, y1, 1], [x2, y1, 1], [x2, y2, 1], [x1, y2, 1]], np.float64)
            pix = corner @ hom.T
            if (pix[:, 2] <= 0).any():
                continue
            uv = pix[:, :2] / pix[:, 2:]
            bx1, by1 = np.maximum(uv.min(0), 0)
            bx2, by2 = np.minimum(uv.max(0), [w, h])
            if bx2 - bx1 >= 3 and by2 - by1 >= 3:
                boxes.append(("keyboard", (int(bx1), int(by1), int(bx2), int(by2))))
        return ("under" if under else "beside"), boxes

    def _shadows(
        self,
        rng: Rng,
        img: np.ndarray,
        cam: Camera,
        corners: list[np.ndarray],
        light: np.ndarray,
        tile_px: float,
    ) -> np.ndarray:
        h, w = img.shape[:2]
        mask = np.zeros((h, w), np.float32)
        contact = np.zeros((h, w), np.float32)
        for c in corners:
            on_table = c - (c[:, 2:3] / max(light[2], 0.15)) * light[None, :]
            uv, depth = cam.project(np.concatenate([c[c[:, 2] < 0.5], on_table]))
            if (depth <= 0).any():
                continue
            hull = cv2.convexHull(uv.astype(np.float32)).reshape(-1, 2)
            cv2.fillConvexPoly(mask, np.round(hull * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
            foot, _ = cam.project(c[c[:, 2] < 0.5]) if (c[:, 2] < 0.5).sum() >= 3 else (None, None)
            if foot is not None:
                hull = cv2.convexHull(foot.astype(np.float32)).reshape(-1, 2)
                cv2.fillConvexPoly(
                    contact, np.round(hull * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4
                )
        soft = max(0.5, float(rng.uniform(0.05, 0.35)) * tile_px)
        mask = _soft_blur(mask, soft)
        touch = cv2.GaussianBlur(contact, (0, 0), max(0.5, 0.06 * tile_px))
        strength = float(rng.uniform(0.25, 0.6))
        shade = 1 - strength * np.clip(mask, 0, 1) - 0.25 * np.clip(touch, 0, 1)
        return np.asarray(img * np.clip(shade, 0.2, 1)[..., None], np.float32)

    def render(
        self,
        rng: Rng,
        size: int = 640,
        *,
        layout: Layout | None = None,
        aspect: tuple[int, int] | None = None,
        options: RenderOptions | None = None,
    ) -> Scene:
        opts = options or RenderOptions()
        aw, ah = aspect or ASPECTS[int(rng.integers(len(ASPECTS)))]
        width, height = (size, round(size * ah / aw)) if aw >= ah else (round(size * aw / ah), size)

        tw_mm = float(rng.uniform(24, 32))
        tsize = TileSize(  # width/height 0.6 (tall, narrow) to 0.85 (squat)
            tw_mm, tw_mm / float(rng.uniform(0.6, 0.85)), tw_mm * float(rng.uniform(0.5, 0.85))
        )
        if layout is None:
            printed = rng.random() < self.mix.printed
            layout = printed_layout(rng, tsize) if printed else random_layout(rng, tsize)
        tsize = layout.size
        printed = layout.scene == "printed"
        # drawn only when asked for, so that a mix without plain whites renders as render 6
        plain_white = (
            not printed and self.mix.plain_white > 0 and rng.random() < self.mix.plain_white
        )
        white_face = None
        if plain_white:
            layout = with_white_dragons(rng, layout)
            white_face = plain_white_face(rng)
        look = surfaces.random_look(rng)
        if printed or opts.edge_round is not None:
            look.edge_round = 0.0 if printed else float(opts.edge_round or 0.0)
        keyboard = (
            opts.keyboard
            if opts.keyboard is not None
            else not opts.clean and not printed and rng.random() < self.mix.keyboard
        )
        style = self._style(rng)
        set_name = str(rng.choice(self.set_names)) if self.set_names else ""
        fallback = [str(s) for s in rng.permutation(self.set_names) if s != set_name]
        mixed = style is None and not opts.clean and rng.random() < 0.08  # tile by tile

        for _attempt in range(10):  # a close-up may miss the tiles: aim again
            cam, corners, tile_px = self._camera(rng, layout, width, height, opts)
            centres, depth = cam.project(np.array([c.mean(0) for c in corners]))
            seen = (
                (depth > 0)
                & (centres[:, 0] > 0)
                & (centres[:, 0] < width)
                & (centres[:, 1] > 0)
                & (centres[:, 1] < height)
            ).sum()
            if seen >= min(3, len(corners)):
                break

        # Light: direction towards the lamp, ambient share; faces are shaded relative to
        # the top face so that the face colour stays what the style chose.
        le, la = math.radians(rng.uniform(35, 85)), rng.uniform(0, 2 * math.pi)
        light = np.array([math.cos(le) * math.cos(la), math.cos(le) * math.sin(la), math.sin(le)])
        ambient = float(rng.uniform(0.35, 0.7))
        top_lit = ambient + (1 - ambient) * light[2]

        # Texture resolution from the largest projected tile.
        biggest = 8.0
        for c in corners:
            uv, depth = cam.project(c)
            if (depth > 0).all():
                biggest = max(biggest, float(np.ptp(uv[:, 0])), float(np.ptp(uv[:, 1])))
        tex_w = int(np.clip(biggest * 1.2, 24, 360))
        tex_h = max(8, round(tex_w * tsize.height / tsize.width))
        tex_t = max(3, round(tex_w * tsize.thickness / tsize.width))
        face_noise = (
            1
            + 0.02 * surfaces.smooth_noise(rng, tex_h, tex_w, tex_w / 3)
            + 0.01 * rng.standard_normal((tex_h, tex_w)).astype(np.float32)
        )
        textures: dict[Any, np.ndarray] = {
            "back": surfaces.back_texture(rng, look, tex_w, tex_h),
            "side_w": surfaces.side_texture(look, tex_w, tex_t),
            "side_h": surfaces.side_texture(look, tex_h, tex_t),
        }

        img = self._table(rng, cam, layout, opts.clean, tile_px).astype(np.float32)
        where, clutter = self._keyboard(rng, cam, layout, img, tile_px) if keyboard else ("", [])
        if not opts.clean and rng.random() < 0.55:
            from hupai.datasets.clutter import TILE_SHAPED, lay_clutter

            boxes = []
            for c in corners:
                uv, depth = cam.project(c)
                if (depth > 0).all():
                    boxes.append((*uv.min(0), *uv.max(0)))
            shaped = self.mix.tile_shaped
            leave_out = TILE_SHAPED if shaped < 1 and rng.random() >= shaped else frozenset[str]()
            clutter += lay_clutter(
                rng,
                img,
                tile_px,
                np.asarray(boxes).reshape(-1, 4),
                int(rng.integers(1, 8)),
                leave_out,
            )
        if not printed:  # pictures on paper cast no shadow
            img = self._shadows(rng, img, cam, corners, light, biggest)

        h, w = height, width
        idmap = np.zeros((h, w), np.int32)
        facemap = np.zeros((h, w), np.int32)
        face_area = np.zeros(len(layout.tiles) + 1)
        glossy = np.zeros((h, w), np.float32)

        polygons = [
            p
            for p in tile_polygons(tsize, look.edge_round * tsize.thickness)
            if not (printed and p[0].startswith("side"))  # a picture on paper has no sides
        ]
        gloss, shine = float(rng.uniform(0.1, 0.5)), float(rng.uniform(6, 30))
        prop_corners = [prop_box(p) for p in layout.props]
        everything = [*corners, *prop_corners]
        order = sorted(
            range(len(everything)),
            key=lambda i: -float(np.linalg.norm(everything[i].mean(0) - cam.centre)),
        )
        for i in order:
            if i >= len(corners):
                self._paint_prop(
                    rng, img, cam, everything[i], (idmap, facemap, glossy), light, ambient, top_lit
                )
                continue
            t = layout.tiles[i]
            uv, depth = cam.project(corners[i])
            if (depth <= 0.05 * np.linalg.norm(cam.centre - corners[i].mean(0))).any():
                continue
            rot, offset = tile_pose(t, tsize)
            x1, y1 = np.floor(uv.min(0)).astype(int)
            x2, y2 = np.ceil(uv.max(0)).astype(int) + 1
            rx1, ry1, rx2, ry2 = max(0, x1), max(0, y1), min(w, x2), min(h, y2)
            if rx1 >= rx2 or ry1 >= ry2:
                continue
            sil = np.zeros((ry2 - ry1, rx2 - rx1), np.uint8)
            fmask = np.zeros_like(sil)
            key = ("face", t.tile, i if mixed else None)
            label_face = "back" if t.face_down else "face"
            for tex_name, local, normal in polygons:
                n_world = rot @ normal
                world = local @ rot.T + offset
                face_centre = world.mean(0)
                if float(n_world @ (cam.centre - face_centre)) <= 0:
                    continue
                dst = cam.project(world)[0].astype(np.float32)
                shade = (ambient + (1 - ambient) * max(0.0, float(n_world @ light))) / top_lit
                if tex_name.startswith("round_"):  # a rounded edge: lit, with a highlight
                    view = cam.centre - face_centre
                    half = light + view / max(1e-9, float(np.linalg.norm(view)))
                    spec = max(0.0, float(n_world @ half) / max(1e-9, float(np.linalg.norm(half))))
                    base = look.face if tex_name == "round_face" else look.back
                    colour = base * float(np.clip(shade, 0.3, 1.15)) + 255 * gloss * spec**shine
                    pix = np.round(dst * 16).astype(np.int32)
                    cv2.fillConvexPoly(img, pix, [float(c) for c in colour], cv2.LINE_8, 4)
                    cv2.fillConvexPoly(sil, pix - [rx1 * 16, ry1 * 16], 1, cv2.LINE_8, 4)
                    continue
                if tex_name == "face":
                    if key not in textures:
                        glyph = (
                            white_face
                            if white_face is not None and t.tile.index == WHITE_DRAGON
                            else self._style_glyph(rng, style, int(t.tile.index))
                            if style is not None
                            else self._glyph(
                                rng,
                                str(rng.choice(self.set_names)) if mixed else set_name,
                                int(t.tile.index),
                                fallback,
                            )
                        )
                        index = surfaces.CORNER_INDEX[t.tile.index] if look.corner_index else None
                        textures[key] = surfaces.face_texture(
                            rng, glyph, look, tex_w, tex_h, face_noise, index
                        )
                    tex = textures[key]
                else:
                    tex = textures[tex_name]
                self._paint(img, tex, dst, (rx1, ry1, rx2, ry2), float(np.clip(shade, 0.3, 1.15)))
                poly = np.round((dst - [rx1, ry1]) * 16).astype(np.int32)
                cv2.fillConvexPoly(sil, poly, 1, cv2.LINE_8, 4)
                if tex_name == label_face:
                    cv2.fillConvexPoly(fmask, poly, 1, cv2.LINE_8, 4)
                    face_area[i + 1] = abs(float(cv2.contourArea(dst)))
            region = (slice(ry1, ry2), slice(rx1, rx2))
            on = sil > 0
            idmap[region][on] = i + 1
            facemap[region][on] = 0
            facemap[region][fmask > 0] = i + 1
            glossy[region][on] = 0
            glossy[region][fmask > 0] = 0 if t.face_down else 1

        if not opts.clean and rng.random() < 0.12:
            self._occluder(rng, img, idmap, facemap)

        if not opts.clean:
            img = effects.photometric(rng, img, cv2.GaussianBlur(glossy, (0, 0), 1.0))
        image = np.clip(img, 0, 255).astype(np.uint8)

        stretched = not opts.clean and width != height and rng.random() < STRETCH_SHARE
        if stretched:  # as Roboflow exports do: squeeze the photo into a square
            square = (size, size)
            image = np.asarray(cv2.resize(image, square, interpolation=cv2.INTER_AREA), np.uint8)
            idmap = np.asarray(cv2.resize(idmap, square, interpolation=cv2.INTER_NEAREST), np.int32)
            facemap = np.asarray(
                cv2.resize(facemap, square, interpolation=cv2.INTER_NEAREST), np.int32
            )
            face_area = face_area * (size * size) / (width * height)
            sx, sy = size / width, size / height
            clutter = [
                (kind, (int(x1 * sx), int(y1 * sy), int(x2 * sx), int(y2 * sy)))
                for kind, (x1, y1, x2, y2) in clutter
            ]

        renders = self._labels(layout, idmap, facemap, face_area)
        info = {
            "art_set": (
                f"gen-{style.style.family}" if style is not None else "mixed" if mixed else set_name
            ),
            "stretched_from": [width, height] if stretched else None,
            "back_colour": look.back_name,
            "tile_mm": [round(tsize.width, 1), round(tsize.height, 1), round(tsize.thickness, 1)],
            "tile_px": round(tile_px, 1),
            "largest_tile_px": round(biggest, 1),
            "edge_round_mm": round(look.edge_round * tsize.thickness, 2),
            "keyboard": where or None,  # a whole keyboard "under" the tiles or "beside" them
            "plain_white": plain_white,
        }
        quality = 95 if opts.clean else int(rng.integers(35, 96))
        return Scene(image, layout, renders, cam, info, quality, clutter)

    def _paint_prop(
        self,
        rng: Rng,
        img: np.ndarray,
        cam: Camera,
        box: np.ndarray,
        maps: tuple[np.ndarray, ...],
        light: np.ndarray,
        ambient: float,
        top_lit: float,
    ) -> None:
        """A rack (or other box that is not a tile): painted, and owned by no tile."""
        uv, depth = cam.project(box)
        if (depth <= 0).any():
            return
        h, w = img.shape[:2]
        x1, y1 = np.floor(uv.min(0)).astype(int)
        x2, y2 = np.ceil(uv.max(0)).astype(int) + 1
        roi = (max(0, x1), max(0, y1), min(w, x2), min(h, y2))
        if roi[0] >= roi[2] or roi[1] >= roi[3]:
            return
        if rng.random() < 0.6:  # wood, or painted / plastic
            colour = surfaces.jitter_colour(
                rng, surfaces.WOOD[int(rng.integers(len(surfaces.WOOD)))][0], 0.1
            )
        else:
            colour = rng.uniform(30, 220, 3).astype(np.float32)
        tex = np.dstack(
            [np.ones((16, 64, 3), np.float32) * colour, np.full((16, 64), 255, np.float32)]
        )
        sil = np.zeros((roi[3] - roi[1], roi[2] - roi[0]), np.uint8)
        for _name, idx, normal in _FACES:
            n = np.array(normal, np.float64)
            face_centre = box[list(idx)].mean(0)
            if float(n @ (cam.centre - face_centre)) <= 0:
                continue
            dst = uv[list(idx)].astype(np.float32)
            shade = (ambient + (1 - ambient) * max(0.0, float(n @ light))) / top_lit
            self._paint(img, tex, dst, roi, float(np.clip(shade, 0.3, 1.15)))
            cv2.fillConvexPoly(
                sil, np.round((dst - [roi[0], roi[1]]) * 16).astype(np.int32), 1, cv2.LINE_8, 4
            )
        region = (slice(roi[1], roi[3]), slice(roi[0], roi[2]))
        for m in maps:
            m[region][sil > 0] = 0

    @staticmethod
    def _paint(
        img: np.ndarray,
        tex: np.ndarray,
        dst: np.ndarray,
        roi: tuple[int, int, int, int],
        shade: float,
    ) -> None:
        rx1, ry1, rx2, ry2 = roi
        th, tw = tex.shape[:2]
        src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
        m = cv2.getPerspectiveTransform(src, dst - np.array([rx1, ry1], np.float32))
        warped = cv2.warpPerspective(
            tex,
            m,
            (rx2 - rx1, ry2 - ry1),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(0, 0, 0, 0),
        )
        a = warped[:, :, 3:4] / 255.0
        region = img[ry1:ry2, rx1:rx2]
        region[:] = region * (1 - a) + warped[:, :, :3] * shade * a

    @staticmethod
    def _occluder(rng: Rng, img: np.ndarray, idmap: np.ndarray, facemap: np.ndarray) -> None:
        """Something in front of the tiles: a pen, a finger, a cup's rim."""
        h, w = idmap.shape
        mask = np.zeros((h, w), np.uint8)
        p1 = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        ang = rng.uniform(0, 2 * np.pi)
        length = rng.uniform(0.2, 0.6) * max(w, h)
        p2 = (int(p1[0] + np.cos(ang) * length), int(p1[1] + np.sin(ang) * length))
        cv2.line(mask, p1, p2, 1, int(rng.uniform(0.01, 0.05) * max(w, h)), cv2.LINE_8)
        colour = rng.uniform(20, 240, 3).astype(np.float32)
        on = mask > 0
        img[on] = colour * (0.8 + 0.2 * rng.random())
        idmap[on] = 0
        facemap[on] = 0

    @staticmethod
    def _labels(
        layout: Layout, idmap: np.ndarray, facemap: np.ndarray, face_area: np.ndarray
    ) -> list[TileRender]:
        n = len(layout.tiles) + 1
        visible_face = np.bincount(facemap.ravel(), minlength=n).astype(np.float64)
        renders = []
        ys, xs = np.nonzero(idmap)
        ids = idmap[ys, xs]
        order = np.argsort(ids, kind="stable")
        ids, ys, xs = ids[order], ys[order], xs[order]
        bounds = np.searchsorted(ids, np.arange(n + 1))
        for i, t in enumerate(layout.tiles):
            lo, hi = bounds[i + 1], bounds[i + 2]
            if hi <= lo:
                renders.append(TileRender(t, None, 0.0, False))
                continue
            box = (
                int(xs[lo:hi].min()),
                int(ys[lo:hi].min()),
                int(xs[lo:hi].max()) + 1,
                int(ys[lo:hi].max()) + 1,
            )
            share = (
                float(min(1.0, visible_face[i + 1] / face_area[i + 1]))
                if face_area[i + 1] > 0
                else 0.0
            )
            ok = share >= MIN_VISIBLE_FACE and box[2] - box[0] >= 3 and box[3] - box[1] >= 3
            renders.append(TileRender(t, box, round(share, 3), ok))
        return renders
