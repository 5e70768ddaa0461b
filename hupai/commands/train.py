"""``hupai train``: build the finder and the namer (the ``train`` extra: torch, ultralytics).

Finder (see hupai/training/finder.py): ``run`` one training stage from a YAML or weights
(``--single-cls`` for the class-agnostic finder), ``resume`` a stopped run, ``rebuild``
trainable weights from one of hupai's own ONNX exports, ``export`` weights to ONNX +
manifest. Namer (see hupai/training/namer.py): ``namer`` runs (or resumes) every stage,
``namer-export`` writes its ONNX + manifest; ``bonus`` and ``bonus-export`` the same for the
bonus reader (hupai/training/bonus.py); ``blend`` names a namer and a partner together
(hupai/training/blend.py). The exports end int8 (``quantize``, also a
stage of its own: hupai/training/quantize.py) unless ``--no-int8``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hupai.cli import TRAIN_EXTRA, UserError, as_user_error


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser("train", help="train the tile detector (train extra)")
    stages = parser.add_subparsers(dest="stage", required=True, metavar="STAGE")

    run = stages.add_parser("run", help="one training stage")
    run.add_argument("--name", required=True, help="run folder under --project")
    run.add_argument(
        "--train",
        type=Path,
        nargs="+",
        required=True,
        help="image folders to train on (YOLO layout: images/ beside labels/)",
    )
    run.add_argument("--val", type=Path, required=True, help="validation image folder")
    run.add_argument("--model", default="yolov8n.yaml", help="architecture YAML or weights .pt")
    run.add_argument("--epochs", type=int, default=40)
    run.add_argument("--imgsz", type=int, default=640)
    run.add_argument("--batch", type=int, default=16)
    run.add_argument("--optimizer", default="AdamW", help="AdamW, SGD, … (default AdamW)")
    run.add_argument("--lr0", type=float, default=0.002, help="initial learning rate")
    run.add_argument(
        "--warmup-epochs", type=float, default=3.0, help="epochs of learning-rate warm-up"
    )
    run.add_argument("--cache", choices=["ram", "disk"], help="cache decoded images")
    run.add_argument(
        "--nbs", type=int, default=16, help="nominal batch: gradients accumulate up to it"
    )
    run.add_argument(
        "--single-cls", action="store_true", help="class-agnostic: train a finder (one class)"
    )
    run.add_argument(
        "--close-mosaic", type=int, default=5, help="last epochs trained without mosaic"
    )
    run.add_argument("--project", default="runs")
    run.set_defaults(handler=_run)

    rebuild = stages.add_parser(
        "rebuild", help="trainable weights (.pt) from one of hupai's own ONNX exports"
    )
    rebuild.add_argument("onnx", type=Path)
    rebuild.add_argument("--out", type=Path, required=True)
    rebuild.add_argument(
        "--calibration", type=Path, nargs="+", required=True, help="image folders (batch norm)"
    )
    rebuild.add_argument("--imgsz", type=int, default=512)
    rebuild.add_argument("--images", type=int, default=80, help="calibration photos used")
    rebuild.set_defaults(handler=_rebuild)

    namer = stages.add_parser("namer", help="train (or resume) the tile namer, every stage")
    namer.add_argument("--name", default="namer-v1", help="run folder under --project")
    namer.add_argument("--project", default="runs")
    namer.add_argument("--data", default="data/crops", help="where the crop sets go")
    namer.add_argument("--real", default="data/real", help="imported real photos")
    namer.add_argument("--synth-scenes", type=int, default=3000)
    namer.add_argument("--synth-val-scenes", type=int, default=300)
    namer.add_argument("--epochs", type=int, default=4)
    namer.add_argument("--epoch-crops", type=int, default=48000)
    namer.add_argument("--size", type=int, default=64, help="input side, px")
    namer.add_argument("--holdout-set", help="leave this art set out (leave-one-set-out runs)")
    namer.add_argument("--init", help="start from this checkpoint (it also judges mirror images)")
    namer.add_argument("--lr", type=float, default=1.5e-3, help="peak learning rate")
    namer.add_argument("--synth-share", type=float, default=0.45, help="of each epoch's crops")
    namer.add_argument(
        "--min-side", type=float, default=20.0, help="tiles smaller than this (px) are left out"
    )
    for kind, what in (
        ("hard", "straddling boxes and part tiles of the real photos"),
        ("clutter", "drawn clutter: text, keyboards, cups, shelves, cards, dominoes, phones"),
        ("sheet", "rows of other sets' tiles (Debian sprite sheets) with look-alikes"),
        ("kde", "scenes drawn with KDE's four tilesets (Debian kdegames-mahjongg-data-kf5)"),
        ("gen", "scenes drawn with procedural set styles (hupai.datasets.synth.faces)"),
    ):
        namer.add_argument(
            f"--{kind}-share", type=float, default=0.0, help=f"of each epoch's crops: {what}"
        )
    from hupai.commands.data import add_scene_mix_arguments

    add_scene_mix_arguments(namer, "scene-")
    namer.set_defaults(handler=_namer)

    distill = stages.add_parser(
        "distill",
        help="one namer, one view, taught the shipped ensemble's probabilities (resumable)",
        description="The last step of the namer recipe: a single EfficientNet-Lite0 that names "
        "each box once (one view) is trained to give the probabilities of the teacher — the "
        "namer ONNX with the blend, gate and views its manifest names, run as the reader runs "
        "it — on the namer's crops, the synthetic scenes and the hard negatives. Export it "
        "with `hupai train namer-export` (int8 like every namer).",
    )
    distill.add_argument("--name", default="distill-v1", help="run folder under --project")
    distill.add_argument("--project", default="runs")
    distill.add_argument("--data", default="data/crops", help="where the crop sets go")
    distill.add_argument("--real", default="data/real", help="imported real photos")
    distill.add_argument("--teacher", help="namer ONNX (default: the shipped namer)")
    distill.add_argument(
        "--init", help="the student's start: checkpoint or namer ONNX (default: the teacher's)"
    )
    distill.add_argument("--synth-scenes", type=int, default=3000)
    distill.add_argument("--synth-val-scenes", type=int, default=300)
    distill.add_argument("--epochs", type=int, default=3)
    distill.add_argument("--epoch-crops", type=int, default=20000)
    distill.add_argument("--batch", type=int, default=64)
    distill.add_argument("--lr", type=float, default=5e-4, help="peak learning rate")
    distill.add_argument(
        "--label-weight", type=float, default=0.2, help="of the loss on the crops' own labels"
    )
    distill.add_argument("--synth-share", type=float, default=0.35)
    distill.add_argument("--hard-share", type=float, default=0.10)
    distill.add_argument("--clutter-share", type=float, default=0.10)
    distill.add_argument("--sheet-share", type=float, default=0.0)
    distill.add_argument(
        "--gen-share",
        type=float,
        default=0.0,
        help="of each epoch's crops: scenes drawn with procedural set styles (taught by label)",
    )
    distill.add_argument("--gen-scenes", type=int, default=1000)
    distill.add_argument(
        "--gen-label-weight",
        type=float,
        default=1.0,
        help="of the loss on the generated-style crops' labels (the rest: the teacher)",
    )
    distill.add_argument("--clutter-crops", type=int, default=20000)
    distill.add_argument("--val-limit", type=int, default=0, help="val crops per set (0: all)")
    distill.add_argument("--threads", type=int, default=2)
    distill.set_defaults(handler=_distill)

    bonus = stages.add_parser(
        "bonus",
        help="train (or resume) the bonus reader: which flower or season, from a closer look",
    )
    bonus.add_argument("--name", default="bonus-v1", help="run folder under --project")
    bonus.add_argument("--project", default="runs")
    bonus.add_argument("--data", default="data/bonus", help="where its crop sets go")
    bonus.add_argument("--real", default="data/real", help="imported real photos")
    bonus.add_argument("--styles", type=int, default=1200, help="procedural set styles drawn")
    bonus.add_argument(
        "--val-styles", type=int, default=120, help="styles of the held-out family (selection)"
    )
    bonus.add_argument("--art-variants", type=int, default=40, help="tiles per art bonus face")
    bonus.add_argument("--epochs", type=int, default=8)
    bonus.add_argument("--epoch-crops", type=int, default=6000)
    bonus.add_argument("--lr", type=float, default=1e-3, help="peak learning rate")
    bonus.add_argument(
        "--blocks", type=int, default=0, help="cut Lite0 after this many blocks (0: whole)"
    )
    bonus.add_argument("--head", type=int, default=256, help="head conv channels of a cut one")
    bonus.add_argument(
        "--no-bird",
        dest="bird",
        action="store_false",
        help="the eight flowers and seasons alone, not the 1 of bamboo too (reader v1)",
    )
    bonus.add_argument(
        "--every-tile",
        action="store_true",
        help="every tile face (a bird reader that also knows what the namer mistakes the bird "
        "for: it may look at a box the namer names a suit tile or an honour)",
    )
    bonus.add_argument("--init", help="start a fresh run from this checkpoint's model weights")
    bonus.add_argument("--threads", type=int, default=2)
    bonus.set_defaults(handler=_bonus)

    bonus_export = stages.add_parser(
        "bonus-export",
        help="export the bonus reader to ONNX + manifest (name it in the namer's manifest: "
        '"bonus": {"file": …})',
    )
    bonus_export.add_argument("weights", type=Path)
    bonus_export.add_argument("--out", type=Path, default=Path("runs/hupai-bonus.onnx"))
    bonus_export.add_argument("--version", default="dev")
    bonus_export.add_argument("--command", default="", help="training command")
    _quantize_options(bonus_export)
    bonus_export.set_defaults(handler=_bonus_export)

    namer_export = stages.add_parser("namer-export", help="export the namer to ONNX + manifest")
    namer_export.add_argument("weights", type=Path)
    namer_export.add_argument(
        "--out",
        type=Path,
        default=Path("runs/hupai-namer.onnx"),
        help="where the ONNX and its manifest go (default: runs/, beside the runs: a candidate "
        "ships only by `hupai train pair` after it is measured, never by default)",
    )
    namer_export.add_argument("--version", default="dev")
    namer_export.add_argument("--data", default="", help="what it was trained on")
    namer_export.add_argument("--command", default="", help="training command")
    _quantize_options(namer_export)
    namer_export.set_defaults(handler=_namer_export)

    blend = stages.add_parser(
        "blend",
        help="a namer with a partner namer blended into its names, in a new folder (to measure "
        "what the partner adds; a teacher for distill)",
    )
    blend.add_argument("namer", type=Path, help="the namer ONNX (its views, calibration, bonus)")
    blend.add_argument("partner", type=Path, help="the partner namer ONNX")
    blend.add_argument(
        "--weight", type=float, default=0.4, help="the partner's share of the names (0.4)"
    )
    blend.add_argument("--out", type=Path, required=True, help="a new (or empty) folder")
    blend.set_defaults(handler=_blend)

    quantize = stages.add_parser(
        "quantize",
        help="int8 copy of a finder or namer ONNX (calibrated on train, checked on val)",
    )
    quantize.add_argument("model", type=Path, help="ONNX finder or namer with its .json beside")
    quantize.add_argument("--out", type=Path, required=True, help="the int8 (or float) ONNX")
    quantize.add_argument(
        "--calib", type=Path, default=Path("data/real"), help="real photos (YOLO folder)"
    )
    quantize.add_argument(
        "--calib-n", type=int, help="calibration photos (finder, 96) or crops (namer, 2048)"
    )
    quantize.add_argument("--val-limit", type=int, help="check on at most N val photos/crops")
    quantize.add_argument(
        "--tolerance", type=float, default=None, help="largest val loss (0-1) int8 may cost"
    )
    quantize.add_argument(
        "--force", action="store_true", help="write int8 even where it loses on val"
    )
    quantize.set_defaults(handler=_quantize)

    calibrate = stages.add_parser(
        "calibrate",
        help="choose the namer's temperature and name threshold on real val (re-run whenever "
        "the finder or the namer changes); writes them into the namer's manifest",
    )
    calibrate.add_argument(
        "--data", type=Path, default=Path("data/real"), help="real labelled photos (YOLO folder)"
    )
    calibrate.add_argument("--split", default="val", help="the split chosen on (never test)")
    calibrate.add_argument("--model", help="finder ONNX (default: the shipped one)")
    calibrate.add_argument("--namer", type=Path, help="namer ONNX (default: the shipped one)")
    calibrate.add_argument(
        "--temperature", type=float, help="keep this temperature instead of fitting one"
    )
    calibrate.add_argument(
        "--tolerance",
        type=float,
        default=None,
        help="exact share the chosen threshold may give up against the curve's best (default: "
        "one binomial standard error of the best share)",
    )
    calibrate.add_argument(
        "--min-share",
        type=float,
        default=None,
        help="a threshold is weighed only where it trusts this share of the photos (0.25)",
    )
    calibrate.add_argument("--limit", type=int, help="at most N photos (a quick look)")
    calibrate.add_argument("--threads", type=int, default=None)
    calibrate.add_argument(
        "--dry-run", action="store_true", help="print the curve; leave the manifest as it is"
    )
    calibrate.set_defaults(handler=_calibrate)

    pair = stages.add_parser(
        "pair", help="name the shipped finder and namer in models/reader.json (with versions)"
    )
    pair.add_argument("--finder", type=Path, required=True, help="ONNX finder in models/")
    pair.add_argument("--namer", type=Path, required=True, help="ONNX namer in models/")
    pair.add_argument("--version", required=True, help="the pair's version")
    pair.add_argument("--out", type=Path, default=Path("models/reader.json"))
    pair.set_defaults(handler=_pair)

    resume = stages.add_parser("resume", help="resume a stopped run from its last epoch")
    resume.add_argument("--name", required=True)
    resume.add_argument("--project", default="runs")
    resume.set_defaults(handler=_resume)

    export = stages.add_parser("export", help="export weights to ONNX + manifest")
    export.add_argument("weights", type=Path)
    export.add_argument("--out", type=Path, default=Path("runs/hupai-tiles-v1.onnx"))
    export.add_argument("--version", default="dev")
    export.add_argument("--imgsz", type=int, default=640)
    export.add_argument(
        "--data", default="", help="what the model was trained on, for the manifest"
    )
    export.add_argument("--command", default="", help="training command, for the manifest")
    export.add_argument(
        "--fp16-weights", action="store_true", help="store weights as float16 (half the size)"
    )
    export.add_argument(
        "--finder-conf", type=float, default=0.25, help="a finder's score cut (choose it on val)"
    )
    _quantize_options(export)
    export.set_defaults(handler=_export)


def _quantize_options(parser: argparse.ArgumentParser) -> None:
    """Every export ends quantized, so that a retrain ships int8 without a step to forget."""
    parser.add_argument(
        "--no-int8",
        dest="int8",
        action="store_false",
        help="keep the float model (default: int8 where it costs nothing on val)",
    )
    parser.add_argument(
        "--calib",
        type=Path,
        default=Path("data/real"),
        help="real photos to calibrate (train) and check (val) int8 on",
    )


def _need_ultralytics() -> None:
    try:
        import ultralytics  # noqa: F401
    except ModuleNotFoundError:
        raise UserError(TRAIN_EXTRA.format(what="training")) from None


def _run(args: argparse.Namespace) -> int:
    _need_ultralytics()
    from hupai.training.finder import Augment, TrainConfig, train, write_mix_yaml

    data = write_mix_yaml(args.train, args.val, Path(args.project) / f"{args.name}.data.yaml")
    config = TrainConfig(
        data=str(data),
        name=args.name,
        model=args.model,
        epochs=args.epochs,
        imgsz=args.imgsz,
        batch=args.batch,
        optimizer=args.optimizer,
        lr0=args.lr0,
        warmup_epochs=args.warmup_epochs,
        cache=args.cache or False,
        nbs=args.nbs,
        single_cls=args.single_cls,
        project=args.project,
        augment=Augment(close_mosaic=args.close_mosaic),
    )
    print(f"best weights: {train(config)}")
    return 0


def _resume(args: argparse.Namespace) -> int:
    _need_ultralytics()
    from hupai.training.finder import TrainConfig, train

    config = TrainConfig(data="", name=args.name, project=args.project)
    with as_user_error(FileNotFoundError):
        print(f"best weights: {train(config, resume=True)}")
    return 0


def _export(args: argparse.Namespace) -> int:
    _need_ultralytics()
    from hupai.training.finder import export_onnx

    _need_weights(args.weights)
    calib = _int8_calib(args)
    out = export_onnx(
        args.weights,
        args.out,
        imgsz=args.imgsz,
        version=args.version,
        data=args.data,
        command=args.command,
        fp16_weights=args.fp16_weights,
        finder_conf=args.finder_conf,
        int8_calib=calib,
    )
    return _wrote(out)


def _int8_calib(args: argparse.Namespace) -> Path | None:
    """The real set an export calibrates its int8 copy on; checked before any export work."""
    if not args.int8:
        return None
    if (
        not (args.calib / "images" / "train").is_dir()
        or not (args.calib / "images" / "val").is_dir()
    ):
        raise UserError(
            f"--calib {args.calib}: no images/train and images/val to calibrate and check int8 "
            "on (hupai data import-roboflow …), or pass --no-int8"
        )
    return Path(args.calib)


def _quantize(args: argparse.Namespace) -> int:
    from hupai.training.quantize import TOLERANCE, QuantizeError, quantize

    if not args.model.is_file():
        raise UserError(f"{args.model}: no such model file")
    if not (args.calib / "images" / "train").is_dir():
        raise UserError(f"--calib {args.calib}: no images/train (import the real set first)")
    with as_user_error(QuantizeError):
        outcome = quantize(
            args.model,
            args.out,
            calib=args.calib,
            calib_n=args.calib_n,
            val_limit=args.val_limit,
            tolerance=TOLERANCE if args.tolerance is None else args.tolerance,
            force=args.force,
        )
    print(f"wrote {outcome.out} ({outcome.kept}) and {outcome.out.with_suffix('.json')}")
    return 0


def _rebuild(args: argparse.Namespace) -> int:
    _need_ultralytics()
    from hupai.training.finder import weights_from_onnx

    if not args.onnx.is_file():
        raise UserError(f"{args.onnx}: no such ONNX file")
    photos = sorted(
        p for folder in args.calibration for p in folder.glob("*") if p.suffix.lower() in _IMAGES
    )
    if not photos:
        raise UserError("--calibration: no photos in those folders")
    step = max(1, len(photos) // args.images)
    out = weights_from_onnx(args.onnx, args.out, photos[::step][: args.images], imgsz=args.imgsz)
    print(f"wrote {out}")
    return 0


_IMAGES = {".jpg", ".jpeg", ".png"}


def _calibrate(args: argparse.Namespace) -> int:
    from hupai import calibration
    from hupai.evaluation import DatasetError
    from hupai.labeling.store import sha256_file
    from hupai.vision.checks import CHECK_BELOW
    from hupai.vision.detector import Detector, ModelError
    from hupai.vision.namer import Namer, NamerError

    if args.split == "test":
        raise UserError("--split test: the test split is never chosen on; calibrate on val")
    with as_user_error(DatasetError, ModelError, NamerError):
        namer = Namer(args.namer, threads=args.threads)
        finder = Detector(args.model, threads=args.threads).path
        recorded = calibration.record(
            args.data,
            args.split,
            model=args.model,
            namer=namer,
            threads=args.threads,
            limit=args.limit,
            progress=True,
        )
    if not recorded:
        raise UserError(f"{args.data}: no {args.split} photos to calibrate on")
    cal = calibration.calibrate(
        recorded,
        tolerance=calibration.TOLERANCE if args.tolerance is None else args.tolerance,
        min_share=calibration.MIN_SHARE if args.min_share is None else args.min_share,
        temperature=args.temperature,
        incumbent=namer.manifest.check_below or CHECK_BELOW,
    )
    print(f"{namer.path.name} with finder {finder.name}, real {args.split}:")
    print(calibration.report(cal))
    print(f"temperature {cal.temperature}, check_below {cal.check_below}")
    if args.dry_run:
        return 0
    chosen_on = (
        f"{args.data} {args.split} ({cal.photos} photos, {calibration.timestamp()}): "
        f"temperature by least NLL of {cal.boxes} labelled names, check_below the lowest "
        f"threshold in use kept while within {args.tolerance or 'one standard error'} of the "
        f"best exact share among thresholds trusting >= "
        f"{args.min_share or calibration.MIN_SHARE} of the photos (else the lowest within it)"
    )
    block = cal.manifest_block(chosen_on, f"{finder.name} sha256 {sha256_file(finder)}")
    print(f"wrote {calibration.write_manifest(namer.path, block)}")
    return 0


def _need_torch() -> None:
    try:
        import efficientnet_lite_pytorch  # noqa: F401
        import torch  # noqa: F401
    except ModuleNotFoundError:
        raise UserError(TRAIN_EXTRA.format(what="training the namer")) from None


def _namer(args: argparse.Namespace) -> int:
    _need_torch()
    from hupai.commands.data import scene_mix_of
    from hupai.training.namer import NamerConfig, run

    mix = scene_mix_of(args, "scene-")
    config = NamerConfig(
        name=args.name,
        project=args.project,
        data=args.data,
        real=args.real,
        synth_scenes=args.synth_scenes,
        synth_val_scenes=args.synth_val_scenes,
        epochs=args.epochs,
        epoch_crops=args.epoch_crops,
        size=args.size,
        holdout_set=args.holdout_set,
        init=args.init,
        lr=args.lr,
        synth_share=args.synth_share,
        min_side=args.min_side,
        hard_share=args.hard_share,
        clutter_share=args.clutter_share,
        sheet_share=args.sheet_share,
        kde_share=args.kde_share,
        gen_share=args.gen_share,
        scene_keyboard=mix.keyboard,
        scene_printed=mix.printed,
        scene_shelf=mix.shelf,
        scene_plain_white=mix.plain_white,
        scene_tile_shaped=mix.tile_shaped,
    )
    return _best_weights(run, config)


def _distill(args: argparse.Namespace) -> int:
    _need_torch()
    from hupai.training.distill import DistillConfig, run

    config = DistillConfig(
        name=args.name,
        project=args.project,
        data=args.data,
        real=args.real,
        teacher=args.teacher,
        init=args.init,
        synth_scenes=args.synth_scenes,
        synth_val_scenes=args.synth_val_scenes,
        epochs=args.epochs,
        epoch_crops=args.epoch_crops,
        batch=args.batch,
        lr=args.lr,
        label_weight=args.label_weight,
        synth_share=args.synth_share,
        hard_share=args.hard_share,
        clutter_share=args.clutter_share,
        sheet_share=args.sheet_share,
        gen_share=args.gen_share,
        gen_scenes=args.gen_scenes,
        gen_label_weight=args.gen_label_weight,
        clutter_crops=args.clutter_crops,
        val_limit=args.val_limit,
        threads=args.threads,
    )
    return _best_weights(run, config)


def _bonus(args: argparse.Namespace) -> int:
    _need_torch()
    from hupai.training.bonus import BonusConfig, run

    config = BonusConfig(
        name=args.name,
        project=args.project,
        data=args.data,
        real=args.real,
        styles=args.styles,
        val_styles=args.val_styles,
        art_variants=args.art_variants,
        epochs=args.epochs,
        epoch_crops=args.epoch_crops,
        lr=args.lr,
        threads=args.threads,
        blocks=args.blocks,
        head=args.head,
        bird=args.bird,
        every_tile=args.every_tile,
        init=args.init,
    )
    return _best_weights(run, config)


def _best_weights(run: Callable[[Any], Path], config: Any) -> int:
    """Run a namer-like recipe to its end; a missing input or model is the user's to mend."""
    from hupai.vision.namer import NamerError

    with as_user_error(FileNotFoundError, NamerError):
        print(f"best weights: {run(config)}")
    return 0


