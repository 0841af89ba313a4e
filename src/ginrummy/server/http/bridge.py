"""WebSocket clients of a table another process owns, over the relay (docs/cluster.md, "The
relay, wired").

Two sides, both in every process of a cluster:

- the **edge** (:class:`EdgeSide`) holds a client's socket when the table is owned elsewhere:
  it keeps the checks that need no table (Origin, caps per address, frame size, flood), sends
  the owner an ``open`` envelope, then each client text, and ``closed`` when the socket
  closes; it delivers to the socket, in order, the owner's frames addressed to that
  connection, closes it on a ``close`` envelope, asks for a ``resync`` after missed frames,
  and closes it with 1012 (the client reconnects at once, wherever the table now lives) when
  the owner changes or stops listening;
- the **owner** (:class:`OwnerSide`) listens to the inbox of each table it owns and runs, for
  each relayed connection, the same session as for a local socket
  (:func:`ginrummy.server.http.ws.run_session`) with a :class:`RemoteConnection`, whose frames go
  back on the table's outbox addressed to that connection only (a seat's view reaches no
  other connection; the other edges drop it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

import orjson
from starlette.websockets import WebSocket, WebSocketDisconnect

from ginrummy.server.cluster.lease import Holder, Lease
from ginrummy.server.cluster.relay import (
    CLOSE,
    CLOSED,
    INBOX,
    OPEN,
    OUTBOX,
    RESYNC,
    TEXT,
    Envelope,
    Relay,
    Subscription,
)
from ginrummy.server.core.protocol import Close
from ginrummy.server.core.settings import Settings
from ginrummy.server.http.ws import (
    Received,
    SessionClosed,
    SocketTexts,
    drain,
    receive_checked,
    run_session,
)
from ginrummy.server.play.connections import Connection
from ginrummy.server.play.lobby import Lobby
from ginrummy.server.play.tablewriter import TableWriter
from ginrummy.server.players.sessions import Account, socket_account

log = logging.getLogger("ginrummy.server.cluster.bridge")

MOVED = "the table moved: connect again"
"""The reason of a relayed connection closed because its table changed hands (code 1012)."""

Hook = Callable[[str], Awaitable[None]]


class Node(Protocol):
    """What the bridge needs of a process's cluster node (cluster/node.py's ``ClusterNode``)."""

    owner: str
    relay: Relay
    leases: Any
    """The lease store (``holder(table_id)``, ``holders(table_ids)``)."""
    keeper: Any
    """The keeper of this process's leases (``leases``: table id to :class:`Lease`)."""
    on_acquired: list[Hook]
    on_released: list[Hook]

    async def ensure(self, table_id: str) -> str | None:
        """``"local"``, ``"remote"`` or ``None`` (no such table)."""
        ...

    def owns(self, table_id: str) -> bool:
        """True while this process holds the table's lease."""
        ...


async def holder_of(node: Node, table_id: str) -> Holder | None:
    """Who holds a table's lease now."""
    holder: Holder | None = await node.leases.holder(table_id)
    return holder


def token_of(node: Node, table_id: str) -> int:
    """This process's lease token of a table (0 if it holds none)."""
    lease: Lease | None = node.keeper.leases.get(table_id)
    return 0 if lease is None else lease.token


def close_frame(code: int, reason: str) -> str:
    """The frame of a ``close`` envelope."""
    return orjson.dumps({"code": code, "reason": reason}).decode()


def _parse_close(frame: str) -> tuple[int, str]:
    try:
        raw = orjson.loads(frame)
        return int(raw["code"]), str(raw["reason"])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return Close.SERVER_ERROR, "server error"


class _Tasks:
    """Background tasks kept referenced until they end (their failures logged)."""

    def __init__(self) -> None:
        self.running: set[asyncio.Task[None]] = set()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.running.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.running.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("relay task failed", exc_info=task.exception())

    async def cancel(self) -> None:
        for task in list(self.running):
            task.cancel()
        for task in list(self.running):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def _envelopes(subscription: Subscription,
                     handle: Callable[[Envelope], None]) -> None:
    """Hand every envelope of a subscription to ``handle``, forever (errors logged)."""
    while True:
        try:
            envelope = await subscription.get(timeout=0.5)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the relay subscription failed; listening again in 1 s")
            await asyncio.sleep(1.0)
            continue
        if envelope is not None:
            try:
                handle(envelope)
            except Exception:
                log.exception("a relayed envelope could not be handled")


