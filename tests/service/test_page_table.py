"""The phone page at a real table (issue #28), in Debian's Chromium at 390 × 844 and
844 × 390, in Chinese and in English: a whole game of four hands by photo and by typing,
watched live on a second phone; undo and redo; the settlement; confirmations; axe-core
with no serious or critical violation; no English word on a Chinese screen; a 12-MP photo
over a 750 kbit/s link."""

from __future__ import annotations

import io
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pagekit import (
    CHROMIUM,
    LANDSCAPE,
    PORTRAIT,
    Phone,
    axe_violations,
    chromium,
    english_words,
    throttle,
)

from conftest import FakeReader, hand_detections, jpeg, live_server
from hupai.service.api import get_reader
from hupai.service.app import create_app
from hupai.service.settings import Settings

if not Path(CHROMIUM).exists():
    pytest.skip(
        "Debian's chromium is not installed (the Makefile installs it)", allow_module_level=True
    )
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
# the machine these run on is shared: wait for the page longer than Playwright's 5 s default
expect.set_options(timeout=15_000)

#: The hand typed at the table: pure characters, the winning 2m last (15 keystrokes).
TYPED = "12345678911122m"
PLAYERS = {"en-US": ["Ann", "Bo", "Chen", "Dee"], "zh-CN": ["张伟", "王芳", "李娜", "刘洋"]}


class ShapeReader(FakeReader):
    """The fake reader, remembering the size of each photo it was given."""

    def __init__(self) -> None:
        super().__init__(hand_detections("123456789m5m", "5m", "7p"))
        self.shapes: list[tuple[int, int]] = []

    def read(self, image: Any, **kw: Any) -> Any:
        self.shapes.append(image.shape[:2])
        return super().read(image, **kw)


@pytest.fixture(scope="module")
def reader() -> ShapeReader:
    return ShapeReader()


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory, reader: ShapeReader) -> Iterator[str]:
    database = f"sqlite:///{tmp_path_factory.mktemp('db') / 'tables.sqlite3'}"
    app = create_app(Settings(_env_file=None, database_url=database))  # type: ignore[call-arg]
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


def totals(page: Any) -> list[int]:
    return [
        int(page.locator(f"#totals .seat[data-player='{p}'] .total").inner_text()) for p in range(4)
    ]


def previewed(page: Any) -> list[int]:
    return [
        int(page.locator(f"#deltas .seat[data-seat='{p}'] .delta").inner_text()) for p in range(4)
    ]


def start_table(page: Any, names: list[str], rate: str = "") -> None:
    page.select_option("#city", "guiyang")
    page.click("#game-start")
    for i, name in enumerate(names):
        page.fill(f"#nt-p{i}", name)
    if rate:
        page.fill("#nt-rate", rate)
    page.click("#nt-create")
    expect(page.get_by_test_id("scoreboard")).to_be_visible()


def record(
    page: Any,
    winner: int,
    *,
    photo: Path | None = None,
    typed: str = "",
    win: str = "self_draw",
    discarder: int | None = None,
) -> list[int]:
    """Record a win through the page; the previewed deltas by player."""
    page.get_by_test_id("record-win").click()
    assert page.locator("#winner").input_value() == ""  # nothing carried over
    assert page.locator("#win").input_value() == "self_draw"
    page.select_option("#winner", str(winner))
    page.select_option("#win", win)
    if discarder is not None:
        page.select_option("#discarder", str(discarder))
    if photo is not None:
        page.get_by_test_id("photo").set_input_files(str(photo))
    else:
        field = page.get_by_test_id("notation")
        field.click()
        field.press_sequentially(typed)  # one key per character
    expect(page.locator("#table-add")).to_be_enabled()
    expect(page.get_by_test_id("result")).to_be_visible()
    return previewed(page)


def add(page: Any, viewer: Any | None) -> float:
    """Add the recorded hand; the seconds the live view took to show it (0 without one)."""
    count = page.locator("#hand-list li").count()
    page.click("#table-add")
    expect(page.locator("#hand-list li")).to_have_count(count + 1)
    if viewer is None:
        return 0.0
    t0 = time.monotonic()
    expect(viewer.locator("#hand-list li")).to_have_count(count + 1, timeout=5000)
    return time.monotonic() - t0


def timing_is_fair(what: str) -> None:
    """Skip a timing assertion (after measuring and printing it) on a machine so loaded that
    a time says nothing about the page: more than 4 runnable tasks per core."""
    load = os.getloadavg()[0]
    if load > 4 * (os.cpu_count() or 1):
        pytest.skip(f"{what}: the machine is too loaded to time it (load average {load:.0f})")


