"""Tile faces of KDE's kmahjongg tilesets as glyphs for the synthetic renderer: four more
drawn styles (``default``: Chinese brush faces with seasons written 春夏秋冬; ``traditional``:
red 萬 and pictorial flowers; ``jade``; ``classic``) beside the five sets in ../shared/art,
so that the namer sees more ways of drawing the same tiles.

Each tileset is an SVG whose faces are elements named by id (``CHARACTER_1`` … ``SEASON_4``,
what :data:`ELEMENT_CLASSES` maps to hupai's classes). An element is cut into a document of
its own — the whole original kept under ``<defs>``, where ``<use>`` can still find what a face
borrows but nothing is drawn — and rasterised; the renderer draws the tile body itself.

The package (Debian ``kdegames-mahjongg-data-kf5``) is **GPL-2.0-or-later**: fetched at
training time with ``apt-get download`` (:func:`hupai.datasets.sheets.fetch`), never copied into
the repository; credited in models/MODEL_CARD.md. See ../shared/notes/more-tile-art.md.

>>> ELEMENT_CLASSES["WIND_1"], ELEMENT_CLASSES["DRAGON_1"], ELEMENT_CLASSES["SEASON_4"]
('4z', '5z', '8f')
>>> len(ELEMENT_CLASSES)
42
"""

from __future__ import annotations

import gzip
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING

from hupai.datasets.sheets import DEFAULT_CACHE, fetch
from hupai.datasets.synth.art import (
    DEFAULT_CACHE_ROOT,
    ArtError,
    build_once,
    crop_to_ink,
    rasterise,
    stored_glyph,
)
from hupai.scoring.tiles import Tile
from hupai.vision.classes import class_of

if TYPE_CHECKING:
    import numpy as np

PACKAGE = "kdegames-mahjongg-data-kf5"
TILESET_DIR = "usr/share/kmahjongglib/tilesets"
TILESETS = ("default", "traditional", "jade", "classic")
#: Bump when the cutting changes, so that old caches are not reused.
CACHE_VERSION = 1
SVG_NS = "http://www.w3.org/2000/svg"

_SUITS = {"CHARACTER": "m", "ROD": "p", "BAMBOO": "s"}
#: kmahjongg's element ids → hupai notation; the winds run N S E W, the dragons white green
#: red, the flowers plum orchid chrysanthemum bamboo, the seasons spring … winter (read off
#: the rendered tilesets).
ELEMENT_CLASSES: dict[str, str] = {
    **{f"{suit}_{n}": f"{n}{s}" for suit, s in _SUITS.items() for n in range(1, 10)},
    **{f"WIND_{k + 1}": f"{z}z" for k, z in enumerate((4, 2, 1, 3))},
    **{f"DRAGON_{k + 1}": f"{z}z" for k, z in enumerate((5, 6, 7))},
    **{f"FLOWER_{n}": f"{n}f" for n in range(1, 5)},
    **{f"SEASON_{n}": f"{n + 4}f" for n in range(1, 5)},
}
#: ``classic`` draws its dragons as lizards, as no set a player brings to the table does.
LEFT_OUT = {"classic": ("DRAGON_1", "DRAGON_2", "DRAGON_3")}
#: ``jade`` prints white ink for its red bodies; the renderer draws pale bodies, so its ink
#: is turned dark.
DARKENED = ("jade",)


def fetch_tilesets(cache: Path = DEFAULT_CACHE) -> Path:
    """The unpacked package's root under ``cache`` (downloaded once)."""
    expected = tuple(f"{TILESET_DIR}/{name}.svgz" for name in TILESETS)
    return fetch(cache, packages=(PACKAGE,), expected=expected)


def element_svg(document: ET.Element, element_id: str) -> str:
    """A document drawing only the element ``element_id`` of ``document`` (with its
    ancestors' transforms); the rest stays under ``<defs>`` for ``<use>`` to find."""
    parents = {child: parent for parent in document.iter() for child in parent}
    element = document.find(f".//*[@id='{element_id}']")
    if element is None:
        raise ArtError(f"no element '{element_id}' in the tileset")
    out = ET.Element(document.tag, dict(document.attrib))
    hidden = ET.SubElement(out, f"{{{SVG_NS}}}defs")
    for child in document:
        hidden.append(child)
    chain = []
    parent = parents.get(element)
    while parent is not None and parent is not document:
        chain.append(parent)
        parent = parents.get(parent)
    holder = out
    for group in reversed(chain):
        kept = {"transform": group.attrib["transform"]} if "transform" in group.attrib else {}
        holder = ET.SubElement(holder, group.tag, kept)
    holder.append(element)
    return ET.tostring(out, encoding="unicode")


def tileset_glyphs(svgz: Path, name: str) -> dict[int, np.ndarray]:
    """Class → BGRA glyph (cropped to its ink; a blank face is one clear pixel)."""
    ET.register_namespace("", SVG_NS)
    document = ET.fromstring(gzip.decompress(svgz.read_bytes()))
    glyphs: dict[int, np.ndarray] = {}
    for element_id, notation in ELEMENT_CLASSES.items():
        if element_id in LEFT_OUT.get(name, ()):
            continue
        glyph = crop_to_ink(rasterise(element_svg(document, element_id)))
        if glyph.size and name in DARKENED:
            glyph = glyph.copy()
            glyph[:, :, :3] = 255 - glyph[:, :, :3]
        glyphs[class_of(Tile.parse(notation))] = stored_glyph(glyph)
    return glyphs


def build_cache(package_root: Path | None = None, cache_root: Path = DEFAULT_CACHE_ROOT) -> Path:
    """Rasterise the tilesets' faces once into a glyph cache folder laid out as
    :func:`hupai.datasets.synth.art.build_cache`'s (``kde-<tileset>/<class>_0.png``), so that
    :func:`hupai.datasets.synth.art.load_glyphs` reads it."""

    def fill(tmp: Path) -> str:
        import cv2

        root = package_root or fetch_tilesets()
        for name in TILESETS:
            target = tmp / f"kde-{name}"
            target.mkdir()
            for cls, glyph in tileset_glyphs(root / TILESET_DIR / f"{name}.svgz", name).items():
                cv2.imwrite(str(target / f"{cls:02d}_0.png"), glyph)
        return f"package: {PACKAGE}\n"

    return build_once(cache_root / f"kde-faces-v{CACHE_VERSION}", fill)
