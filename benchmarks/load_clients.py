"""The simulated people of the load benchmark (``benchmarks/load_server.py``).

One client process runs many tables on one asyncio loop: for each table it creates the table
(``POST /api/tables``), seats a second guest (``POST /api/tables/{id}/join``), opens one
WebSocket per seat and plays. Every seat answers the ``legal`` list of its ``state`` after a
think time (one second by default): the first-turn offer is passed, a draw is mostly from the
stock, the discard is the unmatched card with the most deadwood, a knock or gin is taken when
offered and the proposed layoff accepted; between hands the seat says ``next`` and after a
match ``rematch``. Latency is measured from just before an action is sent to the arrival of
its acknowledgement: the message that carries its ``ack`` (an action sent again is answered by
an ``ack`` message). The seats speak protocol 3 by default (``WorkerPlan.protocol``): a whole
``state`` first, then a ``delta`` per change, applied with the server's own reducer
(:func:`ginrummy.server.core.delta.apply_delta`; a delta that does not apply is counted as a
``delta_gap`` error and answered with a ``resync``); protocol 2 gets whole states only.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection

from ginrummy.server.core.delta import DeltaError, apply_delta

RANKS = "A23456789TJQK"

try:
    import orjson

    loads: Callable[[str], Any] = orjson.loads

    def dumps(value: Any) -> str:
        """Compact JSON text (a text frame: the server refuses binary ones)."""
        return orjson.dumps(value).decode()
except ImportError:  # pragma: no cover - orjson comes with the server extra
    loads = json.loads

    def dumps(value: Any) -> str:
        """Compact JSON text."""
        return json.dumps(value, separators=(",", ":"))


@dataclass(frozen=True)
class WorkerPlan:
    """What one client process does (sent to it when it starts)."""

    worker: int
    base_url: str
    tables: int
    """Tables this process opens."""
    first_table: int
    """Index of its first table among all processes' (staggers the ramp-up)."""
    total_tables: int
    think: float
    jitter: float
    preset: str
    clock_seconds: float
    seed: int
    protocol: int = 3
    """The protocol the seats ask for in ``hello`` (3: deltas; 2: whole states)."""


@dataclass(frozen=True)
class Timeline:
    """Wall-clock moments (``time.time()``) shared by every process of a run."""

    start: float
    """The ramp-up begins: tables are opened evenly until ``start + ramp``."""
    ramp: float
    window_start: float
    window_end: float
    drain: float
    """Longest wait after ``window_end`` for the acks still due."""


@dataclass
class WorkerResult:
    """What one client process measured (sent back to the parent)."""

    worker: int
    latencies_ms: list[float] = field(default_factory=list)
    """Send-to-ack latency of the actions sent inside the window."""
    sent_at: list[float] = field(default_factory=list)
    """When each of those actions was sent (wall clock), in the same order."""
    lags_ms: list[float] = field(default_factory=list)
    """How late the client sent an action after its think time (client-side overload)."""
    sent_in_window: int = 0
    acks_in_window: int = 0
    acks_total: int = 0
    acked: list[tuple[str, str]] = field(default_factory=list)
    """(table id, action id) of every acknowledged action of the whole run."""
    unanswered: int = 0
    """Actions with neither ack nor error when the client stopped."""
    errors: Counter[str] = field(default_factory=Counter)
    """Error codes received, plus ``create``/``join``/``connect``/``closed:<code>`` failures."""
    tables_opened: int = 0
    tables_late: int = 0
    """Tables opened only after the window had begun (the ramp-up overran)."""
    table_ids: list[str] = field(default_factory=list)
    states: int = 0
    state_bytes: int = 0
    deltas: int = 0
    delta_bytes: int = 0
    received_bytes: int = 0
    """Every frame received (states, deltas, acks, errors, chat), in bytes of text."""
    first_state_bytes: int = 0
    """The first ``state`` of each connection (after ``hello``): paid once per connection,
    whatever the number of actions (the rest is what each action costs)."""
    cpu_seconds: float = 0.0


