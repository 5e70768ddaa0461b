"""Camerash composites: a visible stand-in for tile sets the reader never saw.

The real photos of other sets that issue #36 measures are kept apart; ../shared/data/camerash-tiles
holds 628 frontal photos of single tiles of many physical sets (**measure only, never train
on them**). Each composite lays such photos out as a winning hand by the photo convention
(docs/reading.md): the concealed tiles touching in a row, the winning tile set a little apart
at its right end, exposed melds (their called tile sideways) set apart after the hand or in a
row of their own, flowers beside — each tile a face on a body of one colour, on a table
(procedural cloth, wood, stone; mate-backgrounds' photographs where they can be fetched), the
whole seen turned and in mild perspective, lit unevenly, blurred a little, JPEG-compressed.
Seeds fix everything: composite ``i`` of seed ``s`` is the same on every machine.

Each is read through the product's own path (:func:`hupai.vision.reading.read_image`) and
scored as ``hupai score --photo`` would (:func:`hupai.vision.trust.score_doubts`), against the
true hand scored with the same context (Shaanxi, a discard; Nanning, self-drawn):

* tiles: exact-read, the confident share and how exact it is (confident exact);
* scores: the share of photos scored confident and, of those, the share **wrong** (tiles or
  deltas not the true hand's) — the issue's "synthetic winning-hand photos scored: confident
  and wrong" —, and how many of them had tiles doubted for their names alone that the hand's
  shape settled (:func:`hupai.vision.trust.settled_by_shape`), and how many of those are wrong.

Concealed and added kongs are laid as exposed kongs (camerash has no face-down tiles); no
indicator or fishing tiles; no flowers (neither city plays them); Nanning's chows concealed.

    python bench/composites.py [--n 200] [--seed 3600] [--model F.onnx --namer N.onnx]
    python bench/composites.py --low    # the hand's tiles standing, seen from a low camera

``--low`` stands the hand's tiles up before a low camera (one of the failure kinds of the
kept-apart photos: a webcam level with the table): each shows its top above its face — the
face's layer, then the back's — and no body below; melds lie as before. The same seeds lay
other hands (the top's height is drawn from them).
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hupai.datasets.corrections import corrected_tile, photo_corrections  # noqa: E402
from hupai.datasets.synth import effects  # noqa: E402
from hupai.datasets.synth.layout import HandPlan, MeldKind, random_hand  # noqa: E402
from hupai.datasets.synth.surfaces import table_texture  # noqa: E402
from hupai.scoring.tiles import Tile, format_tiles  # noqa: E402
from hupai.vision.classes import class_of  # noqa: E402

CAMERASH = ROOT.parent / "shared" / "data" / "camerash-tiles"
#: the camerash photos' border (share of each side) trimmed off: table, shadow, the frame edge
TRIM = 0.04
#: a face's width over its height (the photos are 240 × 320)
FACE_ASPECT = 0.75
#: the body seen below a face, as a share of the face's height
BODY = 0.22
#: ``--low``: the top of a standing tile seen from a low camera, as a share of the face's
#: height (a webcam level with the table sees a sliver; one a little above, more)
TOP = (0.12, 0.4)
#: body colours (BGR): ivory, green, blue, yellow, pink backs seen at the tile's foot
BODIES = ((190, 215, 225), (70, 120, 40), (150, 90, 40), (60, 170, 210), (160, 140, 210))
#: the contexts scored: (city, the rest of the request)
WINNER = 0
CONTEXTS = (
    ("shaanxi", {"win": "discard", "winner": WINNER, "discarder": 2}),
    ("nanning", {"win": "self_draw", "winner": WINNER}),
)


@dataclass
class Composite:
    """One composite photo: its pixels, its tiles' labels and the true hand."""

    image: NDArray[np.uint8]
    labels: list[tuple[int, tuple[float, float, float, float]]]  # (class id, photo xyxy)
    hand: list[Tile]  # the concealed tiles, the winning tile among them
    win_tile: Tile
    #: (scoring kind, tiles, the sideways tile's place in the meld, left to right)
    melds: list[tuple[str, list[Tile], int]] = field(default_factory=list)
    flowers: list[Tile] = field(default_factory=list)

    def request_fields(self, winner: int = 0) -> dict[str, Any]:
        """The true hand as the tile fields of a score request: a claimed pung or kong comes
        from the seat its sideways tile points to (left: the previous seat, across, right)."""
        melds = []
        for kind, tiles, called in self.melds:
            item: dict[str, Any] = {"kind": kind, "tiles": format_tiles(tiles)}
            if kind != "chow":
                last = len(tiles) - 1
                step = 3 if called == 0 else 1 if called == last else 2
                item["from"] = (winner + step) % 4
            melds.append(item)
        out: dict[str, Any] = {
            "hand": format_tiles(self.hand),
            "win_tile": str(self.win_tile),
            "melds": melds,
        }
        if self.flowers:
            out["flowers"] = format_tiles(self.flowers)
        return out


