"""Clutter: a box the finder and the namer together say is not a tile, though the namer alone
would keep it — a keyboard's key, a book's spine, a letter on a printed page.

The namer drops a box it finds more likely "not a tile" than a tile
(:data:`hupai.vision.reading.REJECT_ABOVE`). Clutter the finder boxes is often tile-like to
it, yet it differs from the photo's tiles in ways the namer's crop cannot show: the finder
scored it low, it is not the size of the boxes beside it, and the namer hesitates between
names. :func:`clutter_scores` weighs those together (a logistic model's log-odds);
a box scoring over :data:`CLUTTER_ABOVE` is dropped as the namer's rejects are.

Fitted (``bench/clutter.py``) on the boxes the shipped reader keeps in 300 synthetic scenes of
the trained-on art and procedural families (training seeds; a box on no tile is clutter) and
real train's tiles; the cut chosen on real val and the held-out scenes (``bench/heldout.py``'s:
dorothys and the held-out procedural family, never trained on, and samoheen beside them).

>>> import numpy as np
>>> from hupai.vision.detections import Detections
>>> det = Detections.make([[0, 0, 30, 40], [32, 0, 62, 40], [64, 0, 94, 40], [96, 5, 106, 15]],
...                       [0, 1, 2, 3], [0.9, 0.9, 0.9, 0.35])
>>> names = np.array([[0.98, 0.01, 0.01], [0.97, 0.02, 0.01], [0.96, 0.02, 0.02], [0.4, 0.3, 0.3]])
>>> (clutter_scores(det, names, np.array([0.01, 0.01, 0.01, 0.3])) > CLUTTER_ABOVE).tolist()
[False, False, False, True]
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from hupai.vision.detections import Detections

#: A tile's height over its width, upright (the reference of the aspect feature).
TILE_ASPECT = 1.33
#: The model: a bias and a weight per feature — log(the finder's score), log("not a tile"),
#: the best name's margin over the second, |log(aspect / TILE_ASPECT)|, |log(size / the
#: median box's size)| (size: the square root of the area).
BIAS = -0.478
WEIGHTS = (-3.210, 0.761, -1.901, -0.374, 4.135)
#: A box is clutter from these log-odds up. Chosen on real val and the held-out scenes
#: (``bench/clutter.py``): at 2.0 the reader drops 88 of the 313 boxes it kept on clutter in
#: the held-out scenes, 7 of their 1,310 tiles named right and 3 misnamed, and none of real
#: val's 5,782 tiles named right (1.5: one; 1.0: one, and 11 of the held-out scenes').
CLUTTER_ABOVE = 2.0


def clutter_scores(
    det: Detections, names: NDArray[np.float64], reject: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Each box's log-odds of being clutter: ``det`` the boxes (frame) with the finder's
    scores, ``names`` the namer's probabilities of its names without "not a tile" (rows
    summing to 1; only the two best are read), ``reject`` its "not a tile" probability."""
    features = clutter_features(det, names, reject)
    return np.asarray(BIAS + features @ np.asarray(WEIGHTS), np.float64)


def clutter_features(
    det: Detections, names: NDArray[np.float64], reject: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The features of :data:`WEIGHTS`, a row a box (arguments as :func:`clutter_scores`)."""
    if len(det) == 0:
        return np.zeros((0, len(WEIGHTS)))
    top = -np.sort(-np.asarray(names, np.float64), axis=1)
    margin = top[:, 0] - (top[:, 1] if top.shape[1] > 1 else 0.0)
    wh = np.maximum(det.wh, 1e-6)
    side = np.sqrt(wh[:, 0] * wh[:, 1])
    return np.column_stack(
        [
            np.log(np.clip(det.confidence, 1e-6, 1.0)),
            np.log(np.asarray(reject, np.float64) + 1e-6),
            margin,
            np.abs(np.log(wh[:, 1] / wh[:, 0] / TILE_ASPECT)),
            np.abs(np.log(side / float(np.median(side)))),
        ]
    )


__all__ = [
    "BIAS",
    "CLUTTER_ABOVE",
    "TILE_ASPECT",
    "WEIGHTS",
    "clutter_features",
    "clutter_scores",
]
