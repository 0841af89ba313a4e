"""Friendships and blocks in the database, on SQLite and on the machine's PostgreSQL: a
request, its acceptance (or two requests that meet), decline, removal, blocks ending a
friendship and refusing new requests; every refused change writes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from ginrummy.storage.accounts import AccountStore
from ginrummy.storage.friends import (
    AlreadyFriends,
    AlreadyRequested,
    Blocked,
    FriendStore,
    NoSuchRequest,
    NotFriends,
    Yourself,
    blocked_by_any,
)
from pg_helpers import migrated_engine, pg_schema


@pytest.fixture(scope="module")
def pg_schema_name() -> Iterator[str]:
    with pg_schema("ginrummy_friends") as name:
        yield name


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    made = migrated_engine(request, tmp_path, "friends")
    yield made
    made.dispose()


def accounts(engine: Engine, *names: str) -> list[int]:
    store = AccountStore(engine)
    return [store.create(name, name.lower(), "not a real hash").id for name in names]


def names(people: list) -> list[str]:  # type: ignore[type-arg]
    return [p.name for p in people]


def test_request_accept_remove(engine: Engine) -> None:
    ann, bob, cy = accounts(engine, "Ann", "Bob", "Cy")
    store = FriendStore(engine)
    assert store.request(ann, bob) == "requested"
    assert names(store.lists(ann).outgoing) == ["Bob"]
    assert names(store.lists(bob).incoming) == ["Ann"]
    with pytest.raises(AlreadyRequested):
        store.request(ann, bob)
    with pytest.raises(NoSuchRequest):
        store.accept(ann, bob)  # one's own request is not accepted by its sender
    store.accept(bob, ann)
    assert names(store.lists(ann).friends) == ["Bob"]
    assert store.friend_ids(bob) == {ann}
    assert store.are_friends(ann, bob) and not store.are_friends(ann, cy)
    with pytest.raises(AlreadyFriends):
        store.request(bob, ann)
    store.remove(bob, ann)
    assert store.lists(ann).friends == [] and store.friend_ids(bob) == set()
    with pytest.raises(NotFriends):
        store.remove(ann, bob)


def test_requests_that_meet_make_friends_and_decline_withdraws(engine: Engine) -> None:
    ann, bob, cy = accounts(engine, "Ann", "Bob", "Cy")
    store = FriendStore(engine)
    store.request(ann, bob)
    assert store.request(bob, ann) == "accepted"
    assert store.are_friends(ann, bob)
    store.request(cy, ann)
    store.decline(ann, cy)
    assert store.lists(cy).outgoing == [] and store.lists(ann).incoming == []
    with pytest.raises(NoSuchRequest):
        store.decline(ann, cy)
    store.request(cy, ann)
    store.decline(cy, ann)  # withdrawn by its sender
    assert store.lists(ann).incoming == []
    with pytest.raises(Yourself):
        store.request(ann, ann)


def test_a_block_ends_the_friendship_and_refuses_requests_both_ways(engine: Engine) -> None:
    ann, bob, cy = accounts(engine, "Ann", "Bob", "Cy")
    store = FriendStore(engine)
    store.request(ann, bob)
    store.accept(bob, ann)
    assert store.block(ann, bob) is True
    assert store.block(ann, bob) is False
    assert not store.are_friends(ann, bob)
    assert names(store.lists(ann).blocked) == ["Bob"] and store.lists(bob).blocked == []
    assert store.blocked_ids(ann) == {bob} and store.blocks(ann, bob)
    for asker, asked in ((bob, ann), (ann, bob)):
        with pytest.raises(Blocked):
            store.request(asker, asked)
    assert store.lists(ann).outgoing == [] and store.lists(bob).outgoing == []
    with engine.connect() as conn:
        assert blocked_by_any(conn, bob, [ann, cy])
        assert not blocked_by_any(conn, cy, [ann, bob])
        assert not blocked_by_any(conn, ann, [ann])
    with pytest.raises(Yourself):
        store.block(ann, ann)
    assert store.unblock(ann, bob) is True and store.unblock(ann, bob) is False
    assert store.request(bob, ann) == "requested"


def test_the_tournament_of_a_table_playing_a_match(engine: Engine) -> None:
    from datetime import UTC, datetime

    from sqlalchemy import insert

    from ginrummy.storage.models import TournamentMatchRow, TournamentRoundRow, TournamentRow

    now = datetime(2026, 12, 7, tzinfo=UTC)
    with engine.begin() as conn:
        conn.execute(insert(TournamentRow.__table__).values(
            id="cup", name="Cup", format="knockout", preset="classic", rules="{}",
            min_players=2, max_players=8, clock_ms=30_000, starts_at=now, status="running",
            version=1, created_at=now, updated_at=now))
        conn.execute(insert(TournamentRoundRow.__table__).values(
            tournament_id="cup", round=1, started_at=now))
        conn.execute(insert(TournamentMatchRow.__table__), [
            {"tournament_id": "cup", "round": 1, "slot": slot, "players": "[]",
             "table_id": table, "status": status, "updated_at": now}
            for slot, (table, status) in enumerate((("T1", "playing"), ("T2", "done")))])
    store = FriendStore(engine)
    assert store.tournaments_of(["T1", "T2", "T3"]) == {"T1": "cup"}
    assert store.tournaments_of([]) == {}
