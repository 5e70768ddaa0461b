"""The namer at inference: crops from the photo's own pixels, names, decoding, suggestions."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("onnx")
from fake_models import fake_model, fake_namer

from hupai.vision.classes import BACK, WHITE_DRAGON, class_by_name
from hupai.vision.decoding import CAP_NAME_FLOOR, CAPS, alternatives, decode_names, over_cap
from hupai.vision.namer import (
    NAMER_CLASSES,
    REJECT,
    Namer,
    NamerError,
    Names,
    crop_box,
    crop_tiles,
    load_namer_manifest,
)
from hupai.vision.reading import read_image
from hupai.vision.suggest import suggest_changes

# -- crops -----------------------------------------------------------------------------------


def _stripes(h: int, w: int) -> np.ndarray:
    """A photo whose every pixel is unique enough to compare crops."""
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.stack([(xx * 3) % 256, (yy * 5) % 256, ((xx + yy) * 2) % 256], axis=2)
    return img.astype(np.uint8)


def test_a_wide_box_is_turned_to_portrait() -> None:
    img = np.zeros((100, 200, 3), np.uint8)
    img[:, :100, 2] = 255  # the box's left half is red
    crop = crop_box(img, np.array([50, 30, 150, 70.0]), 32, margin=0.0)
    # turned a quarter counter-clockwise: the box's left half is now at the bottom
    assert crop[28, 16, 2] > 200 and crop[3, 16, 2] < 50


def test_a_crop_of_a_larger_photo_is_the_same_tile_not_an_aliased_one() -> None:
    import cv2

    img = cv2.GaussianBlur(_stripes(200, 200), (0, 0), 2)
    big = cv2.resize(img, None, fx=6, fy=6, interpolation=cv2.INTER_CUBIC)
    small = crop_box(img, np.array([40, 40, 120, 140.0]), 32).astype(int)
    large = crop_box(big, np.array([240, 240, 720, 840.0]), 32).astype(int)
    assert np.abs(small - large).mean() < 4


def test_a_crop_in_a_turned_frame_is_cut_from_the_photo() -> None:
    img = _stripes(300, 300)
    box = np.array([100, 80, 160, 160.0])
    theta = np.radians(30)
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    # frame → photo: turn by 30° about the photo's centre (150, 150)
    to_image = np.hstack([rot, (np.array([150, 150]) - rot @ [150, 150])[:, None]])
    # the same box in the frame: a box whose turned envelope holds the photo box
    photo = crop_box(img, box, 32)
    centre = rot.T @ (np.array([130, 120]) - [150, 150]) + [150, 150]
    half = np.array([30, 40])
    framed = crop_box(img, np.hstack([centre - half, centre + half]), 32, to_image=to_image)
    assert framed.shape == photo.shape == (32, 32, 3)
    assert not np.array_equal(framed, photo)  # turned: other pixels …
    # … but the centre pixel is the photo's at the box centre
    assert np.abs(framed[16, 16].astype(int) - img[120, 130].astype(int)).max() <= 12


def test_training_inputs_are_cut_as_the_runtime_cuts_them() -> None:
    """No skew between training and inference: a stored crop, re-cut at the runtime margin,
    equals the runtime's own crop."""
    from hupai.datasets.crops import STORE_MARGIN, STORE_SIZE

    training = pytest.importorskip("hupai.training.namer")
    import cv2

    img = cv2.GaussianBlur(_stripes(400, 400), (0, 0), 3)
    box = np.array([120, 100, 200, 210.0])
    stored = crop_box(img, box, STORE_SIZE, STORE_MARGIN)
    recut = training.centre_inputs(stored[None], 64)[0].astype(int)
    runtime = crop_box(img, box, 64).astype(int)
    assert np.abs(recut - runtime).mean() < 6


# -- the model file --------------------------------------------------------------------------


def test_a_namer_with_other_classes_is_refused(tmp_path: Path) -> None:
    path = fake_namer(tmp_path, {0: 100})
    manifest = json.loads(path.with_suffix(".json").read_text())
    manifest["class_names"] = manifest["class_names"][:-1]
    path.with_suffix(".json").write_text(json.dumps(manifest))
    with pytest.raises(NamerError, match="classes"):
        Namer(path)