def choose_action(legal: list[str], hints: dict[str, Any] | None, rng: random.Random) -> str:
    """A simple legal choice: gin, knock or the proposed layoff when there is one; pass the
    first-turn offer; draw from the stock four times in five; discard the unmatched card with
    the most deadwood."""
    for prefix in ("gin", "knock", "layoff"):
        for action in legal:
            if action.startswith(prefix):
                return action
    if "pass" in legal:
        return "pass"
    if "stock" in legal:
        return "take" if "take" in legal and rng.random() < 0.2 else "stock"
    discards = [a for a in legal if a.startswith("discard ")]
    if discards:
        unmatched = set((hints or {}).get("unmatched") or [])
        preferred = [a for a in discards if a.split()[1] in unmatched] or discards
        return max(preferred, key=lambda a: (_deadwood(a.split()[1]), rng.random()))
    return rng.choice(legal)


def _deadwood(card: str) -> int:
    rank = RANKS.find(card[0].upper())
    return min(rank + 1, 10) if rank >= 0 else 0


class Seat:
    """One guest at one table, on its own WebSocket."""

    def __init__(self, table: str, seat: int, token: str, plan: WorkerPlan, timeline: Timeline,
                 result: WorkerResult, rng: random.Random) -> None:
        self.table = table
        self.seat = seat
        self.token = token
        self.plan = plan
        self.timeline = timeline
        self.result = result
        self.rng = rng
        self.ws: ClientConnection | None = None
        self.state: dict[str, Any] | None = None
        """The latest state, whole or made from deltas (``None``: waiting for a resync)."""
        self.resync: asyncio.Future[None] | None = None
        """The ``resync`` sent after a delta that did not apply."""
        self.version = -1
        self.scheduled: tuple[str, int] | None = None
        """(what, version) of the reply already scheduled, so a state is answered once."""
        self.pending: dict[str, tuple[float, float]] = {}
        """Action id -> (wall time sent, perf_counter sent)."""
        self.counter = 0
        self.stopping = False

    async def run(self, ws_url: str) -> None:
        """Connect, say hello, and play until the run stops."""
        result = self.result
        try:
            origin = "http" + ws_url.removeprefix("ws").split("/ws/", 1)[0]  # the page's
            async with websockets.connect(ws_url, max_size=2**22, open_timeout=60,
                                          ping_interval=None, close_timeout=2,
                                          origin=origin) as ws:  # type: ignore[arg-type]
                self.ws = ws
                await ws.send(dumps({"type": "hello", "protocol": self.plan.protocol,
                                     "token": self.token}))
                async for raw in ws:
                    text = raw if isinstance(raw, str) else raw.decode()
                    self.on_message(text)
        except websockets.ConnectionClosed as exc:
            if not self.stopping:
                code = exc.rcvd.code if exc.rcvd is not None else "none"
                result.errors[f"closed:{code}"] += 1
        except (OSError, TimeoutError, websockets.InvalidHandshake):
            result.errors["connect"] += 1

    def stop(self) -> None:
        """No new moves; the connection closes once its pending acks are in."""
        self.stopping = True

    async def close(self) -> None:
        """Close the socket (at the end of the drain)."""
        self.stopping = True
        self.result.unanswered += len(self.pending)
        self.pending.clear()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()

    def on_message(self, text: str) -> None:
        """Handle one server message."""
        msg = loads(text)
        kind = msg.get("type")
        self.result.received_bytes += len(text)
        if kind == "delta":
            self.result.deltas += 1
            self.result.delta_bytes += len(text)
            if self.state is None:  # a resync is on its way
                return
            try:
                state = apply_delta(self.state, msg)
            except DeltaError:
                self.result.errors["delta_gap"] += 1
                self.state = None
                if self.ws is not None:
                    self.resync = asyncio.ensure_future(self.ws.send(dumps({"type": "resync"})))
                return
            self.state = state
            if "ack" in msg:  # the delta that acknowledges this seat's action
                self.on_ack({"id": msg["ack"]})
            self.on_state(state)
        elif kind == "state":
            self.result.states += 1
            self.result.state_bytes += len(text)
            if self.state is None and self.resync is None:  # the first, after hello
                self.result.first_state_bytes += len(text)
            self.state = msg
            if "ack" in msg:  # the state that acknowledges this seat's action
                self.on_ack({"id": msg["ack"]})
            self.on_state(msg)
        elif kind == "ack":  # an action sent again
            self.on_ack(msg)
        elif kind == "error":
            self.result.errors[str(msg.get("code"))] += 1
            self.pending.pop(str(msg.get("id")), None)

    def on_ack(self, msg: dict[str, Any]) -> None:
        """Record the latency of an acknowledged action."""
        action_id = str(msg.get("id"))
        sent = self.pending.pop(action_id, None)
        if sent is None:
            return
        wall, started = sent
        latency = (time.perf_counter() - started) * 1000
        result = self.result
        result.acks_total += 1
        result.acked.append((self.table, action_id))
        if self.timeline.window_start <= wall < self.timeline.window_end:
            result.acks_in_window += 1
            result.latencies_ms.append(latency)
            result.sent_at.append(wall)

    def on_state(self, msg: dict[str, Any]) -> None:
        """Schedule this seat's reply to a state, if it has one to make."""
        version = int(msg["version"])
        self.version = max(self.version, version)
        if self.stopping or time.time() >= self.timeline.window_end:
            self.stopping = True
            return
        what: str | None = None
        legal = msg.get("legal") or []
        next_hand = msg.get("next_hand")
        if legal:
            what = "action"
        elif next_hand is not None and self.seat not in (next_hand.get("ready") or []):
            what = "next"
        elif msg.get("result") is not None and self.seat not in (msg.get("rematch") or []):
            what = "rematch"
        if what is None or self.scheduled == (what, version):
            return
        self.scheduled = (what, version)
        think = self.plan.think * (1 + self.plan.jitter * (2 * self.rng.random() - 1))
        due = time.perf_counter() + think
        payload = (choose_action(legal, msg.get("hints"), self.rng) if what == "action"
                   else None)
        asyncio.get_running_loop().call_later(
            max(0.0, think), lambda: asyncio.ensure_future(
                self.reply(what, version, payload, due)))

    async def reply(self, what: str, version: int, action: str | None, due: float) -> None:
        """Send the scheduled reply unless the table moved on meanwhile."""
        ws = self.ws
        if ws is None or self.stopping or version != self.version:
            return
        if what != "action":
            with contextlib.suppress(websockets.ConnectionClosed):
                await ws.send(dumps({"type": what}))
            return
        self.counter += 1
        action_id = f"{self.seat}-{self.counter}"
        text = dumps({"type": "action", "id": action_id, "version": version,
                      "action": action})
        started = time.perf_counter()
        wall = time.time()
        self.result.lags_ms.append((started - due) * 1000)
        if self.timeline.window_start <= wall < self.timeline.window_end:
            self.result.sent_in_window += 1
        self.pending[action_id] = (wall, started)
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(text)


