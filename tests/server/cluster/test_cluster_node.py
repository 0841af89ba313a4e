"""Table ownership wired into the server (docs/cluster.md): two apps in this process, each a
member of one cluster (one PostgreSQL schema, one Redis prefix): the creator owns a table,
the other lists it, joins it through its owner and takes it over when the owner stops; a
commit of a table whose lease was lost fails and stores nothing; ``/readyz`` checks Redis;
``serve --workers`` refuses what cannot run."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from cluster_helpers import REDIS_URL, lease_holders, redis_client
from server_helpers import Client, LiveServer, live_server

from ginrummy.cli.main import main
from ginrummy.server.cluster import Fence, LeaseStore, claim
from ginrummy.server.cluster.node import ClusterNode
from ginrummy.server.play.committer import CommitFailed
from ginrummy.storage import Repository, UpdateTable, open_engine
from pg_helpers import pg_schema, schema_url

T = TypeVar("T")


def node_of(server: LiveServer) -> ClusterNode:
    """The running app's cluster node."""
    node = server.app.state.server.cluster
    assert isinstance(node, ClusterNode)
    return node


def run_in(server: LiveServer, make: Callable[[], Coroutine[Any, Any, T]],
           timeout: float = 30) -> T:
    """Run a coroutine in the server's event loop (its node's Redis client lives there)."""
    loop = node_of(server).loop
    assert loop is not None
    return asyncio.run_coroutine_threadsafe(make(), loop).result(timeout)


def until(check: Callable[[], bool], timeout: float = 20, what: str = "") -> None:
    """Wait until ``check()`` is true (the timeout only matters when the test fails)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        time.sleep(0.05)


@contextlib.contextmanager
def member(tmp_path: Path, db: str, prefix: str, **settings: Any) -> Iterator[LiveServer]:
    """A live server that is a member of the cluster on ``db`` and ``prefix``."""
    values: dict[str, Any] = dict(db=db, redis=REDIS_URL, redis_prefix=prefix,
                                  lease_ttl_ms=3000, sweep_seconds=0.2,
                                  lobby_publish_seconds=0.5)
    values.update(settings)
    with live_server(tmp_path, **values) as server:
        yield server


def next_mover(players: list[Client], timeout: float = 30) -> Client:
    """The client whose latest state offers legal actions (reading what arrived)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for player in players:
            with contextlib.suppress(TimeoutError):
                while True:
                    player.recv(0.05)
            if player.state["legal"]:
                return player
    raise AssertionError("nobody may move")


def listed(server: LiveServer) -> list[str]:
    """The ids of ``GET /api/tables``."""
    with server.http() as client:
        answer = client.get("/api/tables")
    assert answer.status_code == 200, answer.text
    return [entry["id"] for entry in answer.json()["tables"]]


def test_a_table_is_owned_by_its_creator_listed_and_joined_everywhere_and_taken_over(
        tmp_path: Path, prefix: str) -> None:
    with pg_schema("node") as schema:
        db = schema_url(schema)
        with member(tmp_path, db, prefix) as b:
            with member(tmp_path, db, prefix) as a:
                assert node_of(a).owner != node_of(b).owner
                created = a.create(nickname="Ann", players=2)
                table_id, token = created["table_id"], created["token"]
                assert node_of(a).owns(table_id) and not node_of(b).owns(table_id)
                assert table_id in a.lobby.writers and table_id not in b.lobby.writers
                until(lambda: table_id in listed(b), what="B lists A's table")
                assert run_in(b, lambda: node_of(b).ensure(table_id)) == "remote"
                assert run_in(b, lambda: b.lobby.locate(table_id)) == "remote"
                assert run_in(b, lambda: node_of(b).ensure("nosuchtable")) is None
                with b.http() as client:  # the entry, asked of the owner through B
                    entry = client.get(f"/api/tables/{table_id}")
                assert entry.status_code == 200, entry.text
                assert entry.json()["id"] == table_id
                # a seat taken through B: the owner, A, ran the join
                joined = b.join(table_id, nickname="Bob")
                assert joined["seat"] == 1 and joined["table"]["seats"][1]["name"] == "Bob"
                assert a.lobby.writers[table_id].table.seats[1].name == "Bob"
                assert table_id not in b.lobby.writers
                with b.http() as client:  # the owner's refusal comes back as it was
                    again = client.post(f"/api/tables/{table_id}/join",
                                        json={"nickname": "Cy", "seat": 1})
                assert again.status_code == 409, again.text
                assert again.json()["error"]["code"] in ("seat_taken", "table_full")
                a_owner = node_of(a).owner
            # A stopped (its lifespan ended: a graceful stop): B's next sweep takes the table
            until(lambda: node_of(b).owns(table_id), timeout=15,
                  what="B takes the table over")
            assert node_of(b).owner != a_owner
            until(lambda: table_id in listed(b), what="B lists the table as its own")
            players = [Client.open(b, table_id, t) for t in (token, joined["token"])]
            mover = next_mover(players)
            state = mover.state
            mover.send({"type": "action", "id": "after", "version": state["version"],
                        "action": state["legal"][0]})
            assert mover.wait(lambda m: m.get("ack") == "after")["ack"] == "after"
            for player in players:
                player.close()


