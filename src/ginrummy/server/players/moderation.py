"""Moderation: what an administrator's action does to live tables and connections, and its
rows (the moderation log, chat reports, an account's mute and ban).

Writes are :class:`~ginrummy.storage.Apply` operations committed by the group committer (a
kick or a close in the same transaction as the table's own change); reads run in a thread.
The routes are :mod:`ginrummy.server.http.admin_api`; docs/moderation.md says what each action does.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, Table, and_, delete, insert, select, update
from sqlalchemy.engine import Connection as DbConnection

from ginrummy.server.core.jsontext import dumps
from ginrummy.server.core.kinds import SeatKind
from ginrummy.server.core.protocol import Close
from ginrummy.server.play.committer import CommitFailed
from ginrummy.server.play.messages import notice_message
from ginrummy.server.play.tablewriter import REVOKED_TOKEN
from ginrummy.storage import Apply
from ginrummy.storage.accounts import ACCOUNTS, MATCH_PLAYERS, MATCHES, SESSIONS
from ginrummy.storage.models import ModerationRow, ReportRow
from ginrummy.storage.repository import as_utc, utcnow

if TYPE_CHECKING:
    from ginrummy.server.play.lobby import Lobby

LOG: Table = ModerationRow.__table__  # type: ignore[assignment]
REPORTS: Table = ReportRow.__table__  # type: ignore[assignment]

KICK_REASON = "an administrator removed you from this seat"
BAN_REASON = "this account was banned"


# ---------------------------------------------------------------------- rows
def log_row(actor_id: int | None, action: str, target_account_id: int | None = None,
            table_id: str | None = None, detail: str = "") -> Apply:
    """The write of one moderation log row (``action``: ``kick``, ``mute``, ``ban``...)."""
    values = {"at": utcnow(), "actor_id": actor_id, "action": action,
              "target_account_id": target_account_id, "table_id": table_id,
              "detail": detail}
    return Apply(lambda conn: _insert(conn, LOG, values))


def _insert(conn: DbConnection, table: Table, values: dict[str, Any]) -> None:
    conn.execute(insert(table).values(values))


def mute_ops(actor_id: int, account_id: int, until: datetime | None,
             detail: str) -> list[Apply]:
    """Set (or, with ``None``, clear) an account's ``muted_until``, with its log row."""
    def run(conn: DbConnection) -> None:
        conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account_id)
                     .values(muted_until=until))
    return [Apply(run), log_row(actor_id, "mute" if until is not None else "unmute",
                                account_id, None, detail)]


def ban_ops(actor_id: int, account_id: int, banned: bool) -> list[Apply]:
    """Ban an account (``banned_at`` set: every session is dead at once) or lift its ban
    (every session deleted: none comes back to life), with its log row: one transaction.

    A banned account's sessions are kept, dead, while the ban lasts: a socket opened with
    one of their cookies is known as the banned account's and refused (a client that
    reconnects during the ban does not come back as an anonymous spectator)."""
    def run(conn: DbConnection) -> None:
        conn.execute(update(ACCOUNTS).where(ACCOUNTS.c.id == account_id)
                     .values(banned_at=utcnow() if banned else None))
        if not banned:
            conn.execute(delete(SESSIONS).where(SESSIONS.c.account_id == account_id))
    return [Apply(run), log_row(actor_id, "ban" if banned else "unban", account_id)]


@dataclass(frozen=True)
class Report:
    """A chat line a player reported (``line_seq``: its number at the table) and who
    reported it (``reporter_key``: ``a<account id>`` or ``s<seat>``, once per line)."""

    reporter_id: int | None
    reporter_name: str
    table_id: str
    author_name: str
    author_account_id: int | None
    text: str
    line_seq: int | None = None
    reporter_key: str | None = None


class AlreadyReported(LookupError):
    """This reporter reported this line already (the write changes nothing)."""


def report_ops(report: Report) -> list[Apply]:
    """Store a report, with its log row; the write fails with :class:`AlreadyReported`
    (nothing stored) when the reporter reported the line before (also guarded by the
    ``uq_chat_reports_once`` constraint)."""
    values = {"at": utcnow(), "reporter_id": report.reporter_id,
              "reporter_name": report.reporter_name, "table_id": report.table_id,
              "author_name": report.author_name,
              "author_account_id": report.author_account_id, "text": report.text,
              "handled": False, "line_seq": report.line_seq,
              "reporter_key": report.reporter_key}

    def run(conn: DbConnection) -> None:
        if report.reporter_key is not None and conn.execute(select(REPORTS.c.id).where(
                REPORTS.c.table_id == report.table_id, REPORTS.c.line_seq == report.line_seq,
                REPORTS.c.reporter_key == report.reporter_key)).first() is not None:
            raise AlreadyReported(report.reporter_key)
        _insert(conn, REPORTS, values)

    return [Apply(run),
            log_row(report.reporter_id, "report", report.author_account_id, report.table_id,
                    f"{report.reporter_name} reported {report.author_name}")]


