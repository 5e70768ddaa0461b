"""A row's room for a tile is a gap by what the photo shows there (:mod:`hupai.vision.rooms`):
a tile's face or a doubtful body, not a dark divider or the table."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from vision_scenes import Scene, hand_row

from hupai.vision.detections import Detections, box_iou
from hupai.vision.reading import build_reading, rebuild
from hupai.vision.rooms import gap_judge, room_tiles

SIZE = (1400, 900)
IDENTITY = np.array([[1.0, 0, 0], [0, 1.0, 0]])
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


def test_a_meld_tile_left_unboxed_beside_the_space_setting_it_apart_is_a_gap() -> None:
    """The room is the space that sets the meld apart and the missing tile together: the tile
    lies against the meld, not midway, and is looked for there."""
    s = Scene()
    x = hand_row(s, "234m66789p11z", "5p")
    s.run("777z", x + 45, 0, sideways={2})
    full = s.detections()
    first = len(full) - 3  # the meld's first tile goes unboxed
    (gap,) = read(without(full, first), photo(full)).gaps
    assert box_iou(gap[None], full.xyxy[first][None])[0, 0] > 0.5


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


# -- the namer's look (rooms judged as the product reads: a namer at hand) ---------------------


def looking(reject: float, seen: list[int] | None = None):  # type: ignore[no-untyped-def]
    """A namer's look that takes every room for ``reject`` "not a tile" (and counts them)."""

    def look(xyxy: np.ndarray) -> np.ndarray:
        if seen is not None:
            seen.append(len(xyxy))
        return np.full(len(xyxy), reject)

    return look


def read_looked(det: Detections, image: np.ndarray, look, doubtful=None):  # type: ignore[no-untyped-def]
    identity = np.array([[1.0, 0, 0], [0, 1.0, 0]])
    body = np.zeros((0, 4)) if doubtful is None else doubtful
    judge = gap_judge(image, identity, body, look)
    return build_reading(det, None, None, SIZE, judge_gaps=judge)


def test_a_room_on_a_table_as_light_as_the_faces_is_no_gap_when_the_namer_sees_no_tile() -> None:
    full = hand()
    rest = without(full, 6)
    bare = photo(rest)
    bare[:] = IVORY  # the table: the faces' own colour
    photo_tiles = photo(rest)
    bare[photo_tiles != GREEN] = photo_tiles[photo_tiles != GREEN]
    assert len(read(rest, bare).gaps) == 1  # the colour cannot tell
    assert len(read_looked(rest, bare, looking(0.9)).gaps) == 0


def test_a_room_the_namer_takes_for_a_tile_is_a_gap_whatever_its_colour() -> None:
    full = hand()
    rest = without(full, 6)
    x1, _, x2, _ = full.xyxy[6]
    image = photo(rest, divider=(x1 + 2, x2 - 2))  # dark there: the colour says no tile
    (gap,) = read_looked(rest, image, looking(0.1)).gaps
    assert box_iou(gap[None], full.xyxy[6][None])[0, 0] > 0.5


def test_the_namer_looks_between_neighbours_of_unlike_heights() -> None:
    full = hand()
    taller = full.xyxy.copy()
    taller[7, 3] += 0.35 * (taller[7, 3] - taller[7, 1])  # tile 7 boxed a third taller
    rest = without(Detections(taller, full.confidence, full.class_id), 6)
    image = photo(full)
    assert len(read(rest, image).gaps) == 0  # the colour judges only neighbours alike
    assert len(read_looked(rest, image, looking(0.1)).gaps) == 1


def test_the_namer_looks_at_no_room_a_found_tile_fills() -> None:
    seen: list[int] = []
    full = hand()
    assert len(read_looked(full, photo(full), looking(0.1, seen)).gaps) == 0
    assert sum(seen) == 0


def _white_table_row(show_missing: bool) -> tuple[np.ndarray, list[tuple[float, ...]]]:
    """Six dark-red tiles with a white mark on a white table (their face colour, to the colour
    check, is the table's); the finder boxes all but the fourth, shown or bare table."""
    img = np.full((640, 640, 3), 255, np.uint8)
    boxes = []
    for k in range(6):
        x0 = 100 + 62 * k
        if k != 3 or show_missing:
            img[300:380, x0 : x0 + 60] = (30, 30, 40)
            img[330:350, x0 + 20 : x0 + 40] = 255
        if k != 3:
            boxes.append((x0 + 30.0, 340.0, 60.0, 80.0, 0, 0.8))
    return img, boxes


@pytest.mark.parametrize(("shown", "tiles"), [(True, 6), (False, 5)])
def test_a_photo_read_with_a_namer_asks_it_whether_a_room_holds_a_tile(
    tmp_path: Path, shown: bool, tiles: int
) -> None:
    pytest.importorskip("onnx")
    from fake_models import fake_model, fake_namer

    from hupai.vision.classes import class_by_name
    from hupai.vision.detector import Detector
    from hupai.vision.namer import REJECT, Namer
    from hupai.vision.reading import read_image

    image, boxes = _white_table_row(shown)
    finder = Detector(fake_model(tmp_path, boxes, names=("tile",)))  # type: ignore[arg-type]
    namer = Namer(fake_namer(tmp_path, {class_by_name("1m"): 60.0, REJECT: 250.0}))
    reading = read_image(image, detector=finder, namer=namer)
    # a room shown holding a tile is read (and marked); a bare one is no gap
    assert len(reading.detections) == tiles and len(reading.gaps) == 0
    assert ("tile_in_room" in {w.code for w in reading.warnings}) == shown


