"""Who is asking: the account behind a request's or a WebSocket's session cookie.

A session is an opaque random token (``secrets.token_urlsafe(32)``) in the session cookie;
the database keeps only its SHA-256 (:class:`ginrummy.storage.accounts.AccountStore`).
Over HTTPS, and over plain HTTP on a loopback host (``127.0.0.1``, ``localhost``: browsers
treat those as secure and keep ``Secure`` cookies from them), the cookie is
:data:`SESSION_COOKIE` (``__Host-``, ``Secure``). Over plain HTTP from any other host (a game
on the local network), where browsers refuse every ``Secure`` cookie and so every ``__Host-``
one, it is :data:`PLAIN_SESSION_COOKIE` without ``Secure`` (docs/accounts.md, *The session
cookie*). Each kind of origin reads only its own name, so a cookie planted over plain HTTP
never counts on HTTPS.

Passwords are hashed with Argon2id (argon2-cffi's default profile, RFC 9106's low-memory
one: 64 MiB, 3 iterations, 4 lanes, above OWASP's minimum of 19 MiB and 2 iterations), never on
the event loop, in two bounded pools: log-ins' checks in :data:`HASH_THREADS` threads, every
other Argon2 work (sign-ups, password changes, a hash renewed) in :data:`OTHER_HASH_THREADS`.
Never more than their sum of 64 MiB hashes run at once however many requests arrive together,
and a burst of password changes or sign-ups waits in its own queue, never before a log-in.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import os
import secrets
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from starlette.requests import HTTPConnection
from starlette.responses import Response

from ginrummy.server.core.auth import secret_hash
from ginrummy.storage.accounts import AccountStore, StoredAccount

SESSION_COOKIE = "__Host-ginrummy-session"
"""The cookie over HTTPS. ``__Host-``: the browser keeps it only when it is ``Secure``, has
``Path=/`` and no ``Domain``, so it goes to this host alone, never to a subdomain."""
PLAIN_SESSION_COOKIE = "ginrummy-session"
"""The cookie over plain HTTP from a host that is not a loopback one (browsers refuse
``Secure``, hence ``__Host-``, cookies there)."""
SESSION_LIFETIME = timedelta(days=30)
FORWARDED_ACCOUNT = "ginrummy.forwarded_account"
"""The scope key of a request another cluster member forwarded to a table's owner: the
account that member found behind the session (read again here), or ``None`` for a guest
(:mod:`ginrummy.server.http.forwarding`)."""

MIN_PASSWORD = 8
MAX_PASSWORD = 128

PASSWORDS = PasswordHasher()
"""Argon2id with argon2-cffi's defaults (time_cost 3, memory_cost 65,536 KiB, 4 lanes)."""


@functools.cache
def _dummy_hash(hasher: PasswordHasher = PASSWORDS) -> str:
    """The hash verified against when the name is unknown, so that an unknown user costs what
    a wrong password costs (no timing difference tells which names exist). Made on first use,
    not at import: an Argon2 hash takes ~0.15 s of a core, which every process start (each
    worker, each CLI command that imports this module) paid before."""
    return hasher.hash("no account has this password")


HASH_THREADS = max(1, min(4, os.cpu_count() or 1))
"""Log-ins' Argon2 checks running at once (each takes 64 MiB and one core for ~0.15 s)."""
OTHER_HASH_THREADS = 1
"""Other Argon2 work (sign-ups, password changes, renewed hashes) running at once."""
_HASH_POOL = ThreadPoolExecutor(max_workers=HASH_THREADS, thread_name_prefix="argon2-login")
_OTHER_POOL = ThreadPoolExecutor(max_workers=OTHER_HASH_THREADS,
                                 thread_name_prefix="argon2-other")


@dataclass(frozen=True)
class Account:
    """The logged-in account, as requests see it (no password hash)."""

    id: int
    name: str
    role: str
    muted_until: datetime | None = None
    banned: bool = False
    """Only a socket's account may be a banned one (:func:`socket_account`): it is refused."""
    session_hash: str | None = None
    """The hash of the session token it was found by (a socket's account)."""

    @property
    def admin(self) -> bool:
        """True for an administrator."""
        return self.role == "admin"

    @classmethod
    def of(cls, stored: StoredAccount) -> Account:
        """The request-side view of a stored account."""
        return cls(stored.id, stored.name, stored.role, stored.muted_until)

    def public(self) -> dict[str, Any]:
        """The account as the API shows it to its owner (``{"id", "name", "role"}``)."""
        return {"id": self.id, "name": self.name, "role": self.role}


def hash_password(password: str) -> str:
    """The Argon2id hash to store (slow on purpose: use :func:`hash_password_async`)."""
    return PASSWORDS.hash(password)


def password_ok(stored_hash: str | None, password: str) -> bool:
    """True when ``password`` matches; with no account (``None``) a dummy hash is verified
    all the same and ``False`` returned."""
    try:
        PASSWORDS.verify(stored_hash or _dummy_hash(), password)
    except (VerificationError, InvalidHashError):
        return False
    return stored_hash is not None