def reported_before(engine: Engine, table_id: str, line_seq: int, reporter_key: str) -> bool:
    """True when ``reporter_key`` reported that line of the table already."""
    with engine.connect() as conn:
        return conn.execute(select(REPORTS.c.id).where(
            REPORTS.c.table_id == table_id, REPORTS.c.line_seq == line_seq,
            REPORTS.c.reporter_key == reporter_key)).first() is not None


def sat_at(engine: Engine, table_id: str, account_id: int) -> bool:
    """True when the account played a finished match of the table (it sat there)."""
    with engine.connect() as conn:
        return conn.execute(
            select(MATCH_PLAYERS.c.match_id)
            .join(MATCHES, MATCHES.c.id == MATCH_PLAYERS.c.match_id)
            .where(MATCHES.c.table_id == table_id, MATCH_PLAYERS.c.account_id == account_id)
            .limit(1)).first() is not None


def mark_handled(report_id: int) -> Apply:
    """Mark a report handled; :class:`LookupError` (the write fails) when there is none."""
    def run(conn: DbConnection) -> None:
        done = conn.execute(update(REPORTS).where(REPORTS.c.id == report_id)
                            .values(handled=True))
        if done.rowcount != 1:
            raise LookupError(f"no report {report_id}")
    return Apply(run)


def report_exists(engine: Engine, report_id: int) -> bool:
    """True when there is a report of this id."""
    with engine.connect() as conn:
        return conn.execute(select(REPORTS.c.id).where(REPORTS.c.id == report_id)).first() \
            is not None


# ---------------------------------------------------------------------- reads
def _time(value: datetime | None) -> str | None:
    if value is None:
        return None
    return as_utc(value).isoformat(timespec="seconds").replace("+00:00", "Z")


def read_log(engine: Engine, limit: int, before: int | None = None) -> list[dict[str, Any]]:
    """The moderation log, newest first: who (``actor``) did what to whom (``target``)."""
    actor, target = ACCOUNTS.alias("actor"), ACCOUNTS.alias("target")
    query = (select(LOG, actor.c.name.label("actor"), target.c.name.label("target"))
             .outerjoin(actor, actor.c.id == LOG.c.actor_id)
             .outerjoin(target, target.c.id == LOG.c.target_account_id)
             .order_by(LOG.c.id.desc()).limit(limit))
    if before is not None:
        query = query.where(LOG.c.id < before)
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    return [{"id": r.id, "at": _time(r.at), "actor": r.actor, "action": r.action,
             "target": r.target, "table_id": r.table_id, "detail": r.detail} for r in rows]


def read_reports(engine: Engine, limit: int, before: int | None = None) -> list[dict[str, Any]]:
    """Chat reports, newest first."""
    query = select(REPORTS).order_by(REPORTS.c.id.desc()).limit(limit)
    if before is not None:
        query = query.where(REPORTS.c.id < before)
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    return [{"id": r.id, "at": _time(r.at), "reporter": r.reporter_name,
             "table_id": r.table_id, "author": r.author_name, "text": r.text,
             "handled": r.handled} for r in rows]


def account_names(engine: Engine, ids: Sequence[int]) -> dict[int, str]:
    """The names of these accounts."""
    if not ids:
        return {}
    with engine.connect() as conn:
        rows = conn.execute(select(ACCOUNTS.c.id, ACCOUNTS.c.name)
                            .where(ACCOUNTS.c.id.in_(sorted(set(ids))))).all()
    return {r.id: r.name for r in rows}


async def catch_up(lobby: Lobby, engine: Engine) -> int:
    """Make this process's tables agree with the stored mutes and bans (a cluster member
    that missed an administrator's broadcast, docs/moderation.md): the mutes taken from the
    database, and every banned account still seated here removed as a ban removes it; how
    many connections were closed."""
    loop = asyncio.get_running_loop()
    mutes = await loop.run_in_executor(None, muted_accounts, engine)
    lobby.mutes.replace(mutes)
    banned = await loop.run_in_executor(None, all_banned, engine)
    lobby.restrictions.replace_bans(banned)
    closed = 0
    for account_id in sorted(banned.intersection(seated_accounts(lobby))):
        closed += await remove_account(lobby, account_id, BAN_REASON)
    return closed


