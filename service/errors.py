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
        message = f"{field}: {str(first.get('msg', 'invalid')).lower()}"
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

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # A bug, not bad input: logged with its traceback, answered without one.
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return ApiError(
            500,
            "internal_error",
            f"internal error ({type(exc).__name__}); the request was not processed",
        ).response()


def _allowed_methods(request: Request) -> str:
    """Every method some route serves at this path (Starlette names only the first route's,
    and each method of a path is its own route here)."""
    from starlette.routing import Match

    methods: set[str] = set()
    for route in request.app.routes:
        match, _ = route.matches({**request.scope, "method": "GET"})
        if match is not Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return ", ".join(sorted(methods))
