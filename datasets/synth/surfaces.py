"""Procedural surfaces: table cloths, wood, stone, patterned cloths, the room beyond the table,
flat clutter lying on the table, and the tile textures (face, back, body sides).

Everything is drawn with numpy/OpenCV from a ``numpy.random.Generator``, so a seed fixes it.
Colours are BGR floats in 0-255.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

Rng = np.random.Generator

# -- helpers ---------------------------------------------------------------------------------


def smooth_noise(rng: Rng, h: int, w: int, cell: float) -> np.ndarray:
    """Value noise in about -1..1 with features of ``cell`` pixels."""
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)


def fractal_noise(rng: Rng, h: int, w: int, cells: tuple[float, ...]) -> np.ndarray:
    out = np.zeros((h, w), np.float32)
    amp = 1.0
    for cell in cells:
        out += amp * smooth_noise(rng, h, w, cell)
        amp *= 0.55
    return out / max(1e-6, float(np.abs(out).max()))


def jitter_colour(rng: Rng, bgr: tuple[float, float, float], amount: float) -> np.ndarray:
    return np.clip(np.array(bgr, np.float32) * (1 + rng.uniform(-amount, amount, 3)), 0, 255)


# -- table surfaces (drawn in table space, then warped by the camera) -------------------------

FELT = [
    (40, 110, 30),
    (30, 80, 20),
    (110, 60, 20),
    (80, 40, 10),
    (40, 40, 130),
    (60, 60, 60),
    (25, 25, 25),
    (90, 40, 80),
    (120, 110, 40),
    (50, 120, 100),
    (140, 140, 140),
]
WOOD = [
    ((40, 90, 150), (20, 55, 100)),
    ((90, 150, 200), (60, 110, 160)),
    ((30, 60, 100), (15, 30, 60)),
    ((120, 170, 210), (80, 130, 180)),
]
PLAIN = [
    (235, 235, 235),
    (200, 205, 210),
    (180, 190, 200),
    (60, 60, 60),
    (220, 225, 240),
    (150, 170, 190),
    (250, 250, 250),
    (40, 50, 70),
]


def felt(rng: Rng, h: int, w: int) -> np.ndarray:
    base = jitter_colour(rng, FELT[int(rng.integers(len(FELT)))], 0.25)
    low = fractal_noise(rng, h, w, (w / 3, w / 8))[..., None]
    grain = rng.standard_normal((h, w, 1)).astype(np.float32)
    img = base * (1 + 0.08 * low) + 10 * grain
    if rng.random() < 0.4:  # woven / dotted cloth texture
        period = float(rng.uniform(3, 7))
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        weave = np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period)
        img += 14 * weave[..., None]
    return img


def wood(rng: Rng, h: int, w: int) -> np.ndarray:
    light, dark = WOOD[int(rng.integers(len(WOOD)))]
    light_c, dark_c = jitter_colour(rng, light, 0.15), jitter_colour(rng, dark, 0.15)
    yy = np.arange(h, dtype=np.float32)[:, None]
    warp = smooth_noise(rng, h, w, w / 3) * float(rng.uniform(3, 12))
    freq = float(rng.uniform(0.15, 0.7))
    grain = 0.5 + 0.5 * np.sin((yy + warp) * freq)
    grain = grain ** float(rng.uniform(1, 3))
    streaks = smooth_noise(rng, h, max(2, w // 16), 1.5)
    fine = cv2.resize(streaks, (w, h), interpolation=cv2.INTER_LINEAR)  # long thin fibres
    t = np.clip(grain + 0.15 * fine, 0, 1)[..., None]
    img = light_c * (1 - t) + dark_c * t
    plank = float(rng.uniform(80, 300))
    seams = (np.abs((yy + 0.3 * warp) % plank) < 1.5)[..., None]
    return np.asarray(np.where(seams, img * 0.6, img), np.float32)


def stone(rng: Rng, h: int, w: int) -> np.ndarray:
    base = jitter_colour(rng, PLAIN[int(rng.integers(len(PLAIN)))], 0.1)
    n = fractal_noise(rng, h, w, (w / 4, w / 16, w / 60))
    veins = np.exp(-np.abs(np.sin(n * float(rng.uniform(4, 10)))) * 12)[..., None]
    return np.asarray(base * (1 - 0.25 * veins) + 6 * n[..., None], np.float32)


def pattern_cloth(rng: Rng, h: int, w: int) -> np.ndarray:
    a = jitter_colour(rng, FELT[int(rng.integers(len(FELT)))], 0.3)
    b = jitter_colour(rng, PLAIN[int(rng.integers(len(PLAIN)))], 0.2)
    s = float(rng.uniform(15, 60))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    kind = int(rng.integers(3))
    if kind == 0:
        t = (np.floor(xx / s) + np.floor(yy / s)) % 2
    elif kind == 1:
        t = (np.floor(xx / s) % 2).astype(np.float32)
    else:
        t = ((np.sin(xx / s * 3) + np.sin(yy / s * 3)) > 0.8).astype(np.float32)
    t = cv2.GaussianBlur(t.astype(np.float32), (0, 0), 1.2)[..., None]
    noise = 6 * rng.standard_normal((h, w, 1)).astype(np.float32)
    return np.asarray(a * (1 - t) + b * t + noise, np.float32)


def plain(rng: Rng, h: int, w: int) -> np.ndarray:
    base = jitter_colour(rng, PLAIN[int(rng.integers(len(PLAIN)))], 0.1)
    n = fractal_noise(rng, h, w, (w / 2,))[..., None]
    return base * (1 + 0.05 * n) + 3 * rng.standard_normal((h, w, 1)).astype(np.float32)


SURFACES = (felt, felt, wood, wood, stone, pattern_cloth, plain)


def _ellipse(
    img: np.ndarray,
    centre: tuple[float, float],
    axes: tuple[float, float],
    angle: float,
    colour: np.ndarray,
    thickness: int = -1,
) -> None:
    cv2.ellipse(
        img,
        (int(centre[0] * 16), int(centre[1] * 16)),
        (int(axes[0] * 16), int(axes[1] * 16)),
        angle,
        0,
        360,
        [float(c) for c in colour],
        thickness,
        cv2.LINE_AA,
        4,
    )


def flat_clutter(
    rng: Rng, img: np.ndarray, px_per_mm: float, keep_out: tuple[float, ...], count: int
) -> None:
    """Papers, coins, chips, cards and dice lying on the table (not overlapping ``keep_out``,
    a table-space box ``x1 y1 x2 y2`` in texture pixels around the tiles)."""
    h, w = img.shape[:2]
    for _ in range(count):
        kind = int(rng.integers(5))
        for _try in range(10):
            cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
            r = float(rng.uniform(10, 60)) * px_per_mm
            x1, y1, x2, y2 = keep_out
            if not (x1 - r < cx < x2 + r and y1 - r < cy < y2 + r):
                break
        else:
            continue
        colour = rng.uniform(20, 250, 3).astype(np.float32)
        if kind == 0:  # coin or chip
            rr = float(rng.uniform(9, 16)) * px_per_mm
            _ellipse(img, (cx, cy), (rr, rr), 0, colour)
            _ellipse(img, (cx, cy), (rr * 0.7, rr * 0.7), 0, colour * 0.7, 2)
        elif kind == 1:  # paper / card / score sheet
            ww, hh = (
                float(rng.uniform(40, 120)) * px_per_mm,
                float(rng.uniform(40, 150)) * px_per_mm,
            )
            box = cv2.boxPoints(((cx, cy), (ww, hh), float(rng.uniform(0, 180))))
            paper = np.array([235, 240, 240], np.float32) * rng.uniform(0.85, 1.0)
            cv2.fillConvexPoly(img, box.astype(np.int32), [float(c) for c in paper], cv2.LINE_AA)
            for k in range(int(rng.integers(0, 8))):  # lines of writing
                t = (k + 1) / 9
                p1 = box[0] + (box[3] - box[0]) * t + (box[1] - box[0]) * 0.1
                p2 = p1 + (box[1] - box[0]) * float(rng.uniform(0.3, 0.8))
                cv2.line(
                    img,
                    tuple(int(v) for v in p1),
                    tuple(int(v) for v in p2),
                    (60, 60, 60),
                    1,
                    cv2.LINE_AA,
                )
        elif kind == 2:  # die
            s = float(rng.uniform(12, 18)) * px_per_mm
            box = cv2.boxPoints(((cx, cy), (s, s), float(rng.uniform(0, 90))))
            cv2.fillConvexPoly(img, box.astype(np.int32), (235, 235, 240), cv2.LINE_AA)
            for _d in range(int(rng.integers(1, 7))):
                px, py = cx + rng.uniform(-s / 3, s / 3), cy + rng.uniform(-s / 3, s / 3)
                _ellipse(img, (px, py), (s / 12, s / 12), 0, np.array([30, 30, 200], np.float32))
        elif kind == 3:  # stick / pen
            a = float(rng.uniform(0, np.pi))
            ln = float(rng.uniform(60, 150)) * px_per_mm
            p1 = (int(cx - np.cos(a) * ln / 2), int(cy - np.sin(a) * ln / 2))
            p2 = (int(cx + np.cos(a) * ln / 2), int(cy + np.sin(a) * ln / 2))
            cv2.line(
                img, p1, p2, [float(c) for c in colour], max(1, int(6 * px_per_mm)), cv2.LINE_AA
            )
        else:  # blob (stain, cloth fold, phone)
            _ellipse(
                img,
                (cx, cy),
                (r, r * float(rng.uniform(0.3, 1))),
                float(rng.uniform(0, 180)),
                colour * 0.5 + img[int(cy) % h, int(cx) % w] * 0.5,
            )


def room(rng: Rng, h_full: int, w_full: int) -> np.ndarray:
    """What lies beyond the table edge: walls, floor, blurred furniture."""
    h, w = max(8, h_full // 4), max(8, w_full // 4)

    def muted() -> np.ndarray:  # walls and furniture: greyish, a little tinted
        grey = float(rng.uniform(30, 210))
        return np.asarray(grey + rng.normal(0, 18, 3), np.float32).clip(0, 255)

    base = muted()
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    yy = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    img *= 0.7 + 0.5 * yy
    for _ in range(int(rng.integers(2, 6))):
        x1, y1 = int(rng.integers(0, w)), int(rng.integers(0, h))
        x2, y2 = x1 + int(rng.integers(20, w // 2 + 21)), y1 + int(rng.integers(20, h // 2 + 21))
        colour = muted() if rng.random() < 0.8 else rng.uniform(20, 230, 3)
        cv2.rectangle(img, (x1, y1), (x2, y2), [float(c) for c in colour], -1)
    blurred = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.8, 3)))
    return cv2.resize(blurred, (w_full, h_full), interpolation=cv2.INTER_LINEAR)


def table_texture(rng: Rng, h: int, w: int) -> np.ndarray:
    surface = SURFACES[int(rng.integers(len(SURFACES)))]
    img = surface(rng, h, w).astype(np.float32)
    if rng.random() < 0.35:  # the table's edge / rail crosses the scene
        band = int(rng.uniform(0.05, 0.2) * h)
        pos = int(rng.uniform(0.0, 0.3) * h) if rng.random() < 0.5 else int(rng.uniform(0.7, 1) * h)
        rail = jitter_colour(rng, PLAIN[int(rng.integers(len(PLAIN)))], 0.3)
        img[max(0, pos - band) : pos] = (
            rail * (0.9 + 0.1 * smooth_noise(rng, 1, w, w / 4))[0][:, None]
        )
    return img


# -- tile textures ---------------------------------------------------------------------------

# Most sets have white faces (as in the real photos); ivory, cream and tinted ones follow.
FACE_COLOURS = [
    (245, 245, 245),
    (248, 248, 244),
    (240, 242, 240),
    (250, 247, 245),
    (235, 240, 242),
    (215, 235, 245),
    (195, 225, 240),
    (225, 235, 230),
    (200, 220, 225),
    (240, 235, 230),
]
BACK_COLOURS = {
    "green": (60, 140, 40),
    "dark green": (40, 90, 20),
    "jade": (120, 170, 70),
    "blue": (160, 90, 30),
    "light blue": (210, 170, 110),
    "navy": (90, 40, 20),
    "yellow": (40, 200, 235),
    "orange": (30, 130, 240),
    "red": (40, 40, 190),
    "pink": (170, 140, 240),
    "purple": (140, 50, 110),
    "black": (35, 35, 35),
    "white": (225, 230, 230),
    "brown": (40, 80, 140),
    "teal": (140, 140, 30),
}


@dataclass
class TileLook:
    """How the tiles of one scene look (one physical set)."""

    face: np.ndarray  # BGR
    back: np.ndarray
    back_name: str
    back_fraction: float  # share of the thickness in the back colour
    corner: float  # corner radius as a share of the width
    margin: float  # glyph margin as a share of the width
    hue_shift: float  # ink hue shift (OpenCV hue units, 0-180)
    saturation: float
    value: float
    stroke: int  # -1 thinner, 0, +1 bolder ink
    ink_blur: float
    bevel: float  # how dark the face edge is
    back_pattern: int  # 0 plain, 1 embossed motif, 2 two-tone
    hue_map: np.ndarray | None = None  # 180-entry hue lookup: the set prints other colours
    mono: float = 0.0  # 0-1: how far the ink is pushed towards one dark colour
    shear: float = 0.0  # glyph slant (x shift per unit height)
    squash: float = 1.0  # glyph width / height change
    corner_index: bool = False  # the set prints a small index in the top-left corner
    index_size: float = 0.2  # its height as a share of the face width
    index_font: int = 0
    edge_round: float = 0.0  # rounded edges' radius, a share of the thickness (0: sharp)


def _hue_permutation(rng: Rng) -> np.ndarray:
    """Swap the red, green and blue inks of a set (shapes, not colours, name the tile)."""
    centres = np.array([0.0, 60.0, 120.0])  # red, green, blue in OpenCV hue units
    targets = centres[rng.permutation(3)] + rng.normal(0, 6, 3)
    hue = np.arange(180, dtype=np.float32)
    dist = np.abs(((hue[:, None] - centres[None, :]) + 90) % 180 - 90)
    nearest = dist.argmin(1)
    lut = (hue + targets[nearest] - centres[nearest]) % 180
    return np.asarray(lut, np.float32)


def random_look(rng: Rng) -> TileLook:
    back_name = str(rng.choice(list(BACK_COLOURS)))
    face = jitter_colour(rng, FACE_COLOURS[int(rng.integers(len(FACE_COLOURS)))], 0.05)
    strong = rng.random() < 0.25  # an unusual set: shift the ink further
    return TileLook(
        face=face,
        back=jitter_colour(rng, BACK_COLOURS[back_name], 0.15),
        back_name=back_name,
        back_fraction=float(rng.uniform(0.25, 0.65)),
        corner=float(rng.uniform(0.06, 0.18)),
        margin=float(rng.uniform(0.04, 0.13)),
        hue_shift=float(rng.normal(0, 25 if strong else 5)),
        saturation=float(rng.uniform(0.5, 1.3) if strong else rng.uniform(0.85, 1.15)),
        value=float(rng.uniform(0.6, 1.05)),
        stroke=int(rng.choice([-1, 0, 0, 0, 1])),
        ink_blur=float(rng.choice([0.0, 0.0, 0.5, 0.9])),
        bevel=float(rng.uniform(0.0, 0.25)),
        back_pattern=int(rng.choice([0, 0, 1, 2])),
        hue_map=_hue_permutation(rng) if rng.random() < 0.12 else None,
        mono=float(rng.uniform(0.5, 1.0)) if rng.random() < 0.06 else 0.0,
        shear=float(rng.normal(0, 0.04)) if strong else 0.0,
        squash=float(rng.uniform(0.88, 1.12)) if strong else 1.0,
        corner_index=bool(rng.random() < 0.35),
        index_size=float(rng.uniform(0.14, 0.24)),
        index_font=int(rng.integers(len(_FONTS))),
        # most bodies are rounded (radius 1-6 mm); some (Bakelite, cheap moulds) near sharp
        edge_round=float(rng.uniform(0.05, 0.2)) if rng.random() < 0.85 else 0.0,
    )


def rounded_alpha(h: int, w: int, radius: float) -> np.ndarray:
    """An anti-aliased rounded-rectangle mask (0-1) of the given size."""
    scale = 4
    big = np.zeros((h * scale, w * scale), np.uint8)
    r = max(0, int(radius * scale))
    hh, ww = h * scale - 1, w * scale - 1
    cv2.rectangle(big, (r, 0), (ww - r, hh), 255, -1)
    cv2.rectangle(big, (0, r), (ww, hh - r), 255, -1)
    for cx, cy in ((r, r), (ww - r, r), (r, hh - r), (ww - r, hh - r)):
        cv2.circle(big, (cx, cy), r, 255, -1)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


def _edge_shade(h: int, w: int, bevel: float) -> np.ndarray:
    """Darkening towards the border of a face (a rounded bevel)."""
    yy = np.minimum(np.arange(h), np.arange(h)[::-1]).astype(np.float32)[:, None]
    xx = np.minimum(np.arange(w), np.arange(w)[::-1]).astype(np.float32)[None, :]
    d = np.minimum(yy, xx) / max(1.0, 0.08 * w)
    return 1 - bevel * np.exp(-d)


def recolour_ink(glyph: np.ndarray, look: TileLook) -> np.ndarray:
    """Shift the hue/saturation/value of a BGRA glyph; thicken or thin its strokes."""
    bgr = glyph[:, :, :3]
    alpha = glyph[:, :, 3]
    if look.hue_shift or look.saturation != 1 or look.value != 1 or look.hue_map is not None:
        hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV).astype(np.float32)
        if look.hue_map is not None:
            hsv[:, :, 0] = look.hue_map[hsv[:, :, 0].astype(np.int32) % 180]
        hsv[:, :, 0] = (hsv[:, :, 0] + look.hue_shift) % 180
        hsv[:, :, 1] = np.clip(hsv[:, :, 1] * look.saturation, 0, 255)
        hsv[:, :, 2] = np.clip(hsv[:, :, 2] * look.value, 0, 255)
        bgr = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    if look.mono:
        dark = np.array([40, 30, 25], np.float32)  # near-black ink, a little blue
        bgr = (bgr * (1 - look.mono) + dark * look.mono).astype(np.uint8)
    if look.stroke:
        kernel = np.ones((3, 3), np.uint8)
        if look.stroke > 0:
            alpha = cv2.dilate(alpha, kernel)
            bgr = cv2.erode(bgr, kernel)  # spread the darker ink into the new rim
        else:
            alpha = cv2.erode(alpha, kernel)
    return np.dstack([bgr, alpha])


#: Corner index printed on many Western-market and Hong Kong sets (the real photos' tiles too):
#: the rank for suits, E S W N for winds, C F P for the dragons, 1-4 for flowers and seasons.
CORNER_INDEX = (
    *[str(r) for r in range(1, 10)] * 3,
    "E", "S", "W", "N", "P", "F", "C",
    "1", "2", "3", "4", "1", "2", "3", "4",
)  # fmt: skip
_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX)


def _ink_colour(glyph: np.ndarray) -> np.ndarray:
    """The glyph's most saturated ink (the colour its corner index is printed in)."""
    ink = glyph[glyph[:, :, 3] > 128][:, :3]
    if len(ink) == 0:
        return np.array([120, 40, 20], np.float32)
    sat = ink.max(1).astype(np.int32) - ink.min(1)
    return np.asarray(ink[int(sat.argmax())], np.float32) * 0.85


