"""Friends (docs/friends.md): the logged-in account's friends with their presence, requests,
blocks and invitations to a table (JSON under ``/api/friends``), and its push socket
``/ws/account`` (presence changes, requests, invitations).

Every POST is checked by the edge (``Origin``) and reads a JSON body
(:func:`~ginrummy.server.http.common.read_body`); a guest gets 401 ``not_logged_in``. Friend
requests and invitations are rate-limited per account (429 with ``Retry-After``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ginrummy.server.core.limits import KeyedLimits
from ginrummy.server.core.protocol import Close
from ginrummy.server.http.common import (
    error_response,
    in_thread,
    read_body,
    server_of,
    too_many,
    wait_seconds,
)
from ginrummy.server.http.edge import origin_allowed
from ginrummy.server.http.ws import drain
from ginrummy.server.play.connections import TRY_AGAIN_LATER, Connection
from ginrummy.server.play.lobby import LobbyError
from ginrummy.server.play.seat import Seat
from ginrummy.server.play.settlement import SeatRefused
from ginrummy.server.play.table import GameTable
from ginrummy.server.players.friends import FriendsHub
from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import Account, current_account, socket_account
from ginrummy.storage import Apply, WriteOp
from ginrummy.storage.friends import FriendError, FriendStore, Person, blocked_by_any

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection as DbConnection

    from ginrummy.server.http.common import Server

log = logging.getLogger("ginrummy.server.friends")

HUB_KEY = "friends"
REQUESTS_PER_HOUR = 30
"""Friend requests one account may send in an hour."""
INVITATIONS_PER_WINDOW, INVITATION_WINDOW_SECONDS = 20, 600.0
"""Invitations one account may send in ten minutes."""


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NameBody(_Body):
    """``POST /api/friends/{request,accept,decline,remove,block,unblock}``: another account."""

    name: str = Field(min_length=1, max_length=200)


class InviteBody(NameBody):
    """``POST /api/friends/invite``: a friend to the table the account sits at (the private
    table's invite code too, which the friend needs to sit)."""

    table_id: str = Field(min_length=1, max_length=64)
    invite: str | None = Field(default=None, max_length=128)


class AnswerBody(_Body):
    """``POST /api/friends/invitation``: the invitee's answer."""

    id: str = Field(min_length=1, max_length=64)
    answer: Literal["accept", "decline"]


def hub(request: Request | WebSocket) -> FriendsHub:
    """The server's friends hub."""
    found: FriendsHub = request.app.state.server.extra[HUB_KEY]
    return found


def _limits(request: Request) -> dict[str, KeyedLimits]:
    found: dict[str, KeyedLimits] = request.app.state.server.extra[HUB_KEY + "_limits"]
    return found


def _login_needed() -> JSONResponse:
    return error_response(401, "not_logged_in", "log in to have friends")


def _person(person: Person) -> dict[str, Any]:
    return {"id": person.id, "name": person.name, "since": _when(person.since)}


def _when(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


# ---------------------------------------------------------------------- reads
async def friends_list(request: Request) -> JSONResponse:
    """``GET /api/friends``: friends (with presence), requests in and out, blocks and the
    invitations waiting for the account."""
    me = await current_account(request)
    if me is None:
        return _login_needed()
    friends = hub(request)
    lists = await in_thread(friends.store.lists, me.id)
    presence = friends.presence_of(p.id for p in lists.friends)
    return JSONResponse({
        "friends": [{**_person(p), "presence": presence[p.id]} for p in lists.friends],
        "incoming": [_person(p) for p in lists.incoming],
        "outgoing": [_person(p) for p in lists.outgoing],
        "blocked": [_person(p) for p in lists.blocked],
        "invitations": [i.message() for i in friends.live_invitations() if i.to_id == me.id],
    })


# ---------------------------------------------------------------------- changes
async def _named(request: Request, model: type[NameBody] = NameBody
                 ) -> tuple[Account, Any, int] | JSONResponse:
    """The logged-in account, the body, and the id of the account it names (or the error)."""
    me = await current_account(request)
    if me is None:
        return _login_needed()
    body = await read_body(request, model)
    if isinstance(body, JSONResponse):
        return body
    other = await in_thread(server_of(request).accounts.by_key, name_key(body.name))
    if other is None or other.banned:
        return error_response(404, "unknown_name", f"no account named {body.name!r}", "name")
    if other.id == me.id:
        return error_response(400, "yourself", "that is your own account", "name")
    return me, body, other.id


def _change(action: str, work: Callable[[FriendStore, int, int], object],
            block_change: bool | None = None) -> Callable[[Request], Any]:
    """A route that applies ``work(store, me, other)`` and tells both accounts' sockets."""

    async def route(request: Request) -> JSONResponse:
        named = await _named(request)
        if isinstance(named, JSONResponse):
            return named
        me, _body, other = named
        friends = hub(request)
        if action == "request":
            limit = _limits(request)["requests"].get(me.id)
            if not limit.allow():
                return too_many("too_many_requests", f"at most {limit.limit} friend requests "
                                "an hour", wait_seconds(limit))
        try:
            result = await in_thread(work, friends.store, me.id, other)
        except FriendError as exc:
            status = 403 if exc.code == "blocked" else 409
            return error_response(status, exc.code, str(exc), "name")
        if block_change is not None:
            friends.lobby.blocks.change(me.id, other, block_change)
        if action in ("remove", "block"):
            friends.forget_between(me.id, other)
        await friends.changed(me.id, other)
        answer: dict[str, Any] = {"ok": True}
        if isinstance(result, str):
            answer["status"] = result
        return JSONResponse(answer)

    return route


# ---------------------------------------------------------------------- invitations
async def invite(request: Request) -> JSONResponse:
    """``POST /api/friends/invite``: invite a friend who is online to the account's table."""
    named = await _named(request, InviteBody)
    if isinstance(named, JSONResponse):
        return named
    me, body, other = named
    friends = hub(request)
    if not await in_thread(friends.store.are_friends, me.id, other):
        return error_response(409, "not_friends", "you can invite only your friends", "name")
    if not friends.online(other):
        return error_response(409, "friend_offline", f"{body.name} is not online", "name")
    lobby = friends.lobby
    try:
        entry = await lobby.describe(body.table_id, body.invite, me.id)
        if entry.get("your_seat") is None:
            return error_response(403, "not_seated", "you can invite friends only to a table "
                                  "you sit at", "table_id")
        if not entry.get("public"):  # the friend needs the code: it must be the right one
            await lobby.describe(body.table_id, body.invite, None)
    except LobbyError as exc:
        return error_response(exc.status, exc.code, str(exc), exc.field)
    if entry.get("status") not in ("waiting", "playing"):
        return error_response(409, "table_closed", "this table is over", "table_id")
    limit = _limits(request)["invitations"].get(me.id)
    if not limit.allow():
        return too_many("too_many_requests", f"at most {limit.limit} invitations in "
                        f"{limit.window:g} s", wait_seconds(limit))
    made = friends.invite(me.id, me.name, other, body.name, body.table_id,
                          None if entry.get("public") else body.invite)
    return JSONResponse({"ok": True, "id": made.id})


async def answer_invitation(request: Request) -> JSONResponse:
    """``POST /api/friends/invitation``: accept (the answer names the table and its invite
    code: the client goes to the table's seat form) or decline; the sender is told."""
    me = await current_account(request)
    if me is None:
        return _login_needed()
    body = await read_body(request, AnswerBody)
    if isinstance(body, JSONResponse):
        return body
    found = hub(request).answer(body.id, me.id, body.answer == "accept")
    if found is None:
        return error_response(404, "no_invitation", "this invitation is no longer open", "id")
    if body.answer == "decline":
        return JSONResponse({"ok": True})
    return JSONResponse({"ok": True, "table_id": found.table_id, "invite": found.invite})


# ---------------------------------------------------------------------- the push socket
async def account_socket(websocket: WebSocket) -> None:
    """``/ws/account``: the logged-in account's push messages (docs/friends.md); what the
    client sends is ignored (bounded like a table's frames)."""
    server = websocket.app.state.server
    settings = server.settings
    if not origin_allowed(websocket.headers.get("origin"), settings):
        await websocket.close(code=Close.POLICY, reason="origin not allowed")
        return
    account = await socket_account(websocket)
    await websocket.accept()
    if account is None or account.banned:
        await websocket.close(code=Close.FORBIDDEN, reason="log in first")
        return
    address = websocket.client.host if websocket.client else "unknown"
    refused = server.lobby.sockets.admit(address)
    if refused is not None:
        await websocket.close(code=TRY_AGAIN_LATER, reason=refused)
        return
    friends = hub(websocket)
    conn = Connection(websocket, settings)
    conn.account_id = account.id
    conn.start()
    try:
        conn.send({"type": "hello", "account": account.name})
        await friends.connect(account.id, conn)
        while not conn.closed:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            if not conn.messages.allow():
                conn.close(Close.POLICY, "too many messages")
    except WebSocketDisconnect:
        pass
    finally:
        friends.disconnect(account.id, conn)
        server.lobby.sockets.release(address)
        await drain(conn)


# ---------------------------------------------------------------------- blocks at tables
class PrivateTableBlocks:
    """The seat hook that keeps a blocked account away from its blocker's private tables: in
    the seat's transaction, a seat at a private table is refused (403 ``blocked``) when an
    account seated there blocks the newcomer."""

    def on_sit(self, table: GameTable, seat: Seat) -> list[WriteOp]:
        """The check, as a write of the seat's commit (a private table only)."""
        newcomer = seat.account_id
        if table.public or newcomer is None:
            return []
        others = [s.account_id for s in table.seats
                  if s.account_id is not None and s.seat != seat.seat]
        if not others:
            return []

        def check(conn: DbConnection) -> None:
            if blocked_by_any(conn, newcomer, others):
                raise SeatRefused(403, "blocked", "you cannot sit at this table")

        return [Apply(check)]


ROUTES: list[BaseRoute] = [
    Route("/api/friends", friends_list, methods=["GET"]),
    Route("/api/friends/request", _change("request", FriendStore.request), methods=["POST"]),
    Route("/api/friends/accept", _change("accept", FriendStore.accept), methods=["POST"]),
    Route("/api/friends/decline", _change("decline", FriendStore.decline), methods=["POST"]),
    Route("/api/friends/remove", _change("remove", FriendStore.remove), methods=["POST"]),
    Route("/api/friends/block", _change("block", FriendStore.block, True), methods=["POST"]),
    Route("/api/friends/unblock", _change("unblock", FriendStore.unblock, False),
          methods=["POST"]),
    Route("/api/friends/invite", invite, methods=["POST"]),
    Route("/api/friends/invitation", answer_invitation, methods=["POST"]),
    WebSocketRoute("/ws/account", account_socket),
]


def install(server: Server) -> None:
    """The friends hub, the blocks' chat filter and the private tables' seat check."""
    store = FriendStore(server.repository.engine)
    server.extra[HUB_KEY] = FriendsHub(server.lobby, store)
    server.extra[HUB_KEY + "_limits"] = {
        "requests": KeyedLimits(REQUESTS_PER_HOUR, 3600.0),
        "invitations": KeyedLimits(INVITATIONS_PER_WINDOW, INVITATION_WINDOW_SECONDS)}
    server.lobby.blocks.load = store.blocked_ids
    server.lobby.hooks.on_sit.append(PrivateTableBlocks().on_sit)


async def shutdown(server: Server) -> None:
    """Stop the presence loop and close the push sockets."""
    found = server.extra.get(HUB_KEY)
    if isinstance(found, FriendsHub):
        await found.close()