# ------------------------------------------------------------------ owner side
class RemoteConnection(Connection):
    """A client whose socket another process holds: what it is sent goes on the table's
    outbox addressed to its connection id, in order (the sender task of :class:`Connection`,
    its queue limit and close included)."""

    def __init__(self, relay: Relay, table_id: str, connection_id: str, token: int,
                 settings: Settings) -> None:
        super().__init__(None, settings)
        self.relay = relay
        self.table_id = table_id
        self.connection_id = connection_id
        self.token = token
        self.peer_gone = False
        """The edge said the client's socket closed: nothing more is sent."""

    async def deliver(self, text: str) -> None:
        """Publish a frame for this connection."""
        if not self.peer_gone:
            await self.relay.to_clients(self.table_id, self.token, text,
                                        connection=self.connection_id)

    async def deliver_close(self, code: int, reason: str) -> None:
        """Tell the edge to close the client's socket."""
        if not self.peer_gone:
            await self.relay.to_clients(self.table_id, self.token, close_frame(code, reason),
                                        connection=self.connection_id, kind=CLOSE)

    async def hang_up(self) -> None:
        """Close the client's socket (1000) when the session ended without a close."""
        if self.close_code is None and not self.peer_gone:
            with contextlib.suppress(Exception):
                await self.deliver_close(1000, "")


class RelayedTexts:
    """A relayed connection's client texts, as the owner's session reads them."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()

    def put(self, text: str) -> None:
        """A client text arrived."""
        self.queue.put_nowait(text)

    def end(self) -> None:
        """The client is gone: the session's next read ends it."""
        self.queue.put_nowait(None)

    async def receive(self) -> Received:
        """The next client text (:class:`SessionClosed` once the client is gone)."""
        text = await self.queue.get()
        if text is None:
            self.queue.put_nowait(None)  # every later read ends too
            raise SessionClosed
        return Received(text, len(text.encode("utf-8")))


@dataclass(eq=False)
class _RemoteSession:
    conn: RemoteConnection
    texts: RelayedTexts
    sender: str
    """The edge process holding the socket."""
    writer: TableWriter | None = None


