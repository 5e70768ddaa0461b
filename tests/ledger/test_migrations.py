"""Alembic migrations, on both backends: from an empty database to the models' schema, and
from a populated database at the first revision to the latest, keeping every table and hand."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from hupai.ledger.database import make_engine, migrate
from hupai.ledger.models import Base
from hupai.ledger.store import Ledger

PLAYERS = ["Ann", "Bo", "Chen", "Dee"]
WIN = {"winner": 2, "win": "self_draw", "hand": "123m456m789m123p55s", "win_tile": "5s"}


def test_an_empty_database_migrates_to_exactly_the_models(database_url: str) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    engine.dispose()
    assert diff == []


def test_the_database_is_created_on_first_use(database_url: str) -> None:
    engine = make_engine(database_url)
    assert "game_tables" not in inspect(engine).get_table_names()
    ledger = Ledger(database_url)
    ledger.create_table({"city": "shaanxi", "players": PLAYERS})
    assert {"game_tables", "hands", "hand_photos"} <= set(inspect(engine).get_table_names())
    ledger.close()
    engine.dispose()


def test_a_populated_database_keeps_its_tables_and_hands_through_an_upgrade(
    database_url: str,
) -> None:
    old = Ledger(database_url, migrate_to="0001")  # made before hand photos existed
    table = old.create_table({"city": "shaanxi", "players": PLAYERS})
    old.add_hand(table["write_token"], WIN)
    old.add_hand(table["write_token"], WIN)
    assert "hand_photos" not in inspect(old.engine).get_table_names()
    old.close()

    upgraded = Ledger(database_url)  # migrates to the latest revision on first use
    view = upgraded.view(table["read_token"])
    assert (view["hand_count"], view["totals"]) == (2, [-12, -12, 36, -12])
    assert all(h["photo"] is False for h in view["hands"])
    upgraded.close()


def test_upgrading_twice_changes_nothing(database_url: str) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    migrate(engine)
    with engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == "0005"
    engine.dispose()


def test_tables_made_before_table_keys_are_found_after_the_upgrade(database_url: str) -> None:
    old = Ledger(database_url, migrate_to="0003")  # made before tables were found by hash
    made = old.create_table({"city": "shaanxi", "players": ["A", "B", "C", "D"]})
    old.close()
    new = Ledger(database_url)
    assert new.view(made["write_token"])["access"] == "write"
    assert new.view(made["read_token"])["access"] == "read"
    new.close()


def test_options_kept_before_a_city_could_change_take_the_tables_city(database_url: str) -> None:
    old = Ledger(database_url, migrate_to="0004")  # made before a table's city could change
    made = old.create_table({"city": "guiyang", "players": PLAYERS})
    with old.engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO table_options (table_id, table_revision, options, replaced_at) "
            "VALUES ((SELECT id FROM game_tables), 0, '{\"cap\": 8}', CURRENT_TIMESTAMP)"
        )
    old.close()
    new = Ledger(database_url)
    versions = new.options_history(made["read_token"])
    assert [(v["city"], v["options"]) for v in versions] == [
        ("guiyang", {"cap": 8}),
        ("guiyang", {}),
    ]
    new.close()
