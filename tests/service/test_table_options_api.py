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
