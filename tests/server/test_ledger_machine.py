"""Not one chip made or lost: a Hypothesis state machine plays random arena tables with
buy-ins, joins, leaves, hands played out, tables closed and abandoned, daily top-ups and
replayed settlements, killing the server process with SIGKILL between any two commits (or
at a random moment) and retrying what it was doing, on SQLite and on the machine's
PostgreSQL; after every step ``ginrummy ledger check`` must hold, and every open pool must
hold exactly the buy-ins of the accounts seated at its table.

The process that commits is a real child process: the server's own lobby, table writers,
group committer and chips hooks on the test's database, driven by commands over a pipe.
Each of its commits is reported (``C``) and waits for the test's ``go``, so the test can
SIGKILL it right after any commit, or at a random moment; a new child then restores the
tables from the database, as ``ginrummy serve`` does after a crash, and the command is sent
again.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import queue
import random
import secrets
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from ginrummy.cli.ledger import check_database
from ginrummy.server.play.table import GameTable
from ginrummy.server.players.names import name_key
from ginrummy.storage import Repository, migrate, open_engine
from ginrummy.storage.accounts import AccountStore

pytestmark = pytest.mark.slow

PG_URL = os.environ.get("GINRUMMY_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
ACCOUNTS = ("Ann", "Bob", "Cat", "Dan", "Eve")
BUY_INS = (50, 100, 300, 700)
FIRST_DAY = date(2026, 12, 1)
STATS: Counter[str] = Counter()
"""What the machine's runs did (printed by the tests: ``-s`` shows it)."""


# ============================================================================ the child
@dataclass(eq=False)
class Player:
    """A seat's stand-in connection inside the child: it keeps what it is sent."""

    seat: int | None
    protocol: int = 2
    name: str = ""
    account_id: int | None = None
    sent: list[Any] = field(default_factory=list)

    def send(self, message: Any) -> None:
        self.sent.append(message)

    def close(self, code: int = 1000, reason: str = "") -> None:
        self.sent.append(("close", code, reason))


class Handshake:
    """Reports each commit of the child to the test and waits for its ``go``."""

    def __init__(self, pipe: Connection) -> None:
        self.pipe = pipe
        self.active = False

    def committed(self) -> None:
        if not self.active:  # a timer's commit between two commands: not paused
            return
        self.pipe.send("C")
        if self.pipe.recv() != "go":
            os._exit(3)


def run_child(url: str, pipe: Connection) -> None:
    """The child: the server's lobby and chips hooks on ``url``, commands from ``pipe``."""
    from ginrummy.server.core.settings import Settings
    from ginrummy.server.play.committer import GroupCommitter
    from ginrummy.server.play.lobby import Lobby
    from ginrummy.server.players.chips import Chips
    from ginrummy.storage import Repository, open_engine

    handshake = Handshake(pipe)

    class ReportingRepository(Repository):
        def write(self, ops: Sequence[Any]) -> None:
            super().write(ops)
            handshake.committed()

        def write_each(self, writes: Sequence[Sequence[Any]]) -> list[BaseException | None]:
            errors = super().write_each(writes)
            handshake.committed()
            return errors

    async def main() -> None:
        settings = Settings(db=url, bot_delay_ms=0, between_hands_seconds=0, default_bot="simple",
                            hold_seconds=3600, abandon_after_seconds=10**6,
                            unload_after_seconds=10**6, log_level="error")
        engine = open_engine(url)  # migrated by the test, once
        repository = ReportingRepository(engine)
        committer = GroupCommitter(repository)
        committer.start()
        lobby = Lobby(settings, repository, committer)
        Chips(engine).install(lobby.hooks)
        await lobby.restore()
        loop = asyncio.get_running_loop()
        pipe.send("READY")
        while True:
            try:
                cmd = await loop.run_in_executor(None, pipe.recv)
            except EOFError:
                break
            handshake.active = True
            try:
                answer = await command(lobby, committer, cmd)
            except Exception as exc:  # reported to the test, which fails on it
                answer = {"crash": f"{type(exc).__name__}: {exc}"}
            handshake.active = False
            pipe.send(answer)
        lobby.close()
        await committer.close()

    asyncio.run(main())


