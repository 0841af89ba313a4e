"""A Hypothesis state machine drives a tournament through the driver on SQLite: random
registrations and withdrawals, the clock moving (the start or the cancellation, forfeits),
match results with any winner, players absent, cancellations, and restarts (a new driver,
with tables it has not loaded, on the same database; the old one's lock given back). After
every step: ``ledger check`` holds, the prize pool holds exactly what it should, each round
and each table exists once, no player plays twice in a round, and a finished tournament
placed every player and handed out the whole pool.

A restart here is a new driver in the same process, not a SIGKILL of a server: the SIGKILL of
``ginrummy serve`` mid-tournament is tests/server/test_tournament_crash.py, and the state
machine with real SIGKILLs (soak) tests/server/test_tournament_machine_kill.py."""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from sqlalchemy import text
from test_tournament_driver import (
    GRACE,
    START,
    Clock,
    FakeTables,
    create,
    finish_table,
    make_accounts,
)

from ginrummy.server.players.tournaments import TournamentDriver
from ginrummy.storage import ledger, migrate, open_engine
from ginrummy.storage.ledger import Overdraft
from ginrummy.storage.tournaments import TournamentError, TournamentStore

pytestmark = pytest.mark.slow


class TournamentMachine(RuleBasedStateMachine):
    """One tournament, six accounts, a driver that may be replaced at any step."""

    def __init__(self) -> None:
        super().__init__()
        self.tmp = tempfile.TemporaryDirectory()
        self.engine = open_engine(f"sqlite:///{Path(self.tmp.name) / 'machine.db'}")
        migrate(self.engine)
        self.store = TournamentStore(self.engine)
        self.accounts = make_accounts(self.engine, 6)
        self.clock = Clock(START - timedelta(seconds=30))
        self.tables = FakeTables()
        self.driver = TournamentDriver(self.engine, self.tables, GRACE, self.clock)
        self.buy_in: int | None = None

    def teardown(self) -> None:
        self.engine.dispose()
        self.tmp.cleanup()

    @initialize(fmt=st.sampled_from(["knockout", "swiss"]),
                buy_in=st.sampled_from([None, 50, 400]), early=st.integers(0, 6))
    def make(self, fmt: str, buy_in: int | None, early: int) -> None:
        create(self.engine, fmt, buy_in, rounds=3 if fmt == "swiss" else None, min_players=3)
        self.buy_in = buy_in
        for who in range(early):  # registered before the machine's first step
            self.register(who)

    def tick(self) -> None:
        asyncio.run(self.driver.tick())

    # ----------------------------------------------------------------- rules
    @rule(who=st.integers(0, 5))
    def register(self, who: int) -> None:
        with contextlib.suppress(TournamentError, Overdraft):
            self.store.register("t1", self.accounts[who], self.clock())

    @rule(count=st.integers(3, 6))
    def a_crowd_registers(self, count: int) -> None:
        for who in range(count):
            self.register(who)

    @rule(who=st.integers(0, 5))
    def withdraw(self, who: int) -> None:
        with contextlib.suppress(TournamentError):
            self.store.withdraw("t1", self.accounts[who], self.clock())

    @rule(seconds=st.sampled_from([1, 30, GRACE, 1800]))
    def time_passes(self, seconds: float) -> None:
        self.clock.move(seconds)
        self.tick()

    @rule(pick=st.integers(0, 7), first_wins=st.booleans())
    def a_match_ends(self, pick: int, first_wins: bool) -> None:
        live = [m for m in self.store.matches("t1") if m.status in ("playing", "present")]
        if not live:
            return
        m = live[pick % len(live)]
        event(f"a result in round {m.round}")
        winner = m.players[0] if first_wins else m.players[-1]
        finish_table(self.engine, self.driver, m.table_id, list(m.players), winner)
        self.tick()

    @rule(who=st.sets(st.integers(0, 5), max_size=3))
    def some_stay_away(self, who: set[int]) -> None:
        self.tables.away = {self.accounts[i] for i in who}

    @rule()
    def restart(self) -> None:
        tables = FakeTables()
        tables.players = dict(self.tables.players)  # the stored tables are restored
        self.tables = tables
        self.driver = TournamentDriver(self.engine, tables, GRACE, self.clock)
        self.tick()

    @rule(roll=st.integers(0, 9))
    def cancel(self, roll: int) -> None:
        if roll:  # rarely: a cancelled tournament has nothing more to show
            return
        with contextlib.suppress(TournamentError):
            self.store.cancel("t1", self.clock())

    # ----------------------------------------------------------------- invariants
    @invariant()
    def the_ledger_holds(self) -> None:
        with self.engine.connect() as conn:
            report = ledger.check(conn)
        assert report.ok, report.summary()

    @invariant()
    def the_pool_holds_what_it_should(self) -> None:
        t = self.store.get("t1")
        if t is None:
            return
        event(f"status {t.status}")
        registered = self.store.registrations("t1")
        if t.status in ("open", "running"):
            assert t.pool == (self.buy_in or 0) * len(registered)
        else:
            assert t.pool == 0
        if t.status == "over":
            places = [r.place for r in registered]
            assert None not in places and min(p for p in places if p) == 1
            assert sum(r.prize or 0 for r in registered) == (self.buy_in or 0) * len(registered)

    @invariant()
    def each_round_and_table_once(self) -> None:
        matches = self.store.matches("t1")
        tables = [m.table_id for m in matches if m.table_id]
        assert len(tables) == len(set(tables))
        registered = {r.account_id for r in self.store.registrations(
            "t1", ("registered", "refunded"))}  # a running tournament cancelled: refunded
        by_round: dict[int, list[int]] = {}
        for m in matches:
            by_round.setdefault(m.round, []).extend(m.players)
            assert set(m.players) <= registered
        for players in by_round.values():
            assert len(players) == len(set(players))
        assert all(count == 1 for count in self.tables.opens.values())
        with self.engine.connect() as conn:
            rounds = conn.execute(text("SELECT round FROM tournament_rounds")).scalars().all()
        assert sorted(rounds) == list(range(len(rounds)))


class TestTournamentMachine(TournamentMachine.TestCase):  # type: ignore[name-defined,misc]
    """15 runs of up to 40 steps (about 4 s of CPU): the default run."""

    settings = settings(max_examples=15, stateful_step_count=40, deadline=None,
                        suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.soak
class TestTournamentMachineLonger(TournamentMachine.TestCase):  # type: ignore[name-defined,misc]
    """60 runs of up to 40 steps (about 15 s of CPU): in the soak tests (scripts/soak,
    .ci/run)."""

    settings = settings(max_examples=60, stateful_step_count=40, deadline=None,
                        suppress_health_check=[HealthCheck.too_slow])
