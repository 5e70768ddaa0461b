"""The phone page in a real browser (Debian's chromium driven by Playwright) against the app
served by uvicorn on loopback, with the fake reader: upload a photo, see the score, fix a tile,
see the score change."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import FakeReader, hand_detections, jpeg, live_server

from service.api import get_reader
from service.app import create_app
from service.settings import Settings

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip(
        "Debian's chromium is not installed (the Makefile installs it)", allow_module_level=True
    )
sync_api = pytest.importorskip("playwright.sync_api")

#: Flags for a headless Chromium on a machine with no network beyond loopback.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def page_url() -> Iterator[str]:
    # Guiyang, self-draw by seat 1: a plain hand is 1 point from each other seat; with the
    # exposed pung turned from 7p into 7m the hand is pure characters, 10 points.
    reader = FakeReader(hand_detections("123456789m5m", "5m", "7p"))
    app = create_app(Settings(_env_file=None))  # type: ignore[call-arg]
    app.dependency_overrides[get_reader] = lambda: reader
    with live_server(app) as url:
        yield url


@pytest.fixture
def page(page_url: str, tmp_path: Path) -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        # the page runs under its real Content-Security-Policy: a violation is an error
        page.on(
            "console",
            lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None,
        )
        page.goto(page_url + "/")
        page.wait_for_selector("body[data-ready='1']")
        yield page
        assert errors == [], errors
        browser.close()


def deltas(page: Any) -> list[str]:
    return [page.locator(f".seat[data-seat='{s}'] .delta").inner_text() for s in range(4)]


def upload_for_seat_1(page: Any, tmp_path: Path) -> None:
    """Guiyang, self-draw by seat 1; the photo read and scored."""
    page.select_option("#city", "guiyang")
    page.select_option("#win", "self_draw")
    page.select_option("#winner", "1")
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(jpeg())
    page.set_input_files("#photo", str(photo))
    page.wait_for_selector("#result:not([hidden])")


def test_upload_fix_a_tile_and_see_the_score_change(page: Any, tmp_path: Path) -> None:
    upload_for_seat_1(page, tmp_path)
    assert deltas(page) == ["-1", "+3", "-1", "-1"]
    assert page.locator("#annotated").get_attribute("src").startswith("data:image/jpeg")
    assert page.locator("#hand .chip:not(.add)").count() == 11
    assert page.locator("#hand .chip.win").get_attribute("data-tile") == "5m"

    # The pung was read as 7p; it is 7m: tap it, pick 7m.
    page.locator("#melds .meld .chip").first.click()
    page.locator("#picker-grid .chip[data-tile='7m']").click()
    # (expect, not wait_for_function: that evaluates a string, which the page's CSP forbids)
    sync_api.expect(page.locator(".seat[data-seat='1'] .delta")).to_have_text("+30")
    assert deltas(page) == ["-10", "+30", "-10", "-10"]
    assert "Pure" in page.locator("#patterns").inner_text()


def test_a_change_of_context_rescores_without_the_photo(page: Any, tmp_path: Path) -> None:
    upload_for_seat_1(page, tmp_path)
    page.select_option("#winner", "0")  # the dealer won instead: no photo sent again
    sync_api.expect(page.locator(".seat[data-seat='0'] .delta")).to_have_text("+3")
    assert deltas(page) == ["+3", "-1", "-1", "-1"]


def test_a_bad_edit_shows_the_error_and_no_score(page: Any, tmp_path: Path) -> None:
    upload_for_seat_1(page, tmp_path)
    page.locator("#hand .chip:not(.add)").first.click()
    page.locator("#picker-grid .chip[data-tile='1z']").click()  # no honors in Guiyang
    page.wait_for_selector("#error:not([hidden])")
    assert "1z" in page.locator("#error").inner_text()
    assert page.locator("#result").is_hidden()


def test_city_fields_show_for_that_city_only(page: Any) -> None:
    page.select_option("#city", "shaanxi")
    assert page.locator("#city-fields legend", has_text="paozi").count() == 1
    page.select_option("#city", "nanning")
    assert page.locator("#city-fields legend", has_text="paozi").count() == 0
    assert page.locator("#city-fields legend", has_text="sealed").count() == 1


def test_a_hand_entered_without_a_photo(page: Any) -> None:
    page.select_option("#city", "shaanxi")
    page.click("#manual")
    for tile in [
        "1m",
        "2m",
        "3m",
        "4m",
        "5m",
        "6m",
        "7m",
        "8m",
        "9m",
        "1p",
        "1p",
        "1p",
        "2p",
        "2p",
    ]:
        page.locator("#hand .chip.add").click()
        page.locator(f"#picker-grid .chip[data-tile='{tile}']").click()
    page.locator("#hand .chip:not(.add)").last.click()
    page.click("#picker-win")
    page.wait_for_selector("#result:not([hidden])")
    assert deltas(page) == ["+36", "-12", "-12", "-12"]  # dealer self-draw: 3 × 2 self × 2 dealer


def test_the_set_apart_tile_follows_the_city(page: Any) -> None:
    page.select_option("#city", "nanchang")
    page.click("#manual")
    page.locator("#indicator .chip.add").click()
    page.locator("#picker-grid .chip[data-tile='3s']").click()
    page.select_option("#city", "nanning")  # Nanning flips fishing tiles, not an indicator
    assert page.locator("#indicator-row").is_hidden()
    assert page.locator("#fishing .chip:not(.add)").get_attribute("data-tile") == "3s"


def test_a_hand_that_does_not_win_shows_no_empty_settlement(page: Any, tmp_path: Path) -> None:
    upload_for_seat_1(page, tmp_path)
    page.locator("#hand .chip:not(.add)").first.click()
    page.locator("#picker-grid .chip[data-tile='9s']").click()  # no longer a winning hand
    sync_api.expect(page.locator("#verdict")).to_have_class(re.compile("invalid"))
    assert page.locator("#items-title").is_hidden() and page.locator("#items").is_hidden()