def _corner_index(tex: np.ndarray, text: str, colour: np.ndarray, look: TileLook) -> None:
    w = tex.shape[1]
    size = max(4.0, look.index_size * w)
    font = _FONTS[look.index_font]
    scale = cv2.getFontScaleFromHeight(font, int(size))
    thick = max(1, round(size / 9))
    org = (round(look.margin * w * 0.6) + 1, round(look.margin * w * 0.4 + size) + 1)
    ink = np.zeros(tex.shape[:2], np.uint8)  # putText draws on 8-bit images only
    cv2.putText(ink, text, org, font, scale, 255, thick, cv2.LINE_AA)
    a = ink[..., None].astype(np.float32) / 255
    tex[:] = tex * (1 - a) + colour * a


def face_texture(
    rng: Rng,
    glyph: np.ndarray | None,
    look: TileLook,
    w: int,
    h: int,
    face_noise: np.ndarray,
    index: str | None = None,
) -> np.ndarray:
    """BGRA float texture of a tile face: face colour, bevel, the glyph, rounded corners, and
    ``index`` printed in the top-left corner when the set has corner indices."""
    base = (
        look.face[None, None, :]
        * face_noise[:h, :w, None]
        * _edge_shade(h, w, look.bevel)[..., None]
    )
    tex = base.astype(np.float32)
    if glyph is not None and glyph.size > 0:
        gh, gw = glyph.shape[:2]
        inner_w = w * (1 - 2 * look.margin)
        inner_h = h - 2 * look.margin * w
        scale = min(inner_w / gw, inner_h / gh) * float(rng.uniform(0.92, 1.0))
        if index:  # the glyph gives way to the corner index
            scale *= 1 - 0.8 * look.index_size
        tw = max(1, min(int(inner_w), round(gw * scale * look.squash)))
        th = max(1, round(gh * scale))
        g = cv2.resize(glyph, (tw, th), interpolation=cv2.INTER_AREA)
        if look.shear:
            m = np.array([[1, look.shear, -look.shear * th / 2], [0, 1, 0]], np.float32)
            g = cv2.warpAffine(
                g,
                m,
                (tw, th),
                flags=cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_CONSTANT,
                borderValue=(0, 0, 0, 0),
            )
        g = recolour_ink(g, look)
        if look.ink_blur:
            g = cv2.GaussianBlur(g, (0, 0), look.ink_blur * tw / 100 + 0.3)
        shift = 0.35 * look.index_size * w if index else 0.0
        x0 = round((w - tw) / 2 + shift + float(rng.normal(0, 0.01 * w)))
        y0 = round((h - th) / 2 + shift + float(rng.normal(0, 0.01 * h)))
        x0, y0 = min(max(0, x0), w - tw), min(max(0, y0), h - th)
        a = g[:, :, 3:4].astype(np.float32) / 255
        region = tex[y0 : y0 + th, x0 : x0 + tw]
        region[:] = region * (1 - a) + g[:, :, :3].astype(np.float32) * a
        if index:
            _corner_index(tex, index, _ink_colour(g), look)
    alpha = rounded_alpha(h, w, look.corner * w) * 255
    return np.dstack([tex, alpha])


