"""A row's room for a tile is a gap by what the photo shows there (:mod:`hupai.vision.rooms`):
a tile's face or a doubtful body, not a dark divider or the table."""

from __future__ import annotations

import cv2
import numpy as np
from vision_scenes import Scene, hand_row

from hupai.vision.detections import Detections, box_iou
from hupai.vision.reading import build_reading, rebuild
from hupai.vision.rooms import gap_judge

SIZE = (1400, 900)
IVORY, GREEN, DARK = (200, 225, 235), (60, 110, 40), (35, 35, 40)


def without(det: Detections, i: int) -> Detections:
    keep = np.arange(len(det)) != i
    return Detections(det.xyxy[keep], det.confidence[keep], det.class_id[keep])


def photo(tiles: Detections, divider: tuple[float, float] | None = None) -> np.ndarray:
    """A green table with ivory tiles, each with an ink mark; a dark strip at ``divider``
    (x from, to) across the row."""
    image = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)
    image[:] = GREEN
    for x1, y1, x2, y2 in tiles.xyxy.round().astype(int):
        cv2.rectangle(image, (x1 + 1, y1 + 1), (x2 - 1, y2 - 1), IVORY, -1)
        cv2.circle(image, ((x1 + x2) // 2, (y1 + y2) // 2), (x2 - x1) // 4, DARK, 2)
    if divider is not None:
        image[300:500, round(divider[0]) : round(divider[1])] = DARK
    return image


def hand() -> Detections:
    s = Scene()
    hand_row(s, "123m456m66789p11z", "5p")  # 13 tiles, then the winning tile apart
    return s.detections()


def read(det: Detections, image: np.ndarray, doubtful: np.ndarray | None = None):  # type: ignore[no-untyped-def]
    identity = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    body = np.zeros((0, 4)) if doubtful is None else doubtful
    return build_reading(det, None, None, SIZE, judge_gaps=gap_judge(image, identity, body))


def test_a_tile_left_unboxed_is_a_gap_where_it_lies() -> None:
    full = hand()
    reading = read(without(full, 6), photo(full))
    (gap,) = reading.gaps
    assert box_iou(gap[None], full.xyxy[6][None])[0, 0] > 0.5 and not reading.confident


def test_a_row_across_a_dark_divider_has_no_gap() -> None:
    full = hand()
    rest = without(full, 6)
    x1, _, x2, _ = full.xyxy[6]
    reading = read(rest, photo(rest, divider=(x1 + 2, x2 - 2)))
    assert len(reading.gaps) == 0 and reading.confident


def test_a_doubtful_body_on_bare_table_is_a_gap() -> None:
    full = hand()
    rest = without(full, 6)
    reading = read(rest, photo(rest), doubtful=full.xyxy[6][None])
    assert len(reading.gaps) == 1


def flowers_then_hand() -> Scene:
    s = Scene()
    s.run("12f", -62, 0)  # flowers in the row, touching the hand's first tile
    hand_row(s, "234m66789p11z", "5p")
    return s


def test_a_face_beside_a_flower_is_a_gap_though_the_boxes_alone_say_none() -> None:
    full = flowers_then_hand().detections()
    missing = 2  # the hand's first tile, beside a flower, goes unboxed
    rest = without(full, missing)
    assert len(build_reading(rest, None, None, SIZE).gaps) == 0  # the boxes alone
    reading = read(rest, photo(full))
    (gap,) = reading.gaps
    assert box_iou(gap[None], full.xyxy[missing][None])[0, 0] > 0.5


def test_a_meld_set_apart_on_bare_table_is_no_gap() -> None:
    s = Scene()
    x = hand_row(s, "234m66789p11z", "5p")
    s.run("777z", x + 45, 0, sideways={2})  # set apart by a tile and a half of table
    det = s.detections()
    assert len(read(det, photo(det)).gaps) == 0


def test_names_fixed_by_hand_keep_the_gaps_the_photo_showed() -> None:
    full = flowers_then_hand().detections()
    rest = without(full, 2)
    reading = read(rest, photo(full))
    fixed = rebuild(reading, rest.class_id)
    assert len(fixed.gaps) == 1 and np.array_equal(fixed.gaps, reading.gaps)


def test_a_doubted_second_look_at_a_found_tile_is_no_body() -> None:
    full = hand()
    rest = without(full, 6)
    x1, _, x2, _ = full.xyxy[6]
    over_two = np.array([[*full.xyxy[5][:2], *full.xyxy[6][2:]]])  # tile 5 and the room
    reading = read(rest, photo(rest, divider=(x1 + 2, x2 - 2)), doubtful=over_two)
    assert len(reading.gaps) == 0
