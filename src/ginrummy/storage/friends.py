"""Friendships and blocks between accounts (synchronous: the server runs these in a thread).

A friendship is one row per pair of accounts (``low_id`` < ``high_id``): ``pending`` while
the request of ``requester_id`` waits, ``accepted`` once the other accepts it. A block is
one-way (``blocker_id`` blocks ``blocked_id``) and ends any friendship or request between
the two. Every change runs in one transaction; a refused one (:class:`FriendError`) writes
nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, Table, and_, delete, insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ginrummy.storage.models import AccountRow, BlockRow, FriendshipRow, TournamentMatchRow
from ginrummy.storage.repository import as_utc, utcnow

FRIENDSHIPS: Table = FriendshipRow.__table__  # type: ignore[assignment]
BLOCKS: Table = BlockRow.__table__  # type: ignore[assignment]
ACCOUNTS: Table = AccountRow.__table__  # type: ignore[assignment]
TOURNAMENT_MATCHES: Table = TournamentMatchRow.__table__  # type: ignore[assignment]

PENDING = "pending"
ACCEPTED = "accepted"


class FriendError(ValueError):
    """A change refused: ``code`` names why (the API's error code)."""

    code = "bad_request"


class Yourself(FriendError):
    """An account befriends or blocks itself."""

    code = "yourself"


class AlreadyFriends(FriendError):
    """The two accounts are friends already."""

    code = "already_friends"


class AlreadyRequested(FriendError):
    """The same request waits already."""

    code = "already_requested"


class Blocked(FriendError):
    """One of the two blocks the other."""

    code = "blocked"


class NoSuchRequest(FriendError):
    """No request from that account waits (accept, decline)."""

    code = "no_request"


class NotFriends(FriendError):
    """The two accounts are not friends (remove)."""

    code = "not_friends"


@dataclass(frozen=True)
class Person:
    """Another account as the lists show it."""

    id: int
    name: str
    since: datetime


@dataclass(frozen=True)
class FriendLists:
    """An account's friends, the requests it received and sent, and whom it blocks."""

    friends: list[Person]
    incoming: list[Person]
    outgoing: list[Person]
    blocked: list[Person]


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _pair_row(conn: Connection, a: int, b: int) -> object | None:
    low, high = _pair(a, b)
    return conn.execute(select(FRIENDSHIPS).where(
        FRIENDSHIPS.c.low_id == low, FRIENDSHIPS.c.high_id == high)).first()


def blocked_between(conn: Connection, a: int, b: int) -> bool:
    """True when ``a`` blocks ``b`` or ``b`` blocks ``a``."""
    return conn.execute(select(BLOCKS.c.blocker_id).where(or_(
        and_(BLOCKS.c.blocker_id == a, BLOCKS.c.blocked_id == b),
        and_(BLOCKS.c.blocker_id == b, BLOCKS.c.blocked_id == a)))).first() is not None


def blocked_by_any(conn: Connection, account_id: int, blockers: Iterable[int]) -> bool:
    """True when one of ``blockers`` blocks ``account_id`` (a seat at their private table)."""
    ids = [b for b in blockers if b != account_id]
    if not ids:
        return False
    return conn.execute(select(BLOCKS.c.blocker_id).where(
        BLOCKS.c.blocked_id == account_id, BLOCKS.c.blocker_id.in_(ids))).first() is not None


class FriendStore:
    """Reads and writes of friendships and blocks on one engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # --------------------------------------------------------------- changes
    def request(self, me: int, other: int) -> str:
        """``me`` asks ``other`` to be friends: ``"requested"``, or ``"accepted"`` when
        ``other`` had asked ``me`` already (the two requests meet). :class:`Yourself`,
        :class:`Blocked`, :class:`AlreadyFriends`, :class:`AlreadyRequested`."""
        if me == other:
            raise Yourself("you cannot befriend yourself")
        low, high = _pair(me, other)
        try:
            with self.engine.begin() as conn:
                if blocked_between(conn, me, other):
                    raise Blocked("one of you blocks the other")
                row = _pair_row(conn, me, other)
                if row is None:
                    conn.execute(insert(FRIENDSHIPS).values(
                        low_id=low, high_id=high, requester_id=me, status=PENDING,
                        created_at=utcnow(), accepted_at=None))
                    return "requested"
                found = row._mapping  # type: ignore[attr-defined]
                if found["status"] == ACCEPTED:
                    raise AlreadyFriends("you are friends already")
                if found["requester_id"] == me:
                    raise AlreadyRequested("your request waits for an answer already")
                self._accept(conn, low, high)
                return "accepted"
        except IntegrityError:  # the same pair's request inserted meanwhile
            raise AlreadyRequested("a request between you exists already") from None

    @staticmethod
    def _accept(conn: Connection, low: int, high: int) -> None:
        conn.execute(update(FRIENDSHIPS).where(
            FRIENDSHIPS.c.low_id == low, FRIENDSHIPS.c.high_id == high).values(
            status=ACCEPTED, accepted_at=utcnow()))

    def accept(self, me: int, other: int) -> None:
        """``me`` accepts ``other``'s request; :class:`NoSuchRequest` without one."""
        with self.engine.begin() as conn:
            row = _pair_row(conn, me, other)
            found = None if row is None else row._mapping  # type: ignore[attr-defined]
            if found is None or found["status"] != PENDING or found["requester_id"] != other:
                raise NoSuchRequest("no request from that account waits")
            self._accept(conn, *_pair(me, other))

    def decline(self, me: int, other: int) -> None:
        """``me`` declines ``other``'s request, or withdraws its own request to ``other``;
        :class:`NoSuchRequest` without either."""
        low, high = _pair(me, other)
        with self.engine.begin() as conn:
            gone = conn.execute(delete(FRIENDSHIPS).where(
                FRIENDSHIPS.c.low_id == low, FRIENDSHIPS.c.high_id == high,
                FRIENDSHIPS.c.status == PENDING)).rowcount
            if not gone:
                raise NoSuchRequest("no request between you waits")

    def remove(self, me: int, other: int) -> None:
        """End a friendship; :class:`NotFriends` when there is none."""
        low, high = _pair(me, other)
        with self.engine.begin() as conn:
            gone = conn.execute(delete(FRIENDSHIPS).where(
                FRIENDSHIPS.c.low_id == low, FRIENDSHIPS.c.high_id == high,
                FRIENDSHIPS.c.status == ACCEPTED)).rowcount
            if not gone:
                raise NotFriends("you are not friends")

    def block(self, me: int, other: int) -> bool:
        """``me`` blocks ``other`` (any friendship or request between them ends); False when
        it blocked them already. :class:`Yourself`."""
        if me == other:
            raise Yourself("you cannot block yourself")
        low, high = _pair(me, other)
        try:
            with self.engine.begin() as conn:
                conn.execute(delete(FRIENDSHIPS).where(
                    FRIENDSHIPS.c.low_id == low, FRIENDSHIPS.c.high_id == high))
                if conn.execute(select(BLOCKS.c.blocker_id).where(
                        BLOCKS.c.blocker_id == me, BLOCKS.c.blocked_id == other)).first():
                    return False
                conn.execute(insert(BLOCKS).values(blocker_id=me, blocked_id=other,
                                                   created_at=utcnow()))
                return True
        except IntegrityError:  # the same block inserted meanwhile
            return False

    def unblock(self, me: int, other: int) -> bool:
        """``me`` no longer blocks ``other``; False when it did not."""
        with self.engine.begin() as conn:
            return bool(conn.execute(delete(BLOCKS).where(
                BLOCKS.c.blocker_id == me, BLOCKS.c.blocked_id == other)).rowcount)

    # --------------------------------------------------------------- reads
    def lists(self, me: int) -> FriendLists:
        """``me``'s friends, requests in and out, and blocks, each sorted by name."""
        other = FRIENDSHIPS.c.low_id + FRIENDSHIPS.c.high_id - me
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(ACCOUNTS.c.id, ACCOUNTS.c.name, FRIENDSHIPS.c.status,
                       FRIENDSHIPS.c.requester_id, FRIENDSHIPS.c.created_at,
                       FRIENDSHIPS.c.accepted_at)
                .join(FRIENDSHIPS, ACCOUNTS.c.id == other)
                .where(or_(FRIENDSHIPS.c.low_id == me, FRIENDSHIPS.c.high_id == me))).all()
            blocks = conn.execute(
                select(ACCOUNTS.c.id, ACCOUNTS.c.name, BLOCKS.c.created_at)
                .join(BLOCKS, ACCOUNTS.c.id == BLOCKS.c.blocked_id)
                .where(BLOCKS.c.blocker_id == me)).all()
        friends, incoming, outgoing = [], [], []
        for row in rows:
            if row.status == ACCEPTED:
                friends.append(Person(row.id, row.name, as_utc(row.accepted_at)))
            elif row.requester_id == me:
                outgoing.append(Person(row.id, row.name, as_utc(row.created_at)))
            else:
                incoming.append(Person(row.id, row.name, as_utc(row.created_at)))
        blocked = [Person(row.id, row.name, as_utc(row.created_at)) for row in blocks]

        def by_name(people: list[Person]) -> list[Person]:
            return sorted(people, key=lambda p: (p.name.casefold(), p.id))

        return FriendLists(by_name(friends), by_name(incoming), by_name(outgoing),
                           by_name(blocked))

    def friend_ids(self, me: int) -> set[int]:
        """The ids of ``me``'s friends (accepted)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(FRIENDSHIPS.c.low_id, FRIENDSHIPS.c.high_id).where(
                FRIENDSHIPS.c.status == ACCEPTED,
                or_(FRIENDSHIPS.c.low_id == me, FRIENDSHIPS.c.high_id == me))).all()
        return {row.low_id + row.high_id - me for row in rows}

    def are_friends(self, a: int, b: int) -> bool:
        """True when ``a`` and ``b`` are friends."""
        with self.engine.connect() as conn:
            row = _pair_row(conn, a, b)
        return row is not None and row._mapping["status"] == ACCEPTED  # type: ignore[attr-defined]

    def blocked_ids(self, me: int) -> set[int]:
        """The ids of the accounts ``me`` blocks."""
        with self.engine.connect() as conn:
            return set(conn.execute(select(BLOCKS.c.blocked_id)
                                    .where(BLOCKS.c.blocker_id == me)).scalars())

    def blocks(self, me: int, other: int) -> bool:
        """True when ``me`` blocks ``other``."""
        with self.engine.connect() as conn:
            return conn.execute(select(BLOCKS.c.blocker_id).where(
                BLOCKS.c.blocker_id == me, BLOCKS.c.blocked_id == other)).first() is not None

    def tournaments_of(self, table_ids: Iterable[str]) -> dict[str, str]:
        """The tournament of each of ``table_ids`` that plays a tournament match now (the
        presence's ``tournament``); the others are left out."""
        ids = list(table_ids)
        if not ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(select(TOURNAMENT_MATCHES.c.table_id,
                                       TOURNAMENT_MATCHES.c.tournament_id).where(
                TOURNAMENT_MATCHES.c.table_id.in_(ids),
                TOURNAMENT_MATCHES.c.status == "playing")).all()
        return {row.table_id: row.tournament_id for row in rows}
