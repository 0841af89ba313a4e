"""Who is asking: the account behind a request's or a WebSocket's session cookie.

A session is an opaque random token (``secrets.token_urlsafe(32)``) in the
:data:`SESSION_COOKIE` cookie; the database keeps only its SHA-256
(:class:`ginrummy.storage.accounts.AccountStore`). Passwords are hashed with Argon2id
(argon2-cffi's default profile, RFC 9106's low-memory one: 64 MiB, 3 iterations, 4 lanes,
above OWASP's minimum of 19 MiB and 2 iterations).
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from starlette.requests import HTTPConnection

from ginrummy.server.auth import secret_hash
from ginrummy.storage.accounts import AccountStore, StoredAccount

SESSION_COOKIE = "__Host-ginrummy-session"
"""``__Host-``: the browser sends it only to this host, path ``/``, never to a subdomain."""
SESSION_LIFETIME = timedelta(days=30)

PASSWORDS = PasswordHasher()
"""Argon2id with argon2-cffi's defaults (time_cost 3, memory_cost 65,536 KiB, 4 lanes)."""
_DUMMY_HASH = PASSWORDS.hash("no account has this password")
"""Verified against when the name is unknown, so that an unknown user costs what a wrong
password costs (no timing difference tells which names exist)."""


@dataclass(frozen=True)
class Account:
    """The logged-in account, as requests see it (no password hash)."""

    id: int
    name: str
    role: str
    muted_until: datetime | None = None

    @property
    def admin(self) -> bool:
        """True for an administrator."""
        return self.role == "admin"

    @classmethod
    def of(cls, stored: StoredAccount) -> Account:
        """The request-side view of a stored account."""
        return cls(stored.id, stored.name, stored.role, stored.muted_until)


def hash_password(password: str) -> str:
    """The Argon2id hash to store (slow on purpose: run it in a thread)."""
    return PASSWORDS.hash(password)


def password_ok(stored_hash: str | None, password: str) -> bool:
    """True when ``password`` matches; with no account (``None``) a dummy hash is verified
    all the same and ``False`` returned."""
    try:
        PASSWORDS.verify(stored_hash or _DUMMY_HASH, password)
    except (VerificationError, InvalidHashError):
        return False
    return stored_hash is not None


def new_session_token() -> str:
    """A fresh session token (256 random bits)."""
    return secrets.token_urlsafe(32)


def session_token(conn: HTTPConnection) -> str | None:
    """The session token a request or WebSocket handshake carries, if any."""
    token = conn.cookies.get(SESSION_COOKIE)
    return token if token and len(token) <= 128 else None


def account_store(conn: HTTPConnection) -> AccountStore:
    """The server's account store."""
    store: AccountStore = conn.app.state.server.accounts
    return store


async def current_account(conn: HTTPConnection) -> Account | None:
    """The account of the request's session (live, not banned), or ``None`` for a guest."""
    token = session_token(conn)
    if token is None:
        return None
    store = account_store(conn)
    loop = asyncio.get_running_loop()
    stored = await loop.run_in_executor(None, store.session_account, secret_hash(token))
    return None if stored is None else Account.of(stored)
