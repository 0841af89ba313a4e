"""The tournament driver (server/players/tournaments.py) on SQLite and PostgreSQL, with a
fake clock and fake tables: start or cancel at the start time, rounds and their tables,
results through the tables' end hook, forfeits after the grace period, prizes, the ledger
after each, and a new driver on the same database going on where the first stopped (the
lease that lets one process of a cluster drive: tests/server/cluster/test_cluster_duty.py)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import Engine, text

from ginrummy.rules import Ruleset
from ginrummy.server.play.settlement import Ending, MatchEnd
from ginrummy.server.players.tournaments import (
    TournamentDriver,
    match_table_id,
)
from ginrummy.storage import ledger
from ginrummy.storage.accounts import AccountStore
from ginrummy.storage.ledger import account_wallet
from ginrummy.storage.tournaments import TournamentSettings, TournamentStore
from pg_helpers import migrated_engine, pg_schema

START = datetime(2026, 12, 7, 18, 0, tzinfo=UTC)
GRACE = 60.0


@pytest.fixture(scope="module")
def pg_schema_name() -> Iterator[str]:
    with pg_schema("ginrummy_tdriver") as name:
        yield name


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    made = migrated_engine(request, tmp_path, "tdriver")
    yield made
    made.dispose()


class Clock:
    """A clock the test moves."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def move(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


class FakeTables:
    """The match tables: opened (how many times each), who is connected, closed."""

    def __init__(self) -> None:
        self.players: dict[str, list[int]] = {}
        self.rules: dict[str, Ruleset] = {}
        self.clock_ms: dict[str, int] = {}
        self.opens: Counter[str] = Counter()
        self.away: set[int] = set()
        self.closed: set[str] = set()

    async def open(self, table_id: str, name: str, preset: str, rules: Ruleset,
                   clock_ms: int, accounts: list[tuple[int, str]]) -> None:
        self.opens[table_id] += 1
        self.players.setdefault(table_id, [a for a, _ in accounts])
        self.rules[table_id] = rules
        self.clock_ms[table_id] = clock_ms

    def connected(self, table_id: str) -> set[int] | None:
        if table_id not in self.players:
            return None
        return {p for p in self.players[table_id] if p not in self.away}

    async def close(self, table_id: str) -> None:
        self.closed.add(table_id)


def make_accounts(engine: Engine, count: int) -> list[int]:
    store = AccountStore(engine)
    made = [store.create(f"P{i}", f"p{i}", "not a real hash").id for i in range(count)]
    with engine.begin() as conn:
        for account in made:
            ledger.open_account(conn, account)
    return made


def create(engine: Engine, fmt: str, buy_in: int | None, rounds: int | None = None,
           min_players: int = 2, tid: str = "t1", preset: str = "classic") -> None:
    TournamentStore(engine).create(tid, TournamentSettings(
        name="Evening", format=fmt, preset=preset,
        rules=Ruleset.preset(preset).to_dict(), starts_at=START, min_players=min_players,
        max_players=8, clock_ms=20_000, rounds=rounds, buy_in=buy_in), START - timedelta(1))


def register(engine: Engine, tid: str, players: list[int]) -> None:
    for p in players:
        TournamentStore(engine).register(tid, p, START - timedelta(hours=1))


def tick(driver: TournamentDriver) -> int:
    return asyncio.run(driver.tick())


def finish_table(engine: Engine, driver: TournamentDriver, table_id: str | None,
                 players: list[int], winner: int, penalties: list[int] | None = None) -> None:
    """The table's match ends with ``winner``: the end hook's writes, committed as the
    table's last event would commit them."""
    assert table_id is not None
    seat = players.index(winner)
    table: Any = SimpleNamespace(
        id=table_id, seats=[SimpleNamespace(account_id=p) for p in players],
        match=SimpleNamespace(over=True, scores=[0] * len(players),
                              result=SimpleNamespace(winner=seat, penalties=penalties)))
    ops = driver.table_ended(MatchEnd(table, Ending.OVER))
    assert len(ops) == 1
    with engine.begin() as conn:
        for op in ops:
            op.run(conn)  # type: ignore[union-attr]


def playing(engine: Engine, tid: str) -> list[Any]:
    return [m for m in TournamentStore(engine).matches(tid)
            if m.status in ("playing", "present")]


