"""The players' records in the database: ratings, finished matches and their players.

Writes take the caller's connection (they run inside a table's commit, as an
:class:`ginrummy.storage.Apply`); reads open their own (the server runs them in a thread).
Leaderboards leave banned accounts out. A rank counts the accounts rated higher: whole
buckets of 10 rating points from ``rating_buckets`` (kept with every rating write), the
accounts ahead within the viewer's own bucket from ``ix_ratings_board`` (category, rating,
account), less the banned accounts ahead.
"""

from __future__ import annotations

import contextlib
import json
import math
import secrets
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Engine,
    Table,
    and_,
    case,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.engine import Connection

from ginrummy.storage.models import (
    AccountRow,
    EventRow,
    MatchPlayerRow,
    MatchRow,
    RatingBucketRow,
    RatingRow,
    SeatRow,
    TableRow,
)
from ginrummy.storage.repository import StoredEvent, as_utc

ACCOUNTS: Table = AccountRow.__table__  # type: ignore[assignment]
RATINGS: Table = RatingRow.__table__  # type: ignore[assignment]
BUCKETS: Table = RatingBucketRow.__table__  # type: ignore[assignment]
MATCHES: Table = MatchRow.__table__  # type: ignore[assignment]
MATCH_PLAYERS: Table = MatchPlayerRow.__table__  # type: ignore[assignment]
EVENTS: Table = EventRow.__table__  # type: ignore[assignment]
TABLES: Table = TableRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]

BUCKET_WIDTH = 10
"""Rating points per bucket of ``rating_buckets``."""

STAT_COLUMNS = ("hands", "gins", "knocks", "undercuts", "voids", "caught", "caught_deadwood",
                "points")
"""The per-seat statistics of ``match_players``."""


@dataclass(frozen=True)
class StoredRating:
    """An account's rating in one category."""

    rating: float
    deviation: float
    volatility: float
    games: int


@dataclass(frozen=True)
class BoardEntry:
    """A leaderboard line."""

    rank: int
    name: str
    rating: float
    deviation: float
    games: int
    account_id: int

    def to_json(self) -> dict[str, Any]:
        """The API's form (no account id)."""
        return {"rank": self.rank, "name": self.name, "rating": round(self.rating),
                "deviation": round(self.deviation), "games": self.games}


@dataclass(frozen=True)
class MatchSeat:
    """One seat of a stored match, as history shows it."""

    seat: int
    name: str
    account_id: int | None
    level: str | None
    score: int
    place: int
    abandoned: bool
    rating_before: float | None
    rating_after: float | None
    stats: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class StoredMatch:
    """A finished match with its seats (and its table's rules, for replays)."""

    id: int
    table_id: str
    first_version: int
    last_version: int
    preset: str
    category: str | None
    players: int
    ending: str
    finished_at: datetime
    seats: list[MatchSeat] = field(default_factory=list)
    public_id: str = ""
    """The id links and the API use (random)."""
    public: bool = True
    """Its table was public (a private table's matches are shown to its players only)."""


@dataclass(frozen=True)
class OpenSeat:
    """A seat an account holds at a table not over: the table's public facts and who sits
    there (names and computer levels only; no token, no card)."""

    table_id: str
    seat: int
    table_name: str
    preset: str
    status: str
    public: bool
    created_at: datetime
    seats: list[dict[str, Any]] = field(default_factory=list)
    """Every seat of the table: ``seat``, ``kind``, ``name``, ``level``."""


# ----------------------------------------------------------------------------- writes
def read_ratings(conn: Connection, category: str,
                 account_ids: Iterable[int]) -> dict[int, StoredRating]:
    """The current ratings of some accounts in a category (missing: never rated)."""
    ids = sorted(set(account_ids))
    if not ids:
        return {}
    rows = conn.execute(select(RATINGS).where(RATINGS.c.category == category,
                                              RATINGS.c.account_id.in_(ids)))
    return {r.account_id: StoredRating(r.rating, r.deviation, r.volatility, r.games)
            for r in rows}


def bucket_of(rating: float) -> int:
    """The bucket of a rating: ``bucket * BUCKET_WIDTH <= rating < (bucket + 1) *
    BUCKET_WIDTH``, exactly as SQL compares the stored float."""
    bucket = math.floor(rating / BUCKET_WIDTH)
    if rating < bucket * BUCKET_WIDTH:
        bucket -= 1
    elif rating >= (bucket + 1) * BUCKET_WIDTH:
        bucket += 1
    return bucket


