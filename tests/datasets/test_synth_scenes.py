"""Render 6's scenes that fool a one-set reader (issue #35): whole keyboards under the tiles,
printed sheets of tile pictures, tile bodies with rounded edges, and the clutter crops."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hupai.datasets import clutter
from hupai.datasets.synth.art import DEFAULT_ART_ROOT, DEFAULT_CACHE_ROOT, build_cache, load_glyphs
from hupai.datasets.synth.generate import generate
from hupai.datasets.synth.layout import PRINTED_PICTURES, Pose, TileSize, printed_layout
from hupai.datasets.synth.render import (
    RENDER_VERSION,
    WHITE_DRAGON,
    Renderer,
    RenderOptions,
    SceneMix,
    tile_corners,
    tile_polygons,
)

pytestmark = pytest.mark.skipif(
    not DEFAULT_ART_ROOT.is_dir(), reason="tile artwork (../shared/art) is not available"
)
SIZE = TileSize(28, 38, 20)
SLOW = settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(load_glyphs(build_cache(DEFAULT_ART_ROOT, DEFAULT_CACHE_ROOT)))


def _iou(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 0.0


# -- keyboards -------------------------------------------------------------------------------


def test_a_backlit_keyboard_has_dark_caps_and_lit_legends() -> None:
    rng = np.random.default_rng(4)
    look = clutter.random_keyboard(rng, backlit=True)
    canvas, caps = clutter.draw_keyboard(rng, 240, 640, 40.0, look)
    assert len(caps) >= 5 * 14
    grey = canvas.mean(2)
    assert np.median(grey) < 70  # dark caps and deck
    legends = sum(int((grey[y1:y2, x1:x2] > 180).sum() > 3) for x1, y1, x2, y2 in caps)
    assert legends > 0.8 * len(caps)  # nearly every cap has a lit legend (not the space bar)


@SLOW
@given(seed=st.integers(0, 2**31))
def test_no_tile_label_lies_on_a_keyboard_cap(renderer: Renderer, seed: int) -> None:
    from hupai.datasets.crops import _clear_of

    scene = renderer.render(np.random.default_rng(seed), 480, options=RenderOptions(keyboard=True))
    assert scene.info["keyboard"] in ("under", "beside")
    bare = [
        box for kind, box in scene.clutter if kind == "keyboard" and _clear_of(box, scene.tiles)
    ]
    for _cls, box in scene.labels:  # caps no tile lies on are never boxed
        assert all(_iou(box, cap) < 0.1 for cap in bare), "a keyboard cap was labelled"


def test_tiles_lie_on_the_keyboard_and_its_caps_are_listed_as_clutter(renderer: Renderer) -> None:
    for seed in range(20):  # the first scene whose keyboard lies under the hand
        scene = renderer.render(
            np.random.default_rng(seed),
            640,
            aspect=(4, 3),
            options=RenderOptions(clean=True, keyboard=True, whole=True, elevation=(50, 60)),
        )
        if scene.info["keyboard"] == "under":
            break
    caps = [box for kind, box in scene.clutter if kind == "keyboard"]
    assert scene.info["keyboard"] == "under" and len(caps) >= 30
    on_keys = [
        box
        for _cls, box in scene.labels
        if any(
            min(box[2], c[2]) > max(box[0], c[0]) and min(box[3], c[3]) > max(box[1], c[1])
            for c in caps
        )
    ]
    assert len(on_keys) >= 3  # tiles strewn on the keys, each still labelled
    assert len(scene.labels) == sum(r.labelled for r in scene.tiles)


# -- printed sheets --------------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_a_printed_sheet_holds_50_to_100_pictures_in_rows(seed: int) -> None:
    layout = printed_layout(np.random.default_rng(seed), SIZE)
    n = len(layout.tiles)
    assert PRINTED_PICTURES[0] <= n <= PRINTED_PICTURES[1]
    assert layout.scene == "printed" and layout.size.thickness < 1
    rows = [[layout.tiles[i] for i in g.tiles] for g in layout.groups]
    assert sum(len(r) for r in rows) == n
    for row in rows:
        assert len({round(t.y, 3) for t in row}) == 1  # one line
        xs = [t.x for t in row]
        assert xs == sorted(xs) and min(np.diff(xs), default=layout.size.width) >= layout.size.width


@SLOW
@given(seed=st.integers(0, 2**31))
def test_every_picture_of_a_printed_sheet_is_labelled(renderer: Renderer, seed: int) -> None:
    rng = np.random.default_rng(seed)
    layout = printed_layout(rng, SIZE)
    scene = renderer.render(
        rng,
        800,
        layout=layout,
        aspect=(4, 3),
        options=RenderOptions(clean=True, whole=True, elevation=(55, 85)),
    )
    assert [r.labelled for r in scene.tiles] == [True] * len(layout.tiles)
    assert [c for c, _ in scene.labels] == [t.cls for t in layout.tiles]


def test_a_printed_picture_has_no_body(renderer: Renderer) -> None:
    rng = np.random.default_rng(8)
    layout = printed_layout(rng, SIZE)
    scene = renderer.render(
        rng, 800, layout=layout, aspect=(4, 3), options=RenderOptions(clean=True, whole=True)
    )
    assert scene.info["edge_round_mm"] == 0
    for r in scene.tiles:  # the picture's box is its face's: no side, no shadow beside it
        uv, _ = scene.camera.project(tile_corners(r.placed, layout.size))
        assert r.xyxy is not None
        assert np.allclose(r.xyxy, (*uv.min(0), *uv.max(0)), atol=2.0)


# -- rounded tile bodies ---------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    w=st.floats(15, 35),
    ratio=st.floats(1.2, 1.6),
    t=st.floats(8, 28),
    share=st.floats(0.0, 0.3),
)
def test_rounded_edges_stay_within_the_box_and_turn_from_face_to_side(
    w: float, ratio: float, t: float, share: float
) -> None:
    size = TileSize(w, w * ratio, t)
    polys = tile_polygons(size, share * t)
    strips = [p for p in polys if p[0].startswith("round_")]
    assert len(strips) == (0 if share * t <= 0 else 8 * 3)
    for _name, pts, normal in polys:
        assert np.all(np.abs(pts[:, 0]) <= w / 2 + 1e-6)
        assert np.all(np.abs(pts[:, 1]) <= w * ratio / 2 + 1e-6)
        assert np.all((pts[:, 2] >= -1e-6) & (pts[:, 2] <= t + 1e-6))
        assert abs(float(np.linalg.norm(normal)) - 1) < 1e-6
        # flat: all four corners on the plane the normal defines
        assert np.allclose((pts - pts[0]) @ normal, 0, atol=1e-6)
    for name, _pts, normal in strips:
        up = 1.0 if name == "round_face" else -1.0
        assert 0 < normal[2] * up < 1  # between the face's normal and a side's
        assert 0 < float(np.hypot(normal[0], normal[1])) < 1


def test_a_rounded_tile_is_boxed_a_little_inside_its_sharp_box(renderer: Renderer) -> None:
    from hupai.datasets.synth.layout import Group, Layout, PlacedTile, Role
    from hupai.scoring.tiles import Tile

    layout = Layout(SIZE, [PlacedTile(Tile.parse("5p"), 0, 0, yaw=20)])
    layout.groups = [Group(0, Role.HAND, 0, tiles=[0])]
    boxes = {}
    for share in (0.0, 0.25):
        scene = renderer.render(
            np.random.default_rng(1),
            640,
            layout=layout,
            aspect=(4, 3),
            options=RenderOptions(
                clean=True, elevation=(40, 40), tile_px=(150, 150), edge_round=share
            ),
        )
        assert scene.info["edge_round_mm"] == pytest.approx(share * SIZE.thickness, abs=0.01)
        boxes[share] = np.array(scene.tiles[0].xyxy)
    shrink = (boxes[0.0][:2] - boxes[0.25][:2]) * -1, boxes[0.0][2:] - boxes[0.25][2:]
    assert np.all(np.concatenate(shrink) >= -1)  # never outside the sharp body
    assert np.concatenate(shrink).max() >= 2  # and rounded off where the edges meet the view


# -- what reaches training -------------------------------------------------------------------


def test_the_namers_clutter_crops_include_keyboards_cups_and_shelves() -> None:
    from hupai.datasets.hard_crops import clutter_crops

    sources = set(clutter_crops(200, seed=0).sources)
    assert {"clutter_keyboard", "clutter_cup", "clutter_shelf"} <= sources


def test_a_scene_kind_is_the_same_for_the_same_seed(renderer: Renderer) -> None:
    mixed = Renderer(renderer.bank, mix=SceneMix(keyboard=0.5, printed=0.5, shelf=1.0))
    for seed in (0, 1, 2):
        a = mixed.render(np.random.default_rng([7, seed]), 320)
        b = mixed.render(np.random.default_rng([7, seed]), 320)
        assert np.array_equal(a.image, b.image) and a.labels == b.labels
        assert a.clutter == b.clutter


def test_a_dataset_records_its_scene_mix_and_each_scenes_clutter(tmp_path: Path) -> None:
    mix = SceneMix(keyboard=1.0, printed=0.0, shelf=0.5)
    generate(tmp_path / "syn", n=3, seed=5, size=256, workers=1, progress=False, mix=mix)
    manifest = json.loads((tmp_path / "syn" / "synth.json").read_text())
    assert manifest["runs"][0]["scene_mix"] == asdict(mix)
    assert manifest["runs"][0]["render_version"] == RENDER_VERSION
    sidecars = [json.loads(p.read_text()) for p in (tmp_path / "syn" / "layouts").rglob("*.json")]
    assert len(sidecars) == 3
    for sidecar in sidecars:
        assert sidecar["style"]["keyboard"] in ("under", "beside")
        assert all(set(c) == {"kind", "xyxy"} for c in sidecar["clutter"])
    assert any(c["kind"] == "keyboard" for s in sidecars for c in s["clutter"])


def test_hupai_data_synth_takes_the_scene_mix(tmp_path: Path) -> None:
    from hupai.cli import main

    out = tmp_path / "syn"
    argv = ["data", "synth", "--n", "2", "--out", str(out), "--size", "160", "--workers", "1"]
    assert main([*argv, "--keyboard-share", "1", "--printed-share", "0", "--shelf-share", "0"]) == 0
    run = json.loads((out / "synth.json").read_text())["runs"][0]
    assert run["scene_mix"] == {
        "keyboard": 1.0,
        "printed": 0.0,
        "shelf": 0.0,
        "plain_white": 0.0,
        "tile_shaped": 1.0,
    }


def test_a_share_that_is_not_a_fraction_is_named_in_the_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hupai.cli import main

    argv = ["data", "synth", "--n", "1", "--out", str(tmp_path / "syn"), "--printed-share", "1.5"]
    assert main(argv) == 2
    assert "--printed-share 1.5: expected a fraction in [0, 1]" in capsys.readouterr().err
    assert not (tmp_path / "syn").exists()


def test_the_namer_builds_new_crop_sets_for_another_render_or_mix(tmp_path: Path) -> None:
    """Crop sets are reused by file name: render 6's scenes and clutter v2 get new names, and
    a run asking for another scene mix does not reuse the default mix's crops."""
    namer = pytest.importorskip("hupai.training.namer")
    from hupai.datasets.clutter import CLUTTER_VERSION

    def names(**mix: float) -> dict[str, str]:
        cfg = namer.NamerConfig(data=str(tmp_path), **mix)
        return {k: p.name for k, p in namer.crop_paths(cfg).items()}

    default, other = names(), names(scene_keyboard=0.5)
    render = f"-r{RENDER_VERSION}"
    assert render in default["synth-train"] and render in default["gen-train"]
    assert default["clutter-train"].startswith(f"clutter-v{CLUTTER_VERSION}-")
    assert default["synth-train"] != other["synth-train"]
    assert default["clutter-train"] == other["clutter-train"]


