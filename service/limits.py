"""Request-body limit as ASGI middleware: a body over the limit is answered 413 before it is
read whole (by its Content-Length, or while it streams in when it is chunked); a photo route
sent anything but the multipart form it documents is answered 415 before its body is read
(JSON on a photo route would otherwise be read under the photo's limit)."""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from fnmatch import fnmatchcase
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyTooLarge(Exception):
    pass


class BodyLimit:
    """Refuse request bodies larger than the limit with a JSON 413: ``limit`` bytes on the
    photo routes (``photo_paths``), ``json_limit`` on every other route — a JSON request is
    a few hundred bytes, so a 14 MB one is refused before it is read or parsed."""

    def __init__(
        self,
        app: ASGIApp,
        limit: int,
        message: str,
        *,
        json_limit: int | None = None,
        photo_paths: tuple[str, ...] = (),
    ) -> None:
        self.app = app
        self.photo_limit = limit
        self.json_limit = json_limit if json_limit is not None else limit
        self.photo_paths = photo_paths
        self.photo_message = message

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        photo = not self.photo_paths or any(fnmatchcase(path, p) for p in self.photo_paths)
        if photo and self.photo_paths and not _multipart(scope):
            await _not_a_form(scope, send)
            return
        limit = self.photo_limit if photo else self.json_limit
        message = (
            self.photo_message
            if photo
            else f"request: larger than the {self.json_limit / 1024:g} KiB allowed for a "
            "JSON request"
        )
        refuse = _Refusal(message, "photo" if photo else "request", photo)
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await refuse(send)
            return
        received = 0
        exceeded = False
        started = False

        async def limited_receive() -> Message:
            nonlocal received, exceeded
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    exceeded = True
                    raise BodyTooLarge
            return message

        async def guarded_send(message: Message) -> None:
            # Frameworks turn an error while reading the body into their own 400: once the
            # limit is passed, what the app answers is replaced by the 413.
            nonlocal started
            if exceeded:
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            if not exceeded:  # BodyTooLarge, or what the app made of it
                raise
        if exceeded and not started:
            await refuse(send)


class _Refusal:
    def __init__(self, message: str, field: str, photo: bool) -> None:
        self.message = message
        self.field = field
        self.hint = "Send a smaller photo (a phone's normal photo size is fine)." if photo else None

    async def __call__(self, send: Send) -> None:
        body = json.dumps(
            {"code": "too_large", "message": self.message, "field": self.field, "hint": self.hint}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


#: The content types the photo routes read: a form (a photo is sent in a multipart one; a
#: urlencoded one can carry no file, and is answered 422 naming the missing photo).
PHOTO_TYPES = (b"multipart/form-data", b"application/x-www-form-urlencoded")


def _content_type(scope: Scope) -> bytes:
    headers: Any = scope.get("headers", [])
    for name, value in headers:
        if name == b"content-type":
            return bytes(value).split(b";")[0].strip().lower()
    return b""


def _multipart(scope: Scope) -> bool:
    """A request a photo route may read: a form, or one with no body to read (the route
    then names the missing photo; or another method, which it refuses with 405)."""
    if scope.get("method") != "POST":  # the photo routes take POST only
        return True
    kind = _content_type(scope)
    if not kind and _content_length(scope) in (0, None) and not _chunked(scope):
        return True
    return kind in PHOTO_TYPES


def _chunked(scope: Scope) -> bool:
    headers: Any = scope.get("headers", [])
    return any(name == b"transfer-encoding" for name, _ in headers)


async def _not_a_form(scope: Scope, send: Send) -> None:
    """415 at once, the body unread (the connection is then closed)."""
    from hupai.service.errors import ApiError, send_error

    kind = _content_type(scope).decode("latin-1")[:80] or "no content type"
    await send_error(
        send,
        ApiError(
            415,
            "unsupported_media_type",
            f"request: send the photo as multipart/form-data (a form with a 'photo' file), "
            f"not {kind}",
            field="photo",
            hint="Post a form: curl -F photo=@hand.jpg …",
        ),
        close=True,
    )


def _content_length(scope: Scope) -> int | None:
    headers: Any = scope.get("headers", [])
    for name, value in headers:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class RateLimit:
    """A token bucket per client (its address): ``burst`` at once, then one every
    ``3600 / per_hour`` seconds. :meth:`take` answers the seconds to wait, 0 when allowed.
    At most ``clients`` buckets are kept (the least recently used dropped: it was full or
    nearly, a client long gone)."""

    def __init__(self, per_hour: int, burst: int, clients: int = 10_000) -> None:
        self.interval = 3600 / per_hour
        self.burst = burst
        self.clients = clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, client: str, now: float | None = None) -> float:
        """Spend one for ``client``; the seconds until one is free when none is.

        >>> limit = RateLimit(per_hour=60, burst=2)
        >>> [limit.take("a", now=0), limit.take("a", now=0), limit.take("a", now=0)]
        [0.0, 0.0, 60.0]
        >>> limit.take("a", now=60), limit.take("b", now=60)
        (0.0, 0.0)
        """
        now = time.monotonic() if now is None else now
        tokens, then = self._buckets.pop(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) / self.interval)
        wait = 0.0
        if tokens >= 1:
            tokens -= 1
        else:
            wait = (1 - tokens) * self.interval
        self._buckets[client] = (tokens, now)
        while len(self._buckets) > self.clients:
            self._buckets.popitem(last=False)
        return wait

    def refund(self, client: str) -> None:
        """Give back what :meth:`take` spent (the request made nothing: a refusal)."""
        held = self._buckets.get(client)
        if held is not None:
            self._buckets[client] = (min(float(self.burst), held[0] + 1), held[1])