class OwnerSide:
    """The sessions of relayed connections at the tables this process owns."""

    def __init__(self, node: Node, lobby: Lobby, settings: Settings) -> None:
        self.node = node
        self.relay = node.relay
        self.lobby = lobby
        self.settings = settings
        self.tables: set[str] = set()
        """Tables whose inbox this process listens to."""
        self.sessions: dict[str, dict[str, _RemoteSession]] = {}
        self._subscription = node.relay.subscribe()
        self._reader: asyncio.Task[None] | None = None
        self._tasks = _Tasks()

    async def acquired(self, table_id: str) -> None:
        """This process owns ``table_id`` from now: receive its relayed clients."""
        self.tables.add(table_id)
        await self._subscription.listen(table_id, INBOX)
        if self._reader is None:
            self._reader = asyncio.get_running_loop().create_task(
                _envelopes(self._subscription, self._handle), name="relay-owner")

    async def released(self, table_id: str) -> None:
        """This process no longer owns ``table_id``: its relayed clients are closed with 1012
        (they reconnect and reach the new owner)."""
        self.tables.discard(table_id)
        with contextlib.suppress(Exception):
            await self._subscription.leave(table_id, INBOX)
        for session in list(self.sessions.pop(table_id, {}).values()):
            session.conn.close(Close.RESTARTING, MOVED)
            session.texts.end()

    def _handle(self, envelope: Envelope) -> None:
        table_id, connection = envelope.table_id, envelope.connection
        if connection is None:
            return
        if table_id not in self.tables:
            if envelope.kind in (OPEN, TEXT):  # not ours (any more): the client reconnects
                self._tasks.spawn(self._refuse(table_id, connection))
            return
        sessions = self.sessions.setdefault(table_id, {})
        if envelope.gap:  # that edge's messages were lost: its clients start again
            for cid, lost in list(sessions.items()):
                if lost.sender == envelope.sender:
                    lost.conn.close(Close.RESTARTING, "messages were lost: connect again")
                    lost.texts.end()
                    del sessions[cid]
        session = sessions.get(connection)
        if envelope.kind == OPEN:
            if session is None:
                self._open(envelope, connection, sessions)
        elif session is None:
            if envelope.kind == TEXT:
                self._tasks.spawn(self._refuse(table_id, connection))
        elif envelope.kind == TEXT:
            session.texts.put(envelope.frame)
        elif envelope.kind == CLOSED:
            session.conn.peer_gone = True
            session.texts.end()
        elif envelope.kind == RESYNC:
            self._tasks.spawn(self._resync(session))

    def _open(self, envelope: Envelope, connection: str,
              sessions: dict[str, _RemoteSession]) -> None:
        try:
            meta = orjson.loads(envelope.frame)
            address = str(meta.get("address") or "unknown")
            raw = meta.get("account")
            account = None if raw is None else Account(
                int(raw[0]), str(raw[1]), "player", banned=bool(raw[2]) if len(raw) > 2
                else False, session_hash=str(raw[3]) if len(raw) > 3 and raw[3] else None)
        except (orjson.JSONDecodeError, AttributeError, TypeError, ValueError, IndexError):
            log.warning("a relayed open with a bad frame was refused: %.80r", envelope.frame)
            self._tasks.spawn(self._refuse(envelope.table_id, connection))
            return
        conn = RemoteConnection(self.relay, envelope.table_id, connection,
                                token_of(self.node, envelope.table_id), self.settings)
        conn.on_error = self.lobby.on_error
        session = sessions[connection] = _RemoteSession(conn, RelayedTexts(), envelope.sender)
        self._tasks.spawn(self._run(session, address, account))

    async def _run(self, session: _RemoteSession, address: str,
                   account: Account | None) -> None:
        conn = session.conn
        conn.start()

        async def account_of() -> Account | None:
            return account

        try:
            writer = await self.lobby.load(conn.table_id)
            if writer is None:
                conn.close(Close.UNKNOWN_TABLE, "unknown table")
            else:
                session.writer = writer
                await run_session(conn, writer, session.texts, self.settings, self.lobby,
                                  address, account_of)
        finally:
            await drain(conn)
            sessions = self.sessions.get(conn.table_id)
            if sessions is not None and sessions.get(conn.connection_id) is session:
                del sessions[conn.connection_id]

    async def _resync(self, session: _RemoteSession) -> None:
        writer = session.writer
        if writer is None or session.conn not in writer.connections:
            return  # before welcome: the state follows anyway
        async with writer.lock:
            session.conn.send(writer.state_for(session.conn))

    async def _refuse(self, table_id: str, connection: str) -> None:
        await self.relay.to_clients(table_id, token_of(self.node, table_id),
                                    close_frame(Close.RESTARTING, MOVED),
                                    connection=connection, kind=CLOSE)

    async def close(self) -> None:
        """Close every relayed connection (1012), let the sessions send their close (2 s at
        most), and stop listening."""
        for table_id in list(self.tables):
            await self.released(table_id)
        running = list(self._tasks.running)
        if running:
            await asyncio.wait(running, timeout=2.5)
        reader, self._reader = self._reader, None
        await _stop_listening(reader, self._tasks, self._subscription)


# ------------------------------------------------------------------ edge side
@dataclass(eq=False)
class _EdgeLink:
    conn: Connection
    table_id: str
    connection_id: str
    owner: Holder | None
    """The table's lease holder when the client connected (the owner its session is at)."""
    closed_by_owner: bool = False
    moving: bool = False


