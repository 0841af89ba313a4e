"""Accounts: sign up, log in and out, the session, a password change, a guest turned into an
account (docs/accounts.md).

Every route is a POST checked by the edge (``Origin``: :class:`~ginrummy.server.http.edge.
RequestGuard`) with a JSON body (:func:`~ginrummy.server.http.common.read_body`: 415 otherwise),
except ``GET /api/account/me``. Passwords are hashed and verified in the hashing threads
(:mod:`~ginrummy.server.players.sessions`: log-ins apart from the rest), never on the event
loop. Log-ins, sign-ups and password changes are rate-limited per account name (or account)
and per client address (:class:`AttemptLimits`). No password or session token goes into a log
line or a response body; the token goes out once, in the ``Set-Cookie`` of the answer that
makes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ginrummy.server.core.auth import seat_for_token, secret_hash
from ginrummy.server.core.clienttext import BadText
from ginrummy.server.core.limits import KeyedLimits
from ginrummy.server.core.settings import Settings
from ginrummy.server.http.admin_api import close_account_everywhere
from ginrummy.server.http.common import (
    client_address,
    error_response,
    in_thread,
    read_body,
    too_many,
    wait_seconds,
)
from ginrummy.server.http.forwarding import at_owner, owner_answer
from ginrummy.server.http.metrics import count_login
from ginrummy.server.play.committer import CommitFailed
from ginrummy.server.players import moderation
from ginrummy.server.players.names import KEY_LENGTH, BadName, check_name, name_key
from ginrummy.server.players.sessions import (
    SESSION_LIFETIME,
    Account,
    account_store,
    clear_session_cookie,
    current_account,
    hash_password_async,
    needs_rehash,
    new_session_token,
    password_ok_async,
    password_problem,
    session_token,
    set_session_cookie,
)
from ginrummy.storage.accounts import NameTaken, StoredAccount

if TYPE_CHECKING:
    from ginrummy.server.http.common import Server

log = logging.getLogger("ginrummy.server.accounts")

BAD_CREDENTIALS = "wrong name or password"
"""The one answer to an unknown name and to a wrong password."""


# ---------------------------------------------------------------------- bodies
class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Credentials(_Body):
    """``POST /api/account/signup`` and ``/login``."""

    name: str = Field(max_length=200)
    password: str = Field(max_length=1024)
    """Checked for its length by :func:`~ginrummy.server.players.sessions.password_problem`."""


class PasswordChange(_Body):
    """``POST /api/account/password``."""

    old: str = Field(max_length=1024)
    new: str = Field(max_length=1024)


class Upgrade(_Body):
    """``POST /api/account/upgrade``: a guest's seat (its table and token) becomes an
    account's."""

    name: str = Field(max_length=200)
    password: str = Field(max_length=1024)
    table_id: str = Field(max_length=64)
    token: str = Field(max_length=128)


class Logout(_Body):
    """``POST /api/account/logout``: ``{}``, or ``{"everywhere": true}`` to end every session
    of the account (a phone lost, a shared computer left logged in)."""

    everywhere: bool = False


