"""The phone page at a table, second round (issue #39), in Debian's Chromium: each hand
starts blank, redo never re-applies a stale change, one number per hand everywhere, the
city chosen in the new table's dialog, "who discarded?" asked, a capped amount on one line,
the hands an edit changed listed, melds in the history and the CSV, draws editable, four
totals that fit a 360-px phone, tap targets of 44 px, the language switched everywhere."""

from __future__ import annotations

import csv
import io
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pagekit import PORTRAIT, WORD, Phone, chromium, english_words, throttle
from test_page_table import (
    PLAYERS,
    TYPED,
    ShapeReader,
    add,
    expect,
    record,
    start_table,
    timing_is_fair,
    totals,
    twelve_megapixel_photo,
)

from conftest import jpeg, live_server
from hupai.service.api import get_reader
from hupai.service.app import create_app
from hupai.service.settings import Settings


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = f"sqlite:///{tmp_path_factory.mktemp('db') / 'tables.sqlite3'}"
    # every test starts a table or two from the one address: more than a phone's burst
    settings = Settings(_env_file=None, database_url=database, tables_burst=200)  # type: ignore[call-arg]
    app = create_app(settings)
    reader = ShapeReader()
    app.dependency_overrides[get_reader] = lambda: reader
    with live_server(app) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    path = tmp_path / "hand.jpg"
    path.write_bytes(jpeg())
    return path


NARROW = {"width": 360, "height": 740}
#: Four six-character names, the longest a table is likely to type.
LONG_NAMES = {
    "zh-CN": ["欧阳娜娜娜娜", "司马相如如如", "诸葛孔明明明", "上官婉儿儿儿"],
    "en-US": ["Alexan", "Bernad", "Christ", "Dorian"],
}


def table_token(page: Any) -> str:
    return page.url.split("#table=")[1]


def csv_rows(base: str, token: str, lang: str = "") -> list[list[str]]:
    query = f"?lang={lang}" if lang else ""
    text = httpx.get(f"{base}/v1/tables/{token}/export.csv{query}").content.decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text)))


def open_table(
    browser: Any,
    url: str,
    locale: str = "zh-CN",
    viewport: dict[str, int] = PORTRAIT,
    names: list[str] | None = None,
) -> tuple[Phone, Any]:
    """A phone with a new Guiyang table of four (the players' names in ``locale``)."""
    phone = Phone(browser, viewport, locale)
    page = phone.open(url + "/")
    start_table(page, names or PLAYERS[locale])
    return phone, page


def start_capped_table(page: Any, cap: int) -> None:
    """A Guiyang table of four, its cap set in the new table's dialog."""
    page.click("#game-start")
    page.locator("#nt-city").select_option("guiyang")
    for i, name in enumerate(PLAYERS["zh-CN"]):
        page.fill(f"#nt-p{i}", name)
    page.locator("#new-table input[name='cap']").fill(str(cap))
    page.click("#nt-create")


def list_numbers(page: Any) -> list[int]:
    """The hand numbers the history shows, in the list's order."""
    return [
        int(n)
        for n in page.locator("#hand-list li").evaluate_all(
            "els => els.map((li) => li.dataset.ordinal)"
        )
    ]


# -- row 1: every hand starts blank ---------------------------------------------------------


def test_per_player_city_fields_start_blank_every_hand(browser: Any, url: str) -> None:
    phone, page = open_table(browser, url)
    held = page.locator("#city-fields input[name='chickens.2']")
    # a hand started, a chicken typed for the third player, then 取消
    page.get_by_test_id("record-win").click()
    held.fill("1s")
    page.click("#table-cancel")
    page.get_by_test_id("record-win").click()
    expect(held).to_have_value("")
    # a hand added with a chicken: the next hand starts without it
    held.fill("1s")
    record_typed = page.get_by_test_id("notation")
    page.select_option("#winner", "1")
    record_typed.fill(TYPED)
    expect(page.locator("#table-add")).to_be_enabled()
    add(page, None)
    page.get_by_test_id("record-win").click()
    expect(held).to_have_value("")
    phone.close()


# -- row 2: redo never re-applies a stale change ---------------------------------------------


def test_a_newer_change_clears_redo_and_redo_says_what(browser: Any, url: str) -> None:
    phone, page = open_table(browser, url)
    record(page, 1, typed=TYPED)
    add(page, None)
    record(page, 2, typed=TYPED)
    add(page, None)
    page.click("#game-undo")
    expect(page.locator("#hand-list li")).to_have_count(1)
    redo = page.locator("#game-redo")
    expect(redo).to_be_enabled()
    expect(redo).to_contain_text("第 2 局")  # says what it will redo
    # another phone adds a hand meanwhile: redo is no longer offered
    hand = {"kind": "win", "winner": 3, "win": "self_draw", "hand": TYPED, "win_tile": "2m"}
    assert httpx.post(f"{url}/v1/tables/{table_token(page)}/hands", json=hand).status_code == 201
    expect(page.locator("#hand-list li")).to_have_count(2)
    expect(redo).to_be_disabled()
    # and a reload does not bring it back
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    expect(page.locator("#game-redo")).to_be_disabled()
    phone.close()