class EdgeSide:
    """The sockets this process holds for tables owned elsewhere."""

    SEND_ATTEMPTS = 10
    """Tries of an envelope nobody received (an owner still loading the table it just
    acquired does not listen yet), 0.2 s apart, before the client is sent to reconnect."""

    def __init__(self, node: Node, lobby: Lobby, settings: Settings,
                 check_seconds: float = 2.0) -> None:
        self.node = node
        self.relay = node.relay
        self.lobby = lobby
        self.settings = settings
        self.check_seconds = check_seconds
        """How often each table's lease holder is checked (a dead owner sends nothing)."""
        self.links: dict[str, dict[str, _EdgeLink]] = {}
        self.dropped = 0
        """Envelopes seen for connections of other processes (not delivered)."""
        self._subscription = node.relay.subscribe()
        self._lock = asyncio.Lock()
        self._watcher: asyncio.Task[None] | None = None
        """Reads the lease holders of every table with a relayed connection here, every
        ``check_seconds``, in one round trip."""
        self._reader: asyncio.Task[None] | None = None
        self._tasks = _Tasks()

    async def serve(self, websocket: WebSocket, table_id: str, address: str,
                    origin: str | None) -> None:
        """Relay an accepted socket to the table's owner until either side closes it."""
        conn = Connection(websocket, self.settings)
        conn.on_error = self.lobby.on_error
        conn.start()
        link = _EdgeLink(conn, table_id, secrets.token_urlsafe(18), None)
        try:
            link.owner = await holder_of(self.node, table_id)
            account = await socket_account(websocket)
            await self._join(link)
            meta = {"address": address, "origin": origin,
                    "account": None if account is None else [
                        account.id, account.name, account.banned, account.session_hash]}
            if await self._send(link, orjson.dumps(meta).decode(), OPEN):
                texts = SocketTexts(websocket)
                while not conn.closed:
                    text = await receive_checked(conn, texts, self.settings)
                    if text and not await self._send(link, text, TEXT):
                        break
        except (SessionClosed, WebSocketDisconnect):
            pass
        except Exception:
            log.exception("relaying a WebSocket failed")
            conn.close(Close.SERVER_ERROR, "server error")
        finally:
            await self._leave(link)
            if not link.closed_by_owner:
                with contextlib.suppress(Exception):
                    await self.relay.to_owner(table_id, link.connection_id, "", CLOSED)
            await drain(conn)

    async def _send(self, link: _EdgeLink, frame: str, kind: str) -> bool:
        """Send an envelope to the owner; ``False`` (the client told to reconnect) when no
        owner listens."""
        for attempt in range(self.SEND_ATTEMPTS):
            if await self.relay.to_owner(link.table_id, link.connection_id, frame, kind):
                return True
            if link.conn.closed:
                return False
            if attempt + 1 < self.SEND_ATTEMPTS:
                await asyncio.sleep(0.2)
        await self._moved(link)
        return False

    async def _moved(self, link: _EdgeLink) -> None:
        """The owner changed or is gone: look for (or become, and load) the owner, then close
        the client's socket with 1012 so that it reconnects at once (the web client does,
        without a reload: 1012 is not one of its final close codes)."""
        if link.moving:
            return
        link.moving = True
        try:
            await self.lobby.locate(link.table_id)
        except Exception:
            log.exception("could not find the new owner of table %s", link.table_id)
        link.conn.close(Close.RESTARTING, MOVED)

    async def _join(self, link: _EdgeLink) -> None:
        async with self._lock:
            links = self.links.get(link.table_id)
            if links is None:
                await self._subscription.listen(link.table_id, OUTBOX)
                links = self.links[link.table_id] = {}
            links[link.connection_id] = link
            if self._watcher is None:
                self._watcher = asyncio.get_running_loop().create_task(
                    self._watch(), name="relay-watch")
        if self._reader is None:
            self._reader = asyncio.get_running_loop().create_task(
                _envelopes(self._subscription, self._deliver), name="relay-edge")

    async def _leave(self, link: _EdgeLink) -> None:
        async with self._lock:
            links = self.links.get(link.table_id)
            if links is None or links.pop(link.connection_id, None) is None or links:
                return
            del self.links[link.table_id]
            with contextlib.suppress(Exception):
                await self._subscription.leave(link.table_id, OUTBOX)

    async def _watch(self) -> None:
        """Every few seconds: a table whose lease changed hands (or expired: its owner died)
        sends its clients here to reconnect. The holders of all the tables relayed here are
        read together (one ``MGET``), not one request per table."""
        while True:
            await asyncio.sleep(self.check_seconds)
            table_ids = list(self.links)
            if not table_ids:
                continue
            try:
                holders: dict[str, Holder] = await self.node.leases.holders(table_ids)
            except Exception:
                log.warning("could not read the leases of %d relayed table(s)",
                            len(table_ids))
                continue
            for table_id in table_ids:
                holder = holders.get(table_id)
                for link in list(self.links.get(table_id, {}).values()):
                    if link.owner is None and holder is not None:
                        link.owner = holder
                    elif link.owner != holder:
                        self._tasks.spawn(self._moved(link))

    def _deliver(self, envelope: Envelope) -> None:
        """An outbox envelope: to its connection's socket (or every one's), in order."""
        links = self.links.get(envelope.table_id)
        if not links:
            return
        if envelope.token:
            for link in links.values():  # a newer owner does not know these connections
                if link.owner is not None and envelope.token > link.owner.token:
                    self._tasks.spawn(self._moved(link))
        if envelope.gap:
            for link in links.values():
                self._tasks.spawn(self._resync(link))
        if envelope.connection is None:
            targets = list(links.values())
        else:
            target = links.get(envelope.connection)
            if target is None:
                self.dropped += 1
                return
            targets = [target]
        for link in targets:
            if envelope.kind == CLOSE:
                link.closed_by_owner = True
                link.conn.close(*_parse_close(envelope.frame))
            else:
                link.conn.send(envelope.frame)

    async def _resync(self, link: _EdgeLink) -> None:
        await self.relay.to_owner(link.table_id, link.connection_id, "", RESYNC)

    async def close(self) -> None:
        """Close every relayed socket (1012) and stop listening."""
        for links in list(self.links.values()):
            for link in list(links.values()):
                link.conn.close(Close.RESTARTING, "the server is restarting")
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.cancel()
        reader, self._reader = self._reader, None
        await _stop_listening(reader, self._tasks, self._subscription)


