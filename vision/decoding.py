"""Hand-level decoding: the most probable names for all the tiles of a photo together.

The namer names each crop on its own; a photo, though, never holds more than four copies
of a tile (one of each flower), indicator and fishing tiles included. :func:`decode_names`
chooses the joint reading of highest probability (sum of log-probabilities) that respects
those caps — an assignment problem, solved exactly (each tile kind offers as many slots as
copies exist). Face-down backs are not capped.

>>> p = np.full((5, len(NAMER_CLASSES)), 1e-4)
>>> p[:, 0] = 0.9          # five boxes look most like 1m ...
>>> p[4, 8] = 0.6          # ... the fifth a little less, and it could be 9m
>>> decode_names(p).tolist()
[0, 0, 0, 0, 8]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from hupai.scoring.tiles import EVERY_TILE
from hupai.vision.classes import BACK
from hupai.vision.namer import NAMER_CLASSES, REJECT

#: Copies of each face-up class in a set: four of each kind, one of each flower.
CAPS: tuple[int, ...] = tuple(1 if t.is_flower else 4 for t in EVERY_TILE)
#: The caps give a box another name only where the namer finds that name at least this
#: likely; a box they would give a name less likely keeps its own (the reading then warns of
#: too many copies): a fifth white dragon is a set's blank spare tile, not a 6p. Real val
#: (the real set's trays hold spare blanks, labelled 5z): 0.01 up to no cap at all read 198
#: photos exactly against the caps' 196, none more confident; the camerash composites alike.
CAP_NAME_FLOOR = 0.05


def over_cap(class_id: NDArray[np.int64]) -> bool:
    counts = np.bincount(class_id[class_id < BACK], minlength=len(CAPS))[: len(CAPS)]
    return bool((counts > np.asarray(CAPS)).any())


def decode_names(probs: NDArray[np.float64], floor: float | None = None) -> NDArray[np.int64]:
    """Class per box (rows of namer probabilities): each box's best name, unless that
    reads a tile more often than a set holds it — then the most probable joint reading
    within the caps, but for boxes it would give a name under ``floor`` (default
    :data:`CAP_NAME_FLOOR`), which keep theirs. Boxes whose best name is ``back`` (or
    ``reject``) keep it."""
    best = np.asarray(probs.argmax(axis=1), np.int64)
    faces = np.nonzero((best != BACK) & (best != REJECT))[0]
    if not over_cap(best[faces]) or len(faces) > sum(CAPS):
        return best
    from scipy.optimize import linear_sum_assignment

    slots = np.repeat(np.arange(len(CAPS)), CAPS)
    cost = -np.log(np.clip(probs[faces][:, slots], 1e-12, 1.0))
    rows, cols = linear_sum_assignment(cost)
    out = best.copy()
    out[faces[rows]] = slots[cols]
    unlikely = probs[np.arange(len(out)), out] < (CAP_NAME_FLOOR if floor is None else floor)
    out[unlikely] = best[unlikely]
    return out


def alternatives(
    probs: NDArray[np.float64], chosen: NDArray[np.int64], k: int = 3
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Per box, ``k`` names: the chosen one first, then the likeliest others (never
    ``reject``), with their probabilities."""
    n = len(probs)
    masked = probs.copy()
    masked[:, REJECT] = -1.0
    masked[np.arange(n), chosen] = -1.0
    others = np.argsort(-masked, axis=1, kind="stable")[:, : k - 1]
    ids = np.concatenate([chosen[:, None], others], axis=1).astype(np.int64)
    return ids, np.take_along_axis(probs, ids, axis=1)


__all__ = ["CAPS", "CAP_NAME_FLOOR", "NAMER_CLASSES", "alternatives", "decode_names", "over_cap"]
