"""WebSocket clients of a table another process owns (cluster/bridge.py): real servers (an
owner and one or two edges, each uvicorn in a thread with its own event loop and cluster
node) sharing one PostgreSQL schema and the machine's Redis; what an edge learns of the
owner comes from Redis only."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cluster_helpers import REDIS_URL
from server_helpers import Client, LiveServer, check_frames, live_server, open_socket
from test_cluster_node import next_mover, until
from test_play import play_one_hand
from websockets.exceptions import ConnectionClosed, InvalidStatus

from ginrummy.server.cluster.node import ClusterNode
from ginrummy.server.cluster.relay import OUTBOX, Envelope, Relay
from ginrummy.server.http.bridge import Bridge, bridge_of
from pg_helpers import pg_schema, schema_url


@dataclass
class Process:
    """A running server that is a member of the cluster, with its bridge."""

    live: LiveServer
    node: ClusterNode
    bridge: Bridge

    def run(self, coro: Coroutine[Any, Any, Any], timeout: float = 30) -> Any:
        """Run a coroutine in the server's event loop and wait for its result."""
        assert self.node.loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self.node.loop).result(timeout)


@contextlib.contextmanager
def process(tmp_path: Path, name: str, db: str, prefix: str,
            **settings: Any) -> Iterator[Process]:
    """A server process of the cluster on ``db`` and ``prefix`` (short leases and sweeps)."""
    folder = tmp_path / name
    folder.mkdir()
    values: dict[str, Any] = dict(db=db, redis=REDIS_URL, redis_prefix=prefix,
                                  lease_ttl_ms=3000, sweep_seconds=0.2,
                                  lobby_publish_seconds=0.5)
    values.update(settings)
    with live_server(folder, **values) as live:
        server = live.app.state.server
        node = server.cluster
        assert isinstance(node, ClusterNode) and node.loop is not None

        async def start() -> Bridge:
            return await bridge_of(server)  # the one app.py installed, if it did

        bridge = asyncio.run_coroutine_threadsafe(start(), node.loop).result(30)
        yield Process(live, node, bridge)


@pytest.fixture
def db() -> Iterator[str]:
    """The URL of a fresh PostgreSQL schema the processes of a test share."""
    with pg_schema("bridge") as schema:
        yield schema_url(schema)


def owned_table(owner: Process) -> tuple[str, str, str]:
    """A two-seat table created at the owner, which holds its lease: id and both tokens."""
    created = owner.live.create(nickname="Ann")
    table_id = created["table_id"]
    joined = owner.live.join(table_id, nickname="Bob")
    assert owner.node.owns(table_id)
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
def pair(tmp_path: Path, db: str, prefix: str) -> Iterator[tuple[Process, Process]]:
    """An owner process and an edge process."""
    with process(tmp_path, "owner", db, prefix) as owner, \
            process(tmp_path, "edge", db, prefix) as edge:
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
    assert table_id not in edge.live.lobby.writers  # the edge does not play it
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


@pytest.mark.parametrize("protocol", [2, 3])
def test_a_relayed_hand_keeps_every_frame_in_order_and_shows_nothing_hidden(
        pair: tuple[Process, Process], protocol: int) -> None:
    """Protocol 3: the owner's deltas cross the relay as they are, and apply in order."""
    owner, edge = pair
    table_id, ann_token, bob_token = owned_table(owner)
    ann = Client.open(edge.live, table_id, ann_token, protocol=protocol)
    bob = Client.open(edge.live, table_id, bob_token, protocol=protocol)
    watcher = Client.open(edge.live, table_id, protocol=protocol)
    sent = play_one_hand(ann, bob, watcher, prefix="o")
    assert sent >= 2
    deltas = sum(m["type"] == "delta" for m in ann.frames)
    assert deltas >= sent if protocol == 3 else deltas == 0
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


def test_an_unloaded_table_closes_its_relayed_clients_with_1012_and_they_come_back(
        pair: tuple[Process, Process]) -> None:
    owner, edge = pair
    table_id, ann_token, _bob = owned_table(owner)
    ann = Client.open(edge.live, table_id, ann_token)
    version = ann.state["version"]

    async def unload() -> None:  # the node's own path when a lease is lost (on_released)
        owner.node.unload(table_id, "the table moved to another server process: reconnect")

    owner.run(unload())
    assert close_code(ann) == 1012
    until(lambda: not owner.bridge.owner.sessions.get(table_id), what="sessions closed")
    # the client reconnects (at once, the web client: 1012 is not final) and lands where the
    # table is played now: the edge took it over when its owner let it go
    again = Client.open(edge.live, table_id, ann_token)
    assert again.state["version"] >= version and again.state["seat"] == 0
    assert edge.node.owns(table_id) and table_id in edge.live.lobby.writers


def test_a_dead_owner_sends_its_relayed_clients_to_the_new_owner(
        tmp_path: Path, db: str, prefix: str) -> None:
    with process(tmp_path, "owner", db, prefix) as owner, \
            process(tmp_path, "edge", db, prefix) as edge:
        edge.bridge.edge.check_seconds = 0.2
        table_id, ann_token, bob_token = owned_table(owner)
        ann = Client.open(edge.live, table_id, ann_token)
        bob = Client.open(edge.live, table_id, bob_token)

        async def die() -> None:  # it stops renewing, sweeping and listening, silently
            await owner.node.stop_background()
            await owner.node.keeper.stop()
            await owner.bridge.owner._subscription.leave(table_id, "in")
            await owner.node.redis.delete(owner.node.leases.key(table_id, "lease"))

        owner.run(die())
        assert close_code(ann) == 1012  # the edge saw the lease go and took the table over
        assert close_code(bob) == 1012
        assert edge.node.owns(table_id)
        clients = [Client.open(edge.live, table_id, token) for token in (ann_token, bob_token)]
        mover = next_mover(clients)
        state = mover.state
        mover.send({"type": "action", "id": "n1", "version": state["version"],
                    "action": state["legal"][0]})
        answer = mover.answer()
        assert answer["type"] == "state" and answer["ack"] == "n1"
        assert edge.live.stored_table(table_id).version == state["version"] + 1


def test_a_seat_view_reaches_only_its_connection_and_other_edges_drop_it(
        tmp_path: Path, db: str, prefix: str) -> None:
    with process(tmp_path, "owner", db, prefix) as owner, \
            process(tmp_path, "edge_a", db, prefix) as edge_a, \
            process(tmp_path, "edge_b", db, prefix) as edge_b:
        table_id, ann_token, bob_token = owned_table(owner)
        seen: list[Envelope] = []

        async def spy() -> None:  # every envelope of the table's outbox, as Redis carries it
            subscription = Relay(edge_b.node.redis, "spy", prefix).subscribe()
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


def test_frames_over_the_size_limit_close_at_the_edge(
        tmp_path: Path, db: str, prefix: str) -> None:
    with process(tmp_path, "owner", db, prefix) as owner, \
            process(tmp_path, "edge", db, prefix, frame_limit=4096) as edge:
        table_id, ann_token, _bob = owned_table(owner)
        ann = Client.open(edge.live, table_id, ann_token)
        ann.send({"type": "chat", "text": "x" * 5000})
        assert close_code(ann) == 1009
        with pytest.raises(InvalidStatus) as refused:  # the Origin check, before any relay
            open_socket(f"{edge.live.ws_base}/ws/tables/{table_id}",
                        origin="http://evil.example")
        assert refused.value.response.status_code == 403
        assert not edge.bridge.edge.links  # nothing left relayed
