"""A time budget per photo read: a read stops between its passes once the budget is spent
(:class:`ReadTimeout`), so a photo costs at most its budget and one more pass."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: (monotonic deadline, the budget in seconds) of the read running in this thread, if any
_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("hupai_read_deadline", default=None)


class ReadTimeout(RuntimeError):
    """A read ran past its time budget (:func:`read_deadline`); raised between passes, so a
    read costs at most its budget and one more pass."""

    def __init__(self, seconds: float, stage: str) -> None:
        super().__init__(f"reading took longer than {seconds:g} s (stopped before {stage})")
        self.seconds = seconds
        self.stage = stage


@contextmanager
def read_deadline(seconds: float | None) -> Iterator[None]:
    """Reads in this block (this thread) stop with :class:`ReadTimeout` after ``seconds``."""
    token = _DEADLINE.set(None if seconds is None else (time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check_deadline(stage: str) -> None:
    """Raise :class:`ReadTimeout` when the read's budget is spent, naming what comes next."""
    budget = _DEADLINE.get()
    if budget is not None and time.monotonic() > budget[0]:
        raise ReadTimeout(budget[1], stage)
