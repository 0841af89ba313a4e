"""The single writer of one table: checks, commits, then acknowledges and broadcasts.

Every change of a table happens under its lock, in this order: check (engine), apply in
memory, commit to the database (:mod:`~ginrummy.server.play.commits`), send every connection its
``state`` (the author's carries the ``ack`` of its action). Then :meth:`TableWriter._advance`
plays what needs nobody (deals, reshuffles) and arms the one timer of what comes next (a
computer move, the turn clock, the pause between hands), which re-checks the table version
before acting. The concerns live in their own modules: presence and holds
(:mod:`~ginrummy.server.play.presence`), timers (:mod:`~ginrummy.server.play.timers`), the
turn clock (:mod:`~ginrummy.server.play.clock`), chat
(:class:`~ginrummy.server.play.chat.TableChat`),
computer seats (:mod:`~ginrummy.server.play.computer`), authorisation
(:mod:`~ginrummy.server.core.auth`) and the messages (:mod:`~ginrummy.server.play.messages`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

from ginrummy.actions import Action, action_text
from ginrummy.gameloop import EndlessHand
from ginrummy.server.core.auth import new_secret, secret_hash
from ginrummy.server.core.delta import DELTA_PROTOCOL
from ginrummy.server.core.kinds import OPEN_STATUSES, SeatKind, Source, TableStatus
from ginrummy.server.core.protocol import ActionMessage, Close, Code, MessageError, SeedMessage
from ginrummy.server.core.settings import Settings
from ginrummy.server.play.chat import ChatMutes, TableChat
from ginrummy.server.play.clock import restart_clock
from ginrummy.server.play.commits import CommitPath, EventMaker
from ginrummy.server.play.committer import CommitFailed, GroupCommitter
from ginrummy.server.play.computer import ComputerSeats, cap_reached
from ginrummy.server.play.connections import Connection
from ginrummy.server.play.fairdeal import pending
from ginrummy.server.play.messages import (
    State,
    ack,
    clock_notice,
    duplicate_ack,
    error,
    welcome,
    with_ack,
)
from ginrummy.server.play.presence import Presence
from ginrummy.server.play.seat import Seat
from ginrummy.server.play.seeding import TableSeeds
from ginrummy.server.play.settlement import Ending, Hooks, MatchEnd
from ginrummy.server.play.table import STOP_REASONS, GameTable, Step
from ginrummy.server.play.timers import TableTimers, TimerAction
from ginrummy.storage import Apply, Repository, UpdateSeat, WriteOp
from ginrummy.storage.accounts import give_matches

log = logging.getLogger("ginrummy.server.table")

AUTOMATIC_STEPS = 10
"""Steps that need nobody (a match start, deals, reshuffles) played in a row at most."""

REVOKED_TOKEN = "revoked"
"""The stored ``token_hash`` of a seat an administrator took from its player (never a
SHA-256 digest, so no token matches it): the computer plays the seat, and its account may
not take it back either (docs/moderation.md)."""

ActionObserver = Callable[[Source, "float | None"], None]
"""Told of every committed action: who chose it and, for a person's, the seconds from its
arrival to its acknowledgement being queued (the /metrics counters)."""


class TableWriter:
    """Owns a :class:`GameTable`: its lock and connections; every change goes through it."""

    def __init__(self, table: GameTable, settings: Settings, committer: GroupCommitter,
                 repository: Repository,
                 on_unload: Callable[[TableWriter], None] | None = None,
                 hooks: Hooks | None = None, mutes: ChatMutes | None = None,
                 on_action: ActionObserver | None = None) -> None:
        self.table = table
        self.on_unload = on_unload
        """Called (under the lock) when the table leaves memory (the lobby forgets it)."""
        self.settings = settings
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.timers = TableTimers(table.id)
        self.presence = Presence(self.timers, settings.hold_seconds, self._hold_expired)
        self.hooks = hooks or Hooks()
        self.commits = CommitPath(settings, committer, repository, self.hooks)
        self.computer = ComputerSeats(settings)
        self.chat_room = TableChat(table.id, settings, committer, repository, mutes)
        self.recent_chat = self.chat_room.recent
        """The table's last chat lines (stored too): sent to newcomers, found by reports."""
        self.on_action = on_action
        self.seeds = TableSeeds(settings)
        """Who sends client seeds, and the latest stored hand's seeds (:mod:`.seeding`)."""
        self.barred: set[int] = set()
        """Accounts an administrator removed from the table before its deal: they may not
        sit down again (after the deal a kicked seat stays the account's, played by the
        computer)."""
        self.revoked: dict[str, str] = {}
        """The stored hashes of seat tokens an administrator revoked here (a kick, a ban),
        each with its reason: a client that comes back with one is told why it may not sit
        (4403 and the reason) rather than ``bad token``. Kept in memory only: after a restart
        or a takeover such a token gets ``bad token``."""

    @property
    def closed(self) -> bool:
        """True once the server closed the table."""
        return self.timers.closed

    # ----------------------------------------------------------------- life cycle
    async def start(self) -> None:
        """After creation or restore: hold the humans' seats, then go on with the game."""
        async with self.lock:
            await self.chat_room.load()  # before any connection: reports find earlier lines
            await self.seeds.restore(self.table, self.commits.repository)
            for seat in self.table.seats:  # taken by an administrator: the computer plays it
                seat.away = seat.away or seat.token_hash == REVOKED_TOKEN
            self.presence.hold_absent(self.table)
            await self._advance()

    def close(self) -> None:
        """Stop every timer (server shutdown)."""
        self.timers.close()

    # ----------------------------------------------------------------- connections
    async def attach(self, conn: Connection, seeds: bool = False) -> None:
        """A connection joins the table: welcome, its state, and the others learn it (a
        spectator changes nothing the others see: only it gets a state). ``seeds``: its
        client sends a client seed for each hand."""
        async with self.lock:
            if self.closed:  # unloaded meanwhile: a new connection loads it again
                conn.close(Close.RESTARTING, "the table was reloaded: connect again")
                return
            table = self.table
            people_before = self.people
            self.connections.add(conn)
            if seeds and conn.seat is not None:
                self.seeds.seeders.add(conn)
            conn.send(welcome(conn.protocol, table.id, conn.seat, table.version, conn.name))
            if await self.chat_room.load():  # the chat so far: seats and spectators alike
                for line in self.chat_room.history_for(conn.muted, conn.blocked):
                    conn.send(line)
            if conn.seat is None:
                conn.send(self.state_for(conn))
                self._watch_idle()
                return
            back = self.presence.arrive(table, conn.seat)
            no_seed = self.seeds.arrived(table, conn.seat)
            if back or not people_before or no_seed:  # the game may go on
                await self._advance()
            self.broadcast()
            self._watch_idle()

    async def detach(self, conn: Connection) -> None:
        """A connection left; a human seat with no connection left is held, then played
        (while a person is connected at the table)."""
        async with self.lock:
            if conn not in self.connections:
                return
            self.connections.discard(conn)
            self.seeds.seeders.discard(conn)
            if conn.seat is not None:
                self.presence.leave(self.table, conn.seat)
                self.broadcast()
            self._watch_idle()

    @property
    def people(self) -> bool:
        """True while a person (a seat's connection, not a spectator) is at the table."""
        return any(c.seat is not None for c in self.connections)

    def _watch_idle(self) -> None:
        """Set the idle timer of a table nobody attends, or cancel it: an open table with no
        person is abandoned after ``abandon_after_seconds``; a finished one with no connection
        at all leaves memory after ``unload_after_seconds``."""
        if self.closed:
            return
        if self.people:
            self.timers.cancel_idle()
        elif self.table.status in OPEN_STATUSES:
            self.timers.idle("abandon", self.settings.abandon_after_seconds,
                             self._abandon_timeout)
        elif self.connections:  # spectators of a finished table
            self.timers.cancel_idle()
        else:
            self.timers.idle("unload", self.settings.unload_after_seconds,
                             self._unload_timeout)

    async def _abandon_timeout(self, _arg: int) -> None:
        async with self.lock:
            self.timers.cancel_idle()
            if not self.closed and not self.people and self.table.status in OPEN_STATUSES:
                await self._abandon()
            self._watch_idle()

    async def _abandon(self) -> None:
        """Close the table for good (status ``abandoned``): nobody plays on, it is not
        listed nor restored; its events stay as the record of the game."""
        table = self.table
        log.info("table %s: abandoned at version %d: no person connected for %g s",
                 table.id, table.version, self.settings.abandon_after_seconds)
        table.stop(STOP_REASONS[TableStatus.ABANDONED], TableStatus.ABANDONED)
        table.clock_seat = table.clock_deadline = None
        self.timers.cancel()
        for seat in table.seats:
            self.timers.release(seat.seat)
        try:
            await self.commits.write_table(
                table, status=TableStatus.ABANDONED, clock_seat=None, clock_deadline=None,
                extra=self.hooks.end(MatchEnd(table, Ending.ABANDONED, self.absent_seats())))
        except CommitFailed:
            log.warning("table %s: could not store its abandoned status", table.id)
        self.broadcast()

    async def _unload_timeout(self, _arg: int) -> None:
        async with self.lock:
            self.timers.cancel_idle()
            if self.closed or self.connections or self.table.status in OPEN_STATUSES:
                self._watch_idle()
                return
            log.info("table %s: unloaded (%s, nobody connected)", self.table.id,
                     self.table.status)
            self.close()
            if self.on_unload is not None:
                self.on_unload(self)

    async def _hold_expired(self, seat_no: int) -> None:
        async with self.lock:
            if self.presence.expire(self.table, seat_no):
                self.broadcast()
                await self._advance()

    # ----------------------------------------------------------------- messages
    def state_for(self, conn: Connection) -> State:
        """The current ``state`` message of a connection, to send it alone (protocol 3: the
        next broadcast's delta to it starts from this state)."""
        state, conn.synced = self.table.messages.state_alone(self.table, conn.seat, time.time())
        return state

    def broadcast(self, acked: tuple[Connection, str] | None = None) -> None:
        """Send every connection its state (one text built per seat): a protocol-3
        connection that has a base (the previous broadcast, or a state sent to it alone)
        gets a ``delta`` from it. With ``acked``, the message of that connection
        acknowledges its action of that id (``"ack"``)."""
        connections = list(self.connections)
        if acked is not None and acked[0] not in self.connections:
            connections.append(acked[0])  # its author, wherever it is, learns it was committed
        if not connections:
            return
        messages = self.table.messages
        synced = {c: c.synced for c in connections
                  if c.protocol >= DELTA_PROTOCOL and messages.has_base(c.synced)}
        texts, deltas = self.table.broadcast_texts(
            [c.seat for c in connections if c not in synced],
            [(c.seat, serial) for c, serial in synced.items() if serial is not None],
            time.time())
        serial = messages.last.serial if messages.last is not None else None
        for conn in connections:
            base = synced.get(conn)
            text = texts[conn.seat] if base is None else deltas[conn.seat, base]
            conn.synced = serial
            if acked is not None and conn is acked[0]:
                if conn.protocol >= 2:
                    text = with_ack(text, acked[1])
                else:  # protocol 1: the ack in a frame of its own, just before the state
                    conn.send(ack(acked[1], self.table.version))
            conn.send(text)

    async def chat(self, conn: Connection, text: str) -> None:
        """A chat line (:meth:`TableChat.say`: not under the table's lock)."""
        await self.chat_room.say(conn, text, self.connections)

    # ----------------------------------------------------------------- players' requests
    async def handle_action(self, conn: Connection, msg: ActionMessage) -> None:
        """A client's action: duplicate, stale, illegal, or committed then acknowledged."""
        arrived = time.perf_counter()
        async with self.lock:
            table = self.table
            if self.closed:  # unloaded while the action waited (its lease lost): not played
                conn.close(Close.RESTARTING, "the table moved: connect again")
                return
            if conn.seat is None:
                conn.send(error(Code.NOT_SEATED, "spectators cannot play", msg.id))
                return
            ids = table.client_ids.get(conn.seat)
            done = None if ids is None else ids.get(msg.id)
            if done is not None:
                conn.send(duplicate_ack(msg.id, done))
                return
            if msg.version != table.version:
                conn.send(error(Code.STALE_VERSION, f"version {msg.version} is stale; the "
                                f"table is at version {table.version}", msg.id))
                conn.send(self.state_for(conn))
                return
            try:
                action = table.check_action(conn.seat, msg.action)
            except MessageError as exc:
                conn.send(error(exc.code, str(exc), msg.id))
                return
            seat = conn.seat
            try:
                await self._commit([lambda: table.action_event(action, seat, Source.HUMAN,
                                                               msg.id)], acked=(conn, msg.id))
            except CommitFailed as exc:
                conn.send(error(Code.STORAGE, str(exc), msg.id))
                return
            if self.on_action is not None:
                self.on_action(Source.HUMAN, time.perf_counter() - arrived)
            await self._advance()

    async def handle_seed(self, conn: Connection, msg: SeedMessage) -> None:
        """A seat's client seed for the hand about to be dealt; the deal follows once every
        seat has one."""
        async with self.lock:
            complete = await self.seeds.receive(self.table, conn, msg,
                                                self.commits.committer)
            if complete:
                await self._advance()
            elif complete is not None:
                self.broadcast()

    async def rematch(self, conn: Connection) -> None:
        """A seat asks for another match; it starts when every human seat has asked."""
        async with self.lock:
            table = self.table
            if conn.seat is None:
                conn.send(error(Code.NOT_SEATED, "spectators cannot ask for a rematch"))
                return
            if table.match is None or not table.match.over:
                conn.send(error(Code.NO_HAND, "a rematch is possible once the match is over"))
                return
            if table.buy_in is not None:  # its pool was paid out: a new table, a new pool
                conn.send(error(Code.NO_HAND, "a table with a buy-in plays one match: create "
                                "a new table for another"))
                return
            seat = table.seats[conn.seat]
            if not seat.rematch:
                seat.rematch = True
                try:
                    await self.commits.write_seat(table, seat.seat, rematch=True)
                except CommitFailed as exc:
                    seat.rematch = False
                    conn.send(error(Code.STORAGE, str(exc)))
                    return
            self.broadcast()
            await self._advance()

    async def ready(self, conn: Connection) -> None:
        """A seat is ready for the next hand."""
        async with self.lock:
            if conn.seat is None:
                conn.send(error(Code.NOT_SEATED, "spectators do not deal"))
                return
            table = self.table
            if table.stuck is None and table.running_hand() is not None:
                # this "next" crossed the deal it asked for (the pause's timer, or another
                # seat's "next", dealt first): the seat has its hand, there is nothing to say
                return
            if table.match is None or not table.match.needs_deal or not table.match.hands:
                conn.send(error(Code.NO_HAND, "no hand is waiting to be dealt"))
                return
            table.seats[conn.seat].ready = True
            self.broadcast()
            await self._advance()

    async def resign(self, conn: Connection) -> None:
        """A seat resigns the running match (a stored ``resign`` event; the match's end, when
        it ends, commits with it): :mod:`ginrummy.server.play.resign` says what follows."""
        async with self.lock:
            table = self.table
            try:
                table.check_resign(conn.seat)
            except MessageError as exc:
                conn.send(error(exc.code, str(exc)))
                return
            seat = conn.seat
            assert seat is not None
            try:
                await self._commit([lambda: table.resign_event(seat)])
            except CommitFailed as exc:
                conn.send(error(Code.STORAGE, str(exc)))
                return
            log.info("table %s: seat %d resigned at version %d", table.id, seat,
                     self.table.version)
            await self._advance()

    async def leave_match(self, conn: Connection) -> None:
        """A seat leaves a running match: the computer plays it from now on (``away``, not
        stored: as after a hold), until its person comes back with the seat's token."""
        async with self.lock:
            table = self.table
            if conn.seat is None:
                conn.send(error(Code.NOT_SEATED, "spectators have no seat to leave"))
                return
            if table.stuck is not None or table.match is None or table.match.over:
                conn.send(error(Code.NO_HAND, "no match is being played: before the first "
                                "deal leave with POST /api/tables/{id}/leave"))
                return
            seat = table.seats[conn.seat]
            if seat.away:
                conn.send(error(Code.RESIGNED if seat.resigned else Code.NO_HAND,
                                f"the computer already plays seat {seat.seat}"))
                return
            seat.away = True
            self.timers.release(seat.seat)
            log.info("table %s: seat %d left the match, the computer plays it", table.id,
                     seat.seat)
            self.broadcast()
            await self._advance()

    async def join(self, nickname: str, seat_no: int | None,
                   account_id: int | None = None, seeds: bool = False) -> tuple[int, str]:
        """Seat a guest or an account (a given seat or the first empty one); returns (seat,
        token). ``LookupError`` when the seat is taken or the table full; the seat hooks'
        writes (a buy-in) commit with it, and their ``ValueError`` (too few chips) refuses it.
        ``seeds``: the person's client will send client seeds (the next deal waits for it).
        """
        async with self.lock:
            table = self.table
            if seat_no is None:
                empty = [s for s in table.seats if s.kind == SeatKind.EMPTY]
                if not empty:
                    raise LookupError("table_full")
                seat = empty[0]
            else:
                if not 0 <= seat_no < len(table.seats):
                    raise ValueError(f"seat must be 0..{len(table.seats) - 1}")
                seat = table.seats[seat_no]
                if seat.kind != SeatKind.EMPTY:
                    raise LookupError("seat_taken")
            if account_id is not None and any(s.account_id == account_id
                                              for s in table.seats):
                raise LookupError("already_seated")
            if account_id is not None and account_id in self.barred:
                raise LookupError("barred")
            token = new_secret()
            seat.kind, seat.name, seat.token_hash = SeatKind.HUMAN, nickname, secret_hash(token)
            seat.account_id = account_id
            try:
                extra = self.hooks.sit(table, seat)
            except ValueError:
                seat.kind, seat.name, seat.token_hash = SeatKind.EMPTY, None, None
                seat.account_id = None
                raise
            values = {"kind": seat.kind, "name": seat.name, "token_hash": seat.token_hash,
                      "account_id": account_id}
            await self._commit([], [UpdateSeat(table.id, seat.seat, values), *extra],
                               bump=True)
            self.presence.hold(seat.seat)
            if seeds:
                self.seeds.seeding_seats.add(seat.seat)
            else:
                self.seeds.seeding_seats.discard(seat.seat)
            await self._advance()
            return seat.seat, token

    async def leave(self, seat_no: int) -> None:
        """A person gives up their seat before the first deal (the seat hooks' writes, a
        refunded buy-in, commit with it); ``LookupError`` once the match has begun."""
        async with self.lock:
            table = self.table
            seat = table.seats[seat_no]
            if table.match is not None or seat.kind != SeatKind.HUMAN:
                raise LookupError("match_started" if table.match is not None else "not_seated")
            extra = self.hooks.leave(table, seat)
            values = {"kind": SeatKind.EMPTY, "name": None, "token_hash": None,
                      "account_id": None, "rematch": False}
            await self._commit_emptied(seat.seat, [UpdateSeat(table.id, seat.seat, values),
                                                   *extra])
            seat.kind, seat.name, seat.token_hash, seat.account_id = (SeatKind.EMPTY, None,
                                                                      None, None)
            self.timers.release(seat.seat)
            for conn in list(self.connections):
                if conn.seat == seat_no:
                    conn.close(Close.FORBIDDEN, "you left this seat")
            self.broadcast()
            self._watch_idle()

    async def _commit_emptied(self, seat_no: int, writes: list[WriteOp]) -> None:
        """Commit ``writes`` that empty a seat before the first deal; the seat's client seed
        for the hand waiting to be dealt goes with it (the next person gives its own)."""
        waiting = pending(self.table)
        self.seeds.forget_seat(seat_no)
        if waiting is None:
            await self._commit([], writes, bump=True)
            return
        was = waiting.clear(seat_no)
        try:
            await self._commit([], [*writes, waiting.seeds_write(self.table.id)], bump=True)
        except CommitFailed:
            waiting.restore(seat_no, was)
            raise

    async def bind_account(self, seat_no: int, account_id: int, name: str) -> None:
        """A guest's seat becomes an account's (the guest signed up): the seat takes the
        account and its name, and the seat's finished matches at this table become the
        account's, in one commit; the match being played ends as the account's.
        ``LookupError`` when the seat is not a guest's, or the account sits here already."""
        async with self.lock:
            table = self.table
            seat = table.seats[seat_no]
            if seat.kind != SeatKind.HUMAN or seat.account_id is not None:
                raise LookupError("already_bound" if seat.account_id is not None
                                  else "not_seated")
            if any(s.account_id == account_id for s in table.seats):
                raise LookupError("already_seated")
            table_id = table.id
            seat.account_id, seat.name = account_id, name
            await self._commit([], [
                UpdateSeat(table_id, seat_no, {"account_id": account_id, "name": name}),
                Apply(lambda conn: give_matches(conn, table_id, seat_no, account_id))],
                bump=True)
            for conn in self.connections:
                if conn.seat == seat_no:
                    conn.account_id, conn.name = account_id, name

    # ----------------------------------------------------------------- moderation
    async def kick(self, seat_no: int, reason: str, extra: Sequence[WriteOp] = ()) -> bool:
        """An administrator takes ``seat_no`` from its player: the seat's connections close
        with ``reason`` and ``extra`` (the moderation log) commits with the change. Before the
        first deal the seat is emptied as a leave is (its buy-in refunded); after it the seat
        token is revoked, the account keeps its place in the record (it abandoned the match)
        and the computer plays the seat to the end. True when the seat was emptied.
        ``LookupError`` when nobody sits there or the table was stopped, ``ValueError`` for a
        seat the table does not have, :class:`CommitFailed` when nothing could be stored."""
        async with self.lock:
            table = self.table
            if not 0 <= seat_no < len(table.seats):
                raise ValueError(f"seat must be 0..{len(table.seats) - 1}")
            seat = table.seats[seat_no]
            if table.stuck is not None:
                raise LookupError("table_stopped")
            if seat.kind != SeatKind.HUMAN or seat.token_hash == REVOKED_TOKEN:
                raise LookupError("not_seated")
            emptied = table.match is None
            revoked = seat.token_hash  # told why, once the change is stored (self.revoked)
            if emptied:
                values: dict[str, object] = {"kind": SeatKind.EMPTY, "name": None,
                                             "token_hash": None, "account_id": None,
                                             "rematch": False}
                await self._commit_emptied(seat_no, [UpdateSeat(table.id, seat_no, values),
                                                     *self.hooks.leave(table, seat), *extra])
                if seat.account_id is not None:
                    self.barred.add(seat.account_id)
                seat.kind, seat.name, seat.token_hash, seat.account_id = (SeatKind.EMPTY, None,
                                                                          None, None)
            else:
                await self.commits.committer.commit(
                    [UpdateSeat(table.id, seat_no, {"token_hash": REVOKED_TOKEN,
                                                    "rematch": False}), *extra])
                seat.token_hash, seat.rematch, seat.away = REVOKED_TOKEN, False, True
            if revoked is not None:
                self.revoked[revoked] = reason
            self.timers.release(seat_no)
            for conn in list(self.connections):
                if conn.seat == seat_no:
                    conn.close(Close.FORBIDDEN, reason)
            log.info("table %s: seat %d taken from its player by an administrator",
                     table.id, seat_no)
            self.broadcast()
            await self._advance()
            return emptied

    async def close_for_good(self, extra: Sequence[WriteOp] = ()) -> None:
        """An administrator closes the table (status ``closed``): nobody plays on; the match
        end hooks' writes (the pool refunded; none when the match was over already, its end
        was settled then) and ``extra`` commit with the status.
        ``LookupError`` when the table was already stopped; :class:`CommitFailed` (the table
        then goes on as it was) when nothing could be stored."""
        async with self.lock:
            table = self.table
            if table.stuck is not None:
                raise LookupError("table_stopped")
            settled = table.status == TableStatus.OVER
            table.stop(STOP_REASONS[TableStatus.CLOSED], TableStatus.CLOSED)
            self.timers.cancel()
            table.clock_seat = table.clock_deadline = None
            try:
                ends = [] if settled else self.hooks.end(
                    MatchEnd(table, Ending.CLOSED, self.absent_seats()))
                await self.commits.write_table(
                    table, status=TableStatus.CLOSED, clock_seat=None, clock_deadline=None,
                    extra=[*ends, *extra])
            except Exception as exc:  # a hook's or the database's: the table goes on
                log.error("table %s: could not store its closed status (%s)", table.id,
                          type(exc).__name__)
                self.table = await self.commits.reload(table)
                self.table.fair = self.seeds.fair_stored
                await self._advance()
                if isinstance(exc, CommitFailed):
                    raise
                raise CommitFailed(f"could not close the table: {type(exc).__name__}") from exc
            for seat in table.seats:
                self.timers.release(seat.seat)
            log.info("table %s: closed by an administrator at version %d", table.id,
                     table.version)
            self.broadcast()
            self._watch_idle()

    def absent_seats(self) -> frozenset[int]:
        """The people's seats whose player is not there (the computer plays for them)."""
        return frozenset(s.seat for s in self.table.seats if s.human and s.away)

    # ----------------------------------------------------------------- the commit path
    async def _commit(self, makers: Sequence[EventMaker], extra: Sequence[WriteOp] = (),
                      bump: bool = False, acked: tuple[Connection, str] | None = None) -> None:
        """Apply events in memory, commit them, then broadcast (the author's state carrying
        the ``ack`` of its action). On a failed commit the table is reloaded from the database
        and :class:`CommitFailed` is raised."""
        try:
            await self.commits.write(self.table, makers, extra, bump)
        except CommitFailed:
            self.table = await self.commits.reload(self.table)
            self.table.fair = self.seeds.fair_stored
            raise
        table = self.table
        if table.next_step() in (Step.HUMAN, Step.COMPUTER):
            stop = cap_reached(table, self.settings.max_decisions)
            if stop is not None:  # the cap's last decision: "stopped" goes out, not "your turn"
                await self._stop(stop, acked)
                return
        self.broadcast(acked)

    # ----------------------------------------------------------------- what comes next
    def _arm(self, delay: float, action: TimerAction, key: float | None = None) -> None:
        self.timers.arm(delay, action, self.table.version, key)

    async def _advance(self) -> None:
        """Play what needs no human (deals, reshuffles), then arm the right timer; then set
        or cancel the idle timer (a turn clock's timer armed again is kept: timers.py)."""
        with self.timers.aside():
            await self._advance_steps()
        self._watch_idle()

    async def _advance_steps(self) -> None:
        if self.closed or self.table.stuck is not None:
            return
        table = self.table
        for _ in range(AUTOMATIC_STEPS):
            step = table.next_step()
            try:
                if step in (Step.START_MATCH, Step.DEAL):
                    seeds = await self.seeds.ready(
                        self.table, lambda w: self._commit([], w, bump=True),
                        lambda delay: self._arm(delay, self._seed_timeout))
                    if seeds is None:
                        return
                    table = self.table
                    makers = [table.match_event] if step is Step.START_MATCH else []
                    deal_at = table.version + len(makers) + 1
                    await self._commit([*makers, table.deal_event],
                                       [seeds.deal_write(table.id, deal_at)])
                    seeds.deal_version = deal_at
                    continue
                if step is Step.RESHUFFLE:
                    await self._commit([table.reshuffle_event])
                    continue
            except CommitFailed:
                self._arm(1.0, self._retry_advance)
                return
            table = self.table
            stop = cap_reached(table, self.settings.max_decisions)  # a person's turn too
            if stop is not None:
                await self._stop(stop)
                return
            if step is Step.BETWEEN_HANDS:
                now = time.time()
                if table.next_deal_at is None:
                    table.next_deal_at = now + self.settings.between_hands_seconds
                    self.broadcast()
                self._arm(table.next_deal_at - now, self._deal_timeout)
            elif step is Step.COMPUTER and self.people:  # never computers alone
                self._arm(self.settings.bot_delay_ms / 1000, self._computer_turn)
            elif step is Step.HUMAN:
                await self._arm_clock()
            return

    async def _seed_timeout(self, version: int) -> None:
        async with self.lock:
            if self.table.version == version and pending(self.table) is not None:
                await self._advance()

    async def _arm_clock(self) -> None:
        table = self.table
        if table.clock_ms <= 0 or table.running_hand() is None:
            return
        if restart_clock(table, time.time()):  # e.g. a player back from away on his turn
            try:
                await self.commits.write_table(table, clock_seat=table.clock_seat,
                                               clock_deadline=table.clock_deadline)
            except CommitFailed:
                log.warning("table %s: could not store the clock deadline", table.id)
            self.broadcast()
        assert table.clock_deadline is not None
        self._arm(table.clock_deadline - time.time(), self._clock_timeout, table.clock_deadline)

    async def _retry_advance(self, _version: int) -> None:
        async with self.lock:
            await self._advance()

    async def _deal_timeout(self, version: int) -> None:
        async with self.lock:
            table = self.table
            if table.version != version or table.next_step() is not Step.BETWEEN_HANDS:
                return
            for seat in table.seats:
                seat.ready = True
            await self._advance()

    async def _computer_turn(self, version: int) -> None:
        async with self.lock:
            if self.table.version != version or self.table.next_step() is not Step.COMPUTER \
                    or not self.people:
                return
            mover = self._mover()
            await self._computer_move(Source.BOT if mover.kind == SeatKind.BOT else Source.AWAY)

    async def _clock_timeout(self, version: int) -> None:
        async with self.lock:
            table = self.table
            if table.version != version or table.next_step() is not Step.HUMAN:
                return
            if table.clock_deadline is None or table.clock_deadline > time.time() + 0.001:
                await self._advance()
                return
            if not self.people:  # played when a person is back (attach advances the table)
                return
            log.info("table %s: seat %s ran out of time", table.id, table.clock_seat)
            await self._computer_move(Source.CLOCK)

    def _mover(self) -> Seat:
        hand = self.table.running_hand()
        assert hand is not None and hand.to_move >= 0
        return self.table.seats[hand.to_move]

    async def _computer_move(self, source: Source) -> None:
        """The computer plays one action for the seat to move, then the game goes on; past
        the decision cap the table is stopped instead."""
        table = self.table
        seat = self._mover()
        try:
            action = await self.computer.choose(table, seat)
        except EndlessHand as exc:
            await self._stop(str(exc))
            return
        try:
            await self._commit([lambda: table.action_event(action, seat.seat, source)])
        except CommitFailed:
            self._arm(1.0, self._retry_advance)
            return
        if self.on_action is not None:
            self.on_action(source, None)
        if source is Source.CLOCK:
            self._announce_clock(seat, action)
        await self._advance()

    def _announce_clock(self, seat: Seat, action: Action) -> None:
        """Tell every connection that the clock played ``action`` for ``seat`` (sent after
        the state that shows the move, before any later move)."""
        table = self.table
        hand = table.hand
        if hand is None or table.match is None:
            return
        name = seat.name or f"seat {seat.seat + 1}"
        gin = hand.knock is not None and hand.knock.gin
        notice = clock_notice(seat.seat, name, action_text(action, gin), len(table.match.hands),
                              len(hand.seat_logs[-1]) - 1)
        for conn in list(self.connections):
            conn.send(notice)

    async def _stop(self, reason: str, acked: tuple[Connection, str] | None = None) -> None:
        """Stop the table for good (status ``stuck``), store that and tell everyone why (the
        stopped state carrying the ``ack`` of the action that reached the cap, if any)."""
        table = self.table
        log.warning("table %s: stopped at version %d: %s", table.id, table.version, reason)
        table.stop(reason)
        self.timers.cancel()
        try:
            await self.commits.write_table(
                table, status=TableStatus.STUCK,
                extra=self.hooks.end(MatchEnd(table, Ending.STUCK, self.absent_seats())))
        except CommitFailed:
            log.warning("table %s: could not store its stuck status", table.id)
        self.broadcast(acked)
        notice = error(Code.ENDLESS_HAND, f"the table was stopped: {reason}")
        for conn in list(self.connections):
            conn.send(notice)
        self._watch_idle()
