"""Errors as JSON: one shape for every failure, never a stack trace.

Every error response is ``{"code", "message", "field", "hint"}``: a stable ``code``, the
message (for scoring errors, exactly the ``hupai score`` line: ``<field path>: <problem>``),
the field it concerns (``hand``, ``melds[1].tiles``, ``context.winner``, ``photo``) and, where
there is one, advice for the player.

>>> ApiError(413, "too_large", "photo: over 15 MiB", field="photo").body()
{'code': 'too_large', 'message': 'photo: over 15 MiB', 'field': 'photo', 'hint': None}
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

from hupai.service.redact import redact

log = logging.getLogger("hupai.service")


class ApiError(Exception):
    """A failure the client can act on, with its HTTP status."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        hint: str | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.hint = hint
        self.headers = headers
        self.extra = extra or {}

    def body(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": safe_text(self.message, MAX_MESSAGE),
            "field": None if self.field is None else safe_text(self.field, MAX_FIELD),
            "hint": self.hint,
            **self.extra,
        }

    def response(self) -> JSONResponse:
        return JSONResponse(jsonable_encoder(self.body()), self.status, headers=self.headers)


#: An error message, and the field it names, are cut to these lengths (they may quote input).
MAX_MESSAGE = 400
MAX_FIELD = 120


def safe_text(text: str, limit: int) -> str:
    """Text any UTF-8 response can carry (a lone surrogate is written as its escape), cut to
    ``limit`` characters.

    >>> print(safe_text(chr(0xD800) + ": unknown field", 100))
    \ud800: unknown field
    >>> safe_text("x" * 10, 5)
    'xxxx…'
    """
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def scoring_error(exc: ValueError, prefix: str = "") -> ApiError:
    """A ``ScoringInputError`` as a 422; ``prefix`` places the request inside the body
    (``context.`` for the JSON part of ``POST /v1/score``)."""
    path = getattr(exc, "path", "") or None
    message = str(exc)
    if prefix and path:
        path = prefix + path
        message = prefix + message
    return ApiError(422, "invalid_request", message, field=path)


_STATUS_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    415: "unsupported_media_type",
    503: "busy",
}


def _field_path(loc: tuple[Any, ...] | list[Any]) -> str:
    """FastAPI's ``("body", "photo")`` → ``photo``; ``("query", "image")`` → ``image``."""
    parts = list(loc[1:] if loc and loc[0] in ("body", "query", "path", "header") else loc)
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "request"


#: Pydantic's messages that name Python types, said in JSON's words.
_PLAIN = {
    "dict_type": "expected a JSON object",
    "model_attributes_type": "expected a JSON object",
    "list_type": "expected a JSON array",
    "int_type": "expected a whole number",
    "int_parsing": "expected a whole number",
    "int_from_float": "expected a whole number",
    "float_type": "expected a number",
    "float_parsing": "expected a number",
    "bool_type": "expected true or false",
    "bool_parsing": "expected true or false",
    "string_type": "expected text",
    "json_invalid": "not valid JSON",
    "missing": "required",
}


def _plain(error: Any) -> str:
    """A validation error's message without Python's type names.

    >>> _plain({"type": "value_error",
    ...         "msg": "Value error, Expected UploadFile, received: <class 'str'>"})
    'expected a file: send it as a file in the form (not as a text field)'
    >>> _plain({"type": "x", "msg": "Input should be an instance of <class 'bytes'>"})
    'not a value this field takes'
    """
    message = str(error.get("msg", "invalid"))
    if "UploadFile" in message:
        return "expected a file: send it as a file in the form (not as a text field)"
    if "<class " in message or "NoneType" in message:
        return "not a value this field takes"
    return _PLAIN.get(str(error.get("type")), message.removeprefix("Value error, ").lower())


def install(app: FastAPI) -> None:
    """Route every failure through :class:`ApiError`'s shape."""

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return exc.response()

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": "invalid request"}
        field = _field_path(tuple(first.get("loc", ())))
        message = f"{field}: {_plain(first)}"
        if len(errors) > 1:
            message += f" (and {len(errors) - 1} more)"
        return ApiError(422, "invalid_request", message, field=field).response()

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _STATUS_CODES.get(exc.status_code, f"http_{exc.status_code}")
        headers = getattr(exc, "headers", None)
        if exc.status_code == 405:
            headers = {**(headers or {}), "Allow": _allowed_methods(request)}
        return ApiError(exc.status_code, code, str(exc.detail), headers=headers).response()

    @app.exception_handler(ClientDisconnect)
    async def _gone(request: Request, exc: ClientDisconnect) -> JSONResponse:
        # the client went away (or a deadline closed its half-sent request): nobody to answer
        return ApiError(400, "client_disconnected", "the request ended before its body").response()


def _allowed_methods(request: Request) -> str:
    """Every method some route serves at this path (Starlette names only the first route's,
    and each method of a path is its own route here)."""
    from starlette.routing import Match

    methods: set[str] = set()
    # matched from the app's root (a mount has moved the scope's root_path to itself)
    scope = {**request.scope, "method": "GET", "root_path": request.scope.get("app_root_path", "")}
    for route in _routes(request.app.routes):
        match, _ = route.matches(scope)
        if match is not Match.NONE:
            # a mount (static files, the docs' assets) serves GET and HEAD whatever it holds
            methods |= set(getattr(route, "methods", None) or ("GET", "HEAD"))
    return ", ".join(sorted(methods))


def _routes(routes: list[Any]) -> list[Any]:
    """The routes, those of included routers too (FastAPI keeps an included router whole,
    its routes with their full paths)."""
    out: list[Any] = []
    for route in routes:
        inner = getattr(route, "original_router", None)
        out.extend(_routes(inner.routes) if inner is not None else [route])
    return out


async def send_error(send: Send, error: ApiError, close: bool = False) -> None:
    """Answer ``error`` from ASGI middleware, before or without the app (``close``: the
    connection is not to be reused, e.g. a body left unread)."""
    import json

    body = json.dumps(jsonable_encoder(error.body())).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((k.lower().encode(), v.encode()) for k, v in (error.headers or {}).items()),
    ]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Unexpected:
    """ASGI middleware, innermost: a bug (an exception no handler took) is logged with its
    traceback and answered 500 in the API's shape, and the exception goes no further — so
    the answer passes through the other middleware (security headers) and the server keeps
    the keep-alive connection instead of resetting it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            log.exception(
                "unhandled error on %s %s", scope.get("method"), redact(str(scope.get("path")))
            )
            if started:  # the answer is half sent: only closing tells the client
                raise
            await send_error(
                send,
                ApiError(
                    500,
                    "internal_error",
                    f"internal error ({type(exc).__name__}); the request was not processed",
                ),
            )