def _need_weights(weights: Path) -> None:
    if not weights.is_file():
        raise UserError(f"{weights}: no such weights file")


def _wrote(out: Path) -> int:
    print(f"wrote {out} and {out.with_suffix('.json')}")
    return 0


def _bonus_export(args: argparse.Namespace) -> int:
    _need_torch()
    from hupai.training.bonus import export
    from hupai.training.quantize import QuantizeError

    _need_weights(args.weights)
    with as_user_error(QuantizeError):  # its selection crops are not there to check int8 on
        out = export(
            args.weights,
            args.out,
            version=args.version,
            command=args.command,
            int8_calib=_int8_calib(args),
        )
    return _wrote(out)


def _namer_export(args: argparse.Namespace) -> int:
    _need_torch()
    from hupai.training.namer import export

    _need_weights(args.weights)
    out = export(
        args.weights,
        args.out,
        version=args.version,
        data=args.data,
        command=args.command,
        int8_calib=_int8_calib(args),
    )
    return _wrote(out)


def _blend(args: argparse.Namespace) -> int:
    from hupai.training.blend import write_blend
    from hupai.vision.namer import NamerError

    with as_user_error(NamerError):
        out = write_blend(args.namer, args.partner, args.weight, args.out)
    return _wrote(out)


def _pair(args: argparse.Namespace) -> int:
    import hashlib
    import json

    entries = {}
    for role, path in (("finder", args.finder), ("namer", args.namer)):
        manifest = path.with_suffix(".json")
        if not path.is_file() or not manifest.is_file():
            raise UserError(f"--{role} {path}: needs the ONNX file and its .json manifest")
        if path.resolve().parent != args.out.resolve().parent:
            raise UserError(f"--{role} {path}: must sit beside {args.out}")
        meta = json.loads(manifest.read_text())
        entries[role] = {
            "file": path.name,
            "name": meta.get("name"),
            "version": meta.get("version"),
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "bytes": path.stat().st_size,
        }
    pair = {"name": "hupai-reader", "version": args.version, **entries}
    args.out.write_text(json.dumps(pair, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0
