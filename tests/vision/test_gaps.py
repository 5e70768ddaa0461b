"""A row with room for a tile that was not found is a ``gap``: never confident while open."""

from __future__ import annotations

import numpy as np
import pytest
from vision_scenes import Scene, hand_row

from hupai.vision.detections import Detections, box_iou
from hupai.vision.reading import build_reading

SIZE = (1400, 900)


def without(det: Detections, i: int) -> Detections:
    keep = np.arange(len(det)) != i
    return Detections(det.xyxy[keep], det.confidence[keep], det.class_id[keep])


def hand_with_win_apart() -> Scene:
    s = Scene()
    hand_row(s, "123m456m66789p11z", "5p")  # 13 tiles, then the winning tile apart
    return s


def test_a_complete_hand_with_its_winning_tile_apart_has_no_gap() -> None:
    reading = build_reading(hand_with_win_apart().detections(), None, None, SIZE)
    assert len(reading.gaps) == 0 and reading.confident


def test_melds_and_flowers_set_apart_are_no_gap() -> None:
    s = Scene()
    s.run("2f", -60, 0)
    x = hand_row(s, "234m66789p11z", "5p")
    s.run("777z", x + 30, 0, sideways={2})
    reading = build_reading(s.detections(), None, None, SIZE)
    assert len(reading.gaps) == 0


@pytest.mark.parametrize(("tilt", "shrink"), [(0.0, 0.0), (8.0, 0.0), (-5.0, 0.3)])
@pytest.mark.parametrize("missing", [1, 4, 7, 11])
def test_a_tile_missing_inside_the_hand_is_a_gap_where_it_lies(
    tilt: float, shrink: float, missing: int
) -> None:
    full = hand_with_win_apart().detections(tilt=tilt, shrink=shrink)
    reading = build_reading(without(full, missing), None, None, SIZE)
    assert [w.code for w in reading.warnings].count("gap") == 1
    assert not reading.confident
    (gap,) = reading.gaps
    assert box_iou(gap[None], full.xyxy[missing][None])[0, 0] > 0.5


def test_the_gap_is_in_the_readings_json() -> None:
    full = hand_with_win_apart().detections()
    data = build_reading(without(full, 5), None, None, SIZE).to_dict()
    assert len(data["gaps"]) == 1 and data["confident"] is False
    assert "gap" in [w["code"] for w in data["warnings"]]
