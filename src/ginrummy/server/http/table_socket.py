"""The WebSocket endpoint ``/ws/tables/{table_id}``: the Origin check, the caps on open
connections, then the session (:func:`ginrummy.server.http.ws.run_session`) on this process's
table, or, in a cluster, the relay to the process that owns it (:mod:`.bridge`)."""

from __future__ import annotations

import logging

from starlette.websockets import WebSocket

from ginrummy.server.core.protocol import Close
from ginrummy.server.core.settings import Settings
from ginrummy.server.http.bridge import bridge_of
from ginrummy.server.http.edge import origin_allowed
from ginrummy.server.http.ws import SocketTexts, drain, run_session
from ginrummy.server.play.connections import TRY_AGAIN_LATER, Connection
from ginrummy.server.play.lobby import Lobby
from ginrummy.server.players.sessions import socket_account

log = logging.getLogger("ginrummy.server.ws")


async def table_socket(websocket: WebSocket) -> None:
    """``/ws/tables/{table_id}``."""
    server = websocket.app.state.server
    settings: Settings = server.settings
    lobby: Lobby = server.lobby
    origin = websocket.headers.get("origin")
    if not origin_allowed(origin, settings):
        log.warning("refused a WebSocket upgrade from origin %r", origin,
                    extra={"event": "bad_origin"})
        await websocket.close(code=Close.POLICY, reason="origin not allowed")
        return
    await websocket.accept()
    # caps on open connections (per process, per address): docs/server.md, *Quotas*
    address = websocket.client.host if websocket.client else "unknown"
    refused = lobby.sockets.admit(address)
    if refused is not None:  # logged by admit, once a minute per address
        await websocket.close(code=TRY_AGAIN_LATER, reason=refused)
        return
    table_id = websocket.path_params["table_id"]
    try:
        if getattr(server, "cluster", None) is not None:  # the table may be owned elsewhere
            try:
                where = await lobby.locate(table_id)  # loaded here when "local"
            except Exception as exc:  # Redis away: the owner is unknown for now
                log.warning("table %s: no owner found (%s)", table_id, type(exc).__name__)
                await websocket.close(code=Close.RESTARTING, reason="try again")
                return
            if where == "remote":
                bridge = await bridge_of(server)
                await bridge.edge.serve(websocket, table_id, address, origin)
                return
        writer = await lobby.load(table_id)
        if writer is None:
            await websocket.close(code=Close.UNKNOWN_TABLE, reason="unknown table")
            return
        conn = Connection(websocket, settings)
        conn.on_error = lobby.on_error
        conn.start()
        try:
            await run_session(conn, writer, SocketTexts(websocket), settings, lobby, address,
                              lambda: socket_account(websocket))
        finally:
            await drain(conn)
    finally:
        lobby.sockets.release(address)