def context_of(i: int) -> tuple[str, dict[str, Any]]:
    """The context composite ``i`` is scored in: (city, the rest of the request)."""
    return CONTEXTS[i % len(CONTEXTS)]


def load_faces(folder: Path = CAMERASH) -> dict[Tile, list[Path]]:
    """Each tile's camerash photos (labels.csv: ``image,tile``)."""
    fixes = photo_corrections(folder / "labels.csv")  # label errors checked by eye
    faces: dict[Tile, list[Path]] = {}
    with (folder / "labels.csv").open() as f:
        for row in csv.DictReader(f):
            tile = Tile.parse(corrected_tile(fixes, row["image"], row["tile"]))
            faces.setdefault(tile, []).append(folder / "images" / row["image"])
    return faces


def plan(rng: np.random.Generator, city: str) -> HandPlan:
    """A winning hand as camerash can show it and ``city`` scores it: kongs exposed, no
    indicator or fishing, no flowers (neither Shaanxi nor Nanning plays them), and in Nanning,
    where a chow is never claimed, a chow's tiles among the concealed ones."""
    hand = random_hand(rng)
    concealed = list(hand.concealed)
    melds = []
    for kind, tiles in hand.melds:
        if kind is MeldKind.CHOW and city == "nanning":
            concealed += tiles
            continue
        melds.append((MeldKind.KONG if len(tiles) == 4 else kind, tiles))
    return HandPlan(concealed, melds, hand.winning, [], [], [])


@dataclass
class _Placed:
    tile: Tile
    x: float  # left, in tile widths
    y: float  # the body's foot (the row's base line), in tile widths
    sideways: bool = False


def _lay_out(rng: np.random.Generator, hand: HandPlan) -> tuple[list[_Placed], list[int]]:
    """The tiles on the table, in tile widths (x right, y down to each tile's foot), and
    each meld's sideways tile (its place in the meld)."""
    seam = float(rng.uniform(0.01, 0.05))
    placed: list[_Placed] = []

    def run(tiles: list[Tile], x: float, y: float, sideways: int = -1) -> float:
        for k, t in enumerate(tiles):
            side = k == sideways
            placed.append(_Placed(t, x, y, side))
            x += (1 / FACE_ASPECT if side else 1.0) + seam
        return x

    rest = list(hand.concealed)
    rest.remove(hand.winning)
    x = run(sorted(rest), 0.0, 0.0)
    x = run([hand.winning], x + float(rng.uniform(0.25, 0.6)), 0.0)
    own_row = bool(rng.random() < 0.5)
    mx, my = (0.0, -2.2 - float(rng.uniform(0, 0.6))) if own_row else (x + 0.9, 0.0)
    if hand.flowers:
        fx, fy = (mx, my) if own_row else (-len(hand.flowers) - 1.0, 0.0)
        end = run(hand.flowers, fx, fy)
        if own_row:
            mx = end + float(rng.uniform(0.7, 1.2))
    called = []
    for _kind, tiles in hand.melds:
        called.append(int(rng.integers(len(tiles))))
        mx = run(list(tiles), mx, my, sideways=called[-1]) + float(rng.uniform(0.6, 1.2))
    return placed, called