async def open_table(index: int, client: httpx.AsyncClient, plan: WorkerPlan,
                     timeline: Timeline, result: WorkerResult,
                     seats: list[Seat], tasks: list[asyncio.Task[None]], home: str = "",
                     seat_base: Callable[[int], str] | None = None) -> None:
    """Create one table with two guests and start both seats' players. ``home``: the server
    that creates it (default: the client's base URL); ``seat_base(seat)``: the server each
    seat plays through (default: the same)."""
    position = plan.first_table + index
    when = timeline.start + timeline.ramp * position / max(1, plan.total_tables)
    await asyncio.sleep(max(0.0, when - time.time()))
    body = {"nickname": f"load{position}a", "preset": plan.preset, "public": True,
            "clock_seconds": plan.clock_seconds}
    headers = {"Origin": home} if home else None
    try:
        created = await client.post(f"{home}/api/tables", json=body, headers=headers)
        if created.status_code != 201:
            result.errors[f"create:{created.status_code}"] += 1
            return
        table_id = created.json()["table_id"]
        joined = await client.post(f"{home}/api/tables/{table_id}/join",
                                   json={"nickname": f"load{position}b"}, headers=headers)
        if joined.status_code != 200:
            result.errors[f"join:{joined.status_code}"] += 1
            return
    except httpx.HTTPError as exc:
        result.errors[f"http:{type(exc).__name__}"] += 1
        return
    result.tables_opened += 1
    if time.time() > timeline.window_start:
        result.tables_late += 1
    result.table_ids.append(table_id)
    rng = random.Random(plan.seed * 1_000_003 + position)
    for seat_no, token in ((0, created.json()["token"]), (1, joined.json()["token"])):
        base = seat_base(seat_no) if seat_base is not None else (home or plan.base_url)
        ws_url = base.replace("http://", "ws://", 1) + f"/ws/tables/{table_id}"
        seat = Seat(table_id, seat_no, token, plan, timeline, result, rng)
        seats.append(seat)
        tasks.append(asyncio.create_task(seat.run(ws_url)))


