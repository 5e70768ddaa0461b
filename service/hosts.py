"""The ``Host`` check: a request must name this server by an address or by one of the allowed
names. A page on another site can make a browser on the table's Wi-Fi call a LAN server by
rebinding its own domain name to the server's address (DNS rebinding); the browser then
still sends that domain as ``Host``, which is refused here (421 ``unknown_host``). An IP
address cannot be rebound, so any address literal is accepted: ``make serve`` (127.0.0.1)
and a phone on the LAN (``http://192.168.1.20:8000``) work as they are.

>>> allowed("192.168.1.20:8000", ["localhost"]), allowed("[::1]:8000", [])
(True, True)
>>> allowed("evil.example:8000", ["localhost", "*.local"]), allowed("pc.local", ["*.local"])
(False, True)
"""

from __future__ import annotations

import ipaddress
from fnmatch import fnmatchcase

from starlette.types import ASGIApp, Receive, Scope, Send

from hupai.service.errors import ApiError, send_error


def allowed(host: str, names: list[str]) -> bool:
    """Whether ``host`` (a Host header, port included) is an address or an allowed name."""
    name = _without_port(host.strip().lower())
    if not name:
        return False
    try:
        ipaddress.ip_address(name.strip("[]"))
        return True
    except ValueError:
        pass
    return any(pattern == "*" or fnmatchcase(name, pattern.lower()) for pattern in names)


def _without_port(host: str) -> str:
    if host.startswith("["):  # [v6]:port
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class HostCheck:
    """ASGI middleware: refuse a request whose ``Host`` is neither an address nor allowed."""

    def __init__(self, app: ASGIApp, names: list[str]) -> None:
        self.app = app
        self.names = names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), "")
        if allowed(host, self.names):
            await self.app(scope, receive, send)
            return
        shown = host[:80] or "none"
        await send_error(
            send,
            ApiError(
                421,
                "unknown_host",
                f"Host {shown!r}: this server answers to its address or to "
                f"{', '.join(self.names) or 'its address only'}",
                hint="Behind a proxy or under a name of your own, add the name to "
                "HUPAI_ALLOWED_HOSTS (docs/service.md).",
            ),
            close=True,
        )
