"""Tournaments in the database: creation, registrations, rounds and matches, and their
chips (docs/tournaments.md).

Every change is one function on a :class:`~sqlalchemy.engine.Connection` that runs in the
caller's transaction and first raises the tournament's ``version`` (which locks its row on
PostgreSQL and takes SQLite's write lock), so two changes of one tournament never
interleave. A change that moves chips does it in that same transaction, through the
double-entry ledger (:func:`ginrummy.storage.ledger.transfer`), with keys that make a retry
pay nothing twice. A change that raises (a :class:`TournamentError`, or the ledger's
``Overdraft``) may have written part of itself: the caller's transaction must then be
rolled back, as :class:`TournamentStore` does. The keys:

- ``tbuy:T:A:N``: account A's N-th registration to tournament T pays the buy-in into the
  prize pool ``tourney:T``;
- ``trefund:T:A:N``: that buy-in back (a withdrawal, or a cancellation);
- ``tprize:T:A``: A's prize when T is over (the prizes hand out the whole pool).

The format's state (``ginrummy.contest``) is stored as JSON and not read here: storage
keeps it, the server's driver decides with it. :class:`TournamentStore` runs each change
in a transaction of its own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, Table, func, insert, select, update
from sqlalchemy.engine import Connection

from ginrummy.storage import ledger
from ginrummy.storage.ledger import Kind
from ginrummy.storage.models import (
    LedgerEntryRow,
    RegistrationRow,
    TableRow,
    TournamentMatchRow,
    TournamentRoundRow,
    TournamentRow,
)
from ginrummy.storage.repository import as_utc, utcnow

TOURNAMENTS: Table = TournamentRow.__table__  # type: ignore[assignment]
PLAYERS: Table = RegistrationRow.__table__  # type: ignore[assignment]
ROUNDS: Table = TournamentRoundRow.__table__  # type: ignore[assignment]
MATCHES: Table = TournamentMatchRow.__table__  # type: ignore[assignment]
ENTRIES: Table = LedgerEntryRow.__table__  # type: ignore[assignment]
GAME_TABLES: Table = TableRow.__table__  # type: ignore[assignment]

OPEN_MATCH = ("waiting", "playing", "present")
"""The statuses of a match still to be decided: waiting for its table, playing (its
players' presence not checked yet), present (every player came; played to the end)."""

FORMATS = ("knockout", "swiss", "arena")
"""The formats a tournament can have (``ginrummy.contest``)."""


class TournamentError(ValueError):
    """A change a tournament refuses; nothing of it was written."""


class NoSuchTournament(TournamentError):
    """No tournament has that id."""


class WrongStatus(TournamentError):
    """The tournament is not in a status that allows the change (registering to a running
    one, starting a cancelled one...)."""


class TournamentFull(TournamentError):
    """Registration is at the tournament's ``max_players``."""


class AlreadyRegistered(TournamentError):
    """The account is registered already."""


class NotRegistered(TournamentError):
    """The account is not registered (or has withdrawn)."""


@dataclass(frozen=True)
class TournamentSettings:
    """What the creator of a tournament chooses."""

    name: str
    format: str
    preset: str
    rules: dict[str, Any]
    """``Ruleset.to_dict()``: every match's rules."""
    starts_at: datetime
    min_players: int
    max_players: int
    clock_ms: int
    rounds: int | None = None
    buy_in: int | None = None
    created_by: int | None = None

    def check(self) -> None:
        """Raise :class:`TournamentError` naming the first setting that cannot be."""
        if self.format not in FORMATS:
            raise TournamentError(f"format must be one of {', '.join(FORMATS)}, not "
                                  f"{self.format!r}")
        if not 2 <= self.min_players <= self.max_players:
            raise TournamentError(f"players: 2 <= min_players ({self.min_players}) <= "
                                  f"max_players ({self.max_players})")
        if self.clock_ms <= 0:
            raise TournamentError(f"clock_ms: a tournament needs a turn clock, not "
                                  f"{self.clock_ms}")
        if self.buy_in is not None and self.buy_in <= 0:
            raise TournamentError(f"buy_in: a positive number of chips or none, not "
                                  f"{self.buy_in}")
        if (self.rounds is None) != (self.format == "knockout") or (
                self.rounds is not None and self.rounds < 1):
            raise TournamentError(f"rounds: one or more for Swiss and arena series, none for "
                                  f"a knock-out, not {self.rounds!r} for {self.format}")
        if not 1 <= len(self.name) <= 80:
            raise TournamentError("name: 1 to 80 characters")


@dataclass(frozen=True)
class StoredTournament:
    """A tournament as stored, with its prize pool's balance."""

    id: str
    settings: TournamentSettings
    status: str
    state: dict[str, Any] | None
    version: int
    pool: int


@dataclass(frozen=True)
class Registration:
    """An account's registration."""

    account_id: int
    status: str
    entries: int
    registered_at: datetime
    rating: float | None
    place: int | None
    prize: int | None


@dataclass(frozen=True)
class StoredMatch:
    """A match of a round and the table that plays it."""

    round: int
    slot: int
    players: tuple[int, ...]
    table_id: str | None
    status: str
    winner: int | None
    result: Any


# ----------------------------------------------------------------------------- keys
def buy_in_key(tournament_id: str, account_id: int, entry: int) -> str:
    """The transfer key of an account's ``entry``-th buy-in to a tournament."""
    return f"tbuy:{tournament_id}:{account_id}:{entry}"


def refund_key(tournament_id: str, account_id: int, entry: int) -> str:
    """The transfer key of that buy-in's refund."""
    return f"trefund:{tournament_id}:{account_id}:{entry}"


def prize_key(tournament_id: str, account_id: int) -> str:
    """The transfer key of an account's prize."""
    return f"tprize:{tournament_id}:{account_id}"


# ----------------------------------------------------------------------------- reads
def _settings(r: Any) -> TournamentSettings:
    return TournamentSettings(
        name=r.name, format=r.format, preset=r.preset, rules=json.loads(r.rules),
        starts_at=as_utc(r.starts_at), min_players=r.min_players, max_players=r.max_players,
        clock_ms=r.clock_ms, rounds=r.rounds, buy_in=r.buy_in, created_by=r.created_by)


def get(conn: Connection, tournament_id: str) -> StoredTournament | None:
    """A tournament, or ``None``."""
    r = conn.execute(select(TOURNAMENTS).where(TOURNAMENTS.c.id == tournament_id)).first()
    if r is None:
        return None
    pool = ledger.balance(conn, ledger.tournament_wallet(tournament_id)) or 0
    return StoredTournament(r.id, _settings(r), r.status,
                            None if r.state is None else json.loads(r.state), r.version, pool)


def listing(conn: Connection, statuses: Sequence[str]) -> list[StoredTournament]:
    """The tournaments of the given statuses, soonest start first."""
    ids = conn.execute(select(TOURNAMENTS.c.id).where(TOURNAMENTS.c.status.in_(statuses))
                       .order_by(TOURNAMENTS.c.starts_at, TOURNAMENTS.c.id)).scalars().all()
    return [t for t in (get(conn, i) for i in ids) if t is not None]


def registrations(conn: Connection, tournament_id: str,
                  statuses: Sequence[str] = ("registered",)) -> list[Registration]:
    """The registrations of the given statuses, oldest first."""
    rows = conn.execute(select(PLAYERS).where(PLAYERS.c.tournament_id == tournament_id,
                                              PLAYERS.c.status.in_(statuses))
                        .order_by(PLAYERS.c.registered_at, PLAYERS.c.account_id)).all()
    return [Registration(r.account_id, r.status, r.entries, as_utc(r.registered_at), r.rating,
                         r.place, r.prize) for r in rows]


def matches(conn: Connection, tournament_id: str, round: int | None = None
            ) -> list[StoredMatch]:
    """The stored matches of a tournament (of one round), in order."""
    query = select(MATCHES).where(MATCHES.c.tournament_id == tournament_id)
    if round is not None:
        query = query.where(MATCHES.c.round == round)
    rows = conn.execute(query.order_by(MATCHES.c.round, MATCHES.c.slot)).all()
    return [StoredMatch(r.round, r.slot, tuple(json.loads(r.players)), r.table_id, r.status,
                        r.winner, None if r.result is None else json.loads(r.result))
            for r in rows]


@dataclass(frozen=True)
class PlayedTournament:
    """A tournament an account played (it was registered when it started): for profiles."""

    id: str
    name: str
    format: str
    status: str
    """``running`` or ``over``."""
    starts_at: datetime
    players: int
    """How many played it."""
    place: int | None
    """The final place once over (tied players share the better one)."""
    prize: int | None


@dataclass(frozen=True)
class AccountTournaments:
    """An account's tournaments: how many it played, its best finish, the latest ones."""

    played: int
    best: PlayedTournament | None
    """The best place of a finished tournament (the larger field, then the latest, on a
    tie); ``None`` before the first one is over."""
    recent: list[PlayedTournament]
    """The latest started, newest first."""


def account_tournaments(conn: Connection, account_id: int, limit: int = 10
                        ) -> AccountTournaments:
    """The tournaments ``account_id`` played: those running or over in which it was
    registered at the start (a withdrawn or refunded registration never played)."""
    field = (select(PLAYERS.c.tournament_id, func.count().label("players"))
             .where(PLAYERS.c.status == "registered")
             .group_by(PLAYERS.c.tournament_id).subquery())
    rows = conn.execute(
        select(TOURNAMENTS.c.id, TOURNAMENTS.c.name, TOURNAMENTS.c.format,
               TOURNAMENTS.c.status, TOURNAMENTS.c.starts_at, field.c.players,
               PLAYERS.c.place, PLAYERS.c.prize)
        .join(PLAYERS, PLAYERS.c.tournament_id == TOURNAMENTS.c.id)
        .join(field, field.c.tournament_id == TOURNAMENTS.c.id)
        .where(PLAYERS.c.account_id == account_id, PLAYERS.c.status == "registered",
               TOURNAMENTS.c.status.in_(("running", "over")))
        .order_by(TOURNAMENTS.c.starts_at.desc(), TOURNAMENTS.c.id)).all()
    played = [PlayedTournament(r.id, r.name, r.format, r.status, as_utc(r.starts_at),
                               int(r.players), r.place, r.prize) for r in rows]
    placed = [p for p in played if p.status == "over" and p.place is not None]
    best = min(placed, key=lambda p: (p.place, -p.players, -p.starts_at.timestamp()),
               default=None)
    return AccountTournaments(len(played), best, played[:limit])


@dataclass(frozen=True)
class OpenMatch:
    """A running tournament's undecided match whose table is open: where a player of it
    belongs now (the "your match is ready" notice)."""

    tournament_id: str
    name: str
    """The tournament's."""
    round: int
    slot: int
    players: tuple[int, ...]
    table_id: str


def open_matches(conn: Connection, account_id: int | None = None) -> list[OpenMatch]:
    """The undecided matches of running tournaments whose table is stored (``account_id``'s
    only, when given), by tournament, round and slot."""
    rows = conn.execute(
        select(MATCHES.c.tournament_id, TOURNAMENTS.c.name, MATCHES.c.round, MATCHES.c.slot,
               MATCHES.c.players, MATCHES.c.table_id)
        .join(TOURNAMENTS, TOURNAMENTS.c.id == MATCHES.c.tournament_id)
        .join(GAME_TABLES, GAME_TABLES.c.id == MATCHES.c.table_id)
        .where(TOURNAMENTS.c.status == "running",
               MATCHES.c.status.in_(("playing", "present")))
        .order_by(MATCHES.c.tournament_id, MATCHES.c.round, MATCHES.c.slot)).all()
    found = [OpenMatch(r.tournament_id, r.name, r.round, r.slot, tuple(json.loads(r.players)),
                       r.table_id) for r in rows]
    return [m for m in found if account_id is None or account_id in m.players]


# ----------------------------------------------------------------------------- changes
def _lock(conn: Connection, tournament_id: str, now: datetime, *statuses: str) -> Any:
    """Raise the tournament's version (the row lock) and return its row, checking that its
    status is one of ``statuses``."""
    done = conn.execute(update(TOURNAMENTS).where(TOURNAMENTS.c.id == tournament_id)
                        .values(version=TOURNAMENTS.c.version + 1, updated_at=now))
    if done.rowcount != 1:
        raise NoSuchTournament(f"no tournament {tournament_id}")
    row = conn.execute(select(TOURNAMENTS).where(TOURNAMENTS.c.id == tournament_id)).one()
    if row.status not in statuses:
        raise WrongStatus(f"tournament {tournament_id} is {row.status}, not "
                          f"{' or '.join(statuses)}")
    return row


def lock(conn: Connection, tournament_id: str, now: datetime, *statuses: str) -> Any:
    """Lock a tournament's row for the rest of the transaction (its version raised) and
    return it, checking its status (:class:`WrongStatus`): for a caller that reads the
    format's state and writes the state it leads to in the same transaction."""
    return _lock(conn, tournament_id, now, *statuses)


def create(conn: Connection, tournament_id: str, settings: TournamentSettings,
           now: datetime | None = None) -> None:
    """Store a new tournament, open for registration."""
    settings.check()
    now = now or utcnow()
    conn.execute(insert(TOURNAMENTS).values(
        id=tournament_id, name=settings.name, format=settings.format, preset=settings.preset,
        rules=json.dumps(settings.rules, sort_keys=True), rounds=settings.rounds,
        min_players=settings.min_players, max_players=settings.max_players,
        clock_ms=settings.clock_ms, buy_in=settings.buy_in, starts_at=settings.starts_at,
        status="open", state=None, version=0, created_by=settings.created_by,
        created_at=now, updated_at=now))


def register(conn: Connection, tournament_id: str, account_id: int,
             now: datetime | None = None) -> Registration:
    """Register an account to an open tournament, paying its buy-in into the prize pool
    in the same transaction (:class:`ginrummy.storage.ledger.Overdraft` when it cannot)."""
    now = now or utcnow()
    row = _lock(conn, tournament_id, now, "open")
    found = conn.execute(select(PLAYERS).where(PLAYERS.c.tournament_id == tournament_id,
                                               PLAYERS.c.account_id == account_id)).first()
    if found is not None and found.status == "registered":
        raise AlreadyRegistered(f"account {account_id} is registered to {tournament_id}")
    count = conn.execute(select(func.count()).select_from(PLAYERS).where(
        PLAYERS.c.tournament_id == tournament_id, PLAYERS.c.status == "registered")
    ).scalar_one()
    if count >= row.max_players:
        raise TournamentFull(f"tournament {tournament_id} is full ({row.max_players} players)")
    entry = 1 if found is None else found.entries + 1
    if found is None:
        conn.execute(insert(PLAYERS).values(
            tournament_id=tournament_id, account_id=account_id, status="registered",
            entries=entry, registered_at=now))
    else:
        conn.execute(update(PLAYERS).where(PLAYERS.c.tournament_id == tournament_id,
                                           PLAYERS.c.account_id == account_id)
                     .values(status="registered", entries=entry, registered_at=now))
    if row.buy_in:
        ledger.open_account(conn, account_id)
        ledger.transfer(conn, buy_in_key(tournament_id, account_id, entry), Kind.BUY_IN,
                        {ledger.account_wallet(account_id): -row.buy_in,
                         ledger.tournament_wallet(tournament_id): row.buy_in},
                        at=now, tournament_id=tournament_id)
    return Registration(account_id, "registered", entry, now, None, None, None)


def _refund(conn: Connection, tournament_id: str, account_id: int, entry: int,
            now: datetime) -> int:
    """Pay back the buy-in of an entry (what it paid, 0 for a free tournament)."""
    paid = conn.execute(select(ENTRIES.c.amount).where(
        ENTRIES.c.transfer_key == buy_in_key(tournament_id, account_id, entry),
        ENTRIES.c.wallet_id == ledger.tournament_wallet(tournament_id))).scalar()
    if not paid:
        return 0
    ledger.transfer(conn, refund_key(tournament_id, account_id, entry), Kind.REFUND,
                    {ledger.tournament_wallet(tournament_id): -int(paid),
                     ledger.account_wallet(account_id): int(paid)},
                    at=now, tournament_id=tournament_id)
    return int(paid)


def withdraw(conn: Connection, tournament_id: str, account_id: int,
             now: datetime | None = None) -> int:
    """Withdraw a registration before the start, refunding its buy-in in the same
    transaction; returns the chips refunded."""
    now = now or utcnow()
    _lock(conn, tournament_id, now, "open")
    found = conn.execute(select(PLAYERS).where(PLAYERS.c.tournament_id == tournament_id,
                                               PLAYERS.c.account_id == account_id)).first()
    if found is None or found.status != "registered":
        raise NotRegistered(f"account {account_id} is not registered to {tournament_id}")
    conn.execute(update(PLAYERS).where(PLAYERS.c.tournament_id == tournament_id,
                                       PLAYERS.c.account_id == account_id)
                 .values(status="withdrawn"))
    return _refund(conn, tournament_id, account_id, found.entries, now)


def cancel(conn: Connection, tournament_id: str, now: datetime | None = None
           ) -> dict[int, int]:
    """Cancel an open or running tournament: every registered player's buy-in back, the
    status ``cancelled``, in one transaction; returns the refunds by account."""
    now = now or utcnow()
    _lock(conn, tournament_id, now, "open", "running")
    refunds: dict[int, int] = {}
    for reg in registrations(conn, tournament_id):
        refunds[reg.account_id] = _refund(conn, tournament_id, reg.account_id, reg.entries,
                                          now)
    conn.execute(update(PLAYERS).where(PLAYERS.c.tournament_id == tournament_id,
                                       PLAYERS.c.status == "registered")
                 .values(status="refunded"))
    conn.execute(update(TOURNAMENTS).where(TOURNAMENTS.c.id == tournament_id)
                 .values(status="cancelled"))
    return refunds


def start(conn: Connection, tournament_id: str, state: Mapping[str, Any],
          ratings: Mapping[int, float], now: datetime | None = None) -> None:
    """Start an open tournament: its format's first state and each registered player's
    seeding rating (every registered player, and only they, must have one)."""
    now = now or utcnow()
    row = _lock(conn, tournament_id, now, "open")
    registered = {r.account_id for r in registrations(conn, tournament_id)}
    if set(ratings) != registered:
        raise TournamentError(f"the ratings name {sorted(ratings)}, the registered players "
                              f"are {sorted(registered)}")
    if len(registered) < row.min_players:
        raise TournamentError(f"{len(registered)} players registered, {row.min_players} "
                              f"needed: cancel it instead")
    for account_id, rating in ratings.items():
        conn.execute(update(PLAYERS).where(PLAYERS.c.tournament_id == tournament_id,
                                           PLAYERS.c.account_id == account_id)
                     .values(rating=rating))
    conn.execute(update(TOURNAMENTS).where(TOURNAMENTS.c.id == tournament_id)
                 .values(status="running", state=json.dumps(state, sort_keys=True)))


def start_round(conn: Connection, tournament_id: str, round: int,
                pairings: Sequence[tuple[int, Sequence[int]]], now: datetime | None = None
                ) -> None:
    """Store a round of a running tournament and its matches (``(slot, players)``, every
    match ``waiting`` for its table). A round is started once: a second start of the same
    round fails on its primary key, whatever process tries it."""
    now = now or utcnow()
    _lock(conn, tournament_id, now, "running")
    conn.execute(insert(ROUNDS).values(tournament_id=tournament_id, round=round,
                                       started_at=now))
    if pairings:
        conn.execute(insert(MATCHES), [
            {"tournament_id": tournament_id, "round": round, "slot": slot,
             "players": json.dumps(list(players)), "table_id": None, "status": "waiting",
             "updated_at": now} for slot, players in pairings])


def link_table(conn: Connection, tournament_id: str, round: int, slot: int, table_id: str,
               now: datetime | None = None) -> None:
    """Name the table that plays a waiting match (once: a linked match refuses another)."""
    now = now or utcnow()
    _lock(conn, tournament_id, now, "running")
    done = conn.execute(update(MATCHES).where(
        MATCHES.c.tournament_id == tournament_id, MATCHES.c.round == round,
        MATCHES.c.slot == slot, MATCHES.c.status == "waiting")
        .values(table_id=table_id, status="playing", updated_at=now))
    if done.rowcount != 1:
        raise TournamentError(f"match {slot} of round {round} of {tournament_id} is not "
                              f"waiting for a table")


def record_result(conn: Connection, tournament_id: str, round: int, slot: int,
                  winner: int, result: Any, state: Mapping[str, Any], forfeit: bool = False,
                  now: datetime | None = None) -> None:
    """Store a match's result and the format's state it leads to, together; the round's
    end is stored with its last result."""
    now = now or utcnow()
    _lock(conn, tournament_id, now, "running")
    done = conn.execute(update(MATCHES).where(
        MATCHES.c.tournament_id == tournament_id, MATCHES.c.round == round,
        MATCHES.c.slot == slot, MATCHES.c.status.in_(OPEN_MATCH))
        .values(status="forfeit" if forfeit else "done", winner=winner,
                result=json.dumps(result), updated_at=now))
    if done.rowcount != 1:
        raise TournamentError(f"match {slot} of round {round} of {tournament_id} has no "
                              f"result to take")
    conn.execute(update(TOURNAMENTS).where(TOURNAMENTS.c.id == tournament_id)
                 .values(state=json.dumps(state, sort_keys=True)))
    left = conn.execute(select(func.count()).select_from(MATCHES).where(
        MATCHES.c.tournament_id == tournament_id, MATCHES.c.round == round,
        MATCHES.c.status.in_(OPEN_MATCH))).scalar_one()
    if left == 0:
        conn.execute(update(ROUNDS).where(ROUNDS.c.tournament_id == tournament_id,
                                          ROUNDS.c.round == round).values(ended_at=now))


def round_started_at(conn: Connection, tournament_id: str, round: int) -> datetime | None:
    """When a round was started, ``None`` when it was not."""
    found = conn.execute(select(ROUNDS.c.started_at).where(
        ROUNDS.c.tournament_id == tournament_id, ROUNDS.c.round == round)).scalar()
    return None if found is None else as_utc(found)


def match_of_table(conn: Connection, table_id: str) -> tuple[str, StoredMatch] | None:
    """The tournament and the match a table plays, ``None`` for any other table."""
    r = conn.execute(select(MATCHES).where(MATCHES.c.table_id == table_id)).first()
    if r is None:
        return None
    return r.tournament_id, StoredMatch(
        r.round, r.slot, tuple(json.loads(r.players)), r.table_id, r.status, r.winner,
        None if r.result is None else json.loads(r.result))


def mark_present(conn: Connection, tournament_id: str, round: int, slot: int,
                 now: datetime | None = None) -> bool:
    """Note that every player of a playing match came in time (no forfeit is checked for it
    again); False when the match was not ``playing``."""
    now = now or utcnow()
    _lock(conn, tournament_id, now, "running")
    done = conn.execute(update(MATCHES).where(
        MATCHES.c.tournament_id == tournament_id, MATCHES.c.round == round,
        MATCHES.c.slot == slot, MATCHES.c.status == "playing")
        .values(status="present", updated_at=now))
    return done.rowcount == 1


def finish(conn: Connection, tournament_id: str, places: Mapping[int, int],
           prizes: Mapping[int, int], now: datetime | None = None) -> None:
    """End a running tournament: each registered player's place and prize stored, the
    prizes paid from the pool (they must hand it out exactly), the status ``over``, in one
    transaction."""
    now = now or utcnow()
    _lock(conn, tournament_id, now, "running")
    registered = {r.account_id for r in registrations(conn, tournament_id)}
    if set(places) != registered or not set(prizes) <= registered:
        raise TournamentError(f"places for {sorted(places)} and prizes for {sorted(prizes)}, "
                              f"the registered players are {sorted(registered)}")
    pool = ledger.balance(conn, ledger.tournament_wallet(tournament_id)) or 0
    if sum(prizes.values()) != pool or any(v < 0 for v in prizes.values()):
        raise TournamentError(f"the prizes {dict(prizes)} do not hand out the pool of {pool}")
    for account_id in sorted(registered):
        prize = prizes.get(account_id, 0)
        if prize:
            ledger.transfer(conn, prize_key(tournament_id, account_id), Kind.PAYOUT,
                            {ledger.tournament_wallet(tournament_id): -prize,
                             ledger.account_wallet(account_id): prize},
                            at=now, tournament_id=tournament_id)
        conn.execute(update(PLAYERS).where(PLAYERS.c.tournament_id == tournament_id,
                                           PLAYERS.c.account_id == account_id)
                     .values(place=places[account_id], prize=prize))
    conn.execute(update(TOURNAMENTS).where(TOURNAMENTS.c.id == tournament_id)
                 .values(status="over"))


class TournamentStore:
    """The functions above, each in a transaction of its own (synchronous: the server runs
    them in a thread)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def create(self, tournament_id: str, settings: TournamentSettings,
               now: datetime | None = None) -> None:
        """:func:`create` in its own transaction."""
        with self.engine.begin() as conn:
            create(conn, tournament_id, settings, now)

    def get(self, tournament_id: str) -> StoredTournament | None:
        """:func:`get`."""
        with self.engine.connect() as conn:
            return get(conn, tournament_id)

    def registrations(self, tournament_id: str,
                      statuses: Sequence[str] = ("registered",)) -> list[Registration]:
        """:func:`registrations`."""
        with self.engine.connect() as conn:
            return registrations(conn, tournament_id, statuses)

    def matches(self, tournament_id: str, round: int | None = None) -> list[StoredMatch]:
        """:func:`matches`."""
        with self.engine.connect() as conn:
            return matches(conn, tournament_id, round)

    def register(self, tournament_id: str, account_id: int,
                 now: datetime | None = None) -> Registration:
        """:func:`register` in its own transaction."""
        with self.engine.begin() as conn:
            return register(conn, tournament_id, account_id, now)

    def withdraw(self, tournament_id: str, account_id: int, now: datetime | None = None
                 ) -> int:
        """:func:`withdraw` in its own transaction."""
        with self.engine.begin() as conn:
            return withdraw(conn, tournament_id, account_id, now)

    def cancel(self, tournament_id: str, now: datetime | None = None) -> dict[int, int]:
        """:func:`cancel` in its own transaction."""
        with self.engine.begin() as conn:
            return cancel(conn, tournament_id, now)

    def start(self, tournament_id: str, state: Mapping[str, Any],
              ratings: Mapping[int, float], now: datetime | None = None) -> None:
        """:func:`start` in its own transaction."""
        with self.engine.begin() as conn:
            start(conn, tournament_id, state, ratings, now)

    def start_round(self, tournament_id: str, round: int,
                    pairings: Sequence[tuple[int, Sequence[int]]],
                    now: datetime | None = None) -> None:
        """:func:`start_round` in its own transaction."""
        with self.engine.begin() as conn:
            start_round(conn, tournament_id, round, pairings, now)

    def link_table(self, tournament_id: str, round: int, slot: int, table_id: str,
                   now: datetime | None = None) -> None:
        """:func:`link_table` in its own transaction."""
        with self.engine.begin() as conn:
            link_table(conn, tournament_id, round, slot, table_id, now)

    def record_result(self, tournament_id: str, round: int, slot: int, winner: int,
                      result: Any, state: Mapping[str, Any], forfeit: bool = False,
                      now: datetime | None = None) -> None:
        """:func:`record_result` in its own transaction."""
        with self.engine.begin() as conn:
            record_result(conn, tournament_id, round, slot, winner, result, state, forfeit,
                          now)

    def listing(self, statuses: Sequence[str]) -> list[StoredTournament]:
        """:func:`listing`."""
        with self.engine.connect() as conn:
            return listing(conn, statuses)

    def round_started_at(self, tournament_id: str, round: int) -> datetime | None:
        """:func:`round_started_at`."""
        with self.engine.connect() as conn:
            return round_started_at(conn, tournament_id, round)

    def mark_present(self, tournament_id: str, round: int, slot: int,
                     now: datetime | None = None) -> bool:
        """:func:`mark_present` in its own transaction."""
        with self.engine.begin() as conn:
            return mark_present(conn, tournament_id, round, slot, now)

    def finish(self, tournament_id: str, places: Mapping[int, int],
               prizes: Mapping[int, int], now: datetime | None = None) -> None:
        """:func:`finish` in its own transaction."""
        with self.engine.begin() as conn:
            finish(conn, tournament_id, places, prizes, now)
