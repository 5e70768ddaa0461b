"""Procedural tile faces: one random *set style* draws all 42 faces of a set consistently.

Real sets differ in endless styles but follow the same **conventions**
(../shared/notes/tile-face-conventions.md): a numeral over 萬/万, dots and bamboos in standard
layouts, six honour characters, a white dragon that is blank, framed or 白, numbered flowers and
seasons. A :class:`SetStyle` fixes everything a maker chooses once for a set — the fonts (CJK
fonts from Debian, brush/kai, ming/song, hei, mincho), traditional or simplified forms
(萬/万, 東/东, 發/发, 伍/五, 蘭/兰), the ink of each element, stroke weight, engraved (shaded) or
printed, the pip and stick drawings, the 1 of bamboo (a bird or one stick), the white dragon,
the flowers' numbering — and :func:`draw_face` draws any face of it as a BGRA glyph the renderer
places on a tile body (:mod:`hupai.datasets.synth.render`), like the faces of ../shared/art.
About one set in four is captioned as Western and export sets are (:func:`western_marks`):
English words (EAST, RED DRAGON, SPRING, PLUM …) along the foot of the honours, flowers and
seasons, beside the Chinese figure, which still decides the tile (the corner indices of such
sets are the renderer's, :data:`hupai.datasets.synth.surfaces.CORNER_INDEX`).

Styles come in **families** (:data:`FAMILIES`): each owns its fonts and its pip, stick and bird
drawings, so that one family can be held out of training (:data:`HELD_OUT_FAMILY`, measured by
bench/heldout.py) as a style no model saw. Fonts are Debian packages (:data:`FONT_PACKAGES`,
installed by ``make synth-fonts``; all free licenses, used at training time only); a family
whose fonts are all missing is left out, saying so.

>>> import numpy as np
>>> style = random_style(np.random.default_rng(3), families=("hei",))  # doctest: +SKIP
>>> draw_face(style, 0).shape[2]  # doctest: +SKIP
4
>>> sorted(FAMILIES)
['hei', 'kai', 'mincho', 'song']
>>> HELD_OUT_FAMILY in FAMILIES and HELD_OUT_FAMILY not in TRAINING_FAMILIES
True
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from hupai.datasets.synth.art import stored_glyph

Rng = np.random.Generator
Mask = np.ndarray  # float32 0-1
BGR = tuple[float, float, float]

#: Bumped when a face of a given style is drawn otherwise (crop sets of generated faces carry it
#: in their names, so that a set drawn before is not reused): 2 — painted flower pictures;
#: 3 — English captions; 4 — birds drawn in lines (:data:`LINE_BIRDS`); 6 — bold brush birds
#: standing tall and the bird's own numeral 1 (:func:`bird_marks`; 5 was a brush-font family,
#: reverted: its crop sets may still lie about under that number); 7 — a maker's mark inside the
#: white dragon (:func:`white_marks`).
FACES_VERSION = 7
#: The canvas a face is drawn on, px (width, height; a 3:4 face). The renderer crops to the ink.
CANVAS = (180, 240)
#: Text is rasterised at this size, then fitted into its box.
TEXT_PX = 128

_FONT_DIR = Path("/usr/share/fonts")
#: Font id → (file, index in a collection). Debian packages in :data:`FONT_PACKAGES`.
FONTS: dict[str, tuple[Path, int]] = {
    "ukai-cn": (_FONT_DIR / "truetype/arphic/ukai.ttc", 0),
    "ukai-tw": (_FONT_DIR / "truetype/arphic/ukai.ttc", 2),
    "cwtex-kai": (_FONT_DIR / "truetype/cwtex/cwkai.ttf", 0),
    "wenkai": (_FONT_DIR / "truetype/lxgw-wenkai/LXGWWenKai-Regular.ttf", 0),
    "wenkai-bold": (_FONT_DIR / "truetype/lxgw-wenkai/LXGWWenKai-Bold.ttf", 0),
    "uming-cn": (_FONT_DIR / "truetype/arphic/uming.ttc", 0),
    "uming-tw": (_FONT_DIR / "truetype/arphic/uming.ttc", 2),
    "noto-serif-tc": (_FONT_DIR / "opentype/noto/NotoSerifCJK-Regular.ttc", 3),
    "noto-serif-sc-bold": (_FONT_DIR / "opentype/noto/NotoSerifCJK-Bold.ttc", 2),
    "noto-serif-hk-bold": (_FONT_DIR / "opentype/noto/NotoSerifCJK-Bold.ttc", 4),
    "zenhei": (_FONT_DIR / "truetype/wqy/wqy-zenhei.ttc", 0),
    "microhei": (_FONT_DIR / "truetype/wqy/wqy-microhei.ttc", 0),
    "noto-sans-tc": (_FONT_DIR / "opentype/noto/NotoSansCJK-Regular.ttc", 3),
    "noto-sans-sc-bold": (_FONT_DIR / "opentype/noto/NotoSansCJK-Bold.ttc", 2),
    "noto-sans-jp-bold": (_FONT_DIR / "opentype/noto/NotoSansCJK-Bold.ttc", 0),
    "ipa-mincho": (_FONT_DIR / "opentype/ipafont-mincho/ipam.ttf", 0),
    "hanazono": (_FONT_DIR / "truetype/hanazono/HanaMinA.ttf", 0),
    "klee": (_FONT_DIR / "truetype/klee/KleeOne-Regular.ttf", 0),
    "klee-semibold": (_FONT_DIR / "truetype/klee/KleeOne-SemiBold.ttf", 0),
    # flowers' Arabic numbers and the English captions
    "latin": (_FONT_DIR / "truetype/dejavu/DejaVuSans-Bold.ttf", 0),
}
#: The Debian package of each font file's folder, and its license (all allow this use).
FONT_PACKAGES = {
    "fonts-arphic-ukai": "Arphic Public License",
    "fonts-arphic-uming": "Arphic Public License",
    "fonts-cwtex-kai": "GPL-2.0-or-later",
    "fonts-lxgw-wenkai": "OFL-1.1",
    "fonts-noto-cjk": "OFL-1.1",
    "fonts-wqy-zenhei": "GPL-2.0 with font embedding exception",
    "fonts-wqy-microhei": "Apache-2.0 or GPL-3.0 with font embedding exception",
    "fonts-ipafont-mincho": "IPA Font License 1.0",
    "fonts-hanazono": "Hanazono Font License or OFL-1.1",
    "fonts-klee": "OFL-1.1",
    "fonts-dejavu-core": "Bitstream Vera / public domain",
}
#: The classes of 5m, 5p, 5s: the faces with red variants.
RED_FIVES = (4, 13, 22)


@dataclass(frozen=True)
class Family:
    """Fonts and drawings that belong together; a family is held out as a whole."""

    fonts: tuple[str, ...]
    coins: tuple[str, ...]
    sticks: tuple[str, ...]
    birds: tuple[str, ...]
    plants: tuple[str, ...]


FAMILIES: dict[str, Family] = {
    "kai": Family(
        ("ukai-cn", "ukai-tw", "cwtex-kai", "wenkai", "wenkai-bold"),
        ("rings", "petals"),
        ("bone", "knots"),
        ("sparrow", "ink-sparrow", "phoenix", "brush-sparrow"),
        ("blossom", "rose"),
    ),
    "song": Family(
        ("uming-cn", "uming-tw", "noto-serif-tc", "noto-serif-sc-bold", "noto-serif-hk-bold"),
        ("cross", "rings"),
        ("segmented", "bone"),
        ("sparrow", "crane", "ink-sparrow", "phoenix", "brush-sparrow"),
        ("blossom", "leaves", "peony"),
    ),
    "hei": Family(
        ("zenhei", "microhei", "noto-sans-tc", "noto-sans-sc-bold", "noto-sans-jp-bold"),
        ("solid", "petals"),
        ("capsule", "knots"),
        ("crane", "ink-sparrow", "phoenix", "brush-sparrow"),
        ("leaves", "rose", "peony"),
    ),
    # Held out of training: Japanese mincho and handwriting fonts, coins drawn as suns and
    # square-holed cash, sticks as leaves and ladders, a peacock, fans of grass.
    "mincho": Family(
        ("ipa-mincho", "hanazono", "klee", "klee-semibold"),
        ("sun", "cash"),
        ("leaf", "ladder"),
        ("peacock",),
        ("grass",),
    ),
}
HELD_OUT_FAMILY = "mincho"
TRAINING_FAMILIES = tuple(f for f in FAMILIES if f != HELD_OUT_FAMILY)


class FaceError(ValueError):
    """No font of a style's families is installed (the message names the packages)."""


