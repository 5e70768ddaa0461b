"""``hupai table new|options|add|list|show|export|undo``: keep a table's whole game in the ledger's
database (the same one the service uses: ``--db``, else ``HUPAI_DATABASE_URL``, else SQLite
in ``$XDG_DATA_HOME/hupai/tables.sqlite3``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "table",
        help="keep score for a whole game: dealer, round wind, streak, running totals",
        description="A table is reached by its write token (changes) or read token (view); "
        "`hupai table new` prints both. Players are named or numbered 0-3 in chair order.",
    )
    parser.add_argument(
        "--db",
        metavar="URL",
        help="database URL (sqlite:///PATH or postgresql://…); default: HUPAI_DATABASE_URL, "
        "else SQLite in $XDG_DATA_HOME/hupai/tables.sqlite3",
    )
    # --db is also accepted after the action (`hupai table show TOKEN --db URL`); there its
    # default is left out, so that it does not hide a --db given before the action
    after = argparse.ArgumentParser(add_help=False)
    after.add_argument("--db", metavar="URL", default=argparse.SUPPRESS, help="database URL")
    sub = parser.add_subparsers(dest="table_command", required=True, metavar="ACTION")

    new = sub.add_parser(
        "new", parents=[after], help="start a table; prints its write and read tokens"
    )
    new.add_argument("--city", required=True, help="the city's rules")
    new.add_argument("--players", nargs=4, required=True, metavar="NAME", help="in chair order")
    new.add_argument("--name", default="", help="a name for the table")
    new.add_argument("--first-dealer", default="0", help="who deals first (name or 0-3)")
    new.add_argument("--start", type=int, default=0, help="each player's starting points")
    new.add_argument("--rate", help="money per point, e.g. 0.5")
    new.add_argument("--succession", choices=("next", "winner"), help="where the seed is silent")
    _house_rule_arguments(new)
    new.set_defaults(handler=_new)

    options = sub.add_parser(
        "options",
        parents=[after],
        help="change the table's house rules and city options; every hand is scored again",
        description="Without changes, prints the options. The options given are set on top "
        "of the table's; every hand is scored again with them (the old ones are kept).",
    )
    options.add_argument("token", help="the table's write token (read token: print only)")
    _house_rule_arguments(options)
    options.add_argument(
        "--no-dealer-double", action="store_true", help="turn the dealer double off"
    )
    options.add_argument(
        "--unset", action="append", default=[], metavar="NAME", help="back to the default"
    )
    options.add_argument(
        "--city",
        help="play this city from now on: every hand recorded is scored again under its rules "
        "as it was given (switching back restores every score); the old city's own options "
        "are dropped, its house rules (cap, dealer double) kept",
    )
    options.set_defaults(handler=_options)

    add = sub.add_parser(
        "add",
        parents=[after],
        help="add the next hand: a win (REQUEST file, or --photo) or a draw (--draw)",
        description="A win is the `hupai score` request without city, options, round_wind "
        "and the streak — the table fills them in — with players (0-3 in chair order) "
        "instead of seats. --winner/--win/--discarder override the file.",
    )
    add.add_argument("token", help="the table's write token")
    add.add_argument("request", nargs="?", help="hand file (JSON), or - for stdin")
    add.add_argument("--winner", help="who won (name or 0-3)")
    add.add_argument("--win", help="self_draw, discard, robbed_kong or kong_replacement")
    add.add_argument("--discarder", help="who discarded the winning tile (name or 0-3)")
    add.add_argument("--photo", help="read the tiles from this photo")
    add.add_argument("--win-tile", help="with --photo: the winning tile, when not set apart")
    add.add_argument("--draw", action="store_true", help="a drawn hand (nobody won)")
    add.add_argument("--last-drawer", help="a draw: who drew the last tile (name or 0-3)")
    add.add_argument("--kong", action="store_true", help="a draw: a kong was declared")
    from hupai.commands.read import add_model_options

    add_model_options(add)
    add.set_defaults(handler=_add)

    listing = sub.add_parser(
        "list", parents=[after], help="the tables in this database, with their tokens"
    )
    listing.set_defaults(handler=_list)

    show = sub.add_parser(
        "show", parents=[after], help="totals, next dealer and round, and the hands"
    )
    show.add_argument("token", help="the table's write or read token")
    show.add_argument("--json", action="store_true", help="print the table as JSON")
    show.set_defaults(handler=_show)

    export = sub.add_parser("export", parents=[after], help="write the table as CSV or JSON")
    export.add_argument("token", help="the table's write or read token")
    export.add_argument("--format", choices=("csv", "json"), default="csv")
    export.add_argument("--out", type=Path, help="file to write (default: stdout)")
    export.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    export.set_defaults(handler=_export)

    undo = sub.add_parser(
        "undo", parents=[after], help="undo the latest change (or a hand's, with --hand)"
    )
    undo.add_argument("token", help="the table's write token")
    undo.add_argument("--hand", type=int, help="the hand's number")
    undo.set_defaults(handler=_undo)


def _house_rule_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cap", type=int, metavar="N", help="封顶: the most one payer pays for one hand (0: none)"
    )
    parser.add_argument(
        "--dealer-double",
        action="store_true",
        help="庄家翻倍: the dealer pays and is paid double for the hand",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a city option or variant, e.g. pure_suit_double=true (see docs/rules/)",
    )


def _options_given(args: argparse.Namespace) -> dict[str, Any]:
    """--option NAME=VALUE (JSON, or a bare word), --cap and --dealer-double as options."""
    from hupai.cli import UserError

    options: dict[str, Any] = {}
    for item in args.option:
        name, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"--option {item!r}: expected NAME=VALUE")
        try:
            options[name] = json.loads(value)
        except json.JSONDecodeError:
            options[name] = value  # a bare word: an enum value such as sum
    if args.cap is not None:
        options["cap"] = args.cap
    if args.dealer_double:
        options["dealer_double"] = True
    if getattr(args, "no_dealer_double", False):
        options["dealer_double"] = False
    return options


def _print_options(table: dict[str, Any]) -> None:
    house = table.get("house_rules") or {}
    cap = house.get("cap") or "none"
    double = "yes" if house.get("dealer_double") else "no"
    print(f"house rules: cap {cap}, dealer double {double}")
    others = {k: v for k, v in table["options"].items() if k not in house}
    if others:
        print("options: " + ", ".join(f"{k}={json.dumps(v)}" for k, v in others.items()))


def _options(args: argparse.Namespace) -> int:
    ledger = _ledger(args)
    table = ledger.view(args.token, False)
    changes = _options_given(args)
    if not changes and not args.unset and not args.city:
        _print_options(table)
        return 0
    kept = table["options"]
    if args.city and args.city != table["city"]:  # a new city: only the house rules carry over
        kept = {k: v for k, v in kept.items() if k in (table.get("house_rules") or {})}
    options = {k: v for k, v in kept.items() if k not in args.unset}
    options.update(changes)
    table = ledger.set_options(args.token, options, table["revision"], args.city)
    if args.city:
        print(f"city: {table['city']}")
        unscored = [i for i, h in enumerate(table["hands"], 1) if h["problem"]]
        if unscored:
            print(
                "not scored under this city (fix or delete them): hand "
                + ", ".join(str(i) for i in unscored)
            )
    _print_options(table)
    print(
        "every hand scored again; totals: "
        + ", ".join(f"{p} {t}" for p, t in zip(table["players"], table["totals"], strict=True))
    )
    return 0


def _ledger(args: argparse.Namespace) -> Any:
    from hupai.ledger.store import Ledger

    return Ledger(args.db or os.environ.get("HUPAI_DATABASE_URL") or None)


def _new(args: argparse.Namespace) -> int:
    options = _options_given(args)
    spec = {
        "city": args.city,
        "players": args.players,
        "name": args.name,
        "first_dealer": _player_of(args.first_dealer, args.players, "--first-dealer"),
        "starting_points": args.start,
        "rate": args.rate,
        "succession": args.succession,
        "options": options,
    }
    table = _ledger(args).create_table(spec)
    print(f"table for {', '.join(table['players'])} ({table['city']})")
    print(f"write token: {table['write_token']}   (keep it: it changes the table)")
    print(f"read token:  {table['read_token']}   (share it: a read-only view)")
    _print_options(table)
    return 0


def _add(args: argparse.Namespace) -> int:
    from hupai.cli import UserError

    ledger = _ledger(args)
    table = ledger.view(args.token, False)
    players = table["players"]
    photo = None
    if args.draw:
        entry: dict[str, Any] = {"kind": "draw"}
        if args.last_drawer is not None:
            entry["last_drawer"] = _player_of(args.last_drawer, players, "--last-drawer")
        if args.kong:
            entry["kong_declared"] = True
        if args.request is not None:
            entry.update(_read_entry(args.request))
    else:
        entry = {} if args.request is None else _read_entry(args.request)
        for key in ("winner", "discarder"):
            value = getattr(args, key)
            if value is not None:
                entry[key] = _player_of(value, players, f"--{key}")
        if args.win is not None:
            entry["win"] = args.win
        if args.photo is not None:
            entry, photo = _photo_entry(args, table["city"], entry)
        elif args.request is None:
            raise UserError("give a hand file, --photo PHOTO, or --draw")
    added = ledger.add_hand(args.token, entry, photo)
    hand = added["hand"]
    print(f"hand {hand['number']}: {_outcome(hand)}; deltas {_by_name(hand['deltas'], players)}")
    _print_totals(added["totals"], players, added["next"])
    return 0


def _photo_entry(
    args: argparse.Namespace, city: str, entry: dict[str, Any]
) -> tuple[dict[str, Any], Any]:
    from hupai.cli import UserError
    from hupai.commands.read import load_models, parse_win_tile, read_photo
    from hupai.ledger.store import PhotoRecord
    from hupai.vision.annotate import annotate
    from hupai.vision.images import thumbnail_jpeg

    models = load_models(args)
    win = parse_win_tile(args.win_tile)
    # a bad photo: the CLI's one message for known errors
    image, reading = read_photo(args.photo, models, win)
    if "no_tiles" in reading.codes:
        raise UserError(f"{args.photo}: no tiles were found in the photo")
    for w in reading.warnings:
        print(f"hupai table: {args.photo}: warning [{w.code}] {w.message}", file=sys.stderr)
    winner = entry.get("winner") if isinstance(entry.get("winner"), int) else None
    entry = {**entry, **reading.to_request_fields(city, winner)}
    thumbnail = thumbnail_jpeg(annotate(image, reading))
    return entry, PhotoRecord(reading.to_dict(city), thumbnail)


def _list(args: argparse.Namespace) -> int:
    tables = _ledger(args).list_tables()
    if not tables:
        print("no tables yet (hupai table new …)")
    for t in tables:
        title = t["name"] or "table"
        players = ", ".join(t["players"])
        print(f"{title}: {t['city']}, {players}; {t['hands']} hands; {t['updated_at'][:16]}")
        print(f"  write {t['write_token']}  read {t['read_token']}")
    return 0


def _show(args: argparse.Namespace) -> int:
    table = _ledger(args).view(args.token)
    if args.json:
        print(json.dumps(table, ensure_ascii=False, indent=2))
        return 0
    players = table["players"]
    title = table["name"] or "table"
    print(f"{title}: {table['city']}, {table['hand_count']} hands ({table['access']} link)")
    for hand in table["hands"]:
        seating = hand["seating"] or {}
        where = f"{seating.get('round_wind_name', '?')} {seating.get('deal', '?')}"
        flag = f"  [{hand['problem']}]" if hand["problem"] else ""
        print(
            f"  {hand['number']:>3}  {where:<8} dealer {seating.get('dealer_name', '?'):<10} "
            f"{_outcome(hand):<40} {_by_name(hand['deltas'], players)}{flag}"
        )
    _print_totals(table["totals"], players, table["next"], table.get("money"))
    return 0


def _export(args: argparse.Namespace) -> int:
    from hupai.cli import UserError

    ledger = _ledger(args)
    if args.format == "csv":
        text = ledger.export_csv(args.token)
    else:
        text = json.dumps(ledger.export_json(args.token), ensure_ascii=False, indent=2)
    # CSV with a BOM, as the service sends it: spreadsheets then read the names as UTF-8
    encoding = "utf-8-sig" if args.format == "csv" else "utf-8"
    if args.out is None:
        sys.stdout.buffer.write(text.encode(encoding))
        sys.stdout.flush()
        return 0
    if args.out.exists() and not args.overwrite:
        raise UserError(f"{args.out} exists; add --overwrite to replace it")
    args.out.write_text(text, encoding=encoding)
    print(f"wrote {args.out}")
    return 0


def _undo(args: argparse.Namespace) -> int:
    ledger = _ledger(args)
    done = ledger.undo(args.token, args.hand)
    players = ledger.view(args.token, False)["players"]
    hand = done["hand"]
    state = "removed" if hand["deleted"] else "restored"
    print(f"hand {hand['number']} {state} (revision {hand['revision']})")
    _print_totals(done["totals"], players, done["next"])
    return 0


# -- helpers -----------------------------------------------------------------------------------
def _read_entry(source: str) -> dict[str, Any]:
    from hupai.cli import UserError, as_user_error
    from hupai.scoring import ScoringInputError
    from hupai.scoring.request import loads_request

    try:
        text = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        raise UserError(f"{source}: {exc.strerror}") from None
    with as_user_error(ScoringInputError):
        data = loads_request(text, "stdin" if source == "-" else source)
    if not isinstance(data, dict):
        raise UserError(f"{source}: expected a JSON object (the hand)")
    return data


def _player_of(value: str, players: list[str], option: str) -> int:
    from hupai.cli import UserError

    if value.isdigit() and int(value) < 4:
        return int(value)
    for i, name in enumerate(players):
        if name.casefold() == value.strip().casefold():
            return i
    raise UserError(f"{option} {value!r}: not a player ({', '.join(players)}, or 0-3)")


def _outcome(hand: dict[str, Any]) -> str:
    if hand["kind"] == "draw":
        return "draw"
    who = hand["winner_name"] or "?"
    how = (hand["win"] or "").replace("_", " ")
    fed = f" from {hand['discarder_name']}" if hand.get("discarder_name") else ""
    return f"{who} won ({how}{fed}) {hand['tiles'] or ''}".rstrip()


def _by_name(values: list[int], players: list[str]) -> str:
    return "  ".join(f"{name} {value:+d}" for name, value in zip(players, values, strict=True))


def _print_totals(
    totals: list[int],
    players: list[str],
    following: dict[str, Any],
    money: list[str] | None = None,
) -> None:
    print("totals: " + "  ".join(f"{n} {t}" for n, t in zip(players, totals, strict=True)))
    if money:
        print("money:  " + "  ".join(f"{n} {m}" for n, m in zip(players, money, strict=True)))
    print(
        f"next: {following['round_wind_name']} round, deal {following['deal']}, "
        f"{following['dealer_name']} deals (streak {following['dealer_streak']})"
    )
