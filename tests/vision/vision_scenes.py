"""Hand-built detection scenes for the layout and reading tests.

A scene is laid out on an imaginary table in tile units (x along the row, y across) and
projected to image boxes: rotated (tilt), optionally shrunk with distance (perspective).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hupai.scoring.tiles import parse_tiles
from hupai.vision.classes import BACK
from hupai.vision.detections import Detections

FIXTURES = Path(__file__).parent / "fixtures"
W, H = 30.0, 40.0  # tile face, px


@dataclass
class Scene:
    """Tiles as (class, x, y, sideways) with x, y the tile's centre in px on the table."""

    tiles: list[tuple[int, float, float, bool]] = field(default_factory=list)

    def run(
        self, tiles: str, x: float, y: float, sideways: set[int] | None = None, gap: float = 1.0
    ) -> float:
        """Lay tiles left to right from ``x``; ``back`` tiles as 'X'. Returns the x after."""
        sideways = sideways or set()
        for k, token in enumerate(_tokens(tiles)):
            side = k in sideways
            w = H if side else W
            cls = BACK if token == "X" else parse_tiles(token)[0].index
            cy = y + (H - W) / 2 if side else y
            self.tiles.append((cls, x + w / 2, cy, side))
            x += w + gap
        return x

    def detections(
        self,
        tilt: float = 0.0,
        shrink: float = 0.0,
        confidence: float = 0.9,
        origin: tuple[float, float] = (400.0, 400.0),
    ) -> Detections:
        """Image boxes: rotate by ``tilt`` degrees about the origin; ``shrink`` scales tiles
        down linearly with x (perspective along the row: 0.3 = 30% smaller at x=600)."""
        t = math.radians(tilt)
        boxes = []
        for _cls, x, y, side in self.tiles:
            s = 1.0 - shrink * x / 600.0
            w, h = (H, W) if side else (W, H)
            w, h = w * s, h * s
            cx, cy = x * (1 - shrink * x / 1200.0), y * s
            rx = origin[0] + cx * math.cos(t) - cy * math.sin(t)
            ry = origin[1] + cx * math.sin(t) + cy * math.cos(t)
            bw = w * abs(math.cos(t)) + h * abs(math.sin(t))
            bh = w * abs(math.sin(t)) + h * abs(math.cos(t))
            boxes.append([rx - bw / 2, ry - bh / 2, rx + bw / 2, ry + bh / 2])
        classes = [c for c, *_ in self.tiles]
        return Detections.make(boxes, classes, [confidence] * len(classes))


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    digits = ""
    for ch in text:
        if ch == "X":
            out.append("X")
        elif ch.isdigit():
            digits += ch
        else:
            out += [d + ch for d in digits]
            digits = ""
    return out


def hand_row(scene: Scene, hand: str, win: str, y: float = 0.0, apart: float = 12.0) -> float:
    """A concealed hand then its winning tile set ``apart`` px to the right."""
    x = scene.run(hand, 0.0, y)
    return scene.run(win, x + apart, y)


def synth_scenes() -> list[dict[str, object]]:
    data = json.loads((FIXTURES / "synth_layouts.json").read_text())
    return list(data["scenes"])


def synth_detections(scene: dict[str, object]) -> Detections:
    tiles = np.asarray(scene["tiles"], dtype=float)
    return Detections.make(tiles[:, 1:5], tiles[:, 0].astype(int))