def save_rating(conn: Connection, account_id: int, category: str, rating: StoredRating,
                now: datetime, old: StoredRating | None) -> None:
    """Store an account's new rating in a category (``old``: its current one, ``None`` for
    its first), keeping ``rating_buckets`` in step."""
    values = {"rating": rating.rating, "deviation": rating.deviation,
              "volatility": rating.volatility, "games": rating.games, "updated_at": now}
    if old is None:
        conn.execute(insert(RATINGS).values(account_id=account_id, category=category,
                                            **values))
    else:
        conn.execute(update(RATINGS).where(RATINGS.c.account_id == account_id,
                                           RATINGS.c.category == category).values(values))
    new_bucket = bucket_of(rating.rating)
    if old is not None and bucket_of(old.rating) == new_bucket:
        return
    if old is not None:
        _count_in_bucket(conn, category, bucket_of(old.rating), -1)
    _count_in_bucket(conn, category, new_bucket, +1)


def _count_in_bucket(conn: Connection, category: str, bucket: int, change: int) -> None:
    key = (BUCKETS.c.category == category, BUCKETS.c.bucket == bucket)
    done = conn.execute(update(BUCKETS).where(*key)
                        .values(accounts=BUCKETS.c.accounts + change))
    if done.rowcount == 0:
        conn.execute(insert(BUCKETS).values(category=category, bucket=bucket,
                                            accounts=change))


def new_public_id() -> str:
    """A match's public id: 96 random bits, URL-safe, never all digits (a number is an old
    link's integer id)."""
    while True:
        made = secrets.token_urlsafe(12)
        if not made.isdigit():
            return made


def insert_match(conn: Connection, match: dict[str, Any],
                 seats: Sequence[dict[str, Any]]) -> int:
    """Insert a ``matches`` row (with a fresh ``public_id`` unless given) and its
    ``match_players`` rows; the new match id."""
    match = {"public_id": new_public_id(), **match}
    key = conn.execute(insert(MATCHES).values(match)).inserted_primary_key
    assert key is not None
    match_id = int(key[0])
    conn.execute(insert(MATCH_PLAYERS), [{**seat, "match_id": match_id} for seat in seats])
    return match_id


# ----------------------------------------------------------------------------- reads
Source = Engine | Connection
"""Reads take an engine (a connection of their own) or a connection (several reads on one
connection: one pool check-out and its ping, not one per read)."""


def _reading(source: Source) -> contextlib.AbstractContextManager[Connection]:
    if isinstance(source, Connection):
        return contextlib.nullcontext(source)
    return source.connect()


# ----------------------------------------------------------------------------- leaderboards
def _board_query(category: str) -> Any:
    return (select(RATINGS.c.account_id, ACCOUNTS.c.name, RATINGS.c.rating,
                   RATINGS.c.deviation, RATINGS.c.games)
            .join(ACCOUNTS, ACCOUNTS.c.id == RATINGS.c.account_id)
            .where(RATINGS.c.category == category, ACCOUNTS.c.banned_at.is_(None)))


def leaderboard(source: Source, category: str, limit: int = 100) -> list[BoardEntry]:
    """The best ``limit`` accounts of a category, best first (ties: the older account)."""
    query = (_board_query(category)
             .order_by(RATINGS.c.rating.desc(), RATINGS.c.account_id).limit(limit))
    with _reading(source) as conn:
        rows = conn.execute(query).all()
    return [BoardEntry(i + 1, r.name, r.rating, r.deviation, r.games, r.account_id)
            for i, r in enumerate(rows)]


def board_entry(source: Source, category: str, account_id: int) -> BoardEntry | None:
    """An account's own leaderboard line (its rank among everyone), or ``None``."""
    with _reading(source) as conn:
        return _board_entry(conn, category, account_id)


def _board_entry(conn: Connection, category: str, account_id: int) -> BoardEntry | None:
    # One statement: the account's line and its rank = 1 + the accounts of the buckets above
    # its own + those ahead in its own bucket (a range of ix_ratings_board) + the older ones
    # with the same rating - the banned accounts ahead (through ix_accounts_banned_at).
    own = RATINGS.alias("own")
    mine = (select(own.c.rating).where(own.c.account_id == account_id,
                                       own.c.category == category).scalar_subquery())
    bucket = func.floor(mine / BUCKET_WIDTH)
    other = RATINGS.alias("other")
    tie = and_(other.c.rating == mine, other.c.account_id < account_id)

    def counted(*where: Any, banned: bool = False) -> Any:
        source = (other.join(ACCOUNTS, ACCOUNTS.c.id == other.c.account_id) if banned
                  else other)
        return (select(func.count()).select_from(source)
                .where(other.c.category == category, *where).scalar_subquery())

    above = (select(func.coalesce(func.sum(BUCKETS.c.accounts), 0))
             .where(BUCKETS.c.category == category, BUCKETS.c.bucket > bucket)
             .scalar_subquery())
    own_bucket = counted(other.c.rating > mine,
                         other.c.rating < (bucket + 1) * BUCKET_WIDTH)
    banned = counted(ACCOUNTS.c.banned_at.is_not(None), or_(other.c.rating > mine, tie),
                     banned=True)
    rank = 1 + above + own_bucket + counted(tie) - banned
    row = conn.execute(_board_query(category).add_columns(rank.label("rank"))
                       .where(RATINGS.c.account_id == account_id)).first()
    if row is None:
        return None
    return BoardEntry(int(row.rank), row.name, row.rating, row.deviation, row.games,
                      account_id)


