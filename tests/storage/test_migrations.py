"""The migrations build exactly the models' schema, and a database made by the previous
revision (issue 11's code: tables, seats, events) upgrades with nothing lost."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import text

from ginrummy.storage import migrate, open_engine
from ginrummy.storage.database import MIGRATIONS
from ginrummy.storage.models import Base


def _upgrade_to(engine, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def test_the_migrated_schema_matches_the_models(tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    migrate(engine)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == [], diff


def test_a_database_of_revision_0001_upgrades_with_its_rows_kept(tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    _upgrade_to(engine, "0001")
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO game_tables (id, name, preset, rules, players, public, clock_ms, "
            "status, version, created_at, updated_at) VALUES ('t1', 'old', 'classic', '{}', "
            "2, 1, 0, 'playing', 2, '2026-11-30 10:00:00', '2026-11-30 10:00:00')"))
        conn.execute(text("INSERT INTO seats (table_id, seat, kind, name, rematch) VALUES "
                          "('t1', 0, 'human', 'ann', 0), ('t1', 1, 'bot', 'computer', 0)"))
        conn.execute(text("INSERT INTO events (table_id, version, kind, payload, at) VALUES "
                          "('t1', 1, 'match', '{\"first_dealer\": 0}', '2026-11-30 10:00:00')"))
    migrate(engine)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT name, status, buy_in FROM game_tables")).all() == [
            ("old", "playing", None)]
        assert conn.execute(text("SELECT seat, name, account_id FROM seats ORDER BY seat")
                            ).all() == [(0, "ann", None), (1, "computer", None)]
        assert conn.execute(text("SELECT payload FROM events")).scalar_one() == \
            '{"first_dealer": 0}'
        assert conn.execute(text("SELECT COUNT(*) FROM accounts")).scalar_one() == 0


def test_revision_0007_gives_every_stored_match_its_own_public_id(tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'db.sqlite'}")
    _upgrade_to(engine, "0006")
    with engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO game_tables (id, name, preset, rules, players, public, clock_ms, "
            "status, version, created_at, updated_at) VALUES ('t1', 'old', 'classic', '{}', "
            "2, 1, 0, 'over', 9, '2026-11-30 10:00:00', '2026-11-30 10:00:00')"))
        for match_id in range(1, 4):
            conn.execute(text(
                "INSERT INTO matches (id, table_id, first_version, last_version, preset, "
                "players, ending, finished_at) VALUES (:id, 't1', 1, 9, 'classic', 2, 'over', "
                "'2026-11-30 11:00:00')"), {"id": match_id})
    migrate(engine)
    with engine.connect() as conn:
        given = dict(conn.execute(text("SELECT id, public_id FROM matches")).all())
    assert sorted(given) == [1, 2, 3]
    assert len(set(given.values())) == 3
    assert all(isinstance(p, str) and len(p) == 16 and not p.isdigit() for p in given.values())
