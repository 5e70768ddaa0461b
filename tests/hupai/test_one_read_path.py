"""Every command reads a photo the one way (:mod:`hupai.vision.photo_read`): ``hupai read``,
``hupai score --photo``, ``hupai table add --photo``, ``hupai label``, ``hupai eval``, the
service and the Label Studio backend — a reduced decode first, the reading in the photo's
own pixels.

The detector is a tiny ONNX model that always outputs the same 14 boxes (a winning hand,
123m456p789s11222z with the 2z set apart); the photo is a real JPEG of 2560×1920 (5 MP: over
the first decode's 4-MP budget, so that it is first decoded at 1/2).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from hupai.cli import main
from hupai.vision import photo_read

pytest.importorskip("onnx")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))  # the fake models
from fake_models import fake_model

CLASSES = [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 27, 28, 28]
BOXES = [(60 + 36 * k, 320, 34, 46, c, 0.9) for k, c in enumerate(CLASSES)]
BOXES.append((60 + 36 * 13 + 14, 320, 34, 46, 28, 0.9))
SIZE = (2560, 1920)
HALF = (960, 1280)  # (height, width) of the first decode


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fake_model(tmp_path_factory.mktemp("model"), BOXES)


@pytest.fixture(scope="module")
def photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from PIL import Image

    path = tmp_path_factory.mktemp("photos") / "hand.jpg"
    Image.new("RGB", SIZE, (30, 120, 60)).save(path, quality=80)
    return path


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    """The shapes of the images read through :func:`read_photo_data`, in order."""
    real = photo_read.read_photo_data
    seen: list[tuple[int, ...]] = []

    def spy(data: bytes, read: Any, max_pixels: int = photo_read.MAX_PIXELS) -> Any:
        def recorded(image: Any) -> Any:
            seen.append(image.shape[:2])
            return read(image)

        return real(data, recorded, max_pixels)

    monkeypatch.setattr(photo_read, "read_photo_data", spy)
    return seen


def test_hupai_read(model: Path, photo: Path, reads: list[Any], capsys: Any) -> None:
    assert main(["read", str(photo), "--json", "--model", str(model), "--no-namer"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert reads == [HALF]
    assert data["hand"] == "123m456p789s11222z"
    assert data["size"] == list(SIZE)  # the photo's own pixels


def test_hupai_read_annotates_the_image_it_read(
    model: Path, photo: Path, reads: list[Any], tmp_path: Path
) -> None:
    import cv2

    out = tmp_path / "drawn.jpg"
    args = ["read", str(photo), "--model", str(model), "--no-namer", "--annotate", str(out)]
    assert main(args) == 0
    assert reads == [HALF] and cv2.imread(str(out)).shape[:2] == HALF


def test_hupai_score_photo(model: Path, photo: Path, reads: list[Any], capsys: Any) -> None:
    args = ["score", "--photo", str(photo), "--city", "shaanxi", "--winner", "0"]
    main([*args, "--win", "self_draw", "--model", str(model), "--no-namer"])
    assert reads == [HALF]


def test_hupai_table_add_photo(
    model: Path, photo: Path, reads: list[Any], tmp_path: Path, capsys: Any
) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 't.sqlite3'}"]
    assert main(["table", "new", *db, "--city", "shaanxi", "--players", "A", "B", "C", "D"]) == 0
    token = next(w for w in capsys.readouterr().out.split() if len(w) > 16)
    main(["table", "add", *db, token, "--photo", str(photo), "--winner", "0", "--win",
          "self_draw", "--model", str(model), "--no-namer"])  # fmt: skip
    assert reads == [HALF]


def test_hupai_label(model: Path, photo: Path, reads: list[Any], tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["label", str(photo.parent), "--out", str(out), "--model", str(model), "--workers"]
    assert main([*args, "1", "--no-namer", "--quiet"]) == 0
    assert reads == [HALF]
    row = json.loads((out / "readings.jsonl").read_text().splitlines()[0])
    assert row["size"] == list(SIZE)


def test_hupai_eval(model: Path, photo: Path, reads: list[Any], tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "set"
    (root / "images" / "test").mkdir(parents=True)
    (root / "labels" / "test").mkdir(parents=True)
    shutil.copy(photo, root / "images" / "test" / "a.jpg")
    (root / "labels" / "test" / "a.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    assert main(["eval", str(root), "--model", str(model), "--no-namer"]) == 0
    assert reads == [HALF]


def test_the_service(model: Path, photo: Path, reads: list[Any], tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from hupai.service.app import create_app
    from hupai.service.settings import Settings

    database = f"sqlite:///{tmp_path / 's.sqlite3'}"
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, model=str(model), namer=None, database_url=database
    )
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        files = {"photo": ("hand.jpg", photo.read_bytes(), "image/jpeg")}
        response = client.post("/v1/read", files=files)
    assert response.status_code == 200, response.text
    assert reads == [HALF]
    assert response.json()["reading"]["size"] == list(SIZE)  # the photo's own pixels


def test_the_label_studio_backend(model: Path, photo: Path, reads: list[Any]) -> None:
    from hupai.labeling.backend_app import Reader
    from hupai.vision.detector import Detector

    reader = Reader.__new__(Reader)  # the fake detector names the tiles: no namer
    reader.detector, reader.namer = Detector(model), None
    reader.read_timeout = 60.0  # the backend's per-task deadline (issue #40)
    reading = reader.read(photo.read_bytes(), "hand.jpg")
    assert reads == [HALF]
    assert (reading.width, reading.height) == SIZE
