"""End to end: `hupai serve` (uvicorn, the shipped model) on loopback, real photos posted over
HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np
import pytest

from conftest import free_port
from hupai.vision.classes import CLASS_NAMES
from hupai.vision.detector import shipped_file

MODEL, NAMER = shipped_file("finder"), shipped_file("namer")
PHOTOS = Path(__file__).parents[1] / "vision" / "fixtures" / "real"
if MODEL is None or NAMER is None or not MODEL.is_file():
    pytest.skip("models/reader.json names no shipped pair", allow_module_level=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "hupai", "serve", "--port", str(port), "--threads", "1"],
            stdout=out,
            stderr=subprocess.STDOUT,
            # short deadlines, so that the tests of half-sent requests are quick
            env={**os.environ, "HUPAI_HEAD_TIMEOUT": "1.5", "HUPAI_BODY_TIMEOUT": "2"},
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"hupai serve did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def labelled_tiles(name: str) -> list[str]:
    rows = np.loadtxt(PHOTOS / f"{name}.txt", ndmin=2)
    return sorted(CLASS_NAMES[int(c)] for c in rows[:, 0])


def test_health_names_the_shipped_models(server: str) -> None:
    assert MODEL is not None and NAMER is not None
    body = httpx.get(server + "/healthz").json()
    assert body["model"]["file"] == MODEL.name
    assert body["model"]["version"] == json.loads(MODEL.with_suffix(".json").read_text())["version"]
    assert body["model"]["namer"]["file"] == NAMER.name


@pytest.mark.parametrize("name", ["row14a", "row14b"])
def test_a_real_photo_is_read_over_http(server: str, name: str) -> None:
    with (PHOTOS / f"{name}.jpg").open("rb") as f:
        r = httpx.post(server + "/v1/read", files={"photo": (f"{name}.jpg", f, "image/jpeg")})
    assert r.status_code == 200, r.text[:300]
    reading = r.json()["reading"]
    seen = sorted(reading["detections"]["class_name"])
    truth = labelled_tiles(name)
    assert seen == truth  # as in tests/vision/test_reading.py


def test_a_real_photo_is_scored_over_http(server: str) -> None:
    context = {"city": "nanning", "win": "self_draw", "winner": 0}
    with (PHOTOS / "row14a.jpg").open("rb") as f:
        r = httpx.post(
            server + "/v1/score",
            files={"photo": ("row14a.jpg", f, "image/jpeg")},
            data={"context": json.dumps(context)},
            params={"image": "url"},
            timeout=30,
        )
    assert r.status_code == 200, r.text[:300]
    body = r.json()
    assert body["request"]["city"] == "nanning" and body["request"]["hand"]
    # 13 tiles and a flower: not a winning hand, and Nanning plays without flowers
    assert body["score"] is None and body["score_error"]["code"] == "unscorable_reading"
    image = httpx.get(server + body["annotated_image"])
    assert image.status_code == 200 and image.content[:2] == b"\xff\xd8"


def test_concurrent_photos_are_all_read(server: str) -> None:
    data = (PHOTOS / "row14b.jpg").read_bytes()

    def post(k: int) -> int:
        r = httpx.post(
            server + "/v1/read",
            files={"photo": (f"p{k}.jpg", data, "image/jpeg")},
            params={"image": "none"},
            timeout=60,
        )
        return r.status_code

    with ThreadPoolExecutor(6) as pool:
        assert list(pool.map(post, range(6))) == [200] * 6


def test_an_oversized_upload_is_refused_before_it_is_read(server: str) -> None:
    big = b"\xff\xd8" + b"\0" * (16 * 1024 * 1024 + 1024 * 1024 + 10)
    r = httpx.post(server + "/v1/read", files={"photo": ("big.jpg", big, "image/jpeg")})
    assert r.status_code == 413 and r.json()["code"] == "too_large"


def seconds_until_closed(url: str, payload: bytes, wait: float = 10.0) -> float:
    """Seconds until the server closes a connection that sent ``payload`` and then stalls."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as sock:
        sock.settimeout(wait)
        if payload:
            sock.sendall(payload)
        began = time.monotonic()
        try:
            assert sock.recv(100) == b""  # closed, no answer
        except TimeoutError:
            return float("inf")
        return time.monotonic() - began


@pytest.mark.parametrize(
    "payload",
    [
        b"",
        b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n",
        b"POST /v1/score/hand HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n{",
    ],
    ids=["idle", "half-sent head", "half-sent body"],
)
def test_a_stalled_connection_is_closed(server: str, payload: bytes) -> None:
    assert seconds_until_closed(server, payload) < 5