def _face(path: Path, w: int, h: int) -> NDArray[np.uint8]:
    image = cv2.imread(str(path))
    if image is None:
        raise SystemExit(f"{path}: not an image")
    ih, iw = image.shape[:2]
    dy, dx = round(TRIM * ih), round(TRIM * iw)
    return np.asarray(
        cv2.resize(image[dy : ih - dy, dx : iw - dx], (w, h), interpolation=cv2.INTER_AREA)
    )


def compose(
    rng: np.random.Generator,
    faces: dict[Tile, list[Path]],
    city: str = "shaanxi",
    size: int = 1280,
    tables: list[NDArray[np.uint8]] | None = None,
    plain: bool = False,
    low: bool = False,
) -> Composite:
    """One composite of a hand ``city`` scores (``tables``: photographs to draw the table
    from; else procedural). ``low``: the hand's tiles stand and the camera is low: each
    shows its top above its face (:data:`TOP`: the face's layer, then the back's), no body
    below; the melds lie as before."""
    hand = plan(rng, city)
    placed, called = _lay_out(rng, hand)
    tw = float(rng.uniform(34, 80))  # a face's width, px, before the view turns it
    th = tw / FACE_ASPECT
    body = np.array(BODIES[int(rng.integers(len(BODIES)))], np.float32)
    lid = float(rng.uniform(*TOP)) * th if low else 0.0  # a standing tile's top, px
    # the canvas: the layout with a margin of 1.5-4 tiles each side
    xs = [p.x for p in placed] + [p.x + (1 / FACE_ASPECT if p.sideways else 1) for p in placed]
    ys = [p.y for p in placed] + [p.y - (th + BODY * th + lid) / tw for p in placed]
    margin = float(rng.uniform(1.5, 4.0))
    x0, y0 = min(xs) - margin, min(ys) - margin
    cw = round((max(xs) - x0 + margin) * tw)
    ch = round((max(ys) - y0 + margin) * tw)
    canvas = _table(rng, ch, cw, tables)
    rects: list[tuple[int, tuple[float, float, float, float]]] = []
    for p in placed:
        fh = tw if p.sideways else th  # the face's height as laid
        standing = low and not p.sideways and p.y == 0.0  # the hand's row stands
        bh = 0.0 if standing else BODY * th * (0.5 if p.sideways else 1.0)
        left, foot = (p.x - x0) * tw, (p.y - y0) * tw
        top = foot - fh - bh
        face = _face(faces[p.tile][int(rng.integers(len(faces[p.tile])))], round(tw), round(th))
        if p.sideways:
            face = np.ascontiguousarray(np.rot90(face))
        x, y = round(left), round(top)
        fh_px, fw_px = face.shape[:2]
        shadow = slice(y + 3, round(foot) + 3), slice(x + 3, x + fw_px + 3)
        canvas[shadow] = (canvas[shadow] * 0.6).astype(np.uint8)
        canvas[y + fh_px : round(foot), x : x + fw_px] = (body * 0.85).astype(np.uint8)
        canvas[y : y + fh_px, x : x + fw_px] = face
        y_top = y
        if standing:  # the top, seen from just above: the face's layer, the back's behind it
            y_top = round(y - lid)
            ivory = np.array(BODIES[0], np.float32) * 1.05
            split = round(y - 0.55 * lid)
            canvas[y_top:split, x : x + fw_px] = np.clip(body * 0.95, 0, 255).astype(np.uint8)
            canvas[split:y, x : x + fw_px] = np.clip(ivory, 0, 255).astype(np.uint8)
        rects.append((class_of(p.tile), (x, y_top, x + fw_px, round(foot))))
    image, labels = _view(rng, canvas, rects, size, plain)
    melds = [(kind.value, list(t), c) for (kind, t), c in zip(hand.melds, called, strict=True)]
    return Composite(image, labels, list(hand.concealed), hand.winning, melds, list(hand.flowers))


