"""The tournament driver: what makes a stored tournament happen (docs/tournaments.md).

Each tick, for every open or running tournament in the database, :class:`TournamentDriver`
takes the next step that is due, each step one transaction keyed in the database, so that a
restart (or another process taking over) goes on where it was and never does a step twice:

- at the start time: start it (the format's first state, seeded by the players' ratings of
  the preset) if enough players registered, else cancel it and refund every buy-in;
- a round due and not stored: store it with its matches (``start_round``: its primary key
  refuses a second start);
- a match waiting for its table: name its table first (``link_table``; the id is derived
  from the tournament, round and slot), then open that table with each seat kept for its
  account, of the tournament's preset and options and with its turn clock
  (:meth:`~ginrummy.server.play.lobby.Lobby.open_reserved`, which leaves a stored table as it
  is); a linked table found missing after a crash is opened then;
- a match still ``playing`` ``tournament_grace_seconds`` after its round started (and after
  this driver started watching): a player never seen at the table forfeits it (the match is
  decided, then its table closed); if everyone came it is marked ``present``;
- the format finished: places and prizes stored and paid from the pool.

Listeners hear what players should know at once (the account push socket, docs/
tournaments.md): ``on_ready`` each match whose table a round's start opened, ``on_change``
each tournament changed since the last tick (a step of this driver, or a result written by a
table's end), with its registered players.

A match's result is recorded by the hook every table's end runs (:meth:`TournamentDriver.
install`): the format's new state is written in the same transaction as the table's last
event, the match's record and its ratings (tournament tables are ordinary tables of their
preset, rated like any other). A table stopped before its match ended (abandoned, closed,
stuck) gives the match to the leader on points, ties to the better seed.

One process drives: the driver takes a step only while its :class:`DriverLease` is held. In
a cluster that is the tables' lease mechanism
(:class:`~ginrummy.server.cluster.duty.DutyLease`: a Redis lease with owner and expiry,
renewed every ttl/3, taken over by another process once it expired, and fenced by a token
in the database that each of the driver's writes checks in its own transaction, so a driver
that lost the lease commits nothing more). One process alone (SQLite, or no Redis):
:class:`SoleDriver`, always held. Every step also locks the tournament's row and is keyed,
so even two drivers would not double a step.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy import Engine, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from ginrummy.contest import (
    ArenaSeries,
    ContestError,
    Entrant,
    Knockout,
    Swiss,
    arena_prizes,
    from_json,
    place_prizes,
    to_json,
)
from ginrummy.contest.serial import Contest
from ginrummy.contest.swiss import most_rounds
from ginrummy.rules import Ruleset
from ginrummy.server.play.settlement import Ending, Hooks, MatchEnd
from ginrummy.server.players.ratings import category_of
from ginrummy.storage import Apply, WriteOp, tournaments
from ginrummy.storage.models import AccountRow
from ginrummy.storage.players import read_ratings
from ginrummy.storage.repository import utcnow
from ginrummy.storage.tournaments import OPEN_MATCH, StoredMatch, StoredTournament

if TYPE_CHECKING:
    from ginrummy.server.play.lobby import Lobby
    from ginrummy.server.play.table import GameTable

log = logging.getLogger("ginrummy.server.tournaments")

NEW_RATING = 1500.0
"""The seeding rating of a player never rated in the preset."""


def match_table_id(tournament_id: str, round: int, slot: int) -> str:
    """The id of the table of a tournament's match: ``T`` and 15 characters of a hash of
    the three, so that opening it again after a crash finds the same table."""
    digest = hashlib.sha256(f"{tournament_id}:{round}:{slot}".encode()).digest()
    return "T" + base64.urlsafe_b64encode(digest).decode()[:15]


def is_match_table(table_id: str) -> bool:
    """True for an id :func:`match_table_id` could have made (the hook looks up no other)."""
    return len(table_id) == 16 and table_id.startswith("T")


@dataclass(frozen=True)
class ReadyMatch:
    """A match whose table a round's start has just opened."""

    tournament_id: str
    tournament: str
    """The tournament's name."""
    round: int
    table_id: str
    players: tuple[tuple[int, str], ...]
    """(account id, name) in seat order."""