def test_real_crops_are_rebuilt_when_their_labels_change(tmp_path: Path) -> None:
    """Real photos' crop sets are named by their labels: a corrected val label gives val (not
    train) crop sets of new names, so that crops cut with the old names are never reused."""
    namer = pytest.importorskip("hupai.training.namer")
    real = tmp_path / "real"
    for split in ("train", "val"):
        (real / "labels" / split).mkdir(parents=True)
        (real / "labels" / split / "a.txt").write_text("9 0.5 0.5 0.1 0.1\n")

    def names() -> dict[str, str]:
        cfg = namer.NamerConfig(data=str(tmp_path / "crops"), real=str(real))
        return {k: p.name for k, p in namer.crop_paths(cfg).items()}

    before = names()
    (real / "labels" / "val" / "a.txt").write_text("12 0.5 0.5 0.1 0.1\n")
    after = names()
    assert after["real-val"] != before["real-val"]
    assert after["hard-val"] != before["hard-val"]
    assert after["real-train"] == before["real-train"]
    assert after["real-train-unmirrored"] == before["real-train-unmirrored"]


# -- plain white dragons (render 7) ----------------------------------------------------------


def _inner_spread(image: np.ndarray, box: tuple[int, int, int, int]) -> float:
    """The grey level's spread over the middle of a box: near 0 on a blank face or inside an
    empty frame."""
    x1, y1, x2, y2 = box
    dx, dy = (x2 - x1) // 4, (y2 - y1) // 4
    return float(image[y1 + dy : y2 - dy, x1 + dx : x2 - dx].mean(2).std())