def test_a_house_rule_change_clears_redo(browser: Any, url: str) -> None:
    phone, page = open_table(browser, url)
    record(page, 1, typed=TYPED)
    add(page, None)
    page.click("#game-undo")
    expect(page.locator("#game-redo")).to_be_enabled()
    page.click("#game-rules-edit")
    page.locator("#rules input[name='cap']").fill("5")
    page.click("#rules-save")
    expect(page.locator("#game-rules")).to_contain_text("封顶 5")
    expect(page.locator("#game-redo")).to_be_disabled()
    phone.close()


# -- row 3: one number per hand --------------------------------------------------------------


def test_one_number_per_hand_in_the_status_the_list_and_the_csv(browser: Any, url: str) -> None:
    phone, page = open_table(browser, url)
    for winner in (1, 2, 3):
        record(page, winner, typed=TYPED)
        add(page, None)
    # the second hand deleted: the hands are numbered 1, 2 again, with no gap
    page.locator("#hand-list li[data-ordinal='2'] button.fix").click()
    page.click("#table-delete")
    page.click("#confirm-yes")
    expect(page.locator("#hand-list li")).to_have_count(2)
    assert sorted(list_numbers(page)) == [1, 2]
    expect(page.locator("#game-next")).to_contain_text("第 3 局")
    rows = csv_rows(url, table_token(page))
    assert [r[0] for r in rows[1:]] == ["1", "2"]
    # the numbers say which hand is which: the list's #2 is the CSV's 2 (the fourth player's)
    second = page.locator("#hand-list li[data-ordinal='2'] .what").inner_text()
    assert PLAYERS["zh-CN"][3] in second
    phone.close()


# -- row 5: the city in the new table's dialog -----------------------------------------------


def test_the_city_is_chosen_first_in_the_new_table_dialog(browser: Any, url: str) -> None:
    phone = Phone(browser, PORTRAIT, "zh-CN")
    page = phone.open(url + "/")
    page.select_option("#city", "nanning")  # the one-hand form's city is not the table's
    page.click("#game-start")
    dialog = page.locator("#new-table")
    city = dialog.locator("#nt-city")
    expect(city).to_be_visible()
    first = dialog.locator("input, select").first
    assert first.get_attribute("id") == "nt-city"
    city.select_option("guiyang")
    for i, name in enumerate(PLAYERS["zh-CN"]):
        page.fill(f"#nt-p{i}", name)
    page.click("#nt-create")
    expect(page.locator("#game-city")).to_have_text("贵阳捉鸡麻将")
    token = table_token(page)
    assert httpx.get(f"{url}/v1/tables/{token}").json()["city"] == "guiyang"
    phone.close()


# -- row 5: the table's city can be changed later -------------------------------------------


def hand_deltas(page: Any) -> dict[int, str]:
    """Each hand's deltas as the history shows them, by its number in play."""
    out: dict[int, str] = {}
    for li in page.locator("#hand-list li").all():
        out[int(li.get_attribute("data-ordinal"))] = li.locator(".hand-deltas").inner_text()
    return out


def change_city(page: Any, city: str, warning: str) -> None:
    """Choose ``city`` in the table's rules dialog: the dialog says first what it does to the
    hands recorded (``warning`` in its text), then saving re-scores them."""
    page.click("#game-rules-edit")
    page.get_by_test_id("rules-city").select_option(city)
    said = page.get_by_test_id("rules-city-warning")
    expect(said).to_be_visible()
    assert warning in said.inner_text(), said.inner_text()
    assert english_words(page) == []
    page.click("#rules-save")
    expect(page.locator("#rules")).to_be_hidden()


def test_the_tables_city_can_be_changed_and_every_hand_is_scored_again(
    browser: Any, url: str
) -> None:
    phone, page = open_table(browser, url)  # Guiyang, as if chosen by mistake
    record(page, 1, typed=TYPED)
    add(page, None)
    guiyang = hand_deltas(page)
    change_city(page, "shaanxi", "已记 1 局")
    expect(page.locator("#game-city")).to_have_text("陕西麻将")
    expect(page.locator("#status")).to_contain_text("陕西麻将的规则")
    changes = page.get_by_test_id("changes")
    expect(changes).to_be_visible()
    assert "第 1 局" in changes.inner_text()
    assert hand_deltas(page) != guiyang
    assert httpx.get(f"{url}/v1/tables/{table_token(page)}").json()["city"] == "shaanxi"
    # the form follows the table: Shaanxi's picker offers honours, Guiyang's did not
    record(page, 2, typed="123m456m789m123p11z")
    add(page, None)
    # back to Guiyang: the first hand as it was; the honours hand kept but marked, in Chinese
    change_city(page, "guiyang", "已记 2 局")
    # the hands are scored again after the dialog closes: wait for the first one's deltas
    first = page.locator("#hand-list li[data-ordinal='1'] .hand-deltas")
    expect(first).to_have_text(guiyang[1])
    problem = page.locator("#hand-list li[data-ordinal='2']").get_by_test_id("hand-problem")
    expect(problem).to_be_visible()
    assert "贵阳麻将不用 1z 这种牌" in problem.inner_text(), problem.inner_text()
    assert "第 2 局" in changes.inner_text() and "算不了分" in changes.inner_text()
    assert english_words(page) == []
    phone.close()


# -- row 6: who discarded? -------------------------------------------------------------------


