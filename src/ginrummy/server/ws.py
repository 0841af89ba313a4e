"""The WebSocket endpoint: Origin check, ``hello``, then one message at a time.

Bad input never reaches a table: frames over the size limit and floods close the connection
with a reason; malformed or unknown messages get an ``error`` and change nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from ginrummy.server.auth import invite_ok, seat_for_token
from ginrummy.server.connections import TRY_AGAIN_LATER, Connection
from ginrummy.server.edge import origin_allowed
from ginrummy.server.limits import address_key
from ginrummy.server.lobby import Lobby
from ginrummy.server.messages import PONG, error
from ginrummy.server.protocol import (
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
from ginrummy.server.sessions import Account, current_account
from ginrummy.server.settings import Settings
from ginrummy.server.tablewriter import REVOKED_TOKEN, TableWriter

log = logging.getLogger("ginrummy.server.ws")


class _Closed(Exception):
    """The connection must end (already closed, or closing with a reason)."""


async def table_socket(websocket: WebSocket) -> None:
    """``/ws/tables/{table_id}``."""
    server = websocket.app.state.server
    settings: Settings = server.settings
    lobby: Lobby = server.lobby
    if not origin_allowed(websocket.headers.get("origin"), settings):
        log.warning("refused a WebSocket upgrade from origin %r",
                    websocket.headers.get("origin"), extra={"event": "bad_origin"})
        await websocket.close(code=Close.POLICY, reason="origin not allowed")
        return
    await websocket.accept()
    # caps on open connections (per process, per address): docs/server.md, *Quotas*
    address = websocket.client.host if websocket.client else "unknown"
    refused = lobby.sockets.admit(address)
    if refused is not None:  # logged by admit, once a minute per address
        await websocket.close(code=TRY_AGAIN_LATER, reason=refused)
        return
    writer = await lobby.load(websocket.path_params["table_id"])
    if writer is None:
        lobby.sockets.release(address)
        await websocket.close(code=Close.UNKNOWN_TABLE, reason="unknown table")
        return
    conn = Connection(websocket, settings)
    conn.on_error = lobby.on_error
    conn.start()
    attached = False
    try:
        hello = await _receive_hello(conn, settings)
        # the handshake's session cookie: an account's seat follows it to any device or tab
        account = await current_account(websocket)
        _seat_connection(conn, writer, hello, account)
        if conn.seat is not None and writer.table.seats[conn.seat].token_hash == REVOKED_TOKEN:
            conn.close(Close.FORBIDDEN, "an administrator removed you from this seat")
            raise _Closed
        # flood and chat budgets per seat (all its connections), spectators' per address
        conn.share_limits(lobby.limits, ("seat", writer.table.id, conn.seat)
                          if conn.seat is not None else ("watch", address_key(address)))
        await writer.attach(conn, seeds=hello.seeds)
        attached = True
        while not conn.closed:
            text = await _receive(conn, settings)
            await _dispatch(conn, writer, text)
    except (_Closed, WebSocketDisconnect):
        pass
    except Exception:
        log.exception("WebSocket handler failed")
        conn.close(Close.SERVER_ERROR, "server error")
    finally:
        if attached:
            await writer.detach(conn)
        await _drain(conn)
        lobby.sockets.release(address)


async def _drain(conn: Connection) -> None:
    """Let the sender flush (a close with its reason included), briefly, then stop it."""
    await conn.flush(2.0)
    await conn.finish()
    ws = conn.websocket
    if ws.application_state is WebSocketState.CONNECTED and conn.close_code is None:
        with contextlib.suppress(Exception):
            await ws.close(code=1000)


async def _receive(conn: Connection, settings: Settings) -> str:
    """The next text frame, after the size and rate checks."""
    message = await conn.websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise _Closed
    if not conn.messages.allow():
        conn.send(error(Code.RATE_LIMITED, f"more than {settings.messages_per_window} "
                        f"messages in {settings.message_window_seconds:g} s"))
        conn.close(Close.POLICY, f"rate limit: more than {settings.messages_per_window} "
                   f"messages in {settings.message_window_seconds:g} s")
        raise _Closed
    text = message.get("text")
    data = message.get("bytes")
    size = len(data) if data is not None else len((text or "").encode("utf-8"))
    if size > settings.frame_limit:
        conn.close(Close.TOO_BIG, f"frame over {settings.frame_limit // 1024} KiB")
        raise _Closed
    if text is None:
        conn.send(error(Code.BAD_MESSAGE, "binary frames are not accepted: send JSON text"))
        return ""
    return str(text)


async def _receive_hello(conn: Connection, settings: Settings) -> Hello:
    try:
        text = await asyncio.wait_for(_receive(conn, settings), settings.hello_timeout_seconds)
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
                   f"{' and '.join(map(str, PROTOCOLS))}")
        raise _Closed
    conn.protocol = msg.protocol
    return msg


def _seat_connection(conn: Connection, writer: TableWriter, hello: Hello,
                     account: Account | None) -> None:
    """Seat the connection by its seat token; without one, at the seat of the handshake's
    account (a banned account has no session, so it sits nowhere); else it watches."""
    table = writer.table
    token = hello.token  # only in hello: a URL (query string) reaches logs and histories
    conn.account_id = None if account is None else account.id
    if token:
        seat = seat_for_token(table.seats, token)
        if seat is None:
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
    if not invite_ok(table.public, table.invite_hash, hello.invite):
        conn.close(Close.FORBIDDEN, "private table: invite missing or wrong")
        raise _Closed


async def _dispatch(conn: Connection, writer: TableWriter, text: str) -> None:
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