@pytest.mark.parametrize("seed", [4, 8, 29])  # ffalt, samoheen, lietxia: 5z not blank there
def test_a_plain_white_scene_draws_its_white_dragons_plain(renderer: Renderer, seed: int) -> None:
    plain = Renderer(renderer.bank, mix=SceneMix(keyboard=0, printed=0, plain_white=1.0))
    options = RenderOptions(clean=True, elevation=(80, 88), whole=True)
    scene = plain.render(np.random.default_rng(seed), 640, options=options)
    assert scene.info["plain_white"]
    lying = [  # flat and square to the table's edge: the box is all face
        r
        for r in scene.tiles
        if r.labelled and r.xyxy and r.placed.pose is Pose.FLAT and r.placed.yaw % 90 == 0
    ]
    whites = [r.xyxy for r in lying if r.placed.cls == WHITE_DRAGON]
    others = [r.xyxy for r in lying if r.placed.cls < WHITE_DRAGON and not r.placed.face_down]
    assert len(whites) >= 2
    assert np.median([_inner_spread(scene.image, b) for b in whites]) < 8
    assert np.median([_inner_spread(scene.image, b) for b in others]) > 20


def test_a_mix_without_plain_whites_draws_no_plain_white_scene(renderer: Renderer) -> None:
    scene = renderer.render(np.random.default_rng(0), 256)
    assert scene.info["plain_white"] is False