def _table(
    rng: np.random.Generator, h: int, w: int, tables: list[NDArray[np.uint8]] | None
) -> NDArray[np.uint8]:
    if tables and rng.random() < 0.5:
        from hupai.datasets.synth.photos import photo_surface

        return np.asarray(photo_surface(rng, tables, h, w), np.uint8)
    return np.asarray(np.clip(table_texture(rng, h, w), 0, 255), np.uint8)


def _view(
    rng: np.random.Generator,
    canvas: NDArray[np.uint8],
    rects: list[tuple[int, tuple[float, float, float, float]]],
    size: int,
    plain: bool = False,
) -> tuple[NDArray[np.uint8], list[tuple[int, tuple[float, float, float, float]]]]:
    """The canvas seen turned (±12°) and in mild perspective, at ``size`` px long side, lit,
    blurred and compressed (``plain``: not); the labels as the envelopes of the tiles' turned
    corners."""
    h, w = canvas.shape[:2]
    scale = size / max(h, w)
    angle = math.radians(float(rng.uniform(-12, 12)))
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    jitter = rng.uniform(-0.05, 0.05, (4, 2)) * np.array([w, h])
    centre = np.array([w, h]) / 2
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    dst = ((src + jitter - centre) @ rot.T) * scale
    dst -= dst.min(0)
    out_w, out_h = (int(v) for v in np.ceil(dst.max(0)))
    m = cv2.getPerspectiveTransform(src, np.float32(dst))
    image = cv2.warpPerspective(canvas, m, (out_w, out_h), borderMode=cv2.BORDER_REPLICATE)
    labels = []
    for cls, (x1, y1, x2, y2) in rects:
        corners = np.float32([[[x1, y1], [x2, y1], [x2, y2], [x1, y2]]])
        seen = cv2.perspectiveTransform(corners, m)[0]
        lo, hi = seen.min(0), seen.max(0)
        labels.append((cls, (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))))
    if plain:
        return np.asarray(image, np.uint8), labels
    image = effects.lighting(rng, image.astype(np.float32))
    image = effects.blur(rng, image)
    image = np.asarray(np.clip(image, 0, 255), np.uint8)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(75, 95))])
    assert ok
    return np.asarray(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), np.uint8), labels


def table_photos() -> list[NDArray[np.uint8]]:
    """mate-backgrounds' photographs as tables, where apt-get can fetch them; else none."""
    from hupai.datasets.sheets import SheetError
    from hupai.datasets.synth.photos import fetch_photos, load_photos

    try:
        return load_photos(fetch_photos(ROOT / "data" / "debian-art"))
    except (SheetError, OSError) as exc:
        print(f"(no table photographs: {exc}; procedural tables only)", file=sys.stderr)
        return []


def truth_score(composite: Composite, city: str, context: dict[str, Any]) -> dict[str, Any] | None:
    """The true hand's score in a context, or None where the city does not score it."""
    from hupai.scoring import ScoringInputError
    from hupai.vision.trust import score_dict

    try:
        result = score_dict({"city": city, **context, **composite.request_fields(WINNER)})
    except ScoringInputError:
        return None
    return result if result.get("valid") else None


