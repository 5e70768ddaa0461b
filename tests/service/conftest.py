"""Fixtures for the service tests: a fake reader (a fixed hand laid out as detections, read
by the real layout code), photos, and the app with the reader overridden."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from uvicorn_thread import free_port, live_server  # noqa: F401  (the tests import them from here)

from hupai.scoring.tiles import Tile, parse_tiles
from hupai.service.api import get_reader
from hupai.service.app import create_app
from hupai.service.settings import Settings
from hupai.vision.classes import class_of
from hupai.vision.detections import Detections
from hupai.vision.namer import REJECT
from hupai.vision.reading import NamedTiles, Reading, build_reading

#: A winning hand as the fake photo shows it: eleven concealed tiles, the winning 5p set apart,
#: and a pung of 7p claimed from across (its middle tile sideways).
HAND = "123m456m789p5p"
WIN = "5p"
PUNG = "7p"


def hand_detections(hand: str = HAND, win: str = WIN, pung: str = PUNG) -> Detections:
    xy: list[list[float]] = []
    cls: list[int] = []
    x = 40.0

    def put(tile: str, sideways: bool = False, gap: float = 0) -> None:
        nonlocal x
        x += gap
        if sideways:
            xy.append([x, 316, x + 56, 356])
            x += 58
        else:
            xy.append([x, 300, x + 40, 356])
            x += 42
        cls.append(class_of(Tile.parse(tile)))

    for t in parse_tiles(hand):
        put(str(t))
    if win:  # "": no tile set apart (the reading then assumes the last one)
        put(win, gap=24)
    put(pung, gap=60)
    put(pung, sideways=True)
    put(pung)
    return Detections.make(xy, cls, [0.9] * len(cls))


class FakeReader:
    """Reads every photo as the same hand (boxes scaled to the photo's size); a photo that
    is all black reads as no tiles."""

    def __init__(self, det: Detections | None = None) -> None:
        self.det = hand_detections() if det is None else det
        #: other names a namer would give some tiles (detection index → names), as it names
        #: every box: with any, the reading carries the namer's alternatives
        self.others: dict[int, list[str]] = {}
        self.calls = 0
        self.lock = threading.Lock()

    def info(self) -> dict[str, Any]:
        return {"name": "fake", "version": "0"}

    def read(self, image: Any, *, win_tile: Tile | None = None, source: str = "photo") -> Reading:
        with self.lock:
            self.calls += 1
        h, w = image.shape[:2]
        det = self.det if image.any() else Detections.make(np.zeros((0, 4)), [])
        scale = min(w / 1000, h / 600)
        scaled = Detections(det.xyxy * scale, det.confidence, det.class_id)
        names = named(scaled, self.others) if self.others and len(scaled) else None
        return build_reading(
            scaled, None, None, (w, h), win_tile=win_tile, source=source, names=names
        )


def named(det: Detections, others: dict[int, list[str]]) -> NamedTiles:
    """``det`` as a namer names them: each tile's chosen name first, then ``others``' names
    for it (the rest of its probability shared among them)."""
    alt = np.full((len(det), 3), REJECT, np.int64)
    alt_p = np.zeros((len(det), 3))
    for i, (c, p) in enumerate(zip(det.class_id, det.confidence, strict=True)):
        rest = [class_of(Tile.parse(t)) for t in others.get(i, [])][:2]
        alt[i, : 1 + len(rest)] = [int(c), *rest]
        alt_p[i, : 1 + len(rest)] = [p, *[(1 - p) / len(rest)] * len(rest)] if rest else [p]
    return NamedTiles(det, alt, alt_p)


def jpeg(width: int = 1000, height: int = 600, value: int = 128) -> bytes:
    image = np.full((height, width, 3), value, np.uint8)
    if value:
        cv2.rectangle(image, (10, 10), (width // 2, height // 2), (200, 220, 240), -1)
    ok, buf = cv2.imencode(".jpg", image)
    assert ok
    return bytes(buf)


@pytest.fixture
def fake_reader() -> FakeReader:
    return FakeReader()


@pytest.fixture
def settings(tmp_path: Any) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        model="does-not-matter.onnx",
        database_url=f"sqlite:///{tmp_path / 'tables.sqlite3'}",
    )


@pytest.fixture
def client(fake_reader: FakeReader, settings: Settings) -> Iterator[TestClient]:
    app = create_app(settings)
    app.dependency_overrides[get_reader] = lambda: fake_reader
    with TestClient(app, base_url="http://localhost", raise_server_exceptions=False) as c:
        yield c


@pytest.fixture
def photo() -> bytes:
    return jpeg()


def progressive_jpeg(width: int, height: int, extra_scans: int = 0) -> bytes:
    """A progressive JPEG (Pillow's ten scans) with ``extra_scans`` more: its smallest scan
    repeated before the end — the campaign's kind (issue #40: 6,000 scans cost 13.5 s of CPU
    in 243 KB; libjpeg decodes every one, warning of the bogus progression)."""
    import io
    import re

    from PIL import Image

    rng = np.random.default_rng(0)
    small = rng.integers(0, 255, (height // 64 + 1, width // 64 + 1, 3)).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(small).resize((width, height)).save(buf, "JPEG", progressive=True)
    data = buf.getvalue()
    scans = []
    for sos in re.finditer(rb"\xff\xda", data):
        start = sos.start()
        end = re.compile(rb"\xff[^\x00\xd0-\xd7]").search(data, start + 2)
        assert end is not None
        scans.append(data[start : end.start()])
    smallest = min(scans, key=len)
    return data[:-2] + smallest * extra_scans + data[-2:]
