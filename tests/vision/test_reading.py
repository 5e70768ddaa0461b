"""Photo → Reading: structure, request fields, warnings; the detection passes with a stand-in
detector that knows where the tiles are."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from vision_scenes import Scene, hand_row

from hupai.vision.detections import Detections
from hupai.vision.reading import WARNING_CODES, build_reading, read_image

SIZE = (1200, 900)


def read(scene: Scene, **kw: object):
    det = scene.detections(**kw)  # type: ignore[arg-type]
    return build_reading(det, None, None, SIZE)


def test_hand_with_melds_flowers_and_indicator_to_request_fields() -> None:
    s = Scene()
    x = s.run("2f", -60, 0)
    x = hand_row(s, "234m66789p11z", "5p")
    s.run("777z", x + 30, 0, sideways={2})
    s.run("3s", 120, -100)
    r = read(s)
    assert r.warnings == ()
    assert r.to_request_fields() == {
        "hand": "234m566789p11z",
        "win_tile": "5p",
        "melds": [{"kind": "pung", "tiles": "777z"}],
        "flowers": "2f",
        "indicator": "3s",
    }
    # the sideways tile at the right: called from the next seat
    assert r.to_request_fields(winner=0)["melds"][0]["from"] == 1
    assert r.win_tile_set_apart


def test_fishing_tiles_when_several() -> None:
    s = Scene()
    hand_row(s, "123m456p789s1122z", "2z")
    s.run("1m6s", 100, -100)
    assert read(s).indicator_or_fishing() == {"fishing": "1m6s"}


def test_concealed_kong_counts_four_of_its_face() -> None:
    s = Scene()
    x = hand_row(s, "123m456p1122z", "2z")
    s.run("X44sX", x + 30, 0)
    r = read(s)
    assert [(m.kind, m.notation) for m in r.melds] == [("concealed_kong", "4444s")]
    assert "tile_count" not in r.codes


def test_a_tile_set_apart_in_the_row_of_a_pung_of_its_kind_doubts_the_reading() -> None:
    """An exposed kong whose fourth tile lies a little off (the camerash composites: read as a
    pung and a fishing tile, and scored so, confidently)."""
    s = Scene()
    hand_row(s, "123m456p789s2z", "2z")
    x = s.run("6z", 0, -100)
    s.run("666z", x + 22, -100, sideways={0})
    r = read(s)
    assert [(m.kind, m.notation) for m in r.melds] == [("pung", "666z")]
    (warning,) = [w for w in r.warnings if w.code == "kong_or_apart"]
    assert len(warning.tiles) == 4 and not r.confident


def test_a_tile_set_apart_beside_a_pung_of_another_kind_is_no_doubt() -> None:
    s = Scene()
    hand_row(s, "123m456p789s2z", "2z")
    x = s.run("5s", 0, -100)
    s.run("666z", x + 22, -100, sideways={0})
    r = read(s)
    assert "kong_or_apart" not in r.codes and r.confident


def test_warnings_tile_count_and_win_tile_assumed() -> None:
    s = Scene()
    s.run("123m456p789s112z", 0, 0)
    r = read(s)
    assert r.codes == ["win_tile_assumed", "tile_count"]
    assert str(r.win_tile) == "2z"


def test_warning_too_many_copies() -> None:
    s = Scene()
    hand_row(s, "11111m456p789s2z", "2z")
    assert "too_many_copies" in read(s).codes


def test_a_fifth_copy_among_tiles_that_fit_no_part_of_the_hand_is_warned_of() -> None:
    s = Scene()
    hand_row(s, "1111m456p789s22z", "2z")
    s.run("1m2m3m4m5m", 100, 300)  # a row far below: tiles that fit no part of the hand
    s.run("9s9s9s", 700, 300)
    r = read(s)
    assert "unplaced_tiles" in r.codes and "too_many_copies" in r.codes and not r.confident


def test_warning_low_confidence_and_advice() -> None:
    s = Scene()
    hand_row(s, "123m456p789s1122z", "2z")
    r = read(s, confidence=0.3)
    (w,) = [w for w in r.warnings if w.code == "low_confidence"]
    assert len(w.tiles) == 14 and "reshoot" in w.advice


def test_warning_cut_by_border() -> None:
    s = Scene()
    hand_row(s, "123m456p789s1122z", "2z")
    r = read(s, origin=(-5.0, 400.0))
    assert "cut_by_border" in r.codes


def test_concealed_kong_all_face_down_is_unknown() -> None:
    s = Scene()
    x = hand_row(s, "123m456p1122z", "2z")
    s.run("XXXX", x + 30, 0)
    assert "concealed_kong_unknown" in read(s).codes


def test_given_winning_tile() -> None:
    s = Scene()
    s.run("123m456p789s11222z", 0, 0)
    det = s.detections()
    r = build_reading(det, None, None, SIZE, win_tile="5m")
    assert "win_tile_not_in_hand" in r.codes
    r = build_reading(det, None, None, SIZE, win_tile="1z")
    assert str(r.win_tile) == "1z" and r.codes == []


def test_every_warning_code_has_advice() -> None:
    assert all(advice.endswith(".") for advice in WARNING_CODES.values())


class StandIn:
    """A detector that sees exactly the scene's tiles, wherever the image is warped to."""

    input_size = (640, 640)
    manifest = SimpleNamespace(pad_value=114)
    is_finder = False

    def __init__(self, det: Detections) -> None:
        self.det = det
        self.calls: list[str] = []

    def detect(self, image: np.ndarray, conf: float | None = None) -> Detections:
        self.calls.append("detect")
        return self.det

    def detect_tiled(self, image: np.ndarray, window: int, overlap: float = 0.25) -> Detections:
        self.calls.append("tiled")
        return self.det

    def detect_warped(self, image: np.ndarray, m: np.ndarray, size: tuple[int, int]) -> Detections:
        self.calls.append("warped")
        # the tile rectangles turned level: warp the centres, keep the tiles' own sizes
        c = self.det.centres @ m[:, :2].T + m[:, 2]
        zoom = math.sqrt(abs(np.linalg.det(m[:, :2])))
        sizes = self.level_sizes * zoom
        return Detections.make(
            np.hstack([c - sizes / 2, c + sizes / 2]), self.det.class_id, self.det.confidence
        )


