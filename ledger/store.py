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
import hashlib
import io
import secrets
import string
import threading
from collections import deque
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, func, inspect, make_url, select, update
from sqlalchemy.exc import ArgumentError, InterfaceError, NoSuchModuleError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from hupai.ledger.models import GameTable, HandPhoto, HandRow, TableKey, TableOptions, now
from hupai.scoring import ScoringInputError, city_names, get_city
from hupai.scoring.fields import parse_dataclass
from hupai.scoring.game import GameState, PlayedHand, TableSetup, play
from hupai.scoring.house import HouseRules
from hupai.scoring.quoting import quote

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
MAX_NAME = 40
MAX_TABLE_NAME = 200
MAX_HANDS = 100_000


class LedgerError(Exception):
    """A request the ledger refuses; ``status`` is its HTTP status, ``code`` stable."""

    status = 400
    code = "invalid_request"

    def __init__(self, message: str, field: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.extra = extra


class NotFound(LedgerError):
    status = 404
    code = "not_found"


class ReadOnly(LedgerError):
    status = 403
    code = "read_only"


class Stale(LedgerError):
    status = 409
    code = "stale"


class Unavailable(LedgerError):
    status = 503
    code = "database_unavailable"


class Invalid(LedgerError):
    status = 422
    code = "invalid_request"

    @staticmethod
    def of(exc: ScoringInputError, prefix: str = "") -> Invalid:
        field = f"{prefix}{exc.path}" if exc.path else prefix.rstrip(".") or None
        return Invalid(f"{field}: {exc.message}" if field else exc.message, field)


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


# -- the database ------------------------------------------------------------------------------
def default_url() -> str:
    """SQLite in the user's data folder (``$XDG_DATA_HOME/hupai/tables.sqlite3``)."""
    import os

    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return f"sqlite:///{base / 'hupai' / 'tables.sqlite3'}"


#: The execution option that marks a connection as a writer's (SQLite: ``BEGIN IMMEDIATE``).
WRITE_OPTION = "hupai_writes"


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, a busy timeout, foreign keys, and ``BEGIN
    IMMEDIATE`` for writes only (a writer waits for the other instead of failing half-way;
    readers never wait)."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        from sqlalchemy.pool import StaticPool

        memory = not path or path == ":memory:"
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            poolclass=StaticPool if memory else None,
        )

        @event.listens_for(engine, "connect")
        def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # we emit BEGIN ourselves
            cursor = dbapi_connection.cursor()
            if not memory:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Any) -> None:
            # A write takes the write lock at once (it waits its turn rather than failing
            # half-way); a read begins deferred, so that in WAL mode it never waits for a
            # writer, and a long edit of one table never holds up reading another.
            writes = conn.get_execution_options().get(WRITE_OPTION, False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True)


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision`` with Alembic (creates it on first use; an upgrade
    keeps every existing table and hand)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # Alembic's context is process-global (one migration at a time per process); across
    # processes, SQLite's BEGIN IMMEDIATE or PostgreSQL's advisory lock serialises them.
    with _MIGRATING, engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK_ID})")
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


#: Seconds a write waits for its turn (as SQLite's busy timeout did).
WRITE_WAIT = 30.0