def test_a_missing_namer_is_named(tmp_path: Path) -> None:
    with pytest.raises(NamerError, match="no such namer"):
        Namer(tmp_path / "nope.onnx")


def _with_blend(tmp_path: Path, weight: float, blend_size: int = 32) -> tuple[Path, Path]:
    """A fake namer (1m at red 40) naming a blend (5p at red 40) beside it."""
    blend = fake_namer(tmp_path / "b", {class_by_name("5p"): 40.0}, size=blend_size)
    for path in (blend, blend.with_suffix(".json")):
        path.rename(tmp_path / f"blend{path.suffix}")
    main = fake_namer(tmp_path, {class_by_name("1m"): 40.0})
    manifest = json.loads(main.with_suffix(".json").read_text())
    manifest["blend"] = {"file": "blend.onnx", "weight": weight}
    main.with_suffix(".json").write_text(json.dumps(manifest))
    return main, tmp_path / "blend.onnx"


def test_a_blended_namer_averages_its_names_with_its_partners(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    main, blend = _with_blend(tmp_path, 0.25)
    crops = np.full((2, 32, 32, 3), (30, 30, 40), np.uint8)
    blended = Namer(main).name_crops(crops).probs
    alone = Namer(main)
    alone.blend = None
    expected = 0.75 * alone.name_crops(crops).probs + 0.25 * Namer(blend).name_crops(crops).probs
    np.testing.assert_allclose(blended, expected, atol=1e-6)
    assert blended[0, class_by_name("1m")] > blended[0, class_by_name("5p")] > 0.2


def test_a_blend_weight_outside_zero_to_one_is_named(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    main, _ = _with_blend(tmp_path, 1.5)
    with pytest.raises(NamerError, match=r"blend weight 1\.5"):
        Namer(main)


def test_a_blend_cutting_other_crops_is_named(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    main, _ = _with_blend(tmp_path, 0.5, blend_size=48)
    with pytest.raises(NamerError, match="blended namer cuts 48-px crops"):
        Namer(main)


def _with_bonus(tmp_path: Path, main: dict[str, float], closer: dict[str, float]) -> Path:
    """A fake namer (``main``: name → red level) naming a bonus reader (``closer``) that cuts
    48-px crops, beside it."""
    (tmp_path / "b").mkdir()
    bonus = fake_namer(tmp_path / "b", {class_by_name(k): v for k, v in closer.items()}, size=48)
    for path in (bonus, bonus.with_suffix(".json")):
        path.rename(tmp_path / f"bonus{path.suffix}")
    namer = fake_namer(tmp_path, {class_by_name(k): v for k, v in main.items()})
    manifest = json.loads(namer.with_suffix(".json").read_text())
    manifest["bonus"] = {"file": "bonus.onnx"}
    namer.with_suffix(".json").write_text(json.dumps(manifest))
    return namer


def test_a_bonus_reader_told_so_looks_at_each_crop_turned_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _with_bonus(tmp_path, {"8f": 40.0}, {"5f": 40.0})
    manifest = json.loads(path.with_suffix(".json").read_text())
    manifest["bonus"]["turned"] = True
    path.with_suffix(".json").write_text(json.dumps(manifest))
    namer = Namer(path)
    assert namer.bonus is not None

    def by_corner(crops: np.ndarray) -> Names:
        """5f where the mark lies top-left (upright), 7f where it lies bottom-right."""
        probs = np.full((len(crops), len(NAMER_CLASSES)), 1e-6)
        probs[:, class_by_name("5f")] = crops[:, 0, 0, 0] > 0
        probs[:, class_by_name("7f")] = crops[:, -1, -1, 0] > 0
        return Names(probs / probs.sum(axis=1, keepdims=True))

    monkeypatch.setattr(namer.bonus, "name_crops", by_corner)
    crops = np.zeros((1, 48, 48, 3), np.uint8)
    crops[0, 0, 0, 0] = 255
    names = namer.bonus_names(crops)[0]
    assert names[class_by_name("5f")] == pytest.approx(0.5, abs=1e-4)
    assert names[class_by_name("7f")] == pytest.approx(0.5, abs=1e-4)


def _name_one(namer: Path, red: int) -> np.ndarray:
    img = np.full((100, 100, 3), (30, 30, red), np.uint8)
    return Namer(namer).name(img, np.array([[20, 20, 60, 70.0]])).probs[0]


def test_a_bonus_reader_says_which_flower_or_season_the_namer_saw(tmp_path: Path) -> None:
    namer = _with_bonus(tmp_path, {"8f": 40.0, "1m": 200.0}, {"5f": 40.0, "8f": 120.0})
    probs = _name_one(namer, 40)
    assert NAMER_CLASSES[int(probs.argmax())] == "5f"
    assert probs.sum() == pytest.approx(1.0)


def test_a_bonus_reader_does_not_look_at_a_suit_tile(tmp_path: Path) -> None:
    namer = _with_bonus(tmp_path, {"1m": 40.0, "8f": 200.0}, {"5f": 40.0})
    assert NAMER_CLASSES[int(_name_one(namer, 40).argmax())] == "1m"


def test_a_bonus_reader_only_shares_out_the_namers_bonus_names(tmp_path: Path) -> None:
    """Its own word for a suit (it never trained on suits) is never read."""
    namer = _with_bonus(tmp_path, {"8f": 40.0}, {"2m": 40.0, "6f": 60.0})
    assert NAMER_CLASSES[int(_name_one(namer, 40).argmax())] == "6f"


def _with_bird_reader(
    tmp_path: Path, main: dict[str, float], closer: dict[str, float], bird: dict[str, float]
) -> Path:
    """:func:`_with_bonus`, and a bird reader (``bird``: its names) beside them."""
    namer = _with_bonus(tmp_path, main, closer)
    (tmp_path / "r").mkdir()
    reader = fake_namer(tmp_path / "r", {class_by_name(k): v for k, v in bird.items()}, size=48)
    for path in (reader, reader.with_suffix(".json")):
        path.rename(tmp_path / f"bird{path.suffix}")
    manifest = json.loads(namer.with_suffix(".json").read_text())
    manifest["bird"] = {"file": "bird.onnx"}
    namer.with_suffix(".json").write_text(json.dumps(manifest))
    return namer


def test_a_bird_reader_takes_a_flower_to_the_1_of_bamboo(tmp_path: Path) -> None:
    namer = _with_bird_reader(tmp_path, {"8f": 40.0}, {"6f": 40.0}, {"1s": 40.0, "6f": 120.0})
    probs = _name_one(namer, 40)
    assert NAMER_CLASSES[int(probs.argmax())] == "1s"
    assert probs.sum() == pytest.approx(1.0)


def _bird_namer_from(namer: Path, value: float) -> Path:
    manifest = json.loads(namer.with_suffix(".json").read_text())
    manifest["bird"]["namer_from"] = value
    namer.with_suffix(".json").write_text(json.dumps(manifest))
    return namer


def test_a_bird_reader_is_not_heard_where_the_namer_gives_the_bird_too_little(
    tmp_path: Path,
) -> None:
    namer = _with_bird_reader(tmp_path, {"8f": 40.0}, {"6f": 40.0}, {"1s": 40.0, "6f": 120.0})
    assert NAMER_CLASSES[int(_name_one(_bird_namer_from(namer, 0.5), 40).argmax())] == "6f"


def test_a_bird_namer_from_outside_zero_to_one_is_named(tmp_path: Path) -> None:
    namer = _with_bird_reader(tmp_path, {"8f": 40.0}, {"6f": 40.0}, {"1s": 40.0})
    with pytest.raises(NamerError, match=r"bird namer_from 1\.5 is not in \[0, 1\]"):
        Namer(_bird_namer_from(namer, 1.5))


def test_a_bird_reader_that_sees_a_flower_leaves_the_bonus_readers_name(tmp_path: Path) -> None:
    namer = _with_bird_reader(tmp_path, {"8f": 40.0}, {"6f": 40.0}, {"3f": 40.0, "1s": 120.0})
    assert NAMER_CLASSES[int(_name_one(namer, 40).argmax())] == "6f"


def test_a_bird_reader_does_not_look_at_a_suit_tile(tmp_path: Path) -> None:
    namer = _with_bird_reader(tmp_path, {"2m": 40.0, "8f": 200.0}, {"6f": 40.0}, {"1s": 40.0})
    assert NAMER_CLASSES[int(_name_one(namer, 40).argmax())] == "2m"


def test_a_bird_reader_is_a_partner_its_namer_ships_with(tmp_path: Path) -> None:
    """What copies a namer (labelling workers, retraining, blends) copies its partners."""
    namer = _with_bird_reader(tmp_path, {"8f": 40.0}, {"6f": 40.0}, {"1s": 40.0})
    assert load_namer_manifest(namer).partners == ("bonus.onnx", "bird.onnx")


def test_a_kept_closer_look_names_the_bird_again_as_the_reader_names(tmp_path: Path) -> None:
    from hupai.vision.namer import names_of_views, with_closer_look

    namer = Namer(_with_bird_reader(tmp_path, {"8f": 40.0}, {"6f": 40.0}, {"1s": 40.0}))
    img = np.full((100, 100, 3), (30, 30, 40), np.uint8)
    boxes = np.array([[20, 20, 60, 70.0]])
    m = namer.manifest
    views = names_of_views(namer.view_logits(img, boxes), m.temperature).probs
    closer = namer.closer_look(img, boxes)
    again = with_closer_look(views, closer, m.closer_rule)
    np.testing.assert_allclose(again, namer.name(img, boxes).probs, atol=1e-9)
    assert NAMER_CLASSES[int(again[0].argmax())] == "1s"


def _with_bird_others(tmp_path: Path, namer_from: float | None = 0.01) -> Path:
    """A namer sure of the red dragon that gives the bird a little (~0.015) at red 40, its
    bonus and bird readers, and (``namer_from`` not None) a bird reader of every tile that
    sees the bird there."""
    namer = _with_bird_reader(tmp_path, {"7z": 40.0, "1s": 100.0}, {"6f": 40.0}, {"1s": 40.0})
    if namer_from is None:
        return namer
    (tmp_path / "o").mkdir()
    palette = {class_by_name("1s"): 40.0, class_by_name("7z"): 120.0}
    reader = fake_namer(tmp_path / "o", palette, size=48)
    for path in (reader, reader.with_suffix(".json")):
        path.rename(tmp_path / f"others{path.suffix}")
    manifest = json.loads(namer.with_suffix(".json").read_text())
    manifest["bird_others"] = {"file": "others.onnx", "namer_from": namer_from}
    namer.with_suffix(".json").write_text(json.dumps(manifest))
    return namer


def test_a_bird_reader_of_every_tile_looks_at_a_tile_named_an_honour(tmp_path: Path) -> None:
    probs = _name_one(_with_bird_others(tmp_path), 40)
    assert NAMER_CLASSES[int(probs.argmax())] == "1s"
    assert probs.sum() == pytest.approx(1.0)


def test_the_bird_reader_of_flowers_does_not_look_at_an_honour(tmp_path: Path) -> None:
    namer = _with_bird_others(tmp_path, None)
    assert NAMER_CLASSES[int(_name_one(namer, 40).argmax())] == "7z"


def test_a_bird_reader_does_not_look_at_an_honour_given_the_bird_too_little(
    tmp_path: Path,
) -> None:
    namer = _with_bird_others(tmp_path, 0.05)
    assert NAMER_CLASSES[int(_name_one(namer, 40).argmax())] == "7z"


def test_a_bird_reader_does_not_look_at_an_honour_smaller_than_the_namers_crop(
    tmp_path: Path,
) -> None:
    """A box with fewer pixels than the namer's own input gives the closer look only blur."""
    namer = Namer(_with_bird_others(tmp_path))
    img = np.full((100, 100, 3), (30, 30, 40), np.uint8)
    side = namer.manifest.input_size
    small = np.array([[20, 20, 20 + side * 0.6, 20 + side * 0.8]])
    large = np.array([[20, 20, 20 + side * 0.9, 20 + side * 1.2]])
    assert NAMER_CLASSES[int(namer.name(img, small).probs[0].argmax())] == "7z"
    assert NAMER_CLASSES[int(namer.name(img, large).probs[0].argmax())] == "1s"


def test_a_bird_others_namer_from_outside_zero_to_one_is_named(tmp_path: Path) -> None:
    with pytest.raises(NamerError, match=r"bird_others namer_from 1\.5 is not in \[0, 1\]"):
        Namer(_with_bird_others(tmp_path, 1.5))


def test_a_bird_reader_of_every_tile_is_a_partner_its_namer_ships_with(tmp_path: Path) -> None:
    partners = load_namer_manifest(_with_bird_others(tmp_path)).partners
    assert partners == ("bonus.onnx", "bird.onnx", "others.onnx")


def test_a_kept_closer_look_names_an_honour_again_as_the_reader_names(tmp_path: Path) -> None:
    """Calibration's replay hears the bird reader on a tile named an honour as reading does."""
    from hupai.vision.namer import names_of_views, with_closer_look

    namer = Namer(_with_bird_others(tmp_path))
    img = np.full((100, 200, 3), (30, 30, 40), np.uint8)
    img[:, 100:] = (30, 30, 100)  # a second box the namer names the bird itself
    boxes = np.array([[20, 20, 60, 70.0], [120, 20, 160, 70.0]])
    m = namer.manifest
    views = names_of_views(namer.view_logits(img, boxes), m.temperature).probs
    again = with_closer_look(views, namer.closer_look(img, boxes), m.closer_rule)
    np.testing.assert_allclose(again, namer.name(img, boxes).probs, atol=1e-9)
    assert [NAMER_CLASSES[i] for i in again.argmax(axis=1)] == ["1s", "1s"]


def test_a_kept_closer_look_names_again_as_the_reader_names(tmp_path: Path) -> None:
    """Calibration names boxes again from kept logits and the kept closer look: the same
    names as the reader's own, bonus tiles included."""
    from hupai.vision.namer import names_of_views, with_closer_look

    namer = Namer(_with_bonus(tmp_path, {"8f": 40.0, "1m": 120.0}, {"5f": 40.0, "6f": 120.0}))
    img = np.full((100, 200, 3), (30, 30, 40), np.uint8)
    img[:, 100:] = (30, 30, 120)
    boxes = np.array([[20, 20, 60, 70.0], [120, 20, 160, 70.0]])
    read = namer.name(img, boxes).probs
    views = namer.view_logits(img, boxes)
    again = with_closer_look(
        names_of_views(views, namer.manifest.temperature).probs, namer.closer_look(img, boxes)
    )
    np.testing.assert_allclose(again, read, atol=1e-9)
    assert [NAMER_CLASSES[i] for i in read.argmax(axis=1)] == ["5f", "1m"]


def test_a_bonus_namer_weight_out_of_range_is_named(tmp_path: Path) -> None:
    namer = _with_bonus(tmp_path, {"8f": 40.0}, {"5f": 40.0})
    manifest = json.loads(namer.with_suffix(".json").read_text())
    manifest["bonus"]["namer_weight"] = -1
    namer.with_suffix(".json").write_text(json.dumps(manifest))
    with pytest.raises(NamerError, match=r"bonus namer_weight -1\.0 is not in \[0, 4\]"):
        Namer(namer)


def test_a_bonus_reader_with_a_bonus_reader_of_its_own_is_refused(tmp_path: Path) -> None:
    namer = _with_bonus(tmp_path, {"8f": 40.0}, {"5f": 40.0})
    manifest = json.loads((tmp_path / "bonus.json").read_text())
    manifest["bonus"] = {"file": "bonus.onnx"}
    (tmp_path / "bonus.json").write_text(json.dumps(manifest))
    with pytest.raises(NamerError, match="a bonus reader names namers of its own"):
        Namer(namer)


def _with_views(
    tmp_path: Path,
    margins: list[float],
    below: float | None = None,
    turned: list[float] | None = None,
) -> Path:
    namer = fake_namer(tmp_path, {class_by_name("1m"): 40.0, class_by_name("5p"): 160.0})
    manifest = json.loads(namer.with_suffix(".json").read_text())
    manifest["preprocessing"]["view_margins"] = margins
    if below is not None:
        manifest["preprocessing"]["more_views_below"] = below
    if turned is not None:
        manifest["preprocessing"]["turned_views"] = turned
    namer.with_suffix(".json").write_text(json.dumps(manifest))
    return namer


def test_a_box_is_named_at_each_view_margin_and_the_names_averaged(tmp_path: Path) -> None:
    img = np.full((100, 100, 3), (30, 30, 160), np.uint8)
    img[40:60, 40:60] = (30, 30, 40)  # a dark tile on a red table: more margin, more red
    box = np.array([[40.0, 40.0, 60.0, 60.0]])
    namer = Namer(_with_views(tmp_path, [0.0, 0.5]))
    views = [namer.name_crops(crop_tiles(img, box, 32, m)).probs for m in (0.0, 0.5)]
    assert not np.allclose(views[0], views[1])
    np.testing.assert_allclose(namer.name(img, box).probs, (views[0] + views[1]) / 2, atol=1e-9)


def _sure_and_doubted(crops: np.ndarray) -> Names:
    """Names read off a crop's first pixel: (box, view). Box 0 is sure at the first view,
    box 1 doubted (1m or 2m); its second view says 2m."""
    probs = np.full((len(crops), len(NAMER_CLASSES)), 1e-6)
    for k, (box, view) in enumerate(crops[:, 0, 0, :2].tolist()):
        probs[k, :2] = (0.99, 0.01) if box == 0 else (0.6, 0.4) if view == 0 else (0.2, 0.8)
    return Names(probs / probs.sum(axis=1, keepdims=True))


def test_only_the_boxes_the_first_view_doubts_are_named_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    namer = Namer(_with_views(tmp_path, [0.0, 0.5], below=0.9))
    monkeypatch.setattr(namer, "name_crops", _sure_and_doubted)
    asked: list[tuple[float, list[int] | None]] = []

    def cut(margin: float, rows: np.ndarray | None) -> np.ndarray:
        asked.append((margin, None if rows is None else rows.tolist()))
        boxes = [0, 1] if rows is None else rows.tolist()
        crops = np.zeros((len(boxes), 4, 4, 3), np.uint8)
        crops[:, 0, 0, 0], crops[:, 0, 0, 1] = boxes, int(margin > 0)
        return crops

    probs = namer.name_views(cut).probs
    assert asked == [(0.0, None), (0.5, [1])]
    assert probs[0, :2] == pytest.approx([0.99, 0.01], abs=1e-4)  # named once
    assert probs[1, :2] == pytest.approx([0.4, 0.6], abs=1e-4)  # both views averaged


def test_a_doubted_box_is_also_named_turned_by_180_degrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    namer = Namer(_with_views(tmp_path, [0.0, 0.5], below=0.9, turned=[0.0]))

    def upside_down_doubts(crops: np.ndarray) -> Names:
        """Box 1 reads 1m-or-2m upright (its mark top-left), surely 2m turned."""
        probs = np.full((len(crops), len(NAMER_CLASSES)), 1e-6)
        for k, crop in enumerate(crops):
            box, turned = int(crop[0, 0, 0] or crop[-1, -1, 0]), bool(crop[-1, -1, 2])
            probs[k, :2] = (0.99, 0.01) if box == 0 else (0.02, 0.98) if turned else (0.6, 0.4)
        return Names(probs / probs.sum(axis=1, keepdims=True))

    monkeypatch.setattr(namer, "name_crops", upside_down_doubts)

    def cut(margin: float, rows: np.ndarray | None) -> np.ndarray:
        boxes = [0, 1] if rows is None else rows.tolist()
        crops = np.zeros((len(boxes), 4, 4, 3), np.uint8)
        crops[:, 0, 0, 0], crops[:, 0, 0, 2] = boxes, 1  # a turned crop shows these bottom-right
        return crops

    probs = namer.name_views(cut).probs
    assert probs[0, :2] == pytest.approx([0.99, 0.01], abs=1e-4)  # sure: named once
    assert probs[1, :2] == pytest.approx([(0.6 + 0.6 + 0.02) / 3, (0.4 + 0.4 + 0.98) / 3], abs=1e-4)


def test_turned_views_at_a_margin_no_view_has_are_named(tmp_path: Path) -> None:
    with pytest.raises(NamerError, match=r"turned views \[0.2\] are not among the view margins"):
        Namer(_with_views(tmp_path, [0.08, 0.12], turned=[0.2]))


def test_the_logits_kept_for_calibration_hold_every_view_turned_ones_too(tmp_path: Path) -> None:
    namer = Namer(_with_views(tmp_path, [0.0, 0.5], turned=[0.5]))
    img = np.random.default_rng(0).integers(0, 255, (100, 100, 3), dtype=np.uint8)
    box = np.array([[30.0, 20.0, 60.0, 70.0]])
    logits = namer.view_logits(img, box)
    assert logits.shape[0] == 3
    turned = np.ascontiguousarray(crop_tiles(img, box, 32, 0.5)[:, ::-1, ::-1])
    np.testing.assert_allclose(logits[2], namer.logits(turned), atol=1e-5)


def test_a_more_views_cut_outside_zero_to_one_is_named(tmp_path: Path) -> None:
    with pytest.raises(NamerError, match=r"more_views_below 1\.5"):
        Namer(_with_views(tmp_path, [0.08, 0.12], below=1.5))


def test_view_margins_outside_zero_to_one_are_named(tmp_path: Path) -> None:
    with pytest.raises(NamerError, match=r"view margins \[0.08, 1.5\]"):
        Namer(_with_views(tmp_path, [0.08, 1.5]))


# -- reading with a finder and a namer -------------------------------------------------------

# Four tiles in a row (and a fifth apart at the right: the winning tile), painted so that the
# fake namer's colour code names them; one more box lies on the table (the finder's mistake).
RED = {class_by_name("1m"): 40.0, class_by_name("5p"): 120.0, class_by_name("9s"): 200.0}
RED[REJECT] = 250.0


def _scene() -> tuple[np.ndarray, list[tuple[float, float, float, float, int, float]]]:
    img = np.full((640, 640, 3), 90, np.uint8)
    boxes = []
    reds = [40, 40, 120, 200, 120]
    for k, red in enumerate(reds):
        x0 = 100 + 62 * k + (20 if k == len(reds) - 1 else 0)
        img[300:380, x0 : x0 + 60] = (30, 30, red)
        boxes.append((x0 + 30.0, 340.0, 60.0, 80.0, 0, 0.8))
    img[100:180, 500:560] = (30, 30, 250)  # not a tile
    boxes.append((530.0, 140.0, 60.0, 80.0, 0, 0.6))
    return img, boxes


def test_the_namer_names_the_finders_boxes_and_drops_what_is_not_a_tile(tmp_path: Path) -> None:
    img, boxes = _scene()
    finder = fake_model(tmp_path, boxes, names=("tile",))
    namer = Namer(fake_namer(tmp_path, RED))
    from hupai.vision.detector import Detector

    reading = read_image(img, detector=Detector(finder), namer=namer)
    assert sorted(reading.names) == ["1m", "1m", "5p", "5p", "9s"]
    assert reading.alternatives is not None
    first = reading.to_dict()["detections"]["alternatives"][0]
    assert first[0]["tile"] in ("1m", "5p", "9s") and len(first) == 3


def test_a_finder_without_a_namer_is_refused(tmp_path: Path) -> None:
    from hupai.vision.detector import Detector, ModelError

    img, boxes = _scene()
    finder = Detector(fake_model(tmp_path, boxes, names=("tile",)))
    with pytest.raises(ModelError, match="needs a namer"):
        read_image(img, detector=finder, namer=None)


# -- decoding --------------------------------------------------------------------------------


def test_a_fifth_copy_goes_to_its_next_likeliest_name() -> None:
    p = np.full((5, len(NAMER_CLASSES)), 1e-4)
    p[:, 0] = 0.9
    p[2, 3] = 0.5  # the third box is the least sure of being 1m
    p[4, 3] = 0.2
    chosen = decode_names(p)
    assert sorted(chosen.tolist()) == [0, 0, 0, 0, 3] and chosen[2] == 3


def test_a_fifth_copy_keeps_its_name_when_the_namer_finds_every_other_unlikely() -> None:
    p = np.full((5, len(NAMER_CLASSES)), 1e-3)
    p[:, WHITE_DRAGON] = 0.93  # five blank faces: a set's spare tile among its white dragons
    p[4, 14] = CAP_NAME_FLOOR / 2  # a 6p, at best
    assert decode_names(p).tolist() == [WHITE_DRAGON] * 5  # (the reading warns of copies)


def test_backs_are_not_capped() -> None:
    p = np.full((6, len(NAMER_CLASSES)), 1e-4)
    p[:, BACK] = 0.9
    assert decode_names(p).tolist() == [BACK] * 6


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**31 - 1))
def test_decoding_reads_no_more_copies_than_a_set_holds_but_for_unlikely_other_names(
    n: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(len(NAMER_CLASSES), 0.05), size=n)
    p[:, 0] += rng.random(n)  # many boxes lean towards one tile
    p /= p.sum(axis=1, keepdims=True)
    chosen = decode_names(p)
    capped = decode_names(p, floor=0.0)
    assert not over_cap(capped[(capped != BACK) & (capped != REJECT)])
    # where the caps would name a box unlikely, it keeps its own name; elsewhere, theirs
    kept = p[np.arange(n), capped] < CAP_NAME_FLOOR
    best = p.argmax(axis=1)
    assert chosen.tolist() == np.where(kept, best, capped).tolist()
    # boxes whose best name was within the caps already keep it
    if not over_cap(best[(best != BACK) & (best != REJECT)]):
        assert chosen.tolist() == best.tolist()


def test_alternatives_put_the_chosen_name_first_and_never_reject() -> None:
    p = np.full((1, len(NAMER_CLASSES)), 0.01)
    p[0, REJECT] = 0.5
    p[0, 7] = 0.3
    p[0, 8] = 0.1
    ids, probs = alternatives(p, np.array([8]))
    assert ids[0].tolist()[:2] == [8, 7] and REJECT not in ids[0]
    assert probs[0, 0] == pytest.approx(0.1)


def test_caps_are_four_copies_and_one_of_each_flower() -> None:
    assert CAPS[:34] == (4,) * 34 and CAPS[34:] == (1,) * 8


# -- suggestions -----------------------------------------------------------------------------


def test_the_likeliest_winning_change_is_suggested() -> None:
    names = [[("1m", 0.95), ("7m", 0.05)], [("2m", 0.6), ("3m", 0.3), ("4m", 0.1)]]
    wins = {("1m", "3m"), ("1m", "4m")}
    found = suggest_changes(names, lambda n: tuple(n) in wins)
    assert found is not None
    changes, relative = found
    assert changes == [(1, "3m", 0.3)] and relative == pytest.approx(0.5)


def test_no_suggestion_when_no_near_reading_wins() -> None:
    names = [[("1m", 0.6), ("7m", 0.4)]]
    assert suggest_changes(names, lambda n: False) is None


def test_a_sure_tile_is_never_changed() -> None:
    names = [[("1m", 0.99), ("7m", 0.01)], [("2m", 0.6), ("3m", 0.4)]]
    found = suggest_changes(names, lambda n: n[0] == "7m")
    assert found is None
