"""Paths as logs may show them: a table's token (its write or read key) never appears in a
log line, whoever writes it (uvicorn's access log, the service's own).

>>> redact("/v1/tables/Ab3dEf6hIj9kLm2nOp5qRs8t/hands/3")
'/v1/tables/…/hands/3'
>>> redact("/v1/read")
'/v1/read'

A token in a misspelled path is taken out too: any path segment of 12 or more letters and
digits (a table's token has 24; the annotated photos' keys 32), wherever the path points.

>>> redact("/V1/tables/Ab3dEf6hIj9kLm2nOp5qRs8t")
'/V1/tables/…'
>>> redact("/v1/tables//Ab3dEf6hIj9kLm2nOp5qRs8t/x /nope/Ab3dEf6hIj9k?q=1")
'/v1/tables//…/x /nope/…?q=1'
>>> redact("GET /static/app.js HTTP/1.1")
'GET /static/app.js HTTP/1.1'
"""

from __future__ import annotations

import logging
import re

_TOKEN = re.compile(r"(/v1/tables/)[^/?#\s\"]+")
#: A path segment that may be a key, whatever path it is in.
_KEYLIKE = re.compile(r"(?<=/)[A-Za-z0-9]{12,}(?=[/?#\s\"']|$)")


def redact(text: str) -> str:
    return _KEYLIKE.sub("…", _TOKEN.sub(r"\1…", text))


class RedactTokens(logging.Filter):
    """A log filter that takes tokens out of a record's message and arguments."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


def install() -> None:
    """Filter uvicorn's access and error logs and the service's own (idempotent)."""
    for name in ("uvicorn.access", "uvicorn.error", "hupai.service"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactTokens) for f in logger.filters):
            logger.addFilter(RedactTokens())
