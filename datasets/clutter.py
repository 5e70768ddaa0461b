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
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

Rng = np.random.Generator
Canvas = NDArray[np.uint8]

# A machine without the Debian fonts (a GPU run) reads the CJK one from its pack's folder.
_PACKED_CJK = Path(os.environ.get("HUPAI_FACE_FONTS", "/nonexistent")) / "wqy-microhei.ttc"
FONT_FILES = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
    if Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc").is_file() or not _PACKED_CJK.is_file()
    else str(_PACKED_CJK),
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
)
CJK_FONT = FONT_FILES[0]
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
            canvas = _text(canvas, pos, text, size, legend, FONT_FILES[1], anchor)
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
    font = FONT_FILES[1]
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
}


def clutter_crop(rng: Rng, size: int, margin: float) -> tuple[Canvas, str]:
    """One stored crop of clutter, seen a little aside and blurred like a photo."""
    import cv2

    kinds = list(DRAWERS)
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
    rng: Rng, img: NDArray[np.float32], tile_px: float, tiles: NDArray[np.float64], count: int
) -> None:
    """Clutter pasted into a scene (BGR float) at about a tile's size (``tile_px``), never
    over a tile's box (``tiles``, xyxy in the image): nothing labelled is hidden."""
    import cv2

    h, w = img.shape[:2]
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
        patch, _kind = clutter_crop(rng, side, float(rng.uniform(0.05, 0.3)))
        m = cv2.getRotationMatrix2D((side / 2, side / 2), float(rng.uniform(-40, 40)), 1.0)
        turned = cv2.warpAffine(patch, m, (side, side))
        mask = cv2.warpAffine(np.ones((side, side), np.float32), m, (side, side))
        alpha = cv2.GaussianBlur(mask, (0, 0), max(0.5, side / 80))[..., None]
        region = img[top : top + side, left : left + side]
        region[:] = region * (1 - alpha) + turned.astype(np.float32) * alpha
