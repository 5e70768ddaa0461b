"""``Reading.confident``: true only when no tile needs a check and no warning doubts a tile;
each tile that needs a check is marked (``check``; ``detections.check`` in the JSON)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hupai.vision.checks import BOX_CHECK_BELOW, CHECK_BELOW, WHITE_DRAGON_BOX_CHECK_BELOW
from hupai.vision.detections import Detections
from hupai.vision.reading import NamedTiles, Reading, build_reading, rebuild

HAND = [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 27, 28, 28, 28]  # 123m456p789s11222z


def _row(
    names_p: list[float],
    box_p: list[float] | None = None,
    x0: float = 60,
    reject: list[float] | None = None,
    xy: list[list[float]] | None = None,
    hand: list[int] = HAND,
) -> Reading:
    xy = xy or [[x0 + 36 * k, 300, x0 + 36 * k + 34, 346] for k in range(len(hand))]
    det = Detections.make(xy, hand, names_p)
    alt = np.array([[c, 0, 0] for c in hand], np.int64)
    alt_p = np.array([[p, (1 - p) / 2, (1 - p) / 2] for p in names_p])
    boxes = None if box_p is None else np.array(box_p)
    rej = None if reject is None else np.array(reject)
    names = NamedTiles(det, alt, alt_p, boxes, CHECK_BELOW, rej)
    return build_reading(det, None, 0.0, (800, 600), names=names)


def test_sure_names_and_boxes_are_confident() -> None:
    r = _row([0.99] * len(HAND), [0.9] * len(HAND))
    assert r.confident and r.check == ()


def test_one_unsure_name_is_marked_and_the_photo_is_not_confident() -> None:
    p = [0.99] * len(HAND)
    p[5] = CHECK_BELOW - 0.05
    r = _row(p)
    assert not r.confident and r.check == (5,)


def test_one_doubtful_box_is_marked() -> None:
    box = [0.9] * len(HAND)
    box[2] = BOX_CHECK_BELOW - 0.1
    r = _row([0.99] * len(HAND), box)
    assert r.check == (2,)


def test_a_box_the_finder_and_the_namer_both_doubt_a_little_is_marked_as_clutter() -> None:
    box, reject = [0.9] * len(HAND), [0.01] * len(HAND)
    box[4], reject[4] = 0.55, 0.3  # 0.55 x 0.7 = 0.385: maybe not a tile
    box[7], reject[7] = 0.55, 0.1  # 0.55 x 0.9 = 0.495: a tile
    r = _row([0.99] * len(HAND), box, reject=reject)
    assert r.check == (4,) and not r.confident
    assert rebuild(r, r.detections.class_id).check == (4,)  # named again by hand: still marked


def test_a_white_dragon_the_finder_scores_low_for_its_blank_face_is_not_taken_for_clutter() -> None:
    hand = [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 27, 31, 31, 31]  # 123m456p789s11555z
    box, reject = [0.9] * len(hand), [0.01] * len(hand)
    box[0] = box[12] = WHITE_DRAGON_BOX_CHECK_BELOW + 0.05  # a blank face and a 1m alike
    r = _row([0.99] * len(hand), box, reject=reject, hand=hand)
    assert r.check == (0,)


def test_a_box_lying_mostly_inside_another_is_marked() -> None:
    xy = [[60 + 36 * k, 300, 60 + 36 * k + 34, 346] for k in range(len(HAND))]
    xy[6] = [60 + 36 * 5 + 14, 300, 60 + 36 * 5 + 48, 346]  # 20 of its 34 px on tile 5's box
    r = _row([0.99] * len(HAND), [0.9] * len(HAND), xy=xy)
    assert r.check == (5, 6) and not r.confident


def test_a_tile_cut_by_the_border_makes_the_photo_not_confident() -> None:
    r = _row([0.99] * len(HAND), x0=-10)
    assert "cut_by_border" in r.codes and not r.confident
    assert 0 in r.check


def test_no_tiles_is_never_confident() -> None:
    r = build_reading(Detections.empty(), None, None, (640, 480))
    assert not r.confident


def test_the_json_carries_the_flag_and_the_marks() -> None:
    p = [0.99] * len(HAND)
    p[3] = 0.5
    d = _row(p).to_dict()
    assert d["confident"] is False
    assert d["detections"]["check"] == [i == 3 for i in range(len(HAND))]


def test_each_marked_tile_says_why() -> None:
    p, box, reject = [0.99] * len(HAND), [0.9] * len(HAND), [0.01] * len(HAND)
    p[1] = CHECK_BELOW - 0.05
    box[4], reject[4] = 0.55, 0.3  # clutter
    r = _row(p, box, reject=reject, x0=-10)  # tile 0 cut by the border
    assert r.check == (0, 1, 4)
    assert [r.check_reasons[i] for i in r.check] == [("warned",), ("name",), ("clutter",)]
    d = r.to_dict()["detections"]
    assert d["check_reasons"][1] == ["name"] and d["check_reasons"][2] == []


def _with_box_across(straddler_score: float) -> Reading:
    """The hand's row read with a fifteenth box over its 4th and 5th tiles (0.53 of it in one,
    0.41 in the other) that the finder scored ``straddler_score`` (the tiles 0.8)."""
    from hupai.vision.namer import NAMER_CLASSES
    from hupai.vision.reading import tiles_of_names

    xy = [[60.0 + 36 * k, 300, 60 + 36 * k + 34, 346] for k in range(len(HAND))]
    det = Detections.make([*xy, [184.0, 300, 218, 346]], [0] * 15, [0.8] * 14 + [straddler_score])
    probs = np.full((15, len(NAMER_CLASSES)), 0.001)
    for i, c in enumerate([*HAND, 13]):
        probs[i, c] = 0.97
    names = tiles_of_names(probs / probs.sum(axis=1, keepdims=True), det)
    return build_reading(names.detections, None, 0.0, (800, 600), names=names)


def test_a_box_the_finder_put_across_two_tiles_goes_and_both_stay_marked() -> None:
    r = _with_box_across(0.5)
    assert len(r.detections) == 14 and r.check == (3, 4) and not r.confident
    assert r.check_reasons[3] == ("doubled",)
    assert rebuild(r, r.detections.class_id).check == (3, 4)  # named again by hand: still marked


def test_a_box_across_two_tiles_the_finder_scored_over_them_stays() -> None:
    r = _with_box_across(0.9)
    assert len(r.detections) == 15 and not r.confident


def _row_with_a_half_rejected_face(
    reject: float, found: float = 0.7, room_shown: bool = False
) -> Reading:
    """The hand's row, its 6th box taken for no tile at ``reject`` (the finder's ``found``),
    where the photo shows no tile in the room it leaves (as the namer's look at it would say)
    — or, ``room_shown``, does."""
    from hupai.vision.namer import NAMER_CLASSES, REJECT
    from hupai.vision.reading import tiles_of_names

    xy = [[60.0 + 36 * k, 300, 60 + 36 * k + 34, 346] for k in range(len(HAND))]
    det = Detections.make(xy, [0] * len(HAND), [0.8] * 5 + [found] + [0.8] * 8)
    probs = np.full((len(HAND), len(NAMER_CLASSES)), 0.001)
    for i, c in enumerate(HAND):
        probs[i, c] = 0.97
    probs[5, REJECT] = reject * probs[5].sum() / (1 - reject)
    names = tiles_of_names(probs / probs.sum(axis=1, keepdims=True), det)
    room = np.array([xy[5]]) if room_shown else np.zeros((0, 4))
    judge = lambda *_: room  # noqa: E731
    return build_reading(names.detections, None, 0.0, (800, 600), names=names, judge_gaps=judge)


def test_a_face_in_a_row_the_namer_half_rejects_is_a_gap() -> None:
    r = _row_with_a_half_rejected_face(0.6)
    assert len(r.detections) == 13 and not r.confident
    (gap,) = r.gaps
    assert abs(gap[0] - (60 + 36 * 5)) < 1


def test_a_half_rejected_face_in_a_room_the_photo_shows_is_one_gap() -> None:
    assert len(_row_with_a_half_rejected_face(0.6, room_shown=True).gaps) == 1


def test_a_box_the_namer_surely_rejects_leaves_no_gap() -> None:
    r = _row_with_a_half_rejected_face(0.95)
    assert len(r.detections) == 13 and len(r.gaps) == 0


def test_a_half_rejected_box_the_finder_doubted_leaves_no_gap() -> None:
    assert len(_row_with_a_half_rejected_face(0.6, found=0.4).gaps) == 0


def test_the_tiles_a_box_across_two_lay_across_stay_marked_through_the_labelling_manifest(
    tmp_path: Path,
) -> None:
    pytest.importorskip("onnx")
    import cv2
    from fake_models import fake_model, fake_namer

    from hupai.labeling.read import label_photo, reading_of
    from hupai.vision.classes import class_by_name
    from hupai.vision.detector import Detector
    from hupai.vision.namer import REJECT, Namer

    image = np.full((640, 640, 3), 255, np.uint8)
    boxes: list[tuple[float, ...]] = []
    for k in range(6):  # six dark tiles with a white mark, touching
        x0 = 100 + 62 * k
        image[300:380, x0 : x0 + 60] = (30, 30, 40)
        image[330:350, x0 + 20 : x0 + 40] = 255
        boxes.append((x0 + 30.0, 340.0, 60.0, 80.0, 0, 0.8))
    boxes.append((220.0, 340.0, 60.0, 80.0, 0, 0.5))  # 0.53 in the 2nd tile, 0.43 in the 3rd
    finder = Detector(fake_model(tmp_path, boxes, names=("tile",)))  # type: ignore[arg-type]
    namer = Namer(fake_namer(tmp_path, {class_by_name("1m"): 60.0, REJECT: 250.0}))
    cv2.imwrite(str(tmp_path / "row.png"), image)
    entry = label_photo(finder, "row.png", tmp_path / "row.png", namer=namer)
    back = reading_of(entry, "row.png")
    assert entry["frame"]["across"] == [1, 2]
    doubled = [i for i, why in enumerate(back.check_reasons) if "doubled" in why]
    assert len(back.detections) == 6 and doubled == [1, 2]