async def command(lobby: Any, committer: Any, cmd: dict[str, Any]) -> dict[str, Any]:
    """Run one command of the test in the child."""
    from ginrummy.server.core.protocol import ActionMessage, CreateTable, JoinTable
    from ginrummy.server.play.lobby import LobbyError
    from ginrummy.server.play.settlement import Ending, MatchEnd
    from ginrummy.server.play.table import GameTable
    from ginrummy.server.players.chips import pay_buy_in
    from ginrummy.storage import Apply, ledger

    op = cmd["op"]
    account = None if "name" not in cmd else (cmd["account"], cmd["name"])
    try:
        if op == "create":
            body = CreateTable(nickname=cmd["name"], preset="arena", players=cmd["players"],
                               buy_in=cmd["buy_in"])
            created = await lobby.create(body, None, account)
            return {"ok": True, "table": created["table_id"]}
        if op == "join":
            await lobby.join(cmd["table"], JoinTable(nickname=cmd["name"]), account)
            return {"ok": True}
        writer = await lobby.load(cmd.get("table", ""))
        if op == "leave":
            if writer is None:
                return {"ok": False, "code": "not_found"}
            seat = next((s.seat for s in writer.table.seats if s.account_id == cmd["account"]),
                        None)
            if seat is None:
                return {"ok": False, "code": "not_seated"}
            await writer.leave(seat)
            return {"ok": True}
        if op == "play":
            return await play(writer, cmd["actions"], random.Random(cmd["seed"]),
                              ActionMessage)
        if op == "close":
            await writer.close_for_good()
            return {"ok": True}
        if op == "abandon":
            await writer._abandon_timeout(0)  # the idle timer's own callback
            return {"ok": writer.table.status == "abandoned"}
        if op == "topup":
            when = datetime.fromisoformat(cmd["day"]).replace(hour=12, tzinfo=UTC)
            got: list[int] = []
            await committer.commit([Apply(lambda conn: got.append(
                ledger.claim_topup(conn, cmd["account"], when)))])
            return {"ok": True, "received": got[0]}
        if op == "replay_end":  # a settlement replayed: its keys are found, nothing moves
            stored = await asyncio.get_running_loop().run_in_executor(
                None, lobby.repository.load_table, cmd["table"])
            table = GameTable.from_stored(stored)
            ending = Ending.OVER if stored.status == "over" else Ending.CLOSED
            await committer.commit(lobby.hooks.end(MatchEnd(table, ending)))
            return {"ok": True}
        if op == "replay_buy_in":
            moved: list[bool] = []
            await committer.commit([Apply(lambda conn: moved.append(pay_buy_in(
                conn, cmd["table"], cmd["version"], cmd["seat"], cmd["account"],
                cmd["amount"])))])
            return {"ok": True, "moved": moved[0]}
    except LobbyError as exc:
        return {"ok": False, "code": exc.code}
    except LookupError as exc:
        return {"ok": False, "code": str(exc.args[0]) if exc.args else "lookup"}
    raise ValueError(f"unknown command {op!r}")


async def play(writer: Any, actions: int, rng: random.Random, message: Any) -> dict[str, Any]:
    """Play up to ``actions`` moves of every seat (the simple computer's, now and then a
    random legal one) through the writer's own path for a client's action."""
    played = 0
    idle = 0
    while writer is not None and played < actions and idle < 100:
        table = writer.table
        hand = table.running_hand()
        if table.status != "playing" or table.match is None or table.match.over:
            break
        if hand is None or hand.to_move < 0:  # a deal or a reshuffle is due: it comes
            idle += 1
            await asyncio.sleep(0.01)
            continue
        seat = hand.to_move
        if rng.random() < 0.1:  # now and then a random move, else the simple computer's
            action = str(rng.choice(hand.legal_actions()))
        else:
            action = str(await writer.computer.choose(table, table.seats[seat]))
        player = Player(seat)
        await writer.handle_action(player, message(type="action", id=f"m{table.version}",
                                                   version=table.version, action=action))
        played += 1
    return {"ok": True, "played": played}


# ============================================================================ the test side


PROCESSES = multiprocessing.get_context("fork")
"""Children are forked from this process, which has imported the server's modules already:
a child starts in milliseconds, not seconds, and each is a process of its own to SIGKILL
(the child opens its own database engine and never touches this process's)."""


