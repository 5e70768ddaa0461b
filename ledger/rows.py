"""A table's rows in the database: found by a token (and locked for a write), the hand in
play by number and revision, a hand's new revision, and the views the API returns of them."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from hupai.ledger.errors import NotFound, ReadOnly, Stale
from hupai.ledger.models import GameTable, HandRow, TableKey, now


def key_hash(token: str) -> str:
    """What the database looks a token up by (:class:`TableKey`)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def find_table(session: Session, token: str, lock: bool = False) -> tuple[GameTable, bool]:
    if not isinstance(token, str) or not 8 <= len(token) <= 64:
        raise NotFound("no such table")
    if not session.info.get("hashed", True):
        return find_by_token(session, token, lock)
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


def find_by_token(session: Session, token: str, lock: bool) -> tuple[GameTable, bool]:
    """The lookup of a database before table_keys (revision 0003 and older)."""
    query = select(GameTable).where(
        (GameTable.write_token == token) | (GameTable.read_token == token)
    )
    table = session.scalars(query.with_for_update() if lock else query).first()
    if table is None:
        raise NotFound("no such table (check the link)")
    return table, secrets.compare_digest(table.write_token, token)


def writable_table(session: Session, token: str) -> GameTable:
    table, write = find_table(session, token, lock=True)
    if not write:
        raise ReadOnly("this is the table's read-only link; changes need the write link")
    return table


def current_row(session: Session, table: GameTable, number: int, revision: int | None) -> HandRow:
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
            current=hand_view(row, table),
        )
    return row


def revise(
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


def latest_change(session: Session, table: GameTable, number: int | None) -> Any:
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


def touch(table: GameTable) -> None:
    table.revision += 1
    table.updated_at = now()


def last_in_play(session: Session, table: GameTable) -> HandRow | None:
    return session.scalars(
        select(HandRow)
        .where(HandRow.table_id == table.id, HandRow.current, ~HandRow.deleted)
        .order_by(HandRow.position.desc())
        .limit(1)
    ).first()


def rows_in_play(session: Session, table: GameTable) -> list[HandRow]:
    return list(
        session.scalars(
            select(HandRow)
            .where(HandRow.table_id == table.id, HandRow.current, ~HandRow.deleted)
            .order_by(HandRow.position)
        ).all()
    )


def player_name(table: GameTable, player: object) -> str | None:
    if isinstance(player, int) and not isinstance(player, bool) and 0 <= player < 4:
        return str(table.players[player])
    return None


def named_seating(seating: dict[str, Any] | None, table: GameTable) -> dict[str, Any] | None:
    if seating is None:
        return None
    return {**seating, "dealer_name": player_name(table, seating["dealer"])}


def hand_view(row: HandRow, table: GameTable) -> dict[str, Any]:
    entry = row.entry
    after = row.after or {}
    kind = entry.get("kind", "win")
    return {
        "number": row.number,
        "revision": row.revision,
        "kind": kind,
        "deleted": row.deleted,
        "entry": entry,
        "seating": named_seating(row.seating, table),
        "winner": entry.get("winner"),
        "winner_name": player_name(table, entry.get("winner")) if kind == "win" else None,
        "win": entry.get("win") if kind == "win" else None,
        "discarder_name": player_name(table, entry.get("discarder")),
        "tiles": entry.get("hand") if kind == "win" else None,
        "melds": [m.get("tiles") for m in entry.get("melds", []) if isinstance(m, Mapping)],
        "deltas": row.deltas or [0, 0, 0, 0],
        "totals": after.get("totals", [0, 0, 0, 0]),
        "problem": row.problem,
        "at": row.created_at.isoformat(),
    }
