"""The synthetic renderer: labels tight on the tiles, deterministic, sidecars that match."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from hupai.datasets.synth.art import (
    DEFAULT_ART_ROOT,
    DEFAULT_CACHE_ROOT,
    build_cache,
    glyph_sources,
    load_glyphs,
)
from hupai.datasets.synth.generate import SynthError, generate
from hupai.datasets.synth.layout import Group, Layout, PlacedTile, Role, TileSize
from hupai.datasets.synth.render import Renderer, RenderOptions, tile_corners
from hupai.scoring.tiles import Tile
from hupai.vision.classes import BACK, class_of

pytestmark = pytest.mark.skipif(
    not DEFAULT_ART_ROOT.is_dir(), reason="tile artwork (../shared/art) is not available"
)
SIZE = TileSize(28, 38, 20)


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(load_glyphs(build_cache(DEFAULT_ART_ROOT, DEFAULT_CACHE_ROOT)))


def _layout(*tiles: PlacedTile) -> Layout:
    layout = Layout(SIZE, list(tiles))
    layout.groups = [Group(0, Role.HAND, 0, tiles=list(range(len(tiles))))]
    return layout


def _clean(**kw: object) -> RenderOptions:
    return RenderOptions(clean=True, elevation=(55, 55), tile_px=(60, 60), **kw)  # type: ignore[arg-type,unused-ignore]


def test_every_art_set_is_found_and_ffalt_is_split_into_faces() -> None:
    per_set = Counter(s.set_name for s in glyph_sources(DEFAULT_ART_ROOT) if s.variant == 0)
    assert per_set == {"ffalt": 42, "lietxia": 42, "samoheen": 42, "xhokir": 42, "fluffystuff": 34}


def test_boxes_are_the_projected_tiles(renderer: Renderer) -> None:
    layout = _layout(
        PlacedTile(Tile.parse("1m"), 0, 0),
        PlacedTile(Tile.parse("7z"), 60, 0, yaw=90, sideways=True),
        PlacedTile(Tile.parse("3f"), 120, 0),
        PlacedTile(Tile.parse("5p"), 180, 0, face_down=True),
    )
    scene = renderer.render(  # sharp edges: the box is the projected box exactly
        np.random.default_rng(3), 640, layout=layout, aspect=(4, 3), options=_clean(edge_round=0)
    )
    h, w = scene.image.shape[:2]
    assert [r.labelled for r in scene.tiles] == [True] * 4
    for r in scene.tiles:
        uv, _ = scene.camera.project(tile_corners(r.placed, SIZE))
        expected = (
            max(0, uv[:, 0].min()),
            max(0, uv[:, 1].min()),
            min(w, uv[:, 0].max()),
            min(h, uv[:, 1].max()),
        )
        assert r.xyxy is not None
        # Within 2 px: pixel boxes end one past the last covered pixel centre.
        assert np.allclose(r.xyxy, expected, atol=2.0), (r.placed.tile, r.xyxy, expected)
    assert [c for c, _ in scene.labels] == [class_of(Tile.parse(n)) for n in ("1m", "7z", "3f")] + [
        BACK
    ]


def test_a_stacked_tile_hides_the_face_beneath_it(renderer: Renderer) -> None:
    layout = _layout(
        PlacedTile(Tile.parse("4s"), 0, 0, yaw=90, sideways=True),
        PlacedTile(Tile.parse("4s"), 0, 0, yaw=90, sideways=True, stacked=True, z=SIZE.thickness),
    )
    scene = renderer.render(
        np.random.default_rng(2),
        640,
        layout=layout,
        aspect=(4, 3),
        options=RenderOptions(clean=True, elevation=(80, 80), tile_px=(60, 60)),
    )
    below, above = scene.tiles
    assert above.labelled and not below.labelled
    assert below.visible_face < 0.45


def test_a_scene_is_the_same_for_the_same_seed(renderer: Renderer) -> None:
    a = renderer.render(np.random.default_rng([4, 2]), 320)
    b = renderer.render(np.random.default_rng([4, 2]), 320)
    c = renderer.render(np.random.default_rng([4, 3]), 320)
    assert np.array_equal(a.image, b.image) and a.labels == b.labels
    assert not np.array_equal(a.image, c.image) if a.image.shape == c.image.shape else True


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for sub in ("images", "labels", "layouts")
        for p in sorted((root / sub).rglob("*"))
        if p.is_file()
    }


def test_a_dataset_does_not_depend_on_the_number_of_processes(tmp_path: Path) -> None:
    one = generate(tmp_path / "one", n=4, seed=9, size=192, workers=1, progress=False)
    two = generate(tmp_path / "two", n=4, seed=9, size=192, workers=2, progress=False)
    assert one.images == two.images == 4
    files = _tree(tmp_path / "one")
    assert files == _tree(tmp_path / "two")
    assert sum(name.startswith("images/") for name in files) == 4


def test_sidecar_agrees_with_the_yolo_labels(tmp_path: Path) -> None:
    generate(tmp_path / "d", n=2, seed=1, size=256, workers=1, val_fraction=0, progress=False)
    root = tmp_path / "d"
    for sidecar_path in sorted((root / "layouts" / "train").glob("*.json")):
        side = json.loads(sidecar_path.read_text())
        assert side["format"] == "hupai-synth-layout" and (root / side["image"]).exists()
        label = root / "labels" / "train" / (sidecar_path.stem + ".txt")
        lines = [ln.split() for ln in label.read_text().splitlines()]
        labelled = [t for t in side["tiles"] if t["labelled"]]
        assert [int(ln[0]) for ln in lines] == [t["class"] for t in labelled]
        for ln, t in zip(lines, labelled, strict=True):
            x1, y1, x2, y2 = t["xyxy"]
            expected = (
                (x1 + x2) / 2 / side["width"],
                (y1 + y2) / 2 / side["height"],
                (x2 - x1) / side["width"],
                (y2 - y1) / side["height"],
            )
            assert np.allclose([float(v) for v in ln[1:]], expected, atol=1e-5)
        groups = {g["id"]: g for g in side["groups"]}
        for t in side["tiles"]:
            assert t["id"] in groups[t["group"]]["tiles"]
            assert t["role"] == groups[t["group"]]["role"]


def test_an_existing_folder_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep")
    with pytest.raises(SynthError, match="not empty"):
        generate(tmp_path, n=1, workers=1, progress=False)
    with pytest.raises(SynthError, match="not a synthetic dataset"):
        generate(tmp_path, n=1, workers=1, overwrite=True, progress=False)
    assert (tmp_path / "mine.txt").read_text() == "keep"
