"""Where the reader and a dataset's labels disagree, box by box, for a person to look at:
``hupai eval FOLDER --disagreements DIR``.

Most of what a good reader "gets wrong" on a labelled photo is worth a look at the label: on
the real set's val split, 16 of the 22 confident photos not read exactly were read right and
labelled wrong (models/MODEL_CARD.md). Each disagreement names the label file and line, the
label's name and the reading's, and the reading's probability:

* ``renamed`` — a read box lies on a labelled tile (IoU ≥ 0.5) under another name;
* ``twice`` — a labelled box lies on another labelled box (IoU over :data:`TWICE_IOU`): one
  tile labelled twice;
* ``unlabelled`` — a read box lies on no labelled tile (a tile the labels leave out, or clutter);
* ``unread`` — a labelled tile no read box lies on (a tile missed, or a label on nothing).

``renamed`` ones the reader was sure of come first: those are the likeliest label errors. A
review sheet shows each as its crop with both names.

>>> from hupai.vision.detections import Detections
>>> truth = Detections.make([[0, 0, 30, 40], [40, 0, 70, 40]], [3, 7])
>>> read = Detections.make([[1, 0, 31, 40], [41, 0, 71, 40]], [2, 7], [0.97, 0.9])
>>> [(d.kind, d.line, d.label, d.read) for d in photo_disagreements(truth, read, [1, 2])]
[('renamed', 1, '4m', '3m')]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from hupai.vision.classes import CLASS_NAMES
from hupai.vision.detections import Detections, box_iou
from hupai.vision.metrics import match_pairs

#: Two labelled boxes overlapping this much lie on one tile (touching tiles' boxes overlap by
#: their visible body sides, far less).
TWICE_IOU = 0.6
#: A read box lies on a labelled tile from this IoU (as ``hupai eval`` matches them).
MATCH_IOU = 0.5
#: The order disagreements are listed in (then the reader's surest first).
KINDS = ("renamed", "twice", "unlabelled", "unread")
#: Crops a review sheet holds (a grid of this many columns and rows).
SHEET_GRID = (6, 6)
CROP_PX = 160


@dataclass(frozen=True)
class Disagreement:
    """One box where the reading and the labels differ (``line``: of the label file, from 1;
    0 for a read box on no label; ``read`` "" and ``p`` 0 where nothing was read there)."""

    kind: str
    image: str
    labels: str
    line: int
    label: str
    read: str
    p: float
    box: tuple[float, float, float, float]  # in the photo's pixels


def photo_disagreements(
    truth: Detections,
    read: Detections,
    lines: Sequence[int],
    image: str = "",
    labels: str = "",
) -> list[Disagreement]:
    """The disagreements of one photo: ``truth`` its labelled boxes (``lines``: each one's line
    in the label file), ``read`` the reading's boxes with their names' probabilities."""

    def entry(
        kind: str, line: int, label: str, name: str, p: float, box: NDArray[np.float64]
    ) -> Disagreement:
        x1, y1, x2, y2 = (round(float(v), 1) for v in box)
        return Disagreement(
            kind, image, labels, line, label, name, round(float(p), 4), (x1, y1, x2, y2)
        )

    pairs = match_pairs(read.xyxy, truth.xyxy, MATCH_IOU)
    out = []
    for t, r in pairs:
        if truth.class_id[t] != read.class_id[r]:
            label, name = CLASS_NAMES[truth.class_id[t]], CLASS_NAMES[read.class_id[r]]
            out.append(entry("renamed", lines[t], label, name, read.confidence[r], truth.xyxy[t]))
    matched_t, matched_r = {t for t, _ in pairs}, {r for _, r in pairs}
    twice = box_iou(truth.xyxy, truth.xyxy) if len(truth) else np.zeros((0, 0))
    for t in range(len(truth)):
        if t in matched_t:
            continue
        others = [u for u in range(len(truth)) if u != t and twice[t, u] > TWICE_IOU]
        kind = "twice" if others else "unread"
        out.append(entry(kind, lines[t], CLASS_NAMES[truth.class_id[t]], "", 0.0, truth.xyxy[t]))
    for r in range(len(read)):
        if r not in matched_r:
            name = CLASS_NAMES[read.class_id[r]]
            out.append(entry("unlabelled", 0, "", name, read.confidence[r], read.xyxy[r]))
    return out


def rank(d: Disagreement) -> tuple[int, float, str, int]:
    """The order of the list: renamed boxes first, the reader's surest first; then tiles
    labelled twice, boxes read on no label, labels read on no box."""
    return (KINDS.index(d.kind), -d.p, d.image, d.line)


def label_lines(path: Path) -> list[int]:
    """The line numbers (from 1) of a label file's boxes, in the order they are read."""
    if not path.exists():
        return []
    return [n for n, line in enumerate(path.read_text().splitlines(), start=1) if line.strip()]


