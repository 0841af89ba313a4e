"""One server process as a member of a cluster (docs/cluster.md): its leases, the sweep that
takes the tables nobody owns, its lobby entries in Redis, the unloading of a table it lost,
requests to the owner of a table (a seat taken, an HTTP route run, through any process:
:meth:`ClusterNode.call`) and to every member (an administrator's mute, ban or notice:
:meth:`ClusterNode.broadcast`).

:class:`ClusterNode` is created by the app's lifespan when ``settings.redis`` is set and kept
as ``Server.cluster``; the lobby asks it who owns a table (:meth:`ClusterNode.ensure`) before
it loads one, and the group committer fences every write with its leases
(:attr:`ClusterNode.fencer`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any, Literal, Protocol

import orjson
from redis.asyncio import Redis
from sqlalchemy import Engine, Table, select

from ginrummy.server.cluster.directory import LobbyBoard
from ginrummy.server.cluster.fencing import Fencer
from ginrummy.server.cluster.lease import Lease, LeaseKeeper, LeaseStore, make_owner_id
from ginrummy.server.cluster.relay import Relay
from ginrummy.server.cluster.takeover import sweep, take_over
from ginrummy.server.core.kinds import OPEN_STATUSES
from ginrummy.server.core.settings import Settings
from ginrummy.storage.models import TableRow

log = logging.getLogger("ginrummy.cluster")

TABLES: Table = TableRow.__table__  # type: ignore[assignment]
CALL_TIMEOUT_SECONDS = 5.0
"""How long a request to a table's owner process waits for its answer."""
LOST_REASON = "the table moved to another server process: reconnect"

Where = Literal["local", "remote"]
TableHook = Callable[[str], Awaitable[None]]
Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class OwnerUnreachable(RuntimeError):
    """The process owning a table did not answer a request in time (or there is none)."""


def live_tables(engine: Engine) -> list[str]:
    """The ids of the tables waiting or playing (those a process must own)."""
    with engine.connect() as conn:
        rows = conn.execute(select(TABLES.c.id).where(
            TABLES.c.status.in_([str(s) for s in OPEN_STATUSES]))).all()
    return [row[0] for row in rows]


def table_exists(engine: Engine, table_id: str) -> bool:
    """Whether the database has the table (whatever its status)."""
    with engine.connect() as conn:
        return conn.execute(select(TABLES.c.id).where(TABLES.c.id == table_id)).first() \
            is not None


class Lobby(Protocol):
    """What the node needs of this process's lobby (play/lobby.py's ``Lobby``, which sits
    above the cluster: the node never imports it)."""

    async def adopt(self, table_ids: list[str]) -> int:
        """Load the tables this process just took over; how many were loaded."""
        ...

    def unload(self, table_id: str, reason: str) -> bool:
        """Stop playing a loaded table here (its connections closed with ``reason``); False
        when it was not loaded."""
        ...

    def public_tables(self) -> Sequence[Mapping[str, Any]]:
        """The lobby entries of this process's open public tables."""
        ...