def test_graceful_stop_hands_the_tables_over_at_once(tmp_path: Path, prefix: str) -> None:
    with pg_schema("node") as schema:
        db = schema_url(schema)
        with member(tmp_path, db, prefix, lease_ttl_ms=60_000) as b:
            with member(tmp_path, db, prefix, lease_ttl_ms=60_000) as a:
                ids = [a.create(nickname="Ann", bots={"1": "simple"})["table_id"]
                       for _ in range(3)]
                assert all(node_of(a).owns(t) for t in ids)
                assert not any(node_of(b).owns(t) for t in ids)
            # A's leases (60 s) were released at its stop, not left to expire
            until(lambda: all(node_of(b).owns(t) and t in b.lobby.writers for t in ids),
                  timeout=10, what="B owns and plays every table of A")


def test_a_commit_of_a_table_whose_lease_was_lost_fails_and_stores_nothing(
        tmp_path: Path, prefix: str) -> None:
    with pg_schema("node") as schema:
        db = schema_url(schema)
        engine = open_engine(db)
        try:
            with member(tmp_path, db, prefix) as a:
                table_id = a.create(nickname="Ann", bots={"1": "simple"})["table_id"]
                node = node_of(a)
                old = node.keeper.leases[table_id]

                async def steal() -> int:  # a partition: another process owns it now
                    client = redis_client()
                    try:
                        await client.delete(node.leases.key(table_id, "lease"))
                        thief = LeaseStore(client, "thief@elsewhere:1", prefix)
                        lease = await thief.acquire(table_id, 60_000)
                        assert lease is not None
                        await asyncio.to_thread(claim, engine, Fence.of(lease))
                        return lease.token
                    finally:
                        await client.aclose()

                token = asyncio.run(steal())
                assert token > old.token

                async def commit() -> None:
                    await a.app.state.server.committer.commit(
                        [UpdateTable(table_id, {"name": "stale write"})], table_id)

                with pytest.raises(CommitFailed, match=r"fenced out|no lease"):
                    run_in(a, commit)
                until(lambda: table_id not in a.lobby.writers, timeout=10,
                      what="the table is unloaded from its old owner")
                assert not node.owns(table_id)
                stored = Repository(engine).load_table(table_id)
                assert stored is not None and stored.name != "stale write"
        finally:
            engine.dispose()