def account_ratings(source: Source, account_id: int) -> dict[str, BoardEntry]:
    """An account's leaderboard line in every category it is rated in."""
    with _reading(source) as conn:
        categories = conn.execute(select(RATINGS.c.category)
                                  .where(RATINGS.c.account_id == account_id)).scalars().all()
        found = {c: _board_entry(conn, c, account_id) for c in categories}
    return {c: e for c, e in found.items() if e is not None}


# ----------------------------------------------------------------------------- profiles
def rating_history(source: Source, account_id: int,
                   per_category: int = 200) -> dict[str, list[tuple[datetime, float]]]:
    """(time, rating after) of an account's rated matches per category, oldest first (the
    last ``per_category`` of each, chosen by the database)."""
    newest_first = func.row_number().over(partition_by=MATCHES.c.category,
                                          order_by=MATCH_PLAYERS.c.match_id.desc())
    rated = (select(MATCHES.c.category, MATCHES.c.finished_at, MATCH_PLAYERS.c.rating_after,
                    MATCH_PLAYERS.c.match_id, newest_first.label("age"))
             .join(MATCHES, MATCHES.c.id == MATCH_PLAYERS.c.match_id)
             .where(MATCH_PLAYERS.c.account_id == account_id,
                    MATCHES.c.category.is_not(None),
                    MATCH_PLAYERS.c.rating_after.is_not(None))
             .subquery())
    query = (select(rated.c.category, rated.c.finished_at, rated.c.rating_after)
             .where(rated.c.age <= per_category).order_by(rated.c.match_id))
    history: dict[str, list[tuple[datetime, float]]] = defaultdict(list)
    with _reading(source) as conn:
        for row in conn.execute(query):
            history[row.category].append((as_utc(row.finished_at), float(row.rating_after)))
    return dict(history)


def account_totals(source: Source, account_id: int) -> dict[str, int]:
    """Sums over every stored match of an account: ``matches``, ``won`` (placed first, not
    abandoned) and each statistic of :data:`STAT_COLUMNS`."""
    mp = MATCH_PLAYERS.c
    won = func.sum(case((and_(mp.place == 1, mp.abandoned.is_(False)), 1), else_=0))
    query = select(func.count().label("matches"), won.label("won"),
                   *(func.sum(mp[name]).label(name) for name in STAT_COLUMNS)
                   ).where(mp.account_id == account_id)
    with _reading(source) as conn:
        row = conn.execute(query).one()._mapping
    return {key: int(value or 0) for key, value in row.items()}


# ----------------------------------------------------------------------------- history
def account_matches(source: Source, account_id: int, before: int | None = None,
                    limit: int = 50, viewer_id: int | None = None,
                    sees_all: bool = True) -> list[StoredMatch]:
    """An account's stored matches, newest first (ids below ``before`` when given). Unless
    ``sees_all`` (the account itself, an administrator), a private table's matches only
    where ``viewer_id`` played too."""
    query = (select(MATCH_PLAYERS.c.match_id)
             .where(MATCH_PLAYERS.c.account_id == account_id)
             .order_by(MATCH_PLAYERS.c.match_id.desc()).limit(limit))
    if before is not None:
        query = query.where(MATCH_PLAYERS.c.match_id < before)
    if not sees_all:
        viewer = MATCH_PLAYERS.alias("viewer")
        shown: Any = TABLES.c.public.is_(True)
        if viewer_id is not None:
            shown = or_(shown, select(viewer.c.match_id).where(
                viewer.c.match_id == MATCH_PLAYERS.c.match_id,
                viewer.c.account_id == viewer_id).exists())
        query = (query.join(MATCHES, MATCHES.c.id == MATCH_PLAYERS.c.match_id)
                 .join(TABLES, TABLES.c.id == MATCHES.c.table_id).where(shown))
    with _reading(source) as conn:
        ids = list(conn.execute(query).scalars())
        return _matches(conn, MATCHES.c.id.in_(ids)) if ids else []


