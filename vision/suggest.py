"""A suggested reading: when the most probable reading of a photo is not a winning hand, the
most probable one that is, changing only uncertain tiles to their second or third name.

It is never applied: the reader returns it beside the reading, and the player accepts it
(or fixes the tiles by hand). Whether a reading wins is asked of the scorer with the
table's context (city, winner, how the hand was won, …) — :func:`suggest` takes that as a
callable so that vision does not decide the rules.

>>> suggest_changes([[("1m", 0.9), ("7m", 0.1)], [("2m", 0.6), ("3m", 0.4)]],
...                 lambda names: names == ["1m", "3m"])[0]
[(1, '3m', 0.4)]
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

#: A tile is uncertain when its chosen name has less than this probability.
UNCERTAIN_BELOW = 0.9
#: At most this many tiles change in one suggestion, among at most this many uncertain ones.
MAX_CHANGES = 3
MAX_UNCERTAIN = 8
#: Readings tried at most (most probable first), and the time the search may take: a
#: suggestion is a courtesy, it must not slow every photo that is not a winning hand.
MAX_TRIES = 300
BUDGET_SECONDS = 0.1

Names = Sequence[Sequence[tuple[str, float]]]


def suggest_changes(
    names: Names, wins: Callable[[list[str]], bool], budget: float = BUDGET_SECONDS
) -> tuple[list[tuple[int, str, float]], float] | None:
    """The most probable set of changes (tile index, new name, its probability) that makes
    ``wins(reading)`` true, with the reading's probability relative to the first choice's;
    None when no such reading is found. ``names[i]``: tile i's names, chosen first."""
    chosen = [n[0][0] for n in names]
    uncertain = sorted(
        (i for i, n in enumerate(names) if len(n) > 1 and n[0][1] < UNCERTAIN_BELOW),
        key=lambda i: names[i][0][1],
    )[:MAX_UNCERTAIN]
    # every option: (cost = log p(first) - log p(alternative), tile, name, p)
    options = [
        (math.log(max(names[i][0][1], 1e-9)) - math.log(max(p, 1e-9)), i, name, p)
        for i in uncertain
        for name, p in names[i][1:3]
        if p > 0
    ]
    heap: list[tuple[float, tuple[int, ...]]] = []
    for k in range(1, MAX_CHANGES + 1):
        for combo in itertools.combinations(range(len(options)), k):
            tiles = [options[c][1] for c in combo]
            if len(set(tiles)) < k:
                continue
            heapq.heappush(heap, (sum(options[c][0] for c in combo), combo))
    deadline = time.perf_counter() + budget
    for _ in range(MAX_TRIES):
        if not heap or time.perf_counter() > deadline:
            break
        cost, combo = heapq.heappop(heap)
        reading = list(chosen)
        for c in combo:
            reading[options[c][1]] = options[c][2]
        if wins(reading):
            return [(options[c][1], options[c][2], options[c][3]) for c in combo], math.exp(-cost)
    return None


@dataclass(frozen=True)
class Suggestion:
    """Tiles to change (detection index, from, to, the namer's probability of the new name)
    and the suggested reading's probability relative to the reading returned."""

    changes: tuple[tuple[int, str, str, float], ...]
    relative_probability: float
    request: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "changes": [
                {"detection": i, "from": a, "to": b, "p": round(p, 3)}
                for i, a, b, p in self.changes
            ],
            "relative_probability": round(self.relative_probability, 4),
            "request": self.request,
        }


def suggest(
    reading: Any,
    wins: Callable[[dict[str, Any]], bool],
    city: str | None = None,
    winner: int | None = None,
) -> Suggestion | None:
    """A winning reading close to ``reading`` (a :class:`hupai.vision.reading.Reading`), or None
    when the reading wins already, has no alternatives, or none of its near readings wins.
    ``wins(request_fields)`` asks the scorer about the photo's part of a request."""
    import numpy as np

    from hupai.vision.classes import class_by_name

    if reading.alternatives is None or not len(reading.detections):
        return None
    base = reading.to_request_fields(city, winner)
    if wins(base):
        return None
    n = len(reading.detections)
    names = [[(a["tile"], a["p"]) for a in reading.alternatives_of(i)] for i in range(n)]

    def with_names(new: list[str]) -> dict[str, Any]:
        from hupai.vision.reading import rebuild

        ids = np.array([class_by_name(x) for x in new], np.int64)
        return dict(rebuild(reading, ids).to_request_fields(city, winner))

    found = suggest_changes(names, lambda new: wins(with_names(new)))
    if found is None:
        return None
    changes, rel = found
    new = [n_[0][0] for n_ in names]
    for i, name, _p in changes:
        new[i] = name
    return Suggestion(
        tuple((i, names[i][0][0], name, p) for i, name, p in changes), rel, with_names(new)
    )


def wins_with(context: dict[str, Any]) -> Callable[[dict[str, Any]], bool]:
    """``wins(fields)`` for :func:`suggest`: does the table's ``context`` with these photo
    fields score as a valid win? (A request the scorer refuses does not win.)"""
    from hupai.scoring import ScoringInputError, score

    def wins(fields: dict[str, Any]) -> bool:
        try:
            return bool(score({**context, **fields}).valid)
        except (ScoringInputError, ValueError):
            return False

    return wins