def muted_accounts(engine: Engine) -> dict[int, datetime]:
    """Accounts muted now, and until when (loaded into the chat's mutes at start-up)."""
    now = utcnow()
    with engine.connect() as conn:
        rows = conn.execute(select(ACCOUNTS.c.id, ACCOUNTS.c.muted_until).where(
            and_(ACCOUNTS.c.muted_until.is_not(None), ACCOUNTS.c.muted_until > now))).all()
    return {r.id: as_utc(r.muted_until) for r in rows}


# ---------------------------------------------------------------------- live effects
def live_tables(lobby: Lobby, names: dict[int, str]) -> list[dict[str, Any]]:
    """Every table in memory as an administrator sees it: the public entry, plus each seat's
    account and whether an administrator took it (never a token, an invite or a card)."""
    tables = []
    for writer in sorted(lobby.writers.values(), key=lambda w: w.table.created_at,
                         reverse=True):
        table = writer.table
        entry: dict[str, Any] = dict(table.entry())
        entry["seats"] = [
            {**seat_entry,
             "account": None if seat.account_id is None else names.get(seat.account_id),
             "kicked": seat.token_hash == REVOKED_TOKEN}
            for seat_entry, seat in zip(entry["seats"], table.seats, strict=True)]
        entry["connections"] = len(writer.connections)
        tables.append(entry)
    return tables


def seated_accounts(lobby: Lobby) -> list[int]:
    """The accounts sitting at tables in memory."""
    return [s.account_id for w in lobby.writers.values() for s in w.table.seats
            if s.account_id is not None]


async def remove_account(lobby: Lobby, account_id: int, reason: str) -> int:
    """Ban ``account_id`` here: every socket of it is refused from now on
    (``lobby.restrictions``), every seat of it at a live table taken from it (the computer
    plays on) and each of its connections closed with ``reason``; how many connections
    were closed."""
    lobby.restrictions.banned.add(account_id)
    closed = 0
    for writer in list(lobby.writers.values()):
        mine = [c for c in writer.connections if c.account_id == account_id and not c.closed]
        for seat in writer.table.seats:
            if seat.account_id == account_id and seat.kind == SeatKind.HUMAN \
                    and seat.token_hash != REVOKED_TOKEN and writer.table.stuck is None:
                # stopped meanwhile, or the database refused: its sockets close all the same
                with contextlib.suppress(LookupError, CommitFailed):
                    await writer.kick(seat.seat, reason)
        for conn in mine:
            conn.close(Close.FORBIDDEN, reason)  # a seat's were closed by the kick already
        closed += len(mine)
    return closed


LOGGED_OUT_REASON = "this account logged out everywhere: log in again"
PASSWORD_REASON = "this account's password was changed: log in again"


def close_account_sockets(lobby: Lobby, account_id: int, reason: str,
                          keep_session: str | None = None) -> int:
    """Close every connection of ``account_id`` (seated or watching, by its cookie or its
    seat) with ``reason``, but those opened with the session of hash ``keep_session``; its
    seats stay its own (held, then played by the computer, until it comes back logged in).
    How many were closed."""
    closed = 0
    for writer in list(lobby.writers.values()):
        for conn in list(writer.connections):
            if conn.account_id == account_id and not conn.closed and (
                    keep_session is None or conn.session_hash != keep_session):
                conn.close(Close.FORBIDDEN, reason)
                closed += 1
    return closed


def unban_here(lobby: Lobby, account_id: int) -> None:
    """The account's ban is lifted: its sockets are welcome again."""
    lobby.restrictions.banned.discard(account_id)


def all_banned(engine: Engine) -> set[int]:
    """Every banned account."""
    with engine.connect() as conn:
        return set(conn.execute(select(ACCOUNTS.c.id)
                                .where(ACCOUNTS.c.banned_at.is_not(None))).scalars())


def send_notice(lobby: Lobby, text: str) -> int:
    """Send a ``notice`` to every connection of every table; how many it was sent to."""
    message = dumps(notice_message(text))
    sent = 0
    for writer in list(lobby.writers.values()):
        for conn in list(writer.connections):
            if not conn.closed:
                conn.send(message)
                sent += 1
    return sent