def font_file(font_id: str) -> tuple[Path, int]:
    """Where font ``font_id`` is read from: ``$HUPAI_FACE_FONTS/<id>.ttf`` when that exists (a
    GPU machine without the Debian fonts reads the subsets its pack carries,
    :func:`hupai.training.gpu.subset_fonts`), else its Debian file and collection index."""
    folder = os.environ.get("HUPAI_FACE_FONTS")
    if folder and (Path(folder) / f"{font_id}.ttf").is_file():
        return Path(folder) / f"{font_id}.ttf", 0
    return FONTS[font_id]


def installed_fonts(family: str) -> tuple[str, ...]:
    """The fonts of ``family`` whose files are present."""
    return tuple(f for f in FAMILIES[family].fonts if font_file(f)[0].is_file())


def usable_families(families: Sequence[str] = TRAINING_FAMILIES) -> tuple[str, ...]:
    """The families of ``families`` with at least one installed font."""
    return tuple(f for f in families if installed_fonts(f))


# -- the style -------------------------------------------------------------------------------

NUMERALS = "一二三四五六七八九"
FLOWER_CHARS = ("梅", "蘭", "菊", "竹")
SEASON_CHARS = ("春", "夏", "秋", "冬")
WINDS = ("東", "南", "西", "北")
SIMPLIFIED = {"萬": "万", "東": "东", "發": "发", "蘭": "兰"}
#: Western and export sets' English captions (conventions §4-5): winds, dragons (5z 6z 7z),
#: flowers 梅蘭菊竹 and seasons 春夏秋冬.
WIND_WORDS = ("EAST", "SOUTH", "WEST", "NORTH")
DRAGON_WORDS = ("WHITE", "GREEN", "RED")
FLOWER_WORDS = ("PLUM", "ORCHID", "CHRYS", "BAMBOO")
SEASON_WORDS = ("SPRING", "SUMMER", "AUTUMN", "WINTER")
DRAGON_WORD = "DRAGON"  # under a dragon's colour on some sets
#: Every English word a face may print.
CAPTION_WORDS = (*WIND_WORDS, *DRAGON_WORDS, DRAGON_WORD, *FLOWER_WORDS, *SEASON_WORDS)

NAVY, BLUE, BLACK = (90.0, 35.0, 20.0), (150.0, 70.0, 20.0), (30.0, 30.0, 30.0)
GREEN, DARK_GREEN, TEAL = (50.0, 130.0, 20.0), (40.0, 95.0, 25.0), (110.0, 120.0, 20.0)
RED, CRIMSON = (30.0, 30.0, 200.0), (50.0, 20.0, 160.0)
PINK, GOLD = (150.0, 110.0, 230.0), (40.0, 150.0, 200.0)


@dataclass(frozen=True)
class SetStyle:
    """Everything a tile maker fixes once for a set (colours BGR)."""

    family: str
    font: str  # characters, winds, dragons
    numeral_font: str
    wan: str  # 萬 or 万
    five: str  # 伍 or 五
    east: str
    fa: str  # 發 or 发
    lan: str
    numeral_ink: BGR
    wan_ink: BGR
    wind_ink: BGR
    red: BGR
    green: BGR
    dots: tuple[BGR, BGR]  # the two non-red pip colours (equal in Japanese sets)
    stick: BGR
    stick_accent: BGR  # 7-bamboo lower middle column: the stick colour or blue
    coin: str
    stick_kind: str
    bird: str  # a bird name or "stick"
    plant: str
    white: str  # blank, frame, double, chain, 白
    frame_ink: BGR
    bonus_numbers: str  # arabic, chinese, none
    flower_ink: BGR
    season_ink: BGR
    stroke: int  # -1 thinner … +2 bolder
    engraved: bool
    mirror: bool  # 3-dots and the top of 7-dots rising instead of falling
    eight_w_over_m: bool
    two_dot_swap: bool
    wan_scale: float  # height of the 萬 block against the numeral's
    pip_scale: float
    seed: int = 0  # small per-face jitter
    # Western and export sets' English captions, drawn from the seed (so that adding them
    # left every other draw as it was)
    captions: bool = False  # English words along the foot of honours, flowers, seasons
    bonus_chinese: bool = True  # a captioned flower keeps its Chinese character
    mark_ink: BGR = BLACK  # the captions' ink
    # the 1 of bamboo's own small numeral 1 (many Chinese sets print it on the bird alone), drawn
    # from the seed like the captions: "" (none), "left" or "right" (the top corner it is in)
    bird_numeral: str = ""
    bird_numeral_ink: BGR = BLACK
    # a maker's mark inside the white dragon, drawn from the seed (:func:`white_marks`): ""
    # (none), "gem" (a small stone drawn in the centre) or the mark's text
    white_mark: str = ""
    white_mark_ink: BGR = RED

    @property
    def red_five(self) -> SetStyle:
        """The same set's red fives (Japanese 赤牌): every ink red; read as the five."""
        return replace(self, numeral_ink=self.red, dots=(self.red, self.red), stick=self.red)


def _choice(rng: Rng, items: Sequence[object]) -> object:
    return items[int(rng.integers(len(items)))]


def _ink(rng: Rng, base: BGR, amount: float = 0.12) -> BGR:
    v = np.clip(np.array(base) * (1 + rng.uniform(-amount, amount, 3)), 0, 255)
    return (float(v[0]), float(v[1]), float(v[2]))


def random_style(rng: Rng, families: Sequence[str] = TRAINING_FAMILIES) -> SetStyle:
    """A random set style from one of ``families`` (those with an installed font)."""
    usable = usable_families(families)
    if not usable:
        packages = ", ".join(sorted(FONT_PACKAGES))
        raise FaceError(f"no font of the families {list(families)} is installed ({packages})")
    family = str(_choice(rng, usable))
    fam = FAMILIES[family]
    fonts = installed_fonts(family)
    font = str(_choice(rng, fonts))
    numeral_font = font if rng.random() < 0.7 else str(_choice(rng, fonts))
    simplified = rng.random() < 0.25
    japanese = rng.random() < 0.3
    numeral_ink = _ink(rng, _choice(rng, (BLACK, NAVY, BLUE, BLACK, DARK_GREEN)))  # type: ignore[arg-type]
    red = _ink(rng, _choice(rng, (RED, CRIMSON)))  # type: ignore[arg-type]
    green = _ink(rng, _choice(rng, (GREEN, DARK_GREEN, TEAL)))  # type: ignore[arg-type]
    if japanese:
        dots = (_ink(rng, NAVY), _ink(rng, NAVY))
    else:
        a = _ink(rng, _choice(rng, (BLUE, BLACK, NAVY)))  # type: ignore[arg-type]
        dots = (a, _ink(rng, _choice(rng, (GREEN, DARK_GREEN))))  # type: ignore[arg-type]
    stick = _ink(rng, _choice(rng, (GREEN, DARK_GREEN, TEAL)))  # type: ignore[arg-type]
    flower_ink = _ink(rng, _choice(rng, (BLUE, RED, GREEN, BLACK)))  # type: ignore[arg-type]
    season_ink = _ink(rng, _choice(rng, (RED, BLUE, GREEN, BLACK)))  # type: ignore[arg-type]
    style = SetStyle(
        family=family,
        font=font,
        numeral_font=numeral_font,
        wan="万" if simplified and rng.random() < 0.8 else "萬",
        five="伍" if rng.random() < 0.7 else "五",
        east="东" if simplified and rng.random() < 0.7 else "東",
        fa="发" if simplified and rng.random() < 0.7 else "發",
        lan="兰" if simplified and rng.random() < 0.7 else "蘭",
        numeral_ink=numeral_ink,
        wan_ink=red if rng.random() < 0.93 else numeral_ink,
        wind_ink=numeral_ink if rng.random() < 0.7 else _ink(rng, _choice(rng, (NAVY, BLUE))),  # type: ignore[arg-type]
        red=red,
        green=green,
        dots=dots,
        stick=stick,
        stick_accent=stick if rng.random() < 0.75 else _ink(rng, BLUE),
        coin=str(_choice(rng, fam.coins)),
        stick_kind=str(_choice(rng, fam.sticks)),
        bird=str(_choice(rng, fam.birds)) if rng.random() < 0.8 else "stick",
        plant=str(_choice(rng, fam.plants)),
        white=str(
            rng.choice(["blank", "frame", "double", "chain", "白"], p=[0.3, 0.25, 0.2, 0.1, 0.15])
        ),
        frame_ink=_ink(rng, _choice(rng, (BLUE, NAVY, BLACK))),  # type: ignore[arg-type]
        bonus_numbers=str(rng.choice(["arabic", "chinese", "none"], p=[0.55, 0.3, 0.15])),
        flower_ink=flower_ink,
        season_ink=season_ink,
        stroke=int(rng.choice([-1, 0, 0, 1, 2])),
        engraved=bool(rng.random() < 0.5),
        mirror=bool(rng.random() < 0.15),
        eight_w_over_m=bool(rng.random() < 0.5),
        two_dot_swap=bool(rng.random() < 0.5),
        wan_scale=float(rng.uniform(0.9, 1.35)),
        pip_scale=float(rng.uniform(0.85, 1.05)),
        seed=int(rng.integers(1 << 30)),
    )
    return white_marks(bird_marks(western_marks(style)))