def no_english(page: Any, where: str) -> None:
    words = english_words(page)
    assert words == [], f"English words on the Chinese screen ({where}): {words}"


def no_serious_axe(page: Any, where: str) -> None:
    found = axe_violations(page)
    assert found == [], f"axe ({where}): {found}"


@pytest.mark.parametrize("viewport", [PORTRAIT, LANDSCAPE], ids=["portrait", "landscape"])
@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_a_whole_game_by_photo_and_by_typing_watched_live(
    browser: Any, url: str, photo: Path, viewport: dict[str, int], locale: str
) -> None:
    zh = locale == "zh-CN"
    names = PLAYERS[locale]
    scorer = Phone(browser, viewport, locale)
    page = scorer.open(url + "/")
    start_table(page, names, rate="0.5")
    assert totals(page) == [0, 0, 0, 0]
    if zh:
        no_english(page, "a new table")
    no_serious_axe(page, "a new table")

    # the other players scan the QR code: it holds the read-only link
    page.click("#game-share")
    qr = page.locator("#share-qr canvas")
    expect(qr).to_be_visible()
    read_link = qr.get_attribute("data-text")
    assert read_link == page.locator("#share-read").input_value()
    page.click("#game-share")
    watcher = Phone(browser, PORTRAIT, locale)
    viewer = watcher.open(read_link)
    expect(viewer.get_by_test_id("scoreboard")).to_be_visible()
    assert viewer.get_by_test_id("record-win").is_hidden()

    live: list[float] = []
    # 1. a photo: the second player self-draws (1 from each)
    deltas = record(page, 1, photo=photo)
    assert deltas == [-1, 3, -1, -1]
    assert page.locator("#hand .chip").first.get_attribute("data-tile") == "1m"  # photo order
    if zh:
        no_english(page, "a hand read from a photo")
    no_serious_axe(page, "a hand read from a photo")
    live.append(add(page, viewer))
    assert totals(page) == [-1, 3, -1, -1]

    # 2. typed, in fewer than 20 keystrokes: pure characters by the third player
    assert len(TYPED) <= 20
    deltas = record(page, 2, typed=TYPED)
    assert page.locator("#hand .chip.win").get_attribute("data-tile") == "2m"
    assert page.locator("#notation-preview img").count() == 14
    before = totals(page)
    live.append(add(page, viewer))
    assert totals(page) == [a + d for a, d in zip(before, deltas, strict=True)]
    assert deltas[2] > 0

    # 3. a photo, the fourth player
    deltas = record(page, 3, photo=photo)
    before = totals(page)
    live.append(add(page, viewer))
    assert totals(page) == [a + d for a, d in zip(before, deltas, strict=True)]

    # 4. typed, the first player on the second player's discard
    deltas = record(page, 0, typed=TYPED, win="discard", discarder=1)
    assert deltas[0] > 0 and deltas[1] < 0 and deltas[2] == deltas[3] == 0
    before = totals(page)
    live.append(add(page, viewer))
    final = totals(page)
    assert final == [a + d for a, d in zip(before, deltas, strict=True)] and sum(final) == 0

    # the watcher sees the same board, and saw each hand within 2 s (checked at the end)
    print(f"\nlive view: each new hand shown after {[round(x, 2) for x in live]} s")
    assert totals(viewer) == final
    expect(viewer.locator("#trend svg polyline")).to_have_count(4)

    # undo and redo are two stacks: undo, undo, redo, redo gets back to where it was
    page.click("#game-undo")
    expect(page.locator("#hand-list li")).to_have_count(3)
    page.click("#game-undo")
    expect(page.locator("#hand-list li")).to_have_count(2)
    page.click("#game-redo")
    expect(page.locator("#hand-list li")).to_have_count(3)
    page.click("#game-redo")
    expect(page.locator("#hand-list li")).to_have_count(4)
    assert totals(page) == final
    expect(page.locator("#game-redo")).to_be_disabled()

    # the settlement: fewest transfers, with the money at the table's rate
    page.click("#game-settle")
    lines = page.get_by_test_id("settlement").locator("li")
    expect(lines.first).to_be_visible()
    assert 1 <= lines.count() <= 3
    text = page.get_by_test_id("settlement").inner_text()
    assert names[0] in text or names[1] in text
    assert "=" in text  # money beside the points
    if zh:
        no_english(page, "the settlement")
        no_english(viewer, "the live view")
    no_serious_axe(page, "the scoreboard, history and settlement")
    no_serious_axe(viewer, "the live view")
    watcher.close()
    scorer.close()
    if max(live) > 2.0:
        timing_is_fair("the live view")
    assert max(live) <= 2.0, live


