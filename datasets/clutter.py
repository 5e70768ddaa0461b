"""Things on a table that are not mahjong tiles, drawn at the size of a stored crop: the
namer's hard negatives ("not a tile").

A finder trained on one tile set boxes anything tile-sized with a glyph on it: keyboard keys,
printed Chinese and Latin text, book spines, playing cards, dominoes, dice, coins, a phone.
Each drawer paints one such thing filling the crop's box (the centre of a
:data:`hupai.datasets.crops.STORE_SIZE` crop with its
:data:`hupai.datasets.crops.STORE_MARGIN`), with its surroundings in the margin, on a table
surface. Text never uses the characters printed on tiles (a wind or a 萬 must stay nameable).

>>> rng = np.random.default_rng(0)
>>> crop, kind = clutter_crop(rng, 96, 0.25)
>>> crop.shape, crop.dtype.name, kind in DRAWERS
((96, 96, 3), 'uint8', True)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

Rng = np.random.Generator
Canvas = NDArray[np.uint8]

#: The clutter's CJK font where Debian installs it (``fonts-wqy-microhei``; a GPU pack
#: carries the file under the same name).
SYSTEM_CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
# A machine without the Debian fonts (a GPU run) reads the CJK one from its pack's folder.
_PACKED_CJK = Path(os.environ.get("HUPAI_FACE_FONTS", "/nonexistent")) / SYSTEM_CJK_FONT.name
FONT_FILES = (
    str(SYSTEM_CJK_FONT)
    if SYSTEM_CJK_FONT.is_file() or not _PACKED_CJK.is_file()
    else str(_PACKED_CJK),
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
)
CJK_FONT = FONT_FILES[0]
#: Bump when the drawers change what a seed draws (crop sets carry it in their names).
#: 2: whole keyboards (backlit), cups and mugs, shelf edges (issue #35).
CLUTTER_VERSION = 2
#: Characters printed on tiles: never drawn as clutter.
TILE_CHARACTERS = set("一二三四五六七八九萬万東东南西北中發发白春夏秋冬梅蘭兰菊竹伍")
LATIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
KEY_LEGENDS = [
    *LATIN[:36],
    "Esc",
    "Tab",
    "Ctrl",
    "Alt",
    "Shift",
    "Enter",
    "F1",
    "F5",
    "⌘",
    "@",
    "#",
    "&",
    "?",
]
SUITS = ("♠", "♥", "♦", "♣")
CARD_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


@cache
def _font(path: str, size: int):  # type: ignore[no-untyped-def]
    from PIL import ImageFont

    if not Path(path).is_file():  # PIL says only "cannot open resource"
        raise FileNotFoundError(
            f"clutter font {path} is missing: `make synth-fonts` installs it"
            " (Debian fonts-wqy-microhei, fonts-dejavu-core)"
        )
    return ImageFont.truetype(path, size)


def fonts() -> list[str]:
    return [f for f in FONT_FILES if Path(f).is_file()]


def _cjk_text(rng: Rng, n: int) -> str:
    out: list[str] = []
    while len(out) < n:
        ch = chr(int(rng.integers(0x4E00, 0x9FA6)))
        if ch not in TILE_CHARACTERS:
            out.append(ch)
    return "".join(out)


def _latin_text(rng: Rng, n: int) -> str:
    words: list[str] = []
    while sum(len(w) + 1 for w in words) < n:
        k = int(rng.integers(2, 9))
        words.append("".join(LATIN[int(i)] for i in rng.integers(0, 52, k)))
    return " ".join(words)


def _colour(rng: Rng, lo: float = 0, hi: float = 255) -> tuple[int, int, int]:
    return tuple(int(v) for v in rng.uniform(lo, hi, 3))  # type: ignore[return-value]


def _text(
    canvas: Canvas,
    xy: tuple[float, float],
    text: str,
    size: int,
    colour: tuple[int, int, int],
    font: str,
    anchor: str = "la",
) -> Canvas:
    from PIL import Image, ImageDraw

    img = Image.fromarray(canvas[:, :, ::-1])
    ImageDraw.Draw(img).text(
        xy, text, fill=colour[::-1], font=_font(font, max(4, size)), anchor=anchor
    )
    return np.ascontiguousarray(np.asarray(img)[:, :, ::-1])


def _background(rng: Rng, s: int) -> Canvas:
    from hupai.datasets.synth.surfaces import table_texture

    return np.asarray(np.clip(table_texture(rng, s, s), 0, 255), np.uint8)


def _box(s: int, margin: float) -> tuple[int, int, int, int]:
    """The crop's box in stored pixels (what the finder boxed)."""
    b = s / (1 + 2 * margin)
    lo = (s - b) / 2
    return round(lo), round(lo), round(lo + b), round(lo + b)