def closed_port() -> int:
    """A local port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_readyz_names_redis_when_it_does_not_answer(tmp_path: Path) -> None:
    dead = f"redis://127.0.0.1:{closed_port()}/0"
    with live_server(tmp_path, redis=dead, sweep_seconds=0.5) as server:
        answer = httpx.get(f"{server.base}/readyz", timeout=30, trust_env=False)
        assert answer.status_code == 503
        assert answer.json() == {"ok": False, "reason": "redis unreachable"}
        with server.http() as client:  # creating a table needs its lease: 503, said why
            refused = client.post("/api/tables", json={"nickname": "Ann"})
        assert refused.status_code == 503, refused.text
        assert "Redis" in refused.json()["error"]["message"]


def test_readyz_is_ok_with_redis(tmp_path: Path, prefix: str) -> None:
    with pg_schema("node") as schema, member(tmp_path, schema_url(schema), prefix) as server:
        answer = httpx.get(f"{server.base}/readyz", timeout=30, trust_env=False)
        assert answer.status_code == 200 and answer.json() == {"ok": True}


@pytest.mark.parametrize(("argv", "message"), [
    (["--workers", "2"], "--workers 2: several processes share their tables through Redis"),
    (["--workers", "2", "--redis", REDIS_URL], "need a shared PostgreSQL database"),
    (["--redis", REDIS_URL, "--db", "sqlite:///x.db"], "--redis: several processes need"),
    (["--workers", "0"], "--workers: 0"),
])
def test_serve_refuses_workers_without_redis_and_postgresql(
        argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", *argv]) == 2
    assert message in capsys.readouterr().err


def children_of(pid: int) -> list[int]:
    """The pids of a process's children (Linux)."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def start_workers(db: str, prefix: str, extra_env: dict[str, str] | None = None,
                  **popen: Any) -> tuple[Any, str, list[int]]:
    """``serve --workers 2`` on a free port, its two children answering ``/readyz``: the
    supervisor's process, the base URL and the workers' pids."""
    import os
    import subprocess
    import sys

    port = closed_port()
    env = {**os.environ, "GINRUMMY_REDIS_PREFIX": prefix, "GINRUMMY_SWEEP_SECONDS": "0.2",
           **(extra_env or {})}
    command = [sys.executable, "-c", "import sys; from ginrummy.cli.main import main; "
               "sys.exit(main(sys.argv[1:]))", "serve", "--port", str(port),
               "--db", db, "--redis", REDIS_URL, "--workers", "2",
               "--log-level", "info", "--log-format", "text"]
    parent = subprocess.Popen(command, env=env, **popen)
    base = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        with contextlib.suppress(httpx.HTTPError):
            return httpx.get(f"{base}/readyz", timeout=5, trust_env=False).status_code == 200
        return False

    try:
        until(lambda: len(children_of(parent.pid)) == 2 and ready(), timeout=60,
              what="two server processes answer on the port")
    except BaseException:
        parent.kill()
        parent.wait()
        raise
    return parent, base, children_of(parent.pid)


def open_tables(base: str, count: int, body: dict[str, Any]) -> list[str]:
    """``count`` tables created at ``base``, each over a new connection (the kernel spreads
    them over the workers sharing the port); their ids."""
    ids = []
    for _ in range(count):
        with httpx.Client(base_url=base, trust_env=False, timeout=30,
                          headers={"Origin": base}) as fresh:
            answer = fresh.post("/api/tables", json=body)
        assert answer.status_code == 201, answer.text
        ids.append(answer.json()["table_id"])
    return ids


@pytest.mark.slow
def test_serve_workers_runs_n_members_on_one_port_and_stops_them(prefix: str) -> None:
    if not Path("/proc/self/task").exists():
        pytest.skip("reads the process tree from /proc (Linux)")
    import os
    import signal

    with pg_schema("workers") as schema:
        parent, base, workers = start_workers(schema_url(schema), prefix)
        try:
            ids = open_tables(base, 6, {"nickname": "Ann"})
            with httpx.Client(base_url=base, trust_env=False, timeout=30,
                              headers={"Origin": base}) as client:
                until(lambda: set(ids) <= {e["id"] for e in client.get("/api/tables")
                                           .json()["tables"]}, what="every table listed")

            def holders() -> dict[str, str]:
                return lease_holders(prefix, ids)

            held = holders()
            assert set(held) == set(ids)  # each table owned by one of the two workers
            assert all(owner.endswith(tuple(f":{pid}" for pid in workers))
                       for owner in held.values())
            os.kill(workers[0], signal.SIGKILL)  # a dead worker is started again
            until(lambda: len(children_of(parent.pid)) == 2
                  and workers[0] not in children_of(parent.pid), timeout=30,
                  what="the supervisor starts a new worker")
            def taken_over() -> bool:
                now = holders()
                return set(now) == set(ids) and not any(
                    owner.endswith(f":{workers[0]}") for owner in now.values())

            until(taken_over, timeout=30, what="the dead worker's tables taken over")
            parent.send_signal(signal.SIGTERM)
            assert parent.wait(60) == 0
            assert holders() == {}  # every lease released at the graceful stop
        finally:
            if parent.poll() is None:
                parent.kill()
                parent.wait()