def test_a_labelled_photo_read_back_keeps_the_gaps_its_photo_showed(tmp_path: Path) -> None:
    pytest.importorskip("onnx")
    from fake_models import fake_model, fake_namer

    from hupai.labeling.read import label_photo, reading_of
    from hupai.vision.classes import class_by_name
    from hupai.vision.detector import Detector
    from hupai.vision.namer import REJECT, Namer

    image, boxes = _white_table_row(False)  # the boxes alone see a gap; the photo shows none
    photo_file = tmp_path / "row.png"
    cv2.imwrite(str(photo_file), image)
    finder = Detector(fake_model(tmp_path, boxes, names=("tile",)))  # type: ignore[arg-type]
    namer = Namer(fake_namer(tmp_path, {class_by_name("1m"): 60.0, REJECT: 250.0}))
    entry = label_photo(finder, "row.png", photo_file, namer=namer)
    assert entry["gaps"] == [] and len(reading_of(entry, "row.png").gaps) == 0


def beyond_the_row(full: Detections, scale: float = 1.0) -> np.ndarray:
    """A doubtful body two tiles beyond the hand's right end (no row has room there)."""
    x1, y1, x2, y2 = full.xyxy[full.xyxy[:, 2].argmax()]
    w, h = (x2 - x1) * scale, (y2 - y1) * scale
    return np.array([[x2 + 2 * w, y1, x2 + 3 * w, y1 + h]])


def test_a_body_beyond_the_row_the_namer_is_sure_of_is_a_gap() -> None:
    full = hand()
    body = beyond_the_row(full)
    (gap,) = read_looked(full, photo(full), looking(0.001), body).gaps
    assert box_iou(gap[None], body)[0, 0] > 0.5


def test_a_body_the_namer_doubts_is_no_gap() -> None:
    full = hand()
    reading = read_looked(full, photo(full), looking(0.2), beyond_the_row(full))
    assert len(reading.gaps) == 0 and reading.confident


def test_a_body_twice_a_tiles_size_is_no_gap() -> None:
    full = hand()
    assert len(read_looked(full, photo(full), looking(0.001), beyond_the_row(full, 2)).gaps) == 0


def test_a_body_is_judged_only_where_a_namer_looks() -> None:
    full = hand()
    assert len(read(full, photo(full), doubtful=beyond_the_row(full)).gaps) == 0


def test_a_body_seen_by_two_passes_is_one_gap() -> None:
    full = hand()
    body = beyond_the_row(full)
    twice = np.concatenate([body, body + np.array([2.0, 1, 2, 1])])
    assert len(read_looked(full, photo(full), looking(0.001), twice).gaps) == 1


def before_the_row(full: Detections, across: float = 0.0) -> np.ndarray:
    """A doubtful body where the row's next tile would lie before its left end (``across``:
    moved that many tile heights off the row's line)."""
    x1, y1, x2, y2 = full.xyxy[full.xyxy[:, 0].argmin()]
    pitch = float(np.median(np.diff(np.sort(full.xyxy[:, 0]))))
    dy = across * (y2 - y1)
    return np.array([[x1 - pitch, y1 + dy, x2 - pitch, y2 + dy]])


def test_a_body_where_the_rows_next_tile_would_lie_is_a_gap_if_the_namer_sees_a_tile() -> None:
    full = hand()
    body = before_the_row(full)
    (gap,) = read_looked(full, photo(full), looking(0.2), body).gaps  # not sure: 0.2
    assert box_iou(gap[None], body)[0, 0] > 0.5


def test_a_body_at_the_rows_end_the_namer_takes_for_no_tile_is_no_gap() -> None:
    full = hand()
    reading = read_looked(full, photo(full), looking(0.7), before_the_row(full))
    assert len(reading.gaps) == 0 and reading.confident


def test_a_body_beside_the_rows_end_but_off_its_line_is_no_gap() -> None:
    full = hand()
    reading = read_looked(full, photo(full), looking(0.2), before_the_row(full, across=0.8))
    assert len(reading.gaps) == 0 and reading.confident


# -- reading a tile in a row's room (read_in_rooms) -----------------------------------------


def _doubted(xyxy: np.ndarray, score: float) -> Detections:
    return Detections(np.asarray(xyxy, np.float64).reshape(-1, 4), np.full(len(xyxy), score),
                      np.zeros(len(xyxy), np.int64))  # fmt: skip


