"""User input inside error messages: quoted in JSON spellings, escaped, and cut short.

A message names the value it refuses, but it must never carry the whole of a 14 MB string
back, nor a lone surrogate that no UTF-8 response can encode, nor a Python spelling
(``None``, ``True``, ``inf``) that means nothing to someone writing JSON.

>>> quote(None), quote(True), quote(float("inf")), quote(2.5), quote("5m")
('null', 'true', 'Infinity', '2.5', "'5m'")
>>> print(quote(chr(0xD800) + "x"))
'\\ud800x'
>>> quote("9" * 100)
"'99999999999999999999999999999999999999999999999999999999999…' (100 characters)"
"""

from __future__ import annotations

import json
import math

#: Characters of a value shown in a message.
SHOWN = 60


def quote(value: object, limit: int = SHOWN) -> str:
    if isinstance(value, str):
        text = value.encode("utf-8", "backslashreplace").decode("utf-8")
        if len(text) > limit:
            return f"'{text[: limit - 1]}…' ({len(value)} characters)"
        return f"'{text}'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, int | float):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=True, default=str)
        except (TypeError, ValueError):
            text = type(value).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"
