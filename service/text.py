"""One text check for the whole API: every string a JSON request carries, keys included, must
be text that any answer and any database can hold again — no lone UTF-16 surrogate (``"\\ud800"``
is valid JSON but not text: echoing or storing it fails later) and no control character but
tab and line breaks (PostgreSQL refuses NUL in text). Checked once, at the boundary, before any
route sees the request: :class:`TextCheck` for JSON bodies, :func:`check_text` for JSON carried
in a form field.

>>> check_text({"players": ["Ann", "B\\ud800"]}, "request")
Traceback (most recent call last):
...
service.errors.ApiError: request.players[1]: not text: a lone surrogate \\ud800 (half of a pair)
>>> check_text({"name": "a\\tb"}, "request")
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.errors import ApiError, send_error

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def check_text(value: Any, field: str) -> None:
    """Refuse (422 ``invalid_text``, naming where) the first string in ``value`` that is not
    text. Iterative: a deeply nested value costs no recursion."""
    stack: list[tuple[Any, str]] = [(value, field)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            _check_string(item, path)
        elif isinstance(item, dict):
            for key, inner in item.items():
                _check_string(str(key), f"{path}.{key!s:.40}")
                stack.append((inner, f"{path}.{key}"))
        elif isinstance(item, list):
            stack.extend((inner, f"{path}[{i}]") for i, inner in enumerate(item))


def _check_string(text: str, path: str) -> None:
    found = _SURROGATE.search(text)
    if found:
        raise ApiError(
            422,
            "invalid_text",
            f"{path}: not text: a lone surrogate \\u{ord(found.group()):04x} (half of a pair)",
            field=path,
        )
    found = _CONTROL.search(text)
    if found:
        raise ApiError(
            422,
            "invalid_text",
            f"{path}: not text: the control character U+{ord(found.group()):04X}",
            field=path,
        )


class TextCheck:
    """ASGI middleware: a JSON request body (already bounded by the body limit) is read,
    parsed and checked before the app sees it, then handed on unchanged. A body that is not
    JSON at all is left to the route to refuse."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_json(scope):
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        body = b""
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        try:
            check_text(json.loads(body), "request")
        except ApiError as exc:
            await send_error(send, exc)
            return
        except (ValueError, RecursionError):
            pass  # not JSON (or too deep): the route's own parser says so

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


def _is_json(scope: Scope) -> bool:
    """A JSON body by its type; with no type at all, FastAPI reads the body as JSON too."""
    if scope.get("method") in ("GET", "HEAD", "OPTIONS"):
        return False
    for name, value in scope.get("headers", []):
        if name == b"content-type":
            kind = value.split(b";")[0].strip().lower()
            return bool(kind == b"application/json" or kind.endswith(b"+json"))
    return True