def test_the_body_in_a_rows_room_is_what_is_read_there() -> None:
    full = hand()
    rest = without(full, 6)
    image = photo(full)
    layout = read_looked(rest, image, looking(0.1)).layout
    body = _doubted(full.xyxy[6][None] + [2, 1, 2, 1], 0.2)
    tiles = room_tiles(image, rest, layout, IDENTITY, body, looking(0.1))
    assert len(tiles) == 1 and tiles.body[0] and tiles.score[0] == 0.2
    assert np.allclose(tiles.xyxy[0], body.xyxy[0])


def test_a_room_with_no_body_is_read_as_the_room() -> None:
    full = hand()
    rest = without(full, 6)
    image = photo(full)
    layout = read_looked(rest, image, looking(0.1)).layout
    tiles = room_tiles(image, rest, layout, IDENTITY, _doubted(np.zeros((0, 4)), 0.2), looking(0.1))
    assert len(tiles) == 1 and not tiles.body[0] and tiles.score[0] == 0.0
    assert box_iou(tiles.xyxy, full.xyxy[6][None])[0, 0] > 0.5


def test_the_body_where_the_rows_next_tile_would_lie_is_read() -> None:
    full = hand()
    image = photo(full)
    layout = read_looked(full, image, looking(0.2)).layout
    body = _doubted(before_the_row(full), 0.25)
    tiles = room_tiles(image, full, layout, IDENTITY, body, looking(0.2))
    assert len(tiles) == 1 and tiles.body[0] and tiles.score[0] == 0.25
    assert np.allclose(tiles.xyxy[0], body.xyxy[0])


def test_a_room_the_photos_border_cuts_is_not_read() -> None:
    full = hand()
    full = Detections(full.xyxy - [0, full.xyxy[:, 1].min(), 0, full.xyxy[:, 1].min()],
                      full.confidence, full.class_id)  # fmt: skip  # the row along the top
    rest = without(full, 6)
    image = photo(full)
    layout = read_looked(rest, image, looking(0.1)).layout
    body = _doubted(full.xyxy[6][None], 0.2)
    assert len(room_tiles(image, rest, layout, IDENTITY, body, looking(0.1))) == 0


def _finder_and_namer(tmp_path: Path, boxes: list[tuple[float, ...]], palette: dict[str, float]):  # type: ignore[no-untyped-def]
    pytest.importorskip("onnx")
    from fake_models import fake_model, fake_namer

    from hupai.vision.classes import class_by_name
    from hupai.vision.detector import Detector
    from hupai.vision.namer import REJECT, Namer

    ids = {k: REJECT if k == "reject" else class_by_name(k) for k in palette}
    finder = Detector(fake_model(tmp_path, boxes, names=("tile",)))  # type: ignore[arg-type]
    return finder, Namer(fake_namer(tmp_path, {ids[k]: v for k, v in palette.items()}))


def test_a_tile_the_finder_doubted_in_a_rows_room_is_read_and_marked_for_a_check(
    tmp_path: Path,
) -> None:
    from hupai.vision.reading import read_image

    image, boxes = _white_table_row(True)
    boxes.append((100 + 62 * 3 + 30.0, 340.0, 60.0, 80.0, 0, 0.08))  # scored under the cut
    finder, namer = _finder_and_namer(tmp_path, boxes, {"1m": 60.0, "reject": 250.0})
    reading = read_image(image, detector=finder, namer=namer)
    (warning,) = [w for w in reading.warnings if w.code == "tile_in_room"]
    (i,) = warning.tiles
    assert len(reading.detections) == 6 and len(reading.gaps) == 0
    assert abs(reading.detections.xyxy[i, 0] - (100 + 62 * 3)) < 3
    assert i in reading.check and not reading.confident


@pytest.mark.parametrize("bare", ["5z", "back"])  # a blank white dragon, a tile's back
def test_a_bare_room_the_namer_calls_a_blank_face_or_a_back_stays_a_gap(
    tmp_path: Path, bare: str
) -> None:
    from hupai.vision.reading import read_image

    image, boxes = _white_table_row(False)  # the room: white table, no body
    palette = {"1m": 60.0, bare: 250.0, "reject": 150.0}
    finder, namer = _finder_and_namer(tmp_path, boxes, palette)
    reading = read_image(image, detector=finder, namer=namer)
    assert len(reading.detections) == 5 and len(reading.gaps) == 1
    assert "tile_in_room" not in {w.code for w in reading.warnings}


def test_a_tile_read_in_a_room_keeps_its_mark_through_the_labelling_manifest(
    tmp_path: Path,
) -> None:
    from hupai.labeling.read import label_photo, reading_of

    image, boxes = _white_table_row(True)
    boxes.append((100 + 62 * 3 + 30.0, 340.0, 60.0, 80.0, 0, 0.08))
    finder, namer = _finder_and_namer(tmp_path, boxes, {"1m": 60.0, "reject": 250.0})
    photo_file = tmp_path / "row.png"
    cv2.imwrite(str(photo_file), image)
    entry = label_photo(finder, "row.png", photo_file, namer=namer)
    back = reading_of(entry, "row.png")
    assert len(back.detections) == 6 and not back.confident
    assert [w.tiles for w in back.warnings if w.code == "tile_in_room"] == [
        tuple(entry["frame"]["in_room"])
    ]
