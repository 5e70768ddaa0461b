"""``Reading.confident``: true only when no tile needs a check and no warning doubts a tile;
each tile that needs a check is marked (``check``; ``detections.check`` in the JSON)."""

from __future__ import annotations

import numpy as np

from hupai.vision.checks import BOX_CHECK_BELOW, CHECK_BELOW
from hupai.vision.detections import Detections
from hupai.vision.reading import NamedTiles, Reading, build_reading

HAND = [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 27, 28, 28, 28]  # 123m456p789s11222z


def _row(names_p: list[float], box_p: list[float] | None = None, x0: float = 60) -> Reading:
    xy = [[x0 + 36 * k, 300, x0 + 36 * k + 34, 346] for k in range(len(HAND))]
    det = Detections.make(xy, HAND, names_p)
    alt = np.array([[c, 0, 0] for c in HAND], np.int64)
    alt_p = np.array([[p, (1 - p) / 2, (1 - p) / 2] for p in names_p])
    boxes = None if box_p is None else np.array(box_p)
    return build_reading(det, None, 0.0, (800, 600), names=NamedTiles(det, alt, alt_p, boxes))


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
