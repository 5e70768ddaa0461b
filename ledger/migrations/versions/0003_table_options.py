"""A table's earlier options: house rules (cap, dealer double) and the city's variants are
set once per table, in ``game_tables.options``; changing them later keeps the previous ones
here (and re-scores every hand), as an edit keeps a hand's previous version.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_options",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "table_id",
            sa.Integer(),
            sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("table_revision", sa.Integer(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("replaced_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_table_options_table", "table_options", ["table_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_table_options_table", table_name="table_options")
    op.drop_table("table_options")
