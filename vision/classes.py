"""The detector's class list: one versioned list, one place.

Class ``i < 42`` is the tile whose 42-tile index is ``i`` (34 suit/honor kinds, then the
8 flowers/seasons); class 42 is a face-down tile back. Class names are the tile notation.

>>> CLASS_NAMES[0], CLASS_NAMES[33], CLASS_NAMES[34], CLASS_NAMES[BACK]
('1m', '7z', '1f', 'back')
>>> tile_of(class_of(Tile.parse("6z")))
Tile('6z')
"""

from __future__ import annotations

from hupai.scoring.tiles import ALL_KINDS, EVERY_TILE, Tile

#: Bump when the list changes; models record the version they were trained with.
CLASSES_VERSION = 1
BACK = ALL_KINDS  # 42
BACK_NAME = "back"
CLASS_NAMES: tuple[str, ...] = (*(str(t) for t in EVERY_TILE), BACK_NAME)
NUM_CLASSES = len(CLASS_NAMES)  # 43
#: The white dragon: the face many sets leave blank or only framed (31).
WHITE_DRAGON = CLASS_NAMES.index("5z")


def class_of(tile: Tile) -> int:
    """Class id of a face-up tile."""
    return tile.index


def tile_of(class_id: int) -> Tile | None:
    """The tile for a class id; ``None`` for a face-down back."""
    if class_id == BACK:
        return None
    if not 0 <= class_id < BACK:
        raise ValueError(f"class id {class_id} is outside 0-{BACK}")
    return EVERY_TILE[class_id]


def class_by_name(name: str) -> int:
    """Class id from a class name (``'3s'``, ``'back'``)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(
            f"'{name}' is not a class name (known: {', '.join(CLASS_NAMES)})"
        ) from None


_BY_NAME = {name: i for i, name in enumerate(CLASS_NAMES)}
