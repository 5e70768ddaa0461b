"""``/v1/tables`` over HTTP: the routes, their errors, a hand from a photo, exports, and two
phones adding hands at once to a real server."""

from __future__ import annotations

import concurrent.futures
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from conftest import FakeReader, live_server
from hupai.service.api import get_reader
from hupai.service.app import create_app
from hupai.service.settings import Settings

PLAYERS = ["Ann", "Bo", "Chen", "Dee"]
WIN = {"winner": 2, "win": "self_draw", "hand": "123m456m789m123p55s", "win_tile": "5s"}


def new_table(client: TestClient, **extra: Any) -> dict[str, Any]:
    r = client.post("/v1/tables", json={"city": "shaanxi", "players": PLAYERS, **extra})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def test_a_table_is_created_with_a_write_and_a_read_token(client: TestClient) -> None:
    table = new_table(client)
    assert table["access"] == "write"
    view = client.get(f"/v1/tables/{table['read_token']}").json()
    assert (view["access"], view["players"]) == ("read", PLAYERS)
    assert "write_token" not in view


def test_a_hand_added_over_http_updates_the_totals(client: TestClient) -> None:
    token = new_table(client)["write_token"]
    r = client.post(f"/v1/tables/{token}/hands", json=WIN)
    assert r.status_code == 201
    assert r.json()["totals"] == [-6, -6, 18, -6]
    assert client.get(f"/v1/tables/{token}?hands=false").json()["totals"] == [-6, -6, 18, -6]


def test_the_read_link_is_refused_a_change_with_403(client: TestClient) -> None:
    table = new_table(client)
    r = client.post(f"/v1/tables/{table['read_token']}/hands", json=WIN)
    assert (r.status_code, r.json()["code"]) == (403, "read_only")


def test_an_unknown_table_is_404(client: TestClient) -> None:
    r = client.get("/v1/tables/" + "a" * 24)
    assert (r.status_code, r.json()["code"]) == (404, "not_found")


def test_a_stale_edit_is_409_and_shows_the_current_hand(client: TestClient) -> None:
    token = new_table(client)["write_token"]
    client.post(f"/v1/tables/{token}/hands", json=WIN)
    first = client.put(f"/v1/tables/{token}/hands/1", json={"revision": 1, "hand": WIN})
    assert first.status_code == 200
    stale = client.put(f"/v1/tables/{token}/hands/1", json={"revision": 1, "hand": WIN})
    assert (stale.status_code, stale.json()["code"]) == (409, "stale")
    assert stale.json()["current"]["revision"] == 2


def test_an_edit_without_its_revision_is_422(client: TestClient) -> None:
    token = new_table(client)["write_token"]
    client.post(f"/v1/tables/{token}/hands", json=WIN)
    r = client.put(f"/v1/tables/{token}/hands/1", json={"hand": WIN})
    assert (r.status_code, r.json()["field"]) == (422, "revision")


def test_a_hand_that_does_not_score_is_422_with_the_reason(client: TestClient) -> None:
    token = new_table(client)["write_token"]
    r = client.post(f"/v1/tables/{token}/hands", json={**WIN, "hand": "123m456m789m124p55s"})
    assert (r.status_code, r.json()["reason"]) == (422, "not_a_winning_hand")


def test_delete_then_undo_over_http(client: TestClient) -> None:
    token = new_table(client)["write_token"]
    client.post(f"/v1/tables/{token}/hands", json=WIN)
    assert client.delete(f"/v1/tables/{token}/hands/1?revision=1").json()["totals"] == [0] * 4
    assert client.post(f"/v1/tables/{token}/undo").json()["totals"] == [-6, -6, 18, -6]