def test_tilted_photo_is_read_again_level() -> None:
    s = Scene()
    x = hand_row(s, "234m66789p", "5p")
    s.run("777z", x + 30, 0, sideways={2})
    det = s.detections(tilt=30)
    stand_in = StandIn(det)
    stand_in.level_sizes = s.detections().wh  # type: ignore[attr-defined]
    r = read_image(np.zeros((900, 1200, 3), np.uint8), detector=stand_in)  # type: ignore[arg-type]
    assert stand_in.calls == ["detect", "warped"]
    assert r.passes[1].startswith("level +3")
    assert [m.kind for m in r.melds] == ["pung"] and str(r.win_tile) == "5p"
    # boxes come back in photo pixels
    assert np.allclose(np.sort(r.detections.centres[:, 0]), np.sort(det.centres[:, 0]), atol=1)


def test_real_photo_labels_read_as_one_hand_row() -> None:
    """Boxes of a committed real photo (a row of 13 tiles and a flower): one row, no meld."""
    rows = np.loadtxt(Path(__file__).parent / "fixtures" / "real" / "row14a.txt", ndmin=2)
    xy = (
        np.stack(
            [
                rows[:, 1] - rows[:, 3] / 2,
                rows[:, 2] - rows[:, 4] / 2,
                rows[:, 1] + rows[:, 3] / 2,
                rows[:, 2] + rows[:, 4] / 2,
            ],
            axis=1,
        )
        * 640
    )
    r = build_reading(Detections.make(xy, rows[:, 0].astype(int)), None, None, (640, 640))
    assert len(r.layout.rows) == 1
    assert len(r.hand) == 13 and r.melds == () and [str(t) for t in r.flowers] == ["3f"]


@pytest.mark.parametrize("name", ["row14a", "row14b"])
def test_real_photo_with_the_shipped_models(name: str) -> None:
    """The shipped finder and namer read every tile of the committed real photos (with the
    detector alone, 12 and 11 of 14)."""
    from hupai.vision.reading import default_namer, read_photo

    if default_namer() is None:
        pytest.skip("no shipped namer")
    fixtures = Path(__file__).parent / "fixtures" / "real"
    r = read_photo(fixtures / f"{name}.jpg")
    truth = sorted(np.loadtxt(fixtures / f"{name}.txt", ndmin=2)[:, 0].astype(int).tolist())
    assert sorted(r.detections.class_id.tolist()) == truth


def test_a_read_past_its_budget_stops_between_passes() -> None:
    from hupai.vision.reading import ReadTimeout, read_deadline

    s = Scene()
    x = hand_row(s, "234m66789p", "5p")
    s.run("777z", x + 30, 0, sideways={2})
    stand_in = StandIn(s.detections(tilt=30))
    stand_in.level_sizes = s.detections().wh  # type: ignore[attr-defined]
    image = np.zeros((900, 1200, 3), np.uint8)
    with read_deadline(0.0), pytest.raises(ReadTimeout, match="longer than 0 s") as caught:
        read_image(image, detector=stand_in)  # type: ignore[arg-type]
    assert caught.value.stage == "the first look" and stand_in.calls == []
    with read_deadline(60):  # a budget it keeps: the same read as without one
        assert read_image(image, detector=stand_in).passes[1].startswith("level")  # type: ignore[arg-type]
