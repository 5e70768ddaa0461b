"""The ledger's store: tables and hands in a database, recomputed with :mod:`hupai.scoring.game`.

>>> ledger = Ledger("sqlite://")
>>> table = ledger.create_table({"city": "shaanxi", "players": ["A", "B", "C", "D"]})
>>> hand = {"winner": 2, "win": "self_draw", "hand": "123m456m789m123p55s", "win_tile": "5s"}
>>> ledger.add_hand(table["write_token"], hand)["totals"]
[-6, -6, 18, -6]
>>> ledger.view(table["read_token"])["next"]["dealer_name"]
'B'

Writes take the table's row lock (PostgreSQL ``SELECT … FOR UPDATE``; SQLite ``BEGIN
IMMEDIATE``), so two phones adding a hand at once both land, one after the other. An edit or
delete names the hand's revision it was made from; a newer one refuses it (:class:`Stale`).
"""

from __future__ import annotations

import csv
import io
import secrets
import string
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, func, inspect, make_url, select, update
from sqlalchemy.exc import ArgumentError, InterfaceError, NoSuchModuleError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from hupai.ledger.database import (
    WRITE_OPTION,
    WRITE_WAIT,
    WriteQueue,
    default_url,
    make_engine,
    migrate,
    no_wait,
)
from hupai.ledger.errors import Invalid, NotFound, Stale, Unavailable
from hupai.ledger.models import GameTable, HandPhoto, HandRow, TableKey, TableOptions
from hupai.ledger.replay import (
    play_entry,
    rescore,
    same_hand,
    scored_entry,
    state_after,
    store_played,
)
from hupai.ledger.rows import (
    current_row,
    find_table,
    hand_view,
    key_hash,
    last_in_play,
    latest_change,
    named_seating,
    revise,
    rows_in_play,
    touch,
    writable_table,
)
from hupai.ledger.specs import checked_options, house_rules, known_city, money, table_spec
from hupai.scoring import get_city
from hupai.scoring.game import GameState

MAX_HANDS = 100_000


@dataclass(frozen=True)
class PhotoRecord:
    """A hand read from a photo: the reading (JSON) and a small annotated JPEG."""

    reading: dict[str, Any]
    thumbnail: bytes | None = None


_TOKEN_ALPHABET = string.ascii_letters + string.digits
TOKEN_LENGTH = 24  # 62**24 ≈ 2**143: unguessable


def new_token() -> str:
    """A table's key: letters and digits only (no '-' to read as a command-line option, no
    character a URL or a chat app would mangle)."""
    return "".join(secrets.choice(_TOKEN_ALPHABET) for _ in range(TOKEN_LENGTH))