def open_seats(source: Source, account_id: int | None, tokens: Sequence[tuple[str, str]],
               statuses: Iterable[str], limit: int = 40) -> list[OpenSeat]:
    """The seats held at tables whose status is one of ``statuses``, newest table first (at
    most ``limit``): ``account_id``'s, and those whose (table id, seat token hash) is one of
    ``tokens``; read from the database, so every process's tables."""
    held = [and_(SEATS.c.table_id == table_id, SEATS.c.token_hash == token_hash)
            for table_id, token_hash in tokens]
    if account_id is not None:
        held.append(SEATS.c.account_id == account_id)
    if not held:
        return []
    query = (select(SEATS.c.table_id, SEATS.c.seat, TABLES.c.name, TABLES.c.preset,
                    TABLES.c.status, TABLES.c.public, TABLES.c.created_at)
             .join(TABLES, TABLES.c.id == SEATS.c.table_id)
             .where(or_(*held), TABLES.c.status.in_(list(statuses)))
             .order_by(TABLES.c.created_at.desc(), TABLES.c.id).limit(limit))
    with _reading(source) as conn:
        rows = conn.execute(query).mappings().all()
        found = {r["table_id"]: OpenSeat(r["table_id"], r["seat"], r["name"], r["preset"],
                                         r["status"], bool(r["public"]),
                                         as_utc(r["created_at"])) for r in rows}
        if found:
            for s in conn.execute(select(SEATS.c.table_id, SEATS.c.seat, SEATS.c.kind,
                                         SEATS.c.name, SEATS.c.level)
                                  .where(SEATS.c.table_id.in_(list(found)))
                                  .order_by(SEATS.c.table_id, SEATS.c.seat)).mappings():
                found[s["table_id"]].seats.append(
                    {"seat": s["seat"], "kind": s["kind"], "name": s["name"],
                     "level": s["level"]})
    return list(found.values())


def match_by_id(source: Source, match_id: int) -> StoredMatch | None:
    """One stored match, or ``None``."""
    return _one_match(source, MATCHES.c.id == match_id)


def match_by_public_id(source: Source, public_id: str) -> StoredMatch | None:
    """The stored match of this public id, or ``None``."""
    return _one_match(source, MATCHES.c.public_id == public_id)


def match_of_table(source: Source, table_id: str, first_version: int) -> StoredMatch | None:
    """The stored match of table ``table_id`` that began at event ``first_version``, or
    ``None`` (not stored yet)."""
    return _one_match(source, and_(MATCHES.c.table_id == table_id,
                                   MATCHES.c.first_version == first_version))


def _one_match(source: Source, where: ColumnElement[bool]) -> StoredMatch | None:
    with _reading(source) as conn:
        found = _matches(conn, where)
    return found[0] if found else None


def _matches(conn: Connection, where: ColumnElement[bool]) -> list[StoredMatch]:
    """The matches ``where`` picks (a condition on ``matches``), newest first."""
    rows = conn.execute(select(MATCHES, TABLES.c.public.label("table_public"))
                        .outerjoin(TABLES, TABLES.c.id == MATCHES.c.table_id)
                        .where(where).order_by(MATCHES.c.id.desc())).all()
    if not rows:
        return []
    seats: dict[int, list[MatchSeat]] = defaultdict(list)
    for r in conn.execute(select(MATCH_PLAYERS)
                          .where(MATCH_PLAYERS.c.match_id.in_([r.id for r in rows]))
                          .order_by(MATCH_PLAYERS.c.match_id, MATCH_PLAYERS.c.seat)):
        m = r._mapping
        seats[r.match_id].append(MatchSeat(
            r.seat, r.name, r.account_id, r.level, r.score, r.place, bool(r.abandoned),
            r.rating_before, r.rating_after, {name: int(m[name]) for name in STAT_COLUMNS}))
    return [StoredMatch(r.id, r.table_id, r.first_version, r.last_version, r.preset,
                        r.category, r.players, r.ending, as_utc(r.finished_at),
                        seats.get(r.id, []), r.public_id or "",
                        r.table_public is None or bool(r.table_public)) for r in rows]


def match_source(source: Source, match: StoredMatch
                 ) -> tuple[dict[str, Any], int | None, list[StoredEvent]] | None:
    """What a replay needs: the table's rules (JSON text), its prize pool and the match's
    events (``first_version..last_version``); ``None`` when the table is gone."""
    with _reading(source) as conn:
        table = conn.execute(select(TABLES.c.rules, TABLES.c.pool_chips)
                             .where(TABLES.c.id == match.table_id)).first()
        if table is None:
            return None
        events = conn.execute(
            select(EVENTS).where(EVENTS.c.table_id == match.table_id,
                                 EVENTS.c.version.between(match.first_version,
                                                          match.last_version))
            .order_by(EVENTS.c.version)).all()
    return (json.loads(table.rules), table.pool_chips,
            [StoredEvent(e.version, e.kind, e.payload, e.seat, e.source, e.client_id)
             for e in events])