def test_the_committer_fences_each_batch_once_and_isolates_a_stale_table(
        pg_engine: Any) -> None:
    from ginrummy.rules import Ruleset
    from ginrummy.server.cluster import Fencer, Lease
    from ginrummy.server.play.committer import GroupCommitter
    from ginrummy.storage import InsertEvent, InsertTable, StoredEvent, StoredSeat, StoredTable

    def a_table(table_id: str) -> StoredTable:
        return StoredTable(
            id=table_id, name="Ann's table", preset="classic",
            rules=Ruleset.preset("classic").to_dict(), players=2, public=True,
            invite_hash=None, clock_ms=0, pool_chips=None, status="playing", version=0,
            seats=[StoredSeat(0, "human", "Ann"), StoredSeat(1, "bot", "Bot", "simple")])

    def action(table_id: str) -> list[Any]:
        return [InsertEvent(table_id, StoredEvent(1, "action", "move", 0)),
                UpdateTable(table_id, {"version": 1})]

    class Recording(Repository):
        def __init__(self, engine: Any) -> None:
            super().__init__(engine)
            self.batches: list[list[Any]] = []

        def write(self, ops: Any) -> None:
            self.batches.append(list(ops))
            super().write(ops)

        def write_each(self, writes: Any) -> list[BaseException | None]:
            self.batches.extend(list(ops) for ops in writes)  # one savepoint each
            return super().write_each(writes)

    def fence_checks(ops: list[Any]) -> int:
        return sum(1 for op in ops if "fence_op" in getattr(getattr(op, "run", None),
                                                            "__qualname__", ""))

    repo = Recording(pg_engine)
    leases = {t: Lease(t, "a", 5, 60_000, float("inf")) for t in ("t1", "t2", "t3")}

    async def scenario() -> None:
        committer = GroupCommitter(repo)
        committer.fencer = Fencer(leases)
        fenced_out: list[tuple[str, ...]] = []
        committer.on_fenced = fenced_out.append
        committer.start()
        try:
            await asyncio.gather(*(committer.commit([InsertTable(a_table(t))], t)
                                   for t in ("t1", "t2", "t3")))
            assert fence_checks(repo.batches[-1]) == 1  # one check for the three tables
            claim(pg_engine, Fence("t1", 6, "b"))  # a newer owner of t1
            repo.batches.clear()
            results = await asyncio.gather(*(committer.commit(action(t), t)
                                             for t in ("t1", "t2", "t3")),
                                           return_exceptions=True)
            assert isinstance(results[0], CommitFailed) and "fenced out" in str(results[0])
            assert results[1:] == [None, None]
            assert fenced_out == [("t1",)]
            # the batch, then each write in its savepoint with its own check
            assert [fence_checks(b) for b in repo.batches] == [1, 1, 1, 1]
            del leases["t3"]  # no lease: refused before any write
            with pytest.raises(CommitFailed, match="holds no lease"):
                await committer.commit(action("t3"), "t3")
            assert fenced_out[-1] == ("t3",)
        finally:
            await committer.close()

    asyncio.run(scenario())
    versions = {t: (s.version, len(s.events)) for t in ("t1", "t2", "t3")
                if (s := repo.load_table(t)) is not None}
    assert versions == {"t1": (0, 0), "t2": (1, 1), "t3": (1, 1)}
    repo.close()