def measure(composites: list[Composite], model: str | None, namer: str | None) -> dict[str, Any]:
    """Read and score every composite; the figures of the module's docstring."""
    from hupai.scoring import ScoringInputError
    from hupai.vision.detector import Detector
    from hupai.vision.namer import Namer
    from hupai.vision.reading import default_namer, read_image
    from hupai.vision.trust import score_dict, score_doubts

    detector = Detector(model, threads=1)
    the_namer = Namer(namer, threads=1) if namer else default_namer(1)
    exact = confident = confident_exact = scored = sure = sure_wrong = settled = settled_wrong = 0
    for k, c in enumerate(composites):
        reading = read_image(c.image, detector=detector, namer=the_namer)
        right = Counter(reading.detections.class_id.tolist()) == Counter(cls for cls, _ in c.labels)
        exact += right
        confident += reading.confident
        confident_exact += reading.confident and right
        city, context = context_of(k)
        truth = truth_score(c, city, context)
        if truth is None:
            continue
        scored += 1
        request = {"city": city, **context, **reading.to_request_fields(city, WINNER)}
        try:
            result, error = score_dict(request), None
        except ScoringInputError as exc:
            result, error = None, str(exc)
        doubts = score_doubts(reading.to_dict(city), request, result, error)
        if not doubts:
            sure += 1
            same_tiles = _tiles(request) == _tiles(c.request_fields(WINNER))
            wrong = not (same_tiles and result and result["deltas"] == truth["deltas"])
            sure_wrong += wrong
            # confident tiles or not: the rest were settled by the hand's shape
            settled += not reading.confident
            settled_wrong += wrong and not reading.confident
    n = max(len(composites), 1)
    return {
        "photos": len(composites),
        "exact_read": exact / n,
        "confident_share": confident / n,
        "confident_exact": confident_exact / confident if confident else None,
        "scored (true hand valid)": scored,
        "score confident share": sure / scored if scored else None,
        "score confident and wrong": sure_wrong / sure if sure else None,
        "  of them settled by the shape": settled / sure if sure else None,
        "  settled and wrong": settled_wrong / settled if settled else None,
    }


def _tiles(request: dict[str, Any]) -> tuple[object, ...]:
    """A request's tiles, order aside: hand, winning tile, melds, flowers."""
    melds = sorted((m["kind"], m["tiles"], m.get("from", -1)) for m in request.get("melds", []))
    return (request["hand"], request.get("win_tile"), tuple(melds), request.get("flowers", ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="composites")
    parser.add_argument("--seed", type=int, default=3600, help="composite seeds (i = 0..n-1)")
    parser.add_argument("--camerash", type=Path, default=CAMERASH)
    parser.add_argument("--model", help="finder ONNX (default: the shipped one)")
    parser.add_argument("--namer", help="namer ONNX (default: the shipped one)")
    parser.add_argument("--save", type=Path, help="also write the composites here (YOLO)")
    parser.add_argument(
        "--low", action="store_true", help="the hand's tiles stand, seen from a low camera"
    )
    args = parser.parse_args(argv)
    faces = load_faces(args.camerash)
    tables = table_photos()
    composites = [
        compose(
            np.random.default_rng([args.seed, i]),
            faces,
            context_of(i)[0],
            tables=tables,
            low=args.low,
        )
        for i in range(args.n)
    ]
    if args.save:
        save(composites, args.save)
    figures = measure(composites, args.model, args.namer)
    print(
        f"camerash composites: {args.n}, seeds ({args.seed}, i); reader: "
        f"{args.model or 'shipped finder'} + {args.namer or 'shipped namer'}"
    )
    for key, value in figures.items():
        shown = "—" if value is None else f"{value:.3f}" if isinstance(value, float) else value
        print(f"{key:28s} {shown:>8}")
    return 0


def save(composites: list[Composite], out: Path) -> None:
    """The composites as a YOLO folder (images/test, labels/test, classes.txt)."""
    from hupai.vision.classes import CLASS_NAMES

    images, labels = out / "images" / "test", out / "labels" / "test"
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    (out / "classes.txt").write_text("\n".join(CLASS_NAMES) + "\n")
    for i, c in enumerate(composites):
        h, w = c.image.shape[:2]
        cv2.imwrite(str(images / f"{i:05d}.jpg"), c.image)
        rows = [
            f"{cls} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} "
            f"{(y2 - y1) / h:.6f}"
            for cls, (x1, y1, x2, y2) in c.labels
        ]
        (labels / f"{i:05d}.txt").write_text("".join(r + "\n" for r in rows))


if __name__ == "__main__":
    raise SystemExit(main())