def crop(image: NDArray[np.uint8], d: Disagreement) -> NDArray[np.uint8]:
    """The disagreement's box with a tile's width of its photo around it, outlined, captioned
    with both names, ``CROP_PX`` square."""
    import cv2

    h, w = image.shape[:2]
    x1, y1, x2, y2 = (round(v) for v in d.box)
    pad = max(x2 - x1, y2 - y1) // 2 + 1
    X1, Y1, X2, Y2 = max(0, x1 - pad), max(0, y1 - pad), min(w, x2 + pad), min(h, y2 + pad)
    part = np.array(image[Y1:Y2, X1:X2], np.uint8)  # a copy: the photo stays unmarked
    cv2.rectangle(part, (x1 - X1, y1 - Y1), (x2 - X1, y2 - Y1), (0, 0, 255), 2)
    scale = (CROP_PX - 16) / max(part.shape[:2], default=1)
    size = (max(1, round(part.shape[1] * scale)), max(1, round(part.shape[0] * scale)))
    shown = np.asarray(cv2.resize(part, size), np.uint8)
    cell = np.full((CROP_PX, CROP_PX, 3), 255, np.uint8)
    cell[16 : 16 + shown.shape[0], : shown.shape[1]] = shown
    label = d.label or "-"
    read = f"{d.read} {d.p:.2f}" if d.read else "-"
    caption = f"{d.kind[:5]} L{d.line or '-'} {label}>{read}"
    cv2.putText(cell, caption, (2, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 0), 1)
    return cell


def new_or_empty(out: Path) -> bool:
    """Whether a review may be written into ``out``: no such path yet, or an empty folder."""
    return not out.exists() or (out.is_dir() and not any(out.iterdir()))


def write_review(
    out: Path, found: Sequence[Disagreement], crops: Sequence[NDArray[np.uint8]]
) -> list[Path]:
    """``out/disagreements.json`` (every disagreement, ranked) and ``out/sheet-NN.png`` (their
    crops, in the same order, numbered as listed); returns the files written. ``out`` must be
    new or empty: nothing there is overwritten."""
    import cv2

    if not new_or_empty(out):
        raise FileExistsError(f"{out}: exists and is not an empty folder (nothing overwritten)")
    out.mkdir(parents=True, exist_ok=True)
    listing = out / "disagreements.json"
    rows = [{"n": k + 1, **asdict(d)} for k, d in enumerate(found)]
    listing.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    written = [listing]
    cols, rows_per = SHEET_GRID
    per = cols * rows_per
    for s in range(0, len(crops), per):
        cells = list(crops[s : s + per])
        for k, cell in enumerate(cells):
            cv2.putText(cell, f"{s + k + 1}", (CROP_PX - 34, CROP_PX - 6),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 255), 1)  # fmt: skip
        cells += [np.full((CROP_PX, CROP_PX, 3), 255, np.uint8)] * (-len(cells) % cols)
        grid = np.vstack([np.hstack(cells[r : r + cols]) for r in range(0, len(cells), cols)])
        sheet = out / f"sheet-{s // per + 1:02d}.png"
        cv2.imwrite(str(sheet), grid)
        written.append(sheet)
    return written


__all__ = [
    "KINDS",
    "Disagreement",
    "crop",
    "label_lines",
    "new_or_empty",
    "photo_disagreements",
    "rank",
    "write_review",
]
