"""Tile artwork for the synthetic renderer: find the faces of every art set, rasterise them.

Every set in ``../shared/art`` is reduced to *glyphs*: the printed design of a face on a
transparent canvas, cropped to its ink. The renderer draws the tile body and the face colour
itself, so sets with a tile body (lietxia) and without one (samoheen) are used alike.

* ``fluffystuff``, ``xhokir`` — riichi faces (``Man1``…, ``Ton``…, ``Haku`` is blank as on
  Japanese tiles); xhokir adds ``Flower1-4`` (plum orchid chrysanthemum bamboo) and
  ``Season1-4``; the red fives (``*5-Dora``) are variants of 5m/5p/5s.
* ``lietxia`` — Chinese faces; the face background and border are stripped from the SVG;
  ``0m/0p/0s`` are red-five variants; ``mei lan ju zu`` flowers, ``chun xia qiu dong`` seasons.
* ``samoheen`` — Hong Kong faces incl. flowers and seasons, glyphs only.
* ``ffalt`` — ``uni.svg`` packs its faces as ``<svg id="t_…">`` symbols; each is cut into a
  document of its own.

Rasters are cached as PNG under ``data/cache/faces-v<N>/<set>/`` (git-ignored) on first use.

>>> sorted(SET_LOADERS)
['ffalt', 'fluffystuff', 'lietxia', 'samoheen', 'xhokir']
>>> _riichi_class("Man5-Dora"), _riichi_class("Chun"), _riichi_class("Season4")
(4, 33, 41)
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hupai.scoring.tiles import Tile
from hupai.vision.classes import class_of

if TYPE_CHECKING:
    import numpy as np

#: Bump when rasterisation changes, so that old caches are not reused.
CACHE_VERSION = 1
#: Height of the cached glyph rasters, px (before cropping to the ink).
RASTER_HEIGHT = 320

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_ART_ROOT = REPO_ROOT.parent / "shared" / "art"
DEFAULT_CACHE_ROOT = REPO_ROOT / "data" / "cache"


class ArtError(ValueError):
    """Artwork missing or unreadable; the message names the path."""


@dataclass(frozen=True)
class GlyphSource:
    """One face design: its class, a variant number and the SVG markup."""

    set_name: str
    cls: int
    variant: int
    svg: str

    @property
    def cache_name(self) -> str:
        return f"{self.cls:02d}_{self.variant}.png"


def _cls(notation: str) -> int:
    return class_of(Tile.parse(notation))


_RIICHI_HONORS = {
    "Ton": "1z",
    "Nan": "2z",
    "Shaa": "3z",
    "Pei": "4z",
    "Haku": "5z",
    "Hatsu": "6z",
    "Chun": "7z",
}
_RIICHI_SUITS = {"Man": "m", "Pin": "p", "Sou": "s"}


def _riichi_class(stem: str) -> int | None:
    """Class of a FluffyStuff-style file name, ``None`` for Front/Back/Blank."""
    if stem in _RIICHI_HONORS:
        return _cls(_RIICHI_HONORS[stem])
    m = re.fullmatch(r"(Man|Pin|Sou)(\d)(-Dora)?", stem)
    if m:
        return _cls(m.group(2) + _RIICHI_SUITS[m.group(1)])
    m = re.fullmatch(r"(Flower|Season)(\d)", stem)
    if m:
        return _cls(f"{int(m.group(2)) + (0 if m.group(1) == 'Flower' else 4)}f")
    return None


def _fix_mm_size(svg: str) -> str:
    """resvg rejects a root ``width="300mm"``; drop the unit (the viewBox keeps the shape)."""
    for attr in ("width", "height"):
        svg = re.sub(rf'(<svg[^>]*?\s{attr}=")([\d.]+)mm"', r"\g<1>\g<2>\"", svg, count=1)
    return svg


def _read(path: Path) -> str:
    return _fix_mm_size(path.read_text(encoding="utf-8"))


def _riichi_set(name: str, folder: str) -> Callable[[Path], Iterator[GlyphSource]]:
    def load(root: Path) -> Iterator[GlyphSource]:
        seen: dict[int, int] = {}
        for path in sorted((root / folder).glob("*.svg")):
            cls = _riichi_class(path.stem)
            if cls is None:
                continue
            variant = seen.get(cls, 0)
            seen[cls] = variant + 1
            # Plain fives sort before their -Dora variant, so variant 0 is the plain face.
            yield GlyphSource(name, cls, variant, _read(path))

    return load


_LIETXIA_NAMES = {
    "mei": "1f",
    "lan": "2f",
    "ju": "3f",
    "zu": "4f",
    "chun": "5f",
    "xia": "6f",
    "qiu": "7f",
    "dong": "8f",
}


def _load_lietxia(root: Path) -> Iterator[GlyphSource]:
    for path in sorted((root / "lietxia-graphic" / "svg").glob("*.svg")):
        stem = path.stem
        if stem in _LIETXIA_NAMES:
            cls, variant = _cls(_LIETXIA_NAMES[stem]), 0
        elif re.fullmatch(r"0[mps]", stem):
            cls, variant = _cls("5" + stem[1]), 1  # red five
        elif re.fullmatch(r"[1-9][mps]|[1-7]z", stem):
            cls, variant = _cls(stem), 0
        else:
            continue
        svg = _read(path)
        # The face background is the only <rect>, followed by the grey border path.
        svg = re.sub(r"<rect[^>]*/>\s*<path[^>]*d=\"M17,[^>]*/>", "", svg, count=1)
        yield GlyphSource("lietxia", cls, variant, svg)


_SAMOHEEN_ORDER = [
    "5z",
    "6z",
    "7z",
    "1z",
    "2z",
    "3z",
    "4z",
    "1m",
    "2m",
    "3m",
    "4m",
    "5m",
    "6m",
    "7m",
    "8m",
    "9m",
    "1p",
    "2p",
    "3p",
    "4p",
    "5p",
    "6p",
    "7p",
    "8p",
    "9p",
    "1s",
    "2s",
    "3s",
    "4s",
    "5s",
    "6s",
    "7s",
    "8s",
    "9s",
    "5f",
    "6f",
    "7f",
    "8f",
    "1f",
    "2f",
    "3f",
    "4f",
]


def _load_samoheen(root: Path) -> Iterator[GlyphSource]:
    for path in sorted((root / "samoheen-hongkong" / "hongkong" / "svg").glob("*.svg")):
        m = re.match(r"(\d\d)-", path.name)
        if m and 1 <= int(m.group(1)) <= len(_SAMOHEEN_ORDER):
            yield GlyphSource(
                "samoheen", _cls(_SAMOHEEN_ORDER[int(m.group(1)) - 1]), 0, _read(path)
            )


_FFALT_NAMES = {
    **{f"t_ch{r}": f"{r}m" for r in range(1, 10)},
    **{f"t_do{r}": f"{r}p" for r in range(1, 10)},
    **{f"t_ba{r}": f"{r}s" for r in range(1, 10)},
    "t_wi_east": "1z",
    "t_wi_south": "2z",
    "t_wi_west": "3z",
    "t_wi_north": "4z",
    "t_dr_white": "5z",
    "t_dr_green": "6z",
    "t_dr_red": "7z",
    "t_fl_plum": "1f",
    "t_fl_orchid": "2f",
    "t_fl_chrysanthemum": "3f",
    "t_fl_bamboo": "4f",
    "t_se_spring": "5f",
    "t_se_summer": "6f",
    "t_se_fall": "7f",
    "t_se_winter": "8f",
}


def _load_ffalt(root: Path) -> Iterator[GlyphSource]:
    path = root / "ffalt-uni" / "uni.svg"
    text = path.read_text(encoding="utf-8")
    start, end = text.find("<defs>"), text.find("</defs>")
    if start < 0 or end < 0:
        raise ArtError(f"{path}: no <defs> block")
    defs = text[start : end + len("</defs>")]
    for symbol in re.findall(r'<svg id="(t_[a-z0-9_]+)"', text):
        if symbol not in _FFALT_NAMES:
            continue
        doc = (
            '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
            ' viewBox="0 0 75 100" width="75" height="100">'
            f'{defs}<use xlink:href="#{symbol}" width="75" height="100"/></svg>'
        )
        yield GlyphSource("ffalt", _cls(_FFALT_NAMES[symbol]), 0, doc)


SET_LOADERS: dict[str, Callable[[Path], Iterator[GlyphSource]]] = {
    "fluffystuff": _riichi_set("fluffystuff", "fluffystuff-riichi/Regular"),
    "xhokir": _riichi_set("xhokir", "xhokir-riichi/Regular"),
    "lietxia": _load_lietxia,
    "samoheen": _load_samoheen,
    "ffalt": _load_ffalt,
}


def glyph_sources(art_root: Path) -> list[GlyphSource]:
    """Every face design of every art set found under ``art_root``."""
    if not art_root.is_dir():
        raise ArtError(f"{art_root}: artwork folder not found (expected ../shared/art)")
    sources = []
    for name, loader in SET_LOADERS.items():
        try:
            sources += list(loader(art_root))
        except FileNotFoundError as exc:
            raise ArtError(f"art set '{name}': {exc}") from None
    if not sources:
        raise ArtError(f"{art_root}: no tile artwork found")
    return sources


def rasterise(svg: str, height: int = RASTER_HEIGHT) -> np.ndarray:
    """Render SVG markup to a premultiplied-free BGRA array of the given height."""
    import cv2
    import numpy as np
    import resvg_py

    png = bytes(resvg_py.svg_to_bytes(svg_string=svg, height=height))
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise ArtError("rasterised SVG is not an RGBA image")
    return image


def crop_to_ink(image: np.ndarray, threshold: int = 8) -> np.ndarray:
    """Crop a BGRA glyph to the bounding box of its non-transparent pixels (blank stays)."""
    import numpy as np

    alpha = image[:, :, 3]
    ys, xs = np.nonzero(alpha > threshold)
    if len(xs) == 0:
        return image[:0, :0]
    return image[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def stored_glyph(glyph: np.ndarray) -> np.ndarray:
    """A glyph as the cache keeps it: a blank face (the riichi white dragon, an empty
    element) becomes one clear pixel, so that the class still has a glyph."""
    import numpy as np

    return glyph if glyph.size else np.zeros((1, 1, 4), np.uint8)


def build_once(folder: Path, fill: Callable[[Path], str]) -> Path:
    """``folder``, built once: ``fill`` writes into a folder beside it and returns what the
    ``COMPLETE`` marker records; the folder is then renamed into place, so that parallel
    builders (pytest-xdist workers, several synth runs) never see a half-written cache."""
    if (folder / "COMPLETE").exists():
        return folder
    tmp = folder.parent / f".{folder.name}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        (tmp / "COMPLETE").write_text(fill(tmp))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        tmp.rename(folder)
    except OSError:  # another process won the race
        shutil.rmtree(tmp, ignore_errors=True)
        if not (folder / "COMPLETE").exists():
            raise ArtError(f"{folder}: could not create the face cache") from None
    return folder


def build_cache(art_root: Path = DEFAULT_ART_ROOT, cache_root: Path = DEFAULT_CACHE_ROOT) -> Path:
    """Rasterise every glyph into the cache (once) and return the cache folder."""

    def fill(tmp: Path) -> str:
        import cv2

        for source in glyph_sources(art_root):
            target = tmp / source.set_name / source.cache_name
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                glyph = crop_to_ink(rasterise(source.svg))
            except ValueError as exc:
                raise ArtError(f"{source.set_name} class {source.cls}: {exc}") from None
            cv2.imwrite(str(target), stored_glyph(glyph))
        return f"art: {art_root}\n"

    return build_once(cache_root / f"faces-v{CACHE_VERSION}", fill)


#: set name → class id → list of BGRA glyph variants (cropped to ink).
GlyphBank = dict[str, dict[int, list["np.ndarray"]]]


def load_glyphs(cache_folder: Path) -> GlyphBank:
    """Load the cached glyph rasters of every set."""
    import cv2

    bank: GlyphBank = {}
    for set_dir in sorted(p for p in cache_folder.iterdir() if p.is_dir()):
        classes: dict[int, list[np.ndarray]] = {}
        for png in sorted(set_dir.glob("*.png")):
            cls = int(png.stem.split("_")[0])
            image = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
            if image is None:
                raise ArtError(f"{png}: unreadable cached glyph (delete the cache folder)")
            classes.setdefault(cls, []).append(image)
        bank[set_dir.name] = classes
    return bank
