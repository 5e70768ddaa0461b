"""``hupai label PHOTOS_DIR --out OUT_DIR``: batch-label a folder of photos (docs/labeling.md).

The job itself is :mod:`hupai.labeling`; this command adds the scoring of each reading
(``--city`` with the table context), which only the CLI and the service may compose.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hupai.cli import add_models_option

FORMATS = ("yolo", "labelstudio", "coco")
#: Readings that cannot be scored as they stand (as ``hupai score --photo``).
UNSCORABLE = ("no_tiles", "tile_count", "too_many_copies")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "label",
        help="batch-label folders of photos (YOLO / Label Studio / COCO, readings, previews)",
        description=(
            "Read every photo under PHOTOS_DIR (subfolders included) with the detector and "
            "write labels a person can correct and train on: the Ultralytics layout "
            "(images/, labels/, data.yaml, classes.txt), Label Studio tasks with the boxes "
            "as predictions, COCO JSON, readings.jsonl/.csv (tiles, structure, warnings, "
            "and the score with --city and the table context) and report.json. A rerun "
            "skips the photos already done; a label file a person changed is never "
            "replaced unless --overwrite. Exit 1 when some photos could not be read."
        ),
    )
    parser.add_argument("photos", metavar="PHOTOS_DIR", help="folder of photos")
    parser.add_argument("--out", required=True, metavar="OUT_DIR", help="output folder")
    parser.add_argument(
        "--format",
        default=",".join(FORMATS),
        help="label formats, comma-separated (default: all of yolo,labelstudio,coco)",
    )
    parser.add_argument(
        "--conf",
        type=float,
        default=0.25,
        metavar="C",
        help="keep boxes scoring at least C (default 0.25)",
    )
    parser.add_argument(
        "--workers", type=int, help="worker processes, each with its own model session "
        "(default: the number of cores, at most 8)"
    )  # fmt: skip
    parser.add_argument("--threads", type=int, help="onnxruntime threads per worker")
    parser.add_argument("--model", help="ONNX finder or detector (default: models/reader.json)")
    parser.add_argument("--namer", help="ONNX namer (default: models/reader.json)")
    add_models_option(parser)
    parser.add_argument(
        "--no-namer", action="store_true", help="the detector names the tiles (no namer)"
    )
    parser.add_argument(
        "--images",
        choices=("link", "copy"),
        default="link",
        help="put the photos in OUT_DIR/images as symbolic links (default) or copies",
    )
    parser.add_argument(
        "--previews", action="store_true", help="also write contact sheets of annotated photos"
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace files a person changed in OUT_DIR"
    )
    parser.add_argument(
        "--ls-prefix",
        default="/data/local-files/?d=",
        help="Label Studio image URL before the path under OUT_DIR (default: Label Studio's "
        "local files, with LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT=OUT_DIR)",
    )
    parser.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local worker processes (default) or a Ray cluster (the 'ray' extra)",
    )
    parser.add_argument(
        "--ray-address", help="Ray cluster to join (default: $RAY_ADDRESS, else a local one)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    group = parser.add_argument_group(
        "scoring",
        "score each reading under a city's rules: --city with the table context from "
        "options and/or a --context FILE (a request's fields; its 'photos' object gives "
        "one photo's own fields, keyed by the photo's path under PHOTOS_DIR)",
    )
    group.add_argument("--city", help="city whose rules score the readings")
    group.add_argument("--winner", type=int, help="winner's seat, 0-3 (0 = dealer)")
    group.add_argument(
        "--win", help="how the hand was won: self_draw, discard, robbed_kong, kong_replacement"
    )
    group.add_argument("--discarder", type=int, help="seat that discarded the winning tile")
    group.add_argument("--context", metavar="FILE", help="JSON object of request fields")
    parser.set_defaults(handler=_label)


def _label(args: argparse.Namespace) -> int:
    from hupai.cli import UserError, as_user_error
    from hupai.labeling import LabelJobError, LabelOptions, default_workers, run_label_job

    formats = tuple(f.strip() for f in args.format.split(",") if f.strip())
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise UserError(
            f"--format {args.format}: "
            + (f"'{unknown[0]}' is not a format" if unknown else "no format given")
            + f"; choose from {','.join(FORMATS)}"
        )
    if not 0 < args.conf < 1:
        raise UserError(f"--conf {args.conf}: give a confidence between 0 and 1")
    for name in ("workers", "threads"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UserError(f"--{name} {value}: need at least one")
    photos = Path(args.photos)
    scorer, city = _scorer(args, photos)
    opts = LabelOptions(
        photos=photos,
        out=Path(args.out),
        formats=formats,
        model=args.model,
        namer=args.namer,
        no_namer=args.no_namer,
        conf=args.conf,
        workers=args.workers or default_workers(),
        threads=args.threads,
        engine=args.engine,
        ray_address=args.ray_address,
        images=args.images,
        previews=args.previews,
        overwrite=args.overwrite,
        ls_prefix=args.ls_prefix,
        city=city,
    )
    with as_user_error(LabelJobError):
        report = run_label_job(opts, scorer=scorer, progress=None if args.quiet else sys.stderr)
    print(report.summary())
    print(f"outputs in {opts.out}: {', '.join(report.outputs)}; report.json lists the details")
    return 1 if report.failed else 0


def _scorer(args: argparse.Namespace, photos: Path) -> tuple[Any, str | None]:
    """The function that scores one reading, or None without a city."""
    from hupai.cli import UserError

    base: dict[str, Any] = _read_context(args.context) if args.context else {}
    per_photo = base.pop("photos", {})
    if not isinstance(per_photo, dict) or not all(isinstance(v, dict) for v in per_photo.values()):
        raise UserError(f"--context {args.context}: 'photos' must map photo paths to objects")
    for key in ("city", "winner", "win", "discarder"):
        value = getattr(args, key)
        if value is not None:
            base[key] = value
    city = base.get("city")
    if city is None:
        if base or per_photo:
            raise UserError("the table context (--winner, --win, --context …) needs --city")
        return None, None
    from hupai.scoring import ScoringInputError, get_city

    try:
        get_city(str(city))
    except (ScoringInputError, ValueError) as exc:
        raise UserError(f"--city: {exc}") from None
    for rel in per_photo:
        if not (photos / rel).is_file():
            raise UserError(f"--context {args.context}: photos.{rel}: no such photo in {photos}")
    missing = [k for k in ("winner", "win") if k not in base]
    if missing and not per_photo:
        raise UserError(
            f"--city {city} needs the table context: {', '.join('--' + k for k in missing)} "
            "(and --discarder for a discard win), or a --context FILE"
        )
    return _make_scorer(str(city), base, per_photo), str(city)


def _read_context(source: str) -> dict[str, Any]:
    from hupai.cli import UserError
    from hupai.commands.score import _read_request

    data = _read_request(source)
    if not isinstance(data, dict):
        raise UserError(f"--context {source}: must be a JSON object of request fields")
    return dict(data)


def _make_scorer(city: str, base: dict[str, Any], per_photo: dict[str, Any]) -> Any:
    from hupai.scoring import ScoringInputError, result_to_dict, score
    from hupai.vision.trust import score_doubts, trust_fields

    def scorer(rel: str, reading: Any) -> dict[str, Any]:
        data = {**base, **per_photo.get(rel, {}), "city": city}
        serious = [w for w in reading.warnings if w.code in UNSCORABLE]
        if serious:
            return {
                "error": "cannot score this reading: "
                + "; ".join(f"[{w.code}] {w.message}" for w in serious)
            }
        winner = data.get("winner") if isinstance(data.get("winner"), int) else None
        win_tile_given = "win_tile" in data
        data.update(reading.to_request_fields(city, winner))
        try:
            result = result_to_dict(score(data))
        except ScoringInputError as exc:
            return {"error": str(exc), "request": data}
        as_read = reading.to_dict(city)
        doubts = score_doubts(as_read, data, result, None, win_tile_given=win_tile_given)
        return {
            "request": data,
            "result": result,
            **trust_fields(as_read, doubts),
        }

    return scorer