class WriteQueue:
    """A lock handed to its waiters in the order they asked (first come, first served):
    a writer that ends and asks again queues behind those already waiting.

    >>> queue = WriteQueue()
    >>> with queue.turn():
    ...     pass
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._held = False
        self._waiting: deque[threading.Event] = deque()

    @contextmanager
    def turn(self, timeout: float = WRITE_WAIT) -> Iterator[None]:
        """Hold the lock in turn; :class:`TimeoutError` after ``timeout`` s of waiting."""
        with self._guard:
            mine = None if not self._held else threading.Event()
            if mine is None:
                self._held = True
            else:
                self._waiting.append(mine)
        if mine is not None and not mine.wait(timeout):
            with self._guard:
                if not mine.is_set():  # handed over meanwhile? then it is ours after all
                    self._waiting.remove(mine)
                    raise TimeoutError
        try:
            yield
        finally:
            with self._guard:
                if self._waiting:
                    self._waiting.popleft().set()  # held passes on, never released between
                else:
                    self._held = False


@contextmanager
def _no_wait() -> Iterator[None]:
    yield


_MIGRATING = threading.Lock()
_MIGRATION_LOCK_ID = 0x68757061  # "hupa"


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
                self._writers.turn() if queued else _no_wait(),
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
        spec = _table_spec(data)
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
            table, _ = _find(session, token)
            return int(table.revision)

    def view(self, token: str, hands: bool = True) -> dict[str, Any]:
        """The table by either token: players, totals, next dealer and round, the hands."""
        with self._session(write=False) as session:
            row, write = _find(session, token)
            return self._view(session, row, write=write, hands=hands)

    # -- hands --------------------------------------------------------------------------------
    def add_hand(
        self, token: str, entry: Mapping[str, Any], photo: PhotoRecord | None = None
    ) -> dict[str, Any]:
        """Add a hand at the end of play; it is scored with the table's context. A hand
        that does not score (not a winning hand …) is refused (422) with the reason."""
        with self._session() as session:
            table = _writable(session, token)
            state = _state_after(_last_in_play(session, table), table)
            if state.hands >= MAX_HANDS:
                raise Invalid(f"the table holds {state.hands} hands; start a new table")
            played = _scored(table, state, entry)
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
            _store(row, played)
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
            _touch(table)
            session.flush()
            return self._hand_result(session, table, row)

    def preview(
        self, token: str, entry: Mapping[str, Any], number: int | None = None
    ) -> dict[str, Any]:
        """Score ``entry`` as the next hand (or in place of hand ``number``) without storing
        anything: its seating, the request, the result, the deltas by player, the totals
        after it. Either link may preview."""
        with self._session(write=False) as session:
            table, _ = _find(session, token)
            if number is None:
                state = _state_after(_last_in_play(session, table), table)
            else:
                state = self._state_before(
                    session, table, _current(session, table, number, None).position
                )
            played = _play(table, state, entry)
            return {
                "seating": _named_seating(played.seating.to_dict(), table),
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
            table = _writable(session, token)
            old = _current(session, table, number, revision)
            if old.deleted:
                raise NotFound(f"hand {number} was deleted; undo brings it back", "number")
            state = self._state_before(session, table, old.position)
            played = _scored(table, state, entry)  # refused before anything changes
            new = _revise(session, old, "edit", dict(entry), deleted=False)
            _store(new, played)
            self._replay(session, table, old.position + 1, played.after)
            return self._hand_result(session, table, new)

    def delete_hand(self, token: str, number: int, revision: int) -> dict[str, Any]:
        """Remove hand ``number`` from play (kept, restorable by undo); later hands are
        recomputed."""
        with self._session() as session:
            table = _writable(session, token)
            old = _current(session, table, number, revision)
            if old.deleted:
                raise NotFound(f"hand {number} is already deleted", "number")
            new = _revise(session, old, "delete", old.entry, deleted=True)
            self._replay(session, table, old.position)
            return self._hand_result(session, table, new)

    def undo(self, token: str, number: int | None = None) -> dict[str, Any]:
        """Undo the latest change not already undone, to hand ``number`` (or to any hand of
        the table): that hand goes back to its version before the change; undoing an added
        hand deletes it. Undos stack: a second undo undoes the change before, it does not
        redo what the first undid."""
        with self._session() as session:
            table = _writable(session, token)
            target = _latest_change(session, table, number)
            old = _current(session, table, target.number, None)
            before = session.scalars(
                select(HandRow).where(
                    HandRow.table_id == table.id,
                    HandRow.number == target.number,
                    HandRow.revision == target.revision - 1,
                )
            ).first()
            entry = before.entry if before is not None else old.entry
            deleted = before.deleted if before is not None else True
            new = _revise(session, old, "undo", entry, deleted=deleted)
            self._replay(session, table, old.position, changed=new.id)
            return self._hand_result(session, table, new)

    def history(self, token: str, number: int) -> list[dict[str, Any]]:
        """Every version of a hand, oldest first."""
        with self._session(write=False) as session:
            table, _ = _find(session, token)
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
            table, _ = _find(session, token)
            row = _current(session, table, number, None)
            photo = session.get(HandPhoto, (table.id, number))
            return {
                **_hand_view(row, table),
                "request": row.request,
                "result": row.result,
                "reading": None if photo is None else photo.reading,
            }

    def thumbnail(self, token: str, number: int) -> bytes:
        with self._session(write=False) as session:
            table, _ = _find(session, token)
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
            table = _writable(session, token)
            if revision != table.revision:
                raise Stale(
                    f"the table changed since you loaded it (revision {revision}; now "
                    f"{table.revision}); reload and change the options again",
                    "revision",
                )
            new_city = table.city if city is None else _known_city(city)
            succession = table.succession
            if new_city != table.city and not get_city(new_city).succession.other_win_option:
                succession = None  # the new city's seed says who deals next
            checked = _checked_options(table, options, new_city, succession)
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
            table, _ = _find(session, token)
            rows = session.scalars(
                select(TableOptions)
                .where(TableOptions.table_id == table.id)
                .order_by(TableOptions.id)
            ).all()
            out = [
                {
                    "city": r.city,
                    "options": r.options,
                    "house_rules": _house_rules(r.city, r.options),
                    "until_revision": r.table_revision,
                    "replaced_at": r.replaced_at.isoformat(),
                }
                for r in rows
            ]
            out.append(
                {
                    "city": table.city,
                    "options": table.options,
                    "house_rules": _house_rules(table.city, table.options),
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
            table, _ = _find(session, token)
            out = self._view(session, table, write=False, hands=False)
            for key in ("access", "read_token", "write_token"):
                out.pop(key, None)
            rows = _rows_in_play(session, table)
            out["hands"] = [
                {**_hand_view(r, table), "request": r.request, "result": r.result} for r in rows
            ]
            return out

    def export_csv(self, token: str) -> str:
        """One line per hand in play: its number (1, 2 … in play, as the page shows it), round,
        dealer, outcome, tiles and melds, each player's delta and running total (a
        spreadsheet's view of the evening)."""
        with self._session(write=False) as session:
            table, _ = _find(session, token)
            rows = _rows_in_play(session, table)
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
                view = _hand_view(r, table)
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
        return _state_after(prev, table)

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
                state = _same_hand(state, row.deltas, row.after)
                moved.append({"id": row.id, "after": state.to_dict()})
                continue
            if entries is None:  # the first hand to score again: read the entries once
                entries = dict(
                    session.execute(in_play.with_only_columns(HandRow.id, HandRow.entry)).all()
                )
            state, values = _rescore(table, state, entries[row.id])
            rescored.append({"id": row.id, **values})
        for batch in (moved, rescored):
            if batch:
                session.execute(update(HandRow), batch)
        session.expire_all()  # objects loaded before the rewrite must not show old figures
        _touch(table)

    def _hand_result(self, session: Session, table: GameTable, row: HandRow) -> dict[str, Any]:
        session.flush()
        view = self._view(session, table, write=True, hands=False)
        return {
            "hand": {**_hand_view(row, table), "request": row.request, "result": row.result},
            "totals": view["totals"],
            "next": view["next"],
            "table_revision": table.revision,
        }

    def _view(
        self, session: Session, table: GameTable, *, write: bool, hands: bool
    ) -> dict[str, Any]:
        rows = _rows_in_play(session, table) if hands else []
        last = rows[-1] if hands and rows else _last_in_play(session, table)
        state = _state_after(last, table)
        photos = (
            set(session.scalars(select(HandPhoto.number).where(HandPhoto.table_id == table.id)))
            if hands
            else set()
        )
        out: dict[str, Any] = {
            "name": table.name,
            "city": table.city,
            "options": table.options,
            "house_rules": _house_rules(table.city, table.options),
            "players": table.players,
            "first_dealer": table.first_dealer,
            "starting_points": table.starting_points,
            "rate": table.rate,
            "succession": table.succession,
            "revision": table.revision,
            "access": "write" if write else "read",
            "read_token": table.read_token,
            "totals": list(state.totals),
            "money": _money(state.totals, table.rate),
            "hand_count": state.hands,
            "next": _named_seating(state.seating.to_dict(), table),
        }
        if write:
            out["write_token"] = table.write_token
        if hands:
            out["hands"] = [{**_hand_view(r, table), "photo": r.number in photos} for r in rows]
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


