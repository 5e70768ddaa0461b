"""YOLO label files: one object per line, ``class cx cy w h`` normalised to the image.

Readers also accept polygon lines (``class x1 y1 x2 y2 … xn yn``), as found in Roboflow
exports, and turn them into the axis-aligned box around the points, clipped to the image.

>>> box = parse_yolo_line("3 0.5 0.5 0.2 0.4")
>>> box.cls, [round(v, 3) for v in box.xyxy], box.from_polygon
(3, [0.4, 0.3, 0.6, 0.7], False)
>>> parse_yolo_line("7 0.1 0.1 0.3 0.1 0.3 0.4 0.1 0.4").xyxy
(0.1, 0.1, 0.3, 0.4)
>>> format_yolo_line(LabelBox(5, (0.25, 0.5, 0.75, 1.0)))
'5 0.500000 0.750000 0.500000 0.500000'
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


class LabelError(ValueError):
    """A label line or file that cannot be read; the message quotes it."""


@dataclass(frozen=True, slots=True)
class LabelBox:
    """One labelled object: class id and a box ``(x1, y1, x2, y2)`` normalised to 0-1."""

    cls: int
    xyxy: tuple[float, float, float, float]
    from_polygon: bool = False

    @property
    def width(self) -> float:
        return self.xyxy[2] - self.xyxy[0]

    @property
    def height(self) -> float:
        return self.xyxy[3] - self.xyxy[1]


def _clip(v: float) -> float:
    return min(1.0, max(0.0, v))


def parse_yolo_line(line: str) -> LabelBox:
    """Parse one YOLO box or polygon line."""
    parts = line.split()
    try:
        cls = int(parts[0])
        values = [float(p) for p in parts[1:]]
    except (ValueError, IndexError):
        raise LabelError(f"'{line.strip()}' is not a YOLO label line") from None
    if cls < 0:
        raise LabelError(f"'{line.strip()}': negative class id")
    if len(values) == 4:
        cx, cy, w, h = values
        if w <= 0 or h <= 0:
            raise LabelError(f"'{line.strip()}': box has no area")
        xyxy = (_clip(cx - w / 2), _clip(cy - h / 2), _clip(cx + w / 2), _clip(cy + h / 2))
        return LabelBox(cls, xyxy)
    if len(values) >= 6 and len(values) % 2 == 0:
        xs, ys = values[0::2], values[1::2]
        xyxy = (_clip(min(xs)), _clip(min(ys)), _clip(max(xs)), _clip(max(ys)))
        if xyxy[2] <= xyxy[0] or xyxy[3] <= xyxy[1]:
            raise LabelError(f"'{line.strip()}': polygon has no area inside the image")
        return LabelBox(cls, xyxy, from_polygon=True)
    raise LabelError(
        f"'{line.strip()}' has {len(values)} numbers; expected 4 (box) or an even number ≥ 6 "
        "(polygon)"
    )


def format_yolo_line(box: LabelBox) -> str:
    x1, y1, x2, y2 = box.xyxy
    return f"{box.cls} {(x1 + x2) / 2:.6f} {(y1 + y2) / 2:.6f} {x2 - x1:.6f} {y2 - y1:.6f}"


def load_yolo_labels(path: str | Path) -> list[LabelBox]:
    """Read a label file; raises :class:`LabelError` naming the file and line."""
    path = Path(path)
    boxes = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            boxes.append(parse_yolo_line(line))
        except LabelError as exc:
            raise LabelError(f"{path}:{number}: {exc}") from None
    return boxes


def save_yolo_labels(path: str | Path, boxes: Iterable[LabelBox]) -> None:
    """Write boxes as YOLO ``class cx cy w h`` lines (an empty file for no boxes)."""
    lines = [format_yolo_line(b) for b in boxes]
    Path(path).write_text("".join(line + "\n" for line in lines))


def labels_digest(folder: str | Path) -> str:
    """Eight hex digits of a folder of YOLO label files (their names and contents; ``none``
    where there is no such folder): what is made from the labels — crops cut at their boxes
    with their names — is named by it, so that labels changed since (a re-import with
    corrections) make new crops instead of reusing ones with the old names.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "a.txt").write_text("3 0.5 0.5 0.1 0.1\\n")
    >>> first = labels_digest(d)
    >>> _ = (d / "a.txt").write_text("4 0.5 0.5 0.1 0.1\\n")
    >>> first != labels_digest(d), labels_digest(d / "missing")
    (True, 'none')
    """
    folder = Path(folder)
    if not folder.is_dir():
        return "none"
    h = hashlib.sha256()
    for path in sorted(folder.glob("*.txt")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:8]
