"""``hupai label`` on a folder of odd photos, with the shipped models: a photo in which no tile
is found must not stop the batch (it did: rebuilding its reading reshaped an empty list of
alternatives). Each photo ends labelled or reported; the exit status is 1 when one could not
be read.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from hupai.labeling import reading_of

TESTS = Path(__file__).resolve().parents[1]
HAND = TESTS / "vision" / "fixtures" / "real" / "row14a.jpg"  # credited Roboflow photo
FLOWER_SVG = TESTS.parent / "service" / "static" / "tiles" / "1f.svg"  # samoheen, CC0


def test_a_reading_with_no_tiles_and_a_namers_alternatives_rebuilds() -> None:
    entry = {
        "frame": {
            "xyxy": [],
            "class_id": [],
            "confidence": [],
            "alternatives": [],
            "alternative_probs": [],
        },
        "to_image": [[1, 0, 0], [0, 1, 0]],
        "angle": 0.0,
        "width": 640,
        "height": 480,
    }
    reading = reading_of(entry, "blank.png")
    assert len(reading.detections) == 0
    assert "no_tiles" in reading.codes


def _wood(h: int, w: int) -> np.ndarray:
    from hupai.datasets.synth.surfaces import wood

    return np.clip(wood(np.random.default_rng(3), h, w), 0, 255).astype(np.uint8)


def _odd_photos(folder: Path) -> Path:
    import cv2
    import resvg_py

    folder.mkdir()
    shutil.copy(HAND, folder / "hand.jpg")
    cv2.imwrite(str(folder / "blank.png"), np.full((600, 800, 3), 255, np.uint8))
    cv2.imwrite(str(folder / "table.jpg"), _wood(480, 640))
    png = bytes(resvg_py.svg_to_bytes(svg_string=FLOWER_SVG.read_text(), height=160))
    tile = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    table = _wood(480, 640)
    alpha = tile[:, :, 3:4] / 255.0
    y, x = 160, 280
    region = table[y : y + tile.shape[0], x : x + tile.shape[1]]
    region[:] = (region * (1 - alpha) + tile[:, :, :3] * alpha).astype(np.uint8)
    cv2.imwrite(str(folder / "flower.jpg"), table)
    (folder / "notes.jpg").write_text("not a photo: the score sheet of the evening\n")
    return folder


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    from hupai.cli import main

    root = tmp_path_factory.mktemp("odd")
    photos = _odd_photos(root / "photos")
    out = root / "out"
    rc = main(["label", str(photos), "--out", str(out), "--workers", "1", "--quiet"])
    report = json.loads((out / "report.json").read_text())
    return {"rc": rc, "out": out, "report": report}


def test_the_batch_goes_on_past_odd_photos(run: dict[str, object]) -> None:
    report = run["report"]
    assert isinstance(report, dict)
    assert report["labelled"] == 4  # hand, blank, table, flower
    assert [f["photo"] for f in report["failed"]] == ["notes.jpg"]


def test_exit_status_says_a_photo_could_not_be_read(run: dict[str, object]) -> None:
    assert run["rc"] == 1


def test_the_real_hand_is_labelled(run: dict[str, object]) -> None:
    out = run["out"]
    assert isinstance(out, Path)
    assert len((out / "labels" / "hand.txt").read_text().splitlines()) >= 12


def test_a_blank_photo_gets_an_empty_label_and_is_listed(run: dict[str, object]) -> None:
    out, report = run["out"], run["report"]
    assert isinstance(out, Path) and isinstance(report, dict)
    assert (out / "labels" / "blank.txt").read_text() == ""
    assert "blank.png" in report["no_tiles"]
