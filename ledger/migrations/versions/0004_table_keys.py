"""Tables are found by the SHA-256 of their token (``table_keys``), not by the token itself:
the lookup's timing then says nothing about how much of a guessed token is right. Existing
tables get their two keys here.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    keys = op.create_table(
        "table_keys",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column(
            "table_id",
            sa.Integer(),
            sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("access", sa.String(8), nullable=False),
    )
    tables = sa.table(
        "game_tables", sa.column("id"), sa.column("write_token"), sa.column("read_token")
    )
    rows = op.get_bind().execute(sa.select(tables.c.id, tables.c.write_token, tables.c.read_token))
    op.bulk_insert(
        keys,
        [
            {"key_hash": _hash(token), "table_id": table_id, "access": access}
            for table_id, write, read in rows
            for token, access in ((write, "write"), (read, "read"))
        ],
    )


def downgrade() -> None:
    op.drop_table("table_keys")


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
