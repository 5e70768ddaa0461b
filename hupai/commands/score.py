"""``hupai score REQUEST``: score one hand given as a JSON request (docs/schema.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a winning hand from a JSON request (file, or - for stdin)",
        description=(
            "Read a JSON request (docs/schema.md) and print the JSON result: validity, "
            "reason, the decomposition used, patterns, itemised payments and deltas. "
            "A hand that is legal but does not win is a result with valid=false (exit 0); "
            "malformed input is one line on stderr (exit 2)."
        ),
    )
    parser.add_argument("request", nargs="?", help="request file, or - to read stdin")
    parser.add_argument("--pretty", action="store_true", help="indent the JSON output")
    parser.add_argument(
        "--cities",
        action="store_true",
        help="print the known cities with their options and fields, and exit",
    )
    from hupai.commands.read import add_photo_options

    add_photo_options(parser)  # --photo PHOTO --city … : read the hand from a photo
    parser.set_defaults(handler=_score)


def _score(args: argparse.Namespace) -> int:
    from hupai.cli import UserError, as_user_error
    from hupai.scoring import ScoringInputError, describe_cities, result_to_dict, score

    indent = 2 if args.pretty else None
    if args.cities:
        print(json.dumps(describe_cities(), ensure_ascii=False, indent=indent))
        return 0
    reading = None
    if args.photo is not None:
        from hupai.commands.read import photo_request

        data, reading = photo_request(
            args, None if args.request is None else _read_request(args.request)
        )
    elif args.request is None:
        raise UserError("give a request file, or - to read the request from stdin")
    else:
        data = _read_request(args.request)
    with as_user_error(ScoringInputError):
        result = result_to_dict(score(data))
    if reading is not None:
        result.update(photo_confidence(reading.to_dict(data["city"]), data, result, args))
    print(json.dumps(result, ensure_ascii=False, indent=indent))
    return 0


def photo_confidence(
    reading: dict[str, Any], data: dict[str, Any], result: dict[str, Any], args: argparse.Namespace
) -> dict[str, Any]:
    """A score read from a photo says whether it can be trusted (hupai.vision.trust)."""
    from hupai.vision.trust import score_doubts, trust_fields

    doubts = score_doubts(reading, data, result, None, win_tile_given=args.win_tile is not None)
    for d in doubts:
        print(f"hupai score: {args.photo}: doubt [{d.code}] {d.message}", file=sys.stderr)
    trust = trust_fields(reading, doubts)
    if trust["settled"]:
        print(
            f"hupai score: {args.photo}: unsure names settled by the hand's shape: "
            + " ".join(trust["settled"]),
            file=sys.stderr,
        )
    return trust


def _read_request(source: str) -> Any:
    from hupai.cli import UserError, as_user_error
    from hupai.scoring import ScoringInputError
    from hupai.scoring.request import loads_request

    name = "stdin" if source == "-" else source
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise UserError(f"{name}: is a folder, not a request file") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise UserError(f"{name}: cannot read ({exc.strerror})") from None
    with as_user_error(ScoringInputError):
        return loads_request(text, name)
