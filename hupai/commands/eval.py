"""``hupai eval DIR``: mAP, per-class AP, confusions, tile precision/recall and the photo
exact-read rate of a model on a YOLO-format folder, through the product's onnxruntime path."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hupai.cli import UserError


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("eval", help="measure the detector on a YOLO-format folder")
    parser.add_argument("folder", type=Path, help="dataset root, or an images folder")
    parser.add_argument("--split", help="split under images/ (default: test, then val)")
    parser.add_argument("--model", help="ONNX model (default: the shipped one)")
    parser.add_argument("--conf", type=float, default=0.25, help="confidence of a read tile")
    parser.add_argument("--threads", type=int, help="onnxruntime threads")
    parser.add_argument("--limit", type=int, help="only the first N photos")
    parser.add_argument(
        "--tiles-only",
        action="store_true",
        help="only the 34 tile kinds (no flowers, no backs), to compare with other models",
    )
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the figures here")
    parser.set_defaults(handler=_eval)


def _eval(args: argparse.Namespace) -> int:
    from scoring.tiles import KINDS
    from vision.detector import ModelError
    from vision.evaluation import DatasetError, format_report, run, to_dict

    if not 0 < args.conf < 1:
        raise UserError(f"--conf {args.conf}: must be between 0 and 1")
    try:
        evaluation = run(
            args.folder,
            model=args.model,
            split=args.split,
            conf=args.conf,
            threads=args.threads,
            classes=range(KINDS) if args.tiles_only else None,
            limit=args.limit,
            progress=True,
        )
    except (DatasetError, ModelError) as exc:
        raise UserError(str(exc)) from None
    for line in format_report(evaluation):
        print(line)
    if args.json:
        if args.json.exists() and args.json.is_dir():
            raise UserError(f"--json {args.json}: is a folder")
        args.json.write_text(json.dumps(to_dict(evaluation), indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0