def test_who_discarded_is_asked_never_the_winner(browser: Any, url: str) -> None:
    phone, page = open_table(browser, url)
    page.get_by_test_id("record-win").click()
    page.select_option("#winner", "1")
    page.select_option("#win", "discard")
    discarder = page.locator("#discarder")
    expect(discarder).to_have_value("")
    assert discarder.locator("option:checked").inner_text() == "谁放炮？"
    assert discarder.locator("option[value='1']").is_disabled()  # never the winner
    page.get_by_test_id("notation").fill(TYPED)
    expect(page.locator("#status")).to_have_text("谁放炮？")
    expect(page.locator("#table-add")).to_be_disabled()
    page.select_option("#discarder", "2")
    expect(page.locator("#table-add")).to_be_enabled()
    # the winner changed to the discarder: asked again
    page.select_option("#winner", "2")
    expect(discarder).to_have_value("")
    expect(page.locator("#table-add")).to_be_disabled()
    assert english_words(page) == []
    phone.close()


# -- row 6: every reason the server gives, in Chinese ----------------------------------------


def reason_in_chinese(page: Any, box: str, *said: str) -> None:
    """The error ``box`` is shown, says each of ``said``, and holds no English word — the
    folded reason opened, its whole text read (tile codes have one letter, not a word)."""
    shown = page.locator(box)
    expect(shown).to_contain_text(said[-1])  # this error's, not the one before
    for summary in shown.locator("details summary").all():
        summary.click()
    text = shown.text_content() or ""
    assert WORD.findall(text) == [], text
    assert "还没有中文说明" not in text, text  # a reason of a shape the page did not know
    for words in said:
        assert words in text, (words, text)
    assert english_words(page) == []


def test_every_reason_the_server_gives_a_dialog_is_in_chinese(browser: Any, url: str) -> None:
    phone = Phone(browser, PORTRAIT, "zh-CN")
    page = phone.open(url + "/")
    # the new table's dialog: each field the server refuses, with its reason
    page.click("#game-start")
    page.locator("#nt-city").select_option("guiyang")
    names = PLAYERS["zh-CN"]

    def create(players: list[str], **fields: str) -> None:
        for i, name in enumerate(players):
            page.fill(f"#nt-p{i}", name)
        page.fill("#nt-rate", fields.get("rate", ""))
        page.fill("#nt-start", fields.get("start", "0"))
        page.locator("#new-table input[name='cap']").fill(fields.get("cap", "0"))
        page.click("#nt-create")

    create([names[0], names[0], names[2], names[3]])
    reason_in_chinese(page, "#nt-error", "同名")
    create(["欧" * 41, *names[1:]])
    reason_in_chinese(page, "#nt-error", "玩家 1", "最多 40 个")
    create(names, rate="五毛")
    reason_in_chinese(page, "#nt-error", "每分金额", "不是数字")
    create(names, start="99999999999")
    reason_in_chinese(page, "#nt-error", "起始分", "太大了")
    create(names)
    expect(page.get_by_test_id("scoreboard")).to_be_visible()
    # the rules, changed meanwhile on another phone
    page.click("#game-rules-edit")
    token = table_token(page)
    hand = {"kind": "win", "winner": 2, "win": "self_draw", "hand": TYPED, "win_tile": "2m"}
    assert httpx.post(f"{url}/v1/tables/{token}/hands", json=hand).status_code == 201
    page.locator("#rules input[name='cap']").fill("8")
    page.click("#rules-save")
    reason_in_chinese(page, "#rules-error", "被改过")
    phone.close()


def test_every_reason_the_server_gives_a_hand_is_in_chinese(browser: Any, url: str) -> None:
    phone, page = open_table(browser, url)
    # the hand: a tile the city does not use, a chicken that is none
    page.get_by_test_id("record-win").click()
    page.select_option("#winner", "1")
    page.get_by_test_id("notation").fill("123m456m789m123p11z")
    reason_in_chinese(page, "#error", "贵阳麻将不用 1z 这种牌")
    page.get_by_test_id("notation").fill(TYPED)
    page.locator("#city-fields input[name='chickens.2']").fill("9m")
    reason_in_chinese(page, "#error", "手里的鸡", "不是鸡")
    page.click("#table-cancel")
    page.click("#confirm-yes")
    # a draw's four hands, short of tiles
    page.click("#game-draw")
    for i in range(4):
        page.fill(f"#draw-hand-{i}", "123m")
    page.click("#draw-add")
    reason_in_chinese(page, "#error", "123m 是 3 张牌", "应有 13 张")
    # a photo of a kind only the server can judge, and it cannot read it
    page.get_by_test_id("record-win").click()
    page.select_option("#winner", "1")
    heic = {"name": "IMG_0001.heic", "mimeType": "image/heic", "buffer": b"not a photo" * 50}
    page.get_by_test_id("photo").set_input_files(heic)
    reason_in_chinese(page, "#error", "照片", "不是可以识别的图片格式")
    phone.close()