def test_a_hand_from_a_photo_keeps_its_reading_and_thumbnail(
    client: TestClient, photo: bytes
) -> None:
    token = new_table(client)["write_token"]
    r = client.post(
        f"/v1/tables/{token}/photo",
        files={"photo": ("hand.jpg", photo, "image/jpeg")},
        data={"context": json.dumps({"winner": 1, "win": "self_draw"})},
    )
    assert r.status_code == 201, r.text
    assert r.json()["hand"]["entry"]["hand"] == "123456m55789p"
    thumb = client.get(f"/v1/tables/{token}/hands/1/thumbnail.jpg")
    assert thumb.headers["content-type"] == "image/jpeg"
    assert thumb.content[:2] == b"\xff\xd8"


def test_a_photo_hand_says_whether_its_score_is_confident(client: TestClient, photo: bytes) -> None:
    token = new_table(client)["write_token"]
    r = client.post(
        f"/v1/tables/{token}/photo",
        files={"photo": ("hand.jpg", photo, "image/jpeg")},
        data={"context": json.dumps({"winner": 1, "win": "self_draw"})},
    )
    assert (r.json()["confident"], r.json()["doubts"]) == (True, [])


def test_a_hand_added_by_the_key_of_a_photo_read_keeps_its_reading_and_thumbnail(
    client: TestClient, photo: bytes
) -> None:
    token = new_table(client)["write_token"]
    read = client.post(
        "/v1/read?image=url",
        files={"photo": ("hand.jpg", photo, "image/jpeg")},
        data={"city": "shaanxi"},
    ).json()
    key = read["annotated_image"].removeprefix("/v1/annotated/").removesuffix(".jpg")
    hand = {**read["reading"]["request"], "winner": 1, "win": "self_draw"}
    r = client.post(f"/v1/tables/{token}/hands?photo={key}", json=hand)
    assert r.status_code == 201, r.text
    assert client.get(f"/v1/tables/{token}/hands/1").json()["reading"] == read["reading"]
    thumb = client.get(f"/v1/tables/{token}/hands/1/thumbnail.jpg")
    assert thumb.status_code == 200 and thumb.content[:2] == b"\xff\xd8"


def test_a_photo_key_no_longer_kept_is_410_and_adds_nothing(client: TestClient) -> None:
    token = new_table(client)["write_token"]
    r = client.post(f"/v1/tables/{token}/hands?photo={'0' * 32}", json=WIN)
    assert (r.status_code, r.json()["code"], r.json()["field"]) == (410, "photo_gone", "photo")
    assert client.get(f"/v1/tables/{token}").json()["hand_count"] == 0


def test_a_photo_hand_that_cannot_be_scored_adds_nothing_and_returns_the_reading(
    client: TestClient, photo: bytes, fake_reader: FakeReader
) -> None:
    token = new_table(client)["write_token"]
    r = client.post(
        f"/v1/tables/{token}/photo",
        files={"photo": ("hand.jpg", photo, "image/jpeg")},
        data={"context": json.dumps({"winner": 1, "win": "discard", "discarder": 1})},
    )
    assert r.status_code == 422
    assert r.json()["reading"]["hand"] == "123456m55789p"
    assert client.get(f"/v1/tables/{token}").json()["hand_count"] == 0


def test_the_csv_export_is_a_download(client: TestClient) -> None:
    token = new_table(client)["write_token"]
    client.post(f"/v1/tables/{token}/hands", json=WIN)
    r = client.get(f"/v1/tables/{token}/export.csv")
    assert r.headers["content-type"].startswith("text/csv")
    assert "attachment" in r.headers["content-disposition"]
    assert r.content.decode("utf-8-sig").splitlines()[1].startswith("1,East,1,Ann,win,Chen")


def test_the_tables_routes_are_in_the_openapi(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/v1/tables", "/v1/tables/{token}/hands", "/v1/tables/{token}/export.csv"} <= set(paths)


@pytest.fixture(params=["sqlite", "postgresql"])
def live_settings(request: pytest.FixtureRequest, settings: Settings) -> Iterator[Settings]:
    if request.param == "sqlite":
        yield settings
        return
    from hupai.ledger.pgtemp import PostgresUnavailable, temporary_postgres

    try:
        with temporary_postgres() as server:
            yield settings.model_copy(update={"database_url": server.new_database()})
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))


