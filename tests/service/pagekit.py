"""Helpers for the page's browser tests: Debian's Chromium driven by Playwright (no browser
download), phone-sized pages that fail on a script error or a CSP violation, axe-core
(vendored under tests/service/vendor, test-only), a throttled link, and the check that no
English word is left on a Chinese screen."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
AXE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"

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
PORTRAIT = {"width": 390, "height": 844}
LANDSCAPE = {"width": 844, "height": 390}


class Phone:
    """One phone: a browser context with a page; ``errors`` collects script errors and
    Content-Security-Policy violations (checked when the phone is put away)."""

    def __init__(self, browser: Any, viewport: dict[str, int], locale: str) -> None:
        self.context = browser.new_context(viewport=viewport, has_touch=True, locale=locale)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on(
            "console",
            lambda m: self.errors.append(m.text) if "Content Security Policy" in m.text else None,
        )

    def open(self, url: str) -> Any:
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready='1']")
        return self.page

    def close(self) -> None:
        self.context.close()
        assert self.errors == [], self.errors


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def throttle(page: Any, kbit_per_s: float, latency_ms: float = 40) -> None:
    """Slow this page's link both ways (DevTools: Network.emulateNetworkConditions)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    rate = kbit_per_s * 1000 / 8  # bytes per second
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": latency_ms,
            "downloadThroughput": rate,
            "uploadThroughput": rate,
        },
    )


def axe_violations(page: Any, impacts: tuple[str, ...] = ("serious", "critical")) -> list[str]:
    """axe-core's violations of ``impacts`` on the page as it is now ("rule: target…").
    axe is given to the page through the DevTools protocol (the page's CSP allows no
    script but its own, and this one is never served)."""
    if not page.evaluate("() => Boolean(window.axe)"):
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;undefined")
    result = page.evaluate(
        "async () => await window.axe.run(document, {resultTypes: ['violations']})"
    )
    return [
        f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:4]}"
        for v in result["violations"]
        if v["impact"] in impacts
    ]


WORD = re.compile(r"[A-Za-z]{2,}")
#: Not English words: file formats named by their acronyms.
ALLOWED = {"CSV", "JSON"}

VISIBLE_TEXT = """() => {
  const out = [document.body.innerText];
  const shown = (el) => el.getClientRects().length > 0;
  for (const el of document.querySelectorAll('[aria-label], [placeholder], [title], [alt]')) {
    if (!shown(el)) continue;
    for (const a of ['aria-label', 'placeholder', 'title', 'alt']) {
      if (el.hasAttribute(a)) out.push(el.getAttribute(a));
    }
  }
  for (const sel of document.querySelectorAll('select')) {
    if (shown(sel)) for (const o of sel.options) out.push(o.textContent);
  }
  const lang = document.querySelector('[data-testid=lang]');
  return {text: out.join('\\n'), lang: lang ? lang.textContent : ''};
}"""


def english_words(page: Any) -> list[str]:
    """English words a Chinese screen shows or reads out (text, labels, placeholders,
    options), less the button that offers English itself and tile codes (one letter)."""
    seen = page.evaluate(VISIBLE_TEXT)
    text = seen["text"].replace(seen["lang"], " ")
    return sorted({w for w in WORD.findall(text) if w not in ALLOWED})
