"""A table's WebSocket session after the upgrade (the endpoint is :mod:`.table_socket`):
``hello``, then one message at a time.

Bad input never reaches a table: frames over the size limit and floods close the connection
with a reason; malformed or unknown messages get an ``error`` and change nothing.

The session after the upgrade (:func:`run_session`) reads its client's frames from any
:class:`ClientTexts` and writes to any :class:`Connection`, so a table's owner runs the same
code for a local socket and for a client whose socket another process holds
(http/bridge.py: that process, the edge, keeps the checks that need no table).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import NamedTuple, Protocol

from starlette.websockets import WebSocket, WebSocketDisconnect

from ginrummy.server.core.auth import invite_ok, seat_for_token, secret_hash
from ginrummy.server.core.limits import address_key
from ginrummy.server.core.protocol import (
    PROTOCOLS,
    ActionMessage,
    ChatMessage,
    Close,
    Code,
    Hello,
    MessageError,
    MuteMessage,
    SeedMessage,
    SimpleMessage,
    parse_client_message,
)
from ginrummy.server.core.settings import Settings
from ginrummy.server.play.connections import Connection
from ginrummy.server.play.lobby import Lobby
from ginrummy.server.play.messages import PONG, Error, error
from ginrummy.server.play.tablewriter import REVOKED_TOKEN, TableWriter
from ginrummy.server.players.moderation import BAN_REASON
from ginrummy.server.players.sessions import Account

log = logging.getLogger("ginrummy.server.ws")


class SessionClosed(Exception):
    """The connection must end (already closed, or closing with a reason)."""


_Closed = SessionClosed


class Received(NamedTuple):
    """One frame from the client: its text (``None`` for a binary frame) and size in bytes
    (a tuple: one is made for every frame)."""

    text: str | None
    size: int


class ClientTexts(Protocol):
    """Where a session's client frames come from: a local socket, or the envelopes an edge
    process relays (http/bridge.py)."""

    async def receive(self) -> Received:
        """The next frame; :class:`SessionClosed` once the client is gone."""
        ...


class SocketTexts:
    """The frames of a local WebSocket."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket

    async def receive(self) -> Received:
        """The next frame of the socket."""
        message = await self.websocket.receive()
        if message["type"] == "websocket.disconnect":
            raise SessionClosed
        text = message.get("text")
        data = message.get("bytes")
        size = len(data) if data is not None else len((text or "").encode("utf-8"))
        return Received(None if text is None else str(text), size)


AccountLookup = Callable[[], Awaitable[Account | None]]
"""The account of the connection's handshake (its session cookie), looked up after hello."""


async def run_session(conn: Connection, writer: TableWriter, texts: ClientTexts,
                      settings: Settings, lobby: Lobby, address: str,
                      account_of: AccountLookup) -> None:
    """A client's session at a table, whatever carries its frames: ``hello`` (with its
    timeout), the seat by token, account or invite, the revoked seat, the shared limits,
    attach, one message at a time, detach. Returns when the connection ends."""
    attached = False
    try:
        hello = await _receive_hello(conn, texts, settings)
        conn.address = address_key(address)
        # the handshake's session cookie: an account's seat follows it to any device or tab
        account = await account_of()
        _refuse_banned(conn, lobby, account)
        _seat_connection(conn, writer, hello, account)
        _refuse_banned(conn, lobby, None)  # a banned account's seat, by its token
        if conn.seat is not None and writer.table.seats[conn.seat].token_hash == REVOKED_TOKEN:
            conn.close(Close.FORBIDDEN, "an administrator removed you from this seat")
            raise SessionClosed
        if conn.account_id is not None:
            lobby.restrictions.seen(conn.account_id, conn.address)
            conn.blocked = await lobby.blocks.of(conn.account_id)  # their chat unheard
        # flood and chat budgets per seat (all its connections), spectators' per address
        conn.share_limits(lobby.limits, ("seat", writer.table.id, conn.seat)
                          if conn.seat is not None else ("watch", conn.address))
        await writer.attach(conn, seeds=hello.seeds)
        attached = True
        # banned while this socket was on its way in (after the ban closed the account's
        # connections, before this one was among them): closed now
        _refuse_banned(conn, lobby, None)
        while not conn.closed:
            text = await receive_checked(conn, texts, settings)
            await _dispatch(conn, writer, text, lobby)
    except (SessionClosed, WebSocketDisconnect):
        pass
    except Exception:
        log.exception("WebSocket handler failed")
        conn.close(Close.SERVER_ERROR, "server error")
    finally:
        if attached:
            await writer.detach(conn)


async def drain(conn: Connection) -> None:
    """Let the sender flush (a close with its reason included), briefly, then stop it and
    hang up a client never given a close."""
    await conn.flush(2.0)
    await conn.finish()
    await conn.hang_up()


async def receive_checked(conn: Connection, texts: ClientTexts, settings: Settings) -> str:
    """The next text frame, after the rate and size checks ("" after a binary frame, which
    gets an ``error``)."""
    frame = await texts.receive()
    if not conn.messages.allow():
        conn.send(error(Code.RATE_LIMITED, f"more than {settings.messages_per_window} "
                        f"messages in {settings.message_window_seconds:g} s"))
        conn.close(Close.POLICY, f"rate limit: more than {settings.messages_per_window} "
                   f"messages in {settings.message_window_seconds:g} s")
        raise SessionClosed
    if frame.size > settings.frame_limit:
        conn.close(Close.TOO_BIG, f"frame over {settings.frame_limit // 1024} KiB")
        raise SessionClosed
    if frame.text is None:
        conn.send(error(Code.BAD_MESSAGE, "binary frames are not accepted: send JSON text"))
        return ""
    return frame.text