def back_texture(rng: Rng, look: TileLook, w: int, h: int) -> np.ndarray:
    n = fractal_noise(rng, h, w, (w / 2, w / 6))
    tex = look.back[None, None, :] * (1 + 0.05 * n[..., None]) * _edge_shade(h, w, 0.25)[..., None]
    if look.back_pattern == 1:  # an embossed motif in the middle
        motif = np.zeros((h, w), np.float32)
        cv2.ellipse(
            motif, (w // 2, h // 2), (w // 4, h // 5), 0, 0, 360, 1.0, max(1, w // 30), cv2.LINE_AA
        )
        tex = tex * (1 - 0.15 * motif[..., None])
    elif look.back_pattern == 2:  # two-tone back (lighter centre)
        inner = rounded_alpha(h, w, look.corner * w)
        inner = cv2.resize(inner, (int(w * 0.8), int(h * 0.85)))
        pad = np.zeros((h, w), np.float32)
        y0, x0 = (h - inner.shape[0]) // 2, (w - inner.shape[1]) // 2
        pad[y0 : y0 + inner.shape[0], x0 : x0 + inner.shape[1]] = inner
        tex = tex * (1 + 0.12 * pad[..., None])
    alpha = rounded_alpha(h, w, look.corner * w) * 255
    return np.dstack([np.clip(tex, 0, 255), alpha]).astype(np.float32)


def side_texture(look: TileLook, length: int, thickness: int) -> np.ndarray:
    """A body side: face colour near the face (top rows), back colour near the back."""
    rows = np.arange(thickness, dtype=np.float32) / max(1, thickness - 1)
    split = 1 - look.back_fraction
    t = np.clip((rows - split) * thickness / 1.5 + 0.5, 0, 1)[:, None, None]
    face = look.face * 0.93
    col = face[None, None, :] * (1 - t) + look.back[None, None, :] * t
    seam = np.exp(-(((rows - split) * thickness) ** 2) / 0.8)[:, None, None]
    col = col * (1 - 0.25 * seam)
    tex = np.repeat(col, length, axis=1)
    alpha = np.full((thickness, length, 1), 255, np.float32)
    return np.concatenate([tex, alpha], axis=2).astype(np.float32)
