"""Alembic's environment for the ledger: run by :func:`hupai.ledger.database.migrate` with the
connection in ``config.attributes["connection"]`` (or a URL in ``sqlalchemy.url``)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from hupai.ledger.models import Base

config = context.config
target_metadata = Base.metadata


def run() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _migrate(connection)
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.connect() as conn:
        _migrate(conn)
    engine.dispose()


def _migrate(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite cannot ALTER most things: copy-and-move tables
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run()
