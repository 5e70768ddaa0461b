"""A table's house rules over HTTP: given when the table is made (and described in the
OpenAPI schema), shown by GET, changed by PUT …/options like an edit (revision, 409)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

PLAYERS = ["Ann", "Bo", "Chen", "Dee"]
#: Chen (player 2) self-draws a plain Shaanxi hand: 6 from each; Ann, the dealer, 12 doubled.
WIN = {"winner": 2, "win": "self_draw", "hand": "123m456m789m123p55s", "win_tile": "5s"}


def new_table(client: TestClient, **options: Any) -> dict[str, Any]:
    body = {"city": "shaanxi", "players": PLAYERS, "options": options}
    r = client.post("/v1/tables", json=body)
    assert r.status_code == 201, r.text
    table: dict[str, Any] = r.json()
    return table


def test_a_table_made_with_house_rules_scores_its_hands_with_them(client: TestClient) -> None:
    table = new_table(client, cap=10, dealer_double=True)
    assert table["house_rules"] == {"cap": 10, "dealer_double": True}
    r = client.post(f"/v1/tables/{table['write_token']}/hands", json=WIN)
    assert r.json()["totals"] == [-10, -6, 22, -6]  # Ann's 12 capped at 10
    view = client.get(f"/v1/tables/{table['read_token']}").json()
    assert view["options"] == {"cap": 10, "dealer_double": True}


def test_put_options_rescores_the_table(client: TestClient) -> None:
    table = new_table(client)
    token = table["write_token"]
    client.post(f"/v1/tables/{token}/hands", json=WIN)
    revision = client.get(f"/v1/tables/{token}").json()["revision"]
    change = {"revision": revision, "options": {"dealer_double": True}}
    r = client.put(f"/v1/tables/{token}/options", json=change)
    assert r.status_code == 200, r.text
    assert r.json()["totals"] == [-12, -6, 24, -6]
    assert r.json()["house_rules"] == {"cap": 0, "dealer_double": True}
    versions = client.get(f"/v1/tables/{table['read_token']}/options").json()["versions"]
    assert [v["options"] for v in versions] == [{}, {"dealer_double": True}]


def test_put_options_from_an_old_revision_is_409(client: TestClient) -> None:
    table = new_table(client)
    token = table["write_token"]
    client.post(f"/v1/tables/{token}/hands", json=WIN)
    change = {"revision": table["revision"], "options": {"cap": 5}}
    r = client.put(f"/v1/tables/{token}/options", json=change)
    assert (r.status_code, r.json()["code"]) == (409, "stale")


def test_put_options_names_a_bad_option(client: TestClient) -> None:
    table = new_table(client)
    change = {"revision": table["revision"], "options": {"cap": "lots"}}
    r = client.put(f"/v1/tables/{table['write_token']}/options", json=change)
    assert (r.status_code, r.json()["field"]) == (422, "options.cap")
    r = client.put(f"/v1/tables/{table['write_token']}/options", json={"options": {}})
    assert (r.status_code, r.json()["field"]) == (422, "revision")


def test_the_read_link_cannot_change_the_options(client: TestClient) -> None:
    table = new_table(client)
    change = {"revision": table["revision"], "options": {"cap": 5}}
    assert client.put(f"/v1/tables/{table['read_token']}/options", json=change).status_code == 403


def test_the_openapi_schema_describes_the_house_rules(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    create = spec["paths"]["/v1/tables"]["post"]["requestBody"]["content"]["application/json"]
    options = create["schema"]["properties"]["options"]["properties"]
    assert options["cap"]["type"] == "integer" and "封顶" in options["cap"]["description"]
    assert options["dealer_double"]["type"] == "boolean"
    assert "庄家翻倍" in options["dealer_double"]["description"]
    assert {"put", "get"} <= set(spec["paths"]["/v1/tables/{token}/options"])


def put_city(client: TestClient, token: str, city: Any) -> Any:
    revision = client.get(f"/v1/tables/{token}").json()["revision"]
    change = {"revision": revision, "city": city, "options": {}}
    return client.put(f"/v1/tables/{token}/options", json=change)


def test_a_new_city_rescores_every_hand_and_the_old_city_restores_them(
    client: TestClient,
) -> None:
    table = new_table(client)
    token = table["write_token"]
    client.post(f"/v1/tables/{token}/hands", json=WIN)
    before = client.get(f"/v1/tables/{token}").json()
    r = put_city(client, token, "guiyang")
    assert r.status_code == 200, r.text
    after = r.json()
    assert after["city"] == "guiyang"
    assert after["hands"][0]["deltas"] != before["hands"][0]["deltas"]  # Guiyang's own score
    assert sum(after["totals"]) == 0
    back = put_city(client, token, "shaanxi").json()
    assert back["hands"][0]["deltas"] == before["hands"][0]["deltas"]
    versions = client.get(f"/v1/tables/{token}/options").json()["versions"]
    assert [v["city"] for v in versions] == ["shaanxi", "guiyang", "shaanxi"]


def test_a_hand_the_new_city_cannot_score_is_kept_with_its_problem(client: TestClient) -> None:
    table = new_table(client)
    token = table["write_token"]
    honours = {**WIN, "hand": "123m456m789m123p11z", "win_tile": "1z"}
    assert client.post(f"/v1/tables/{token}/hands", json=honours).status_code == 201
    hand = put_city(client, token, "guiyang").json()["hands"][0]
    assert hand["problem"] and "1z" in hand["problem"], hand["problem"]
    assert hand["deltas"] == [0, 0, 0, 0]
    hand = put_city(client, token, "shaanxi").json()["hands"][0]
    assert hand["problem"] is None and hand["deltas"] != [0, 0, 0, 0]


def test_an_unknown_city_is_refused_by_name(client: TestClient) -> None:
    table = new_table(client)
    r = put_city(client, table["write_token"], "atlantis")
    assert (r.status_code, r.json()["field"]) == (422, "city")
    assert "atlantis" in r.json()["message"] and "guiyang" in r.json()["message"]
    r = put_city(client, table["write_token"], 7)
    assert (r.status_code, r.json()["field"]) == (422, "city")
    assert client.get(f"/v1/tables/{table['write_token']}").json()["city"] == "shaanxi"