def test_house_rules_are_set_in_the_new_table_form(browser: Any, url: str) -> None:
    phone = Phone(browser, PORTRAIT, "zh-CN")
    page = phone.open(url + "/")
    page.select_option("#city", "guiyang")
    page.click("#game-start")
    dialog = page.locator("#new-table")
    # the house rules every city takes come first, in Chinese
    assert "封顶" in dialog.locator("#nt-options").inner_text()
    assert "庄家翻倍" in dialog.locator("#nt-options").inner_text()
    no_english(page, "the new table's form")
    for i, name in enumerate(PLAYERS["zh-CN"]):
        page.fill(f"#nt-p{i}", name)
    dialog.locator("input[name='cap']").fill("2")
    dialog.locator("input[name='dealer_double']").check()
    page.click("#nt-create")
    expect(page.locator("#game-rules")).to_contain_text("封顶 2")
    expect(page.locator("#game-rules")).to_contain_text("庄家翻倍")
    assert page.locator("#options-box #city-options").count() == 1  # back in the form
    deltas = record(page, 2, typed=TYPED)  # pure characters: 10 each, capped at 2
    assert deltas == [-2, -2, 6, -2]
    no_english(page, "a hand at a table with house rules")
    add(page, None)
    assert totals(page) == [-2, -2, 6, -2]
    # the table agrees to lift the cap mid-game: every hand is scored again
    page.click("#game-rules-edit")
    rules = page.locator("#rules")
    expect(rules.locator("input[name='cap']")).to_have_value("2")
    assert rules.locator("input[name='dealer_double']").is_checked()
    no_english(page, "the house rules dialog")
    no_serious_axe(page, "the house rules dialog")
    rules.locator("input[name='cap']").fill("0")
    page.click("#rules-save")
    # pure characters, 10 from each; the dealer (the first player) pays double
    expect(page.locator("#totals .seat[data-player='2'] .total")).to_have_text("40")
    assert totals(page) == [-20, -10, 40, -10]
    assert "封顶" not in page.locator("#game-rules").inner_text()
    phone.close()


def test_leaving_and_deleting_ask_first(browser: Any, url: str, photo: Path) -> None:
    phone = Phone(browser, PORTRAIT, "en-US")
    page = phone.open(url + "/")
    start_table(page, PLAYERS["en-US"])
    record(page, 1, photo=photo)
    add(page, None)
    # leave: "No" keeps the table
    page.click("#game-leave")
    expect(page.locator("#confirm")).to_be_visible()
    page.click("#confirm-no")
    expect(page.get_by_test_id("scoreboard")).to_be_visible()
    assert "#table=" in page.url
    # delete a hand: "No" keeps it, "Delete" takes it out
    page.locator("#hand-list li button.fix").first.click()
    page.click("#table-delete")
    page.click("#confirm-no")
    expect(page.locator("#hand-list li")).to_have_count(1)
    page.click("#table-delete")
    page.click("#confirm-yes")
    expect(page.locator("#hand-list li")).to_have_count(0)
    assert totals(page) == [0, 0, 0, 0]
    page.click("#game-undo")  # the delete undone
    expect(page.locator("#hand-list li")).to_have_count(1)
    # the settlement as text (copied, or shown to copy where the clipboard is refused) and
    # as a picture
    page.click("#game-settle")
    page.click("#settle-text")
    copied = page.locator("#settle-copy")
    expect(page.locator("#status")).to_contain_text(re.compile("Copied|copy"))
    if copied.is_visible():
        assert "Bo" in copied.input_value() and "pays" in copied.input_value()
    with page.expect_download() as download:
        page.click("#settle-image")
    assert download.value.suggested_filename == "settlement.png"
    phone.close()


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_typing_a_hand_shows_it_and_says_what_is_wrong(browser: Any, url: str, locale: str) -> None:
    phone = Phone(browser, PORTRAIT, locale)
    page = phone.open(url + "/")
    page.select_option("#city", "guiyang")
    field = page.get_by_test_id("notation")
    field.fill("123m45x")
    error = page.locator("#notation-error")
    expect(error).to_be_visible()
    assert "x" in error.inner_text()
    assert field.get_attribute("aria-invalid") == "true"
    field.fill("11111m")  # a fifth copy
    expect(error).to_contain_text("四张" if locale == "zh-CN" else "four")
    field.fill("123m")  # too few: said, not scored
    expect(error).to_contain_text("3")
    field.fill(TYPED)
    expect(error).to_be_hidden()
    expect(page.get_by_test_id("result")).to_be_visible()
    assert page.locator("#notation-preview img").count() == 14
    assert page.locator("#hand .chip:not(.add)").count() == 14
    assert page.locator("#hand .chip.add").count() == 0  # the hand is full: no +
    if locale == "zh-CN":
        no_english(page, "a typed hand")
    # the picker will not add a fifth copy: 1m is there four times
    page.locator("#hand .chip").nth(9).click()  # the second 1m
    expect(page.locator("#picker")).to_be_visible()
    assert page.locator("#picker-grid .chip[data-tile='2m']").is_enabled()
    page.locator("#picker-grid .chip[data-tile='9m']").click()  # still fine: 9m twice
    expect(page.locator("#hand .chip").nth(9)).to_have_attribute("data-tile", "9m")
    page.locator("#hand .chip").nth(0).click()  # a 1m → 1m again is allowed, 9m × 3 too
    assert page.locator("#picker-grid .chip[data-tile='1m']").is_enabled()
    page.keyboard.press("Escape")
    phone.close()