class ClusterNode:
    """This process in the cluster: owner id, Redis, leases, relay and lobby board."""

    def __init__(self, settings: Settings, engine: Engine, redis: Redis | None = None,
                 owner: str | None = None) -> None:
        if not settings.redis and redis is None:
            raise ValueError("a cluster node needs settings.redis (redis://HOST:PORT/DB)")
        self.settings = settings
        self.engine = engine
        self.owner = owner or make_owner_id()
        self.redis: Redis = redis if redis is not None else Redis.from_url(
            settings.redis, socket_connect_timeout=2.0, socket_timeout=5.0,
            health_check_interval=30)
        prefix = settings.redis_prefix
        self.leases = LeaseStore(self.redis, self.owner, prefix)
        self.keeper = LeaseKeeper(self.leases, self._on_lost, settings.lease_ttl_ms)
        self.relay = Relay(self.redis, self.owner, prefix)
        board_ttl = max(10_000, round(settings.lobby_publish_seconds * 5000))
        self.board = LobbyBoard(self.redis, self.owner, board_ttl, prefix)
        self.fencer = Fencer(self.keeper.leases)
        """The fences of this process's commits: its current leases."""
        self.on_acquired: list[TableHook] = []
        """Called with a table's id once it is owned and loaded here (creation, takeover)."""
        self.on_released: list[TableHook] = []
        """Called with a table's id once it is no longer owned here (unloaded, lost,
        shutdown)."""
        self.handlers: dict[str, Handler] = {}
        """Requests this process answers for the tables it owns, by name (the lobby's
        ``join`` and ``describe``)."""
        self.lobby: Lobby | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        """The event loop the node runs in (set by :meth:`open`; for calls from threads)."""
        self._owned: set[str] = set()
        self._broken: set[str] = set()
        self._resting: dict[str, float] = {}
        """Tables this process lost or let go, with the time (monotonic) until which its
        sweep leaves them to the other processes."""
        self._ensuring: dict[str, asyncio.Task[Where | None]] = {}
        self._calls: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._gathers: dict[str, _Gather] = {}
        self._listening = False
        """The request channels are subscribed (this process hears its own broadcasts)."""
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loops: list[asyncio.Task[None]] = []
        self._periodic: list[tuple[float, Callable[[], Awaitable[object]], str]] = []
        self._changed = asyncio.Event()
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None

    # ----------------------------------------------------------------- start and stop
    @property
    def channel(self) -> str:
        """This process's request and answer channel."""
        return f"{self.settings.redis_prefix}:node:{self.owner}"

    @property
    def everyone(self) -> str:
        """The channel of requests to every member (:meth:`broadcast`)."""
        return f"{self.settings.redis_prefix}:nodes"

    async def open(self, lobby: Lobby) -> None:
        """Start renewing leases and answering requests (before the lobby's first sweep).
        Redis not answering does not stop the start: the process is not ready (``/readyz``)
        and takes tables once Redis answers."""
        self.lobby = lobby
        self.loop = asyncio.get_running_loop()
        try:
            await self.redis.ping()
        except Exception as exc:
            log.warning("Redis does not answer (%s: %s): no table is taken until it does",
                        type(exc).__name__, exc, extra={"event": "redis_unreachable"})
        self.keeper.start()
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        self._reader = asyncio.get_running_loop().create_task(self._read(), name="node-rpc")

    def every(self, seconds: float, work: Callable[[], Awaitable[object]], what: str) -> None:
        """Run ``work`` every ``seconds`` from :meth:`run` until the shutdown (a failure is
        logged once per outage)."""
        self._periodic.append((seconds, work, what))

    def run(self) -> None:
        """Start the periodic sweep, the lobby publication and the work of :meth:`every`."""
        loop = asyncio.get_running_loop()
        self._loops = [loop.create_task(self._sweep_loop(), name="node-sweep"),
                       loop.create_task(self._publish_loop(), name="node-lobby"),
                       *(loop.create_task(self._repeat(*job), name=f"node-{job[2]}")
                         for job in self._periodic)]
        self.changed()

    @staticmethod
    async def _repeat(seconds: float, work: Callable[[], Awaitable[object]],
                      what: str) -> None:
        failing = False
        while True:
            await asyncio.sleep(seconds)
            try:
                await work()
                failing = False
            except Exception as exc:
                if not failing:
                    log.warning("%s failed: %s: %s", what, type(exc).__name__, exc)
                failing = True

    async def stop_background(self) -> None:
        """Stop sweeping and publishing (shutdown: take no more tables)."""
        loops, self._loops = self._loops, []
        for task in loops:
            task.cancel()
        for task in loops:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def close(self) -> None:
        """Graceful shutdown, after the committer wrote what was pending: release every lease
        and withdraw the lobby entries, so that another process's next sweep takes the tables
        at once; then close Redis."""
        await self.stop_background()
        await self.keeper.stop()
        held = list(self.keeper.leases)
        results = await asyncio.gather(*(self.keeper.release(t) for t in held),
                                       return_exceptions=True)
        failed = sum(1 for r in results if isinstance(r, BaseException))
        if failed:
            log.warning("%d of %d lease(s) could not be released; they expire in %d ms",
                        failed, len(held), self.settings.lease_ttl_ms)
        for table_id in held:
            await self._released(table_id)
        with contextlib.suppress(Exception):
            await self.board.withdraw()
        log.info("cluster member %s stopped: %d table(s) handed over", self.owner,
                 len(held) - failed, extra={"event": "node_stopped"})
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        for task in list(self._tasks):
            task.cancel()
        await self.redis.aclose()

    async def ping(self) -> None:
        """One round trip to Redis (readiness)."""
        await self.redis.ping()

    # ----------------------------------------------------------------- ownership
    def owns(self, table_id: str) -> bool:
        """Whether this process holds a valid lease on the table."""
        lease = self.keeper.leases.get(table_id)
        return lease is not None and lease.valid()

    async def ensure(self, table_id: str) -> Where | None:
        """Where the table is played: ``local`` (owned here, taken over now if nobody owned
        it), ``remote`` (another live process holds its lease) or ``None`` (no such table)."""
        if self.owns(table_id):
            return "local"
        task = self._ensuring.get(table_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._ensure(table_id))
            self._ensuring[table_id] = task
            task.add_done_callback(lambda _t: self._ensuring.pop(table_id, None))
        return await asyncio.shield(task)

    async def _ensure(self, table_id: str) -> Where | None:
        holder = await self.leases.holder(table_id)
        if holder is not None:
            if holder.owner != self.owner:
                return "remote"
            if table_id in self.keeper.leases:
                return "local"
            # this process's lease that its keeper dropped (a renewal too late): give it back
            await self.leases.release(Lease(table_id, self.owner, holder.token, 1, 0.0))
        if not await asyncio.to_thread(table_exists, self.engine, table_id):
            return None
        lease = await take_over(self.keeper, self.engine, table_id)
        if lease is not None:
            return "local"
        return "remote"

    async def sweep_once(self) -> int:
        """Take over every live table nobody owns and load it; how many were loaded."""
        assert self.lobby is not None
        live = await asyncio.to_thread(live_tables, self.engine)
        now = time.monotonic()
        for table_id in [t for t, until in self._resting.items() if until <= now]:
            del self._resting[table_id]
        free = [t for t in live if t not in self.keeper.leases and t not in self._broken
                and t not in self._resting]
        if not free:
            return 0
        won = await sweep(self.keeper, self.engine, free)
        if won:
            log.info("took over %d table(s)", len(won),
                     extra={"event": "tables_taken_over", "tables": len(won)})
        return await self.lobby.adopt([lease.table_id for lease in won])

    async def acquired(self, table_id: str) -> None:
        """A table is owned and loaded here: run the ``on_acquired`` hooks (once)."""
        self._broken.discard(table_id)
        self._resting.pop(table_id, None)
        if table_id not in self._owned:
            self._owned.add(table_id)
            for hook in list(self.on_acquired):
                try:
                    await hook(table_id)
                except Exception:
                    log.exception("table %s: an on_acquired hook failed", table_id)
        self.changed()

    def broken(self, table_id: str) -> None:
        """A table that could not be loaded: its lease is given back and the sweep leaves it
        alone (another process may try)."""
        self._broken.add(table_id)
        self.released(table_id)

    def released(self, table_id: str) -> None:
        """A table left this process's memory: give its lease back (if held) and run the
        ``on_released`` hooks."""
        self._spawn(self._release(table_id))

    async def _release(self, table_id: str) -> None:
        try:
            await self.keeper.release(table_id)
        except Exception as exc:  # it expires anyway
            log.warning("table %s: lease not released (%s)", table_id, exc)
        await self._released(table_id)

    async def _released(self, table_id: str) -> None:
        if table_id in self._owned:  # (an edge's numbering of a table it relays is kept)
            self._owned.discard(table_id)
            self.relay.forget(table_id)
            for hook in list(self.on_released):
                try:
                    await hook(table_id)
                except Exception:
                    log.exception("table %s: an on_released hook failed", table_id)
        self.changed()

    def _on_lost(self, lease: Lease) -> None:
        log.warning("table %s: lease lost (token %d); unloading it", lease.table_id,
                    lease.token, extra={"event": "lease_lost", "table": lease.table_id})
        self.unload(lease.table_id, LOST_REASON)

    def fenced(self, table_ids: tuple[str, ...]) -> None:
        """The committer's ``on_fenced``: these tables' writes were refused (a newer owner's
        token stored, or no lease held): stop playing them here at once."""
        for table_id in table_ids:
            lease = self.keeper.leases.pop(table_id, None)
            if lease is not None:  # only if still this lease: a newer owner's is untouched
                self._spawn(self.leases.release(lease))
            self.unload(table_id, LOST_REASON)

    def unload(self, table_id: str, reason: str) -> None:
        """Stop playing a table here: its timers stop, its connections close with 1012 (the
        clients reconnect, to whichever process), it leaves the lobby. This process's sweep
        leaves it to the others for one lease ttl (a client's request may still bring it
        back here)."""
        self._resting[table_id] = time.monotonic() + self.settings.lease_ttl_ms / 1000
        if self.lobby is None or not self.lobby.unload(table_id, reason):
            self.released(table_id)  # (the lobby's own unload releases the lease)

    # ----------------------------------------------------------------- the lobby
    def changed(self) -> None:
        """The lobby entries changed: publish them soon."""
        self._changed.set()

    def entries(self) -> dict[str, tuple[int, dict[str, Any]]]:
        """This process's public open tables: lease token and lobby entry by id."""
        assert self.lobby is not None
        found: dict[str, tuple[int, dict[str, Any]]] = {}
        for entry in self.lobby.public_tables():
            table_id = entry["id"]
            lease = self.keeper.leases.get(table_id)
            if lease is not None:
                found[table_id] = (lease.token, dict(entry))
        return found

    async def publish(self) -> None:
        """Publish this process's lobby entries now."""
        await self.board.publish(self.entries())

    async def listing(self) -> list[dict[str, Any]]:
        """Every process's open public tables, newest first (this process's own as they are
        now, the others' as last published)."""
        listed = await self.board.listing()
        entries = {t: x.entry for t, x in listed.items()}
        entries.update({t: entry for t, (_, entry) in self.entries().items()})
        found = [e for e in entries.values() if e.get("status") in OPEN_STATUSES]
        found.sort(key=lambda e: str(e.get("created_at", "")), reverse=True)
        return found

    async def _sweep_loop(self) -> None:
        failing = False
        while True:
            await asyncio.sleep(self.settings.sweep_seconds)
            try:
                await self.sweep_once()
                failing = False
            except Exception as exc:
                if not failing:  # one line per outage, not one a second
                    log.warning("sweep failed: %s: %s", type(exc).__name__, exc)
                failing = True

    async def _publish_loop(self) -> None:
        failing = False
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.settings.lobby_publish_seconds):
                    await self._changed.wait()
            self._changed.clear()
            try:
                await self.publish()
                failing = False
            except Exception as exc:
                if not failing:
                    log.warning("lobby publication failed: %s: %s", type(exc).__name__, exc)
                failing = True
            await asyncio.sleep(0.05)  # a burst of changes: one publication

    # ----------------------------------------------------------------- requests to owners
    async def call(self, table_id: str, method: str, args: dict[str, Any],
                   timeout: float = CALL_TIMEOUT_SECONDS) -> dict[str, Any]:
        """Ask the process owning ``table_id`` to run its ``method`` handler; its answer.
        :class:`OwnerUnreachable` when no process owns it or none answered in ``timeout``."""
        holder = await self.leases.holder(table_id)
        if holder is None:
            raise OwnerUnreachable(f"table {table_id} has no owner process right now")
        call_id = uuid.uuid4().hex
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = future
        request = {"k": "req", "id": call_id, "from": self.owner, "m": method, "a": args}
        try:
            got = await self.redis.publish(f"{self.settings.redis_prefix}:node:{holder.owner}",
                                           orjson.dumps(request))
            if not got:
                raise OwnerUnreachable(f"the owner of table {table_id} does not listen")
            async with asyncio.timeout(timeout):
                return await future
        except TimeoutError:
            raise OwnerUnreachable(f"the owner of table {table_id} did not answer within "
                                   f"{timeout:g} s") from None
        finally:
            self._calls.pop(call_id, None)

    async def broadcast(self, method: str, args: dict[str, Any],
                        timeout: float = CALL_TIMEOUT_SECONDS) -> tuple[list[dict[str, Any]], int]:
        """Ask every other member to run its ``method`` handler: the answers that came within
        ``timeout``, and how many members were asked (those listening when it was sent; a
        member that did not answer in time is missing from the answers)."""
        call_id = uuid.uuid4().hex
        gather = _Gather()
        self._gathers[call_id] = gather
        request = {"k": "req", "id": call_id, "from": self.owner, "m": method, "a": args,
                   "all": True}
        try:
            heard = int(await self.redis.publish(self.everyone, orjson.dumps(request)))
            gather.expect(max(0, heard - (1 if self._listening else 0)))
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await gather.done.wait()
            return list(gather.answers), gather.expected
        finally:
            self._gathers.pop(call_id, None)

    async def _read(self) -> None:
        subscribed = False
        while True:
            try:
                if not subscribed:
                    await self._pubsub.subscribe(self.channel, self.everyone)
                    subscribed = self._listening = True
                message = await self._pubsub.get_message(ignore_subscribe_messages=True,
                                                         timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if subscribed:
                    log.warning("request channel: %s: %s", type(exc).__name__, exc)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            try:
                data = orjson.loads(message["data"])
                kind = data["k"]
            except (orjson.JSONDecodeError, KeyError, TypeError):
                log.warning("request channel: a malformed message was ignored")
                continue
            if kind == "rep":
                call_id = str(data.get("id"))
                future = self._calls.get(call_id)
                if future is not None and not future.done():
                    future.set_result(data.get("r") or {})
                gather = self._gathers.get(call_id)
                if gather is not None:
                    gather.add(data.get("r") or {})
            elif kind == "req" and not (data.get("all") and data.get("from") == self.owner):
                self._spawn(self._answer(data))

    async def _answer(self, data: dict[str, Any]) -> None:
        handler = self.handlers.get(str(data.get("m")))
        try:
            if handler is None:
                raise LookupError(f"no request {data.get('m')!r}")
            result = await handler(dict(data.get("a") or {}))
        except Exception as exc:
            log.exception("request %s failed", data.get("m"))
            result = {"error": {"status": 500, "code": "internal",
                                "message": f"the owner process failed: {type(exc).__name__}",
                                "field": None}}
        reply = {"k": "rep", "id": data.get("id"), "r": result}
        with contextlib.suppress(Exception):
            await self.redis.publish(f"{self.settings.redis_prefix}:node:{data.get('from')}",
                                     orjson.dumps(reply))

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class _Gather:
    """The answers to one :meth:`ClusterNode.broadcast`."""

    def __init__(self) -> None:
        self.answers: list[dict[str, Any]] = []
        self.expected = 0
        self.done = asyncio.Event()
        self._known = False

    def expect(self, members: int) -> None:
        self.expected, self._known = members, True
        self._check()

    def add(self, answer: dict[str, Any]) -> None:
        if isinstance(answer, dict):
            self.answers.append(answer)
        self._check()

    def _check(self) -> None:
        if self._known and len(self.answers) >= self.expected:
            self.done.set()