# ---------------------------------------------------------------------- rate limits
class TooManyAttempts(Exception):
    """A log-in, sign-up or password change over one of its limits; ``retry_after`` in whole
    seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    def response(self) -> JSONResponse:
        """The 429 answer, with ``Retry-After``."""
        return too_many("too_many_attempts", str(self), self.retry_after)


@dataclass
class AttemptLimits:
    """The sliding windows of log-ins and sign-ups (settings ``login_*``, ``signup*``).

    The password checks of one name run one at a time (:meth:`one_at_a_time`), each after
    the failures before it were counted: a burst of guesses sent together gets no more tries
    than guesses sent one by one."""

    failures_by_name: KeyedLimits
    """Failed log-ins (and wrong old passwords) per account name key."""
    attempts_by_address: KeyedLimits
    """Log-in, sign-up, upgrade and password change attempts per client address."""
    signups_by_address: KeyedLimits
    """Accounts made per client address."""
    changes_by_account: KeyedLimits
    """Password changes per account (as many as failed log-ins per name, counted apart: a
    change does not lock its owner's log-ins)."""
    _checking: dict[str, tuple[asyncio.Lock, int]] = field(default_factory=dict)
    """The lock of each name whose password is being checked, and how many hold or await it."""

    @classmethod
    def of(cls, settings: Settings) -> AttemptLimits:
        """The limits the settings ask for."""
        return cls(KeyedLimits(settings.login_failures_per_name, settings.login_window_seconds),
                   KeyedLimits(settings.login_attempts_per_address,
                               settings.login_window_seconds),
                   KeyedLimits(settings.signups_per_address, settings.signup_window_seconds),
                   KeyedLimits(settings.login_failures_per_name, settings.login_window_seconds))

    def attempt(self, address: str) -> None:
        """Count an attempt from ``address``; :class:`TooManyAttempts` past its limit."""
        limit = self.attempts_by_address.get(address)
        if not limit.allow():
            raise TooManyAttempts(f"too many log-in and sign-up attempts from this address "
                                  f"(at most {limit.limit} in {limit.window:g} s); try again "
                                  f"in {wait_seconds(limit)} s", wait_seconds(limit))

    def name_open(self, key: str) -> None:
        """:class:`TooManyAttempts` while the name has had its failed log-ins."""
        limit = self.failures_by_name.get(key)
        if limit.retry_after() > 0:
            raise TooManyAttempts(f"too many failed log-ins for this name (at most "
                                  f"{limit.limit} in {limit.window:g} s); try again in "
                                  f"{wait_seconds(limit)} s", wait_seconds(limit))

    @contextlib.asynccontextmanager
    async def one_at_a_time(self, key: str) -> AsyncIterator[None]:
        """Hold the name's lock while its password is checked (the lock is forgotten when
        nobody holds or awaits it)."""
        lock, users = self._checking.get(key, (asyncio.Lock(), 0))
        self._checking[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._checking[key]
            if users > 1:
                self._checking[key] = (lock, users - 1)
            else:
                del self._checking[key]

    def failed(self, key: str) -> None:
        """Count a failed log-in against a name."""
        self.failures_by_name.get(key).allow()

    def change(self, account_id: int) -> None:
        """Count a password change of an account; :class:`TooManyAttempts` past its limit."""
        limit = self.changes_by_account.get(account_id)
        if not limit.allow():
            raise TooManyAttempts(f"too many password changes for this account (at most "
                                  f"{limit.limit} in {limit.window:g} s); try again in "
                                  f"{wait_seconds(limit)} s", wait_seconds(limit))

    def signup(self, address: str) -> None:
        """Count an account about to be made from ``address`` (before its slow hash, so
        sign-ups sent together are counted as they arrive); :class:`TooManyAttempts` past
        the limit."""
        limit = self.signups_by_address.get(address)
        if not limit.allow():
            raise TooManyAttempts(f"too many new accounts from this address (at most "
                                  f"{limit.limit} in {limit.window:g} s); try again in "
                                  f"{wait_seconds(limit)} s", wait_seconds(limit))


LIMITS_KEY = "account_limits"
"""Where :func:`install` keeps the server's :class:`AttemptLimits` (``Server.extra``)."""


def limits(request: Request) -> AttemptLimits:
    """The server's log-in and sign-up limits."""
    found: AttemptLimits = request.app.state.server.extra[LIMITS_KEY]
    return found


# ---------------------------------------------------------------------- helpers
class _Refused(Exception):
    """An answer other than the happy one (an error response)."""

    def __init__(self, response: JSONResponse) -> None:
        super().__init__()
        self.response = response






def _checked_name(name: str) -> str:
    try:
        return check_name(name)
    except BadName as exc:
        raise _Refused(error_response(400, "bad_request", f"name: {exc}", "name")) from None


def _checked_password(password: str, field: str = "password") -> None:
    problem = password_problem(password)
    if problem is not None:
        raise _Refused(error_response(400, "bad_request", f"{field}: {problem}", field))


async def _logged_in(request: Request, account: Account, status: int,
                     **more: object) -> JSONResponse:
    """The answer that starts a new session for ``account`` (``{"account", **more}``): a
    fresh token in the cookie; the session the request came with (if any) is deleted."""
    token = new_session_token()
    old = session_token(request)
    store = account_store(request)
    await in_thread(store.replace_session, None if old is None else secret_hash(old),
                     secret_hash(token), account.id, SESSION_LIFETIME)
    response = JSONResponse({"account": account.public(), **more}, status_code=status)
    set_session_cookie(response, request, token)
    return response


async def _new_account(request: Request, name: str, password: str) -> StoredAccount:
    """Check and create an account (not yet logged in); counts against the sign-up limits."""
    shown = _checked_name(name)
    _checked_password(password)
    address = client_address(request)
    attempts = limits(request)
    attempts.attempt(address)
    store = account_store(request)
    key = name_key(shown)
    if await in_thread(store.by_key, key) is None:  # a taken name costs no sign-up
        attempts.signup(address)
        password_hash = await hash_password_async(password)
        try:
            created: StoredAccount = await in_thread(store.create, shown, key, password_hash)
        except NameTaken:
            pass  # taken meanwhile
        else:
            return created
    raise _Refused(error_response(409, "name_taken", "that name (or one that looks like it) "
                                  "is taken", "name"))


async def _answer(work: Awaitable[Response]) -> Response:
    """Run a route's work, turning refusals into their answers and a database that fails
    into 503 ``storage`` (nothing was changed: each write is one transaction)."""
    try:
        response = await work
    except _Refused as refused:
        return refused.response
    except TooManyAttempts as exc:
        return exc.response()
    except SQLAlchemyError as exc:
        log.error("an account request failed in the database (%s)", type(exc).__name__)
        return error_response(503, "storage", "the database is unavailable; try again")
    return response


# ---------------------------------------------------------------------- routes
async def signup(request: Request) -> Response:
    """``POST /api/account/signup {name, password}`` → 201 ``{"account"}`` and the cookie."""
    body = await read_body(request, Credentials)
    if isinstance(body, JSONResponse):
        return body

    async def work() -> Response:
        stored = await _new_account(request, body.name, body.password)
        log.info("account %d: signed up", stored.id,
                 extra={"event": "signup", "account": stored.id})
        return await _logged_in(request, Account.of(stored), 201)

    return await _answer(work())


async def login(request: Request) -> Response:
    """``POST /api/account/login {name, password}`` → 200 ``{"account"}`` and a new cookie.
    An unknown name and a wrong password get the same answer after the same work; a name or
    password with a control character cannot be an account's: 401 as well."""
    body = await read_body(request, Credentials, _no_such_account)
    if isinstance(body, JSONResponse):
        return body

    async def work() -> Response:
        attempts = limits(request)
        attempts.attempt(client_address(request))
        key = name_key(body.name)
        async with attempts.one_at_a_time(key):
            attempts.name_open(key)
            store = account_store(request)
            stored: StoredAccount | None = await in_thread(store.by_key, key)
            ok = await password_ok_async(None if stored is None else stored.password_hash,
                                         body.password, login=True)
            count_login(request.app.state.server,
                        ok and stored is not None and not stored.banned)
            if stored is None or not ok:
                attempts.failed(key)
                log.info("a failed log-in", extra={"event": "login_failed"})
                return error_response(401, "bad_credentials", BAD_CREDENTIALS)
        if stored.banned:
            return error_response(403, "banned", "this account is banned")
        if needs_rehash(stored.password_hash):  # made with older parameters: renew it
            renewed = await hash_password_async(body.password)
            await in_thread(functools.partial(store.set, stored.id, password_hash=renewed))
        log.info("account %d: logged in", stored.id,
                 extra={"event": "login", "account": stored.id})
        return await _logged_in(request, Account.of(stored), 200)

    return await _answer(work())


def _no_such_account(_exc: BadText) -> JSONResponse:
    """A log-in whose name or password holds a control character: no account has it."""
    return error_response(401, "bad_credentials", BAD_CREDENTIALS)


async def logout(request: Request) -> Response:
    """``POST /api/account/logout {}`` → 204; the session is deleted (with ``everywhere``,
    every session of the account), the cookie cleared."""
    body = await read_body(request, Logout)
    if isinstance(body, JSONResponse):
        return body

    async def work() -> Response:
        token = session_token(request)
        store = account_store(request)
        if token is not None and body.everywhere:
            account = await current_account(request)
            if account is not None:
                ended = await in_thread(store.end_sessions, account.id)
                closed = await close_account_everywhere(
                    request.app.state.server, account.id, moderation.LOGGED_OUT_REASON)
                log.info("account %d: logged out everywhere (%d session(s), %d socket(s))",
                         account.id, ended, closed,
                         extra={"event": "logout_everywhere", "account": account.id})
        if token is not None:
            await in_thread(store.end_session, secret_hash(token))
        response = Response(status_code=204)
        clear_session_cookie(response, request)
        return response

    return await _answer(work())


async def me(request: Request) -> Response:
    """``GET /api/account/me`` → ``{"account"}``, or 401 ``not_logged_in``."""

    async def work() -> Response:
        account = await current_account(request)
        if account is None:
            return _not_logged_in()
        return JSONResponse({"account": account.public()})

    return await _answer(work())


def _not_logged_in() -> JSONResponse:
    return error_response(401, "not_logged_in", "log in first")


async def change_password(request: Request) -> Response:
    """``POST /api/account/password {old, new}`` → 200 ``{"account", "sessions_ended"}``:
    every other session of the account ends."""
    body = await read_body(request, PasswordChange)
    if isinstance(body, JSONResponse):
        return body

    async def work() -> Response:
        account = await current_account(request)
        if account is None:
            return _not_logged_in()
        _checked_password(body.new, "new")
        if body.new == body.old:
            return error_response(400, "bad_request", "new: the new password is the old one; "
                                  "choose another", "new")
        attempts = limits(request)
        attempts.attempt(client_address(request))  # a change is an attempt, as a log-in
        attempts.change(account.id)
        key = name_key(account.name)
        async with attempts.one_at_a_time(key):
            attempts.name_open(key)
            store = account_store(request)
            stored: StoredAccount | None = await in_thread(store.by_id, account.id)
            if stored is None or not await password_ok_async(stored.password_hash, body.old):
                attempts.failed(key)
                return error_response(403, "bad_credentials", "old: wrong password", "old")
        new_hash = await hash_password_async(body.new)
        token = session_token(request)
        kept = None if token is None else secret_hash(token)
        ended: int = await in_thread(store.change_password, account.id, new_hash, kept)
        # the sockets of the other sessions (and those opened by a seat token) close too
        await close_account_everywhere(request.app.state.server, account.id,
                                       moderation.PASSWORD_REASON, kept)
        log.info("account %d: password changed, %d other session(s) ended", account.id, ended,
                 extra={"event": "password_changed", "account": account.id})
        return JSONResponse({"account": account.public(), "sessions_ended": ended})

    return await _answer(work())


async def upgrade(request: Request) -> Response:
    """``POST /api/account/upgrade {name, password, table_id, token}`` → 201 ``{"account",
    "table_id", "seat"}``: a new account, logged in, sitting in the guest's seat; the seat's
    earlier finished matches at that table become the account's."""
    body = await read_body(request, Upgrade)
    if isinstance(body, JSONResponse):
        return body
    server: Server = request.app.state.server

    async def work() -> Response:
        at_owner_answer = await owner_answer(request, body.table_id)
        if at_owner_answer is not None:  # the table's owner made the account, its answer
            return at_owner_answer
        writer = await server.lobby.load(body.table_id)
        if writer is None:
            return error_response(404, "not_found", f"no table {body.table_id!r}",
                                  "table_id")
        seat = seat_for_token(writer.table.seats, body.token)
        if seat is None:
            return error_response(403, "forbidden", "token: not a seat of this table",
                                  "token")
        if seat.account_id is not None:
            return error_response(409, "already_bound", "this seat is an account's already",
                                  "token")
        stored = await _new_account(request, body.name, body.password)
        try:
            await writer.bind_account(seat.seat, stored.id, stored.name)
        except (CommitFailed, LookupError) as exc:
            await in_thread(server.accounts.delete, stored.id)
            if isinstance(exc, CommitFailed):
                return error_response(503, "storage", str(exc))
            return error_response(409, "already_bound", "this seat is an account's already",
                                  "token")
        log.info("table %s: seat %d became account %d's", writer.table.id, seat.seat,
                 stored.id, extra={"event": "upgrade", "account": stored.id,
                                   "table": writer.table.id, "seat": seat.seat})
        return await _logged_in(request, Account.of(stored), 201, table_id=writer.table.id,
                                seat=seat.seat)

    return await _answer(work())


ROUTES: list[BaseRoute] = [
    Route("/api/account/signup", signup, methods=["POST"]),
    Route("/api/account/login", login, methods=["POST"]),
    Route("/api/account/logout", logout, methods=["POST"]),
    Route("/api/account/me", me, methods=["GET"]),
    Route("/api/account/password", change_password, methods=["POST"]),
    Route("/api/account/upgrade", at_owner("account.upgrade", upgrade), methods=["POST"]),
]


def install(server: Server) -> None:
    """Give the server its log-in and sign-up limits; renew the name keys of an older
    folding; forget expired sessions."""
    server.extra[LIMITS_KEY] = AttemptLimits.of(server.settings)
    clashes = server.accounts.rekey(name_key, KEY_LENGTH)  # keys of an older folding renewed
    if clashes:
        log.warning("%d account(s) keep a name key of an older folding: their names now "
                    "look like another account's (ids %s)", len(clashes),
                    ", ".join(map(str, clashes[:20])))
    purged = server.accounts.purge_expired()  # once, at start-up: one DELETE
    if purged:
        log.info("%d expired session(s) deleted", purged)
