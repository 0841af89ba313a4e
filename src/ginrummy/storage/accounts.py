"""Accounts and sessions in the database (synchronous: the server runs these in a thread).

Only hashes are stored: the password's Argon2id hash (made by the caller) and the SHA-256 of
each session's random token.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, Table, delete, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ginrummy.storage.models import (
    AccountRow,
    MatchPlayerRow,
    MatchRow,
    ModerationRow,
    SessionRow,
)
from ginrummy.storage.repository import as_utc, utcnow

ACCOUNTS: Table = AccountRow.__table__  # type: ignore[assignment]
SESSIONS: Table = SessionRow.__table__  # type: ignore[assignment]
MATCHES: Table = MatchRow.__table__  # type: ignore[assignment]
MATCH_PLAYERS: Table = MatchPlayerRow.__table__  # type: ignore[assignment]
MODERATION: Table = ModerationRow.__table__  # type: ignore[assignment]


class NameTaken(ValueError):
    """An account with that name (or a look-alike of it) exists."""


@dataclass(frozen=True)
class StoredAccount:
    """An account as stored (the password hash included: never send it anywhere)."""

    id: int
    name: str
    name_key: str
    password_hash: str
    role: str
    created_at: datetime
    banned_at: datetime | None = None
    muted_until: datetime | None = None
    topped_up_on: str | None = None

    @property
    def admin(self) -> bool:
        """True for an administrator."""
        return self.role == "admin"

    @property
    def banned(self) -> bool:
        """True once banned (its sessions are gone and no new one is made)."""
        return self.banned_at is not None

    def muted(self, now: datetime | None = None) -> bool:
        """True while its chat is muted."""
        return self.muted_until is not None and self.muted_until > (now or utcnow())


def storable(text: str) -> bool:
    """True when ``text`` can be stored in (or compared with) a text column of SQLite and
    PostgreSQL alike: UTF-8 text without a NUL."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return False
    return True


def _account(row: object) -> StoredAccount:
    r = row._mapping  # type: ignore[attr-defined]
    return StoredAccount(
        id=r["id"], name=r["name"], name_key=r["name_key"], password_hash=r["password_hash"],
        role=r["role"], created_at=as_utc(r["created_at"]),
        banned_at=None if r["banned_at"] is None else as_utc(r["banned_at"]),
        muted_until=None if r["muted_until"] is None else as_utc(r["muted_until"]),
        topped_up_on=r["topped_up_on"])


