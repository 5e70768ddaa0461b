"""A table's city can be changed after it is made (issue #39, row 5): the city in force
before a change is kept beside the options in ``table_options``. Rows kept before this
revision were all played under the table's city (it could not change), so they take it.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("table_options") as batch:
        batch.add_column(sa.Column("city", sa.String(40), nullable=True))
    tables = sa.table("game_tables", sa.column("id"), sa.column("city"))
    options = sa.table("table_options", sa.column("table_id"), sa.column("city"))
    op.execute(
        options.update().values(
            city=sa.select(tables.c.city).where(tables.c.id == options.c.table_id).scalar_subquery()
        )
    )
    with op.batch_alter_table("table_options") as batch:
        batch.alter_column("city", existing_type=sa.String(40), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("table_options") as batch:
        batch.drop_column("city")