@dataclass(frozen=True)
class Outcome:
    """A match's result: the winning account (``None``: both lost, a Swiss double forfeit)
    and, for an arena table, each account's penalty points."""

    winner: int | None
    penalties: dict[int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        """What is stored as the match's ``result``."""
        return {"winner": self.winner, "penalties": None if self.penalties is None else
                {str(k): v for k, v in self.penalties.items()}}


def outcome_of_table(table: GameTable, players: Sequence[int]) -> Outcome:
    """The outcome of a tournament table (seat ``i`` is ``players[i]``): the match's winner
    when it was played out; else the leader on points, ties to the better seed (seat 0)."""
    match = table.match
    result = None if match is None else match.result
    if result is not None:
        penalties = None if result.penalties is None else {
            players[s]: int(p) for s, p in enumerate(result.penalties)}
        if penalties is not None:
            penalties[players[result.winner]] = 0
        return Outcome(players[result.winner], penalties)
    scores = [0] * len(players) if match is None else list(match.scores)
    best = max(range(len(players)), key=lambda s: (scores[s], -s))
    penalties = None if len(players) == 2 else {p: 0 for p in players}
    return Outcome(players[best], penalties)


# ----------------------------------------------------------------------------- formats
def new_contest(settings: tournaments.TournamentSettings, entrants: list[Entrant]) -> Contest:
    """The format's first state (:class:`ContestError` when the field cannot play it)."""
    if settings.format == "knockout":
        return Knockout.start(entrants)
    rounds = settings.rounds or 1
    if settings.format == "swiss":
        return Swiss.start(entrants, min(rounds, most_rounds(len(entrants))))
    return ArenaSeries.start(entrants, rounds)


def due_matches(contest: Contest, round: int) -> list[tuple[int, tuple[int, ...]]]:
    """The matches of ``round`` that need a table (slot, players in seat order): byes and
    decided matches left out."""
    if isinstance(contest, ArenaSeries):
        return [(t.index, t.players) for t in contest.tables(round) if t.pending]
    return [(m.index, m.players) for m in contest.matches(round)
            if m.pending and len(m.players) >= 2]


def with_result(contest: Contest, round: int, slot: int, players: Sequence[int],
                outcome: Outcome) -> Contest:
    """The format's state with a match's outcome."""
    if isinstance(contest, ArenaSeries):
        winner = outcome.winner if outcome.winner is not None else players[0]
        given = outcome.penalties or {}
        return contest.record(round, slot, winner, [given.get(p, 0) for p in players])
    if outcome.winner is None:
        if isinstance(contest, Swiss):
            return contest.record_both_lost(round, slot)
        return contest.record(round, slot, players[0])
    return contest.record(round, slot, outcome.winner)


def final_placing(contest: Contest) -> tuple[tuple[int, ...], ...]:
    """The finished format's placing: groups of tied players, best first."""
    if isinstance(contest, Knockout):
        return contest.placing()
    return tuple((p,) for p in contest.standings())


def current_round(contest: Contest) -> int | None:
    """The round being played (``None`` once finished)."""
    return contest.current_round


# ----------------------------------------------------------------------------- writes
def apply_outcome(conn: Connection, tournament_id: str, round: int, slot: int,
                  outcome: Outcome, forfeit: bool = False, now: datetime | None = None
                  ) -> bool:
    """Record a match's outcome and the format's state it leads to, read and written under
    the tournament's row lock; False (nothing written) when the match has its result
    already or the tournament is not running."""
    now = now or utcnow()
    try:
        row = tournaments.lock(conn, tournament_id, now, "running")
    except tournaments.TournamentError:
        return False
    match = next((m for m in tournaments.matches(conn, tournament_id, round)
                  if m.slot == slot), None)
    if match is None or match.status not in OPEN_MATCH:
        return False
    contest = with_result(from_json(json.loads(row.state)), round, slot, match.players,
                          outcome)
    tournaments.record_result(conn, tournament_id, round, slot,
                              outcome.winner if outcome.winner is not None else 0,
                              outcome.to_json(), to_json(contest), forfeit, now)
    return True


def account_names(conn: Connection, account_ids: Iterable[int]) -> dict[int, str]:
    """The name of each account of ``account_ids`` (the unknown left out)."""
    accounts = AccountRow.__table__
    rows = conn.execute(select(accounts.c.id, accounts.c.name)
                        .where(accounts.c.id.in_(list(account_ids))))
    return {r.id: r.name for r in rows}


class MatchTables(Protocol):
    """The tables of the matches (the lobby in the server, a fake in tests)."""

    async def open(self, table_id: str, name: str, preset: str, rules: Ruleset,
                   clock_ms: int, accounts: list[tuple[int, str]]) -> None:
        """Open the table unless it exists (idempotent)."""

    def connected(self, table_id: str) -> set[int] | None:
        """The accounts connected to their seat now; ``None``: the table is not here."""

    async def close(self, table_id: str) -> None:
        """Close the table if it is here and still open."""


class LobbyTables:
    """:class:`MatchTables` of the server's lobby."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    async def open(self, table_id: str, name: str, preset: str, rules: Ruleset,
                   clock_ms: int, accounts: list[tuple[int, str]]) -> None:
        """:meth:`Lobby.open_reserved`."""
        await self.lobby.open_reserved(table_id, name, preset, rules, clock_ms, accounts)

    def connected(self, table_id: str) -> set[int] | None:
        """The accounts with a connection at their seat of a table held here."""
        writer = self.lobby.get(table_id)
        if writer is None:
            return None
        return {c.account_id for c in writer.connections
                if c.seat is not None and c.account_id is not None}

    async def close(self, table_id: str) -> None:
        """Close a table held here (its match decided by forfeit)."""
        writer = self.lobby.get(table_id)
        if writer is None or writer.closed or writer.table.status not in ("waiting",
                                                                          "playing"):
            return
        with contextlib.suppress(LookupError):
            await writer.close_for_good()


class DriverLease(Protocol):
    """Whether this process drives the tournaments now, and the fence of its writes."""

    async def held(self) -> bool:
        """True when this process may drive (taking the lease when nobody holds it)."""

    def check(self, conn: Connection) -> None:
        """Raise (the write's transaction rolls back) unless this process still drives."""

    async def release(self) -> None:
        """Give the lease back (another process may drive at once)."""


class SoleDriver:
    """:class:`DriverLease` of a process alone on its database: always held."""

    async def held(self) -> bool:
        """Always."""
        return True

    def check(self, conn: Connection) -> None:
        """Nothing to check."""

    async def release(self) -> None:
        """Nothing to give back."""


class TournamentDriver:
    """Drives every tournament of the database (see the module's docstring)."""

    def __init__(self, engine: Engine, tables: MatchTables, grace_seconds: float,
                 clock: Callable[[], datetime] = utcnow,
                 lease: DriverLease | None = None) -> None:
        self.engine = engine
        self.store = tournaments.TournamentStore(engine)
        self.tables = tables
        self.grace = timedelta(seconds=grace_seconds)
        self.clock = clock
        self.started_at = clock()
        """Presence is only judged from here on (a restart saw nobody before)."""
        self.seen: dict[str, set[int]] = {}
        """The accounts seen at each playing match's table."""
        self.lease: DriverLease = lease if lease is not None else SoleDriver()
        self._task: asyncio.Task[None] | None = None
        self.on_ready: list[Callable[[ReadyMatch], None]] = []
        """Told of each match whose table a round's start opened (after it opened)."""
        self.on_change: list[Callable[[str, list[int]], None]] = []
        """Told of each tournament changed since the last tick, with its registered
        players."""
        self.versions: dict[str, int] = {}
        """The version of each open or running tournament at the last tick."""

    # ----------------------------------------------------------------- the hook
    def install(self, hooks: Hooks) -> None:
        """Record tournament matches when their tables end."""
        hooks.on_end.append(self.table_ended)

    def table_ended(self, end: MatchEnd) -> Sequence[WriteOp]:
        """The write that records a tournament match's outcome with its table's end."""
        table = end.table
        if not is_match_table(table.id):
            return []
        if end.ending is not Ending.OVER and table.match is not None and table.match.over:
            return []  # recorded when it ended
        players = [s.account_id for s in table.seats]
        if any(p is None for p in players):
            return []
        outcome = outcome_of_table(table, [p for p in players if p is not None])
        table_id = table.id

        def run(conn: Connection) -> None:
            found = tournaments.match_of_table(conn, table_id)
            if found is None or found[1].status not in OPEN_MATCH:
                return
            try:
                with conn.begin_nested():
                    apply_outcome(conn, found[0], found[1].round, found[1].slot, outcome)
            except (ContestError, tournaments.TournamentError) as exc:
                log.error("table %s: its tournament result is refused: %s", table_id, exc)

        return [Apply(run)]

    # ----------------------------------------------------------------- the loop
    def start(self, every: float) -> None:
        """Tick every ``every`` seconds in the background."""
        self._task = asyncio.get_running_loop().create_task(self._run(every))

    async def stop(self) -> None:
        """Stop ticking; the lease is given back."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.lease.release()

    async def _run(self, every: float) -> None:
        while True:  # the first tick after a pause: the tables are restored by then
            await asyncio.sleep(every)
            try:
                await self.tick()
            except Exception:
                log.exception("tournament tick failed; the next one retries")

    async def _thread(self, call: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(None, call, *args)

    async def tick(self) -> int:
        """One pass over the open and running tournaments; the steps taken."""
        if not await self.lease.held():
            return 0
        steps = 0
        listed = await self._thread(self.store.listing, ("open", "running"))
        for t in listed:
            try:
                taken = await self.advance(t.id)
            except Exception:
                log.exception("tournament %s: a step failed; the next tick retries", t.id)
                taken = 0
            steps += taken
            if self.on_change and (taken or self.versions.get(t.id, t.version) != t.version):
                await self._tell_change(t.id)
        self.versions = {t.id: t.version for t in listed}
        return steps

    async def _tell_change(self, tournament_id: str) -> None:
        players = [r.account_id for r in await self._thread(self.store.registrations,
                                                            tournament_id)]
        for listener in self.on_change:
            try:
                listener(tournament_id, players)
            except Exception:
                log.exception("tournament %s: a change listener failed", tournament_id)

    async def advance(self, tournament_id: str) -> int:
        """The steps due for one tournament now; how many were taken."""
        now = self.clock()
        t: StoredTournament | None = await self._thread(self.store.get, tournament_id)
        steps = 0
        if t is not None and t.status == "open" and now >= t.settings.starts_at:
            await self._thread(self._start_or_cancel, tournament_id, now)
            steps += 1
            t = await self._thread(self.store.get, tournament_id)
        while t is not None and t.status == "running" and t.state is not None:
            contest = from_json(t.state)
            round = current_round(contest)
            if round is None:
                await self._thread(self._finish, t, contest, now)
                return steps + 1
            stored: list[StoredMatch] = await self._thread(self.store.matches, tournament_id,
                                                           round)
            if not stored:
                try:
                    await self._thread(self._write, tournaments.start_round, tournament_id,
                                       round, due_matches(contest, round), now)
                    steps += 1
                except IntegrityError:  # started meanwhile
                    pass
                stored = await self._thread(self.store.matches, tournament_id, round)
            steps += await self._play_round(t, round, stored, now)
            fresh = await self._thread(self.store.get, tournament_id)
            if fresh is None or (fresh.state == t.state and fresh.status == t.status):
                break
            t = fresh  # a forfeit may have ended the round: the next one now
        return steps

    async def _play_round(self, t: StoredTournament, round: int,
                          stored: list[StoredMatch], now: datetime) -> int:
        steps = 0
        started = await self._thread(self.store.round_started_at, t.id, round)
        judged_from = max(started or now, self.started_at) + self.grace
        waiting = [m for m in stored if m.status == "waiting"]
        if waiting:  # named in one transaction, then opened together (one group commit)
            await self._thread(self._link, t.id, round, waiting, now)
            await asyncio.gather(*(self._open(t, round, m, match_table_id(t.id, round, m.slot))
                                   for m in waiting))
            steps += len(waiting)
            if self.on_ready:
                await self._tell_ready(t, round, waiting)
        for m in stored:
            table_id = match_table_id(t.id, round, m.slot)
            if m.status in ("playing", "present"):
                here = self.tables.connected(table_id)
                if here is None:  # not here: opened (again) if it was never stored
                    await self._open(t, round, m, table_id)
                    continue
                seen = self.seen.setdefault(table_id, set())
                seen |= here
                if m.status == "playing" and now >= judged_from:
                    steps += await self._judge(t, round, m, table_id, seen, now)
            elif m.status in ("done", "forfeit"):
                self.seen.pop(table_id, None)
                if m.status == "forfeit":
                    await self.tables.close(table_id)
        return steps

    async def _tell_ready(self, t: StoredTournament, round: int,
                          opened: list[StoredMatch]) -> None:
        names = await self._thread(self._names, [p for m in opened for p in m.players])
        for m in opened:
            ready = ReadyMatch(t.id, t.settings.name, round, match_table_id(t.id, round, m.slot),
                               tuple((p, names.get(p, f"#{p}")) for p in m.players))
            for listener in self.on_ready:
                try:
                    listener(ready)
                except Exception:
                    log.exception("tournament %s: a ready listener failed", t.id)

    def _link(self, tournament_id: str, round: int, waiting: list[StoredMatch],
              now: datetime) -> None:
        """Name the tables of a round's waiting matches, in one transaction."""
        with self.engine.begin() as conn:
            self.lease.check(conn)
            for m in waiting:
                with contextlib.suppress(tournaments.TournamentError):
                    tournaments.link_table(conn, tournament_id, round, m.slot,
                                           match_table_id(tournament_id, round, m.slot), now)

    async def _open(self, t: StoredTournament, round: int, m: StoredMatch,
                    table_id: str) -> None:
        names = await self._thread(self._names, m.players)
        options = dict(t.settings.rules)
        options["players"] = len(m.players)  # an arena series seats 3 or 4 a table
        rules = Ruleset.from_dict(options, name=t.settings.preset)
        await self.tables.open(table_id, f"{t.settings.name[:28]} r{round + 1}",
                               t.settings.preset, rules, t.settings.clock_ms,
                               [(p, names.get(p, f"#{p}")) for p in m.players])

    def _write(self, write: Callable[..., Any], *args: Any) -> Any:
        """One of the storage's writes in a transaction of its own, fenced by the lease."""
        with self.engine.begin() as conn:
            self.lease.check(conn)
            return write(conn, *args)

    def _names(self, players: Sequence[int]) -> dict[int, str]:
        with self.engine.connect() as conn:
            return account_names(conn, players)

    async def _judge(self, t: StoredTournament, round: int, m: StoredMatch, table_id: str,
                     seen: set[int], now: datetime) -> int:
        """After the grace period: a forfeit for whoever never came, or ``present``."""
        absent = [p for p in m.players if p not in seen]
        if not absent or t.settings.format == "arena":  # arena: the computer plays them
            await self._thread(self._write, tournaments.mark_present, t.id, round, m.slot,
                               now)
            return 1
        came = [p for p in m.players if p in seen]
        outcome = Outcome(came[0] if came else None)
        log.info("tournament %s: round %d match %d: %s forfeit(s), absent after %s",
                 t.id, round, m.slot, absent, self.grace)
        if await self._thread(self._forfeit, t.id, round, m.slot, outcome, now):
            await self.tables.close(table_id)
        return 1

    def _forfeit(self, tournament_id: str, round: int, slot: int, outcome: Outcome,
                 now: datetime) -> bool:
        with self.engine.begin() as conn:
            self.lease.check(conn)
            return apply_outcome(conn, tournament_id, round, slot, outcome, True, now)

    def _start_or_cancel(self, tournament_id: str, now: datetime) -> None:
        """Start a tournament whose time has come, or cancel it (refunds), in one
        transaction."""
        with self.engine.begin() as conn:
            self.lease.check(conn)
            t = tournaments.get(conn, tournament_id)
            if t is None or t.status != "open":
                return
            players = [r.account_id for r in tournaments.registrations(conn, tournament_id)]
            contest: Contest | None = None
            ratings: dict[int, float] = {}
            if len(players) >= t.settings.min_players:
                rules = Ruleset.from_dict(t.settings.rules, name=t.settings.preset)
                category = category_of(t.settings.preset, rules)
                stored = read_ratings(conn, category, players) if category else {}
                ratings = {p: stored[p].rating if p in stored else NEW_RATING
                           for p in players}
                try:
                    contest = new_contest(t.settings, [Entrant(p, r)
                                                       for p, r in ratings.items()])
                except ContestError as exc:
                    log.info("tournament %s: cannot start (%s): cancelled", tournament_id, exc)
            if contest is None:
                refunds = tournaments.cancel(conn, tournament_id, now)
                log.info("tournament %s cancelled at its start: %d player(s), %d refunded",
                         tournament_id, len(players), sum(refunds.values()))
                return
            tournaments.start(conn, tournament_id, to_json(contest), ratings, now)
            log.info("tournament %s started: %d players", tournament_id, len(players))

    def _finish(self, t: StoredTournament, contest: Contest, now: datetime) -> None:
        placing = final_placing(contest)
        places: dict[int, int] = {}
        for group in placing:
            place = 1 + len(places)
            places.update((p, place) for p in group)
        if isinstance(contest, ArenaSeries) and t.pool:
            rules = Ruleset.from_dict(t.settings.rules, name=t.settings.preset)
            try:
                prizes = arena_prizes(t.pool, contest, rules)
            except ContestError:
                prizes = place_prizes(t.pool, placing)
        else:
            prizes = place_prizes(t.pool, placing)
        with contextlib.suppress(tournaments.WrongStatus):
            self._write(tournaments.finish, t.id, places, prizes, now)
            log.info("tournament %s over: prizes %s", t.id, prizes)