def _table_spec(data: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise Invalid(f"table: expected a JSON object, got {quote(data)}")
    fields = (
        "name",
        "city",
        "players",
        "options",
        "first_dealer",
        "starting_points",
        "rate",
        "succession",
    )
    for key in data:
        if key not in fields:
            raise Invalid(f"{quote(key)}: unknown field; known: {', '.join(fields)}", str(key))
    players = data.get("players")
    if (
        not isinstance(players, list)
        or len(players) != 4
        or not all(isinstance(p, str) and p.strip() for p in players)
    ):
        raise Invalid(
            f"players: expected 4 names in chair order (turn order), got {quote(players)}",
            "players",
        )
    for i, p in enumerate(players):
        if len(p.strip()) > MAX_NAME:  # refused, not cut: a name is kept as given
            raise Invalid(
                f"players[{i}]: a name of {len(p.strip())} characters; at most {MAX_NAME}",
                f"players[{i}]",
            )
    names = [p.strip() for p in players]
    # names are how players are told apart when typed (the CLI's --winner Ann): "ann" and
    # "Ann" would be the same player there
    if len({n.casefold() for n in names}) != 4:
        raise Invalid(
            f"players: two players share a name ({quote(names)}; capitals do not count)",
            "players",
        )
    name = data.get("name", "")
    if not isinstance(name, str):
        raise Invalid(f"name: expected text, got {quote(name)}", "name")
    if len(name.strip()) > MAX_TABLE_NAME:  # refused, not cut: a name is kept as given
        raise Invalid(f"name: {len(name.strip())} characters; at most {MAX_TABLE_NAME}", "name")
    options = data.get("options", {})
    if options is None:
        options = {}
    rate = _rate(data.get("rate"))
    city = data.get("city")
    if not isinstance(city, str):
        known = ", ".join(city_names())
        raise Invalid(f"city: required, one of: {known} (got {quote(city)})", "city")
    setup = TableSetup(
        city=city,
        options=options,
        first_dealer=data.get("first_dealer", 0),
        starting_points=data.get("starting_points", 0),
        succession=data.get("succession"),
    )
    try:
        setup.check()
    except ScoringInputError as exc:
        raise Invalid.of(exc) from None
    return {
        "name": name.strip(),
        "city": get_city(setup.city).name,
        "options": dict(options),
        "players": names,
        "first_dealer": setup.first_dealer,
        "starting_points": setup.starting_points,
        "rate": rate,
        "succession": setup.succession,
    }


def _rate(value: object) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise Invalid(f"rate: expected a number, got {quote(value)}", "rate")
    try:
        rate = Decimal(str(value))
    except InvalidOperation:
        raise Invalid(f"rate: {quote(value)} is not a number", "rate") from None
    if not rate.is_finite() or rate < 0 or rate > 10**6:
        raise Invalid(f"rate: {quote(value)} is not a rate (0 to 1000000 per point)", "rate")
    return str(rate.normalize())


def _money(totals: tuple[int, ...], rate: str | None) -> list[str] | None:
    if rate is None:
        return None
    r = Decimal(rate)
    return [str((Decimal(t) * r).quantize(Decimal("0.01"))) for t in totals]


def _checked_options(
    table: GameTable, options: object, city: str, succession: str | None
) -> dict[str, Any]:
    """New options for ``table`` under ``city``, checked as at its creation (field
    ``options.<name>``)."""
    if not isinstance(options, Mapping):
        raise Invalid(f"options: expected a JSON object, got {quote(options)}", "options")
    setup = TableSetup(city, options, table.first_dealer, table.starting_points, succession)
    try:
        setup.check()
    except ScoringInputError as exc:
        raise Invalid.of(exc) from None
    return dict(options)


def _known_city(city: object) -> str:
    """A city's name as the scorer spells it, or :class:`Invalid` naming the known ones."""
    try:
        return get_city(city).name
    except ScoringInputError as exc:
        raise Invalid.of(exc) from None


def _house_rules(city: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The table's house rules with the defaults filled in (``cap``, ``dealer_double``)."""
    parsed = parse_dataclass(get_city(city).options_type, options, "options")
    return dict(parsed.house_rules) if isinstance(parsed, HouseRules) else {}


def _setup(table: GameTable) -> TableSetup:
    return TableSetup(
        table.city, table.options, table.first_dealer, table.starting_points, table.succession
    )


def _play(table: GameTable, state: GameState, entry: Mapping[str, Any]) -> PlayedHand:
    try:
        return play(_setup(table), state, entry)
    except ScoringInputError as exc:
        raise Invalid.of(exc) from None


def _scored(table: GameTable, state: GameState, entry: Mapping[str, Any]) -> PlayedHand:
    """The hand played, or refused when it does not score (with the scorer's reason)."""
    played = _play(table, state, entry)
    if played.problem is not None and played.result is not None:
        raise Invalid(
            f"hand: {played.result.get('message') or played.problem}",
            "hand",
            reason=played.problem,
            result=played.result,
        )
    return played


def _store(row: HandRow, played: PlayedHand) -> None:
    row.seating = played.seating.to_dict()
    row.request = played.request
    row.result = played.result
    row.deltas = list(played.deltas)
    row.after = played.after.to_dict()
    row.problem = played.problem


def _same_hand(state: GameState, deltas: list[int] | None, after: dict[str, Any]) -> GameState:
    """The game after a hand played from the seating it had before: its deltas on the new
    totals, its stored next seating."""
    d = deltas or [0, 0, 0, 0]
    t = state.totals
    totals = (t[0] + d[0], t[1] + d[1], t[2] + d[2], t[3] + d[3])
    return GameState(GameState.from_dict(after).seating, totals, state.hands + 1)


def _rescore(
    table: GameTable, state: GameState, entry: Mapping[str, Any]
) -> tuple[GameState, dict[str, Any]]:
    """A hand scored again from ``state``: the game after it and its stored columns."""
    try:
        played = _play(table, state, entry)
    except Invalid as exc:  # an earlier change left this hand unplayable as given
        after = GameState(state.seating, state.totals, state.hands + 1)
        return after, {
            "seating": {**state.seating.to_dict()},
            "request": None,
            "result": None,
            "deltas": [0, 0, 0, 0],
            "problem": f"invalid: {exc.message}",
            "after": after.to_dict(),
        }
    return played.after, {
        "seating": played.seating.to_dict(),
        "request": played.request,
        "result": played.result,
        "deltas": list(played.deltas),
        "after": played.after.to_dict(),
        "problem": played.problem,
    }


def _state_after(row: HandRow | None, table: GameTable) -> GameState:
    if row is None or row.after is None:
        return GameState.start(_setup(table))
    return GameState.from_dict(row.after)


def key_hash(token: str) -> str:
    """What the database looks a token up by (:class:`TableKey`)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _find(session: Session, token: str, lock: bool = False) -> tuple[GameTable, bool]:
    if not isinstance(token, str) or not 8 <= len(token) <= 64:
        raise NotFound("no such table")
    if not session.info.get("hashed", True):
        return _find_by_token(session, token, lock)
    key = session.get(TableKey, key_hash(token))
    query = select(GameTable).where(GameTable.id == (key.table_id if key else -1))
    if lock:
        query = query.with_for_update()
    table = session.scalars(query).first() if key is not None else None
    if table is None or key is None:
        raise NotFound("no such table (check the link)")
    stored = table.write_token if key.access == "write" else table.read_token
    if not secrets.compare_digest(stored.encode(), token.encode("utf-8", "surrogatepass")):
        raise NotFound("no such table (check the link)")
    return table, key.access == "write"


def _find_by_token(session: Session, token: str, lock: bool) -> tuple[GameTable, bool]:
    """The lookup of a database before table_keys (revision 0003 and older)."""
    query = select(GameTable).where(
        (GameTable.write_token == token) | (GameTable.read_token == token)
    )
    table = session.scalars(query.with_for_update() if lock else query).first()
    if table is None:
        raise NotFound("no such table (check the link)")
    return table, secrets.compare_digest(table.write_token, token)


def _writable(session: Session, token: str) -> GameTable:
    table, write = _find(session, token, lock=True)
    if not write:
        raise ReadOnly("this is the table's read-only link; changes need the write link")
    return table


def _current(session: Session, table: GameTable, number: int, revision: int | None) -> HandRow:
    row = session.scalars(
        select(HandRow).where(
            HandRow.table_id == table.id, HandRow.number == number, HandRow.current
        )
    ).first()
    if row is None:
        raise NotFound(f"no hand {number} at this table", "number")
    if revision is not None and row.revision != revision:
        raise Stale(
            f"hand {number} changed since you loaded it (revision {revision}; now "
            f"{row.revision}); reload and make the change again",
            "revision",
            current=_hand_view(row, table),
        )
    return row


def _revise(
    session: Session, old: HandRow, action: str, entry: dict[str, Any], *, deleted: bool
) -> HandRow:
    old.current = False
    new = HandRow(
        table_id=old.table_id,
        number=old.number,
        revision=old.revision + 1,
        position=old.position,
        current=True,
        deleted=deleted,
        action=action,
        entry=entry,
        seating=old.seating,
        request=old.request,
        result=old.result,
        deltas=old.deltas,
        after=old.after,
        problem=old.problem,
    )
    session.add(new)
    session.flush()
    return new


def _latest_change(session: Session, table: GameTable, number: int | None) -> Any:
    """The latest change (add, edit, delete) to hand ``number``, or to any hand, that no undo
    has taken back: walking back from the newest, each undo cancels the next change met."""
    query = select(HandRow.number, HandRow.revision, HandRow.action).where(
        HandRow.table_id == table.id
    )
    if number is not None:
        query = query.where(HandRow.number == number)
    undone = seen = 0
    for row in session.execute(query.order_by(HandRow.id.desc())):
        seen += 1
        if row.action == "undo":
            undone += 1
        elif undone:
            undone -= 1
        else:
            return row
    if seen:
        raise NotFound("nothing left to undo: every change was undone")
    if number is not None:
        raise NotFound(f"no hand {number} at this table", "number")
    raise NotFound("the table has no hands to undo")


def _touch(table: GameTable) -> None:
    table.revision += 1
    table.updated_at = now()


def _last_in_play(session: Session, table: GameTable) -> HandRow | None:
    return session.scalars(
        select(HandRow)
        .where(HandRow.table_id == table.id, HandRow.current, ~HandRow.deleted)
        .order_by(HandRow.position.desc())
        .limit(1)
    ).first()


def _rows_in_play(session: Session, table: GameTable) -> list[HandRow]:
    return list(
        session.scalars(
            select(HandRow)
            .where(HandRow.table_id == table.id, HandRow.current, ~HandRow.deleted)
            .order_by(HandRow.position)
        ).all()
    )


def _name(table: GameTable, player: object) -> str | None:
    if isinstance(player, int) and not isinstance(player, bool) and 0 <= player < 4:
        return str(table.players[player])
    return None


def _named_seating(seating: dict[str, Any] | None, table: GameTable) -> dict[str, Any] | None:
    if seating is None:
        return None
    return {**seating, "dealer_name": _name(table, seating["dealer"])}


def _hand_view(row: HandRow, table: GameTable) -> dict[str, Any]:
    entry = row.entry
    after = row.after or {}
    kind = entry.get("kind", "win")
    return {
        "number": row.number,
        "revision": row.revision,
        "kind": kind,
        "deleted": row.deleted,
        "entry": entry,
        "seating": _named_seating(row.seating, table),
        "winner": entry.get("winner"),
        "winner_name": _name(table, entry.get("winner")) if kind == "win" else None,
        "win": entry.get("win") if kind == "win" else None,
        "discarder_name": _name(table, entry.get("discarder")),
        "tiles": entry.get("hand") if kind == "win" else None,
        "melds": [m.get("tiles") for m in entry.get("melds", []) if isinstance(m, Mapping)],
        "deltas": row.deltas or [0, 0, 0, 0],
        "totals": after.get("totals", [0, 0, 0, 0]),
        "problem": row.problem,
        "at": row.created_at.isoformat(),
    }