Opener = Callable[[int, WorkerResult, list[Seat], list[asyncio.Task[None]]], Awaitable[None]]
"""Opens table ``index`` of this process and starts its seats (adding them to the lists)."""


async def play(plan: WorkerPlan, timeline: Timeline) -> WorkerResult:
    """Run this process's share of the tables for the whole timeline."""
    client = httpx.AsyncClient(base_url=plan.base_url, timeout=60,
                               limits=httpx.Limits(max_connections=20),
                               headers={"Origin": plan.base_url})

    def opener(index: int, result: WorkerResult, seats: list[Seat],
               tasks: list[asyncio.Task[None]]) -> Awaitable[None]:
        return open_table(index, client, plan, timeline, result, seats, tasks)

    return await play_tables(plan.worker, plan.tables, client, opener, timeline)


async def play_tables(worker: int, tables: int, client: httpx.AsyncClient, opener: Opener,
                      timeline: Timeline) -> WorkerResult:
    """Open ``tables`` tables through ``client`` (closed once they are open), let their
    seats play until the window ends, wait for the last acks (the drain), then stop."""
    result = WorkerResult(worker)
    seats: list[Seat] = []
    tasks: list[asyncio.Task[None]] = []
    async with client:
        await asyncio.gather(*(opener(i, result, seats, tasks) for i in range(tables)))
    freezer = asyncio.create_task(freeze_periodically())
    await asyncio.sleep(max(0.0, timeline.window_end - time.time()))
    for seat in seats:
        seat.stop()
    deadline = time.time() + timeline.drain
    while any(seat.pending for seat in seats) and time.time() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.gather(*(seat.close() for seat in seats))
    freezer.cancel()
    for task in tasks:
        task.cancel()
    await asyncio.gather(freezer, *tasks, return_exceptions=True)
    return result


async def freeze_periodically(every: float = 0.25) -> None:
    """Put this client process's surviving objects out of the cyclic collector's reach every
    ``every`` seconds, as ``ginrummy serve`` does: a collection of the older generations walks
    every object of the process's seats and sockets, and paused a client with 1,000 of them
    for 10-70 ms (measured with ``gc.callbacks``), which the run counted as the server's
    latency for every state that arrived meanwhile. The garbage frozen with them (a few
    cycles a second) is freed when the process ends. Not the server's own
    ``ginrummy.cli.serve.freeze_survivors``: its young collections, there to keep a
    long-running server's memory flat, paused these clients for 8-27 ms on quiet ticks."""
    while True:
        gc.freeze()
        await asyncio.sleep(every)


def worker_main(plan: WorkerPlan, pipe: Connection) -> None:
    """Entry point of a client process: say ready, get the timeline, play, send results."""
    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    with contextlib.suppress(ImportError):
        import uvloop

        loop_factory = uvloop.new_event_loop
    pipe.send("ready")
    timeline: Timeline = pipe.recv()
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        result = runner.run(play(plan, timeline))
    cpu = time.process_time()
    result.cpu_seconds = cpu
    pipe.send(result)
    pipe.close()
