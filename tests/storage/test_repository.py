"""The repository and migrations, on SQLite and on the machine's PostgreSQL.

PostgreSQL runs in a schema of its own, created for the test run and dropped after it
(``GINRUMMY_TEST_PG``, default ``postgresql://postgres@127.0.0.1:5432/test``); those tests skip,
saying why, only when the server cannot be reached.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError

from ginrummy.cards import format_cards
from ginrummy.engine import deal_order
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.server.play.table import GameTable
from ginrummy.storage import (
    Checkpointer,
    InsertEvent,
    InsertTable,
    Repository,
    StorageError,
    StoredEvent,
    StoredSeat,
    StoredTable,
    UpdateSeat,
    UpdateTable,
    migrate,
    normalise_url,
    open_engine,
)
from ginrummy.storage.database import MIGRATIONS, schema_tables
from pg_helpers import migrated_engine, pg_schema


@pytest.fixture(scope="module")
def pg_schema_name() -> Iterator[str]:
    """A schema for this test run in the PostgreSQL test database, dropped afterwards."""
    with pg_schema("ginrummy_test") as name:
        yield name


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A migrated, empty database of each kind."""
    made = migrated_engine(request, tmp_path, "store")
    yield made
    made.dispose()


def a_table(table_id: str = "t1", status: str = "waiting") -> StoredTable:
    rules = Ruleset.preset("classic")
    return StoredTable(
        id=table_id, name="Ann's table", preset="classic", rules=rules.to_dict(), players=2,
        public=True, invite_hash=None, clock_ms=30_000, pool_chips=None, status=status,
        version=0, seats=[StoredSeat(0, "human", "Ann", None, "hash0"), StoredSeat(1, "empty")])