class Ledger:
    """Tables and hands in the database at ``url`` (migrated on first use)."""

    def __init__(self, url: str | None = None, migrate_to: str = "head") -> None:
        self.url = url or default_url()
        self.migrate_to = migrate_to  # an older revision only to test upgrades
        self._engine: Engine | None = None
        self._sessions: sessionmaker[Session] | None = None
        self._readers: sessionmaker[Session] | None = None
        self._lock = threading.Lock()
        self._writers = WriteQueue()

    @property
    def engine(self) -> Engine:
        self._ready()
        assert self._engine is not None
        return self._engine

    def _ready(self, write: bool = True) -> sessionmaker[Session]:
        with self._lock:
            if self._sessions is None or self._readers is None:
                engine = make_engine(self.url)
                migrate(engine, self.migrate_to)
                self._engine = engine
                writer = engine.execution_options(**{WRITE_OPTION: True})
                # a database held at a revision before 0004 (an upgrade test) has no
                # table_keys: its tables are found by the token itself
                info = {"hashed": "table_keys" in inspect(engine).get_table_names()}
                self._sessions = sessionmaker(writer, expire_on_commit=False, info=info)
                self._readers = sessionmaker(engine, expire_on_commit=False, info=info)
            return self._sessions if write else self._readers

    def close(self) -> None:
        if self._engine is not None:
            self._engine.dispose()

    @contextmanager
    def _session(self, write: bool = True) -> Iterator[Session]:
        """A transaction; ``write=False`` for one that only reads (it takes no write lock).
        SQLite has one write lock for the whole file, and its busy handler lets a writer that
        retries at once win it again and again: this process's writers queue for it in turn
        (:class:`WriteQueue`), so a write waits for at most the changes asked before it."""
        queued = write and self.url.startswith("sqlite")
        try:
            makers = self._ready(write)
            with (
                self._writers.turn() if queued else no_wait(),
                makers() as session,
                session.begin(),
            ):
                yield session
        except TimeoutError:
            raise Unavailable(
                f"the table database {self.safe_url} is busy: other changes took over "
                f"{WRITE_WAIT:g} s; try again"
            ) from None
        except (ArgumentError, NoSuchModuleError) as exc:
            raise Unavailable(
                f"{self.safe_url} is not a database URL hupai can open: {exc}"
            ) from None
        except (OperationalError, InterfaceError, OSError) as exc:
            # the database, not the request: say which (password hidden) and why, briefly
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0][:200]
            raise Unavailable(
                f"the table database {self.safe_url} cannot be used: {reason}"
            ) from None

    @property
    def safe_url(self) -> str:
        try:
            return make_url(self.url).render_as_string(hide_password=True)
        except ArgumentError:
            return "(an unreadable URL)"

    # -- tables ------------------------------------------------------------------------------
    def create_table(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """A new table from ``{city, players, options?, first_dealer?, starting_points?,
        rate?, succession?, name?}``; its view with both tokens."""
        spec = table_spec(data)
        row = GameTable(
            write_token=new_token(),
            read_token=new_token(),
            revision=0,
            **spec,
        )
        with self._session() as session:
            session.add(row)
            session.flush()
            for token, access in ((row.write_token, "write"), (row.read_token, "read")):
                if session.info.get("hashed", True):
                    session.add(TableKey(key_hash=key_hash(token), table_id=row.id, access=access))
            session.flush()
            return {**self._view(session, row, write=True, hands=False), "hands": []}

    def list_tables(self) -> list[dict[str, Any]]:
        """Every table in the database, latest change first, with its tokens: for whoever
        holds the database itself (the command line), never served over HTTP."""
        with self._session(write=False) as session:
            rows = session.scalars(select(GameTable).order_by(GameTable.updated_at.desc())).all()
            counts = dict(
                session.execute(
                    select(HandRow.table_id, func.count())
                    .where(HandRow.current, ~HandRow.deleted)
                    .group_by(HandRow.table_id)
                ).all()
            )
            return [
                {
                    "name": t.name,
                    "city": t.city,
                    "players": t.players,
                    "hands": counts.get(t.id, 0),
                    "updated_at": t.updated_at.isoformat(),
                    "write_token": t.write_token,
                    "read_token": t.read_token,
                }
                for t in rows
            ]

    def revision(self, token: str) -> int:
        """The table's revision (raised by every change) by either token: one indexed read,
        for answering a poll that nothing changed without building the view."""
        with self._session(write=False) as session:
            table, _ = find_table(session, token)
            return int(table.revision)

    def view(self, token: str, hands: bool = True) -> dict[str, Any]:
        """The table by either token: players, totals, next dealer and round, the hands."""
        with self._session(write=False) as session:
            row, write = find_table(session, token)
            return self._view(session, row, write=write, hands=hands)

    # -- hands --------------------------------------------------------------------------------
    def add_hand(
        self, token: str, entry: Mapping[str, Any], photo: PhotoRecord | None = None
    ) -> dict[str, Any]:
        """Add a hand at the end of play; it is scored with the table's context. A hand
        that does not score (not a winning hand …) is refused (422) with the reason."""
        with self._session() as session:
            table = writable_table(session, token)
            state = state_after(last_in_play(session, table), table)
            if state.hands >= MAX_HANDS:
                raise Invalid(f"the table holds {state.hands} hands; start a new table")
            played = scored_entry(table, state, entry)
            top = session.scalar(
                select(func.max(HandRow.number)).where(HandRow.table_id == table.id)
            )
            top_position = session.scalar(
                select(func.max(HandRow.position)).where(HandRow.table_id == table.id)
            )
            number = (top or 0) + 1
            row = HandRow(
                table_id=table.id,
                number=number,
                revision=1,
                position=(top_position or 0) + 1,
                current=True,
                deleted=False,
                action="add",
                entry=dict(entry),
            )
            store_played(row, played)
            session.add(row)
            if photo is not None:
                session.add(
                    HandPhoto(
                        table_id=table.id,
                        number=number,
                        reading=photo.reading,
                        thumbnail=photo.thumbnail,
                    )
                )
            touch(table)
            session.flush()
            return self._hand_result(session, table, row)

    def preview(
        self, token: str, entry: Mapping[str, Any], number: int | None = None
    ) -> dict[str, Any]:
        """Score ``entry`` as the next hand (or in place of hand ``number``) without storing
        anything: its seating, the request, the result, the deltas by player, the totals
        after it. Either link may preview."""
        with self._session(write=False) as session:
            table, _ = find_table(session, token)
            if number is None:
                state = state_after(last_in_play(session, table), table)
            else:
                state = self._state_before(
                    session, table, current_row(session, table, number, None).position
                )
            played = play_entry(table, state, entry)
            return {
                "seating": named_seating(played.seating.to_dict(), table),
                "request": played.request,
                "result": played.result,
                "deltas": list(played.deltas),
                "problem": played.problem,
                "totals": list(played.after.totals),
            }

    def edit_hand(
        self, token: str, number: int, entry: Mapping[str, Any], revision: int
    ) -> dict[str, Any]:
        """Replace hand ``number`` (made from its ``revision``); every later hand is
        recomputed. The previous version is kept."""
        with self._session() as session:
            table = writable_table(session, token)
            old = current_row(session, table, number, revision)
            if old.deleted:
                raise NotFound(f"hand {number} was deleted; undo brings it back", "number")
            state = self._state_before(session, table, old.position)
            played = scored_entry(table, state, entry)  # refused before anything changes
            new = revise(session, old, "edit", dict(entry), deleted=False)
            store_played(new, played)
            self._replay(session, table, old.position + 1, played.after)
            return self._hand_result(session, table, new)

    def delete_hand(self, token: str, number: int, revision: int) -> dict[str, Any]:
        """Remove hand ``number`` from play (kept, restorable by undo); later hands are
        recomputed."""
        with self._session() as session:
            table = writable_table(session, token)
            old = current_row(session, table, number, revision)
            if old.deleted:
                raise NotFound(f"hand {number} is already deleted", "number")
            new = revise(session, old, "delete", old.entry, deleted=True)
            self._replay(session, table, old.position)
            return self._hand_result(session, table, new)

    def undo(self, token: str, number: int | None = None) -> dict[str, Any]:
        """Undo the latest change not already undone, to hand ``number`` (or to any hand of
        the table): that hand goes back to its version before the change; undoing an added
        hand deletes it. Undos stack: a second undo undoes the change before, it does not
        redo what the first undid."""
        with self._session() as session:
            table = writable_table(session, token)
            target = latest_change(session, table, number)
            old = current_row(session, table, target.number, None)
            before = session.scalars(
                select(HandRow).where(
                    HandRow.table_id == table.id,
                    HandRow.number == target.number,
                    HandRow.revision == target.revision - 1,
                )
            ).first()
            entry = before.entry if before is not None else old.entry
            deleted = before.deleted if before is not None else True
            new = revise(session, old, "undo", entry, deleted=deleted)
            self._replay(session, table, old.position, changed=new.id)
            return self._hand_result(session, table, new)

    def history(self, token: str, number: int) -> list[dict[str, Any]]:
        """Every version of a hand, oldest first."""
        with self._session(write=False) as session:
            table, _ = find_table(session, token)
            rows = session.scalars(
                select(HandRow)
                .where(HandRow.table_id == table.id, HandRow.number == number)
                .order_by(HandRow.revision)
            ).all()
            if not rows:
                raise NotFound(f"no hand {number} at this table", "number")
            return [
                {
                    "revision": r.revision,
                    "action": r.action,
                    "deleted": r.deleted,
                    "current": r.current,
                    "entry": r.entry,
                    "at": r.created_at.isoformat(),
                }
                for r in rows
            ]

    def hand(self, token: str, number: int) -> dict[str, Any]:
        """One hand in full: its view, the request scored, the result, the photo's reading."""
        with self._session(write=False) as session:
            table, _ = find_table(session, token)
            row = current_row(session, table, number, None)
            photo = session.get(HandPhoto, (table.id, number))
            return {
                **hand_view(row, table),
                "request": row.request,
                "result": row.result,
                "reading": None if photo is None else photo.reading,
            }

    def thumbnail(self, token: str, number: int) -> bytes:
        with self._session(write=False) as session:
            table, _ = find_table(session, token)
            photo = session.get(HandPhoto, (table.id, number))
            if photo is None or photo.thumbnail is None:
                raise NotFound(f"hand {number} has no photo", "number")
            return photo.thumbnail

    # -- options -----------------------------------------------------------------------------
    def set_options(
        self,
        token: str,
        options: Mapping[str, Any],
        revision: int,
        city: str | None = None,
    ) -> dict[str, Any]:
        """Replace the table's options (its house rules — ``cap``, ``dealer_double`` — and the
        city's variants) and, with ``city``, its city, made from the table's ``revision`` (a
        newer one: :class:`Stale`); every hand is scored again with them, as after an edit.

        A new city scores every hand already recorded under its own rules: each hand is kept
        as it was given, so changing the city back restores every score; a hand the new
        city cannot score (a tile or field it does not know) is kept and marked with its
        problem, to be fixed or deleted. The table's succession choice stays only where the
        new city's seed leaves that choice open. The options and city before are kept
        (:meth:`options_history`). Answers the table's view with its hands."""
        with self._session() as session:
            table = writable_table(session, token)
            if revision != table.revision:
                raise Stale(
                    f"the table changed since you loaded it (revision {revision}; now "
                    f"{table.revision}); reload and change the options again",
                    "revision",
                )
            new_city = table.city if city is None else known_city(city)
            succession = table.succession
            if new_city != table.city and not get_city(new_city).succession.other_win_option:
                succession = None  # the new city's seed says who deals next
            checked = checked_options(table, options, new_city, succession)
            if checked != table.options or new_city != table.city:
                session.add(
                    TableOptions(
                        table_id=table.id,
                        table_revision=table.revision,
                        options=table.options,
                        city=table.city,
                    )
                )
                table.options = checked
                table.city = new_city
                table.succession = succession
                self._replay(session, table, 1, rescore_all=True)
            session.flush()
            return self._view(session, table, write=True, hands=True)

    def options_history(self, token: str) -> list[dict[str, Any]]:
        """The options the table played with, oldest first, the current ones last."""
        with self._session(write=False) as session:
            table, _ = find_table(session, token)
            rows = session.scalars(
                select(TableOptions)
                .where(TableOptions.table_id == table.id)
                .order_by(TableOptions.id)
            ).all()
            out = [
                {
                    "city": r.city,
                    "options": r.options,
                    "house_rules": house_rules(r.city, r.options),
                    "until_revision": r.table_revision,
                    "replaced_at": r.replaced_at.isoformat(),
                }
                for r in rows
            ]
            out.append(
                {
                    "city": table.city,
                    "options": table.options,
                    "house_rules": house_rules(table.city, table.options),
                    "until_revision": None,
                    "replaced_at": None,
                }
            )
            return out

    # -- export ------------------------------------------------------------------------------
    def export_json(self, token: str) -> dict[str, Any]:
        """The whole table: setup, every hand in play with its request and result. Safe to
        share, whichever link fetched it: it carries neither token (the write token would
        let anyone change the table, the read token watch it)."""
        with self._session(write=False) as session:
            table, _ = find_table(session, token)
            out = self._view(session, table, write=False, hands=False)
            for key in ("access", "read_token", "write_token"):
                out.pop(key, None)
            rows = rows_in_play(session, table)
            out["hands"] = [
                {**hand_view(r, table), "request": r.request, "result": r.result} for r in rows
            ]
            return out

    def export_csv(self, token: str) -> str:
        """One line per hand in play: its number (1, 2 … in play, as the page shows it), round,
        dealer, outcome, tiles and melds, each player's delta and running total (a
        spreadsheet's view of the evening)."""
        with self._session(write=False) as session:
            table, _ = find_table(session, token)
            rows = rows_in_play(session, table)
            players = list(table.players)
            out = io.StringIO()
            writer = csv.writer(out)
            writer.writerow(
                _cells(
                    "hand",
                    "round_wind",
                    "deal",
                    "dealer",
                    "kind",
                    "winner",
                    "win",
                    "discarder",
                    "tiles",
                    "melds",
                    "problem",
                    *(f"delta {p}" for p in players),
                    *(f"total {p}" for p in players),
                )
            )
            for ordinal, r in enumerate(rows, 1):
                view = hand_view(r, table)
                seating = view["seating"] or {}
                writer.writerow(
                    _cells(
                        ordinal,  # the hand's number as the page shows it (no gap after a delete)
                        seating.get("round_wind_name", ""),
                        seating.get("deal", ""),
                        seating.get("dealer_name", ""),
                        view["kind"],
                        view["winner_name"] or "",
                        view["win"] or "",
                        view["discarder_name"] or "",
                        view["tiles"] or "",
                        " ".join(view["melds"]),
                        view["problem"] or "",
                        *view["deltas"],
                        *view["totals"],
                    )
                )
            return out.getvalue()

    # -- internals -----------------------------------------------------------------------------
    def _state_before(self, session: Session, table: GameTable, position: int) -> GameState:
        prev = session.scalars(
            select(HandRow)
            .where(
                HandRow.table_id == table.id,
                HandRow.current,
                ~HandRow.deleted,
                HandRow.position < position,
            )
            .order_by(HandRow.position.desc())
            .limit(1)
        ).first()
        return state_after(prev, table)

    def _replay(
        self,
        session: Session,
        table: GameTable,
        position: int,
        state: GameState | None = None,
        changed: int | None = None,
        rescore_all: bool = False,
    ) -> None:
        """Recompute every hand in play from ``position`` on (seating, score, totals);
        ``changed``: the id of a row whose entry changed since it was scored;
        ``rescore_all``: the table setup changed (its options), so every hand is scored again.

        A hand that comes to the same seating as before is the same hand from the same seats
        under the same table setup, so it scores the same: only its running totals move, and
        it is not scored again. Editing an early hand of a long game therefore costs a
        rewrite of the totals, not a replay of every score (unless the edit changes who deals
        from then on). The rows are read and written as plain columns; a hand's entry is read
        only when it is scored again."""
        state = state or self._state_before(session, table, position)
        session.flush()  # the caller's pending changes, before rows are read and rewritten
        in_play = select(HandRow.id, HandRow.seating, HandRow.deltas, HandRow.after).where(
            HandRow.table_id == table.id,
            HandRow.current,
            ~HandRow.deleted,
            HandRow.position >= position,
        )
        rows = session.execute(in_play.order_by(HandRow.position)).all()
        entries: dict[int, Any] | None = None
        moved: list[dict[str, Any]] = []
        rescored: list[dict[str, Any]] = []
        for row in rows:
            same_seats = row.seating == state.seating.to_dict()
            if not rescore_all and row.id != changed and row.after is not None and same_seats:
                state = same_hand(state, row.deltas, row.after)
                moved.append({"id": row.id, "after": state.to_dict()})
                continue
            if entries is None:  # the first hand to score again: read the entries once
                entries = dict(
                    session.execute(in_play.with_only_columns(HandRow.id, HandRow.entry)).all()
                )
            state, values = rescore(table, state, entries[row.id])
            rescored.append({"id": row.id, **values})
        for batch in (moved, rescored):
            if batch:
                session.execute(update(HandRow), batch)
        session.expire_all()  # objects loaded before the rewrite must not show old figures
        touch(table)

    def _hand_result(self, session: Session, table: GameTable, row: HandRow) -> dict[str, Any]:
        session.flush()
        view = self._view(session, table, write=True, hands=False)
        return {
            "hand": {**hand_view(row, table), "request": row.request, "result": row.result},
            "totals": view["totals"],
            "next": view["next"],
            "table_revision": table.revision,
        }

    def _view(
        self, session: Session, table: GameTable, *, write: bool, hands: bool
    ) -> dict[str, Any]:
        rows = rows_in_play(session, table) if hands else []
        last = rows[-1] if hands and rows else last_in_play(session, table)
        state = state_after(last, table)
        photos = (
            set(session.scalars(select(HandPhoto.number).where(HandPhoto.table_id == table.id)))
            if hands
            else set()
        )
        out: dict[str, Any] = {
            "name": table.name,
            "city": table.city,
            "options": table.options,
            "house_rules": house_rules(table.city, table.options),
            "players": table.players,
            "first_dealer": table.first_dealer,
            "starting_points": table.starting_points,
            "rate": table.rate,
            "succession": table.succession,
            "revision": table.revision,
            "access": "write" if write else "read",
            "read_token": table.read_token,
            "totals": list(state.totals),
            "money": money(state.totals, table.rate),
            "hand_count": state.hands,
            "next": named_seating(state.seating.to_dict(), table),
        }
        if write:
            out["write_token"] = table.write_token
        if hands:
            out["hands"] = [{**hand_view(r, table), "photo": r.number in photos} for r in rows]
        return out


# -- helpers -----------------------------------------------------------------------------------
#: A text cell starting with one of these is a formula to a spreadsheet (OWASP, "CSV
#: Injection"): ``=HYPERLINK(…)`` as a player's name would run when the file is opened.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


def _cells(*values: object) -> list[object]:
    """A CSV row whose text cannot run as a formula: such a cell gets a leading ``'`` (shown
    by spreadsheets as text); numbers are kept as numbers.

    >>> _cells("=HYPERLINK(1)", "@SUM(A1)", -6, "Ann", "-3")
    ["'=HYPERLINK(1)", "'@SUM(A1)", -6, 'Ann', "'-3"]
    """
    return ["'" + v if isinstance(v, str) and v.startswith(_FORMULA_START) else v for v in values]
