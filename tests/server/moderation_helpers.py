"""Helpers of the moderation tests: accounts with a live session on a running server, and
requests and WebSockets carrying that session's cookie."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx
from server_helpers import Client, LiveServer
from sqlalchemy import select

from ginrummy.server.core.auth import secret_hash
from ginrummy.server.players.names import name_key
from ginrummy.server.players.sessions import SESSION_COOKIE, SESSION_LIFETIME, new_session_token
from ginrummy.storage.models import ModerationRow

NOT_A_HASH = "$argon2id$not-a-real-hash"
"""The tests make sessions directly: nobody logs in with a password."""


@dataclass(frozen=True)
class User:
    """An account with a live session (its cookie's token)."""

    id: int
    name: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        """The session cookie, as a browser at the server's own origin sends it."""
        return {"Cookie": f"{SESSION_COOKIE}={self.token}"}


def add_user(server: LiveServer, name: str, role: str = "player") -> User:
    """A new account of ``role`` and a session of it."""
    store = server.app.state.server.accounts
    account = store.create(name, name_key(name), NOT_A_HASH, role)
    token = new_session_token()
    store.add_session(secret_hash(token), account.id, SESSION_LIFETIME)
    return User(account.id, account.name, token)


def post(server: LiveServer, path: str, body: Any, user: User | None = None) -> httpx.Response:
    """A JSON POST from the server's own origin, as ``user`` (or a guest)."""
    with server.http() as client:
        return client.post(path, json=body, headers=user.headers if user else {})


def get(server: LiveServer, path: str, user: User | None = None) -> httpx.Response:
    """A GET as ``user`` (or a guest)."""
    with server.http() as client:
        return client.get(path, headers=user.headers if user else {})


def open_as(server: LiveServer, table_id: str, user: User, token: str | None = None) -> Client:
    """A WebSocket of ``user`` (its cookie in the handshake) at a table."""
    return Client.open(server, table_id, token=token, additional_headers=user.headers)


def log_rows(server: LiveServer) -> list[Any]:
    """The moderation log as stored, oldest first."""
    engine = server.app.state.server.accounts.engine
    table = ModerationRow.__table__
    with engine.connect() as conn:
        return list(conn.execute(select(table).order_by(table.c.id)).all())


def closed_with(client: Client, timeout: float = 10) -> tuple[int, str]:
    """Read until the server closes the socket; its close code and reason."""
    from websockets.exceptions import ConnectionClosed

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            client.recv(max(0.01, deadline - time.monotonic()))
        except ConnectionClosed as exc:
            assert exc.rcvd is not None
            return exc.rcvd.code, exc.rcvd.reason
        except TimeoutError:
            break
    raise AssertionError("the socket was not closed")


def refused_with(server: LiveServer, table_id: str, token: str | None = None,
                 headers: dict[str, str] | None = None, timeout: float = 5) -> tuple[int, str]:
    """Open a socket (``headers``: a cookie), send hello (``token``: a seat's); the close
    code and reason the server answers with instead of a seat or a spectator's state."""
    client = Client.open(server, table_id, hello=False, additional_headers=headers or {})
    client.send({"type": "hello", "protocol": 2, "token": token, "invite": None})
    return closed_with(client, timeout)
