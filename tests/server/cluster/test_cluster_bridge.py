"""WebSocket clients of a table another process owns (cluster/bridge.py): real servers (an
owner and one or two edges, each uvicorn in a thread with its own database and event loop)
talking over the machine's Redis; each process's cluster node is a small stand-in with real
leases, so what the edge learns of the owner comes from Redis only."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cluster_helpers import redis_client
from server_helpers import Client, LiveServer, check_frames, live_server, open_socket
from test_play import play_one_hand
from websockets.exceptions import ConnectionClosed, InvalidStatus

from ginrummy.server.cluster.bridge import Bridge, bridge_of
from ginrummy.server.cluster.lease import Lease, LeaseKeeper, LeaseStore, make_owner_id
from ginrummy.server.cluster.relay import OUTBOX, Envelope, Relay


class StandInNode:
    """The part of a cluster node the bridge uses, with real leases (no renewal: a minute's
    ttl outlasts a test)."""

    def __init__(self, prefix: str) -> None:
        self.redis = redis_client()
        self.owner = make_owner_id()
        self.relay = Relay(self.redis, self.owner, prefix)
        self.leases = LeaseKeeper(LeaseStore(self.redis, self.owner, prefix), self._lost,
                                  ttl_ms=60_000)
        self.on_acquired: list[Any] = []
        self.on_released: list[Any] = []

    async def _lost(self, _lease: Lease) -> None:
        return None

    async def ensure(self, table_id: str) -> str | None:
        if self.owns(table_id):
            return "local"
        return "remote" if await self.leases.store.holder(table_id) is not None else None

    def owns(self, table_id: str) -> bool:
        return table_id in self.leases.leases

    async def acquire(self, table_id: str) -> None:
        assert await self.leases.acquire(table_id) is not None
        for hook in self.on_acquired:
            await hook(table_id)

    async def release(self, table_id: str) -> None:
        await self.leases.release(table_id)
        for hook in self.on_released:
            await hook(table_id)


@dataclass
class Process:
    """A running server with its stand-in node and bridge."""

    live: LiveServer
    node: StandInNode
    bridge: Bridge

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 30) -> Any:
        """Run a coroutine in the server's event loop and wait for its result."""
        loop = self.live.app.state.server.committer._task.get_loop()
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)


@contextlib.contextmanager
def process(tmp_path: Path, name: str, prefix: str, **settings: Any) -> Iterator[Process]:
    """A server process of a cluster (its own SQLite database: only the owner's has the
    tables)."""
    folder = tmp_path / name
    folder.mkdir()
    with live_server(folder, **settings) as live:
        server = live.app.state.server
        loop = server.committer._task.get_loop()

        async def start() -> tuple[StandInNode, Bridge]:
            node = StandInNode(prefix)
            server.cluster = node
            return node, await bridge_of(server)

        node, bridge = asyncio.run_coroutine_threadsafe(start(), loop).result(30)
        proc = Process(live, node, bridge)
        try:
            yield proc
        finally:
            async def stop() -> None:
                await bridge.close()
                await node.redis.aclose()

            proc.run(stop())


def owned_table(owner: Process) -> tuple[str, str, str]:
    """A two-seat table created at the owner, which holds its lease: id and both tokens."""
    created = owner.live.create(nickname="Ann")
    table_id = created["table_id"]
    joined = owner.live.join(table_id, nickname="Bob")
    owner.run(owner.node.acquire(table_id))
    return table_id, created["token"], joined["token"]


def close_code(client: Client, timeout: float = 30) -> int:
    """Read until the server closes the connection; its close code."""
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            client.recv(timeout)
    rcvd = closed.value.rcvd
    assert rcvd is not None, "closed without a close frame"
    return int(rcvd.code)


def state_versions(client: Client) -> list[int]:
    return [m["version"] for m in client.frames if m["type"] == "state"]


@pytest.fixture
def pair(tmp_path: Path, prefix: str) -> Iterator[tuple[Process, Process]]:
    """An owner process and an edge process."""
    with process(tmp_path, "owner", prefix) as owner, process(tmp_path, "edge", prefix) as edge:
        yield owner, edge