class AccountStore:
    """Reads and writes of accounts and sessions on one engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ----------------------------------------------------------------- accounts
    def create(self, name: str, name_key: str, password_hash: str, role: str = "player",
               conn: Connection | None = None) -> StoredAccount:
        """A new account; :class:`NameTaken` when ``name_key`` is in use. With ``conn``, in
        the caller's transaction (e.g. with the sign-up grant of chips)."""
        values = {"name": name, "name_key": name_key, "password_hash": password_hash,
                  "role": role, "created_at": utcnow()}
        if conn is not None:
            return self._create(conn, values)
        try:
            with self.engine.begin() as own:
                return self._create(own, values)
        except IntegrityError:
            raise NameTaken(name) from None

    def _create(self, conn: Connection, values: dict[str, object]) -> StoredAccount:
        taken = conn.execute(select(ACCOUNTS.c.id)
                             .where(ACCOUNTS.c.name_key == values["name_key"])).first()
        if taken is not None:
            raise NameTaken(str(values["name"]))
        key = conn.execute(insert(ACCOUNTS).values(values)).inserted_primary_key
        assert key is not None
        new_id = key[0]
        found = conn.execute(select(ACCOUNTS).where(ACCOUNTS.c.id == new_id)).one()
        return _account(found)

    def by_id(self, account_id: int) -> StoredAccount | None:
        """The account with this id, or ``None``."""
        with self.engine.connect() as conn:
            row = conn.execute(select(ACCOUNTS).where(ACCOUNTS.c.id == account_id)).first()
        return None if row is None else _account(row)

    def by_key(self, name_key: str) -> StoredAccount | None:
        """The account whose folded name is ``name_key``, or ``None`` (at once for a key no
        database column can hold: a NUL, a lone surrogate; PostgreSQL would refuse the
        query)."""
        if not storable(name_key):
            return None
        with self.engine.connect() as conn:
            row = conn.execute(select(ACCOUNTS).where(ACCOUNTS.c.name_key == name_key)).first()
        return None if row is None else _account(row)

    def set(self, account_id: int, **values: object) -> None:
        """Set columns of an account (``role``, ``banned_at``, ``muted_until``,
        ``password_hash``, ``topped_up_on``)."""
        with self.engine.begin() as conn:
            conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account_id).values(values))

    def delete(self, account_id: int) -> None:
        """Delete an account that has nothing yet (a sign-up undone: its seat could not be
        bound); its sessions go with it."""
        with self.engine.begin() as conn:
            conn.execute(delete(SESSIONS).where(SESSIONS.c.account_id == account_id))
            conn.execute(delete(ACCOUNTS).where(ACCOUNTS.c.id == account_id))

    def change_password(self, account_id: int, password_hash: str,
                        keep_token_hash: str | None) -> int:
        """Store a new password hash and end every session of the account but the one of
        ``keep_token_hash``, in one transaction; how many sessions ended."""
        with self.engine.begin() as conn:
            conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account_id)
                         .values(password_hash=password_hash))
            others = delete(SESSIONS).where(SESSIONS.c.account_id == account_id)
            if keep_token_hash is not None:
                others = others.where(SESSIONS.c.token_hash != keep_token_hash)
            return int(conn.execute(others).rowcount)

    def create_admin(self, name: str, name_key: str, password_hash: str,
                     detail: str) -> StoredAccount:
        """A new administrator account and its moderation log row (``admin``), together;
        :class:`NameTaken` when the name is in use."""
        try:
            with self.engine.begin() as conn:
                account = self._create(conn, {"name": name, "name_key": name_key,
                                              "password_hash": password_hash, "role": "admin",
                                              "created_at": utcnow()})
                log_moderation(conn, None, "admin", account.id, detail)
                return account
        except IntegrityError:
            raise NameTaken(name) from None

    def promote(self, account_id: int, detail: str) -> None:
        """Make an account an administrator, with its moderation log row (``admin``)."""
        with self.engine.begin() as conn:
            conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account_id)
                         .values(role="admin"))
            log_moderation(conn, None, "admin", account_id, detail)

    def rekey(self, fold: Callable[[str], str], max_length: int) -> list[int]:
        """Store each account's key as ``fold`` makes it from the name now (the folding of
        look-alikes got stricter), where it differs and fits ``max_length``; an account
        whose new key another already has keeps its old one. The ids left with their old
        key (a clash): the log names them."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(ACCOUNTS.c.id, ACCOUNTS.c.name,
                                       ACCOUNTS.c.name_key)).all()
        clashes = []
        for row in rows:
            key = fold(row.name)
            if key == row.name_key or len(key) > max_length:
                continue
            try:
                with self.engine.begin() as conn:
                    conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == row.id)
                                 .values(name_key=key))
            except IntegrityError:
                clashes.append(row.id)
        return clashes

    def count(self) -> int:
        """How many accounts there are."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(ACCOUNTS)).scalar_one())

    # ----------------------------------------------------------------- sessions
    def add_session(self, token_hash: str, account_id: int, lifetime: timedelta) -> None:
        """Store a new session (its token's hash)."""
        now = utcnow()
        with self.engine.begin() as conn:
            conn.execute(insert(SESSIONS).values(token_hash=token_hash, account_id=account_id,
                                                 created_at=now, expires_at=now + lifetime))

    def session_account(self, token_hash: str) -> StoredAccount | None:
        """The account of a live session (not expired, not banned), or ``None``."""
        account = self.session_owner(token_hash)
        return None if account is None or account.banned else account

    def session_owner(self, token_hash: str) -> StoredAccount | None:
        """The account of an unexpired session, banned or not (a banned account's sessions
        are kept while the ban lasts, dead, so that a socket opened with one is known as
        the banned account's and refused), or ``None``."""
        now = utcnow()
        with self.engine.connect() as conn:
            row = conn.execute(
                select(ACCOUNTS, SESSIONS.c.expires_at)
                .join(SESSIONS, SESSIONS.c.account_id == ACCOUNTS.c.id)
                .where(SESSIONS.c.token_hash == token_hash)).first()
        if row is None or as_utc(row._mapping["expires_at"]) <= now:
            return None
        return _account(row)

    def replace_session(self, old_token_hash: str | None, token_hash: str, account_id: int,
                        lifetime: timedelta) -> None:
        """Log in: store a new session and delete the one the request came with (if any), in
        one transaction: a token planted before the login is never the logged-in one."""
        now = utcnow()
        with self.engine.begin() as conn:
            if old_token_hash is not None:
                conn.execute(delete(SESSIONS).where(SESSIONS.c.token_hash == old_token_hash))
            conn.execute(insert(SESSIONS).values(token_hash=token_hash, account_id=account_id,
                                                 created_at=now, expires_at=now + lifetime))

    def session_count(self, account_id: int) -> int:
        """How many sessions an account has (live or expired)."""
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(SESSIONS)
                                    .where(SESSIONS.c.account_id == account_id)).scalar_one())

    def end_session(self, token_hash: str) -> None:
        """Delete one session (log out)."""
        with self.engine.begin() as conn:
            conn.execute(delete(SESSIONS).where(SESSIONS.c.token_hash == token_hash))

    def end_sessions(self, account_id: int) -> int:
        """Delete every session of an account (a ban, a password change); how many."""
        with self.engine.begin() as conn:
            return int(conn.execute(delete(SESSIONS)
                                    .where(SESSIONS.c.account_id == account_id)).rowcount)

    def purge_expired(self) -> int:
        """Delete expired sessions; how many."""
        with self.engine.begin() as conn:
            return int(conn.execute(delete(SESSIONS)
                                    .where(SESSIONS.c.expires_at <= utcnow())).rowcount)


def give_matches(conn: Connection, table_id: str, seat: int, account_id: int) -> None:
    """Give an account the finished matches a guest played at ``seat`` of a table (the
    guest's ``match_players`` rows there, with no account yet). Runs in the caller's
    transaction (the seat's binding to the account)."""
    matches = select(MATCHES.c.id).where(MATCHES.c.table_id == table_id)
    conn.execute(
        update(MATCH_PLAYERS)
        .where(MATCH_PLAYERS.c.match_id.in_(matches), MATCH_PLAYERS.c.seat == seat,
               MATCH_PLAYERS.c.account_id.is_(None), MATCH_PLAYERS.c.level.is_(None))
        .values(account_id=account_id))


def log_moderation(conn: Connection, actor_id: int | None, action: str,
                   target_account_id: int | None, detail: str = "",
                   table_id: str | None = None) -> None:
    """A row of the moderation log (``actor_id`` ``None``: the command line)."""
    conn.execute(insert(MODERATION).values(at=utcnow(), actor_id=actor_id, action=action,
                                           target_account_id=target_account_id,
                                           table_id=table_id, detail=detail))