def test_two_phones_adding_at_once_to_a_live_server_both_land(
    live_settings: Settings, fake_reader: FakeReader
) -> None:
    app = create_app(live_settings)
    app.dependency_overrides[get_reader] = lambda: fake_reader
    with live_server(app) as base:
        r = httpx.post(f"{base}/v1/tables", json={"city": "shaanxi", "players": PLAYERS})
        token = r.json()["write_token"]

        def add(winner: int) -> int:
            hand = {**WIN, "winner": winner}
            return httpx.post(f"{base}/v1/tables/{token}/hands", json=hand).status_code

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(add, [0, 1, 2, 3] * 4))
        view = httpx.get(f"{base}/v1/tables/{token}").json()
    assert codes == [201] * 16
    assert view["hand_count"] == 16 and sum(view["totals"]) == 0


def test_a_preview_scores_with_the_table_context_and_keeps_nothing(client: TestClient) -> None:
    token = new_table(client, first_dealer=2)["write_token"]
    r = client.post(f"/v1/tables/{token}/preview", json=WIN)  # Chen, the dealer, self-draws
    assert (r.json()["deltas"], r.json()["seating"]["dealer_name"]) == ([-12, -12, 36, -12], "Chen")
    assert client.get(f"/v1/tables/{token}").json()["hand_count"] == 0


def test_a_preview_in_place_of_an_earlier_hand_uses_that_hands_seating(
    client: TestClient,
) -> None:
    token = new_table(client)["write_token"]
    client.post(f"/v1/tables/{token}/hands", json={**WIN, "winner": 1})  # the deal passes
    r = client.post(f"/v1/tables/{token}/preview?number=1", json={**WIN, "winner": 0})
    assert r.json()["seating"]["dealer_name"] == "Ann"


def test_tiles_corrected_in_the_context_win_over_the_photo(
    client: TestClient, photo: bytes
) -> None:
    token = new_table(client)["write_token"]
    fixed = {"winner": 1, **WIN}
    r = client.post(
        f"/v1/tables/{token}/photo",
        files={"photo": ("hand.jpg", photo, "image/jpeg")},
        data={"context": json.dumps({**fixed, "melds": []})},
    )
    assert r.status_code == 201, r.text
    assert r.json()["hand"]["entry"]["hand"] == WIN["hand"]
    assert client.get(f"/v1/tables/{token}/hands/1").json()["reading"]["hand"] == "123456m55789p"


def test_an_unreachable_database_is_a_503(settings: Settings, fake_reader: FakeReader) -> None:
    app = create_app(settings.model_copy(update={"database_url": "postgresql://h@127.0.0.1:1/t"}))
    app.dependency_overrides[get_reader] = lambda: fake_reader
    with TestClient(app, base_url="http://localhost") as client:
        r = client.post("/v1/tables", json={"city": "shaanxi", "players": PLAYERS})
    assert (r.status_code, r.json()["code"]) == (503, "database_unavailable")


def test_a_poll_with_the_etag_answers_304_without_building_the_view(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #40 row 6: a 304 cost as much as the whole listing (0.31 s of CPU for a
    3,000-hand table), and the page polls every second."""
    made = new_table(client)
    read = made["read_token"]
    first = client.get(f"/v1/tables/{read}")
    tag = first.headers["etag"]
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    built: list[str] = []
    real = ledger.view
    monkeypatch.setattr(ledger, "view", lambda *a: built.append("view") or real(*a))
    again = client.get(f"/v1/tables/{read}", headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.headers["etag"] == tag
    assert built == []  # answered from the table's revision alone
    assert client.get(f"/v1/tables/{made['write_token']}").headers["etag"] != tag
    assert client.get(f"/v1/tables/{read}?hands=false").headers["etag"] != tag
    client.post(f"/v1/tables/{made['write_token']}/hands", json=WIN)
    changed = client.get(f"/v1/tables/{read}", headers={"If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["etag"] != tag
