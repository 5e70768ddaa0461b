"""``hupai data …``: build training data (real photo import, synthetic scenes, stats)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hupai.datasets.synth.render import SceneMix


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "data", help="build detector training data (import real photos, render synthetic scenes)"
    )
    sub = parser.add_subparsers(dest="data_command", required=True, metavar="ACTION")

    imp = sub.add_parser(
        "import-roboflow",
        help="import the Roboflow 'Chinese Mahjong Detection' YOLO export into our 43 classes",
    )
    imp.add_argument("source", type=Path, help="the export folder (with data.yaml)")
    imp.add_argument("--out", type=Path, required=True, help="dataset folder to write")
    imp.add_argument(
        "--resplit",
        type=float,
        metavar="VAL_FRACTION",
        help="re-deal train+valid by photo with this validation fraction (test is untouched)",
    )
    imp.add_argument("--seed", type=int, default=0, help="seed of --resplit")
    imp.add_argument("--overwrite", action="store_true", help="replace a dataset written before")
    fixes = imp.add_mutually_exclusive_group()
    fixes.add_argument(
        "--corrections",
        type=Path,
        metavar="FILE",
        help="label corrections to apply (default: those hupai ships for this export, if any)",
    )
    fixes.add_argument(
        "--no-corrections",
        action="store_true",
        help="import the labels as published, without hupai's corrections",
    )
    imp.set_defaults(handler=_import_roboflow)

    back = sub.add_parser(
        "import",
        help="bring corrected labels back (Label Studio export, COCO file, YOLO folder)",
        description="Read a Label Studio export (JSON, JSON-MIN, or its YOLO / COCO export, "
        "a folder or the downloaded zip), a COCO file or a YOLO folder, map its classes by "
        "name, and write hupai's dataset layout (images/SPLIT, labels/SPLIT, data.yaml, "
        "classes.txt) with import-report.json: tasks nobody annotated, photos not found, and "
        "what people changed against the model's boxes. See docs/labeling.md.",
    )
    back.add_argument("source", type=Path, help="the export: a file, a folder or a zip")
    back.add_argument("--out", type=Path, required=True, help="dataset folder to write")
    back.add_argument(
        "--images",
        type=Path,
        help="where the photos are, when the export does not hold them (Label Studio's JSON "
        "export of local files or uploads): e.g. the hupai label output folder",
    )
    back.add_argument("--split", default="train", choices=("train", "val", "test"))
    back.add_argument(
        "--link", action="store_true", help="link the photos (relative links) instead of copying"
    )
    back.add_argument(
        "--predictions",
        type=Path,
        help="the tasks hupai label wrote (labelstudio.json): compare the people's boxes with "
        "the model's when the export lists predictions only by id",
    )
    back.add_argument(
        "--keep-empty",
        action="store_true",
        help="keep photos with no box in a YOLO/COCO export (Label Studio writes unannotated "
        "tasks that way, so they are skipped by default)",
    )
    back.add_argument("--overwrite", action="store_true", help="replace files already in --out")
    back.set_defaults(handler=_import_labels)

    syn = sub.add_parser("synth", help="render synthetic hand photos with exact labels")
    syn.add_argument("--n", type=int, required=True, help="number of images")
    syn.add_argument("--seed", type=int, default=0, help="seed (image i is seeded by (seed, i))")
    syn.add_argument("--out", type=Path, required=True, help="dataset folder to write")
    syn.add_argument(
        "--art", type=Path, default=None, help="artwork folder (default: ../shared/art)"
    )
    syn.add_argument("--size", type=int, default=640, help="long side of the images, px")
    syn.add_argument("--val", type=float, default=0.1, help="fraction of images put in val")
    syn.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    syn.add_argument("--start", type=int, default=0, help="first image index (to extend a set)")
    syn.add_argument("--overwrite", action="store_true", help="replace a dataset written before")
    syn.add_argument(
        "--generated-share",
        type=float,
        default=0.0,
        help="share of the scenes drawn with procedural set styles (hupai.datasets.synth.faces)",
    )
    syn.add_argument(
        "--photo-share",
        type=float,
        default=0.0,
        help="share of tables and rooms drawn from real photographs (Debian mate-backgrounds, "
        "fetched with apt-get download; GPL-2.0-or-later, never committed)",
    )
    add_scene_mix_arguments(syn, "")
    syn.set_defaults(handler=_synth)

    st = sub.add_parser("stats", help="print and save the stats report of a YOLO dataset")
    st.add_argument("root", type=Path, help="dataset folder (with images/ and labels/)")
    st.set_defaults(handler=_stats)


def _import_roboflow(args: argparse.Namespace) -> int:
    from hupai.cli import as_user_error
    from hupai.datasets.roboflow import RoboflowImportError, import_roboflow
    from hupai.datasets.stats import format_stats, write_stats

    with as_user_error(RoboflowImportError):
        report = import_roboflow(
            args.source,
            args.out,
            resplit=args.resplit,
            seed=args.seed,
            overwrite=args.overwrite,
            corrections=False if args.no_corrections else (args.corrections or True),
        )
    print(report.summary())
    print(format_stats(write_stats(args.out)))
    return 0


def _import_labels(args: argparse.Namespace) -> int:
    from hupai.cli import as_user_error
    from hupai.datasets.importing import import_labels
    from hupai.datasets.labels import LabelError

    with as_user_error(LabelError):
        report = import_labels(
            args.source,
            args.out,
            images=args.images,
            split=args.split,
            link=args.link,
            predictions=args.predictions,
            overwrite=args.overwrite,
            keep_empty=args.keep_empty,
        )
    print(f"{args.source}: {report.format}; {report.classes}")
    print(f"wrote {len(report.images)} photos, {report.boxes} boxes to {args.out}")
    if report.not_annotated:
        print(
            f"not annotated (skipped): {len(report.not_annotated)}, e.g. {report.not_annotated[0]}"
        )
    if report.missing_photos:
        print(
            f"photos not found (skipped): {len(report.missing_photos)}, e.g. "
            f"{report.missing_photos[0]} (give --images DIR)"
        )
    if report.empty:
        print(
            f"no boxes (skipped; --keep-empty keeps them): {len(report.empty)}, e.g. "
            f"{report.empty[0]} — Label Studio's YOLO/COCO exports list unannotated tasks so"
        )
    if report.ambiguous:
        print(
            f"listed more than once (skipped): {', '.join(report.ambiguous[:5])} — Label "
            "Studio's COCO export lists a task once per annotation; use its JSON export"
        )
    if report.changes is not None:
        c = report.changes.to_dict()
        print(
            f"against the model: {c['images_changed']} of {c['images_compared']} photos "
            f"changed; boxes kept {c['boxes_kept']}, added {c['boxes_added']}, removed "
            f"{c['boxes_removed']}, renamed {c['boxes_renamed']}"
        )
        for r in c["renamed"][:10]:
            print(f"  {r['from']} → {r['to']}: {r['count']}")
    else:
        print(report.predictions_note)
    print(f"report: {args.out / 'import-report.json'}")
    return 0


#: The scene kinds of :class:`hupai.datasets.synth.render.SceneMix` (its field names), as
#: options (:func:`scene_mix_option`).
SCENE_MIX_OPTIONS = (
    ("keyboard", "scenes with a whole keyboard on the table (the tiles on it or beside it)"),
    ("printed", "scenes that are a printed sheet of 50-100 tile pictures, all labelled"),
    ("shelf", "views past the table that see a bookshelf"),
    ("plain_white", "scenes whose white dragons are plain (blank or a frame), a few in a row"),
    (
        "tile_shaped",
        "scenes whose pasted clutter may hold things shaped like a tile body: dominoes,"
        " lettered blocks, playing cards, phones",
    ),
)


def scene_mix_option(prefix: str, name: str) -> str:
    """The option of a :data:`SCENE_MIX_OPTIONS` field: ``--{prefix}plain-white-share``."""
    return f"--{prefix}{name.replace('_', '-')}-share"


def add_scene_mix_arguments(parser: argparse.ArgumentParser, prefix: str) -> None:
    """``--{prefix}keyboard-share`` and the other :data:`SCENE_MIX_OPTIONS` (defaults: the
    renderer's :class:`hupai.datasets.synth.render.SceneMix`)."""
    from hupai.datasets.synth.render import SceneMix

    for name, what in SCENE_MIX_OPTIONS:
        parser.add_argument(
            scene_mix_option(prefix, name),
            type=float,
            default=getattr(SceneMix(), name),
            help=f"share of the synthetic {what} (default %(default)s)",
        )


def scene_mix_of(args: argparse.Namespace, prefix: str) -> SceneMix:
    """The :class:`hupai.datasets.synth.render.SceneMix` the options ask for (a clear error
    naming the option when one is not a fraction)."""
    from hupai.cli import UserError
    from hupai.datasets.synth.render import SceneMix

    attr = prefix.replace("-", "_")
    values = {name: getattr(args, f"{attr}{name}_share") for name, _ in SCENE_MIX_OPTIONS}
    for name, value in values.items():
        if not 0 <= value <= 1:
            option = scene_mix_option(prefix, name)
            raise UserError(f"{option} {value}: expected a fraction in [0, 1]")
    return SceneMix(**values)


def _synth(args: argparse.Namespace) -> int:
    from hupai.cli import UserError, as_user_error
    from hupai.datasets.stats import format_stats, write_stats
    from hupai.datasets.synth.generate import SynthError, generate
    from hupai.datasets.synth.render import GeneratedFaces

    try:
        generated = GeneratedFaces(args.generated_share) if args.generated_share else None
    except ValueError as exc:
        raise UserError(f"--generated-share: {exc}") from None
    with as_user_error(SynthError):
        result = generate(
            args.out,
            n=args.n,
            seed=args.seed,
            art_root=args.art,
            size=args.size,
            val_fraction=args.val,
            workers=args.workers,
            start=args.start,
            overwrite=args.overwrite,
            generated=generated,
            photos=_photos(args.photo_share),
            photo_share=args.photo_share,
            mix=scene_mix_of(args, ""),
        )
    print(format_stats(write_stats(args.out)))
    print(
        f"rendered {result.images} images in {result.seconds:.1f} s with {result.workers} "
        f"processes: {result.images_per_second:.2f} images/s"
    )
    return 0


def _photos(share: float) -> list[Path]:
    from hupai.cli import UserError, as_user_error

    if not share:
        return []
    if not 0 < share <= 1:
        raise UserError(f"--photo-share {share}: expected a fraction in (0, 1]")
    from hupai.datasets.sheets import SheetError
    from hupai.datasets.synth.photos import fetch_photos

    with as_user_error(SheetError):
        return fetch_photos()


def _stats(args: argparse.Namespace) -> int:
    from hupai.cli import UserError
    from hupai.datasets.stats import format_stats, write_stats

    if not (args.root / "images").is_dir():
        raise UserError(f"{args.root}: no images/ folder (not a YOLO dataset)")
    print(format_stats(write_stats(args.root)))
    return 0
