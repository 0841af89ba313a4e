"""Several real ``ginrummy serve`` processes on one PostgreSQL schema and one Redis prefix
(issue 14, "How it must be shown"): clients at different processes play one table; the
table's owner is SIGKILLed mid-hand 20 times and nothing acknowledged is lost; an owner that
loses its lease while it keeps running (SIGSTOP past the lease's ttl) cannot commit.

The processes run with a short lease (2 s) and sweep (0.25 s) so that the 20 takeovers fit in
the suite's time; the seats are :class:`procs.SeatPlayer` clients, which reconnect to the next
process when their socket drops and resend the action still unacknowledged with its id.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from statistics import median
from typing import Any

import pytest
import websockets
from cluster_helpers import REDIS_URL
from procs import (
    Cluster,
    Database,
    SeatPlayer,
    cluster_missing,
    open_table,
    printed_logs_on_failure,
    stored_events,
    table_rows,
)

from pg_helpers import pg_schema, schema_url

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals"),
]

LEASE_TTL_MS = 2000
SWEEP_SECONDS = 0.25
TAKEOVER_LIMIT = 10.0
"""The issue's bound: a killed process's tables are taken over within 10 s."""
SINGLE_HAND = {"format": "single_hand"}
LONG_HAND = {**SINGLE_HAND, "knock_limit": 0}
"""One hand that only a gin (or the stock's end) ends: the seats' choice knocks at once, and a
deal that let it knock on its first turns ended the hand before the seats had seen 10
versions (1 run in 8 failed so). A gin can still come on the first turns (seen once in about
20 runs): the test then plays another table."""


@pytest.fixture
def cluster(tmp_path: Path, prefix: str) -> Iterator[Cluster]:
    """Three ``serve`` processes, ready, on a fresh migrated schema and this test's Redis
    prefix (skipped when PostgreSQL or Redis is absent, or the checkout has no cluster)."""
    missing = cluster_missing()
    if missing:
        pytest.skip(missing)
    env = {"GINRUMMY_LEASE_TTL_MS": str(LEASE_TTL_MS),
           "GINRUMMY_SWEEP_SECONDS": str(SWEEP_SECONDS),
           "GINRUMMY_LOBBY_PUBLISH_SECONDS": "1",
           # the seats answer each state at once, faster than any person: a long hand (a
           # reshuffled stock) passed 100 messages in 20 s and was closed as a flood (1008)
           "GINRUMMY_MESSAGES_PER_WINDOW": "2000"}
    with pg_schema("procs") as schema, \
            Cluster(3, schema_url(schema), tmp_path / "cluster", redis=REDIS_URL,
                    prefix=prefix, env=env,
                    args=["--bot-delay", "0", "--between-hands", "0"]) as procs:
        procs.migrate()
        with printed_logs_on_failure(procs):
            procs.start()
            yield procs


def seats_for(cluster: Cluster, table_id: str, tokens: dict[int, str], at: tuple[int, int],
              seed: int, **options: Any) -> list[SeatPlayer]:
    """The two seats of a table, seat 0 starting at process ``at[0]``, seat 1 at ``at[1]``."""
    return [SeatPlayer(table_id, seat, tokens[seat], lambda: cluster.urls, at[seat],
                       seed=seed * 10 + seat, **options) for seat in (0, 1)]


def check_stored(db: str, players: list[SeatPlayer]) -> dict[str, list[dict[str, Any]]]:
    """Every acknowledged action is stored once, at the version its ack named; every human
    action stored was sent by one of ``players``; no version is missing but the seed
    commits before the deals. The stored events by table."""
    tables = sorted({p.table_id for p in players})
    events = stored_events(db, tables)
    for table_id in tables:
        by_id = Counter(e["client_id"] for e in events[table_id] if e["client_id"])
        versions = {e["client_id"]: e["version"] for e in events[table_id] if e["client_id"]}
        assert all(n == 1 for n in by_id.values()), f"{table_id}: an action stored twice"
        ours = [p for p in players if p.table_id == table_id]
        acked = {a: v for p in ours for a, v in p.stats.acked.items()}
        lost = sorted(set(acked) - set(versions))
        assert not lost, f"{table_id}: acknowledged actions not stored: {lost}"
        moved = {a: (v, versions[a]) for a, v in acked.items() if versions[a] != v}
        assert not moved, f"{table_id}: stored at another version than acked: {moved}"
        sent = {f"{p.prefix}{n}" for p in ours for n in range(1, p.counter + 1)}
        strangers = set(versions) - sent
        assert not strangers, f"{table_id}: stored actions nobody sent: {strangers}"
        # the only versions without an event are the fair deals' seed commits, each just
        # before its deal (docs/protocol.md, "Fair deals")
        kinds = {e["version"]: e["kind"] for e in events[table_id]}
        gaps = [v for v in range(min(kinds), max(kinds)) if v not in kinds]
        assert all(kinds.get(v + 1) == "deal" for v in gaps), \
            f"{table_id}: versions missing not before a deal: {gaps} ({kinds})"
    return events


def describe(players: list[SeatPlayer]) -> str:
    """One line per seat: acks, resends, reconnections, errors."""
    def kinds(errors: list[str]) -> dict[str, int]:
        return dict(Counter(e.split(":")[0] for e in errors))

    return "\n".join(
        f"  {p.table_id} seat {p.seat}: acked {len(p.stats.acked)}, sent {p.stats.sent}, "
        f"resent {p.stats.resent} (duplicates {p.stats.duplicates}), connects "
        f"{p.stats.connects}, ack timeouts {p.stats.ack_timeouts}, closes "
        f"{dict(Counter(p.stats.closes))} {dict(Counter(r for r in p.stats.reasons if r))}, "
        f"errors {kinds(p.stats.errors)} {p.stats.errors[-3:]}"
        for p in players)


async def finish(players: list[SeatPlayer], tasks: list[asyncio.Task[None]],
                 timeout: float) -> None:
    """Wait until every table is over (each player's task ends), then stop them."""
    try:
        await asyncio.wait_for(asyncio.gather(*tasks), timeout)
    except TimeoutError:
        stuck = [p for p in players if not p.finished.is_set()]
        raise AssertionError("tables not over in time:\n" + "\n".join(
            f"  {p.table_id} seat {p.seat} at {p.url}: version {p.version}, pending "
            f"{p.pending}, legal {(p.state or {}).get('legal')}, paused {p.paused}"
            for p in stuck) + "\n" + describe(stuck)) from None
    finally:
        for player in players:
            player.stop()


# ---------------------------------------------------------------------- one table, two processes
def test_clients_at_different_processes_play_one_table(cluster: Cluster) -> None:
    """Two seats at two processes neither of which owns the table play its hand through the
    relay: they end at the same version, saw the same public state at every version both saw,
    and every acknowledged action is stored once. Tables are played one after another until
    the seats have compared at least 10 versions (a deal can end in a gin on its first turns:
    the deal is the fair deal's, not the test's; at most 5 tables)."""
    compared = 0
    for number in range(5):
        compared += play_one_table_at_two_processes(cluster, seed=1 + number)
        if compared >= 10:
            break
    assert compared >= 10, f"the seats compared only {compared} versions in 5 tables"


def play_one_table_at_two_processes(cluster: Cluster, seed: int) -> int:
    """One table's hand played by seats at the two processes that do not own it; checks it
    and returns how many versions both seats saw."""
    table_id, tokens = open_table(cluster.urls[0], options=LONG_HAND)
    owner = cluster.owner(table_id)
    assert owner is not None, "the new table has no lease holder among the processes"
    others = [i for i in range(3) if i != owner]
    players = seats_for(cluster, table_id, tokens, (others[0], others[1]), seed=seed)

    async def play() -> None:
        tasks = [asyncio.create_task(p.run()) for p in players]
        await finish(players, tasks, 90)

    asyncio.run(play())
    print(f"owner process {owner}; seats at {others}\n{describe(players)}")
    first, second = players
    assert first.finished.is_set() and second.finished.is_set()
    assert first.version == second.version, "the seats ended at different versions"
    common = set(first.stats.states) & set(second.stats.states)
    assert all(first.stats.states[v] == second.stats.states[v] for v in common), \
        "the two seats saw different public states at the same version"
    assert all(p.stats.drops == 0 and not p.stats.errors for p in players), describe(players)
    assert first.url != second.url
    check_stored(cluster.db, players)
    row = table_rows(cluster.db, [table_id])[table_id]
    assert row["status"] == "over" and row["version"] == first.version
    return len(common)


# ---------------------------------------------------------------------- SIGKILL of the owner
KILLS = 20
"""SIGKILLs of a table's owner while its hand runs (a kill that lands after the hand ended
does not count, and another follows)."""
LIVE_TABLES = 3


@pytest.mark.soak
def test_sigkill_of_the_owner_20_times_loses_no_acknowledged_action(cluster: Cluster) -> None:
    rng = random.Random(14)
    players: list[SeatPlayer] = []
    tasks: list[asyncio.Task[None]] = []
    takeovers: list[float] = []
    resumed: list[float] = []
    restarts: list[float] = []
    """Seconds from a restart to the process's ``/readyz``."""
    late: list[str] = []
    database = Database(cluster.db)

    restarting: set[int] = set()

    async def open_one(index: int) -> list[SeatPlayer]:
        at = index % 3
        while at in restarting:  # created through a running process
            at = (at + 1) % 3
        table_id, tokens = await asyncio.to_thread(open_table, cluster.urls[at],
                                                   options=SINGLE_HAND)
        seats = seats_for(cluster, table_id, tokens, (at, (at + 1) % 3), seed=index,
                          ack_timeout=8.0)
        players.extend(seats)
        tasks.extend(asyncio.create_task(seat.run()) for seat in seats)
        return seats

    async def new_owner(table_id: str, old_token: int, since: float) -> float | None:
        """Seconds from ``since`` until a running process holds a newer lease; ``None``
        when the table turned out to be over (nothing to take over)."""
        while True:
            lease = await asyncio.to_thread(cluster.lease, table_id)
            if lease is not None and lease[0] > old_token \
                    and cluster.index_of_pid(lease[1]) is not None:
                return time.monotonic() - since
            row = (await asyncio.to_thread(database.rows, [table_id]))[table_id]
            if row["status"] != "playing":
                return None
            if time.monotonic() - since > 30:
                raise AssertionError(f"{table_id}: no new owner 30 s after the kill "
                                     f"(stored: {row}, lease {lease})")
            await asyncio.sleep(0.02)

    async def acked_after(seats: list[SeatPlayer], since: float) -> float | None:
        """Seconds from ``since`` to the table's next acknowledgement (``None``: over)."""
        while not any(s.last_ack_at > since for s in seats):
            if all(s.finished.is_set() for s in seats):
                return None
            if time.monotonic() - since > 40:
                raise AssertionError("no acknowledgement 40 s after the kill\n"
                                     + describe(seats))
            await asyncio.sleep(0.02)
        return time.monotonic() - since

    async def holder(table_id: str) -> tuple[tuple[int, int], int]:
        """The table's lease and the index of the running process holding it (a table of a
        process killed before may still be waiting for its heir)."""
        began = time.monotonic()
        while True:
            lease = await asyncio.to_thread(cluster.lease, table_id)
            victim = None if lease is None else cluster.index_of_pid(lease[1])
            if lease is not None and victim is not None:
                return lease, victim
            assert time.monotonic() - began < 30, \
                f"{table_id}: no running process holds its lease (lease {lease})"
            await asyncio.sleep(0.05)

    async def start_again(index: int) -> None:
        began = time.monotonic()
        restarting.add(index)
        try:
            await asyncio.to_thread(cluster.start, index)
        finally:
            restarting.discard(index)
        restarts.append(time.monotonic() - began)

    async def run() -> None:
        opened = 0
        tables: dict[str, list[SeatPlayer]] = {}
        attempts = 0
        over: set[str] = set()
        restart: asyncio.Task[None] | None = None
        watchers: list[asyncio.Task[float | None]] = []
        """The wait for each killed table's next acknowledgement (the next kill does not
        wait for it)."""
        while len(takeovers) < KILLS:
            live = {t: s for t, s in tables.items()
                    if not s[0].finished.is_set() and t not in over}
            while len(live) < LIVE_TABLES:
                seats = await open_one(opened)
                opened += 1
                live[seats[0].table_id] = tables[seats[0].table_id] = seats
            table_id = rng.choice(sorted(live))
            seats = live[table_id]
            await seats[0].wait_version(3, 30)  # mid-hand: dealt, a move or more made
            await asyncio.sleep(rng.uniform(0.05, 1.0))  # a random moment of the hand
            if restart is not None:
                await restart  # three processes run at every kill
            row = (await asyncio.to_thread(database.rows, [table_id]))[table_id]
            if row["status"] != "playing":  # over already (its seats may not know yet)
                over.add(table_id)
                continue
            attempts += 1
            assert attempts <= 3 * KILLS, f"only {len(takeovers)} kills landed mid-hand"
            lease, victim = await holder(table_id)
            since = time.monotonic()
            await asyncio.to_thread(cluster.kill, victim)
            restart = asyncio.create_task(start_again(victim))
            takeover = await new_owner(table_id, lease[0], since)
            if takeover is None:
                late.append(table_id)
            else:
                takeovers.append(takeover)
                print(f"kill {len(takeovers)}: process {victim}, table {table_id} at "
                      f"version {seats[0].version}: new lease after {takeover:.2f} s",
                      flush=True)
                watchers.append(asyncio.create_task(acked_after(seats, since)))
        if restart is not None:
            await restart
        resumed.extend(t for t in await asyncio.gather(*watchers) if t is not None)
        await finish(players, tasks, 180)

    try:
        asyncio.run(run())
        table_ids = sorted({p.table_id for p in players})
        print(f"{len(takeovers)} kills mid-hand ({len(late)} more after a hand's end) over "
              f"{len(table_ids)} tables\n"
              f"takeover (s from SIGKILL to a new lease): "
              f"{', '.join(f'{t:.2f}' for t in takeovers)}\n"
              f"  min {min(takeovers):.2f}, median {median(takeovers):.2f}, "
              f"max {max(takeovers):.2f}\n"
              f"first ack after the kill (s): {', '.join(f'{t:.2f}' for t in resumed)}\n"
              f"restarted and ready after (s): {', '.join(f'{t:.1f}' for t in restarts)}\n"
              + describe(players))
        assert len(takeovers) == KILLS
        assert max(takeovers) < TAKEOVER_LIMIT, f"a takeover took {max(takeovers):.2f} s"
        assert all(p.finished.is_set() for p in players)
        check_stored(cluster.db, players)
        rows = database.rows(table_ids)
    finally:
        database.close()
    assert all(r["status"] == "over" for r in rows.values()), rows
    assert sum(len(p.stats.acked) for p in players) > 5 * len(table_ids)
    assert sum(p.stats.drops for p in players) >= KILLS // 2, "the kills dropped no socket"
    assert all(p.alive for p in cluster.procs), "three processes run at the end"


# ---------------------------------------------------------------------- partition
def test_an_owner_that_lost_its_lease_cannot_commit(cluster: Cluster) -> None:
    table_id, tokens = open_table(cluster.urls[0], options=SINGLE_HAND)
    old = cluster.lease(table_id)
    assert old is not None
    stale_owner = cluster.index_of_pid(old[1])
    assert stale_owner is not None
    others = [i for i in range(3) if i != stale_owner]
    players = seats_for(cluster, table_id, tokens, (others[0], others[1]), seed=7,
                        ack_timeout=6.0)
    outcome: dict[str, Any] = {}

    async def run() -> None:
        tasks = [asyncio.create_task(p.run()) for p in players]
        await players[0].wait_version(6, 60)
        for player in players:
            player.paused = True
        await quiet(players)
        version = players[0].version
        state = players[0].state
        assert state is not None
        mover = state["view"]["to_move"]
        # a second tab of the seat to move, straight at the owner
        base = cluster.urls[stale_owner]
        ws_url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
        async with websockets.connect(ws_url, origin=base,  # type: ignore[arg-type]
                                      ping_interval=None, close_timeout=1) as ws:
            await ws.send(json.dumps({"type": "hello", "protocol": 2,
                                      "token": tokens[mover]}))
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            while first["type"] != "state":  # a welcome first
                first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert first["version"] == version, first
            action = first["legal"][0]
            since = time.monotonic()
            cluster.signal(stale_owner, signal.SIGSTOP)
            # the owner is frozen: its lease runs out; this action waits in its socket
            await ws.send(json.dumps({"type": "action", "id": "stale-1", "version": version,
                                      "action": action}))
            while True:  # another process takes the table over and claims it in PostgreSQL
                lease = await asyncio.to_thread(cluster.lease, table_id)
                row = (await asyncio.to_thread(table_rows, cluster.db, [table_id]))[table_id]
                if lease is not None and lease[0] > old[0] and row["token"] == lease[0]:
                    break
                assert time.monotonic() - since < 30, "no takeover 30 s after the SIGSTOP"
                await asyncio.sleep(0.05)
            outcome["takeover_s"] = time.monotonic() - since
            outcome["new_owner"] = cluster.index_of_pid(lease[1])
            cluster.signal(stale_owner, signal.SIGCONT)
            # the old owner wakes up believing it owns the table, with an action to play
            answers: list[dict[str, Any]] = []
            try:
                while True:
                    answers.append(json.loads(await asyncio.wait_for(ws.recv(), 4)))
            except (TimeoutError, websockets.ConnectionClosed) as exc:
                outcome["closed"] = getattr(ws, "close_code", None) \
                    if isinstance(exc, websockets.ConnectionClosed) else None
            outcome["answers"] = [(a.get("type"), a.get("ack") or a.get("id"),
                                   a.get("code")) for a in answers]
            assert not any(a.get("ack") == "stale-1" or
                           (a.get("type") == "ack" and a.get("id") == "stale-1")
                           for a in answers), f"the stale owner acknowledged: {answers}"
        rows = await asyncio.to_thread(table_rows, cluster.db, [table_id])
        outcome["version_after"] = rows[table_id]["version"]
        assert rows[table_id]["version"] == version, \
            f"the stale owner committed: version {version} -> {rows[table_id]['version']}"
        assert cluster.procs[stale_owner].alive, "the old owner must keep running"
        for player in players:
            player.resume()
        await finish(players, tasks, 90)

    asyncio.run(run())
    print(f"partition: old owner process {stale_owner}, {outcome}\n{describe(players)}")
    events = check_stored(cluster.db, players)[table_id]
    assert "stale-1" not in {e["client_id"] for e in events}
    assert outcome["new_owner"] not in (None, stale_owner)
    row = table_rows(cluster.db, [table_id])[table_id]
    assert row["status"] == "over" and row["token"] > old[0]
    # the old owner knew it had lost the table: its write refused by the token check
    # ("fenced out"), or its lease found gone first ("lease lost"); either way no commit
    log = cluster.tail(stale_owner, 200_000)
    assert f"fenced out of table {table_id}" in log or "lease lost" in log, \
        "the old owner's log says neither that its write was fenced out nor its lease lost"


async def quiet(players: list[SeatPlayer], settle: float = 0.5, timeout: float = 20) -> None:
    """Wait until no seat has an action in flight and the version stayed for ``settle``."""
    deadline = time.monotonic() + timeout
    last = -1
    stable_since = time.monotonic()
    while time.monotonic() < deadline:
        version = max(p.version for p in players)
        if version != last or any(p.pending for p in players):
            last, stable_since = version, time.monotonic()
        elif time.monotonic() - stable_since >= settle:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the table never went quiet\n" + describe(players))