def test_below_the_minimum_keeps_its_numbers_in_chinese(browser: Any, url: str) -> None:
    phone = Phone(browser, PORTRAIT, "zh-CN")
    page = phone.open(url + "/")
    page.select_option("#city", "ningbo")
    page.select_option("#win", "discard")
    page.select_option("#discarder", "1")  # asked, never assumed (issue #39)
    page.get_by_test_id("notation").fill("123456m12355p789s")
    page.locator("#indicator .chip.add").click()
    page.locator("#picker-grid .chip[data-tile='5s']").click()  # baida: 5s, 6s
    verdict = "没有达到起胡分：只有 1 台，宁波麻将至少要 4 台才能胡。"
    expect(page.locator("#verdict")).to_have_text(verdict)
    no_english(page, "a hand below the minimum")
    phone.close()


@pytest.mark.parametrize("viewport", [PORTRAIT, LANDSCAPE], ids=["portrait", "landscape"])
def test_tap_a_tile_on_the_photo_to_fix_it(
    browser: Any, url: str, photo: Path, viewport: dict[str, int]
) -> None:
    phone = Phone(browser, viewport, "en-US")
    page = phone.open(url + "/")
    page.select_option("#city", "guiyang")
    page.select_option("#winner", "1")
    page.get_by_test_id("photo").set_input_files(str(photo))
    expect(page.get_by_test_id("result")).to_be_visible()
    img = page.locator("#annotated")
    expect(img).to_be_visible()
    for _ in range(50):
        if page.evaluate("() => document.getElementById('annotated').naturalWidth") > 0:
            break
        page.wait_for_timeout(100)
    # the third tile of the fake photo: x 124-164 of 1000, y 300-356 of 600
    img.scroll_into_view_if_needed()
    box = img.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.144, box["y"] + box["height"] * 0.547)
    expect(page.locator("#picker")).to_be_visible()
    close = page.locator("#picker-close")
    cb = close.bounding_box()  # in landscape too, the picker's buttons are on the screen
    assert (
        cb["y"] + cb["height"] <= viewport["height"] and cb["x"] + cb["width"] <= viewport["width"]
    )
    page.locator("#picker-grid .chip[data-tile='3p']").click()
    expect(page.locator("#hand .chip").nth(2)).to_have_attribute("data-tile", "3p")
    phone.close()


