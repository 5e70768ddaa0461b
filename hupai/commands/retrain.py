"""``hupai retrain CORRECTED … --out MODELS``: a model folder retrained from people's
corrections, with a before/after table (hupai/labeling/retrain.py; the ``train`` extra)."""

from __future__ import annotations

import argparse
from pathlib import Path

from hupai.cli import TRAIN_EXTRA, UserError, as_user_error


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "retrain",
        help="retrain the namer on corrected photos and compare (train extra)",
        description=(
            "Fine-tune the namer on folders made by `hupai data import` (the photos people "
            "corrected), starting from a model folder (default: the shipped models), keep a "
            "held-out part, and print exact-read, tile precision/recall and tiles named right "
            "before and after, on that part and on the real test split. Writes a model folder "
            "for `hupai read/serve/label/eval --models`. Rerun the same command to resume."
        ),
    )
    parser.add_argument("corrected", type=Path, nargs="+", help="`hupai data import` folders")
    parser.add_argument("--out", type=Path, required=True, help="the model folder to write")
    parser.add_argument(
        "--models", type=Path, help="model folder to start from (default: the shipped models/)"
    )
    parser.add_argument(
        "--real",
        type=Path,
        default=Path("data/real"),
        help="the real set: val photos replayed and checking int8, test split in the table",
    )
    parser.add_argument(
        "--no-real", action="store_true", help="no real set: train and measure on corrections"
    )
    parser.add_argument(
        "--held-out", type=float, default=0.2, help="share held out (default 0.2) when no "
        "photo was imported with --split val/test",
    )  # fmt: skip
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--epoch-crops", type=int, default=8000, help="crops per epoch")
    parser.add_argument("--lr", type=float, default=6e-4, help="peak learning rate")
    parser.add_argument(
        "--replay-share", type=float, default=0.4, help="of each epoch: real crops replayed"
    )
    parser.add_argument("--real-test-limit", type=int, help="only N real test photos in the table")
    parser.add_argument(
        "--finder",
        choices=("auto", "train", "keep"),
        default="keep",
        help="fine-tune the finder too: where it misses or invents boxes on the corrections "
        "(auto), always (train) or never (keep, the default: a 3-epoch fine-tune on 40 photos of a "
        "new set took real test tile precision from 0.98 to 0.89)",
    )
    parser.add_argument("--finder-epochs", type=int, default=3, help="the finder's epochs")
    parser.add_argument("--no-int8", dest="int8", action="store_false", help="keep it float")
    parser.add_argument("--device", help="torch device (default: cuda when present, else cpu)")
    parser.add_argument("--threads", type=int, help="CPU threads (default: every core)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--version", help="the new pair's version (default: retrained-DATE)")
    parser.set_defaults(handler=_retrain)


def _retrain(args: argparse.Namespace) -> int:
    try:
        import efficientnet_lite_pytorch  # noqa: F401
        import torch  # noqa: F401
    except ModuleNotFoundError:
        raise UserError(TRAIN_EXTRA.format(what="retraining")) from None
    from hupai.labeling.retrain import RetrainError, RetrainOptions, format_table, retrain
    from hupai.vision.detector import SHIPPED_MODELS

    if not 0 < args.held_out < 1:
        raise UserError(f"--held-out {args.held_out}: must be between 0 and 1")
    if args.epochs < 1 or args.epoch_crops < 1:
        raise UserError("--epochs and --epoch-crops must be at least 1")
    opts = RetrainOptions(
        corrected=tuple(args.corrected),
        out=args.out,
        base=args.models or SHIPPED_MODELS,
        real=None if args.no_real else args.real,
        held_out=args.held_out,
        epochs=args.epochs,
        epoch_crops=args.epoch_crops,
        lr=args.lr,
        replay_share=args.replay_share,
        real_test_limit=args.real_test_limit,
        finder=args.finder,
        finder_epochs=args.finder_epochs,
        int8=args.int8,
        seed=args.seed,
        threads=args.threads,
        device=args.device,
        version=args.version,
    )
    with as_user_error(RetrainError):
        report = retrain(opts)
    print(format_table(report.table))
    finder = report.finder
    print(
        f"finder on the training part before: recall {finder['recall']:.3f}, precision "
        f"{finder['precision']:.3f}: " + ("fine-tuned" if finder["trained"] else "kept")
    )
    print(f"wrote {args.out} ({report.seconds / 60:.1f} min); "
          f"read with: hupai read PHOTO --models {args.out}")  # fmt: skip
    return 0
