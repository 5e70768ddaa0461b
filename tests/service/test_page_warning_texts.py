"""Every warning the reader can raise has the page's words for it in both languages: the
advice (English and Chinese) and the Chinese title — a code without them reaches a player
as the command line's English advice."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hupai.vision.result import WARNING_CODES

I18N = (Path(__file__).parents[2] / "service" / "static" / "i18n.js").read_text(encoding="utf-8")


def table(name: str, lang: str) -> set[str]:
    """The keys of ``const name = { lang: { key: ... } }`` in i18n.js."""
    block = re.search(rf"const {name} = \{{(.*?)\n\}};", I18N, re.S)
    assert block, f"{name} not found in i18n.js"
    part = re.search(rf"\n  {lang}: \{{(.*?)\n  \}}", block.group(1), re.S)
    assert part, f"{name}.{lang} not found in i18n.js"
    return set(re.findall(r"^\s{4}(\w+):", part.group(1), re.M))


@pytest.mark.parametrize(
    ("name", "lang"), [("ADVICE_TEXT", "en"), ("ADVICE_TEXT", "zh"), ("WARNING_TEXT", "zh")]
)
def test_every_reading_warning_has_the_pages_words(name: str, lang: str) -> None:
    missing = sorted(set(WARNING_CODES) - table(name, lang))
    assert not missing, f"{name}.{lang} lacks {missing}"
