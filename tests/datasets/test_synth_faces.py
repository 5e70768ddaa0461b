"""Procedural tile faces: every face of a style drawn, distinct faces differ, families apart."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hupai.datasets.synth import faces
from hupai.datasets.synth.render import GeneratedFaces, Renderer
from hupai.vision.classes import WHITE_DRAGON

MISSING = [f for f in faces.FAMILIES if not faces.installed_fonts(f)]
pytestmark = pytest.mark.skipif(
    bool(MISSING),
    reason=f"fonts of the face families {MISSING} are not installed "
    f"(make synth-fonts installs {', '.join(sorted(faces.FONT_PACKAGES))})",
)


def _style(seed: int, family: str | None = None) -> faces.SetStyle:
    families = (family,) if family else faces.TRAINING_FAMILIES
    return faces.random_style(np.random.default_rng(seed), families)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), family=st.sampled_from(sorted(faces.FAMILIES)))
def test_every_face_of_a_style_is_drawn_and_distinct_faces_differ(seed: int, family: str) -> None:
    style = _style(seed, family)
    drawn = {cls: faces.draw_face(style, cls) for cls in range(42)}
    for cls, glyph in drawn.items():
        assert glyph.dtype == np.uint8 and glyph.ndim == 3 and glyph.shape[2] == 4
        if not (cls == WHITE_DRAGON and style.white == "blank"):
            assert (glyph[:, :, 3] > 128).sum() > 50, f"class {cls} has no ink"
    keys = {cls: g.tobytes() + bytes(g.shape) for cls, g in drawn.items()}
    assert len(set(keys.values())) == 42


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_a_style_draws_the_same_face_the_same_way(seed: int) -> None:
    style = _style(seed)
    assert np.array_equal(faces.draw_face(style, 20), faces.draw_face(style, 20))


def test_red_fives_are_fives_drawn_in_red() -> None:
    style = _style(5)
    for cls in faces.RED_FIVES:
        red = faces.draw_face(style, cls, red=True)
        plain = faces.draw_face(style, cls)
        assert red.shape == plain.shape and not np.array_equal(red, plain)
        ink = red[red[:, :, 3] > 200][:, :3].astype(int)
        assert (ink[:, 2] > ink[:, 0] + 40).mean() > 0.5  # mostly red (BGR)
    with pytest.raises(faces.FaceError, match="only the fives"):
        faces.draw_face(style, 3, red=True)


def test_a_blank_white_dragon_is_one_clear_pixel() -> None:
    style = faces.replace(_style(1), captions=False, white_mark="")
    blank = faces.draw_face(faces.replace(style, white="blank"), WHITE_DRAGON)
    assert blank.shape == (1, 1, 4) and blank[0, 0, 3] == 0
    framed = faces.draw_face(faces.replace(style, white="frame"), WHITE_DRAGON)
    assert (framed[:, :, 3] > 128).sum() > 100


def test_a_captioned_set_writes_english_words_at_the_foot_of_its_honours_and_flowers() -> None:
    plain = faces.replace(_style(3, "hei"), captions=False, white="blank")
    captioned = faces.replace(plain, captions=True)
    for cls in (27, 31, 32, 34, 38):  # East, White, Green, plum, spring
        assert not np.array_equal(faces.draw_face(plain, cls), faces.draw_face(captioned, cls))
    for cls in (0, 9, 18):  # the suits carry no words
        assert np.array_equal(faces.draw_face(plain, cls), faces.draw_face(captioned, cls))
    # a blank white dragon keeps its word: not a blank face any more
    assert (faces.draw_face(captioned, WHITE_DRAGON)[:, :, 3] > 128).sum() > 100


def test_a_caption_names_the_tile() -> None:
    style = faces.replace(_style(4), captions=True)
    assert faces._caption(style, 27) == ("EAST",) and faces._caption(style, 8) == ()
    assert faces._caption(style, 37) == ("BAMBOO",) and faces._caption(style, 41) == ("WINTER",)
    assert faces._caption(style, 33)[0] == "RED"


#: Each kind of mark a set may carry, drawn from its seed: how to draw it, the style's fields
#: unmarked, whether a style carries it, and the share of sets that do.
MARKS = {
    "western": (
        faces.western_marks,
        {"captions": False, "bonus_chinese": True, "mark_ink": faces.BLACK},
        lambda style: style.captions,
        (0.15, 0.35),
    ),
    "bird": (
        faces.bird_marks,
        {"bird_numeral": "", "bird_numeral_ink": faces.BLACK},
        lambda style: bool(style.bird_numeral),
        (0.25, 0.45),
    ),
    "white": (
        faces.white_marks,
        {"white_mark": "", "white_mark_ink": faces.RED},
        lambda style: bool(style.white_mark),
        (0.15, 0.4),
    ),
}


@pytest.mark.parametrize("kind", sorted(MARKS))
def test_a_sets_marks_change_no_other_choice_of_the_style(kind: str) -> None:
    marks, unmarked_fields, marked, (low, high) = MARKS[kind]
    for seed in range(30):
        style = _style(seed)
        assert marks(faces.replace(style, **unmarked_fields)) == style
    share = np.mean([marked(_style(s)) for s in range(300)])
    assert low < share < high, share


@pytest.mark.parametrize("kind", sorted(set(faces.LINE_BIRDS) - set(faces.BOLD_BIRDS)))
def test_a_line_drawn_bird_stands_tall_in_thin_strokes_of_several_inks(kind: str) -> None:
    for seed in range(6):
        style = faces.replace(_style(seed), bird=kind, captions=False, bird_numeral="")
        glyph = faces.draw_face(style, 18)  # 1 of bamboo
        ink = glyph[:, :, 3] > 128
        ys, xs = np.nonzero(ink)
        tall = (ys.max() - ys.min()) / glyph.shape[0]
        box = (ys.max() - ys.min()) * (xs.max() - xs.min())
        assert tall >= 0.5, f"seed {seed}: the bird is {tall:.2f} of the face tall"
        assert ink.sum() / box <= 0.3, f"seed {seed}: drawn filled, not in lines"
        colours = {tuple(c) for c in (glyph[ink][:, :3] // 32).tolist()}
        assert len(colours) >= 2, f"seed {seed}: one ink"


def _ink_box(glyph: np.ndarray) -> tuple[float, float]:
    """The glyph's ink: its box's height over width, and the share of that box it covers."""
    ink = glyph[:, :, 3] > 128
    ys, xs = np.nonzero(ink)
    h, w = ys.max() - ys.min(), xs.max() - xs.min()
    return float(h / w), float(ink.sum() / (h * w))


@pytest.mark.parametrize("kind", faces.BOLD_BIRDS)
def test_a_bold_bird_stands_tall_in_heavier_strokes_than_a_thin_one(kind: str) -> None:
    for seed in range(6):
        style = faces.replace(_style(seed), captions=False, bird_numeral="")
        bold = faces.draw_face(faces.replace(style, bird=kind), 18)
        thin = faces.draw_face(faces.replace(style, bird="ink-sparrow"), 18)
        (bold_tall, bold_ink), (_, thin_ink) = _ink_box(bold), _ink_box(thin)
        assert bold_tall >= 1.2 and bold_ink > thin_ink, f"seed {seed}: {bold_tall:.2f}"


def test_a_birds_numeral_is_drawn_on_the_one_of_bamboo_alone() -> None:
    style = faces.replace(_style(4), bird="ink-sparrow", captions=False, bird_numeral="")
    marked = faces.replace(style, bird_numeral="left", bird_numeral_ink=faces.RED)
    assert not np.array_equal(faces.draw_face(marked, 18), faces.draw_face(style, 18))
    for cls in (0, 19, 27, 34):  # 1m, 2s, east, the first flower
        assert np.array_equal(faces.draw_face(marked, cls), faces.draw_face(style, cls))


def test_simplified_and_traditional_forms_differ() -> None:
    style = faces.replace(_style(2, "hei"), wan="萬", east="東", fa="發")
    simple = faces.replace(style, wan="万", east="东", fa="发")
    for cls in (0, 27, 32):  # 1m, East, Green
        assert not np.array_equal(faces.draw_face(style, cls), faces.draw_face(simple, cls))


def test_the_held_out_family_shares_no_font_or_drawing_with_training() -> None:
    held = faces.FAMILIES[faces.HELD_OUT_FAMILY]
    for name in faces.TRAINING_FAMILIES:
        fam = faces.FAMILIES[name]
        for part in ("fonts", "coins", "sticks", "birds", "plants"):
            assert not set(getattr(held, part)) & set(getattr(fam, part)), (name, part)
    seen = {_style(s).family for s in range(40)}
    assert faces.HELD_OUT_FAMILY not in seen and seen == set(faces.TRAINING_FAMILIES)


def test_no_family_without_fonts_is_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(faces, "installed_fonts", lambda family: ())
    with pytest.raises(faces.FaceError, match="no font of the families"):
        faces.random_style(np.random.default_rng(0))


def test_a_scene_is_drawn_with_one_generated_set() -> None:
    renderer = Renderer({}, GeneratedFaces(1.0, (faces.HELD_OUT_FAMILY,)))
    scene = renderer.render(np.random.default_rng(4), 320)
    assert scene.info["art_set"] == f"gen-{faces.HELD_OUT_FAMILY}"
    assert scene.labels


def _painted(seed: int, plant: str, shared: bool) -> faces.SetStyle:
    """A style with a painted flower picture; ``shared``: one picture on all eight."""
    style = faces.replace(_style(seed), plant=plant)
    while faces.shares_one_picture(style) != shared:
        style = faces.replace(style, seed=style.seed + 1)
    return style


def _picture(glyph: np.ndarray) -> np.ndarray:
    """The part of a bonus face below its number and character."""
    return glyph[int(0.3 * glyph.shape[0]) :]


@pytest.mark.parametrize("plant", faces.PAINTED_PLANTS)
def test_a_set_with_one_painted_picture_tells_its_bonus_tiles_apart_by_the_corners_only(
    plant: str,
) -> None:
    style = _painted(5, plant, shared=True)
    bonus = [faces.draw_face(style, cls) for cls in range(34, 42)]
    assert all(np.array_equal(_picture(bonus[0]), _picture(g)) for g in bonus[1:])
    assert len({g.tobytes() for g in bonus}) == 8


def test_a_set_without_one_picture_paints_each_bonus_tile_its_own() -> None:
    style = _painted(5, "rose", shared=False)
    first, fifth = faces.draw_face(style, 34), faces.draw_face(style, 38)
    assert not np.array_equal(_picture(first), _picture(fifth))


def test_the_gpu_packs_font_subsets_carry_every_letter_a_face_prints() -> None:
    from hupai.training.gpu import FACE_TEXT

    printed = set("".join(faces.CAPTION_WORDS) + faces.NUMERALS + "伍萬万東东發发蘭兰白中")
    printed |= set(faces.WHITE_MARK_CHARS + "".join(faces.WHITE_MARK_LETTERS))
    assert printed <= set(FACE_TEXT), printed - set(FACE_TEXT)


@pytest.mark.parametrize("mark", ["福", "B", "gem"])
def test_a_white_dragons_mark_is_drawn_inside_its_frame_alone(mark: str) -> None:
    style = faces.replace(_style(3), white="frame", captions=False, white_mark="")
    marked = faces.replace(style, white_mark=mark, white_mark_ink=faces.RED)
    plain, drawn = faces.draw_face(style, 31), faces.draw_face(marked, 31)
    h, w = drawn.shape[:2]
    centre = (slice(h // 3, 2 * h // 3), slice(w // 3, 2 * w // 3))
    assert (drawn[centre][:, :, 3] > 128).sum() > (plain[centre][:, :, 3] > 128).sum() + 20
    for cls in (0, 27, 32, 33):  # 1m, east, the green and red dragons
        assert np.array_equal(faces.draw_face(marked, cls), faces.draw_face(style, cls))


def test_a_blank_white_dragon_may_carry_a_gem_in_its_centre() -> None:
    style = faces.replace(_style(5), white="blank", captions=False, white_mark="")
    gem = faces.draw_face(faces.replace(style, white_mark="gem"), 31)
    assert (gem[:, :, 3] > 128).any()