async def hash_password_async(password: str) -> str:
    """:func:`hash_password` in the other Argon2 work's thread (the event loop goes on
    meanwhile)."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_OTHER_POOL, hash_password, password)


async def password_ok_async(stored_hash: str | None, password: str, *,
                            login: bool = False) -> bool:
    """:func:`password_ok` in the log-ins' hashing threads (``login``), else in the other
    Argon2 work's thread (a password change's old password)."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_HASH_POOL if login else _OTHER_POOL, password_ok,
                                      stored_hash, password)


def needs_rehash(stored_hash: str) -> bool:
    """True when a stored hash was made with other (older, weaker) parameters than
    :data:`PASSWORDS`': the next successful log-in stores a fresh one."""
    try:
        return PASSWORDS.check_needs_rehash(stored_hash)
    except InvalidHashError:
        return True


def password_problem(password: str) -> str | None:
    """Why ``password`` cannot be a password (its length), or ``None``."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        return f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters"
    return None


def new_session_token() -> str:
    """A fresh session token (256 random bits)."""
    return secrets.token_urlsafe(32)


def secure_transport(conn: HTTPConnection) -> bool:
    """True when the request (or WebSocket handshake) came over TLS, directly or through a
    proxy trusted for ``X-Forwarded-Proto``, or the ``https`` setting says the server is only
    reached over HTTPS."""
    if conn.url.scheme in ("https", "wss"):
        return True
    server = getattr(conn.app.state, "server", None)
    return bool(server is not None and server.settings.https)


def loopback_host(host: str | None) -> bool:
    """True for ``localhost`` (and ``*.localhost``) and loopback addresses: browsers treat
    ``http://`` origins there as secure ones."""
    if not host:
        return False
    host = host.strip("[]").lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def secure_cookie(conn: HTTPConnection) -> bool:
    """True when the session cookie is the ``__Host-``, ``Secure`` one: over HTTPS, or on a
    loopback host (the ``Host`` the browser addressed, whose cookie jar it is)."""
    return secure_transport(conn) or loopback_host(conn.url.hostname)


def cookie_name(conn: HTTPConnection) -> str:
    """The session cookie's name for this request's origin."""
    return SESSION_COOKIE if secure_cookie(conn) else PLAIN_SESSION_COOKIE


def session_token(conn: HTTPConnection) -> str | None:
    """The session token a request or WebSocket handshake carries, if any."""
    token = conn.cookies.get(cookie_name(conn))
    return token if token and len(token) <= 128 else None


def set_session_cookie(response: Response, conn: HTTPConnection, token: str) -> None:
    """Give the browser its session: HttpOnly, SameSite=Lax, Path=/, no Domain; ``Secure``
    and the ``__Host-`` name over HTTPS and on loopback hosts."""
    response.set_cookie(cookie_name(conn), token,
                        max_age=int(SESSION_LIFETIME.total_seconds()), path="/",
                        secure=secure_cookie(conn), httponly=True, samesite="lax")


def clear_session_cookie(response: Response, conn: HTTPConnection) -> None:
    """Tell the browser to forget its session cookie."""
    response.delete_cookie(cookie_name(conn), path="/", secure=secure_cookie(conn),
                           httponly=True, samesite="lax")


def account_store(conn: HTTPConnection) -> AccountStore:
    """The server's account store."""
    store: AccountStore = conn.app.state.server.accounts
    return store


async def current_account(conn: HTTPConnection) -> Account | None:
    """The account of the request's session (live, not banned), or ``None`` for a guest."""
    if FORWARDED_ACCOUNT in conn.scope:  # checked by the member that forwarded the request
        forwarded: Account | None = conn.scope[FORWARDED_ACCOUNT]
        return forwarded
    found = await _session_lookup(conn, banned_too=False)
    return None if found is None else Account.of(found[0])


async def socket_account(conn: HTTPConnection) -> Account | None:
    """The account of a WebSocket handshake's session cookie, banned or not (a banned one
    has ``banned`` set: its socket is refused), with the session's hash; ``None`` for a
    guest."""
    found = await _session_lookup(conn, banned_too=True)
    if found is None:
        return None
    stored, token_hash = found
    return Account(stored.id, stored.name, stored.role, stored.muted_until, stored.banned,
                   token_hash)


async def _session_lookup(conn: HTTPConnection, banned_too: bool
                          ) -> tuple[StoredAccount, str] | None:
    """The stored account of the session cookie (its session unexpired; ``banned_too``: a
    banned account's as well) and the session token's hash; ``None`` without either."""
    token = session_token(conn)
    if token is None:
        return None
    store = account_store(conn)
    token_hash = secret_hash(token)
    read = store.session_owner if banned_too else store.session_account
    stored = await asyncio.get_running_loop().run_in_executor(None, read, token_hash)
    return None if stored is None else (stored, token_hash)
