"""Whether a score read from a photo can be trusted: the tiles were read with confidence
**and** they make a complete winning hand for the city with the context given.

A tile doubted for its name alone is settled by the hand's shape when the hand as read wins
and no other name the namer gave it would (:func:`settled_by_shape`): a misread tile seldom
leaves a winning hand winning, and never when the namer's other names for it are the ones
that would.

(:func:`settled_tiles` names them for the answer.)

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

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from hupai.scoring import ScoringInputError, result_to_dict, score
from hupai.scoring.tiles import format_tiles, parse_tiles
from hupai.vision.result import Reading

#: The only warnings a reading settled by the hand's shape may carry: any other says the photo's
#: layout was read with trouble (a meld not made out, tiles left over, a tile set apart that may
#: belong to a meld), and a doubt about a name there was often not the photo's only error
#: (camerash composites: an exposed pung of 4p read as an added kong of 2p, its meld
#: ``unreadable``, while the tile doubted was a 2z of the hand).
SETTLES_WITH = frozenset({"win_tile_assumed", "tiles_small"})
#: At most this many tiles doubted for their names are settled by the hand's shape: each
#: more multiplies the other hands to try, and a hand with many unsure names is worth a look.
SETTLE_AT_MOST = 2

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
    valid = result is not None and bool(result.get("valid"))
    if not reading.get("confident") and not (valid and settled_by_shape(reading, request, scorer)):
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


def trust_fields(reading: Mapping[str, Any], doubts: tuple[Doubt, ...]) -> dict[str, Any]:
    """What every answer that scores a photo says of trust (the API, a table's photo,
    ``hupai score --photo``, ``hupai label --city``): ``confident``, its ``doubts`` and the
    tiles the hand's shape ``settled``.

    >>> trust_fields({"confident": True}, ())
    {'confident': True, 'doubts': [], 'settled': []}
    """
    return {
        "confident": not doubts,
        "doubts": [d.to_dict() for d in doubts],
        "settled": settled_tiles(reading, doubts),
    }


def settled_tiles(reading: Mapping[str, Any], doubts: tuple[Doubt, ...]) -> list[str]:
    """The tiles whose doubt the hand's shape settled (:func:`settled_by_shape`), as named: those
    the reading marks, when its score has no doubt although the reading was not confident. The
    answer lists them so that a player sees which names the shape, not the photo, made sure.

    >>> settled_tiles({"confident": False, "detections": {
    ...     "class_name": ["1m", "2m"], "check": [False, True]}}, ())
    ['2m']
    >>> settled_tiles({"confident": True, "detections": {"class_name": [], "check": []}}, ())
    []
    """
    if doubts or reading.get("confident"):
        return []
    det = reading.get("detections", {})
    names, marked = det.get("class_name", []), det.get("check", [])
    return [name for name, m in zip(names, marked, strict=True) if m]


def settled_by_shape(
    reading: Mapping[str, Any],
    request: Mapping[str, Any],
    scorer: Callable[[Mapping[str, Any]], dict[str, Any]] = score_dict,
) -> bool:
    """Whether the hand's shape settles every doubt of a reading that is not confident: no
    warning but those of :data:`SETTLES_WITH`, every tile to check is doubted for its name alone
    (``check_reasons`` ``["name"]``), lies in the hand or a meld, has other names from the
    namer, and there are at most :data:`SETTLE_AT_MOST` of them — and the request (its hand and
    melds as read, not a player's corrections; the caller found it winning) wins with no other
    of the names the namer gave them: any other choice is refused or is not a winning hand.

    >>> reading = {"warnings": [], "melds": [], "request": {"hand": "123m"}, "detections": {
    ...     "class_name": ["1m", "2m", "3m"], "role": ["hand", "hand", "hand"],
    ...     "check_reasons": [[], ["name"], []],
    ...     "alternatives": [[{"tile": "1m"}], [{"tile": "2m"}, {"tile": "5m"}], [{"tile": "3m"}]]}}
    >>> wins = lambda r: {"valid": "123m" in r["hand"]}
    >>> settled_by_shape(reading, {"hand": "123m", "win_tile": "3m"}, wins)
    True
    >>> settled_by_shape(reading, {"hand": "123m", "win_tile": "3m"}, lambda r: {"valid": True})
    False
    """
    if any(w.get("code") not in SETTLES_WITH for w in reading.get("warnings", [])):
        return False
    det = reading.get("detections", {})
    reasons = det.get("check_reasons")
    if any(det.get(key) is None for key in ("check_reasons", "role", "alternatives", "class_name")):
        return False  # a reading without what the shape needs (an older answer's)
    if not _tiles_as_read(reading, request):
        return False  # tiles the player gave are the player's: the photo's doubts are not theirs
    unsure = [i for i, why in enumerate(reasons) if why]
    if not unsure or len(unsure) > SETTLE_AT_MOST:
        return False
    if any(list(reasons[i]) != ["name"] or det["role"][i] not in ("hand", "meld") for i in unsure):
        return False
    choices = [[a["tile"] for a in det["alternatives"][i]] for i in unsure]
    if any(len(names) < 2 or "back" in names for names in choices):
        return False  # no other name to rule out (a finder that names tiles itself), or a back
    for names in itertools.product(*choices):
        changes = [(i, n) for i, n in zip(unsure, names, strict=True) if n != det["class_name"][i]]
        if changes and any(_wins(r, scorer) for r in _renamed(reading, request, changes)):
            return False
    return True


def _tiles_as_read(reading: Mapping[str, Any], request: Mapping[str, Any]) -> bool:
    """Whether the request's hand and melds are the reading's (not a player's corrections)."""
    as_read = reading.get("request") or {}

    def melds(r: Mapping[str, Any]) -> list[Any]:
        return [m.get("tiles") for m in r.get("melds") or []]

    return as_read.get("hand") == request.get("hand") and melds(as_read) == melds(request)


def _renamed(
    reading: Mapping[str, Any], request: Mapping[str, Any], changes: list[tuple[int, str]]
) -> list[dict[str, Any]]:
    """The requests the photo would make with detections renamed (``changes``: index, name).
    A hand tile of the winning tile's kind may be the winning tile itself or another copy:
    both are tried."""
    out: list[dict[str, Any]] = [dict(request)]
    for i, name in changes:
        was = reading["detections"]["class_name"][i]
        step: list[dict[str, Any]] = []
        for r in out:
            if reading["detections"]["role"][i] == "hand":
                hand = _swap(str(r.get("hand", "")), was, name)
                step.append({**r, "hand": hand})
                if r.get("win_tile") == was:
                    step.append({**r, "hand": hand, "win_tile": name})
                continue
            melds = [dict(m) for m in r.get("melds", [])]
            for k, meld in enumerate(reading.get("melds", [])):
                if i in meld.get("detections", []) and k < len(melds):
                    melds[k]["tiles"] = _swap(str(melds[k].get("tiles", "")), was, name)
            step.append({**r, "melds": melds})
        out = step
    return out


def _swap(notation: str, was: str, name: str) -> str:
    """``notation`` with one ``was`` tile made ``name`` (unchanged if it has none)."""
    try:
        tiles = [str(t) for t in parse_tiles(notation)]
        tiles[tiles.index(was)] = name
        return format_tiles(parse_tiles("".join(tiles)))
    except ValueError:
        return notation


def _wins(
    request: Mapping[str, Any], scorer: Callable[[Mapping[str, Any]], dict[str, Any]]
) -> bool:
    """Whether the scorer takes ``request`` as a winning hand (a refusal is not one)."""
    try:
        return bool(scorer(request).get("valid"))
    except ScoringInputError:
        return False


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
