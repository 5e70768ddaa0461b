"""What the routes are given (FastAPI dependencies): the settings, the photo reader, the pool
of read workers and the store of annotated photos, all kept on ``app.state``."""

from __future__ import annotations

import math
import uuid
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from fastapi import Request

from hupai.service.errors import ApiError
from hupai.service.limits import RateLimit
from hupai.service.reader import Reader
from hupai.service.settings import Settings

T = TypeVar("T")


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_reader(request: Request) -> Reader:
    """The photo reader loaded at start-up (tests override this dependency)."""
    reader: Reader | None = getattr(request.app.state, "reader", None)
    if reader is None:
        raise ApiError(503, "not_ready", "the tile reader is not loaded yet; try again shortly")
    return reader


class ReadPool:
    """Runs photo reads in worker threads, ``concurrency`` at a time; beyond ``max_waiting``
    requests in flight, new ones are turned away (503) instead of queueing without end."""

    def __init__(self, concurrency: int, max_waiting: int) -> None:
        self.limiter = anyio.CapacityLimiter(concurrency)
        self.max_waiting = max_waiting
        self.in_flight = 0

    async def run(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        if self.in_flight >= self.max_waiting:
            raise ApiError(
                503,
                "busy",
                f"the server is reading {self.in_flight} photos; try again in a moment",
                headers={"Retry-After": "2"},
            )
        self.in_flight += 1
        try:
            return await anyio.to_thread.run_sync(
                partial(fn, *args, **kwargs), limiter=self.limiter
            )
        finally:
            self.in_flight -= 1


def spend_table_creation(request: Request) -> str:
    """Per-client rate limit on creating tables (each is kept in the database): 429 with
    the seconds to wait, beyond ``tables_burst`` at once and ``tables_per_hour``. Returns
    the client, for :meth:`RateLimit.refund` when the request creates nothing."""
    limit: RateLimit = request.app.state.table_limit
    client = request.client.host if request.client else "unknown"
    wait = limit.take(client)
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise ApiError(
            429,
            "too_many_tables",
            f"this device made too many tables just now; try again in {seconds} s",
            headers={"Retry-After": str(seconds)},
            hint="A table lasts a whole game: add hands to the one you made.",
        )
    return client


def get_pool(request: Request) -> ReadPool:
    pool: ReadPool = request.app.state.pool
    return pool


class AnnotatedStore:
    """The latest annotated photos, for ``?image=url``, each with its reading — so that a
    table can keep a hand read a moment ago without the photo sent again (in memory, this
    process only; the oldest is dropped beyond ``keep``)."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._images: OrderedDict[str, tuple[bytes, dict[str, Any] | None]] = OrderedDict()

    def put(self, jpeg: bytes, reading: dict[str, Any] | None = None) -> str:
        key = uuid.uuid4().hex
        self._images[key] = (jpeg, reading)
        while len(self._images) > self.keep:
            self._images.popitem(last=False)
        return key

    def get(self, key: str) -> bytes | None:
        kept = self._images.get(key)
        return None if kept is None else kept[0]

    def reading(self, key: str) -> dict[str, Any] | None:
        kept = self._images.get(key)
        return None if kept is None else kept[1]


def get_store(request: Request) -> AnnotatedStore:
    store: AnnotatedStore = request.app.state.annotated
    return store