def _rounded(
    canvas: Canvas, box: tuple[int, int, int, int], r: int, colour: tuple[int, ...]
) -> None:
    import cv2

    x1, y1, x2, y2 = box
    r = max(0, min(r, (x2 - x1) // 2, (y2 - y1) // 2))
    c = [int(v) for v in colour]
    cv2.rectangle(canvas, (x1 + r, y1), (x2 - r, y2), c, -1)
    cv2.rectangle(canvas, (x1, y1 + r), (x2, y2 - r), c, -1)
    for cx, cy in ((x1 + r, y1 + r), (x2 - r, y1 + r), (x1 + r, y2 - r), (x2 - r, y2 - r)):
        cv2.circle(canvas, (cx, cy), r, c, -1, lineType=cv2.LINE_AA)


def latin_font(bold: bool = False) -> str:
    """DejaVu Sans where installed; the CJK font (it has Latin glyphs too) on a machine
    without it (a GPU run reads only its pack's fonts)."""
    path = FONT_FILES[2 if bold else 1]
    return path if Path(path).is_file() else CJK_FONT


def _draw_texts(
    canvas: Canvas,
    items: list[tuple[tuple[float, float], str, int, tuple[int, int, int], str, str]],
) -> Canvas:
    """Many ``(xy, text, size, colour, font, anchor)`` drawn in one pass (one PIL round trip,
    where :func:`_text` makes one per call)."""
    from PIL import Image, ImageDraw

    img = Image.fromarray(canvas[:, :, ::-1])
    draw = ImageDraw.Draw(img)
    for xy, text, size, colour, font, anchor in items:
        draw.text(xy, text, fill=colour[::-1], font=_font(font, max(4, size)), anchor=anchor)
    return np.ascontiguousarray(np.asarray(img)[:, :, ::-1])


def draw_text(rng: Rng, s: int, margin: float) -> Canvas:
    """Printed text on paper, packaging or a screen: lines of Chinese or Latin."""
    paper = _colour(rng, 200, 255) if rng.random() < 0.75 else _colour(rng, 0, 120)
    ink = _colour(rng, 0, 90) if sum(paper) > 400 else _colour(rng, 180, 255)
    if rng.random() < 0.2:
        ink = (int(rng.uniform(0, 60)), int(rng.uniform(0, 60)), int(rng.uniform(150, 230)))
    canvas = np.full((s, s, 3), paper, np.uint8)
    size = int(rng.uniform(0.12, 0.45) * s)
    cjk = rng.random() < 0.6
    font = CJK_FONT if cjk or rng.random() < 0.3 else fonts()[int(rng.integers(len(fonts())))]
    y = float(rng.uniform(-0.5, 0.2) * size)
    while y < s:
        n = int(s / max(size, 1) * 1.5) + 2
        line = _cjk_text(rng, n) if cjk else _latin_text(rng, n * 2)
        canvas = _text(canvas, (float(rng.uniform(-size, 4)), y), line, size, ink, font)
        y += size * float(rng.uniform(1.15, 1.8))
    return canvas


def draw_key(rng: Rng, s: int, margin: float) -> Canvas:
    """Keyboard keys: a keycap with its legend, neighbours in the margin."""
    board = _colour(rng, 10, 80) if rng.random() < 0.6 else _colour(rng, 170, 235)
    cap = _colour(rng, 15, 70) if rng.random() < 0.5 else _colour(rng, 200, 250)
    legend = (235, 235, 235) if sum(cap) < 300 else (30, 30, 30)
    canvas = np.full((s, s, 3), board, np.uint8)
    x1, y1, x2, y2 = _box(s, margin)
    pitch_x = (x2 - x1) * float(rng.uniform(1.0, 1.3))
    pitch_y = (y2 - y1) * float(rng.uniform(0.8, 1.2))
    gap = float(rng.uniform(0.06, 0.14))
    for row in range(-2, 3):
        off = float(rng.uniform(0, pitch_x)) if row else 0.0
        for col in range(-2, 3):
            kx, ky = x1 + col * pitch_x + off * (row != 0), y1 + row * pitch_y
            key = (
                round(kx + gap * pitch_x),
                round(ky + gap * pitch_y),
                round(kx + pitch_x * (1 - gap)),
                round(ky + pitch_y * (1 - gap)),
            )
            _rounded(canvas, key, int(0.12 * pitch_x), cap)
            text = KEY_LEGENDS[int(rng.integers(len(KEY_LEGENDS)))]
            size = int(pitch_y * float(rng.uniform(0.2, 0.5)) / max(1, len(text) ** 0.5))
            pos = (key[0] + 0.2 * pitch_x, key[1] + 0.15 * pitch_y)
            anchor = "la"
            if rng.random() < 0.5:
                pos, anchor = ((key[0] + key[2]) / 2, (key[1] + key[3]) / 2), "mm"
            canvas = _text(canvas, pos, text, size, legend, latin_font(), anchor)
    return canvas


def draw_card(rng: Rng, s: int, margin: float) -> Canvas:
    """A playing card: white face, corner index, pips or a court figure."""
    import cv2

    canvas = _background(rng, s)
    x1, y1, x2, y2 = _box(s, margin)
    jitter = (rng.uniform(-0.08, 0.08, 4) * (x2 - x1)).astype(int)
    card = (x1 + jitter[0], y1 + jitter[1], x2 + jitter[2], y2 + jitter[3])
    _rounded(canvas, card, int(0.08 * (x2 - x1)), _colour(rng, 225, 255))
    suit = SUITS[int(rng.integers(4))]
    ink = (30, 30, 200) if suit in "♥♦" else (20, 20, 20)
    rank = CARD_RANKS[int(rng.integers(len(CARD_RANKS)))]
    w = card[2] - card[0]
    font = latin_font()
    canvas = _text(canvas, (card[0] + 0.08 * w, card[1] + 0.05 * w), rank, int(0.28 * w), ink, font)
    canvas = _text(canvas, (card[0] + 0.1 * w, card[1] + 0.32 * w), suit, int(0.22 * w), ink, font)
    n = int(rng.integers(1, 7))
    for _ in range(n):
        cx = card[0] + float(rng.uniform(0.35, 0.75)) * w
        cy = card[1] + float(rng.uniform(0.3, 0.85)) * (card[3] - card[1])
        canvas = _text(canvas, (cx, cy), suit, int(0.25 * w), ink, font, "mm")
    if rng.random() < 0.2:
        cv2.rectangle(
            canvas,
            (card[0] + w // 4, card[1] + w // 4),
            (card[2] - w // 5, card[3] - w // 5),
            _colour(rng),
            2,
        )
    return canvas


def _pips(
    canvas: Canvas, box: tuple[float, float, float, float], n: int, colour: tuple[int, ...]
) -> None:
    import cv2

    layouts = {
        0: [],
        1: [(0.5, 0.5)],
        2: [(0.25, 0.25), (0.75, 0.75)],
        3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
        4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
        5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
        6: [(0.25, 0.2), (0.75, 0.2), (0.25, 0.5), (0.75, 0.5), (0.25, 0.8), (0.75, 0.8)],
    }
    x1, y1, x2, y2 = box
    r = max(1, int(0.09 * min(x2 - x1, y2 - y1)))
    for u, v in layouts[n]:
        centre = (int(x1 + u * (x2 - x1)), int(y1 + v * (y2 - y1)))
        cv2.circle(canvas, centre, r, [int(c) for c in colour], -1, lineType=cv2.LINE_AA)


def draw_domino(rng: Rng, s: int, margin: float) -> Canvas:
    """A domino standing or lying: two halves of pips split by a line."""
    import cv2

    canvas = _background(rng, s)
    x1, y1, x2, y2 = _box(s, margin)
    white = rng.random() < 0.6
    body = _colour(rng, 215, 250) if white else _colour(rng, 10, 50)
    pip = _colour(rng, 0, 60) if white else (235, 235, 235)
    if rng.random() < 0.3:
        pip = _colour(rng, 30, 220)
    _rounded(canvas, (x1, y1, x2, y2), int(0.1 * (x2 - x1)), body)
    mid = (y1 + y2) // 2
    cv2.line(canvas, (x1 + 4, mid), (x2 - 4, mid), [int(c) for c in pip], max(1, (x2 - x1) // 30))
    _pips(canvas, (x1, y1, x2, mid), int(rng.integers(0, 7)), pip)
    _pips(canvas, (x1, mid, x2, y2), int(rng.integers(0, 7)), pip)
    return canvas


def draw_die(rng: Rng, s: int, margin: float) -> Canvas:
    """A die seen from above or a little aside."""
    canvas = _background(rng, s)
    x1, y1, x2, y2 = _box(s, margin)
    side = min(x2 - x1, y2 - y1)
    k = float(rng.uniform(0.6, 1.0))
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    box = (
        int(cx - k * side / 2),
        int(cy - k * side / 2),
        int(cx + k * side / 2),
        int(cy + k * side / 2),
    )
    body = _colour(rng, 210, 250) if rng.random() < 0.6 else _colour(rng, 30, 220)
    _rounded(canvas, box, int(0.18 * k * side), body)
    pip = (20, 20, 20) if sum(body) > 450 else (240, 240, 240)
    if rng.random() < 0.3:
        pip = (30, 30, 200)
    _pips(canvas, box, int(rng.integers(1, 7)), pip)
    return canvas


def draw_coin(rng: Rng, s: int, margin: float) -> Canvas:
    """Coins: metal discs with a rim and relief, some overlapping."""
    import cv2

    canvas = _background(rng, s)
    x1, y1, x2, y2 = _box(s, margin)
    for _ in range(int(rng.integers(1, 4))):
        r = int(float(rng.uniform(0.3, 0.6)) * (x2 - x1))
        c = (int(rng.uniform(x1, x2)), int(rng.uniform(y1, y2)))
        base = (40, 150, 200) if rng.random() < 0.4 else (170, 170, 175)  # brass or steel
        shade = float(rng.uniform(0.8, 1.15))
        metal = [min(255, int(v * shade)) for v in base]
        relief = (max(0, metal[0] - 70), max(0, metal[1] - 70), max(0, metal[2] - 70))
        cv2.circle(canvas, c, r, metal, -1, lineType=cv2.LINE_AA)
        cv2.circle(
            canvas, c, int(r * 0.85), [max(0, v - 40) for v in metal], max(1, r // 12), cv2.LINE_AA
        )
        text = str(int(rng.integers(1, 100))) if rng.random() < 0.6 else _cjk_text(rng, 1)
        canvas = _text(canvas, c, text, int(r * 0.8), relief, CJK_FONT, "mm")
        if rng.random() < 0.3:
            cv2.rectangle(
                canvas,
                (c[0] - r // 5, c[1] - r // 5),
                (c[0] + r // 5, c[1] + r // 5),
                (30, 30, 30),
                -1,
            )
    return canvas


def draw_phone(rng: Rng, s: int, margin: float) -> Canvas:
    """A phone face up: dark body, a screen with blocks of colour and text."""
    import cv2

    canvas = _background(rng, s)
    x1, y1, x2, y2 = _box(s, margin)
    grow = (rng.uniform(0, 0.4, 4) * (x2 - x1)).astype(int)
    body = (x1 - grow[0], y1 - grow[1], x2 + grow[2], y2 + grow[3])
    _rounded(canvas, body, int(0.12 * (x2 - x1)), _colour(rng, 5, 60))
    pad = max(2, (x2 - x1) // 14)
    screen = (body[0] + pad, body[1] + 2 * pad, body[2] - pad, body[3] - 2 * pad)
    lit = rng.random() < 0.6
    base = _colour(rng, 180, 255) if lit else (15, 15, 15)
    cv2.rectangle(canvas, screen[:2], screen[2:], [int(c) for c in base], -1)
    if lit:
        for _ in range(int(rng.integers(2, 7))):
            a = (int(rng.uniform(screen[0], screen[2])), int(rng.uniform(screen[1], screen[3])))
            b = (a[0] + int(rng.uniform(5, 30)), a[1] + int(rng.uniform(3, 15)))
            cv2.rectangle(canvas, a, b, [int(c) for c in _colour(rng)], -1)
        canvas = _text(
            canvas,
            (screen[0] + 3, screen[1] + 3),
            _cjk_text(rng, 4),
            int(0.12 * (x2 - x1)),
            (30, 30, 30),
            CJK_FONT,
        )
    return canvas


def draw_spines(rng: Rng, s: int, margin: float) -> Canvas:
    """Book spines or boxes side by side: coloured strips with vertical titles."""
    canvas = np.zeros((s, s, 3), np.uint8)
    x = float(rng.uniform(-20, 0))
    while x < s:
        w = float(rng.uniform(0.15, 0.5)) * s
        colour = _colour(rng, 20, 240)
        canvas[:, max(0, int(x)) : int(x + w)] = colour
        ink = (240, 240, 240) if sum(colour) < 380 else (20, 20, 20)
        title = _cjk_text(rng, 5) if rng.random() < 0.6 else _latin_text(rng, 6).upper()
        size = int(w * float(rng.uniform(0.4, 0.75)))
        for k, ch in enumerate(title):
            canvas = _text(canvas, (x + w / 2, 4 + k * size * 1.05), ch, size, ink, CJK_FONT, "ma")
        x += w + float(rng.uniform(0, 3))
    return canvas


def draw_lookalike(rng: Rng, s: int, margin: float) -> Canvas:
    """A tile-shaped body whose face is not a mahjong face: a letter, a symbol, a radical."""
    canvas = _background(rng, s)
    x1, y1, x2, y2 = _box(s, margin)
    face = _colour(rng, 200, 252)
    edge = _colour(rng, 30, 200)
    _rounded(canvas, (x1 - 2, y1 - 2, x2 + 3, y2 + 4), int(0.1 * (x2 - x1)), edge)
    _rounded(canvas, (x1, y1, x2, y2), int(0.1 * (x2 - x1)), face)
    ink = _colour(rng, 0, 160)
    text = LATIN[int(rng.integers(52))] if rng.random() < 0.5 else _cjk_text(rng, 1)
    font = CJK_FONT if not text.isascii() else fonts()[int(rng.integers(len(fonts())))]
    return _text(
        canvas, ((x1 + x2) / 2, (y1 + y2) / 2), text, int(0.7 * (x2 - x1)), ink, font, "mm"
    )


# -- whole keyboards, cups, shelves (issue #35: what fools a one-set finder on other tables) --

#: Secondary legends of Chinese (Cangjie, Zhuyin) and Japanese (kana) keyboards; tile
#: characters (竹 is Cangjie's H key) left out.
KEY_SCRIPTS = "".join(
    ch
    for ch in "日月金木水火土弓戈人心手口尸廿山女田卜重難"
    "ㄅㄆㄇㄈㄉㄊㄋㄌㄍㄎㄏㄐㄑㄒあいうえおかきくけこさしすせそたちつてと"
    if ch not in TILE_CHARACTERS
)
#: Key widths of a row, in key units (a laptop's rows from the number row to the space bar).
KEY_ROWS = (
    (1.0,) * 13 + (2.0,),
    (1.5,) + (1.0,) * 12 + (1.5,),
    (1.75,) + (1.0,) * 11 + (2.25,),
    (2.25,) + (1.0,) * 10 + (2.75,),
    (1.25, 1.0, 1.25, 1.25, 5.5, 1.25, 1.0, 1.0, 1.0, 1.0),
)
WIDE_LEGENDS = ("Tab", "Caps", "Shift", "Enter", "Ctrl", "Alt", "Fn", "Del", "Back", "⇧")


@dataclass(frozen=True)
class Keyboard:
    """How one keyboard looks: backlit (dark keys, lit legends) or not."""

    backlit: bool
    deck: tuple[int, int, int]  # the body around and between the keys (BGR)
    cap: tuple[int, int, int]
    legend: tuple[int, int, int]
    glow: float  # how far the lit legends and the light under the caps bleed
    gap: float  # between caps, share of the pitch
    scripts: bool  # second legends in Cangjie / Zhuyin / kana


def random_keyboard(rng: Rng, backlit: bool | None = None) -> Keyboard:
    lit = bool(rng.random() < 0.65) if backlit is None else backlit
    if lit:  # dark aluminium or plastic, keys near black, legends lit white (some tinted)
        deck = _colour(rng, 8, 45)
        cap = tuple(min(255, c + int(rng.uniform(0, 20))) for c in _colour(rng, 10, 40))
        legend = (
            _colour(rng, 225, 255)
            if rng.random() < 0.75
            else tuple(int(v) for v in rng.choice([[255, 140, 60], [80, 80, 255], [255, 255, 120]]))
        )
    elif rng.random() < 0.5:  # silver or white laptop, dark legends
        deck = _colour(rng, 170, 225)
        cap = _colour(rng, 200, 250)
        legend = _colour(rng, 20, 80)
    else:  # unlit dark keys with grey legends
        deck = _colour(rng, 15, 60)
        cap = _colour(rng, 20, 60)
        legend = _colour(rng, 150, 200)
    return Keyboard(
        lit,
        deck,
        cap,  # type: ignore[arg-type]
        legend,  # type: ignore[arg-type]
        float(rng.uniform(0.3, 1.0)) if lit else 0.0,
        float(rng.uniform(0.08, 0.2)),
        bool(rng.random() < 0.2),
    )


def _legend(rng: Rng, width_units: float) -> str:
    if width_units > 4:
        return ""  # the space bar
    if width_units > 1.2:
        return str(WIDE_LEGENDS[int(rng.integers(len(WIDE_LEGENDS)))])
    return str(KEY_LEGENDS[int(rng.integers(len(KEY_LEGENDS)))])


def draw_keyboard(
    rng: Rng,
    h: int,
    w: int,
    pitch: float,
    look: Keyboard | None = None,
    origin: tuple[float, float] = (0.0, 0.0),
) -> tuple[Canvas, list[tuple[int, int, int, int]]]:
    """A keyboard filling an ``h × w`` canvas: rows of caps ``pitch`` px apart from ``origin``
    (the top-left of a row's first key, which may lie outside), each with its legend; a
    backlit one's legends lit and glowing, light leaking between the caps. Returns the
    canvas and the caps' boxes (``x1 y1 x2 y2``, clipped)."""
    import cv2

    kb = look or random_keyboard(rng)
    canvas = np.full((h, w, 3), kb.deck, np.uint8)
    leak = np.zeros((h, w), np.float32)  # light under the caps: shows in the gaps
    caps: list[tuple[int, int, int, int]] = []
    texts: list[tuple[tuple[float, float], str, int, tuple[int, int, int], str, str]] = []
    ox, oy = origin
    first_row = int(rng.integers(len(KEY_ROWS)))
    gap = kb.gap * pitch
    row_index = 0
    y = oy
    while y < h:
        widths = KEY_ROWS[(first_row + row_index) % len(KEY_ROWS)]
        x = ox - float(rng.uniform(0, 2)) * pitch if row_index else ox
        k = 0
        while x < w:
            units = widths[k % len(widths)]
            key = (round(x + gap / 2), round(y + gap / 2), round(x + units * pitch - gap / 2))
            box = (*key, round(y + pitch - gap / 2))
            if box[2] > 0 and box[3] > 0:
                cv2.rectangle(leak, box[:2], box[2:], 1.0, -1)
                _rounded(canvas, box, int(0.12 * pitch), kb.cap)
                clipped = (max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3]))
                if clipped[2] - clipped[0] > 2 and clipped[3] - clipped[1] > 2:
                    caps.append(clipped)
                text = _legend(rng, units)
                if text:
                    size = int(pitch * float(rng.uniform(0.22, 0.4)) / max(1, len(text) ** 0.4))
                    font = latin_font(rng.random() < 0.4)  # legends are Latin and symbols
                    if rng.random() < 0.5:
                        xy, anchor = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2), "mm"
                    else:
                        xy, anchor = (box[0] + 0.18 * pitch, box[1] + 0.14 * pitch), "la"
                    texts.append((xy, text, size, kb.legend, font, anchor))
                    if kb.scripts and len(text) == 1:
                        second = KEY_SCRIPTS[int(rng.integers(len(KEY_SCRIPTS)))]
                        corner = (box[2] - 0.15 * pitch, box[3] - 0.12 * pitch)
                        texts.append((corner, second, int(0.26 * pitch), kb.legend, CJK_FONT, "rd"))
            x += units * pitch
            k += 1
        y += pitch
        row_index += 1
    lit = _draw_texts(
        np.zeros((h, w, 3), np.uint8), [(*t[:3], (255, 255, 255), *t[4:]) for t in texts]
    )
    mask = lit[:, :, 0].astype(np.float32) / 255
    out: NDArray[np.float32] = canvas.astype(np.float32)
    legend = np.array(kb.legend, np.float32)
    if kb.backlit:  # light from under the caps, seen in the gaps and around the legends
        sigma = max(0.6, 0.05 * pitch)
        rim = cv2.GaussianBlur(leak, (0, 0), sigma) * (1 - leak)
        halo = cv2.GaussianBlur(mask, (0, 0), max(0.5, 0.03 * pitch))
        out = out + legend * (0.35 * kb.glow * rim + 0.5 * kb.glow * halo)[..., None]
    out = np.asarray(out * (1 - mask[..., None]) + legend * mask[..., None], np.float32)
    return np.clip(out, 0, 255).astype(np.uint8), caps


def draw_keyboard_crop(rng: Rng, s: int, margin: float) -> Canvas:
    """Part of a whole keyboard, a key where the finder's box was (backlit, mostly)."""
    x1, y1, x2, _y2 = _box(s, margin)
    pitch = (x2 - x1) * float(rng.uniform(0.8, 1.3))
    origin = (x1 - 3 * pitch - float(rng.uniform(0, 0.3)) * pitch, y1 - 3 * pitch)
    canvas, _caps = draw_keyboard(rng, s, s, pitch, origin=origin)
    return canvas


CUP_COLOURS = ((245, 245, 245), (235, 240, 245), (40, 40, 40), (60, 60, 170), (150, 100, 40))
DRINKS = ((25, 45, 80), (30, 110, 180), (120, 170, 200), (20, 30, 45), (70, 120, 90))


def draw_cup(rng: Rng, s: int, margin: float) -> Canvas:
    """A cup or mug on the table, seen from above (rim, drink, handle) or from aside (a
    shaded cylinder with its handle, often printed)."""
    import cv2

    canvas = _background(rng, s).astype(np.float32)
    x1, y1, x2, y2 = _box(s, margin)
    side = x2 - x1
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    body = np.array(
        CUP_COLOURS[int(rng.integers(len(CUP_COLOURS)))]
        if rng.random() < 0.7
        else _colour(rng, 30, 250),
        np.float32,
    )
    handle_side = float(rng.choice([-1.0, 1.0]))
    if rng.random() < 0.5:  # from above
        r = 0.5 * side * float(rng.uniform(0.75, 1.0))
        if rng.random() < 0.3:  # a saucer
            cv2.circle(
                canvas, (int(cx), int(cy)), int(1.35 * r), (body * 0.95).tolist(), -1, cv2.LINE_AA
            )
        hx = int(cx + handle_side * 1.05 * r)
        cv2.ellipse(
            canvas,
            (hx, int(cy)),
            (int(0.35 * r), int(0.18 * r)),
            0,
            0,
            360,
            (body * 0.85).tolist(),
            max(2, int(0.1 * r)),
            cv2.LINE_AA,
        )
        cv2.circle(canvas, (int(cx), int(cy)), int(r), body.tolist(), -1, cv2.LINE_AA)
        inner = int(r * float(rng.uniform(0.82, 0.92)))
        drink = (
            np.array(DRINKS[int(rng.integers(len(DRINKS)))], np.float32)
            if rng.random() < 0.75
            else body * 0.7
        )
        cv2.circle(canvas, (int(cx), int(cy)), inner, drink.tolist(), -1, cv2.LINE_AA)
        if rng.random() < 0.6:  # the lamp in the drink
            c = (int(cx + rng.uniform(-0.4, 0.4) * inner), int(cy + rng.uniform(-0.4, 0.4) * inner))
            spot = np.zeros(canvas.shape[:2], np.float32)
            cv2.circle(spot, c, max(1, int(0.15 * inner)), 1.0, -1)
            glow = np.asarray(cv2.GaussianBlur(spot, (0, 0), max(0.5, 0.05 * inner)))
            canvas += 120 * glow[..., None]
        arc = float(rng.uniform(0, 360))
        cv2.ellipse(
            canvas,
            (int(cx), int(cy)),
            (int(0.95 * r), int(0.95 * r)),
            0,
            arc,
            arc + 70,
            (255, 255, 255),
            max(1, int(0.04 * r)),
            cv2.LINE_AA,
        )
    else:  # from aside: a shaded cylinder, its rim an ellipse
        half = 0.5 * side * float(rng.uniform(0.6, 0.85))
        top = y1 + float(rng.uniform(0, 0.15)) * side
        bottom = y2 - float(rng.uniform(0, 0.1)) * side
        tilt = float(rng.uniform(0.1, 0.35))  # how far the rim opens: the view's elevation
        hy = cy
        cv2.ellipse(
            canvas,
            (int(cx + handle_side * half), int(hy)),
            (int(0.35 * half), int(0.3 * (bottom - top))),
            0,
            0,
            360,
            (body * 0.8).tolist(),
            max(2, int(0.15 * half)),
            cv2.LINE_AA,
        )
        xs = np.arange(s, dtype=np.float32)
        u = np.clip((xs - cx) / half, -1, 1)
        shade = 0.55 + 0.45 * np.sqrt(1 - u**2) + 0.35 * np.exp(-(((u + 0.35) / 0.12) ** 2))
        column = body[None, :] * shade[:, None]
        mask = np.zeros((s, s), np.float32)
        cv2.rectangle(mask, (int(cx - half), int(top)), (int(cx + half), int(bottom)), 1.0, -1)
        cv2.ellipse(
            mask,
            (int(cx), int(bottom)),
            (int(half), int(tilt * half)),
            0,
            0,
            180,
            1.0,
            -1,
            cv2.LINE_AA,
        )
        canvas = canvas * (1 - mask[..., None]) + column[None, :, :] * mask[..., None]
        cv2.ellipse(
            canvas,
            (int(cx), int(top)),
            (int(half), int(tilt * half)),
            0,
            0,
            360,
            (body * 1.05).tolist(),
            -1,
            cv2.LINE_AA,
        )
        cv2.ellipse(
            canvas,
            (int(cx), int(top)),
            (int(0.9 * half), int(0.9 * tilt * half)),
            0,
            0,
            360,
            (body * 0.45).tolist(),
            -1,
            cv2.LINE_AA,
        )
        if rng.random() < 0.6:  # a print on the body: a word, a logo
            ink = _colour(rng, 0, 120) if float(body.mean()) > 128 else _colour(rng, 180, 255)
            text = (
                _cjk_text(rng, int(rng.integers(1, 4)))
                if rng.random() < 0.5
                else _latin_text(rng, 4)[:6]
            )
            size = int(half * float(rng.uniform(0.3, 0.6)))
            img = np.clip(canvas, 0, 255).astype(np.uint8)
            img = _text(img, (cx, (top + bottom) / 2), text, size, ink, CJK_FONT, "mm")
            canvas = img.astype(np.float32)
    return np.clip(canvas, 0, 255).astype(np.uint8)


def _spines_between(
    rng: Rng, canvas: Canvas, top: int, bottom: int, width: tuple[float, float]
) -> Canvas:
    """Book spines standing side by side on ``bottom``, up to ``top``, titles set down them."""
    s = canvas.shape[1]
    texts: list[tuple[tuple[float, float], str, int, tuple[int, int, int], str, str]] = []
    x = float(rng.uniform(-20, 0))
    while x < s:
        w = float(rng.uniform(*width))
        height = int((bottom - top) * float(rng.uniform(0.7, 1.0)))
        colour = _colour(rng, 20, 240)
        canvas[max(0, bottom - height) : bottom, max(0, int(x)) : int(x + w)] = colour
        ink = (240, 240, 240) if sum(colour) < 380 else (20, 20, 20)
        title = _cjk_text(rng, 6) if rng.random() < 0.6 else _latin_text(rng, 7).upper()
        size = int(w * float(rng.uniform(0.4, 0.75)))
        y = bottom - height + 0.1 * w
        for ch in title:
            if size < 5 or y + size > bottom:  # smaller is a smudge: not worth a glyph
                break
            texts.append(((x + w / 2, y), ch, size, ink, CJK_FONT, "ma"))
            y += size * 1.05
        x += w + float(rng.uniform(0, 2))
    return _draw_texts(canvas, texts)


def draw_shelf(rng: Rng, s: int, margin: float) -> Canvas:
    """A shelf's front edge across the crop: books standing on it, a label strip on its lip,
    the shadowed shelf below."""
    import cv2

    canvas = np.full((s, s, 3), _colour(rng, 20, 90), np.uint8)
    lip = int(s * float(rng.uniform(0.25, 0.75)))
    thick = max(3, int(s * float(rng.uniform(0.08, 0.25))))
    canvas = _spines_between(rng, canvas, 0, lip, (0.12 * s, 0.35 * s))
    if rng.random() < 0.7:
        canvas = _spines_between(rng, canvas, lip + thick, s, (0.12 * s, 0.35 * s))
        shade = np.linspace(0.35, 0.9, s - lip - thick, dtype=np.float32)[:, None, None]
        canvas[lip + thick :] = (canvas[lip + thick :] * shade).astype(np.uint8)
    wood = rng.random() < 0.5
    plank = _colour(rng, 60, 160) if wood else _colour(rng, 190, 245)
    canvas[lip : lip + thick] = plank
    cv2.line(canvas, (0, lip), (s, lip), [min(255, c + 40) for c in plank], max(1, thick // 8))
    if rng.random() < 0.5:  # a price or index label on the lip
        lx = int(rng.uniform(0, 0.7) * s)
        lw = int(rng.uniform(0.15, 0.35) * s)
        canvas[lip + thick // 6 : lip + thick - thick // 6, lx : lx + lw] = (245, 245, 245)
        text = _latin_text(rng, 5)[:5] if rng.random() < 0.5 else _cjk_text(rng, 2)
        canvas = _text(
            canvas,
            (lx + lw / 2, lip + thick / 2),
            text,
            max(4, thick // 2),
            (20, 20, 20),
            CJK_FONT,
            "mm",
        )
    return canvas


def shelf_backdrop(rng: Rng, h: int, w: int, unit: float) -> Canvas:
    """A bookshelf filling an ``h × w`` backdrop (the room beyond a table seen low): shelves
    ``unit`` px apart with spines on each (``unit`` about three tiles' height)."""
    canvas = np.full((h, w, 3), _colour(rng, 25, 80), np.uint8)
    plank = _colour(rng, 60, 230)
    thick = max(2, int(0.08 * unit))
    y = float(rng.uniform(-0.5, 0.3)) * unit
    while y < h:
        top, lip = max(0, int(y)), int(y + unit)
        if lip > 0:
            canvas = _spines_between(rng, canvas, top, min(h, lip), (0.12 * unit, 0.3 * unit))
            canvas[max(0, lip) : max(0, min(h, lip + thick))] = plank
        y += unit + thick
    return canvas


DRAWERS: dict[str, Callable[[Rng, int, float], Canvas]] = {
    "text": draw_text,
    "key": draw_key,
    "card": draw_card,
    "domino": draw_domino,
    "die": draw_die,
    "coin": draw_coin,
    "phone": draw_phone,
    "spines": draw_spines,
    "lookalike": draw_lookalike,
    "keyboard": draw_keyboard_crop,
    "cup": draw_cup,
    "shelf": draw_shelf,
}
#: Text and keys are what a one-set finder boxes most often; they are drawn most.
SHARES = {
    "text": 3,
    "key": 2,
    "card": 1,
    "domino": 1.5,
    "die": 1,
    "coin": 0.7,
    "phone": 0.7,
    "spines": 1,
    "lookalike": 1.5,
    "keyboard": 2,
    "cup": 1,
    "shelf": 1,
}


#: Clutter shaped like a tile body — a tall rounded block (dominoes, lettered blocks) or a
#: white rounded rectangle with a ruled frame (playing cards, a phone's bezel): what a finder
#: taught to pass over teaches it to pass over other sets' tiles too — finder v4c missed the
#: camerash sets' framed white dragons until cards and phones left its scenes
#: (models/MODEL_CARD.md, :class:`SceneMix`). The namer still sees them all as "not a tile".
TILE_SHAPED = frozenset({"domino", "lookalike", "card", "phone"})


def clutter_crop(
    rng: Rng, size: int, margin: float, leave_out: frozenset[str] = frozenset()
) -> tuple[Canvas, str]:
    """One stored crop of clutter, seen a little aside and blurred like a photo; none of the
    kinds ``leave_out`` names."""
    import cv2

    kinds = [k for k in DRAWERS if k not in leave_out]
    p = np.array([SHARES[k] for k in kinds], np.float64)
    kind = kinds[int(rng.choice(len(kinds), p=p / p.sum()))]
    big = 2 * size  # drawn at twice the size, then shrunk: smooth edges
    canvas = DRAWERS[kind](rng, big, margin)
    src = np.array([[0, 0], [big, 0], [big, big], [0, big]], np.float32)
    dst = src + rng.normal(0, 0.04 * big, (4, 2)).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    seen = np.asarray(cv2.warpPerspective(canvas, m, (big, big), borderMode=cv2.BORDER_REFLECT))
    if rng.random() < 0.5:
        seen = np.ascontiguousarray(np.rot90(seen, int(rng.integers(1, 4))))
    out = cv2.resize(seen, (size, size), interpolation=cv2.INTER_AREA)
    return np.asarray(out, np.uint8), kind


def lay_clutter(
    rng: Rng,
    img: NDArray[np.float32],
    tile_px: float,
    tiles: NDArray[np.float64],
    count: int,
    leave_out: frozenset[str] = frozenset(),
) -> list[tuple[str, tuple[int, int, int, int]]]:
    """Clutter pasted into a scene (BGR float) at about a tile's size (``tile_px``), never
    over a tile's box (``tiles``, xyxy in the image): nothing labelled is hidden; none of the
    kinds ``leave_out`` names. Returns each thing's kind and box (the object, without its
    surroundings)."""
    import cv2

    h, w = img.shape[:2]
    laid: list[tuple[str, tuple[int, int, int, int]]] = []
    for _ in range(count):
        side = max(16, round(tile_px * float(rng.uniform(1.5, 3.5))))  # object and margin
        if side >= min(h, w):
            continue
        for _try in range(20):
            left, top = int(rng.integers(0, w - side)), int(rng.integers(0, h - side))
            pad = 0.1 * side
            if (
                not len(tiles)
                or not (
                    (tiles[:, 0] < left + side + pad)
                    & (tiles[:, 2] > left - pad)
                    & (tiles[:, 1] < top + side + pad)
                    & (tiles[:, 3] > top - pad)
                ).any()
            ):
                break
        else:
            continue
        margin = float(rng.uniform(0.05, 0.3))
        patch, kind = clutter_crop(rng, side, margin, leave_out)
        m = cv2.getRotationMatrix2D((side / 2, side / 2), float(rng.uniform(-40, 40)), 1.0)
        turned = cv2.warpAffine(patch, m, (side, side))
        mask = cv2.warpAffine(np.ones((side, side), np.float32), m, (side, side))
        alpha = cv2.GaussianBlur(mask, (0, 0), max(0.5, side / 80))[..., None]
        region = img[top : top + side, left : left + side]
        region[:] = region * (1 - alpha) + turned.astype(np.float32) * alpha
        x1, y1, x2, y2 = _box(side, margin)
        laid.append((kind, (left + x1, top + y1, left + x2, top + y2)))
    return laid