def test_the_live_view_polls_for_little_an_unchanged_table_answers_304(url: str) -> None:
    import httpx

    made = httpx.post(f"{url}/v1/tables", json={"city": "shaanxi", "players": PLAYERS["en-US"]})
    read = made.json()["read_token"]
    first = httpx.get(f"{url}/v1/tables/{read}")
    tag = first.headers["ETag"]
    again = httpx.get(f"{url}/v1/tables/{read}", headers={"If-None-Match": tag})
    assert (again.status_code, again.content, again.headers["ETag"]) == (304, b"", tag)
    write = made.json()["write_token"]
    hand = {"kind": "win", "winner": 1, "win": "self_draw", "hand": "123456789m123p55p"}
    hand["win_tile"] = "5p"
    assert httpx.post(f"{url}/v1/tables/{write}/hands", json=hand).status_code == 201
    changed = httpx.get(f"{url}/v1/tables/{read}", headers={"If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag
    assert len(changed.json()["hands"]) == 1


def test_the_settlement_takes_the_fewest_transfers(browser: Any, url: str) -> None:
    phone = Phone(browser, PORTRAIT, "en-US")
    page = phone.open(url + "/")
    cases = page.evaluate(
        """async () => {
          const { fewestTransfers } = await import('/static/settle.js');
          return [[-2, 2, 2, -2], [-5, 3, 4, -2], [0, 0, 0, 0], [-9, 1, 3, 5], [-3, -3, 3, 3]]
            .map((net) => fewestTransfers(net));
        }"""
    )
    assert [len(c) for c in cases] == [2, 3, 0, 3, 2]
    for net, transfers in zip(
        [[-2, 2, 2, -2], [-5, 3, 4, -2], [0] * 4, [-9, 1, 3, 5], [-3, -3, 3, 3]], cases, strict=True
    ):
        balance = list(net)
        for t in transfers:
            assert t["points"] > 0
            balance[t["from"]] += t["points"]
            balance[t["to"]] -= t["points"]
        assert balance == [0, 0, 0, 0]
    phone.close()


def twelve_megapixel_photo(path: Path, orientation: int = 1) -> int:
    """A 4000 × 3000 JPEG like a phone's (a real hand's photo scaled up, with sensor-like
    noise); with EXIF ``orientation``. Returns its size in bytes."""
    import cv2
    from PIL import Image

    src = cv2.imread(str(Path(__file__).parents[1] / "vision/fixtures/real/row14a.jpg"))
    big = cv2.resize(src, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    noise = np.random.default_rng(0).normal(0, 5, big.shape)
    big = np.clip(big.astype(np.float64) + noise, 0, 255).astype(np.uint8)
    image = Image.fromarray(cv2.cvtColor(big, cv2.COLOR_BGR2RGB))
    exif = Image.Exif()
    exif[0x0112] = orientation
    buf = io.BytesIO()
    image.save(buf, "JPEG", quality=92, exif=exif.tobytes())
    path.write_bytes(buf.getvalue())
    return len(buf.getvalue())


@pytest.mark.parametrize("mode", ["one hand", "table"])
def test_a_12_megapixel_photo_over_750_kbit_is_scored_within_3_s(
    browser: Any, url: str, reader: ShapeReader, tmp_path: Path, mode: str
) -> None:
    path = tmp_path / "IMG_0001.jpg"
    size = twelve_megapixel_photo(path, orientation=6)  # taken upright: EXIF turns it
    assert size > 2_000_000
    phone = Phone(browser, PORTRAIT, "zh-CN")
    page = phone.open(url + "/")
    if mode == "table":
        start_table(page, PLAYERS["zh-CN"])
        page.get_by_test_id("record-win").click()
    else:
        page.select_option("#city", "guiyang")
    page.select_option("#winner", "1")
    throttle(page, 750)
    statuses: list[tuple[float, str]] = []
    t0 = time.monotonic()
    page.get_by_test_id("photo").set_input_files(str(path))
    for _ in range(200):  # the progress is shown while the photo goes up
        text = page.locator("#status").inner_text()
        if text and (not statuses or text != statuses[-1][1]):
            statuses.append((round(time.monotonic() - t0, 2), text))
        if page.get_by_test_id("result").is_visible():
            break
        page.wait_for_timeout(50)
    expect(page.get_by_test_id("result")).to_be_visible(timeout=30000)
    seconds = time.monotonic() - t0
    print(
        f"\n12-MP photo ({size} B) → score over 750 kbit/s, {mode}: {seconds:.2f} s; "
        f"statuses {statuses}"
    )
    uploads = [s for _, s in statuses if "%" in s]
    assert uploads, statuses  # the upload's progress is shown
    kb = int(re.search(r"(\d+) KB", uploads[0]).group(1))
    assert kb <= 200, kb  # ~1/15 of the photo
    h, w = reader.shapes[-1]
    assert max(h, w) <= 1600 and h > w  # made small, and upright (EXIF orientation 6)
    phone.close()
    if seconds > 3.0:
        timing_is_fair("a photo over 750 kbit/s")
    assert seconds <= 3.0, seconds


def test_the_page_exports_through_the_read_link(browser: Any, url: str) -> None:
    """Issue #40 row 12: the page's export used the write link, and the file carried it."""
    import httpx

    phone = Phone(browser, PORTRAIT, "en-US")
    page = phone.open(url + "/")
    start_table(page, PLAYERS["en-US"])
    read_link = page.locator("#share-read").input_value()
    read = read_link.split("#table=")[1]
    write = page.locator("#share-write").input_value().split("#table=")[1]
    href = page.locator("#export-json").get_attribute("href")
    assert href == f"/v1/tables/{read}/export.json"
    assert page.locator("#export-csv").get_attribute("href") == f"/v1/tables/{read}/export.csv"
    exported = httpx.get(url + f"/v1/tables/{write}/export.json").text
    assert write not in exported and read not in exported
    phone.close()