def test_a_relayed_client_gets_welcome_and_state_and_its_action_is_acknowledged(
        pair: tuple[Process, Process]) -> None:
    owner, edge = pair
    table_id, ann_token, bob_token = owned_table(owner)
    assert edge.run(edge.node.ensure(table_id)) == "remote"
    ann = Client.open(edge.live, table_id, ann_token)  # waits for welcome, then state
    bob = Client.open(edge.live, table_id, bob_token)
    assert ann.frames[0]["type"] == "welcome" and ann.frames[0]["seat"] == 0
    assert bob.state["seat"] == 1 and bob.state["view"]["hand"]
    mover = (ann, bob)[ann.state["view"]["to_move"]]
    state = mover.reach(ann.state["version"])
    mover.send({"type": "action", "id": "r1", "version": state["version"],
                "action": state["legal"][0]})
    answer = mover.answer()
    assert answer["type"] == "state" and answer["ack"] == "r1"
    assert answer["version"] == state["version"] + 1
    stored = owner.live.stored_table(table_id)
    assert stored.version == state["version"] + 1  # played and committed by the owner
    assert edge.live.stored_table(table_id) is None  # the edge's database has no such table
    assert not edge.live.lobby.writers  # nor its memory
    assert len(owner.bridge.owner.sessions[table_id]) == 2
    mover.send({"type": "ping"})
    assert mover.wait(lambda m: m["type"] == "pong")["type"] == "pong"


def test_a_bad_token_is_refused_with_the_same_code_as_locally(
        pair: tuple[Process, Process]) -> None:
    owner, edge = pair
    table_id, _ann, _bob = owned_table(owner)
    codes = []
    for proc in (owner, edge):  # owner: a local session; edge: relayed
        client = Client.open(proc.live, table_id, hello=False)
        client.send({"type": "hello", "protocol": 2, "token": "not-a-token"})
        codes.append(close_code(client))
    assert codes == [4401, 4401]
    late = Client.open(edge.live, table_id, hello=False)
    late.send({"type": "action", "id": "x", "version": 1, "action": "stock"})  # not a hello
    assert close_code(late) == 4400
    unknown = Client.open(edge.live, "nosuchtable", hello=False)
    assert close_code(unknown) == 4404


def test_a_relayed_hand_keeps_every_frame_in_order_and_shows_nothing_hidden(
        pair: tuple[Process, Process]) -> None:
    owner, edge = pair
    table_id, ann_token, bob_token = owned_table(owner)
    ann = Client.open(edge.live, table_id, ann_token)
    bob = Client.open(edge.live, table_id, bob_token)
    watcher = Client.open(edge.live, table_id)
    sent = play_one_hand(ann, bob, watcher, prefix="o")
    assert sent >= 2
    final = owner.live.stored_table(table_id).version
    for seat, client in ((0, ann), (1, bob), (None, watcher)):
        client.reach(final)
        versions = state_versions(client)
        assert versions == sorted(versions), f"seat {seat}: states out of order {versions}"
        assert versions[-1] == final
        assert check_frames(owner.live, table_id, client.frames, seat) >= sent


def test_a_relayed_client_and_a_local_client_play_the_same_table(
        pair: tuple[Process, Process]) -> None:
    owner, edge = pair
    table_id, ann_token, bob_token = owned_table(owner)
    ann = Client.open(owner.live, table_id, ann_token)  # at the owner itself
    bob = Client.open(edge.live, table_id, bob_token)  # through the edge
    sent = play_one_hand(ann, bob, prefix="m")
    final = owner.live.stored_table(table_id).version
    assert bob.reach(final)["version"] >= final  # the relayed client saw it all
    assert ann.reach(final)["version"] >= final
    assert sent >= 2
    assert check_frames(owner.live, table_id, bob.frames, 1) >= sent


def test_a_released_table_closes_its_relayed_clients_with_1012(
        pair: tuple[Process, Process]) -> None:
    owner, edge = pair
    table_id, ann_token, _bob = owned_table(owner)
    ann = Client.open(edge.live, table_id, ann_token)
    owner.run(owner.node.release(table_id))
    assert close_code(ann) == 1012
    assert owner.bridge.owner.sessions.get(table_id, {}) == {}
    # the edge forgets the socket, and nobody holds the table's lease any more
    assert edge.run(edge.node.ensure(table_id)) is None


