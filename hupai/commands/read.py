"""``hupai read PHOTO…``: read winning hands from photos (docs/reading.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hupai.cli import add_models_option

if TYPE_CHECKING:
    from hupai.vision.result import Reading

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp", ".tif", ".tiff")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "read",
        help="read the tiles and the hand's structure from photos",
        description=(
            "Detect the tiles in each photo and lay out the hand: concealed tiles, the winning "
            "tile (set a little apart at the hand's right end), exposed melds (called tile "
            "sideways, concealed kong with two tiles face down), flowers, and the indicator or "
            "fishing tiles set apart above the hand. Warnings carry stable codes and advice."
        ),
    )
    parser.add_argument("photos", nargs="+", metavar="PHOTO", help="photo files")
    parser.add_argument("--json", action="store_true", help="print JSON (one object per photo)")
    parser.add_argument(
        "--annotate",
        metavar="OUT",
        help="write the annotated photo to OUT (a .jpg/.png file for one photo, else a folder)",
    )
    add_model_options(parser)
    parser.add_argument("--city", help="city whose request fields to use (indicator or fishing)")
    parser.add_argument("--win-tile", help="the winning tile, when it is not set apart (e.g. 5p)")
    parser.set_defaults(handler=_read)


def add_model_options(parser: Any) -> None:
    parser.add_argument("--model", help="ONNX finder or detector (default: models/reader.json)")
    parser.add_argument("--namer", help="ONNX namer (default: models/reader.json)")
    add_models_option(parser)
    parser.add_argument(
        "--no-namer", action="store_true", help="the detector names the tiles (no namer)"
    )
    parser.add_argument("--threads", type=int, help="onnxruntime threads (default: all cores)")


def load_models(args: argparse.Namespace) -> tuple[Any, Any]:
    """(detector, namer) from the options: the shipped pair unless told otherwise."""
    from hupai.cli import UserError, as_user_error
    from hupai.vision.detector import ModelError
    from hupai.vision.namer import NamerError
    from hupai.vision.reading import default_namer, get_detector, get_namer

    if args.threads is not None and args.threads < 1:
        raise UserError(f"--threads {args.threads}: need at least one")
    with as_user_error(ModelError, NamerError):
        detector = get_detector(args.model, args.threads)
        if args.no_namer:
            namer = None
        elif args.namer:
            namer = get_namer(args.namer, args.threads)
        else:
            namer = default_namer(args.threads)
        if namer is None and detector.is_finder:
            raise UserError(
                f"{detector.path} is a finder: it needs a namer (--namer); --no-namer needs a "
                "43-class detector given with --model (none ships: docs/reading.md)"
            )
        return detector, namer


def read_photo(photo: str, models: tuple[Any, Any], win_tile: Any = None) -> tuple[Any, Any]:
    """(image read, reading) of a photo file with the command's models, the one way every
    command reads a photo (:func:`hupai.vision.reading.read_photo_image`)."""
    from hupai.vision.reading import read_photo_image

    detector, namer = models
    return read_photo_image(photo, detector=detector, namer=namer, win_tile=win_tile)


def parse_win_tile(text: str | None) -> Any:
    from hupai.cli import UserError
    from hupai.scoring.tiles import Tile, TileError

    if text is None:
        return None
    try:
        return Tile.parse(text)
    except TileError as exc:
        raise UserError(f"--win-tile: {exc}") from None


def _outputs(photos: list[str], out: str | None) -> list[Path | None]:
    from hupai.cli import UserError

    if out is None:
        return [None] * len(photos)
    target = Path(out)
    inputs = {Path(p).resolve() for p in photos}
    if len(photos) == 1 and target.suffix.lower() in IMAGE_SUFFIXES:
        paths = [target]
    else:
        if target.exists() and not target.is_dir():
            raise UserError(f"--annotate {out}: several photos need a folder, and this is a file")
        target.mkdir(parents=True, exist_ok=True)
        paths = [target / f"{Path(p).stem}.annotated.jpg" for p in photos]
    for p in paths:
        if p.resolve() in inputs:
            raise UserError(f"--annotate {p}: would overwrite an input photo")
    return list(paths)


def _read(args: argparse.Namespace) -> int:
    from hupai.cli import UserError
    from hupai.vision.annotate import save_annotated
    from hupai.vision.images import PhotoError

    win = parse_win_tile(args.win_tile)
    outs = _outputs(args.photos, args.annotate)
    detector, namer = load_models(args)
    failed = 0
    results: list[dict[str, Any]] = []
    for photo, out in zip(args.photos, outs, strict=True):
        try:
            image, reading = read_photo(photo, (detector, namer), win)
        except PhotoError as exc:
            print(f"hupai read: {exc}", file=sys.stderr)
            failed += 1
            continue
        if out is not None:
            try:
                save_annotated(image, reading, out)
            except (PhotoError, OSError) as exc:
                raise UserError(f"--annotate: {exc}") from None
        if args.json:
            results.append(reading.to_dict(args.city))
        else:
            print(format_reading(reading, args.city, out))
    if args.json:
        payload: Any = results[0] if len(args.photos) == 1 and results else results
        print(json.dumps(payload, ensure_ascii=False, indent=1))
    return 2 if failed else 0


def format_reading(reading: Any, city: str | None = None, annotated: Path | None = None) -> str:
    """The human-readable reading of one photo."""
    from hupai.scoring.tiles import format_tiles

    n = len(reading.detections)
    lines = [
        f"{reading.source}: {n} tile{'s' if n != 1 else ''} seen ({', '.join(reading.passes)})"
    ]
    hand = "".join(str(t) for t in reading.hand) or "-"
    win = "-" if reading.win_tile is None else str(reading.win_tile)
    how = "set apart" if reading.win_tile_set_apart else "given or assumed"
    lines.append(f"  hand       {format_tiles(reading.hand) or '-'}   (left to right: {hand})")
    lines.append(f"  win tile   {win} ({how})")
    for m in reading.melds:
        note = f", called from {m.called_from}" if m.called_from else ""
        note += ", a tile inferred" if m.inferred else ""
        lines.append(f"  meld       {m.kind} {m.notation}{note}")
    if reading.flowers:
        lines.append(f"  flowers    {format_tiles(reading.flowers)}")
    for key, value in reading.indicator_or_fishing(city).items():
        lines.append(f"  {key:<10} {value}")
    for w in reading.warnings:
        lines.append(f"  warning [{w.code}] {w.message}. {w.advice}")
    if annotated is not None:
        lines.append(f"  annotated  {annotated}")
    return "\n".join(lines)


# -- `hupai score --photo` ---------------------------------------------------------------------


def add_photo_options(parser: argparse.ArgumentParser) -> None:
    """The options ``hupai score`` takes to read the hand from a photo."""
    group = parser.add_argument_group(
        "from a photo",
        "read hand, melds, winning tile, flowers and indicator/fishing tiles from a photo; the "
        "table context comes from these options and/or a REQUEST file (the photo's fields win)",
    )
    group.add_argument("--photo", metavar="PHOTO", help="photo of the winning hand")
    group.add_argument("--city", help="city (required with --photo unless REQUEST names it)")
    group.add_argument("--winner", type=int, help="winner's seat, 0-3 (0 = dealer)")
    group.add_argument(
        "--win", help="how the hand was won: self_draw, discard, robbed_kong, kong_replacement"
    )
    group.add_argument("--discarder", type=int, help="seat that discarded the winning tile")
    group.add_argument("--win-tile", help="the winning tile, when it is not set apart")
    add_model_options(group)


def photo_request(args: argparse.Namespace, base: Any) -> tuple[dict[str, Any], Reading]:
    """The score request — REQUEST (if any), then the context options, then the photo — and
    the photo's reading."""
    from hupai.cli import UserError, as_user_error
    from hupai.vision.images import PhotoError

    if base is not None and not isinstance(base, dict):
        raise UserError("the request must be a JSON object when --photo is given")
    data: dict[str, Any] = dict(base or {})
    for key in ("city", "winner", "win", "discarder"):
        value = getattr(args, key)
        if value is not None:
            data[key] = value
    if "city" not in data:
        raise UserError("--photo needs --city (or a request file naming the city)")
    win = parse_win_tile(args.win_tile)
    detector, namer = load_models(args)
    with as_user_error(PhotoError):
        _, reading = read_photo(args.photo, (detector, namer), win)
    serious = [
        w for w in reading.warnings if w.code in ("no_tiles", "tile_count", "too_many_copies")
    ]
    if serious:
        raise UserError(
            f"{args.photo}: cannot score this reading: "
            + "; ".join(f"[{w.code}] {w.message}" for w in serious)
            + f". {serious[0].advice} (hupai read {args.photo} shows what was read)"
        )
    for w in reading.warnings:
        print(f"hupai score: {args.photo}: warning [{w.code}] {w.message}", file=sys.stderr)
    winner = data.get("winner") if isinstance(data.get("winner"), int) else None
    data.update(reading.to_request_fields(str(data["city"]), winner))
    return data, reading