def latest_revision() -> str:
    """The head of the shipped migrations (what a database is migrated to)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def test_latest_revision_is_the_one_migration_without_a_successor() -> None:
    revisions = sorted(p.name for p in (MIGRATIONS / "versions").glob("r*.py"))
    assert revisions[-1].startswith(f"r{latest_revision()}_")


def test_migrations_create_the_schema_and_run_twice(engine: Engine) -> None:
    assert {"game_tables", "seats", "events", "alembic_version"} <= set(schema_tables(engine))
    migrate(engine)  # idempotent at every start-up
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == \
            latest_revision()


def test_write_and_load_round_trip(engine: Engine) -> None:
    repo = Repository(engine)
    repo.write([InsertTable(a_table())])
    deck = "deck text"
    repo.write([
        InsertEvent("t1", StoredEvent(1, "match", json.dumps({"first_dealer": 1}))),
        InsertEvent("t1", StoredEvent(2, "deal", deck)),
        InsertEvent("t1", StoredEvent(3, "action", "stock", 0, "human", "a1")),
        UpdateTable("t1", {"version": 2, "status": "playing"}),
        UpdateTable("t1", {"version": 3, "clock_seat": 0, "clock_deadline": 1234.5}),
        UpdateSeat("t1", 1, {"kind": "bot", "level": "simple", "name": "computer"}),
    ])
    loaded = repo.load_table("t1")
    assert loaded is not None
    assert (loaded.version, loaded.status, loaded.clock_seat, loaded.clock_deadline) == (
        3, "playing", 0, 1234.5)
    assert loaded.rules == Ruleset.preset("classic").to_dict()
    assert loaded.seats == [StoredSeat(0, "human", "Ann", None, "hash0"),
                            StoredSeat(1, "bot", "computer", "simple", None)]
    assert [e.kind for e in loaded.events] == ["match", "deal", "action"]
    assert loaded.events[2] == StoredEvent(3, "action", "stock", 0, "human", "a1")
    assert loaded.created_at.tzinfo is not None
    assert loaded.updated_at.tzinfo is not None and loaded.updated_at >= loaded.created_at
    at = {e.version: e for e in loaded.events}
    assert at[3].client_id == "a1" and at[2].payload == deck
    assert repo.load_table("missing") is None
    assert repo.count_events("t1") == 3


def test_a_failed_batch_commits_nothing(engine: Engine) -> None:
    repo = Repository(engine)
    repo.write([InsertTable(a_table()),
                InsertEvent("t1", StoredEvent(1, "match", "{}"))])
    with pytest.raises(IntegrityError):
        repo.write([InsertEvent("t1", StoredEvent(2, "deal", "x")),
                    UpdateTable("t1", {"version": 2}),
                    InsertEvent("t1", StoredEvent(1, "match", "{}"))])  # duplicate version
    loaded = repo.load_table("t1")
    assert loaded is not None and loaded.version == 0 and len(loaded.events) == 1


def test_unknown_columns_are_refused(engine: Engine) -> None:
    repo = Repository(engine)
    repo.write([InsertTable(a_table())])
    with pytest.raises(ValueError, match="no table column 'colour'"):
        repo.write([UpdateTable("t1", {"colour": "red"})])


def test_load_by_status_and_many_tables_in_one_batch(engine: Engine) -> None:
    repo = Repository(engine)
    repo.write([InsertTable(a_table(f"t{i}", "over" if i % 3 == 0 else "playing"))
                for i in range(30)])
    playing = repo.load_tables(("playing",))
    assert len(playing) == 20 and all(t.status == "playing" for t in playing)
    assert len(repo.load_tables()) == 30
    assert all(len(t.seats) == 2 for t in repo.load_tables(ids=["t1", "t2"]))


def test_a_stored_match_replays_to_the_same_state(engine: Engine) -> None:
    """The events of a live table, stored and loaded, rebuild exactly the same match."""
    repo = Repository(engine)
    repo.write([InsertTable(a_table())])
    live = Match(Ruleset.preset("classic"), first_dealer=0)
    events = [StoredEvent(1, "match", json.dumps({"first_dealer": 0}))]
    deck = deal_order(seed=5)
    live.start_hand(deck)
    events.append(StoredEvent(2, "deal", format_cards(deck)))
    while not live.hand.over and len(events) < 40:
        action = live.hand.legal_actions()[0]
        seat = live.hand.to_move
        live.apply(action)
        events.append(StoredEvent(len(events) + 1, "action", str(action), seat, "human"))
    repo.write([InsertEvent("t1", e) for e in events]
               + [UpdateTable("t1", {"version": len(events), "status": "playing"})])
    loaded = repo.load_table("t1")
    assert loaded is not None
    table = GameTable.from_stored(loaded)
    assert table.match is not None and table.version == len(events)
    assert table.match.hand.snapshot() == live.hand.snapshot()


def test_urls_and_bad_databases(tmp_path: Path) -> None:
    assert normalise_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("games.db") == "sqlite:///games.db"
    assert normalise_url("sqlite:///x.db") == "sqlite:///x.db"
    with pytest.raises(StorageError, match="unsupported database"):
        open_engine("mysql://u@h/db")
    with pytest.raises(StorageError, match="synchronous"):
        open_engine(f"sqlite:///{tmp_path / 'a.db'}", sqlite_synchronous="SOMETIMES")
    nested = tmp_path / "deep" / "er" / "g.db"
    made = open_engine(f"sqlite:///{nested}")
    migrate(made)
    with made.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL
    made.dispose()
    assert nested.exists()


def test_background_checkpoints_keep_commits_free_of_them(tmp_path: Path) -> None:
    path = tmp_path / "ck.db"
    made = open_engine(f"sqlite:///{path}", background_checkpoint=True)
    migrate(made)
    assert Checkpointer.wanted(made)
    with made.connect() as conn:
        assert conn.execute(text("PRAGMA wal_autocheckpoint")).scalar() == 0
    repo = Repository(made)
    repo.write([InsertTable(a_table(f"t{i}")) for i in range(300)])
    wal = Path(f"{path}-wal")
    assert wal.stat().st_size > 0
    checkpointer = Checkpointer(made, interval=0.01)
    checkpointer.start()
    checkpointer.stop()  # a last TRUNCATE checkpoint
    assert wal.stat().st_size == 0
    assert len(repo.load_tables()) == 300
    made.dispose()
