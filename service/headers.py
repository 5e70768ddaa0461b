"""Security headers on every response (ASGI middleware).

The phone page runs no inline script, so its policy allows scripts, styles and connections
to this origin only; photos come back as ``data:`` URLs. The API docs (``/docs``, ``/redoc``,
served from local assets) need FastAPI's inline bootstrap script and ReDoc's blob: worker, so
they get a policy of their own. Only the page may ask for the camera.

>>> policy_for("/")["permissions-policy"]
'camera=(self), microphone=(), geolocation=()'
>>> "frame-ancestors 'none'" in policy_for("/v1/read")["content-security-policy"]
True
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'; object-src 'none'"
)
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
)
COMMON = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
}
DOCS_PATHS = ("/docs", "/redoc")
#: Answers under these paths carry a table's token (in the body, or the path itself is the
#: key): no cache, shared or private, may keep them.
TOKEN_PATHS = ("/v1/tables",)
#: Headers no answer carries: the server's make and version tell an attacker what to try.
DROPPED = {b"server", b"x-powered-by"}


def policy_for(path: str) -> dict[str, str]:
    docs = path.startswith(DOCS_PATHS)
    camera = "self" if path == "/" else ""
    return {
        **COMMON,
        "content-security-policy": DOCS_CSP if docs else PAGE_CSP,
        "permissions-policy": f"camera=({camera}), microphone=(), geolocation=()",
    }


def forced_for(path: str) -> dict[str, str]:
    """Headers that replace whatever the route set."""
    return {"cache-control": "no-store"} if path.startswith(TOKEN_PATHS) else {}


class SecurityHeaders:
    """ASGI middleware, outermost: every answer gets the headers, errors (413, 421, 500)
    included, since they all pass through here."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope["path"])
        extra = [(k.encode(), v.encode()) for k, v in policy_for(path).items()]
        forced = [(k.encode(), v.encode()) for k, v in forced_for(path).items()]
        replaced = DROPPED | {k for k, _ in forced}

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in replaced]
                present = {name.lower() for name, _ in kept}
                message["headers"] = [
                    *kept,
                    *forced,
                    *((k, v) for k, v in extra if k not in present),
                ]
            await send(message)

        await self.app(scope, receive, with_headers)