async def _receive_hello(conn: Connection, texts: ClientTexts, settings: Settings) -> Hello:
    try:
        async with asyncio.timeout(settings.hello_timeout_seconds):
            text = await receive_checked(conn, texts, settings)
    except TimeoutError:
        conn.close(Close.BAD_HELLO, "hello expected")
        raise _Closed from None
    try:
        msg = parse_client_message(text)
    except MessageError as exc:
        conn.send(error(exc.code, str(exc)))
        conn.close(Close.BAD_HELLO, "hello expected")
        raise _Closed from None
    if not isinstance(msg, Hello):
        conn.close(Close.BAD_HELLO, "hello expected")
        raise _Closed
    if msg.protocol not in PROTOCOLS:
        conn.close(Close.BAD_HELLO, f"unsupported protocol {msg.protocol}; this server speaks "
                   f"{', '.join(map(str, PROTOCOLS))}")
        raise _Closed
    conn.protocol = msg.protocol
    return msg


def _refuse_banned(conn: Connection, lobby: Lobby, account: Account | None) -> None:
    """Close the connection (:class:`SessionClosed`) when it is a banned account's: its
    handshake's cookie is a banned account's session, or its account (by cookie or seat) is
    banned now."""
    banned = account is not None and (account.banned
                                      or account.id in lobby.restrictions.banned)
    if banned or (conn.account_id is not None
                  and conn.account_id in lobby.restrictions.banned):
        conn.close(Close.FORBIDDEN, BAN_REASON)
        raise SessionClosed


def _seat_connection(conn: Connection, writer: TableWriter, hello: Hello,
                     account: Account | None) -> None:
    """Seat the connection by its seat token; without one, at the seat of the handshake's
    account; else it watches."""
    table = writer.table
    token = hello.token  # only in hello: a URL (query string) reaches logs and histories
    conn.account_id = None if account is None else account.id
    conn.session_hash = None if account is None else account.session_hash
    if token:
        seat = seat_for_token(table.seats, token)
        if seat is None:
            revoked = writer.revoked.get(secret_hash(token)) if writer.revoked else None
            if revoked is not None:  # an administrator took the seat: say so, for good
                conn.close(Close.FORBIDDEN, revoked)
            else:
                conn.close(Close.BAD_TOKEN, "bad token")
            raise _Closed
        conn.seat, conn.name = seat.seat, seat.name or f"seat {seat.seat}"
        if seat.account_id is not None:
            conn.account_id = seat.account_id
        return
    if account is not None:
        mine = next((s for s in table.seats if s.account_id == account.id), None)
        if mine is not None:
            conn.seat, conn.name = mine.seat, mine.name or account.name
            return
    if account is not None:  # a logged-in spectator chats under its account's name
        conn.name = account.name
    if not invite_ok(table.public, table.invite_hash, hello.invite):
        conn.close(Close.FORBIDDEN, "private table: invite missing or wrong")
        raise _Closed


def chat_refusal(conn: Connection, lobby: Lobby) -> Error | None:
    """The ``error`` a chat line from ``conn`` gets before it reaches the table, or
    ``None``: a spectator chats only as an account (a seat or a log-in), and a guest's
    line is refused while a banned or a muted account was seen at its address (an
    account's own mute is the chat's: play/chat.py)."""
    if conn.seat is None and conn.account_id is None:
        return error(Code.SPECTATOR_CHAT, "spectators chat only when logged in: log in, "
                     "or take a seat, to chat")
    if conn.account_id is not None:
        return None
    if lobby.restrictions.address_banned(conn.address):
        return error(Code.MUTED, "chat from this address is refused: an account banned "
                     "from this server was used from it")
    muted_until = lobby.mutes.latest(lobby.restrictions.accounts_at(conn.address))
    if muted_until is not None:
        return error(Code.MUTED, "your line goes nowhere: an account muted by a moderator "
                     f"used this address (until {muted_until.strftime('%Y-%m-%d %H:%M')} "
                     "UTC); log in to chat as yourself")
    return None


async def _dispatch(conn: Connection, writer: TableWriter, text: str, lobby: Lobby) -> None:
    if not text:
        return
    try:
        msg = parse_client_message(text)
    except MessageError as exc:
        conn.send(error(exc.code, str(exc)))
        return
    if isinstance(msg, ActionMessage):
        await writer.handle_action(conn, msg)
    elif isinstance(msg, ChatMessage):
        refused = chat_refusal(conn, lobby)
        if refused is not None:
            conn.send(refused)
            return
        await writer.chat(conn, msg.text)
    elif isinstance(msg, SeedMessage):
        await writer.handle_seed(conn, msg)
    elif isinstance(msg, MuteMessage):
        if msg.muted:
            conn.muted.add(msg.seat)
        else:
            conn.muted.discard(msg.seat)
    elif isinstance(msg, Hello):
        conn.send(error(Code.PROTOCOL, "hello was already received"))
    elif isinstance(msg, SimpleMessage):
        if msg.type == "ping":
            conn.send(PONG)
        elif msg.type == "resync":
            async with writer.lock:
                conn.send(writer.state_for(conn))
        elif msg.type == "rematch":
            await writer.rematch(conn)
        elif msg.type == "next":
            await writer.ready(conn)
        elif msg.type == "resign":
            await writer.resign(conn)
        elif msg.type == "leave":
            await writer.leave_match(conn)
