"""The progress line: rate and ETA, redrawn in place on a terminal, a line every few seconds
elsewhere.
"""

from __future__ import annotations

import time
from typing import IO


class Progress:
    """A progress line with rate and ETA on a terminal (redrawn in place); elsewhere a line
    every few seconds."""

    def __init__(self, total: int, stream: IO[str] | None, *, every: float = 5.0) -> None:
        self.total = total
        self.stream = stream
        self.done = 0
        self.began = time.monotonic()
        self.tty = bool(stream is not None and getattr(stream, "isatty", lambda: False)())
        self.every = every
        self._last = 0.0

    def line(self) -> str:
        elapsed = time.monotonic() - self.began
        rate = self.done / elapsed if elapsed > 0 else 0.0
        share = self.done / self.total if self.total else 1.0
        bar = "#" * round(24 * share)
        eta = "--:--" if rate == 0 else _clock((self.total - self.done) / rate)
        return (
            f"labelling [{bar:<24}] {self.done}/{self.total} {100 * share:3.0f}%  "
            f"{rate:.2f} photos/s  ETA {eta}  elapsed {_clock(elapsed)}"
        )

    def advance(self) -> None:
        self.done += 1
        if self.stream is None:
            return
        now = time.monotonic()
        if self.tty:
            self.stream.write("\r" + self.line())
            self.stream.flush()
        elif now - self._last >= self.every or self.done == self.total:
            self.stream.write(self.line() + "\n")
            self.stream.flush()
            self._last = now

    def close(self) -> None:
        if self.stream is not None and self.tty and self.total:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    s = max(0, round(seconds))
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"