class Child:
    """The committing process, seen from the test: start, command, kill."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.proc: Any = None
        self.pipe: Connection | None = None
        self.kills = 0
        self.commits = 0
        self.started = 0
        self.start_seconds = 0.0

    def start(self) -> None:
        began = time.monotonic()
        mine, theirs = PROCESSES.Pipe()
        self.proc = PROCESSES.Process(target=run_child, args=(self.url, theirs), daemon=True)
        self.proc.start()
        theirs.close()
        self.pipe = mine
        first = self._receive(120)
        if first != "READY":
            raise AssertionError(f"the child did not start: {first!r}")
        self.started += 1
        self.start_seconds += time.monotonic() - began

    def _receive(self, timeout: float) -> Any:
        assert self.pipe is not None
        if not self.pipe.poll(timeout):
            raise queue.Empty
        return self.pipe.recv()

    def kill(self, counted: bool = True) -> None:
        """SIGKILL the child, wherever it is."""
        assert self.proc is not None and self.pipe is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.join(30)
        assert self.proc.exitcode == -signal.SIGKILL
        self.pipe.close()
        self.kills += counted
        self.proc = self.pipe = None

    def stop(self) -> None:
        """The end of a run (not counted as a crash)."""
        if self.proc is not None:
            self.kill(counted=False)

    def run(self, cmd: dict[str, Any], kill_after: int | None = None,
            kill_at: float | None = None) -> dict[str, Any] | None:
        """Send a command and answer its commits. ``kill_after``: SIGKILL right after that
        many commits of it; ``kill_at``: SIGKILL after that many seconds, wherever it is.
        The answer, or ``None`` when the child was killed first."""
        if self.proc is None:
            self.start()
        assert self.pipe is not None
        self.pipe.send(cmd)
        deadline = None if kill_at is None else time.monotonic() + kill_at
        seen = 0
        while True:
            wait = 120.0 if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                message = self._receive(wait)
            except queue.Empty:
                if deadline is None:
                    raise AssertionError(f"the child is stuck on {cmd}") from None
                self.kill()
                return None
            except EOFError:
                raise AssertionError(f"the child died on {cmd}") from None
            if message == "C":
                seen += 1
                self.commits += 1
                if kill_after is not None and seen > kill_after:
                    self.kill()  # this commit is durable; the next never happens
                    return None
                self.pipe.send("go")
                continue
            answer: dict[str, Any] = message
            assert "crash" not in answer, f"{cmd}: {answer['crash']}"
            return answer


def kill_plans() -> Any:
    """No kill (most steps), a SIGKILL right after the n-th commit of a command, or one at a
    random moment (possibly inside a transaction)."""
    return st.one_of(st.just(("none", 0.0)), st.just(("none", 0.0)),
                     st.tuples(st.just("after"), st.integers(0, 3).map(float)),
                     st.tuples(st.just("at"), st.floats(0.0, 0.02)))


class LedgerMachine(RuleBasedStateMachine):
    """Random arena tables with buy-ins against a child process that is killed at will."""

    url: str = ""

    def __init__(self) -> None:
        super().__init__()
        self.child = Child(self.url)
        self.engine = open_engine(self.url)
        self.accounts: list[int] = []
        self.day = FIRST_DAY
        self.steps = 0

    @initialize(creator=st.integers(0, len(ACCOUNTS) - 1), players=st.integers(2, 4),
                buy_in=st.sampled_from(BUY_INS))
    def start(self, creator: int, players: int, buy_in: int) -> None:
        """An empty database, the accounts, the child, and a first table."""
        reset_database(self.engine)
        store = AccountStore(self.engine)
        self.accounts = [store.create(n, name_key(n), "not a real hash").id for n in ACCOUNTS]
        self.child.start()
        self.create(creator, players, buy_in, ("none", 0.0))

    def teardown(self) -> None:
        self.child.stop()
        STATS["runs"] += 1
        STATS["steps"] += self.steps
        STATS["kills"] += self.child.kills
        STATS["commits"] += self.child.commits
        if self.accounts:
            STATS["tables"] += len(self.tables())
            for status in ("over", "abandoned", "closed"):
                STATS[status] += len(self.tables(status))
        try:
            if self.accounts:  # the command itself, once per run
                done = subprocess.run(
                    [sys.executable, "-m", "ginrummy.cli.main", "ledger", "check", "--db",
                     self.url], capture_output=True, text=True, timeout=120)
                assert done.returncode == 0, done.stdout + done.stderr
                assert "ledger check: OK" in done.stdout
        finally:
            self.engine.dispose()

    # ------------------------------------------------------------------ helpers
    def name(self, account: int) -> str:
        return ACCOUNTS[self.accounts.index(account)]

    def tables(self, *statuses: str) -> list[str]:
        query = "SELECT id FROM game_tables"
        if statuses:
            query += " WHERE status IN (" + ", ".join(f"'{s}'" for s in statuses) + ")"
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(text(query + " ORDER BY created_at, id"))]

    def pick(self, index: int, *statuses: str) -> str | None:
        found = self.tables(*statuses)
        return found[index % len(found)] if found else None

    def balances(self) -> dict[str, int]:
        with self.engine.connect() as conn:
            return {w: b for w, b in conn.execute(text("SELECT id, balance FROM wallets"))}

    def step(self, cmd: dict[str, Any], kill: tuple[str, float]) -> dict[str, Any]:
        """Run a command under a kill plan; after a kill, start again and retry it."""
        self.steps += 1
        mode, amount = kill
        answer = self.child.run(cmd, kill_after=int(amount) if mode == "after" else None,
                                kill_at=amount if mode == "at" else None)
        if answer is None:  # killed: a new process restores the tables, the command again
            self.child.start()
            answer = self.child.run(cmd)
            assert answer is not None
        if os.environ.get("LEDGER_MACHINE_DEBUG"):
            print(cmd, kill, answer)
        return answer

    # ------------------------------------------------------------------ rules
    @rule(creator=st.integers(0, len(ACCOUNTS) - 1), players=st.integers(2, 4),
          buy_in=st.sampled_from(BUY_INS), kill=kill_plans())
    def create(self, creator: int, players: int, buy_in: int,
               kill: tuple[str, float]) -> None:
        account = self.accounts[creator]
        self.step({"op": "create", "account": account, "name": self.name(account),
                   "players": players, "buy_in": buy_in}, kill)

    @precondition(lambda self: bool(self.tables("waiting")))
    @rule(table=st.integers(0, 50), first=st.integers(0, len(ACCOUNTS) - 1),
          kill=kill_plans())
    def fill(self, table: int, first: int, kill: tuple[str, float]) -> None:
        """Every empty seat of a table taken, one account after another (the first join
        under the kill plan), so that matches start and end."""
        table_id = self.pick(table, "waiting")
        with self.engine.connect() as conn:
            empty = conn.execute(text("SELECT COUNT(*) FROM seats WHERE table_id = :t AND "
                                      "kind = 'empty'"), {"t": table_id}).scalar_one()
        order = self.accounts[first:] + self.accounts[:first]
        for account in order[:empty + 1]:
            self.step({"op": "join", "table": table_id, "account": account,
                       "name": self.name(account)}, kill)
            kill = ("none", 0.0)

    @precondition(lambda self: bool(self.tables("waiting")))
    @rule(table=st.integers(0, 50), who=st.integers(0, len(ACCOUNTS) - 1), kill=kill_plans())
    def join(self, table: int, who: int, kill: tuple[str, float]) -> None:
        account = self.accounts[who]
        self.step({"op": "join", "table": self.pick(table, "waiting"), "account": account,
                   "name": self.name(account)}, kill)

    @precondition(lambda self: bool(self.tables("waiting")))
    @rule(table=st.integers(0, 50), who=st.integers(0, len(ACCOUNTS) - 1), kill=kill_plans())
    def leave(self, table: int, who: int, kill: tuple[str, float]) -> None:
        self.step({"op": "leave", "table": self.pick(table, "waiting"),
                   "account": self.accounts[who]}, kill)

    @precondition(lambda self: bool(self.tables("playing")))
    @rule(table=st.integers(0, 50), actions=st.integers(5, 200), seed=st.integers(0, 2**16),
          kill=kill_plans())
    def play(self, table: int, actions: int, seed: int, kill: tuple[str, float]) -> None:
        self.step({"op": "play", "table": self.pick(table, "playing"), "actions": actions,
                   "seed": seed}, kill)

    @precondition(lambda self: bool(self.tables("waiting", "playing")))
    @rule(table=st.integers(0, 50), abandon=st.booleans(), kill=kill_plans())
    def end_unfinished(self, table: int, abandon: bool, kill: tuple[str, float]) -> None:
        self.step({"op": "abandon" if abandon else "close",
                   "table": self.pick(table, "waiting", "playing")}, kill)

    @rule(who=st.integers(0, len(ACCOUNTS) - 1), next_day=st.booleans(), kill=kill_plans())
    def topup(self, who: int, next_day: bool, kill: tuple[str, float]) -> None:
        if next_day:
            self.day += timedelta(days=1)
        before = self.balances()
        account = self.accounts[who]
        answer = self.step({"op": "topup", "account": account, "day": self.day.isoformat()},
                           kill)
        wallet = f"account:{account}"
        after = self.balances()
        assert after.get(wallet, 0) <= max(1000, before.get(wallet, 0)), "a top-up went past"
        assert answer["ok"]

    @precondition(lambda self: bool(self.tables("over", "abandoned", "closed")))
    @rule(table=st.integers(0, 50), kill=kill_plans())
    def replay_settlement(self, table: int, kill: tuple[str, float]) -> None:
        before = self.balances()
        self.step({"op": "replay_end",
                   "table": self.pick(table, "over", "abandoned", "closed")}, kill)
        assert self.balances() == before, "a replayed settlement moved chips"

    @precondition(lambda self: bool(self.buy_in_keys()))
    @rule(index=st.integers(0, 50), kill=kill_plans())
    def replay_buy_in(self, index: int, kill: tuple[str, float]) -> None:
        keys = self.buy_in_keys()
        key, account, amount = keys[index % len(keys)]
        _, table_id, version, seat = key.split(":")
        before = self.balances()
        answer = self.step({"op": "replay_buy_in", "table": table_id, "version": int(version),
                            "seat": int(seat), "account": account, "amount": amount}, kill)
        assert answer["moved"] is False, f"buy-in {key} was paid twice"
        assert self.balances() == before

    def buy_in_keys(self) -> list[tuple[str, int, int]]:
        with self.engine.connect() as conn:
            rows = conn.execute(text(
                "SELECT t.key, e.wallet_id, -e.amount FROM transfers t JOIN ledger_entries e "
                "ON e.transfer_key = t.key WHERE t.kind = 'buy_in' AND e.wallet_id LIKE "
                "'account:%' ORDER BY t.key")).all()
        return [(k, int(w.split(":")[1]), int(a)) for k, w, a in rows]

    # ------------------------------------------------------------------ invariants
    @invariant()
    def not_one_chip_made_or_lost(self) -> None:
        if not self.accounts:
            return
        report = check_database(self.url)
        assert report.ok, report.problems
        with self.engine.connect() as conn:
            open_tables = conn.execute(text(
                "SELECT t.id, t.buy_in, COALESCE(w.balance, 0), (SELECT COUNT(*) FROM seats s "
                "WHERE s.table_id = t.id AND s.account_id IS NOT NULL) FROM game_tables t "
                "LEFT JOIN wallets w ON w.id = 'pool:' || t.id "
                "WHERE t.status IN ('waiting', 'playing')")).all()
        for table_id, buy_in, pool, seated in open_tables:
            assert pool == buy_in * seated, \
                f"pool:{table_id} holds {pool}, not {seated} buy-ins of {buy_in}"


def reset_database(engine: Any) -> None:
    """An empty, migrated database (a fresh PostgreSQL schema, or SQLite's tables dropped)."""
    if engine.dialect.name == "postgresql":
        schema = engine.url.query["options"].split("=", 1)[1]
        with engine.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    else:
        path = Path(engine.url.database)
        engine.dispose()
        for suffix in ("", "-wal", "-shm", "-journal"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
    migrate(engine)


MACHINE_SETTINGS = settings(max_examples=int(os.environ.get("LEDGER_MACHINE_EXAMPLES", 3)),
                            stateful_step_count=int(os.environ.get("LEDGER_MACHINE_STEPS", 20)),
                            deadline=None, suppress_health_check=list(HealthCheck))
"""A few runs of a dozen steps each by default (about 20 s a database on this machine);
``LEDGER_MACHINE_EXAMPLES`` and ``LEDGER_MACHINE_STEPS`` ask for more."""


def run_machine(url: str) -> None:
    STATS.clear()
    machine = type("Machine", (LedgerMachine,), {"url": url})
    machine.TestCase.settings = MACHINE_SETTINGS
    machine.TestCase().runTest()
    print(f"ledger machine on {url.split(':')[0]}: {dict(STATS)}")


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database of each kind (PostgreSQL: a schema of its own, dropped
    after the test; skipped, saying why, when the server is unreachable)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
        return
    try:
        admin = open_engine(PG_URL)
        with admin.connect() as conn:
            conn.execute(text("SELECT 1"))
    except OperationalError as exc:
        pytest.skip(f"PostgreSQL at {PG_URL} is unreachable: {exc.orig}")
    schema = f"ginrummy_ledger_{secrets.token_hex(6)}"
    try:
        yield f"{PG_URL}?options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


def test_the_ledger_holds_through_random_tables_and_crashes(database_url: str) -> None:
    run_machine(database_url)
    assert STATS["runs"] >= 1


def test_a_match_killed_every_few_commits_pays_out_exactly_once(database_url: str) -> None:
    engine = open_engine(database_url)
    try:
        reset_database(engine)
        store = AccountStore(engine)
        ann, bob, cat = (store.create(n, name_key(n), "not a real hash").id
                         for n in ("Ann", "Bob", "Cat"))
    finally:
        engine.dispose()
    child = Child(database_url)
    child.start()
    rng = random.Random(12)
    budget = [rng.randint(0, 3)]  # commits to let through before the next SIGKILL

    def step(cmd: dict[str, Any]) -> dict[str, Any]:
        """Run a command; SIGKILL the child right after every few commits (a random 1 to 4),
        and each time retry the command on a new child, checking the ledger, until it
        answers."""
        while True:
            before = child.commits
            answer = child.run(cmd, kill_after=budget[0])
            if answer is not None:
                budget[0] = max(0, budget[0] - (child.commits - before))
                return answer
            report = check_database(database_url)
            assert report.ok, report.problems
            child.start()
            budget[0] = rng.randint(0, 3)

    reader = Repository(open_engine(database_url))
    table_id = step({"op": "create", "account": ann, "name": "Ann", "players": 3,
                     "buy_in": 100})["table"]
    for account, name in ((bob, "Bob"), (cat, "Cat")):
        joined = step({"op": "join", "table": table_id, "account": account, "name": name})
        if not joined["ok"]:  # a retry of a join the killed child had committed
            seated = reader.load_table(table_id)
            assert seated is not None and account in {s.account_id for s in seated.seats}, \
                joined
    for _ in range(100):
        step({"op": "play", "table": table_id, "actions": 10, "seed": rng.randrange(2**16)})
        stored = reader.load_table(table_id)
        if stored is not None and stored.status == "over":
            break
    reader.engine.dispose()
    child.stop()
    assert stored is not None and stored.status == "over"
    payouts = GameTable.from_stored(stored).match.result.payouts
    assert payouts is not None and sum(payouts) == 300
    engine = open_engine(database_url)
    try:
        with engine.connect() as conn:
            balances = dict(conn.execute(text("SELECT id, balance FROM wallets")).all())
            kinds = Counter(r[0] for r in conn.execute(text("SELECT kind FROM transfers")))
    finally:
        engine.dispose()
    for seat, account in enumerate((ann, bob, cat)):
        assert balances[f"account:{account}"] == 900 + payouts[seat]
    assert balances[f"pool:{table_id}"] == 0
    assert kinds == Counter({"grant": 3, "buy_in": 3,
                             "payout": sum(1 for p in payouts if p > 0)})
    print(f"a match on {database_url.split(':')[0]}: {child.commits} commits, "
          f"{child.kills} SIGKILLs, {child.started} starts in {child.start_seconds:.1f} s")
    # killed after at most 4 commits each time (the table's deal is live, secrets-shuffled:
    # a short hand makes few commits, 8 once, so a fixed count of kills is not the measure)
    assert child.kills >= 1, "the child was never killed"
    assert child.commits <= 4 * (child.kills + 1), (child.commits, child.kills)
    report = check_database(database_url)
    assert report.ok and report.issued == 3000 and report.in_accounts == 3000