async def _stop_listening(reader: asyncio.Task[None] | None, tasks: _Tasks,
                          subscription: Subscription) -> None:
    """Stop a side of the relay: its reader task, the tasks it started, its subscription."""
    if reader is not None:
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
    await tasks.cancel()
    await subscription.close()


# ------------------------------------------------------------------ both
class Bridge:
    """A process's two sides of the relay, hooked to its cluster node."""

    def __init__(self, node: Node, lobby: Lobby, settings: Settings) -> None:
        self.node = node
        self.owner = OwnerSide(node, lobby, settings)
        self.edge = EdgeSide(node, lobby, settings)
        self._lobby = lobby

    async def start(self) -> None:
        """Follow the node's acquired and released tables (and listen to the inboxes of the
        tables it already owns)."""
        self.node.on_acquired.append(self.owner.acquired)
        self.node.on_released.append(self.owner.released)
        for table_id in list(self._lobby.writers):
            if self.node.owns(table_id):
                await self.owner.acquired(table_id)

    async def close(self) -> None:
        """Stop both sides (their clients are told to reconnect)."""
        with contextlib.suppress(ValueError):
            self.node.on_acquired.remove(self.owner.acquired)
        with contextlib.suppress(ValueError):
            self.node.on_released.remove(self.owner.released)
        await self.owner.close()
        await self.edge.close()


async def bridge_of(server: Any) -> Bridge:
    """The server's bridge (``server.extra["bridge"]``), made and started on first use:
    ``install`` at start-up, so that the owner side listens before any client arrives."""
    bridge = server.extra.get("bridge")
    if not isinstance(bridge, Bridge):
        bridge = server.extra["bridge"] = Bridge(server.cluster, server.lobby,
                                                 server.settings)
        await bridge.start()
    return bridge


install = bridge_of
