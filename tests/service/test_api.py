"""The HTTP API through TestClient, with the fake reader (no model)."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient

from conftest import WIN, FakeReader, hand_detections, jpeg
from hupai.scoring import result_to_dict, score
from hupai.scoring.tiles import Tile
from hupai.service.api import ReadPool, get_reader
from hupai.service.app import create_app
from hupai.service.errors import ApiError
from hupai.service.reader import ModelMissingError
from hupai.service.settings import Settings
from hupai.vision.classes import class_of
from hupai.vision.detections import Detections

CONTEXT = {"city": "shaanxi", "win": "self_draw", "winner": 1}


def post_score(client: TestClient, photo: bytes, context: Any = CONTEXT, **params: str) -> Any:
    ctx = context if isinstance(context, str) else json.dumps(context)
    return client.post(
        "/v1/score",
        files={"photo": ("hand.jpg", photo, "image/jpeg")},
        data={"context": ctx},
        params=params,
    )


def assert_error(response: Any, status: int, code: str, field: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text[:400]
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    if field is not None:
        assert body["field"] == field, body
    assert set(body) >= {"code", "message", "field", "hint"}
    return body


# -- meta -------------------------------------------------------------------------------------


def test_healthz_reports_the_model_and_cities(client: TestClient) -> None:
    body = client.get("/healthz").json()
    assert body["status"] == "ok" and body["model"]["name"] == "fake"
    assert body["cities"] == ["nanning", "nanchang", "ningbo", "guiyang", "shaanxi"]


def test_cities_give_options_with_defaults_and_fields(client: TestClient) -> None:
    body = client.get("/v1/cities").json()
    ningbo = next(c for c in body["cities"] if c["name"] == "ningbo")
    assert {"name": "min_tai", "default": 4}.items() <= next(
        o for o in ningbo["options"] if o["name"] == "min_tai"
    ).items()
    assert "indicator" in [f["name"] for f in ningbo["fields"]]
    assert [f["name"] for f in body["common"]][:2] == ["win", "winner"]
    assert body["seats"] == ["East", "South", "West", "North"]


def test_openapi_documents_every_route(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/v1/read", "/v1/score", "/v1/score/hand", "/v1/cities", "/healthz"} <= set(paths)


def test_the_page_and_its_script_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and 'capture="environment"' in page.text
    assert client.get("/static/app.js").status_code == 200


# -- read -------------------------------------------------------------------------------------


def test_read_returns_tiles_melds_and_the_winning_tile(client: TestClient, photo: bytes) -> None:
    r = client.post("/v1/read", files={"photo": ("hand.jpg", photo, "image/jpeg")})
    assert r.status_code == 200, r.text
    reading = r.json()["reading"]
    assert reading["hand"] == "123456m55789p" and reading["win_tile"] == WIN
    assert [(m["kind"], m["tiles"], m["called_from"]) for m in reading["melds"]] == [
        ("pung", "777p", "across")
    ]
    assert reading["size"] == [1000, 600]


def test_read_annotated_photo_comes_as_a_data_url(client: TestClient, photo: bytes) -> None:
    r = client.post("/v1/read", files={"photo": ("hand.jpg", photo, "image/jpeg")})
    image = r.json()["annotated_image"]
    assert image.startswith("data:image/jpeg;base64,")
    assert base64.b64decode(image.split(",", 1)[1])[:2] == b"\xff\xd8"


def test_read_annotated_photo_as_a_url(client: TestClient, photo: bytes) -> None:
    r = client.post(
        "/v1/read", files={"photo": ("hand.jpg", photo, "image/jpeg")}, params={"image": "url"}
    )
    url = r.json()["annotated_image"]
    got = client.get(url)
    assert got.status_code == 200 and got.headers["content-type"] == "image/jpeg"


def test_the_annotated_photo_shows_boxes_only_no_text(client: TestClient) -> None:
    """The page words the reading in its language: no caption or tile name is burned into
    the photo (issue #39, row 13) — where the caption's black band was, the photo shows."""
    import cv2
    import numpy as np

    plain = jpeg(value=200)  # light grey, no tiles drawn on it
    r = client.post("/v1/read", files={"photo": ("hand.jpg", plain, "image/jpeg")})
    data = base64.b64decode(r.json()["annotated_image"].split(",", 1)[1])
    drawn = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    caption = drawn[: drawn.shape[0] // 12, : drawn.shape[1] // 3]
    assert caption.min() > 150  # no black band, no dark letters


def test_read_without_the_annotated_photo(client: TestClient, photo: bytes) -> None:
    r = client.post(
        "/v1/read", files={"photo": ("hand.jpg", photo, "image/jpeg")}, params={"image": "none"}
    )
    assert r.json()["annotated_image"] is None


def test_read_gives_the_city_field_for_the_set_apart_tiles(client: TestClient) -> None:
    det = hand_detections()
    one_above = Detections.make([[400, 150, 440, 206]], [class_of(Tile.parse("3s"))], [0.9])
    reader = FakeReader(Detections.concat([det, one_above]))
    client.app.dependency_overrides[get_reader] = lambda: reader  # type: ignore[attr-defined]
    r = client.post(
        "/v1/read", files={"photo": ("h.jpg", jpeg(), "image/jpeg")}, data={"city": "nanchang"}
    )
    assert r.json()["reading"]["request"]["indicator"] == "3s"


def test_read_win_tile_given_by_the_caller(client: TestClient, photo: bytes) -> None:
    r = client.post(
        "/v1/read", files={"photo": ("h.jpg", photo, "image/jpeg")}, data={"win_tile": "9p"}
    )
    assert r.json()["reading"]["win_tile"] == "9p"


# -- score ------------------------------------------------------------------------------------


def test_score_reads_then_scores_with_the_context(client: TestClient, photo: bytes) -> None:
    r = post_score(client, photo)
    assert r.status_code == 200, r.text
    body = r.json()
    request = body["request"]
    assert request["hand"] == "123456m55789p" and request["win_tile"] == WIN
    assert request["melds"] == [{"kind": "pung", "tiles": "777p", "from": 3}]  # across from 1
    assert body["score"] == result_to_dict(score(request))
    assert body["score"]["valid"] and body["score"]["deltas"][1] > 0
    assert sum(body["score"]["deltas"]) == 0
    assert body["score_error"] is None


def test_a_confident_reading_of_a_winning_hand_scores_confident(
    client: TestClient, photo: bytes
) -> None:
    body = post_score(client, photo).json()
    assert body["reading"]["confident"] is True
    assert (body["confident"], body["doubts"]) == (True, [])


def test_a_reading_that_does_not_win_is_not_confident(client: TestClient, photo: bytes) -> None:
    reader = FakeReader()
    reader.det.class_id[0] = class_of(Tile.parse("9s"))  # 923m…: no winning shape
    client.app.dependency_overrides[get_reader] = lambda: reader  # type: ignore[attr-defined]
    body = post_score(client, photo).json()
    assert body["reading"]["confident"] is True  # the tiles alone are read with confidence
    assert body["score"]["valid"] is False
    assert body["confident"] is False
    assert [d["code"] for d in body["doubts"]] == ["not_a_winning_hand"]


def test_a_name_doubted_alone_that_the_hands_shape_settles_scores_confident(
    client: TestClient, photo: bytes
) -> None:
    reader = FakeReader()
    reader.det.confidence[1] = 0.7  # the 2m: unsure
    reader.others = {1: ["5m", "8m"]}  # 153m, 183m: no chow
    client.app.dependency_overrides[get_reader] = lambda: reader  # type: ignore[attr-defined]
    body = post_score(client, photo).json()
    assert body["reading"]["confident"] is False
    assert body["reading"]["detections"]["check_reasons"][1] == ["name"]
    assert (body["confident"], body["doubts"], body["settled"]) == (True, [], ["2m"])


def test_a_name_doubted_alone_that_another_name_would_also_win_stays_a_doubt(
    client: TestClient, photo: bytes
) -> None:
    reader = FakeReader()
    nine = 8  # the 9p of 789p: as 6p, 678p wins too
    reader.det.confidence[nine] = 0.7
    reader.others = {nine: ["6p"]}
    client.app.dependency_overrides[get_reader] = lambda: reader  # type: ignore[attr-defined]
    body = post_score(client, photo).json()
    assert body["confident"] is False and body["settled"] == []
    assert [d["code"] for d in body["doubts"]] == ["tiles_unsure"]


def test_photo_tiles_replace_tiles_in_the_context(client: TestClient, photo: bytes) -> None:
    body = post_score(client, photo, {**CONTEXT, "hand": "19m19p19s1234567z"}).json()
    assert body["request"]["hand"] == "123456m55789p"


def test_score_of_a_reading_that_cannot_be_scored_comes_beside_the_reading(
    client: TestClient, photo: bytes
) -> None:
    reader = FakeReader()
    reader.det.class_id[0] = class_of(Tile.parse("1z"))  # Guiyang plays without honors
    client.app.dependency_overrides[get_reader] = lambda: reader  # type: ignore[attr-defined]
    r = post_score(client, photo, {"city": "guiyang", "win": "self_draw", "winner": 1})
    assert r.status_code == 200
    body = r.json()
    assert body["score"] is None
    assert body["confident"] is False and "unscorable" in [d["code"] for d in body["doubts"]]
    assert body["score_error"]["code"] == "unscorable_reading"
    assert body["score_error"]["field"] == "hand" and "1z" in body["score_error"]["message"]
    assert body["reading"]["hand"].endswith("1z")


def test_score_hand_scores_the_json_request(client: TestClient) -> None:
    request = {**CONTEXT, "hand": "123456m55789p", "win_tile": "5p", "melds": [{"tiles": "777p"}]}
    r = client.post("/v1/score/hand", json=request)
    assert r.status_code == 200
    assert r.json() == result_to_dict(score(request))


def test_editing_a_tile_changes_the_score(client: TestClient) -> None:
    seven_pairs = {**CONTEXT, "hand": "1133m5577p2299s44z", "win_tile": "4z"}
    plain = {**CONTEXT, "hand": "123456m55789p", "win_tile": "5p", "melds": [{"tiles": "777p"}]}
    a = client.post("/v1/score/hand", json=seven_pairs).json()
    b = client.post("/v1/score/hand", json=plain).json()
    assert a["deltas"][1] == 2 * b["deltas"][1]  # seven different pairs double


# -- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_body", "field", "needle"),
    [
        ({**CONTEXT, "hand": "10m"}, "hand", "'10m'"),
        ({**CONTEXT, "hand": "123456m55789p", "melds": [{"tiles": "778p"}]}, "melds[0].tiles", ""),
        ({**CONTEXT, "winner": 7, "hand": "123456m55789p777p"}, "winner", "7"),
        ({"city": "atlantis"}, "city", "atlantis"),
    ],
)
def test_score_hand_errors_name_the_field(
    client: TestClient, request_body: dict[str, Any], field: str, needle: str
) -> None:
    body = assert_error(client.post("/v1/score/hand", json=request_body), 422, "invalid_request")
    assert body["field"] == field and needle in body["message"]


@pytest.mark.parametrize("body", ["[]", "null", '"x"', "3"])
def test_score_hand_of_a_body_that_is_not_an_object_is_a_4xx(client: TestClient, body: str) -> None:
    r = client.post("/v1/score/hand", content=body, headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500, r.text


def test_score_hand_wants_json(client: TestClient) -> None:
    r = client.post(
        "/v1/score/hand", content=b"city=shaanxi", headers={"content-type": "text/plain"}
    )
    assert_error(r, 415, "unsupported_media_type")


def test_score_hand_refuses_duplicate_keys(client: TestClient) -> None:
    r = client.post(
        "/v1/score/hand",
        content=b'{"city": "shaanxi", "city": "nanning"}',
        headers={"content-type": "application/json"},
    )
    body = assert_error(r, 422, "invalid_request", "request")
    assert "appears twice" in body["message"]


def test_context_that_is_not_json(client: TestClient, photo: bytes) -> None:
    body = assert_error(post_score(client, photo, "{city: x"), 422, "invalid_request", "context")
    assert "not valid JSON" in body["message"]


def test_context_errors_are_placed_under_context(client: TestClient, photo: bytes) -> None:
    r = post_score(client, photo, {**CONTEXT, "winner": 9})
    body = assert_error(r, 422, "invalid_request", "context.winner")
    assert body["message"].startswith("context.winner:")


def test_context_without_a_city(client: TestClient, photo: bytes) -> None:
    body = assert_error(
        post_score(client, photo, {"win": "self_draw"}), 422, "invalid_request", "context.city"
    )
    assert "shaanxi" in body["message"]


def test_missing_photo_is_named(client: TestClient) -> None:
    r = client.post("/v1/score", data={"context": json.dumps(CONTEXT)})
    assert_error(r, 422, "invalid_request", "photo")


def test_photo_over_the_size_limit_is_413(fake_reader: FakeReader) -> None:
    settings = Settings(_env_file=None, max_upload_bytes=2048)  # type: ignore[call-arg]
    app = create_app(settings)
    app.dependency_overrides[get_reader] = lambda: fake_reader
    with TestClient(app, base_url="http://localhost") as c:
        r = post_score(c, jpeg() + b"\0" * 4096)
    assert_error(r, 413, "too_large", "photo")
    assert fake_reader.calls == 0


def test_photo_with_too_many_pixels_is_413(fake_reader: FakeReader) -> None:
    settings = Settings(_env_file=None, max_pixels=100_000)  # type: ignore[call-arg]
    app = create_app(settings)
    app.dependency_overrides[get_reader] = lambda: fake_reader
    with TestClient(app, base_url="http://localhost") as c:
        body = assert_error(post_score(c, jpeg(1000, 600)), 413, "too_many_pixels", "photo")
    assert "1000×600" in body["message"]


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims to be width × height but holds a few bytes of data: decoding it
    would allocate the full image (a decompression bomb); its header alone says how big."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))


def test_decompression_bomb_is_refused_from_its_header(client: TestClient) -> None:
    r = post_score(client, png_header_only(60_000, 60_000))
    assert_error(r, 413, "too_many_pixels", "photo")


def test_a_pdf_is_not_an_image(client: TestClient) -> None:
    assert_error(post_score(client, b"%PDF-1.7\n..."), 415, "unsupported_media_type", "photo")


def test_heic_photo_gets_advice(client: TestClient) -> None:
    heic = b"\0\0\0\x18ftypheic\0\0\0\0mif1heic" + b"\0" * 64
    body = assert_error(post_score(client, heic), 415, "unsupported_media_type", "photo")
    assert "JPEG" in body["message"] and body["hint"]


def test_truncated_photo_is_422(client: TestClient) -> None:
    data = jpeg()
    assert_error(post_score(client, data[: len(data) // 3]), 422, "damaged_photo", "photo")


def test_empty_photo_is_422(client: TestClient) -> None:
    assert_error(post_score(client, b""), 422, "empty_photo", "photo")


def test_no_tiles_found_gives_a_reshoot_hint(client: TestClient) -> None:
    body = assert_error(post_score(client, jpeg(value=0)), 422, "no_tiles", "photo")
    assert "closer" in body["hint"]


def test_unknown_annotated_image_is_404(client: TestClient) -> None:
    assert_error(client.get("/v1/annotated/nope.jpg"), 404, "not_found")


def test_unknown_route_is_json_404(client: TestClient) -> None:
    assert_error(client.get("/v2/whatever"), 404, "not_found")


def test_a_bug_is_500_without_a_traceback(client: TestClient, photo: bytes) -> None:
    class Broken(FakeReader):
        def read(self, *args: Any, **kwargs: Any) -> Any:
            raise ZeroDivisionError("boom")

    client.app.dependency_overrides[get_reader] = lambda: Broken()  # type: ignore[attr-defined]
    r = post_score(client, photo)
    body = assert_error(r, 500, "internal_error")
    assert "Traceback" not in r.text and "ZeroDivisionError" in body["message"]


def test_app_does_not_start_without_its_model(tmp_path: Path) -> None:
    app = create_app(Settings(_env_file=None, model=tmp_path / "none.onnx"))  # type: ignore[call-arg]
    with (
        pytest.raises(ModelMissingError, match="no such file"),
        TestClient(app, base_url="http://localhost"),
    ):
        pass


# -- concurrency ------------------------------------------------------------------------------


def test_concurrent_requests_are_all_answered(client: TestClient, fake_reader: FakeReader) -> None:
    photos = [jpeg(1000 + 20 * k, 600) for k in range(8)]
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda p: post_score(client, p), photos))
    assert [a.status_code for a in answers] == [200] * 8
    assert [a.json()["reading"]["size"][0] for a in answers] == [1000 + 20 * k for k in range(8)]
    assert fake_reader.calls == 8


def test_pool_turns_away_requests_beyond_the_queue() -> None:
    pool = ReadPool(concurrency=1, max_waiting=1)

    async def main() -> None:
        started = anyio.Event()
        release = anyio.Event()

        def slow() -> int:
            anyio.from_thread.run_sync(started.set)
            anyio.from_thread.run(release.wait)
            return 1

        async with anyio.create_task_group() as tg:
            tg.start_soon(pool.run, slow)
            await started.wait()
            with pytest.raises(ApiError) as err:
                await pool.run(lambda: 2)
            assert err.value.status == 503 and err.value.headers == {"Retry-After": "2"}
            release.set()
        assert await pool.run(lambda: 3) == 3

    anyio.run(main)