def server_errors(url: str) -> list[dict[str, Any]]:
    """The server's answers to what a table's phones can send wrong: tables, hands, draws,
    photos, stale and missing things (each a real answer of the live server)."""
    out: list[dict[str, Any]] = []

    def keep(r: httpx.Response) -> None:
        assert r.status_code >= 400, r.text
        out.append(r.json())

    names = PLAYERS["zh-CN"]
    tables = f"{url}/v1/tables"
    for bad in (
        {"players": [names[0], names[0], *names[2:]]},
        {"players": ["欧" * 41, *names[1:]]},
        {"rate": "五毛"},
        {"rate": "-1"},
        {"starting_points": 10**10},
        {"name": "桌" * 201},
        {"options": {"cap": -1}},
        {"options": {"cap": "很多"}},
    ):
        keep(httpx.post(tables, json={"city": "guiyang", "players": names, **bad}))
    table = httpx.post(tables, json={"city": "guiyang", "players": names}).json()
    token = table["write_token"]
    win = {"kind": "win", "winner": 1, "win": "self_draw", "hand": TYPED, "win_tile": "2m"}
    for bad in (
        {"hand": "123m456m789m123p11z", "win_tile": "1z"},
        {"chickens": [[], [], ["9m"], []]},
        {"chickens": [[], [], ["甲"], []]},
        {"hand": "123m456m789m55p", "melds": [{"kind": "chow", "tiles": "135p", "from": 0}]},
        {"hand": "123m456m789m55p", "melds": [{"kind": "chow", "tiles": "123p", "from": 2}]},
        {"win": "discard", "discarder": 1},
        {"win": "discard"},
        {"flowers": "1f"},
        {"hand": "11111m2345678m99m", "win_tile": "9m"},
        {"win_tile": "9s"},
    ):
        keep(httpx.post(f"{url}/v1/tables/{token}/preview", json={**win, **bad}))
    keep(
        httpx.post(
            f"{url}/v1/tables/{token}/hands", json={"kind": "draw", "hands": [{"hand": "123m"}] * 4}
        )
    )
    keep(httpx.post(f"{url}/v1/tables/{token}/undo"))
    assert httpx.post(f"{url}/v1/tables/{token}/hands", json=win).status_code == 201
    keep(httpx.put(f"{url}/v1/tables/{token}/options", json={"revision": 0, "options": {}}))
    keep(httpx.put(f"{url}/v1/tables/{token}/hands/1", json={"revision": 9, "hand": win}))
    keep(
        httpx.put(
            f"{url}/v1/tables/{token}/options",
            json={"revision": 1, "city": "火星", "options": {}},
        )
    )
    keep(httpx.get(f"{url}/v1/tables/{token}/hands/99"))
    keep(httpx.post(f"{url}/v1/tables/{table['read_token']}/hands", json=win))
    keep(httpx.post(f"{url}/v1/tables/{token}/hands?photo=" + "0" * 32, json=win))
    whole = jpeg()
    for name, data in (
        ("empty.jpg", b""),
        ("IMG_0001.heic", b"\0\0\0\x18ftypheic" + b"\0" * 64),
        ("cut.jpg", whole[: len(whole) // 3]),
        ("tiny.jpg", jpeg(8, 8)),
        ("notes.txt", b"not a photo at all" * 20),
    ):
        files = {"photo": (name, data, "image/jpeg")}
        keep(httpx.post(f"{url}/v1/read?image=url", files=files))
    return out


def test_the_page_has_chinese_for_every_reason_a_table_can_meet(browser: Any, url: str) -> None:
    """Beyond the errors the page's own controls can make: every answer above, from the live
    server, goes through the page's translation; none is left in English or untranslated."""
    errors = server_errors(url)
    phone = Phone(browser, PORTRAIT, "zh-CN")
    page = phone.open(url + "/")
    said = page.evaluate(
        """async (errors) => {
          const i18n = await import("/static/i18n.js");
          return errors.map((e) => [e.message, Object.values(i18n.errorText(e)).join(" ")]);
        }""",
        errors,
    )
    print("\n" + "\n".join(f"{e}  →  {c}" for e, c in said))
    left = [(e, c) for e, c in said if WORD.findall(c) or "还没有中文说明" in c]
    assert left == [], left
    phone.close()


# -- row 16: a capped amount on one line -----------------------------------------------------


def test_a_capped_payment_is_one_line(browser: Any, url: str) -> None:
    phone = Phone(browser, PORTRAIT, "zh-CN")
    page = phone.open(url + "/")
    start_capped_table(page, 2)
    deltas = record(page, 2, typed=TYPED)  # pure characters: 10 from each, capped at 2
    assert deltas == [-2, -2, 6, -2]
    items = page.locator("#items li")
    expect(items).to_have_count(3)
    for line in items.all_inner_texts():
        assert "2（10，封顶 2）" in line, line
    phone.close()


# -- row 10: the hands an edit changed, and by how much --------------------------------------


def test_a_rule_change_lists_the_hands_it_changed(browser: Any, url: str) -> None:
    phone = Phone(browser, PORTRAIT, "zh-CN")
    page = phone.open(url + "/")
    start_capped_table(page, 2)
    record(page, 2, typed=TYPED)
    add(page, None)
    record(page, 2, typed="123m456m789m123p55p")  # no pure suit: under the cap either way
    add(page, None)
    page.click("#game-rules-edit")
    page.locator("#rules input[name='cap']").fill("0")
    page.click("#rules-save")
    changes = page.get_by_test_id("changes")
    expect(changes).to_be_visible()
    lines = changes.locator("li")
    expect(lines).to_have_count(1)  # only the first hand moved
    text = lines.first.inner_text()
    assert "第 1 局" in text and "李娜 +6 → +30" in text, text
    phone.close()


def test_an_edit_lists_the_later_hands_it_changed(browser: Any, url: str) -> None:
    phone, page = open_table(browser, url, locale="en-US")
    record(page, 0, typed=TYPED)  # the dealer wins: the dealer keeps the deal, streak 2
    add(page, None)
    record(page, 0, typed=TYPED)
    add(page, None)
    before = totals(page)
    # the first hand was the second player's: the second hand's streak changes too
    page.locator("#hand-list li[data-ordinal='1'] button.fix").click()
    page.select_option("#winner", "1")
    expect(page.locator("#table-save")).to_be_enabled()
    page.click("#table-save")
    changes = page.get_by_test_id("changes")
    expect(changes).to_be_visible()
    assert totals(page) != before
    text = changes.inner_text()
    assert "hand 1" in text.lower() and "hand 2" in text.lower(), text
    phone.close()


# -- row 18: melds shown, draws editable, newest first, CSV in the page's language ----------


def test_history_shows_melds_newest_first_and_draws_are_editable(browser: Any, url: str) -> None:
    phone, page = open_table(browser, url)
    record(page, 1, typed="123m456m789p(1111s)55p")
    add(page, None)
    first = page.locator("#hand-list li[data-ordinal='1']")
    assert first.locator("[data-tile='1s']").count() == 4  # the kong is shown
    rows = csv_rows(url, table_token(page), "zh")
    header, line = rows[0], rows[1]
    assert header[0] == "局" and "副露" in header
    assert "1111s" in line[header.index("副露")]
    # a draw, listed first (newest first), editable: deleted again from the list
    page.click("#game-draw")
    page.click("#draw-add")
    expect(page.locator("#hand-list li")).to_have_count(2)
    assert list_numbers(page) == [2, 1]
    page.locator("#hand-list li[data-ordinal='2'] button.fix").click()
    expect(page.locator("#draw-box")).to_be_visible()
    page.click("#draw-delete")
    page.click("#confirm-yes")
    expect(page.locator("#hand-list li")).to_have_count(1)
    phone.close()


# -- row 18: the history stays compact ------------------------------------------------------

#: A phone's history is compact when a hand takes one short row at 390 × 844: on average at most
#: this many CSS pixels a hand (9 hands then fit one 844-px screen; the list was 3,500 px after 9
#: hands when the issue was filed, ~390 a hand, and 1,380 px before this row's fix) …
COMPACT_HAND_PX = 90
#: … and no hand over this (a discard's line may wrap to two).
TALLEST_HAND_PX = 96
#: An evening's hands: typed, with a kong, from photos (thumbnails), self-drawn and on discards.
EVENING = [
    {"winner": 1, "win": "self_draw", "hand": TYPED, "win_tile": "2m"},
    {"winner": 2, "win": "discard", "discarder": 0, "hand": "11122345678999p"},
    {
        "winner": 3,
        "win": "self_draw",
        "hand": "123m456m789p55p",
        "melds": [{"kind": "kong", "tiles": "1111s", "from": 1}],
    },
    {"photo": True, "winner": 0, "win": "self_draw"},
    {"kind": "draw"},
]


def play_evening(url: str, token: str, hands: int) -> None:
    """``hands`` hands added through the API, as four phones would (photos read by the fake
    reader, with their thumbnails)."""
    for i in range(hands):
        entry = dict(EVENING[i % len(EVENING)])
        if entry.pop("photo", False):
            files = {"photo": ("hand.jpg", jpeg(), "image/jpeg")}
            data = {"context": json.dumps(entry)}
            r = httpx.post(f"{url}/v1/tables/{token}/photo", files=files, data=data)
        else:
            entry.setdefault("kind", "win")
            if entry["kind"] == "win" and "win_tile" not in entry:
                entry["win_tile"] = entry["hand"][-2:]
            r = httpx.post(f"{url}/v1/tables/{token}/hands", json=entry)
        assert r.status_code == 201, r.text


def history_height(page: Any) -> float:
    height: float = page.locator("#hand-list").evaluate("el => el.getBoundingClientRect().height")
    return height


@pytest.mark.parametrize("hands", [9, 11])
def test_the_history_of_an_evening_is_compact(browser: Any, url: str, hands: int) -> None:
    phone, page = open_table(browser, url)
    play_evening(url, table_token(page), hands)
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    expect(page.locator("#hand-list li")).to_have_count(hands)
    expect(page.locator("#hand-list img.thumb").first).to_be_visible()
    height = history_height(page)
    rows = page.locator("#hand-list li").evaluate_all(
        "els => els.map((li) => li.getBoundingClientRect().height)"
    )
    print(f"\nhistory of {hands} hands at 390 × 844: {height:.0f} px; rows {rows}")
    assert max(rows) <= TALLEST_HAND_PX, rows
    assert height <= hands * COMPACT_HAND_PX, height
    # compact, not cut: every hand keeps its tiles, melds, deltas and a 44-px fix button
    assert page.locator("#hand-list li .hand-deltas").count() == hands
    for box in page.locator("#hand-list li button.fix").evaluate_all(
        "els => els.map((b) => b.getBoundingClientRect().height)"
    ):
        assert box >= 44, box
    assert page.locator("#hand-list [data-tile='1s']").count() >= 4  # the kong is shown
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert english_words(page) == []
    phone.close()


# -- row 4: four totals fit a 360-px phone ---------------------------------------------------


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_four_long_names_fit_a_360_px_phone(browser: Any, url: str, locale: str) -> None:
    phone, page = open_table(browser, url, locale=locale, viewport=NARROW, names=LONG_NAMES[locale])
    record(page, 1, typed=TYPED)
    add(page, None)
    widths = {}
    widths["scoreboard"] = page.evaluate("() => document.documentElement.scrollWidth")
    last = page.locator("#totals .seat[data-player='3'] .total").bounding_box()
    assert last["x"] + last["width"] <= NARROW["width"]
    page.click("#game-rules-edit")
    widths["rules"] = page.evaluate(
        "() => Math.max(document.documentElement.scrollWidth,"
        " document.getElementById('rules').getBoundingClientRect().right)"
    )
    page.click("#rules-cancel")
    page.get_by_test_id("record-win").click()
    page.select_option("#winner", "1")
    page.get_by_test_id("notation").fill(TYPED)
    expect(page.get_by_test_id("result")).to_be_visible()
    widths["recording"] = page.evaluate("() => document.documentElement.scrollWidth")
    print(f"\nwidest page at 360 px, {locale}: {widths}")
    assert max(widths.values()) <= NARROW["width"], widths
    phone.close()


# -- the target over a slow link: a 12-MP photo chosen → the hand on the scoreboard ---------


def test_a_12_megapixel_photo_hand_over_750_kbit_reaches_the_scoreboard_within_3_s(
    browser: Any, url: str, tmp_path: Path
) -> None:
    """The issue's target, at a table: from choosing the photo to the hand on the scoreboard
    over 750 kbit/s (Chromium's network emulation both ways, 40 ms latency), the add tapped
    the moment it is offered. The reader is the tests' fake (no model runs): the time is the
    page's and the link's — shrinking, one upload, the preview, the add, the table reloaded."""
    path = tmp_path / "IMG_0001.jpg"
    size = twelve_megapixel_photo(path, orientation=6)
    phone, page = open_table(browser, url)
    page.get_by_test_id("record-win").click()
    page.select_option("#winner", "1")
    before = totals(page)
    throttle(page, 750)
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url))
    t0 = time.monotonic()
    page.get_by_test_id("photo").set_input_files(str(path))
    expect(page.locator("#table-add")).to_be_enabled(timeout=30000)
    scored = time.monotonic() - t0
    page.click("#table-add")
    expect(page.locator("#hand-list li")).to_have_count(1, timeout=30000)
    expect(page.locator("#totals .seat[data-player='1'] .total")).not_to_have_text(str(before[1]))
    seconds = time.monotonic() - t0
    print(
        f"\n12-MP photo ({size} B) → on the scoreboard over 750 kbit/s: {seconds:.2f} s "
        f"(scored and offered to add at {scored:.2f} s; {len(sent)} requests; "
        f"load average {os.getloadavg()[0]:.1f})"
    )
    uploads = [u for u in sent if "/v1/read" in u or u.endswith("/photo")]
    assert len(uploads) == 1, sent  # the photo goes up once (made small: test_page_table)
    phone.close()
    if seconds > 3.0:
        timing_is_fair("a photo hand over 750 kbit/s")
    assert seconds <= 3.0, seconds