def rounds_stored(engine: Engine, tid: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT COUNT(*) FROM tournament_rounds WHERE "
                                     "tournament_id = :t"), {"t": tid}).scalar_one())


def ledger_ok(engine: Engine) -> None:
    with engine.connect() as conn:
        report = ledger.check(conn)
    assert report.ok, report.summary()


def balance(engine: Engine, account: int) -> int:
    with engine.connect() as conn:
        return int(ledger.balance(conn, account_wallet(account)) or 0)


def driver_for(engine: Engine, clock: Clock, tables: FakeTables) -> TournamentDriver:
    return TournamentDriver(engine, tables, GRACE, clock)


# ----------------------------------------------------------------------------- tests
def test_nothing_before_the_start_then_too_few_players_cancel_and_refund(engine: Engine
                                                                        ) -> None:
    a, b, c = make_accounts(engine, 3)
    create(engine, "knockout", 100, min_players=4)
    register(engine, "t1", [a, b, c])
    clock = Clock(START - timedelta(seconds=1))
    driver = driver_for(engine, clock, FakeTables())
    assert tick(driver) == 0
    assert TournamentStore(engine).get("t1").status == "open"  # type: ignore[union-attr]
    clock.move(1)
    tick(driver)
    t = TournamentStore(engine).get("t1")
    assert t is not None and t.status == "cancelled" and t.pool == 0
    assert {balance(engine, p) for p in (a, b, c)} == {ledger.SIGNUP_GRANT}
    ledger_ok(engine)
    assert tick(driver) == 0  # a cancelled tournament is left alone


def test_four_player_knockout_from_start_to_prizes(engine: Engine) -> None:
    a, b, c, d = make_accounts(engine, 4)  # all unrated: seeded by account id
    create(engine, "knockout", 100)
    register(engine, "t1", [d, c, b, a])
    clock, tables = Clock(START), FakeTables()
    driver = driver_for(engine, clock, tables)
    tick(driver)
    store = TournamentStore(engine)
    first = playing(engine, "t1")
    assert sorted(m.players for m in first) == [(a, d), (b, c)]  # 1 v 4, 2 v 3
    for m in first:  # each match at its table, the tournament's preset and clock
        assert m.table_id == match_table_id("t1", 0, m.slot)
        assert tables.players[m.table_id] == list(m.players)
        assert tables.clock_ms[m.table_id] == 20_000
        assert tables.rules[m.table_id].players == 2
    ledger_ok(engine)
    one = {m.players: m for m in first}
    finish_table(engine, driver, one[(a, d)].table_id, [a, d], d)  # the underdog
    assert tick(driver) == 0  # the round is not over: nothing to start
    finish_table(engine, driver, one[(b, c)].table_id, [b, c], b)
    tick(driver)
    final = playing(engine, "t1")
    assert [m.players for m in final] == [(b, d)] and final[0].round == 1
    finish_table(engine, driver, final[0].table_id, [b, d], b)
    tick(driver)
    t = store.get("t1")
    assert t is not None and t.status == "over" and t.pool == 0
    places = {r.account_id: (r.place, r.prize) for r in store.registrations("t1")}
    assert places == {b: (1, 200), d: (2, 120), a: (3, 40), c: (3, 40)}
    assert balance(engine, b) == ledger.SIGNUP_GRANT - 100 + 200
    assert balance(engine, c) == ledger.SIGNUP_GRANT - 100 + 40
    assert sum(tables.opens.values()) == 3 and set(tables.opens.values()) == {1}
    ledger_ok(engine)
    assert tick(driver) == 0


def test_four_player_swiss_with_a_buy_in(engine: Engine) -> None:
    players = make_accounts(engine, 4)
    create(engine, "swiss", 50, rounds=3)
    register(engine, "t1", players)
    clock, tables = Clock(START), FakeTables()
    driver = driver_for(engine, clock, tables)
    tick(driver)
    met: set[frozenset[int]] = set()
    for round in range(3):
        matches = playing(engine, "t1")
        assert len(matches) == 2 and {m.round for m in matches} == {round}
        assert sorted(p for m in matches for p in m.players) == sorted(players)
        for m in matches:  # no rematch; the lower account id wins every match
            assert frozenset(m.players) not in met
            met.add(frozenset(m.players))
            finish_table(engine, driver, m.table_id, list(m.players), min(m.players))
        tick(driver)
    store = TournamentStore(engine)
    t = store.get("t1")
    assert t is not None and t.status == "over" and rounds_stored(engine, "t1") == 3
    places = {r.account_id: (r.place, r.prize) for r in store.registrations("t1")}
    first, second, third, fourth = players
    assert places == {first: (1, 100), second: (2, 60), third: (3, 40), fourth: (4, 0)}
    assert balance(engine, first) == ledger.SIGNUP_GRANT + 50
    ledger_ok(engine)


