"""KDE's tilesets cut into glyphs: each face element drawn alone, what it borrows found, the
ids mapped onto hupai's classes. Small SVGs written here stand in for the GPL package."""

from __future__ import annotations

import gzip
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from hupai.datasets.kde_tiles import ELEMENT_CLASSES, element_svg, tileset_glyphs
from hupai.datasets.synth.art import ArtError, rasterise
from hupai.scoring.tiles import Tile
from hupai.vision.classes import class_of

SVG = """<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
  width="100" height="40">
  <g transform="translate(10,0)">
    <rect id="A" x="0" y="0" width="20" height="20" fill="#ff0000"/>
  </g>
  <rect id="B" x="60" y="0" width="20" height="20" fill="#0000ff"/>
  <g><use id="C" xlink:href="#B" transform="translate(0,20)"/></g>
</svg>"""


def _ink(svg: str) -> np.ndarray:
    """Where the render is drawn, at the document's own size (BGRA → mask)."""
    return rasterise(svg, height=40)[:, :, 3] > 128


def test_element_is_drawn_alone_with_its_ancestors_transform() -> None:
    image = rasterise(element_svg(ET.fromstring(SVG), "A"), height=40)
    ys, xs = np.nonzero(image[:, :, 3] > 128)
    assert (xs.min(), xs.max(), ys.max()) == (10, 29, 19)
    assert image[5, 15, 2] > 200 and image[:, 50:, 3].max() == 0  # red, and nothing of B


def test_element_finds_what_it_borrows_with_use() -> None:
    ink = _ink(element_svg(ET.fromstring(SVG), "C"))
    ys, xs = np.nonzero(ink)
    assert (xs.min(), ys.min()) == (60, 20)  # B drawn once, where C puts it


def test_missing_element_is_named() -> None:
    with pytest.raises(ArtError, match="WIND_9"):
        element_svg(ET.fromstring(SVG), "WIND_9")


def test_ids_map_onto_every_tile_and_flower_once() -> None:
    classes = sorted(class_of(Tile.parse(n)) for n in ELEMENT_CLASSES.values())
    assert classes == list(range(42))


def _tileset(tmp_path: Path) -> Path:
    """A tileset with every face element: grey squares, a blank white dragon."""
    faces = "".join(
        f'<g id="{i}"/>'
        if i == "DRAGON_1"
        else f'<rect id="{i}" width="9" height="9" fill="#333"/>'
        for i in ELEMENT_CLASSES
    )
    path = tmp_path / "set.svgz"
    path.write_bytes(
        gzip.compress(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">{faces}</svg>'.encode()
        )
    )
    return path


def test_tileset_gives_a_glyph_per_class_and_a_clear_pixel_for_a_blank_face(
    tmp_path: Path,
) -> None:
    glyphs = tileset_glyphs(_tileset(tmp_path), "default")
    assert len(glyphs) == 42
    white = glyphs[class_of(Tile.parse("5z"))]
    assert white.shape == (1, 1, 4) and white[0, 0, 3] == 0
    assert glyphs[0][:, :, :3].max() < 100  # dark ink kept


def test_jade_ink_is_inverted(tmp_path: Path) -> None:
    glyphs = tileset_glyphs(_tileset(tmp_path), "jade")  # jade's white ink turns dark
    assert glyphs[0][:, :, :3].min() > 150  # here: the grey #333 turns light


def test_classic_lizards_are_left_out(tmp_path: Path) -> None:
    classic = tileset_glyphs(_tileset(tmp_path), "classic")
    assert {class_of(Tile.parse(z)) for z in ("5z", "6z", "7z")}.isdisjoint(classic)
