"""uvicorn's HTTP/1.1 protocol with deadlines, so that idle and half-sent requests end.

uvicorn closes a keep-alive connection that stays idle *after* a response, but waits
forever for a connection that sends nothing, or part of its headers, or part of its body
(measured: still open after 12 s, with no end). Each such connection holds a socket and
memory; enough of them starve the server. :func:`timed_protocol` gives a protocol class
that closes a connection whose request head has not arrived ``head_timeout`` seconds after
the connection (or the previous response), and one whose body has not arrived
``body_timeout`` seconds after its head.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


def timed_protocol(head_timeout: float, body_timeout: float) -> type[H11Protocol]:
    """An :class:`H11Protocol` subclass with these deadlines (for ``uvicorn.run(http=…)``)."""

    class TimedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _phase: str | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm(head_timeout)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._cancel()  # idle between requests: uvicorn's keep-alive timeout applies

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel()
            super().connection_lost(exc)

        def _follow(self) -> None:
            state = self.conn.their_state
            if state is h11.IDLE:  # part of a head, or nothing yet after a keep-alive
                if self._deadline is None:
                    self._arm(head_timeout)
            elif state is h11.SEND_BODY:
                if getattr(self, "_phase", None) != "body":
                    self._arm(body_timeout, "body")
            else:
                self._cancel()

        def _arm(self, seconds: float, phase: str = "head") -> None:
            self._cancel()
            self._phase = phase
            self._deadline = self.loop.call_later(seconds, self._expired)

        def _cancel(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None
            self._phase = None

        def _expired(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

    return TimedH11Protocol


def server_options(settings: Any) -> dict[str, Any]:
    """How ``hupai serve`` runs uvicorn (the live-server tests run it the same way): the
    deadlines above, the keep-alive, no ``server: uvicorn`` banner (it tells an attacker what
    to try), and no trust in ``X-Forwarded-*`` headers that any client can send."""
    return {
        "http": timed_protocol(settings.head_timeout, settings.body_timeout),
        "timeout_keep_alive": int(settings.keep_alive),
        "server_header": False,
        "proxy_headers": False,
    }


__all__ = ["server_options", "timed_protocol"]