def bird_marks(style: SetStyle) -> SetStyle:
    """About one set in three prints a small Arabic 1 in a top corner of its bird (conventions
    §3: "a bird, sometimes with the numeral 1") — in red, black, blue or the numerals' ink. Without
    it a bird beside a 1 looked like nothing but a flower: a number in the corner over a
    picture. Drawn from the seed (every other choice of the style stays as it was)."""
    r = np.random.default_rng([style.seed, 36])
    if r.random() >= 0.35:
        return style
    ink = _choice(r, (style.red, BLACK, style.numeral_ink, BLUE))
    side = "left" if r.random() < 0.6 else "right"
    return replace(style, bird_numeral=side, bird_numeral_ink=_ink(r, ink))  # type: ignore[arg-type]


#: Makers' marks printed inside a framed white dragon: a brand character (red, mostly), a letter,
#: none of them a character or numeral another face carries (so that no face's own sign is taught
#: to mean the white dragon).
WHITE_MARK_CHARS = "福金寶財鑫華龍鳳興盛雀樂喜雅祥榮"
WHITE_MARK_LETTERS = ("B", "P", "M", "H")


def white_marks(style: SetStyle) -> SetStyle:
    """A maker's mark inside the white dragon (conventions §4: some sets put a small mark or gem
    in the centre; some Chinese sets print a maker's character inside the frame): about two
    framed sets in five — a character (red or the frame's ink), a letter, or a gem — and one
    blank set in six a gem. Drawn from the seed (every other choice of the style stays)."""
    r = np.random.default_rng([style.seed, 37])
    framed = style.white in ("frame", "double", "chain")
    if style.white == "白" or r.random() >= (0.4 if framed else 0.16):
        return style
    kind = "gem" if not framed else str(r.choice(["char", "letter", "gem"], p=[0.65, 0.15, 0.2]))
    mark = {"char": str(_choice(r, WHITE_MARK_CHARS)), "gem": "gem"}.get(kind) or str(
        _choice(r, WHITE_MARK_LETTERS)
    )
    ink = _choice(r, (style.red, style.red, style.frame_ink, GOLD, style.green))
    return replace(style, white_mark=mark, white_mark_ink=_ink(r, ink))  # type: ignore[arg-type]


def western_marks(style: SetStyle) -> SetStyle:
    """Western and export sets' marks (conventions §1, §4, §5): about one set in four captions
    its honours, flowers and seasons in English, in the numerals' ink or its own, and half of
    those leave a flower its Chinese character. Drawn from the style's seed."""
    r = np.random.default_rng([style.seed, 35])
    return replace(
        style,
        captions=bool(r.random() < 0.25),
        bonus_chinese=bool(r.random() < 0.5),
        mark_ink=style.numeral_ink if r.random() < 0.6 else _ink(r, _choice(r, (BLUE, BLACK, RED))),  # type: ignore[arg-type]
    )


# -- drawing primitives ----------------------------------------------------------------------


@dataclass
class Canvas:
    """A premultiplied BGR layer with its coverage; elements are laid over it."""

    w: int = CANVAS[0]
    h: int = CANVAS[1]
    colour: np.ndarray = field(init=False)
    alpha: np.ndarray = field(init=False)
    #: Where the face's figure goes (x1, y1, x2, y2): the whole face less any caption.
    content: tuple[float, float, float, float] = field(init=False)

    def __post_init__(self) -> None:
        self.colour = np.zeros((self.h, self.w, 3), np.float32)
        self.alpha = np.zeros((self.h, self.w), np.float32)
        self.content = (0.05 * self.w, 0.04 * self.h, 0.95 * self.w, 0.96 * self.h)

    def lay(self, mask: Mask, ink: BGR, x: int = 0, y: int = 0) -> None:
        """Lay ``mask`` (0-1) in ``ink`` with its top-left at ``(x, y)`` (clipped)."""
        mh, mw = mask.shape
        x1, y1, x2, y2 = max(0, x), max(0, y), min(self.w, x + mw), min(self.h, y + mh)
        if x1 >= x2 or y1 >= y2:
            return
        m = mask[y1 - y : y2 - y, x1 - x : x2 - x, None]
        region = (slice(y1, y2), slice(x1, x2))
        self.colour[region] = np.asarray(ink, np.float32) * m + self.colour[region] * (1 - m)
        self.alpha[region] = m[..., 0] + self.alpha[region] * (1 - m[..., 0])

    def glyph(self) -> np.ndarray:
        """BGRA uint8 of the whole canvas — not cropped to the ink, so that a face keeps its
        layout (two dots stay two small coins in a column); a blank face is one clear pixel."""
        a = np.clip(self.alpha, 0, 1)
        if not (a > 0.03).any():
            return stored_glyph(np.zeros((0, 0, 4), np.uint8))
        bgr = self.colour / np.maximum(a, 1e-6)[..., None]
        return np.dstack([np.clip(bgr, 0, 255), a * 255]).astype(np.uint8)


@cache
def _font(font_id: str):  # type: ignore[no-untyped-def]
    from PIL import ImageFont

    if font_id == "latin" and not font_file(font_id)[0].is_file():
        font_id = next(
            f for fam in FAMILIES.values() for f in fam.fonts if font_file(f)[0].is_file()
        )
    path, index = font_file(font_id)
    return ImageFont.truetype(str(path), TEXT_PX, index=index)


