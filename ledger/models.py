"""The ledger's tables (SQLAlchemy 2). Changes go through an Alembic migration
(``ledger/migrations/versions``); a test checks the two agree.

Nothing is ever overwritten: an edit or a delete of a hand adds a new *revision* row and
marks the previous one not current, so every earlier version stays (and undo restores it).
The derived columns (seating, request, result, deltas, the game after the hand) are kept on
the current revision of each hand and recomputed from the first changed hand onward.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class GameTable(Base):
    """A table: city, options, four players in chair order, who dealt first, points."""

    __tablename__ = "game_tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: unguessable keys in the links: one may change the table, the other only view it
    write_token: Mapped[str] = mapped_column(String(64), unique=True)
    read_token: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200), default="")
    city: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    players: Mapped[list[str]] = mapped_column(JSON)
    first_dealer: Mapped[int] = mapped_column(Integer, default=0)
    starting_points: Mapped[int] = mapped_column(Integer, default=0)
    #: money per point, as decimal text ("0.5"); None: no money shown
    rate: Mapped[str | None] = mapped_column(String(40), nullable=True)
    succession: Mapped[str | None] = mapped_column(String(20), nullable=True)
    #: bumped by every change (an ETag for the whole table)
    revision: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class HandRow(Base):
    """One revision of one hand. ``number`` is the hand's stable name in the table (1, 2 …);
    ``position`` its place in play order; ``current`` marks the revision in force."""

    __tablename__ = "hands"
    __table_args__ = (
        UniqueConstraint("table_id", "number", "revision", name="uq_hand_revision"),
        Index("ix_hands_current", "table_id", "current", "position"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    revision: Mapped[int] = mapped_column(Integer, default=1)
    position: Mapped[int] = mapped_column(Integer)
    current: Mapped[bool] = mapped_column(Boolean, default=True)
    deleted: Mapped[bool] = mapped_column(Boolean, default=False)
    #: what changed: add, edit, delete, undo
    action: Mapped[str] = mapped_column(String(10), default="add")
    #: the hand as given, in players' terms (hupai.scoring.game)
    entry: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    # -- derived (recomputed; meaningful on the current revision) --
    seating: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    request: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    deltas: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    problem: Mapped[str | None] = mapped_column(Text, nullable=True)


class HandPhoto(Base):
    """The photo a hand was read from: its reading and a small annotated thumbnail (JPEG).
    Kept per hand (an edit of the tiles keeps the photo)."""

    __tablename__ = "hand_photos"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    reading: Mapped[dict[str, Any]] = mapped_column(JSON)
    thumbnail: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class TableOptions(Base):
    """The options and city a table played with before a change (house rules, the city's
    variants, the city itself): a change keeps the previous ones here, as an edit keeps a
    hand's previous version. ``table_revision`` is the table's revision the change was made from."""

    __tablename__ = "table_options"
    __table_args__ = (Index("ix_table_options_table", "table_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id", ondelete="CASCADE"))
    table_revision: Mapped[int] = mapped_column(Integer)
    #: the options in force until this change
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: the city in force until this change (a table's city can be changed, issue #39)
    city: Mapped[str] = mapped_column(String(40))
    #: when they were replaced
    replaced_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class TableKey(Base):
    """A table's two tokens, looked up by their SHA-256: the database compares hashes, whose
    prefixes a guesser cannot steer, so a lookup's timing tells nothing about a token."""

    __tablename__ = "table_keys"

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id", ondelete="CASCADE"))
    #: "write" or "read"
    access: Mapped[str] = mapped_column(String(8))
