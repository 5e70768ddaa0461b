"""``hupai eval DIR``: reading measured stage by stage (finder, namer) and end to end on a
YOLO-format folder, through the product's onnxruntime path; ``hupai eval --crops DIR``: the
namer alone on single-tile photos with a labels.csv."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from hupai.cli import UserError, add_models_option, as_user_error


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "eval", help="measure reading on a YOLO-format folder (or the namer on tile photos)"
    )
    parser.add_argument("folder", type=Path, nargs="?", help="dataset root, or an images folder")
    parser.add_argument("--split", help="split under images/ (default: test, then val)")
    parser.add_argument("--model", help="finder/detector ONNX (default: the shipped one)")
    parser.add_argument("--namer", help="namer ONNX (default: the shipped one)")
    add_models_option(parser)
    parser.add_argument(
        "--no-namer", action="store_true", help="the detector names the tiles itself"
    )
    parser.add_argument(
        "--crops",
        type=Path,
        metavar="DIR",
        help="measure the namer alone on single-tile photos (DIR/labels.csv: image,tile)",
    )
    parser.add_argument(
        "--conf", type=float, default=0.25, help="confidence of a tile read by the detector alone"
    )
    parser.add_argument("--threads", type=int, help="onnxruntime threads")
    parser.add_argument("--limit", type=int, help="only the first N photos")
    parser.add_argument(
        "--tiles-only",
        action="store_true",
        help="only the 34 tile kinds (no flowers, no backs), to compare with other models",
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the figures here")
    parser.add_argument(
        "--disagreements",
        type=Path,
        metavar="DIR",
        help="write every box where the reading and the labels disagree (renamed, labelled "
        "twice, unlabelled, unread; the likeliest label errors first) to DIR/disagreements.json "
        "and review sheets DIR/sheet-NN.png (a new or empty folder)",
    )
    parser.set_defaults(handler=_eval)


def _eval(args: argparse.Namespace) -> int:
    from hupai.evaluation import (
        DatasetError,
        crops_to_dict,
        format_crops,
        format_report,
        run,
        run_crops,
        to_dict,
    )
    from hupai.scoring.tiles import KINDS
    from hupai.vision.detector import ModelError
    from hupai.vision.namer import NamerError

    if not 0 < args.conf < 1:
        raise UserError(f"--conf {args.conf}: must be between 0 and 1")
    if args.json and args.json.is_dir():
        raise UserError(f"--json {args.json}: is a folder")
    if args.crops is None and args.folder is None:
        raise UserError("give a dataset folder, or --crops DIR")
    review = args.disagreements
    if review is not None and args.crops is not None:
        raise UserError("--disagreements: with a dataset folder of photos, not --crops")
    if review is not None:
        from hupai.disagreements import new_or_empty

        if not new_or_empty(review):  # said before a single photo is read
            raise UserError(f"--disagreements {review}: exists and is not an empty folder")
    figures: dict[str, Any]
    with as_user_error(DatasetError, ModelError, NamerError):
        if args.crops is not None:
            crops = run_crops(args.crops, namer=args.namer, threads=args.threads)
            lines = list(format_crops(crops))
            figures = crops_to_dict(crops)
        else:
            evaluation = run(
                args.folder,
                model=args.model,
                namer=args.namer,
                use_namer=not args.no_namer,
                split=args.split,
                conf=args.conf,
                threads=args.threads,
                classes=range(KINDS) if args.tiles_only else None,
                limit=args.limit,
                progress=True,
                review=review is not None,
            )
            lines = list(format_report(evaluation))
            figures = to_dict(evaluation)
            if review is not None:
                lines += _write_review(review, evaluation.review)
    for line in lines:
        print(line)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


def _write_review(out: Path, review: Any) -> list[str]:
    from collections import Counter

    from hupai.disagreements import KINDS, rank, write_review

    pairs = sorted(review, key=lambda pair: rank(pair[0]))
    files = write_review(out, [d for d, _ in pairs], [crop for _, crop in pairs])
    kinds = Counter(d.kind for d, _ in pairs)
    summary = ", ".join(f"{kinds[k]} {k}" for k in KINDS)
    return [f"disagreements with the labels: {summary} → {files[0]} and {len(files) - 1} sheet(s)"]
