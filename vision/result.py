"""What reading a photo gives (:class:`Reading`): the structured hand the scorer needs, the
tiles as seen, and warnings with stable codes (:data:`WARNING_CODES`), a message and advice
for the player.

>>> sorted(WARNING_CODES)[:3]
['concealed_kong_unknown', 'cut_by_border', 'gap']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hupai.scoring.tiles import Tile, format_tiles
from hupai.vision.classes import CLASS_NAMES
from hupai.vision.detections import Detections
from hupai.vision.layout import HandLayout

WARNING_CODES: dict[str, str] = {
    "no_tiles": "Photograph the hand from closer, in good light, tiles face up.",
    "too_many_copies": "A tile was probably misread: check the marked tiles, or reshoot "
    "closer and sharper.",
    "tile_count": "Make sure every tile is in the picture and separate the melds by a gap; "
    "reshoot closer if tiles are small.",
    "low_confidence": "Check the marked tiles; reshoot closer, in even light, without glare.",
    "cut_by_border": "Step back or reframe so that every tile is whole in the picture.",
    "tiles_small": "Reshoot closer: the tiles fill too little of the photo.",
    "win_tile_assumed": "Set the winning tile a little apart at the right end of the hand, "
    "or give it (--win-tile).",
    "win_tile_not_in_hand": "The winning tile given is not among the hand's tiles; check it.",
    "unreadable_meld": "Lay each meld apart from the others with its called tile sideways; "
    "a concealed kong shows two tiles face down.",
    "concealed_kong_unknown": "Turn two tiles of the concealed kong face up (the inner two).",
    "unplaced_tiles": "Keep only the winning hand, its melds, flowers and the indicator or "
    "fishing tiles in the picture.",
    "gap": "A tile may be missing where a row leaves room for one (the dashed box): check that "
    "every tile was found, or lay the row with its tiles touching and reshoot.",
    "tile_in_room": "A marked tile was read where a row leaves room for one and the finder was "
    "unsure of it (a blank white dragon, a tile low in contrast): check it.",
    "kong_or_apart": "A tile set apart lies in the row of a pung of the same tile: if it is the "
    "meld's fourth tile, lay the kong's four tiles together; if it is an indicator or fishing "
    "tile, set it further apart.",
}


@dataclass(frozen=True)
class ReadingWarning:
    code: str
    message: str
    tiles: tuple[int, ...] = ()  # detection indices

    @property
    def advice(self) -> str:
        return WARNING_CODES[self.code]

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "advice": self.advice,
            "tiles": list(self.tiles),
        }


@dataclass(frozen=True)
class ReadMeld:
    kind: str  # scoring's MeldKind value: chow, pung, kong, added_kong, concealed_kong
    tiles: tuple[Tile, ...]
    called_from: str | None = None  # left / across / right (where the sideways tile lies)
    detections: tuple[int, ...] = ()
    inferred: bool = False  # a tile not seen was inferred (hidden added-kong tile, backs)

    @property
    def notation(self) -> str:
        return format_tiles(self.tiles)


@dataclass(frozen=True)
class Reading:
    """What a photo shows. Tiles are :class:`hupai.scoring.tiles.Tile`; ``detections`` are in
    the photo's pixels (after EXIF orientation), one row per tile seen."""

    source: str
    width: int
    height: int
    detections: Detections
    quads: NDArray[np.float64]  # (n, 4, 2) each tile's box corners in the photo
    layout: HandLayout  # in the frame the layout ran in (level crop)
    hand: tuple[Tile, ...]  # concealed tiles, winning tile included, left to right
    win_tile: Tile | None
    win_tile_set_apart: bool
    melds: tuple[ReadMeld, ...]
    flowers: tuple[Tile, ...]
    set_apart: tuple[Tile, ...]  # the indicator or fishing tiles
    warnings: tuple[ReadingWarning, ...]
    roles: tuple[str, ...]  # per detection: hand, meld, flowers, set_apart, stray
    passes: tuple[str, ...] = ()
    seconds: float = 0.0
    hand_detections: tuple[int, ...] = ()
    win_detection: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: per detection, the namer's top names (the chosen one first) and their probabilities,
    #: (n, 3); None when the detector named the tiles itself
    alternatives: NDArray[np.int64] | None = None
    alternative_probs: NDArray[np.float64] | None = None
    #: per detection, why it is to be checked (:data:`hupai.vision.checks.CHECK_REASONS`;
    #: empty: it is not)
    check_reasons: tuple[tuple[str, ...], ...] = ()
    #: the whole photo can be trusted as read: no tile to check, no doubt about the layout
    confident: bool = False
    #: boxes in the photo (k, 4) where a row has room for a tile that was not found
    #: (:func:`hupai.vision.layout.missing_tiles`): each a ``gap`` warning's place
    gaps: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 4)))

    # -- views ---------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """Class name (tile notation or ``back``) per detection."""
        return [CLASS_NAMES[int(c)] for c in self.detections.class_id]

    @property
    def codes(self) -> list[str]:
        return [w.code for w in self.warnings]

    def alternatives_of(self, i: int) -> list[dict[str, Any]]:
        """Detection ``i``'s names, the chosen one first: ``[{"tile", "p"}, …]``."""
        if self.alternatives is None or self.alternative_probs is None:
            c = int(self.detections.class_id[i])
            return [{"tile": CLASS_NAMES[c], "p": round(float(self.detections.confidence[i]), 3)}]
        return [
            {"tile": CLASS_NAMES[int(c)], "p": round(float(p), 3)}
            for c, p in zip(self.alternatives[i], self.alternative_probs[i], strict=True)
            if int(c) < len(CLASS_NAMES)
        ]

    @property
    def check(self) -> tuple[int, ...]:
        """The detections a player should check: those with a reason
        (:func:`hupai.vision.checks.tiles_to_check`)."""
        from hupai.vision.checks import tiles_to_check  # checks builds on this module

        return tiles_to_check(self.check_reasons)

    def indicator_or_fishing(self, city: str | None = None) -> dict[str, Any]:
        """The set-apart tiles as the city's request field: ``indicator`` (one flipped
        tile) or ``fishing`` (up to three). Without a city: one tile is an indicator,
        two or three are fishing tiles."""
        if not self.set_apart:
            return {}
        fields = _city_fields(city) if city else None
        if fields is not None:
            if "fishing" in fields and "indicator" not in fields:
                return {"fishing": format_tiles(self.set_apart)}
            if "indicator" in fields and len(self.set_apart) == 1:
                return {"indicator": str(self.set_apart[0])}
            if "fishing" in fields:
                return {"fishing": format_tiles(self.set_apart)}
            return {}
        if len(self.set_apart) == 1:
            return {"indicator": str(self.set_apart[0])}
        return {"fishing": format_tiles(self.set_apart)}

    def to_request_fields(
        self, city: str | None = None, winner: int | None = None
    ) -> dict[str, Any]:
        """The fragment of a ``hupai score`` request this photo supplies: ``hand``,
        ``win_tile``, ``melds``, ``flowers`` and ``indicator`` or ``fishing``. With the
        winner's seat, claimed pungs and kongs say whom they came from (the sideways
        tile's place: left = previous seat, across, right = next seat)."""
        out: dict[str, Any] = {"hand": format_tiles(self.hand)}
        if self.win_tile is not None:
            out["win_tile"] = str(self.win_tile)
        melds = []
        for m in self.melds:
            item: dict[str, Any] = {"kind": m.kind, "tiles": m.notation}
            if winner is not None and m.called_from and m.kind in ("pung", "kong", "added_kong"):
                item["from"] = (winner + _SEAT_STEP[m.called_from]) % 4
            melds.append(item)
        out["melds"] = melds
        if self.flowers:
            out["flowers"] = format_tiles(self.flowers)
        out.update(self.indicator_or_fishing(city))
        return out

    def to_dict(self, city: str | None = None) -> dict[str, Any]:
        """JSON-ready: the structure, the warnings and the per-tile detections (columnar)."""
        return {
            "source": self.source,
            "size": [self.width, self.height],
            "hand": format_tiles(self.hand),
            "hand_in_order": "".join(f"{t}" for t in self.hand),
            "win_tile": None if self.win_tile is None else str(self.win_tile),
            "win_tile_set_apart": self.win_tile_set_apart,
            "melds": [
                {
                    "kind": m.kind,
                    "tiles": m.notation,
                    "called_from": m.called_from,
                    "inferred": m.inferred,
                    "detections": list(m.detections),
                }
                for m in self.melds
            ],
            "flowers": format_tiles(self.flowers),
            "set_apart": format_tiles(self.set_apart),
            **self.indicator_or_fishing(city),
            "request": self.to_request_fields(city),
            "warnings": [w.to_dict() for w in self.warnings],
            "confident": self.confident,
            "gaps": np.round(self.gaps, 1).tolist(),
            "detections": {
                "xyxy": np.round(self.detections.xyxy, 1).tolist(),
                "class_id": self.detections.class_id.tolist(),
                "class_name": self.names,
                "confidence": np.round(self.detections.confidence, 3).tolist(),
                "alternatives": [self.alternatives_of(i) for i in range(len(self.detections))],
                "role": list(self.roles),
                "check": [bool(why) for why in self.check_reasons],
                "check_reasons": [list(why) for why in self.check_reasons],
                "sideways": [bool(x) for x in self.layout.sideways],
            },
            "alternatives": self.place_alternatives(),
            "passes": list(self.passes),
            "seconds": round(self.seconds, 3),
        }

    def place_alternatives(self) -> dict[str, list[list[dict[str, Any]]]]:
        """Each tile's names (chosen first) for the hand, the flowers and the set-apart
        tiles, in the order of the request's notation (tiles sorted as it sorts them)."""
        places = self.extra.get("places", {})
        out = {}
        for place, idx in places.items():
            ordered = sorted(idx, key=lambda i: int(self.detections.class_id[i]))
            out[place] = [self.alternatives_of(i) for i in ordered]
        return out


_SEAT_STEP = {"left": 3, "across": 2, "right": 1}


def _city_fields(city: str) -> set[str] | None:
    """The request fields a city reads, or None when the city is unknown."""
    import dataclasses

    try:
        from hupai.scoring.registry import get_city

        c = get_city(city)
    except (ImportError, ValueError):
        return None
    return {f.name for f in dataclasses.fields(c.table_type)}