def test_the_plain_white_share_is_checked_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from hupai.cli import main

    argv = ["data", "synth", "--n", "1", "--out", str(tmp_path / "syn")]
    assert main([*argv, "--plain-white-share", "-0.2"]) == 2
    assert "--plain-white-share -0.2: expected a fraction in [0, 1]" in capsys.readouterr().err


def test_a_scene_without_tile_shaped_clutter_pastes_no_domino_block_card_or_phone(
    renderer: Renderer,
) -> None:
    plain = Renderer(renderer.bank, mix=SceneMix(keyboard=0, printed=0, tile_shaped=0.0))
    kinds = {
        kind
        for seed in range(40)
        for kind, _ in plain.render(np.random.default_rng(seed), 192).clutter
    }
    assert kinds and not kinds & clutter.TILE_SHAPED


def test_scenes_with_tile_shaped_clutter_paste_dominoes_blocks_cards_and_phones(
    renderer: Renderer,
) -> None:
    kinds = {
        kind
        for seed in range(40)
        for kind, _ in renderer.render(np.random.default_rng(seed), 192).clutter
    }
    assert kinds >= clutter.TILE_SHAPED


def test_a_missing_clutter_font_is_named_with_its_package(tmp_path: Path) -> None:
    missing = str(tmp_path / "wqy-microhei.ttc")
    with pytest.raises(FileNotFoundError, match=r"wqy-microhei\.ttc is missing.*make synth-fonts"):
        clutter._font(missing, 12)