def _raw_text(font_id: str, text: str) -> Mask:
    from PIL import Image, ImageDraw

    font = _font(font_id)
    img = Image.new("L", (TEXT_PX * (len(text) + 1), TEXT_PX * 2), 0)
    ImageDraw.Draw(img).text((TEXT_PX // 4, TEXT_PX // 4), text, fill=255, font=font)
    mask = np.asarray(img, np.float32) / 255
    ys, xs = np.nonzero(mask > 0.03)
    if len(xs) == 0:
        return mask[:0, :0]
    return mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


@cache
def has_glyph(font_id: str, ch: str) -> bool:
    """Whether the font draws ``ch`` (not blank, not its 'missing' box)."""
    drawn = _raw_text(font_id, ch)
    if drawn.size == 0:
        return False
    missing = _raw_text(font_id, "\U0010fffd")
    return not (drawn.shape == missing.shape and np.allclose(drawn, missing))


@cache
def text_mask(font_id: str, text: str) -> Mask:
    """``text`` in the font, cropped to its ink; characters the font lacks fall back to the
    first hei font that has them (a maker would not print a blank)."""
    if all(has_glyph(font_id, ch) for ch in text if not ch.isascii()):
        return _raw_text(font_id, text)
    for fallback in (*FAMILIES["hei"].fonts, *FAMILIES["song"].fonts):
        if font_file(fallback)[0].is_file() and all(has_glyph(fallback, ch) for ch in text):
            return _raw_text(fallback, text)
    raise FaceError(f"no installed font draws {text!r}")


def _weight(mask: Mask, stroke: int, size: float) -> Mask:
    """Thicker or thinner strokes, in proportion to the drawn size."""
    k = max(1, round(abs(stroke) * size / 60))
    if stroke == 0 or k < 1:
        return mask
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
    return (cv2.dilate if stroke > 0 else cv2.erode)(mask, kernel)


def fit(mask: Mask, box_w: float, box_h: float, stretch: float = 1.0) -> Mask:
    """``mask`` scaled to fit a box (``stretch`` > 1 widens it up to the box's width)."""
    mh, mw = mask.shape
    s = min(box_w / max(mw * stretch, 1), box_h / max(mh, 1))
    w = max(1, min(round(box_w), round(mw * s * stretch)))
    h = max(1, round(mh * s))
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA)


def _place_centred(
    canvas: Canvas, mask: Mask, ink: BGR, cx: float, cy: float, style: SetStyle
) -> None:
    mh, mw = mask.shape
    x, y = round(cx - mw / 2), round(cy - mh / 2)
    if style.engraved:  # a sunken glyph: a shadow on the upper-left wall of the cut
        canvas.lay(mask * 0.55, (70.0, 70.0, 75.0), x - 1 - mw // 60, y - 1 - mh // 60)
    canvas.lay(mask, ink, x, y)


def _text_in(
    canvas: Canvas,
    style: SetStyle,
    font: str,
    text: str,
    ink: BGR,
    box: tuple[float, ...],
    stretch: float = 1.0,
) -> None:
    x1, y1, x2, y2 = box
    mask = fit(text_mask(font, text), x2 - x1, y2 - y1, stretch)
    mask = _weight(mask, style.stroke, min(mask.shape))
    _place_centred(canvas, np.clip(mask, 0, 1), ink, (x1 + x2) / 2, (y1 + y2) / 2, style)


# -- pips and sticks -------------------------------------------------------------------------

_SS = 4  # supersampling of drawn shapes


def _circle(
    m: np.ndarray, c: tuple[float, float], r: float, value: float, thick: float = -1
) -> None:
    cv2.circle(
        m,
        (round(c[0] * _SS), round(c[1] * _SS)),
        max(1, round(r * _SS)),
        value,
        -1 if thick < 0 else max(1, round(thick * _SS)),
        cv2.LINE_8,
    )


def _down(m: np.ndarray) -> Mask:
    h, w = m.shape
    return cv2.resize(m, (w // _SS, h // _SS), interpolation=cv2.INTER_AREA)


def coin(kind: str, d: int) -> tuple[Mask, Mask]:
    """A coin of diameter ``d`` px: its main mask and its accent (centre) mask."""
    size = d * _SS
    main = np.zeros((size, size), np.float32)
    acc = np.zeros_like(main)
    c, r = (d / 2, d / 2), d / 2 - 0.5
    t = max(1.0, d * 0.07)
    if kind == "rings":
        _circle(main, c, r, 1, t)
        _circle(main, c, r * 0.62, 1, t)
        _circle(acc, c, r * 0.22, 1)
    elif kind == "petals":
        _circle(main, c, r, 1, t)
        for k in range(6):
            a = k * math.pi / 3
            p = (c[0] + 0.45 * r * math.cos(a), c[1] + 0.45 * r * math.sin(a))
            _circle(main, p, r * 0.2, 1)
        _circle(acc, c, r * 0.18, 1)
    elif kind == "cross":
        _circle(main, c, r, 1, t)
        for a in (0, math.pi / 2):
            dx, dy = 0.7 * r * math.cos(a), 0.7 * r * math.sin(a)
            cv2.line(
                main,
                (round((c[0] - dx) * _SS), round((c[1] - dy) * _SS)),
                (round((c[0] + dx) * _SS), round((c[1] + dy) * _SS)),
                1,
                max(1, round(t * _SS)),
            )
        _circle(acc, c, r * 0.25, 1, t)
    elif kind == "solid":
        _circle(main, c, r, 1)
        _circle(main, c, r * 0.55, 0, t * 0.8)
        _circle(acc, c, r * 0.2, 1)
    elif kind == "sun":
        _circle(main, c, r * 0.6, 1, t)
        for k in range(12):
            a = k * math.pi / 6
            p1 = (c[0] + 0.72 * r * math.cos(a), c[1] + 0.72 * r * math.sin(a))
            p2 = (c[0] + r * math.cos(a), c[1] + r * math.sin(a))
            cv2.line(
                main,
                (round(p1[0] * _SS), round(p1[1] * _SS)),
                (round(p2[0] * _SS), round(p2[1] * _SS)),
                1,
                max(1, round(t * _SS)),
            )
        _circle(acc, c, r * 0.3, 1)
    elif kind == "cash":
        _circle(main, c, r, 1)
        s = r * 0.32
        cv2.rectangle(
            main,
            (round((c[0] - s) * _SS), round((c[1] - s) * _SS)),
            (round((c[0] + s) * _SS), round((c[1] + s) * _SS)),
            0,
            -1,
        )
        _circle(acc, c, r * 0.8, 1, t * 0.6)
        acc *= main
    else:
        raise FaceError(f"unknown coin drawing {kind!r}")
    return _down(main), _down(acc)


def stick(kind: str, w: int, h: int) -> tuple[Mask, Mask]:
    """A bamboo stick ``w`` × ``h`` px, upright: main mask and accent (knots) mask."""
    W, H = w * _SS, h * _SS
    main = np.zeros((H, W), np.float32)
    acc = np.zeros_like(main)
    cx = W // 2
    bar = max(_SS, round(W * 0.38))
    if kind == "bone":
        cv2.rectangle(main, (cx - bar // 2, 0), (cx + bar // 2, H - 1), 1, -1)
        for y in (0.06, 0.5, 0.94):
            cv2.ellipse(main, (cx, round(y * H)), (W // 2 - 1, max(_SS, H // 14)), 0, 0, 360, 1, -1)
    elif kind == "knots":
        cv2.rectangle(main, (cx - bar // 2, _SS), (cx + bar // 2, H - _SS), 1, -1)
        for y in (0.33, 0.66):
            cv2.line(
                main, (cx - W // 2, round(y * H)), (cx + W // 2, round(y * H)), 1, max(_SS, H // 20)
            )
            cv2.line(
                acc,
                (cx - bar // 2, round(y * H)),
                (cx + bar // 2, round(y * H)),
                1,
                max(_SS, H // 30),
            )
    elif kind == "segmented":
        gap = max(_SS, H // 25)
        for k in range(3):
            y1, y2 = round(k * H / 3) + gap, round((k + 1) * H / 3) - gap
            cv2.rectangle(main, (cx - W // 3, y1), (cx + W // 3, y2), 1, -1)
    elif kind == "capsule":
        r = W // 3
        cv2.rectangle(main, (cx - r, r), (cx + r, H - r), 1, -1)
        cv2.circle(main, (cx, r), r, 1, -1)
        cv2.circle(main, (cx, H - r), r, 1, -1)
        cv2.line(main, (cx, 2 * r), (cx, H - 2 * r), 0, max(_SS, W // 10))
        cv2.circle(acc, (cx, H // 2), max(_SS, r // 2), 1, -1)
    elif kind == "leaf":
        cv2.ellipse(main, (cx, H // 2), (W // 2 - 1, H // 2 - 1), 0, 0, 360, 1, -1)
        cv2.line(main, (cx, _SS), (cx, H - _SS), 0, max(_SS, W // 12))
    elif kind == "ladder":
        for x in (cx - W // 3, cx + W // 3):
            cv2.line(main, (x, 0), (x, H - 1), 1, max(_SS, W // 7))
        for k in range(1, 5):
            y = round(k * H / 5)
            cv2.line(main, (cx - W // 3, y), (cx + W // 3, y), 1, max(_SS, W // 9))
    else:
        raise FaceError(f"unknown stick drawing {kind!r}")
    return _down(main), _down(acc)


def _rotate(mask: Mask, deg: float) -> Mask:
    h, w = mask.shape
    side = math.ceil(math.hypot(h, w))
    pad = np.zeros((side, side), np.float32)
    pad[(side - h) // 2 : (side - h) // 2 + h, (side - w) // 2 : (side - w) // 2 + w] = mask
    m = cv2.getRotationMatrix2D((side / 2, side / 2), deg, 1.0)
    return cv2.warpAffine(pad, m, (side, side), flags=cv2.INTER_LINEAR)


# Dots: centre positions in the content box (0-1) and the coin diameter (share of its width).
DOT_LAYOUTS: dict[int, tuple[tuple[tuple[float, float], ...], float]] = {
    2: (((0.5, 0.25), (0.5, 0.75)), 0.46),
    3: (((0.2, 0.17), (0.5, 0.5), (0.8, 0.83)), 0.36),
    4: (((0.27, 0.25), (0.73, 0.25), (0.27, 0.75), (0.73, 0.75)), 0.44),
    5: (((0.22, 0.2), (0.78, 0.2), (0.5, 0.5), (0.22, 0.8), (0.78, 0.8)), 0.38),
    6: (((0.27, 0.15), (0.73, 0.15), (0.27, 0.56), (0.73, 0.56), (0.27, 0.85), (0.73, 0.85)), 0.34),
    7: (
        ((0.2, 0.1), (0.5, 0.2), (0.8, 0.3), (0.27, 0.6), (0.73, 0.6), (0.27, 0.87), (0.73, 0.87)),
        0.27,
    ),
    8: (tuple((x, y) for y in (0.11, 0.37, 0.63, 0.89) for x in (0.27, 0.73)), 0.27),
    9: (tuple((x, y) for y in (0.17, 0.5, 0.83) for x in (0.18, 0.5, 0.82)), 0.31),
}


def dot_colours(n: int, style: SetStyle) -> list[BGR]:
    """The conventional colour of each pip of the ``n`` of dots (the layout's order)."""
    a, b, r = style.dots[0], style.dots[1], style.red
    if n == 2:
        return [b, a] if style.two_dot_swap else [a, b]
    if n == 3:
        return [a, r, b]
    if n == 4:
        return [a, b, b, a]
    if n == 5:
        return [a, b, r, b, a]
    if n == 6:
        return [b, b, r, r, r, r]
    if n == 7:
        return [b, b, b, r, r, r, r]
    if n == 8:
        return [a] * 8
    return [a, a, a, r, r, r, b, b, b]


# Bamboo: (x, y, angle) of each stick and the stick height (share of the content height).
def stick_layout(n: int, style: SetStyle) -> tuple[list[tuple[float, float, int]], float]:
    if n == 2:
        return [(0.5, 0.25, 0), (0.5, 0.75, 0)], 0.44
    if n == 3:
        return [(0.5, 0.25, 0), (0.28, 0.75, 0), (0.72, 0.75, 0)], 0.44
    if n == 4:
        return [(x, y, 0) for y in (0.25, 0.75) for x in (0.3, 0.7)], 0.44
    if n == 5:
        return [(0.2, 0.25, 0), (0.8, 0.25, 0), (0.5, 0.5, 0), (0.2, 0.75, 0), (0.8, 0.75, 0)], 0.42
    if n == 6:
        return [(x, y, 0) for y in (0.25, 0.75) for x in (0.2, 0.5, 0.8)], 0.44
    if n == 7:
        return [(0.5, 0.14, 0)] + [(x, y, 0) for y in (0.5, 0.84) for x in (0.2, 0.5, 0.8)], 0.29
    if n == 8:
        sign = 1 if style.eight_w_over_m else -1
        top = [(0.12, 0.25, 0), (0.38, 0.25, sign * 22), (0.62, 0.25, -sign * 22), (0.88, 0.25, 0)]
        bottom = [
            (0.12, 0.75, 0),
            (0.38, 0.75, -sign * 22),
            (0.62, 0.75, sign * 22),
            (0.88, 0.75, 0),
        ]
        return top + bottom, 0.42
    return [(x, y, 0) for y in (0.17, 0.5, 0.83) for x in (0.2, 0.5, 0.8)], 0.3


def stick_colours(n: int, style: SetStyle) -> list[BGR]:
    g, r = style.stick, style.red
    if n == 5:
        return [g, g, r, g, g]
    if n == 7:
        return [r, g, style.stick_accent, g, g, style.stick_accent, g]
    if n == 9:
        return [g, r, g] * 3
    return [g] * n


def _content_box(canvas: Canvas) -> tuple[float, float, float, float]:
    return canvas.content


def _draw_dots(canvas: Canvas, style: SetStyle, n: int, rng: Rng) -> None:
    x1, y1, x2, y2 = _content_box(canvas)
    bw, bh = x2 - x1, y2 - y1
    if n == 1:  # one large ornate medallion
        d = round(0.9 * bw * style.pip_scale)
        main, acc = coin(style.coin, d)
        outer, _ = coin("rings", d)
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        _place_centred(canvas, outer, style.dots[1], cx, cy, style)
        inner = fit(main, d * 0.72, d * 0.72)
        _place_centred(canvas, inner, style.dots[0], cx, cy, style)
        _place_centred(canvas, fit(acc, d * 0.72, d * 0.72), style.red, cx, cy, style)
        return
    points, size = DOT_LAYOUTS[n]
    d = max(6, round(size * bw * style.pip_scale))
    main, acc = coin(style.coin, d)
    for (px, py), ink in zip(points, dot_colours(n, style), strict=True):
        if style.mirror and n in (3, 7) and (n == 3 or py < 0.4):
            px = 1 - px
        cx, cy = x1 + px * bw, y1 + py * bh
        _place_centred(canvas, main, ink, cx, cy, style)
        accent = ink if ink == style.red else style.red
        _place_centred(canvas, acc, accent, cx, cy, style)


def _draw_sticks(canvas: Canvas, style: SetStyle, n: int, rng: Rng) -> None:
    x1, y1, x2, y2 = _content_box(canvas)
    bw, bh = x2 - x1, y2 - y1
    if n == 1:
        _bird_numeral(canvas, style)
        if style.bird == "stick":  # early sets: one bent string with a red knot
            main, acc = stick(style.stick_kind, round(0.22 * bw), round(0.85 * bh))
            main = _rotate(main, 8)
            acc = _rotate(acc, 8)
            cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
            _place_centred(canvas, main, style.stick, cx, cy, style)
            _place_centred(canvas, np.maximum(acc, _knot(main)), style.red, cx, cy, style)
        elif style.bird in LINE_BIRDS:
            line_bird(canvas, style)
        else:
            bird(canvas, style, rng)
        return
    points, height = stick_layout(n, style)
    sh = round(height * bh * style.pip_scale)
    sw = max(4, round(sh * 0.32))
    main, acc = stick(style.stick_kind, sw, sh)
    for (px, py, ang), ink in zip(points, stick_colours(n, style), strict=True):
        m, a = (main, acc) if ang == 0 else (_rotate(main, ang), _rotate(acc, ang))
        cx, cy = x1 + px * bw, y1 + py * bh
        _place_centred(canvas, m, ink, cx, cy, style)
        _place_centred(canvas, a, style.red if ink != style.red else style.stick, cx, cy, style)


def _bird_numeral(canvas: Canvas, style: SetStyle) -> None:
    """The bird's own numeral 1 in a top corner (:func:`bird_marks`); the figure keeps the
    rest of the face, as the sets that print it leave the corner free."""
    if not style.bird_numeral:
        return
    x1, y1, x2, y2 = canvas.content
    w, h = x2 - x1, y2 - y1
    nx1 = x1 if style.bird_numeral == "left" else x2 - 0.2 * w
    font = "latin" if style.seed % 2 else style.numeral_font  # a sans 1, or the set's own
    box = (nx1, y1, nx1 + 0.2 * w, y1 + 0.18 * h)
    _text_in(canvas, style, font, "1", style.bird_numeral_ink, box)
    canvas.content = (x1, y1 + 0.1 * h, x2, y2)


def _knot(mask: Mask) -> Mask:
    """A small knot in the middle of a drawn stick."""
    out = np.zeros_like(mask)
    h, w = mask.shape
    cv2.circle(out, (w // 2, h // 2), max(2, w // 5), 1.0, -1, cv2.LINE_AA)
    return out * (mask > 0.2)


def bird(canvas: Canvas, style: SetStyle, rng: Rng) -> None:
    """The 1 of bamboo as a bird: body, head, beak, wing, tail, legs; pose from the style."""
    r = np.random.default_rng(style.seed)
    W, H = canvas.w * _SS, canvas.h * _SS
    body, head, tail, beak = (np.zeros((H, W), np.float32) for _ in range(4))
    cx, cy = W * 0.5, H * 0.5
    big = {"sparrow": 1.0, "crane": 0.8, "peacock": 0.9}.get(style.bird, 1.0)
    bw, bh = W * 0.26 * big, H * 0.14 * big
    tilt = float(r.uniform(-30, 10))
    cv2.ellipse(body, (round(cx), round(cy)), (round(bw), round(bh)), tilt, 0, 360, 1, -1)
    hx, hy = cx + bw * 0.9, cy - bh * (1.3 if style.bird == "crane" else 0.9)
    if style.bird == "crane":  # a long neck
        cv2.line(
            body, (round(cx + bw * 0.6), round(cy)), (round(hx), round(hy)), 1, round(W * 0.04)
        )
    cv2.circle(head, (round(hx), round(hy)), round(W * 0.08 * big), 1, -1)
    tri = np.array(
        [
            [hx + W * 0.07, hy - H * 0.01],
            [hx + W * 0.16, hy + H * 0.01],
            [hx + W * 0.07, hy + H * 0.03],
        ]
    )
    cv2.fillConvexPoly(beak, np.round(tri).astype(np.int32), 1)
    feathers = 5 if style.bird == "peacock" else 3
    for k in range(feathers):
        a = math.radians(
            180 + tilt + (k - (feathers - 1) / 2) * (18 if style.bird == "peacock" else 12)
        )
        ln = W * (0.45 if style.bird == "peacock" else 0.32)
        ex, ey = cx - bw * 0.7 + ln * math.cos(a), cy + ln * math.sin(a) * 0.9 + H * 0.12
        cv2.ellipse(
            tail,
            (round((cx - bw * 0.7 + ex) / 2), round((cy + ey) / 2)),
            (round(ln / 2), round(W * 0.035)),
            math.degrees(math.atan2(ey - cy, ex - cx + bw * 0.7)),
            0,
            360,
            1,
            -1,
        )
        if style.bird == "peacock":  # eyes on the feathers
            cv2.circle(beak, (round(ex), round(ey)), round(W * 0.035), 1, -1)
    for dx in (-0.3, 0.1):  # legs
        cv2.line(
            body,
            (round(cx + bw * dx), round(cy + bh * 0.8)),
            (round(cx + bw * dx), round(cy + bh * 2.0)),
            1,
            round(W * 0.015),
        )
    masks = [_down(m) for m in (tail, body, head, beak)]
    inks = [
        style.stick,
        style.dots[0] if r.random() < 0.5 else style.stick_accent,
        style.red,
        style.red,
    ]
    _lay_bird(canvas, style, r, masks, inks)


def _lay_bird(canvas: Canvas, style: SetStyle, r: Rng, masks: list[Mask], inks: list[BGR]) -> None:
    """Lay a bird's masks in their inks, facing left half the time (``r``), engraved sets
    with a shadow under each."""
    if r.random() < 0.5:  # facing left
        masks = [m[:, ::-1].copy() for m in masks]
    for m, ink in zip(masks, inks, strict=True):
        if style.engraved:
            canvas.lay(m * 0.5, (70.0, 70.0, 75.0), -1, -1)
        canvas.lay(m, ink)


#: Birds drawn as most sets draw them: in strokes of two or three inks filling the face — an
#: outlined body with feathered wings, a crest and long tail plumes, upright or leaning, often on
#: a perch (a phoenix: more and longer plumes). The filled cartoon birds of :func:`bird` alone
#: taught the namer too little: a real set's line-drawn bird, small, read as a flower picture.
LINE_BIRDS = ("ink-sparrow", "phoenix", "brush-sparrow")
#: Line birds painted in bold brush strokes, standing tall and filling the face's height — the
#: common bird of Chinese sets (thick red, green and blue strokes); thin birds on a perch alone
#: left such a bird, small and blurred, to be read as a flower or a character.
BOLD_BIRDS = ("brush-sparrow",)


def _bezier(pts: Sequence[Sequence[float]], steps: int) -> np.ndarray:
    """``steps`` points (steps, 2) along the quadratic Bézier curve of three points."""
    p0, p1, p2 = (np.asarray(p, np.float64) for p in pts)
    t = np.linspace(0.0, 1.0, steps)[:, None]
    return np.asarray((1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t**2 * p2)


def _curve(
    m: np.ndarray, pts: Sequence[tuple[float, float]], thick: float, steps: int = 24
) -> None:
    """A quadratic Bézier stroke through three points onto ``m`` (supersampled px)."""
    xy = _bezier(pts, steps)
    cv2.polylines(m, [np.round(xy).astype(np.int32)], False, 1.0, max(1, round(thick)))


def line_bird(canvas: Canvas, style: SetStyle) -> None:
    """The 1 of bamboo as a line-drawn bird (:data:`LINE_BIRDS`), one pose a set."""
    r = np.random.default_rng([style.seed, 1])
    x1, y1, x2, y2 = (v * _SS for v in _content_box(canvas))
    W, H = canvas.w * _SS, canvas.h * _SS
    bw, bh = x2 - x1, y2 - y1
    phoenix = style.bird == "phoenix"
    bold = style.bird in BOLD_BIRDS
    t = max(_SS, (0.018 + 0.006 * style.stroke) * W * float(r.uniform(0.8, 1.3)))
    if bold:
        t *= float(r.uniform(2.0, 3.0))
    outline, accent, plumes = (np.zeros((H, W), np.float32) for _ in range(3))
    # the body leans from upright (a bird standing tall) to level
    lean = math.radians(float(r.uniform(55, 85) if bold else r.uniform(20, 75)))
    ux, uy = math.cos(lean), -math.sin(lean)  # tail → head
    cx, cy = x1 + bw * float(r.uniform(0.45, 0.6)), y1 + bh * float(r.uniform(0.42, 0.55))
    rl, rs = bw * float(r.uniform(0.2, 0.28)), bw * float(r.uniform(0.11, 0.16))
    if bold:  # a tall bird: the body a third of the face's height, the tail to its foot
        rl, rs = bh * float(r.uniform(0.16, 0.22)), bw * float(r.uniform(0.16, 0.22))
        cy = y1 + bh * float(r.uniform(0.36, 0.46))
    angle = math.degrees(math.atan2(uy, ux))
    centre = (round(cx), round(cy))
    if bold or r.random() < 0.4:  # a body tinted in, outlined over it
        cv2.ellipse(plumes, centre, (round(rl), round(rs)), angle, 0, 360, 1.0, -1)
    cv2.ellipse(outline, centre, (round(rl), round(rs)), angle, 0, 360, 1.0, round(t))
    for k in range(int(r.integers(3, 6))):  # the wing: nested feather strokes
        f = 0.25 + 0.15 * k
        _curve(
            outline,
            [
                (cx + ux * rl * 0.5 - uy * rs * f, cy + uy * rl * 0.5 + ux * rs * f),
                (cx - ux * rl * 0.1 + uy * rs * 0.2, cy - uy * rl * 0.1 - ux * rs * 0.2),
                (cx - ux * rl * (0.6 + 0.25 * k), cy - uy * rl * (0.6 + 0.25 * k) + rs * f),
            ],
            t * 0.8,
        )
    hr = rs * float(r.uniform(0.6, 0.85))  # head and neck
    hx, hy = cx + ux * (rl + hr * 0.6), cy + uy * (rl + hr * 0.6) - hr * 0.4
    cv2.circle(outline, (round(hx), round(hy)), round(hr), 1.0, round(t))
    cv2.circle(outline, (round(hx + hr * 0.3), round(hy - hr * 0.15)), max(1, round(t)), 1.0, -1)
    beak = np.array(
        [[hx + hr * 0.9, hy - hr * 0.3], [hx + hr * 1.8, hy], [hx + hr * 0.9, hy + hr * 0.3]]
    )
    cv2.fillConvexPoly(accent, np.round(beak).astype(np.int32), 1.0)
    for k in range(int(r.integers(2, 5))):  # the crest
        a = math.radians(100 + 25 * k + float(r.normal(0, 8)))
        ln = hr * float(r.uniform(0.8, 1.6)) * (1.5 if phoenix else 1.0)
        _curve(
            accent,
            [
                (hx, hy - hr * 0.8),
                (hx + math.cos(a) * ln * 0.5 + hr * 0.3, hy - math.sin(a) * ln * 0.6),
                (hx + math.cos(a) * ln, hy - math.sin(a) * ln),
            ],
            t,
        )
    n_plumes = int(r.integers(5, 9)) if phoenix else int(r.integers(3, 6))
    reach = bh * (float(r.uniform(0.45, 0.6)) if phoenix or bold else float(r.uniform(0.3, 0.42)))
    bx, by = cx - ux * rl * 0.9, cy - uy * rl * 0.9
    for k in range(n_plumes):  # the tail: plumes fanned down and back, curling at the ends
        spread = (k - (n_plumes - 1) / 2) * float(r.uniform(0.12, 0.22))
        a = math.atan2(-uy, -ux) + spread
        fx, fy = bx + math.cos(a) * reach, by + math.sin(a) * reach + bh * 0.1
        ex, ey = float(np.clip(fx, x1, x2)), float(np.clip(fy, y1, y2))
        bend = float(r.uniform(-0.3, 0.3)) * reach
        mid = ((bx + ex) / 2 - math.sin(a) * bend, (by + ey) / 2 + math.cos(a) * bend)
        _curve(
            plumes if k % 2 == 0 else accent if phoenix else outline, [(bx, by), mid, (ex, ey)], t
        )
        if (ex, ey) == (fx, fy) and (phoenix or r.random() < 0.3):  # an eye at a plume's end
            cv2.circle(accent, (round(ex), round(ey)), round(t * 1.6), 1.0, -1)
    foot = (cx + ux * rl * 0.1 + rs * 0.1, cy - uy * rl * 0.1 + rs * 0.9)
    for dx in (-0.25, 0.25):  # legs, and often a perch under them
        lx, ly = round(foot[0] + dx * rs), round(foot[1])
        cv2.line(outline, (lx, ly), (lx, round(foot[1] + rs * 0.8)), 1.0, round(t))
    if r.random() < 0.6:
        py = foot[1] + rs * 0.8
        _curve(
            plumes,
            [
                (x1 + bw * 0.1, py + bh * 0.04),
                ((x1 + x2) / 2, py - bh * 0.02),
                (x2 - bw * 0.1, py + bh * 0.06),
            ],
            t * 1.6,
        )
    inks = [style.stick, style.dots[0] if r.random() < 0.6 else style.numeral_ink, style.red]
    masks = [_down(m) for m in (plumes, outline, accent)]
    _lay_bird(canvas, style, r, masks, inks)


#: Plants drawn as a painted flower picture filling most of the face (:func:`painted_flower`),
#: the common look of Chinese sets' flowers and seasons.
PAINTED_PLANTS = ("rose", "peony")


def plant(canvas: Canvas, style: SetStyle, box: tuple[float, float, float, float], k: int) -> None:
    """A small plant picture for a flower or season tile (the ``k``-th of its group)."""
    if style.plant in PAINTED_PLANTS:
        painted_flower(canvas, style, box, k)
        return
    r = np.random.default_rng([style.seed, k])
    x1, y1, x2, y2 = box
    W, H = round(x2 - x1) * _SS, round(y2 - y1) * _SS
    stems, blooms = np.zeros((H, W), np.float32), np.zeros((H, W), np.float32)
    n = int(r.integers(2, 5))
    for _ in range(n):
        bx, tx = r.uniform(0.3, 0.7) * W, r.uniform(0.1, 0.9) * W
        ty = r.uniform(0.1, 0.5) * H
        if style.plant == "grass":
            cv2.line(stems, (round(bx), H - 1), (round(tx), round(ty)), 1, max(_SS, W // 30))
            continue
        cv2.line(stems, (round(bx), H - 1), (round(tx), round(ty)), 1, max(_SS, W // 25))
        if style.plant == "leaves":
            cv2.ellipse(
                stems,
                (round(tx), round(ty)),
                (W // 8, W // 20),
                float(r.uniform(0, 180)),
                0,
                360,
                1,
                -1,
            )
        else:
            petals = 5
            rad = W // 12
            for p in range(petals):
                a = 2 * math.pi * p / petals
                cv2.circle(
                    blooms,
                    (round(tx + rad * math.cos(a)), round(ty + rad * math.sin(a))),
                    rad // 1 + 1,
                    1,
                    -1,
                )
    canvas.lay(_down(stems), style.stick, round(x1), round(y1))
    canvas.lay(_down(blooms), PINK if k % 2 else style.red, round(x1), round(y1))


def shares_one_picture(style: SetStyle) -> bool:
    """Whether the set paints one flower picture on all eight flowers and seasons, so that only
    the number and the character tell them apart (many sets do; a namer must read those)."""
    return style.seed % 3 != 0


def _leaf(m: np.ndarray, at: tuple[float, float], length: float, angle: float) -> None:
    """An almond-shaped leaf from ``at`` along ``angle`` (radians), supersampled pixels."""
    t = np.linspace(0.0, 1.0, 12)[:, None]
    along = np.array([math.cos(angle), math.sin(angle)])
    across = np.array([-along[1], along[0]])
    spine = np.array(at) + t * length * along
    half = 0.22 * length * np.sin(np.pi * t) * across  # the leaf's half-width each side
    pts = np.vstack([spine + half, (spine - half)[::-1]]).astype(np.float32)
    cv2.fillPoly(m, [pts.round().astype(np.int32)], 1)


def _bloom(
    fill: np.ndarray, line: np.ndarray, c: tuple[float, float], rad: float, kind: str, r: Rng
) -> None:
    """A rose (petal outlines round a spiral heart) or a peony (filled round petals, outlined)."""
    petals = int(r.integers(5, 9))
    turn = float(r.uniform(0, 2 * math.pi))
    thick = max(2, round(rad / 9))
    for p in range(petals):
        a = turn + 2 * math.pi * p / petals
        pc = (round(c[0] + 0.55 * rad * math.cos(a)), round(c[1] + 0.55 * rad * math.sin(a)))
        axes = (max(2, round(0.5 * rad)), max(2, round(0.36 * rad)))
        deg = math.degrees(a)
        cv2.ellipse(fill, pc, axes, deg, 0, 360, 1, -1)
        cv2.ellipse(line, pc, axes, deg, 0, 360, 1, thick)
    centre = (round(c[0]), round(c[1]))
    if kind == "rose":  # a spiral of arcs in the heart
        for i in range(3):
            ri = max(2, round(rad * (0.45 - 0.12 * i)))
            cv2.ellipse(line, centre, (ri, ri), math.degrees(turn) + 90 * i, 0, 270, 1, thick)
    else:  # a peony's stamens: a ring of small dots
        for i in range(7):
            a = 2 * math.pi * i / 7
            cv2.circle(
                line,
                (round(c[0] + 0.22 * rad * math.cos(a)), round(c[1] + 0.22 * rad * math.sin(a))),
                thick,
                1,
                -1,
            )


def painted_flower(
    canvas: Canvas, style: SetStyle, box: tuple[float, float, float, float], k: int
) -> None:
    """A painted picture (roses or peonies on curved stems with almond leaves, now and then in a
    basket) filling ``box``: one picture for the whole set when :func:`shares_one_picture`."""
    r = np.random.default_rng([style.seed] if shares_one_picture(style) else [style.seed, k])
    x1, y1, x2, y2 = box
    W, H = round(x2 - x1) * _SS, round(y2 - y1) * _SS
    leaves, fill, line = (np.zeros((H, W), np.float32) for _ in range(3))
    base = (W * float(r.uniform(0.4, 0.6)), H - 1.0)
    basket = r.random() < 0.25
    if basket:  # a low basket or bowl the stems rise from
        by = H * 0.85
        cv2.ellipse(
            line,
            (round(W / 2), round(by)),
            (round(W * 0.34), round(H * 0.12)),
            0,
            0,
            180,
            1,
            max(2, W // 40),
        )
        cv2.line(
            line, (round(W * 0.16), round(by)), (round(W * 0.84), round(by)), 1, max(2, W // 40)
        )
        base = (W / 2, by)
    n_blooms = int(r.choice([1, 1, 2, 2, 3]))
    stem_w = max(_SS, W // 36)
    for i in range(n_blooms):
        rad = W * float(r.uniform(0.17, 0.27)) * (1.0 if i == 0 else 0.7)
        c = (W * float(r.uniform(0.3, 0.7)), H * float(r.uniform(0.2, 0.55)))
        bend = W * float(r.uniform(-0.25, 0.25))
        ctrl = ((base[0] + c[0]) / 2 + bend, (base[1] + c[1]) / 2)
        curve = _bezier([base, ctrl, c], 16)
        cv2.polylines(leaves, [curve.round().astype(np.int32)], False, 1, stem_w)
        for _ in range(int(r.integers(1, 4))):
            j = int(r.integers(4, 13))
            side = 1.0 if r.random() < 0.5 else -1.0
            angle = math.atan2(*(curve[j] - curve[j - 1])[::-1]) + side * float(r.uniform(0.6, 1.2))
            _leaf(
                leaves,
                (float(curve[j][0]), float(curve[j][1])),
                W * float(r.uniform(0.16, 0.28)),
                angle,
            )
        _bloom(fill, line, c, rad, style.plant, r)
    bloom_ink = (style.red, PINK, BLUE, CRIMSON)[int(r.integers(4))]
    outline = style.red if r.random() < 0.6 else DARK_GREEN
    canvas.lay(_down(leaves), style.stick, round(x1), round(y1))
    canvas.lay(_down(fill) * float(r.uniform(0.35, 1.0)), bloom_ink, round(x1), round(y1))
    canvas.lay(_down(line), outline, round(x1), round(y1))


# -- faces -----------------------------------------------------------------------------------


def _characters(canvas: Canvas, style: SetStyle, rank: int) -> None:
    x1, y1, x2, y2 = _content_box(canvas)
    split = y1 + (y2 - y1) / (1 + style.wan_scale)
    numeral = style.five if rank == 5 else NUMERALS[rank - 1]
    _text_in(
        canvas, style, style.numeral_font, numeral, style.numeral_ink, (x1, y1, x2, split - 2), 1.2
    )
    wan_ink = style.red if style.numeral_ink == style.red else style.wan_ink
    _text_in(canvas, style, style.font, style.wan, wan_ink, (x1, split + 2, x2, y2), 1.1)


def _honour(canvas: Canvas, style: SetStyle, z: int) -> None:
    box = _content_box(canvas)
    if z <= 4:
        ch = (style.east, "南", "西", "北")[z - 1]
        _text_in(canvas, style, style.font, ch, style.wind_ink, box, 1.05)
    elif z == 6:
        _text_in(canvas, style, style.font, style.fa, style.green, box, 1.05)
    elif z == 7:
        _text_in(canvas, style, style.font, "中", style.red, box, 1.05)
    else:
        _white(canvas, style)


def _white(canvas: Canvas, style: SetStyle) -> None:
    x1, y1, x2, y2 = _content_box(canvas)
    if style.white == "blank":
        if style.white_mark:
            _white_mark(canvas, style, (x1, y1, x2, y2))
        return
    t = max(2, round(canvas.w * 0.04))
    m = np.zeros((canvas.h, canvas.w), np.float32)
    if style.white in ("frame", "double", "白"):
        cv2.rectangle(m, (round(x1), round(y1)), (round(x2), round(y2)), 1, t)
    if style.white == "double":
        g = 3 * t
        cv2.rectangle(
            m, (round(x1 + g), round(y1 + g)), (round(x2 - g), round(y2 - g)), 1, max(1, t // 2)
        )
    if style.white == "chain":
        step = 3 * t
        for x in np.arange(x1, x2, step):
            for y in (y1, y2):
                cv2.rectangle(
                    m, (round(x), round(y - t)), (round(x + t * 1.8), round(y + t)), 1, -1
                )
        for y in np.arange(y1, y2, step):
            for x in (x1, x2):
                cv2.rectangle(
                    m, (round(x - t), round(y)), (round(x + t), round(y + t * 1.8)), 1, -1
                )
    canvas.lay(m, style.frame_ink)
    if style.white == "白":
        g = 3 * t
        _text_in(canvas, style, style.font, "白", style.frame_ink, (x1 + g, y1 + g, x2 - g, y2 - g))
    if style.white_mark:
        _white_mark(canvas, style, (x1, y1, x2, y2))


def _white_mark(canvas: Canvas, style: SetStyle, box: tuple[float, float, float, float]) -> None:
    """The maker's mark in the middle of the white dragon's face (:func:`white_marks`): a
    character or letter about half the frame's width, or a small faceted stone."""
    x1, y1, x2, y2 = box
    cx, cy, w = (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1
    r = np.random.default_rng([style.seed, 38])
    if style.white_mark != "gem":
        s = w * r.uniform(0.32, 0.55)
        _text_in(
            canvas,
            style,
            style.font,
            style.white_mark,
            style.white_mark_ink,
            (cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2),
        )
        return
    fine = np.zeros((canvas.h * _SS, canvas.w * _SS), np.float32)
    rad = w * r.uniform(0.08, 0.16)
    pts = [(cx + rad * np.sin(a), cy - rad * 1.3 * np.cos(a)) for a in np.arange(4) * np.pi / 2]
    poly = np.round(np.asarray(pts) * _SS).astype(np.int32)
    cv2.fillPoly(fine, [poly], 1.0, cv2.LINE_8)  # a stone seen face on: a tall rhombus
    canvas.lay(
        cv2.resize(fine, (canvas.w, canvas.h), interpolation=cv2.INTER_AREA), style.white_mark_ink
    )


def _caption(style: SetStyle, cls: int) -> tuple[str, ...]:
    """The English words along a face's foot (top first), if the set captions that face."""
    if not style.captions or cls < 27:
        return ()
    if cls < 31:
        return (WIND_WORDS[cls - 27],)
    if cls < 34:
        word = DRAGON_WORDS[cls - 31]
        return (word, DRAGON_WORD) if style.seed % 3 == 0 else (word,)
    k = cls - 34
    return (SEASON_WORDS[k % 4] if k >= 4 else FLOWER_WORDS[k],)


def _draw_caption(canvas: Canvas, style: SetStyle, cls: int) -> None:
    """Draws the caption of face ``cls`` and leaves the figure the rest of the face (a dragon's
    two words go above and below it)."""
    words = _caption(style, cls)
    if not words:
        return
    x1, y1, x2, y2 = canvas.content
    h = y2 - y1
    if len(words) == 2:
        top = (x1 + 0.28 * (x2 - x1), y1, x2, y1 + 0.11 * h)
        _text_in(canvas, style, "latin", words[0], style.mark_ink, top)
        y1 += 0.13 * h
    _text_in(canvas, style, "latin", words[-1], style.mark_ink, (x1, y2 - 0.11 * h, x2, y2))
    canvas.content = (x1, y1, x2, y2 - 0.14 * h)


def _bonus(canvas: Canvas, style: SetStyle, k: int) -> None:
    """Flowers (k 0-3: 梅蘭菊竹) and seasons (k 4-7: 春夏秋冬)."""
    x1, y1, x2, y2 = _content_box(canvas)
    season = k >= 4
    seat = k % 4
    ink = style.season_ink if season else style.flower_ink
    ch = SEASON_CHARS[seat] if season else (FLOWER_CHARS[seat] if seat != 1 else style.lan)
    bw, bh = x2 - x1, y2 - y1
    painted = style.plant in PAINTED_PLANTS
    # a painted picture takes most of the face: the number and the character shrink to corners
    nw, nh, cx, ch_h = (0.24, 0.2, 0.66, 0.26) if painted else (0.32, 0.3, 0.55, 0.42)
    number_box = (x1, y1, x1 + nw * bw, y1 + nh * bh)
    char_box = (x1 + cx * bw, y1, x2, y1 + ch_h * bh)
    # half the painted sets ink the number like the suits' numerals, apart from the character
    number_ink = style.numeral_ink if painted and style.seed % 2 else ink
    if style.bonus_numbers == "arabic":
        _text_in(canvas, style, "latin", str(seat + 1), number_ink, number_box)
    elif style.bonus_numbers == "chinese":
        _text_in(canvas, style, style.numeral_font, NUMERALS[seat], number_ink, number_box)
    # the character down the right side, the plant beside it (a captioned set may leave the
    # character to its English word)
    if style.bonus_chinese or not style.captions:
        _text_in(canvas, style, style.font, ch, ink, char_box)
    plant(canvas, style, (x1, y1 + (0.2 if painted else 0.35) * bh, x2, y2), k)


def draw_face(style: SetStyle, cls: int, *, red: bool = False) -> np.ndarray:
    """Face ``cls`` (hupai's class ids 0-41: 1m…9m 1p…9p 1s…9s 1z…7z 1f…8f) of the set as a BGRA
    glyph cropped to its ink; ``red``: the red five of a 5m/5p/5s."""
    if not 0 <= cls < 42:
        raise FaceError(f"class {cls}: a face is one of the 42 tile classes (0-41)")
    if red and cls not in RED_FIVES:
        raise FaceError(f"class {cls}: only the fives (4, 13, 22) have red variants")
    s = style.red_five if red else style
    canvas = Canvas()
    rng = np.random.default_rng([style.seed, cls])
    _draw_caption(canvas, s, cls)
    if cls < 9:
        _characters(canvas, s, cls + 1)
    elif cls < 18:
        _draw_dots(canvas, s, cls - 8, rng)
    elif cls < 27:
        _draw_sticks(canvas, s, cls - 17, rng)
    elif cls < 34:
        _honour(canvas, s, cls - 26)
    else:
        _bonus(canvas, s, cls - 34)
    return canvas.glyph()


class StyleGlyphs:
    """The faces of one style, drawn on first use (a scene needs only a few of them);
    ``red_fives``: the share of its fives a scene draws red (0: the set has none)."""

    def __init__(self, style: SetStyle, red_fives: float = 0.0) -> None:
        self.style = style
        self.red_fives = red_fives
        self._drawn: dict[tuple[int, bool], np.ndarray] = {}

    def glyph(self, cls: int, red: bool = False) -> np.ndarray:
        key = (cls, red)
        if key not in self._drawn:
            self._drawn[key] = draw_face(self.style, cls, red=red)
        return self._drawn[key]


StyleSource = Callable[[Rng], SetStyle]
