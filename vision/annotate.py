"""Draw a reading on its photo: each tile's box and notation, group outlines by role, the
winning tile, and a caption with the hand in notation and the warning codes."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from hupai.scoring.tiles import format_tiles
from hupai.vision.classes import CLASS_NAMES
from hupai.vision.detector import Image, ImageError
from hupai.vision.reading import Reading

#: BGR colours by role.
COLOURS = {
    "hand": (60, 180, 60),
    "meld": (0, 140, 255),
    "flowers": (200, 60, 200),
    "set_apart": (220, 160, 0),
    "stray": (40, 40, 220),
}
WIN = (0, 220, 255)
#: a place in a row with room for a tile that was not found (``gap``), drawn dashed
GAP = (40, 40, 255)


def annotate(image: Image, reading: Reading, *, labels: bool = True) -> Image:
    """A copy of ``image`` with the reading drawn on it (``image`` may be the photo decoded at
    any scale: the reading, in the photo's pixels, is drawn scaled to it). ``labels``: the
    tiles' names, the groups' roles and a caption in notation (the command line's picture);
    without them boxes only — the page words the reading itself, in its language, and a
    name burned into the photo would go stale when a tile is fixed."""
    import cv2

    out = image.copy()
    h, w = out.shape[:2]
    quads = np.asarray(reading.quads, np.float64)
    gaps = np.asarray(reading.gaps, np.float64).reshape(-1, 4)
    if reading.width and reading.height and (w, h) != (reading.width, reading.height):
        fx, fy = w / reading.width, h / reading.height
        quads = quads * np.array([fx, fy])
        gaps = gaps * np.array([fx, fy, fx, fy])
    scale = max(h, w) / 1000
    thick = max(1, round(2 * scale))
    font = cv2.FONT_HERSHEY_SIMPLEX
    fs = max(0.4, 0.6 * scale)

    # group outlines first, under the tile boxes
    for g in reading.layout.groups:
        pts = quads[list(g.tiles)].reshape(-1, 2).astype(np.float32)
        if len(pts) == 0:
            continue
        rect = cv2.minAreaRect(pts)
        (cx, cy), (rw, rh), ang = rect
        pad = 0.12 * min(rw, rh) + 3 * thick
        box = cv2.boxPoints(((cx, cy), (rw + 2 * pad, rh + 2 * pad), ang))
        colour = COLOURS[g.role.value]
        cv2.polylines(out, [np.round(box).astype(np.int32)], True, colour, thick, cv2.LINE_AA)
        label = g.role.value.replace("_", " ")
        if g.meld is not None:
            label = g.meld.value.replace("_", " ")
        elif g.tiles == (reading.win_detection,):
            label = "win"
        top = box[np.argmin(box[:, 0] + box[:, 1])]  # top-left corner
        if labels:
            _text(out, label, (int(top[0]), int(top[1]) - 4 * thick), fs, colour, thick)

    for i, quad in enumerate(quads):
        role = reading.roles[i]
        colour = COLOURS.get(role, COLOURS["stray"])
        q = np.round(quad).astype(np.int32)
        cv2.polylines(out, [q], True, colour, thick, cv2.LINE_AA)
        if reading.layout.sideways[i]:
            a, b = quad[3], quad[2]
            cv2.line(
                out,
                tuple(np.round(a + (b - a) * 0.2).astype(int)),
                tuple(np.round(a + (b - a) * 0.8).astype(int)),
                colour,
                thick,
                cv2.LINE_AA,
            )
        if i == reading.win_detection:
            cv2.polylines(out, [q], True, WIN, 2 * thick + 1, cv2.LINE_AA)
        if not labels:
            continue
        name = tile_label(reading, i)
        cx, cy = quad.mean(0)
        (tw, _), _ = cv2.getTextSize(name, font, fs, thick)
        _text(out, name, (int(cx - tw / 2), int(quad[:, 1].max() + 16 * fs + 2)), fs, colour, thick)

    for box in np.round(gaps).astype(int):
        _dashed_box(out, box, GAP, thick)
    if not labels:
        return out

    lines = [f"hand {format_tiles(reading.hand) or '-'}  win {reading.win_tile or '-'}"]
    if reading.melds:
        lines.append("melds " + "  ".join(f"{m.kind} {m.notation}" for m in reading.melds))
    extra = []
    if reading.flowers:
        extra.append(f"flowers {format_tiles(reading.flowers)}")
    if reading.set_apart:
        extra.append(f"set apart {format_tiles(reading.set_apart)}")
    if extra:
        lines.append("  ".join(extra))
    if reading.warnings:
        lines.append("warnings: " + ", ".join(reading.codes))
    y = int(24 * fs + 6)
    for line in lines:
        _text(out, line, (8, y), fs, (255, 255, 255), thick, background=True)
        y += int(30 * fs + 6)
    return out


def tile_label(reading: Reading, i: int) -> str:
    """A tile's name as drawn, with "?" where the reading asks a player to check it (an unsure
    name, a box that may be clutter, a tile read in a row's room: ``reading.check``).

    >>> from hupai.vision.detections import Detections
    >>> from hupai.vision.reading import build_reading
    >>> det = Detections.make([[10, 10, 40, 50], [42, 10, 72, 50]], [0, 1], [0.99, 0.6])
    >>> r = build_reading(det, None, None, (200, 200))
    >>> tile_label(r, 0), tile_label(r, 1)
    ('1m', '2m?')
    """
    name = CLASS_NAMES[int(reading.detections.class_id[i])]
    return f"{name}?" if i in reading.check else name


def _dashed_box(
    img: Image, box: np.ndarray, colour: tuple[int, int, int], thick: int, dash: int = 8
) -> None:
    import cv2

    x1, y1, x2, y2 = (int(v) for v in box)
    corners = [(x1, y1), (x2, y1), (x2, y2), (x1, y2), (x1, y1)]
    for (ax, ay), (bx, by) in itertools.pairwise(corners):
        steps = max(1, int(max(abs(bx - ax), abs(by - ay)) // dash))
        for k in range(0, steps, 2):
            a = (ax + (bx - ax) * k // steps, ay + (by - ay) * k // steps)
            b = (ax + (bx - ax) * (k + 1) // steps, ay + (by - ay) * (k + 1) // steps)
            cv2.line(img, a, b, colour, thick, cv2.LINE_AA)


def _text(
    img: Image,
    text: str,
    org: tuple[int, int],
    fs: float,
    colour: tuple[int, int, int],
    thick: int,
    background: bool = False,
) -> None:
    import cv2

    font = cv2.FONT_HERSHEY_SIMPLEX
    if background:
        (tw, th), base = cv2.getTextSize(text, font, fs, thick)
        x, y = org
        cv2.rectangle(img, (x - 3, y - th - 4), (x + tw + 3, y + base + 2), (0, 0, 0), -1)
    else:
        cv2.putText(img, text, org, font, fs, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(img, text, org, font, fs, colour, thick, cv2.LINE_AA)


def save_annotated(image: Image, reading: Reading, out: str | Path) -> Path:
    """Write the annotated image (format from the suffix: .jpg, .png, .webp)."""
    import cv2

    path = Path(out)
    try:
        ok, data = cv2.imencode(path.suffix or ".jpg", annotate(image, reading))
    except cv2.error:
        ok = False
    if not ok:
        raise ImageError(
            f"{path}: cannot write an image with suffix '{path.suffix}' (use .jpg or .png)"
        )
    path.write_bytes(data.tobytes())
    return path