def test_a_dead_owner_sends_its_relayed_clients_to_reconnect(
        tmp_path: Path, prefix: str) -> None:
    with process(tmp_path, "owner", prefix) as owner, process(tmp_path, "edge", prefix) as edge:
        edge.bridge.edge.check_seconds = 0.2
        table_id, ann_token, _bob = owned_table(owner)
        ann = Client.open(edge.live, table_id, ann_token)
        # the owner stops without a word (no on_released): its lease goes to another process
        owner.run(owner.bridge.owner._subscription.leave(table_id, "in"))
        owner.node.leases.leases.pop(table_id)

        async def expire_and_take() -> None:
            await owner.node.redis.delete(owner.node.leases.store.key(table_id, "lease"))
            heir = LeaseStore(owner.node.redis, "heir", owner.node.relay.prefix)
            assert await heir.acquire(table_id, 60_000) is not None

        owner.run(expire_and_take())
        assert close_code(ann) == 1012


def test_a_seat_view_reaches_only_its_connection_and_other_edges_drop_it(
        tmp_path: Path, prefix: str) -> None:
    with process(tmp_path, "owner", prefix) as owner, \
            process(tmp_path, "edge_a", prefix) as edge_a, \
            process(tmp_path, "edge_b", prefix) as edge_b:
        table_id, ann_token, bob_token = owned_table(owner)
        seen: list[Envelope] = []

        async def spy() -> None:  # every envelope of the table's outbox, as Redis carries it
            subscription = Relay(owner.node.redis, "spy", owner.node.relay.prefix).subscribe()
            await subscription.listen(table_id, OUTBOX)
            try:
                while True:
                    envelope = await subscription.get(timeout=0.2)
                    if envelope is not None:
                        seen.append(envelope)
            finally:
                await subscription.close()

        spying = edge_b.run(_started(spy()))
        watcher = Client.open(edge_b.live, table_id)  # a spectator at another edge, first
        ann = Client.open(edge_a.live, table_id, ann_token)
        bob = Client.open(edge_a.live, table_id, bob_token)
        sent = play_one_hand(ann, bob, watcher, prefix="h")
        final = owner.live.stored_table(table_id).version
        watcher.reach(final)
        edge_b.run(_cancel(spying))
        assert check_frames(owner.live, table_id, watcher.frames, None) >= sent
        assert all(m.get("seat") is None for m in watcher.frames if m["type"] == "state")
        # every frame went to one connection; each seat's views to its own connection only
        assert seen and all(e.connection is not None for e in seen)
        seat_of: dict[str, int | None] = {}
        for envelope in seen:
            frame = json.loads(envelope.frame) if envelope.kind == "text" else {}
            if frame.get("type") in ("welcome", "state"):
                seat = frame["seat"]
                assert seat_of.setdefault(envelope.connection or "", seat) == seat
        assert sorted(seat_of.values(), key=str) == [0, 1, None]
        # edge_b received the seats' frames (pub/sub) and delivered none of them
        seat_frames = sum(1 for e in seen if seat_of.get(e.connection or "") is not None)
        assert edge_b.bridge.edge.dropped >= seat_frames > sent
        # and edge_a, subscribed from ann's first frame on, dropped the spectator's frames
        first = next(i for i, e in enumerate(seen) if seat_of.get(e.connection or "") == 0)
        watched = sum(1 for e in seen[first:] if seat_of.get(e.connection or "", 0) is None)
        assert edge_a.bridge.edge.dropped >= watched > sent


async def _started(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    task = asyncio.get_running_loop().create_task(coro)
    await asyncio.sleep(0.3)  # subscribed
    return task


async def _cancel(task: asyncio.Task[None]) -> None:
    await asyncio.sleep(0.5)  # the last envelopes arrive
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def test_frames_over_the_size_limit_close_at_the_edge(tmp_path: Path, prefix: str) -> None:
    with process(tmp_path, "owner", prefix) as owner, \
            process(tmp_path, "edge", prefix, frame_limit=4096) as edge:
        table_id, ann_token, _bob = owned_table(owner)
        ann = Client.open(edge.live, table_id, ann_token)
        ann.send({"type": "chat", "text": "x" * 5000})
        assert close_code(ann) == 1009
        with pytest.raises(InvalidStatus) as refused:  # the Origin check, before any relay
            open_socket(f"{edge.live.ws_base}/ws/tables/{table_id}",
                        origin="http://evil.example")
        assert refused.value.response.status_code == 403
        assert not edge.bridge.edge.links  # nothing left relayed