def test_an_absent_player_forfeits_after_the_grace_period(engine: Engine) -> None:
    a, b, c, d = make_accounts(engine, 4)
    create(engine, "knockout", None)
    register(engine, "t1", [a, b, c, d])
    clock, tables = Clock(START), FakeTables()
    driver = driver_for(engine, clock, tables)
    tables.away = {a}  # the top seed never comes
    tick(driver)
    clock.move(GRACE - 1)
    tick(driver)
    assert len(playing(engine, "t1")) == 2  # not yet
    clock.move(1)
    tick(driver)
    store = TournamentStore(engine)
    done = {m.players: m for m in store.matches("t1", 0)}
    assert done[(a, d)].status == "forfeit" and done[(a, d)].winner == d
    assert done[(b, c)].status == "present"  # both came: played to the end
    assert match_table_id("t1", 0, done[(a, d)].slot) in tables.closed
    finish_table(engine, driver, done[(b, c)].table_id, [b, c], c)
    tick(driver)
    assert [m.players for m in playing(engine, "t1")] == [(c, d)]


def test_a_new_driver_goes_on_where_the_first_stopped(engine: Engine) -> None:
    a, b, c, d = make_accounts(engine, 4)
    create(engine, "knockout", 100)
    register(engine, "t1", [a, b, c, d])
    clock, tables = Clock(START), FakeTables()
    first = driver_for(engine, clock, tables)
    tick(first)
    matches = playing(engine, "t1")
    finish_table(engine, first, matches[0].table_id, list(matches[0].players),
                 matches[0].players[0])
    second = driver_for(engine, clock, FakeTables())  # a new process: no table loaded yet
    tick(second)
    assert rounds_stored(engine, "t1") == 1  # round 0 not started again
    left = playing(engine, "t1")
    assert [m.slot for m in left] == [matches[1].slot]
    assert set(second.tables.opens) == {left[0].table_id}  # type: ignore[attr-defined]
    finish_table(engine, second, left[0].table_id, list(left[0].players),
                 left[0].players[0])
    finish_table(engine, first, left[0].table_id, list(left[0].players),
                 left[0].players[1])  # a second end of the same match changes nothing
    tick(second)
    final = playing(engine, "t1")
    assert len(final) == 1 and final[0].round == 1
    finish_table(engine, second, final[0].table_id, list(final[0].players),
                 final[0].players[0])
    tick(second)
    assert TournamentStore(engine).get("t1").status == "over"  # type: ignore[union-attr]
    assert rounds_stored(engine, "t1") == 2
    ledger_ok(engine)


def test_an_arena_series_with_a_buy_in(engine: Engine) -> None:
    players = make_accounts(engine, 4)
    create(engine, "arena", 100, rounds=2, preset="arena")
    register(engine, "t1", players)
    clock, tables = Clock(START), FakeTables()
    driver = driver_for(engine, clock, tables)
    tick(driver)
    for round in range(2):
        (table,) = playing(engine, "t1")  # one table of four, single hands
        assert table.round == round and len(table.players) == 4
        assert tables.rules[table.table_id].players == 4  # type: ignore[index]
        seated = list(table.players)
        # the last seat wins each hand; the others take 10, 20, 30 penalty points
        finish_table(engine, driver, table.table_id, seated, seated[-1], [10, 20, 30, 0])
        tick(driver)
    store = TournamentStore(engine)
    t = store.get("t1")
    assert t is not None and t.status == "over" and t.pool == 0
    prizes = {r.account_id: r.prize or 0 for r in store.registrations("t1")}
    places = {r.account_id: r.place for r in store.registrations("t1")}
    assert sum(prizes.values()) == 400
    leader = next(p for p, place in places.items() if place == 1)
    assert prizes[leader] >= 300 and sorted(places.values()) == [1, 2, 3, 4]
    ledger_ok(engine)
