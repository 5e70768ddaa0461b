"""Whether a score read from a photo can be trusted: the tiles were read with confidence
**and** they make a complete winning hand for the city with the context given.

A reading's ``confident`` speaks of tiles only (photos that are not hands keep that
meaning: ``hupai read``, ``hupai label``). A *score* is confident only when, besides, the
scorer took the hand — the tile count with kongs is right, the tiles decompose into a winning
shape, the winning tile is in the hand — and, when the winning tile was neither given nor set
apart, no other tile of the hand as the winning tile would change the settlement. Each reason
it is not is a :class:`Doubt`, with a code the page words in its own language.

>>> request = {"city": "shaanxi", "hand": "123m456p789s11z555z", "win_tile": "5z",
...            "win": "discard", "winner": 0, "discarder": 2}
>>> reading = {"confident": True, "win_tile_set_apart": True, "warnings": []}
>>> score_doubts(reading, request, score_dict(request), None)
()
>>> [d.code for d in score_doubts({**reading, "confident": False}, request, None, "6 tiles")]
['tiles_unsure', 'unscorable']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hupai.scoring import ScoringInputError, result_to_dict, score
from hupai.scoring.tiles import parse_tiles
from hupai.vision.result import Reading

#: Reading warnings that say nothing about the tiles' names: they do not make a score doubtful
#: by themselves (the structure is judged by the scorer, the winning tile below).
NOT_ABOUT_TILES = frozenset({"win_tile_assumed", "tiles_small", "tile_count", "unplaced_tiles"})


@dataclass(frozen=True)
class Doubt:
    """Why a score read from a photo is not confident."""

    #: tiles_unsure | unscorable | not_a_winning_hand | win_tile_matters
    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def score_dict(request: Any) -> dict[str, Any]:
    """The scorer's result as JSON; whatever ``request`` is, the scorer judges it (a body
    that is not an object is a ScoringInputError naming it, never a TypeError)."""
    return result_to_dict(score(request))


def score_doubts(
    reading: Mapping[str, Any],
    request: Mapping[str, Any],
    result: Mapping[str, Any] | None,
    score_error: str | None,
    *,
    win_tile_given: bool = False,
    scorer: Callable[[Mapping[str, Any]], dict[str, Any]] = score_dict,
) -> tuple[Doubt, ...]:
    """The doubts about a photo's score: ``reading`` is :meth:`Reading.to_dict`'s answer,
    ``request`` the request scored, ``result`` its result (None when the scorer refused the
    tiles, saying ``score_error``). Empty: the score is confident."""
    doubts: list[Doubt] = []
    if not reading.get("confident"):
        codes = sorted({str(w.get("code")) for w in reading.get("warnings", [])} - NOT_ABOUT_TILES)
        why = f" ({', '.join(codes)})" if codes else ""
        doubts.append(Doubt("tiles_unsure", f"some tiles may be misread{why}: check them"))
    if result is None:
        doubts.append(Doubt("unscorable", score_error or "the tiles as read cannot be scored"))
        return tuple(doubts)
    if not result.get("valid"):
        doubts.append(
            Doubt("not_a_winning_hand", f"not a winning hand: {result.get('reason', '?')}")
        )
        return tuple(doubts)
    if not win_tile_given and not reading.get("win_tile_set_apart"):
        other = _other_winning_tile(request, result, scorer)
        if other is not None:
            tile, deltas = other
            doubts.append(
                Doubt(
                    "win_tile_matters",
                    f"the winning tile was taken to be {request.get('win_tile')} (none was set "
                    f"apart); if {tile} won, the deltas would be {deltas}",
                )
            )
    return tuple(doubts)


def _other_winning_tile(
    request: Mapping[str, Any],
    result: Mapping[str, Any],
    scorer: Callable[[Mapping[str, Any]], dict[str, Any]],
) -> tuple[str, list[int]] | None:
    """Another tile of the hand that also wins, with other deltas — or None."""
    try:
        hand = parse_tiles(str(request.get("hand", "")))
    except ValueError:
        return None
    for tile in sorted(set(hand)):
        if str(tile) == request.get("win_tile"):
            continue
        try:
            other = scorer({**request, "win_tile": str(tile)})
        except ScoringInputError:
            continue
        if other.get("valid") and other.get("deltas") != result.get("deltas"):
            return str(tile), list(other["deltas"])
    return None


def review_score(reading: Reading) -> float:
    """How far a photo's reading can be trusted, for sorting photos to review (doubtful
    first): confident photos score from 0.5 up, the rest under 0.5; within each, by the
    weakest tile's name probability. A photo with a gap or no tile at all scores lowest.

    >>> from hupai.vision.detections import Detections
    >>> from hupai.vision.reading import build_reading
    >>> det = Detections.make([[50, 30, 80, 70], [81, 30, 111, 70]], [0, 1], [0.99, 0.9])
    >>> review_score(build_reading(det, None, None, (200, 100)))
    0.95
    >>> det = Detections.make([[50, 30, 80, 70], [81, 30, 111, 70]], [0, 1], [0.99, 0.6])
    >>> review_score(build_reading(det, None, None, (200, 100)))
    0.3
    """
    confidence = reading.detections.confidence
    if len(confidence) == 0:
        return 0.0
    weakest = float(confidence.min())
    if reading.confident:
        return round(0.5 + 0.5 * weakest, 4)
    return round((0.25 if len(reading.gaps) else 0.5) * weakest, 4)
