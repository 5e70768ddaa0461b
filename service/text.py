"""One text check for the whole API: every string a JSON request carries, keys included, must
be text that any answer and any database can hold again — no lone UTF-16 surrogate (``"\\ud800"``
is valid JSON but not text: echoing or storing it fails later) and no control character but
tab and line breaks (PostgreSQL refuses NUL in text). Checked once, at the boundary, before any
route sees the request: :class:`TextCheck` for JSON bodies, :func:`check_text` for JSON carried
in a form field.

>>> check_text({"players": ["Ann", "B\\ud800"]}, "request")
Traceback (most recent call last):
...
hupai.service.errors.ApiError: request.players[1]: not text: a lone surrogate \\ud800
(half of a pair)
>>> check_text({"name": "a\\tb"}, "request")
"""

from __future__ import annotations

from typing import Any

import anyio.to_thread
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hupai.scoring import ScoringInputError
from hupai.scoring.request import loads_request, non_text
from hupai.service.errors import ApiError, send_error


def check_text(value: Any, field: str) -> None:
    """Refuse (422 ``invalid_text``, naming where) the first string in ``value`` that is not
    text (:func:`hupai.scoring.request.non_text`)."""
    found = non_text(value, field)
    if found is not None:
        where, why = found
        raise ApiError(422, "invalid_text", f"{where}: not text: {why}", field=where)


#: The longest number a request may write (digits): far beyond any score or count, far below
#: Python's own limit, whose message would advise ``sys.set_int_max_str_digits``.
MAX_DIGITS = 100
#: The name :func:`read_json` gives a whole request body.
BODY = "request"


def read_json(data: str | bytes, field: str) -> Any:
    """The API's one JSON reader: JSON as ``hupai score`` reads it (UTF-8, no duplicate keys,
    no NaN/Infinity), numbers of at most :data:`MAX_DIGITS` digits, text that is text; every
    refusal a 422 naming ``field``.

    >>> read_json('{"a": 1, "a": 2}', "context")
    Traceback (most recent call last):
    ...
    hupai.service.errors.ApiError: context: key 'a' appears twice in one object
    >>> read_json('{"n": ' + "9" * 500 + "}", "request")
    Traceback (most recent call last):
    ...
    hupai.service.errors.ApiError: request: a number 500 digits long; at most 100
    """
    try:
        value = loads_request(data, field, max_digits=MAX_DIGITS)
    except ScoringInputError as exc:
        message = f"{field}: nested too deeply" if "recursion" in str(exc) else str(exc)
        raise ApiError(422, "invalid_request", message, field=field) from None
    # a body's fields are named from its top (players[1]), a form field's from it (context.x)
    check_text(value, "" if field == BODY else field)
    return value


class TextCheck:
    """ASGI middleware: a JSON request body (already bounded by the body limit) is read by
    :func:`read_json`, in a worker thread, before the app sees it, then handed on unchanged —
    so that every JSON route refuses bad JSON, long numbers and non-text alike, before
    anything is stored."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_json(scope):
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        chunks: list[bytes] = []
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body.strip():  # no body at all: the route says what it needs
            try:  # in a worker thread: the event loop only moves bytes
                await anyio.to_thread.run_sync(read_json, body, BODY)
            except ApiError as exc:
                await send_error(send, exc)
                return

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