# -- row 19: tap targets ---------------------------------------------------------------------


def test_tap_targets_are_44_px_and_the_picker_offers_the_citys_tiles(
    browser: Any, url: str, photo: Path
) -> None:
    phone, page = open_table(browser, url)
    record(page, 1, typed=TYPED)
    add(page, None)
    small = page.evaluate(
        """() => [...document.querySelectorAll(
          '#lang, #hand-list button, #hand-list .chip, #game-on button')]
          .filter((el) => el.getClientRects().length)
          .map((el) => [el.id || el.className, el.getBoundingClientRect()])
          .filter(([, r]) => r.height < 44 || r.width < 44)
          .map(([n, r]) => `${n} ${Math.round(r.width)}×${Math.round(r.height)}`)"""
    )
    assert small == [], small
    page.get_by_test_id("record-win").click()
    page.get_by_test_id("notation").fill("123m")
    page.locator("#hand .chip.add").click()
    expect(page.locator("#picker")).to_be_visible()
    shown = page.locator("#picker-grid .chip:visible")
    tiles = set(shown.evaluate_all("els => els.map((e) => e.dataset.tile)"))
    assert not any(t.endswith(("z", "f")) for t in tiles), sorted(tiles)  # Guiyang: 108 tiles
    sizes = shown.evaluate_all(
        "els => els.map((e) => [e.getBoundingClientRect().width, e.getBoundingClientRect().height])"
    )
    assert min(w for w, _ in sizes) >= 44 and min(h for _, h in sizes) >= 44, sizes[:3]
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('label.check')]
          .filter((el) => el.getClientRects().length)
          .map((el) => el.getBoundingClientRect().height)"""
    )
    assert min(boxes) >= 44, boxes
    # a meld's kind, its "from" and its ✕
    page.locator("#picker").evaluate("d => d.close()")
    page.click("#add-meld")
    page.locator("#picker").evaluate("d => d.close()")
    meld = page.evaluate(
        """() => [...document.querySelectorAll('#melds select, #melds button.remove')]
          .map((el) => el.getBoundingClientRect().height)"""
    )
    assert meld and min(meld) >= 44, meld
    phone.close()


# -- row 7: a change of language redraws everything ------------------------------------------


def test_switching_language_redraws_the_open_form(browser: Any, url: str) -> None:
    # Chinese names: the names are not English words left behind
    phone, page = open_table(browser, url, locale="en-US", names=PLAYERS["zh-CN"])
    record(page, 1, typed=TYPED)
    page.click("#lang")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    page.wait_for_timeout(300)
    words = english_words(page)
    assert words == [], " ".join(words)
    phone.close()


def test_after_a_switch_the_whole_table_is_chinese(browser: Any, url: str) -> None:
    """The issue's target "0 English words on Chinese screens after any language switch", on
    the table's screens after the changes this round added: the list of hands a change moved,
    a hand the city no longer scores, the compact history, the city and rules dialog."""
    phone, page = open_table(browser, url, locale="en-US", names=PLAYERS["zh-CN"])
    record(page, 1, typed=TYPED)
    add(page, None)
    record(page, 2, typed=TYPED)
    add(page, None)
    page.click("#game-rules-edit")
    page.get_by_test_id("rules-city").select_option("shaanxi")
    page.click("#rules-save")
    expect(page.get_by_test_id("changes")).to_be_visible()
    page.click("#lang")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page.get_by_test_id("changes")).to_contain_text("第 1 局")
    assert english_words(page) == []
    page.click("#game-rules-edit")
    page.get_by_test_id("rules-city").select_option("guiyang")
    expect(page.get_by_test_id("rules-city-warning")).to_be_visible()
    assert english_words(page) == []
    page.click("#rules-cancel")
    phone.close()


# -- row 11: phone Back closes the dialog ----------------------------------------------------


def test_back_closes_the_picker_and_keeps_the_hand(browser: Any, url: str) -> None:
    phone, page = open_table(browser, url)
    page.get_by_test_id("record-win").click()
    page.select_option("#winner", "1")
    page.get_by_test_id("notation").fill("123m456m")
    page.locator("#hand .chip.add").click()
    expect(page.locator("#picker")).to_be_visible()
    where = page.url
    page.go_back()
    expect(page.locator("#picker")).to_be_hidden()
    assert page.url == where
    assert page.get_by_test_id("notation").input_value() == "123m456m"
    phone.close()


# -- row 17: a photo the phone cannot open is said at once -----------------------------------


def test_a_truncated_photo_is_refused_at_once_without_uploading(
    browser: Any, url: str, tmp_path: Path
) -> None:
    path = tmp_path / "cut.jpg"
    whole = jpeg(3000, 2000)
    path.write_bytes(whole[: len(whole) // 3])
    phone = Phone(browser, PORTRAIT, "zh-CN")
    page = phone.open(url + "/")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if "/v1/" in r.url else None)
    page.select_option("#city", "guiyang")
    page.get_by_test_id("photo").set_input_files(str(path))
    expect(page.get_by_test_id("error")).to_contain_text("照片打不开", timeout=3000)
    assert not [u for u in sent if "/read" in u or "/score" in u], sent
    phone.close()


# -- row 15: the link lost mid-upload: 重试 -------------------------------------------------


def test_a_lost_link_offers_retry_and_retries_when_it_is_back(
    browser: Any, url: str, photo: Path
) -> None:
    phone, page = open_table(browser, url)
    page.get_by_test_id("record-win").click()
    page.select_option("#winner", "1")
    phone.context.set_offline(True)
    page.get_by_test_id("photo").set_input_files(str(photo))
    expect(page.get_by_test_id("error")).to_contain_text("连不上服务器")
    expect(page.locator("#retry")).to_be_visible()
    phone.context.set_offline(False)  # back: retried by itself
    expect(page.get_by_test_id("result")).to_be_visible()
    expect(page.get_by_test_id("error")).to_be_hidden()
    phone.close()


# -- row 21: editing said at the top, read-only said, a read photo not thrown away -----------


def test_editing_is_said_at_the_top_and_cancel_asks_before_losing_a_photo(
    browser: Any, url: str, photo: Path
) -> None:
    phone, page = open_table(browser, url)
    record(page, 1, photo=photo)
    page.click("#table-cancel")
    expect(page.locator("#confirm")).to_be_visible()  # a read photo: asked first
    page.click("#confirm-no")
    expect(page.get_by_test_id("result")).to_be_visible()  # kept
    add(page, None)
    # the table sets 连庄 itself: not a field to fill in
    page.get_by_test_id("record-win").click()
    assert page.locator("#city-fields [name='dealer_streak']").count() == 0
    page.click("#table-cancel")
    page.locator("#hand-list li[data-ordinal='1'] button.fix").click()
    banner = page.locator("#editing-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("第 1 局")
    box = banner.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= PORTRAIT["height"]  # on screen
    # the read-only phone says so
    read = page.locator("#share-read").input_value()
    viewer = Phone(browser, PORTRAIT, "zh-CN")
    view = viewer.open(read)
    expect(view.locator("#read-only-tag")).to_have_text("只读")
    viewer.close()
    # the settlement saved as a picture: one button, no second 保存图片 link beside it
    page.click("#table-cancel")
    page.click("#game-settle")
    with page.expect_download():
        page.click("#settle-image")
    expect(page.locator("#settle-download")).to_be_hidden()
    phone.close()


# -- row 14: the share box: the read link first with 复制, the write link folded ------------


def test_the_share_box_copies_the_read_link_and_folds_the_write_link(
    browser: Any, url: str
) -> None:
    phone, page = open_table(browser, url)
    page.click("#game-share")
    expect(page.locator("#share-copy")).to_be_visible()
    assert page.locator("#share-write").is_hidden()  # folded
    expect(page.locator("#share-write-box summary")).to_contain_text("私密")
    page.click("#share-copy")
    expect(page.locator("#status")).to_contain_text("复制")
    phone.close()


# -- row 8: winner → how → photo → add, without scrolling ------------------------------------


def in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"]


def test_a_photo_hand_takes_five_taps_and_no_scroll(browser: Any, url: str, photo: Path) -> None:
    phone, page = open_table(browser, url)
    taps = 0
    for selector in ("#record-win",):
        assert in_view(page, selector), selector
        page.click(selector)
        taps += 1
    for selector, value in (("#winner", "1"), ("#win", "self_draw")):
        assert in_view(page, selector), selector
        page.select_option(selector, value)
        taps += 1
    assert in_view(page, "label[for='photo']"), "the photo button is below the fold"
    page.get_by_test_id("photo").set_input_files(str(photo))
    taps += 1
    expect(page.locator("#table-add")).to_be_enabled()
    page.wait_for_timeout(600)  # the score's smooth scroll, if any
    assert in_view(page, "#table-add"), "the add button is below the fold"
    page.click("#table-add")
    taps += 1
    expect(page.locator("#hand-list li")).to_have_count(1)
    print(f"\ntaps from 记一局胡牌 to the scoreboard: {taps}")
    assert taps <= 5
    assert totals(page) == [-1, 3, -1, -1]
    phone.close()


# -- row 9: a photo hand is uploaded once ------------------------------------------------------


def test_a_photo_hand_is_uploaded_once_and_keeps_its_thumbnail(
    browser: Any, url: str, photo: Path
) -> None:
    phone, page = open_table(browser, url)
    uploads: list[str] = []
    page.on(
        "request",
        lambda r: (
            uploads.append(r.url) if "multipart" in (r.headers.get("content-type") or "") else None
        ),
    )
    page.click("#record-win")
    page.select_option("#winner", "1")
    page.select_option("#win", "self_draw")
    page.get_by_test_id("photo").set_input_files(str(photo))
    expect(page.locator("#table-add")).to_be_enabled()
    page.click("#table-add")
    expect(page.locator("#hand-list li")).to_have_count(1)
    assert [u.split("/v1/")[1].split("?")[0] for u in uploads] == ["read"]  # no second upload
    thumb = page.locator("#hand-list li img").first
    expect(thumb).to_be_visible()
    assert thumb.evaluate("img => img.complete && img.naturalWidth > 0")
    phone.close()


# -- row 12: every option has a real label and visible help; row 20: the English page -------


@pytest.mark.parametrize("city", ["nanning", "nanchang", "ningbo", "guiyang", "shaanxi"])
def test_every_option_has_a_label_and_visible_help(browser: Any, url: str, city: str) -> None:
    phone = Phone(browser, PORTRAIT, "zh-CN")
    page = phone.open(url + "/")
    page.click("#game-start")
    page.locator("#nt-city").select_option(city)
    fields = page.locator("#nt-options #city-options > *")
    assert fields.count() > 0
    for i in range(fields.count()):
        field = fields.nth(i)
        label = field.locator("span").first.inner_text()
        assert label != "选项", field.inner_html()
        help_line = field.locator(".field-doc")
        assert help_line.count() == 1 and help_line.is_visible(), label
        assert help_line.inner_text().strip(), label
    assert page.locator("#nt-options [title]").count() == 0  # no tooltip phones never show
    phone.close()


def test_the_english_page_shows_words_not_codes(browser: Any, url: str) -> None:
    phone = Phone(browser, PORTRAIT, "en-US")
    page = phone.open(url + "/")
    page.click("#game-start")
    page.locator("#nt-city").select_option("nanning")
    options = page.locator("#nt-options select[name='combine'] option").all_inner_texts()
    assert "sum" not in options and "max" not in options, options
    labels = page.locator("#nt-options [data-field]").all_inner_texts()
    assert not [x for x in labels if x[:1].islower()], labels
    page.locator("#nt-city").select_option("guiyang")
    for i, name in enumerate(PLAYERS["en-US"]):
        page.fill(f"#nt-p{i}", name)
    page.fill("#nt-rate", "0.5")
    page.click("#nt-create")
    record(page, 1, typed=TYPED)
    add(page, None)
    page.click("#game-settle")
    text = page.get_by_test_id("settlement").inner_text()
    assert "money_unit" not in text and "_" not in text, text
    phone.close()
