"""The single writer of one table: checks, commits, then acknowledges and broadcasts.

Every change of a table happens under its lock, in this order: check (engine), apply in
memory, commit to the database (group commit), send every connection its ``state`` (the
author's carries the ``ack`` of its action). If the commit fails the table is reloaded from
the database, so memory never runs ahead of what is stored. Timers (computer moves, turn
clocks, seats held for absent players, the pause between hands) re-check the table version
before acting.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from ginrummy.actions import Action
from ginrummy.bots import BOTS, Bot, make_bot
from ginrummy.server.chat import chat_message, clean_text
from ginrummy.server.committer import CommitFailed, GroupCommitter
from ginrummy.server.connections import Connection
from ginrummy.server.jsontext import dumps
from ginrummy.server.protocol import (
    ActionMessage,
    Code,
    MessageError,
    error,
)
from ginrummy.server.settings import Settings
from ginrummy.server.table import GameTable, Seat, Step, new_secret, secret_hash, with_ack
from ginrummy.storage import InsertEvent, Repository, StoredEvent, UpdateSeat, UpdateTable, WriteOp
from ginrummy.views import view

log = logging.getLogger("ginrummy.server.table")

FAST_BOTS = frozenset(("random", "simple", "beginner"))
"""Levels cheap enough to run on the event loop; others think in a worker thread."""


def default_bot_level(settings: Settings) -> str:
    """The level that plays for timed-out or absent humans."""
    if settings.default_bot and settings.default_bot in BOTS:
        return settings.default_bot
    return "intermediate" if "intermediate" in BOTS else "simple"


class TableRunner:
    """Owns a :class:`GameTable`: its lock, connections, timers and computer players."""

    def __init__(self, table: GameTable, settings: Settings, committer: GroupCommitter,
                 repository: Repository) -> None:
        self.table = table
        self.settings = settings
        self.committer = committer
        self.repository = repository
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._holds: dict[int, asyncio.TimerHandle] = {}
        self._bots: dict[tuple[int, str], Bot] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.closed = False

    # ----------------------------------------------------------------- life cycle
    async def start(self) -> None:
        """After creation or restore: hold the humans' seats, then go on with the game."""
        async with self.lock:
            for seat in self.table.seats:
                if seat.human and seat.connections == 0:
                    self._hold(seat)
            await self._advance()

    def close(self) -> None:
        """Stop every timer (server shutdown)."""
        self.closed = True
        self._cancel_timer()
        for handle in self._holds.values():
            handle.cancel()
        self._holds.clear()
        for task in list(self._tasks):
            task.cancel()

    # ----------------------------------------------------------------- connections
    async def attach(self, conn: Connection) -> None:
        """A connection joins the table: welcome, its state, and the others learn it."""
        async with self.lock:
            table = self.table
            self.connections.add(conn)
            conn.send({"type": "welcome", "protocol": conn.protocol, "table": table.id,
                       "seat": conn.seat, "version": table.version, "name": conn.name})
            if conn.seat is not None:
                seat = table.seats[conn.seat]
                seat.connections += 1
                handle = self._holds.pop(seat.seat, None)
                if handle is not None:
                    handle.cancel()
                if seat.away:
                    seat.away = False
                    await self._advance()
            self.broadcast()

    async def detach(self, conn: Connection) -> None:
        """A connection left; a human seat with no connection left is held, then played."""
        async with self.lock:
            if conn not in self.connections:
                return
            self.connections.discard(conn)
            if conn.seat is not None:
                seat = self.table.seats[conn.seat]
                seat.connections = max(0, seat.connections - 1)
                if seat.connections == 0 and seat.human:
                    self._hold(seat)
            self.broadcast()

    def _hold(self, seat: Seat) -> None:
        old = self._holds.pop(seat.seat, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self._holds[seat.seat] = loop.call_later(
            self.settings.hold_seconds, self._spawn, self._hold_expired, seat.seat)

    async def _hold_expired(self, seat_no: int) -> None:
        async with self.lock:
            self._holds.pop(seat_no, None)
            seat = self.table.seats[seat_no]
            if seat.connections == 0 and seat.human and not seat.away:
                seat.away = True
                log.info("table %s: seat %d is away, the computer plays it", self.table.id,
                         seat_no)
                self.broadcast()
                await self._advance()

    # ----------------------------------------------------------------- messages
    def state_for(self, conn: Connection) -> dict[str, Any]:
        """The current ``state`` message of a connection."""
        return self.table.state_message(conn.seat, time.time())

    def broadcast(self, ack: tuple[Connection, str] | None = None) -> None:
        """Send every connection its state (one text built per seat). With ``ack``, the
        state of that connection acknowledges its action of that id (``"ack"``)."""
        connections = list(self.connections)
        if ack is not None and ack[0] not in self.connections:
            connections.append(ack[0])  # its author, wherever it is, learns it was committed
        if not connections:
            return
        texts = self.table.state_texts([c.seat for c in connections], time.time())
        for conn in connections:
            text = texts[conn.seat]
            if ack is not None and conn is ack[0]:
                if conn.protocol >= 2:
                    text = with_ack(text, ack[1])
                else:  # protocol 1: the ack in a frame of its own, just before the state
                    conn.send({"type": "ack", "id": ack[1], "version": self.table.version})
            conn.send(text)

    async def handle_action(self, conn: Connection, msg: ActionMessage) -> None:
        """A client's action: duplicate, stale, illegal, or committed then acknowledged."""
        async with self.lock:
            table = self.table
            if conn.seat is None:
                conn.send(error(Code.NOT_SEATED, "spectators cannot play", msg.id))
                return
            ids = table.client_ids.get(conn.seat)
            done = None if ids is None else ids.get(msg.id)
            if done is not None:
                conn.send({"type": "ack", "id": msg.id, "version": done, "duplicate": True})
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
                await self._commit([lambda: table.action_event(action, seat, "human", msg.id)],
                                   ack=(conn, msg.id))
            except CommitFailed as exc:
                conn.send(error(Code.STORAGE, str(exc), msg.id))
                return
            await self._advance()

    async def chat(self, conn: Connection, text: str) -> None:
        """Send a chat line to every connection that has not muted its author."""
        if not conn.chats.allow():
            conn.send(error(Code.RATE_LIMITED, f"at most {self.settings.chats_per_window} chat "
                            f"messages in {self.settings.chat_window_seconds:g} s"))
            return
        try:
            cleaned = clean_text(text, self.settings.chat_max_chars)
        except MessageError as exc:
            conn.send(error(exc.code, str(exc)))
            return
        message = dumps(chat_message(conn.seat, conn.name, cleaned))
        for other in list(self.connections):
            if conn.seat not in other.muted:
                other.send(message)

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
            seat = table.seats[conn.seat]
            if not seat.rematch:
                seat.rematch = True
                try:
                    await self.committer.commit(
                        [UpdateSeat(table.id, seat.seat, {"rematch": True})])
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
            if table.match is None or not table.match.needs_deal or not table.match.hands:
                conn.send(error(Code.NO_HAND, "no hand is waiting to be dealt"))
                return
            table.seats[conn.seat].ready = True
            self.broadcast()
            await self._advance()

    # ----------------------------------------------------------------- joining
    async def join(self, nickname: str, seat_no: int | None) -> tuple[int, str]:
        """Seat a guest (a given seat or the first empty one); returns (seat, token).
        ``LookupError`` when the seat is taken or the table full."""
        async with self.lock:
            table = self.table
            if seat_no is None:
                empty = [s for s in table.seats if s.kind == "empty"]
                if not empty:
                    raise LookupError("table_full")
                seat = empty[0]
            else:
                if not 0 <= seat_no < len(table.seats):
                    raise ValueError(f"seat must be 0..{len(table.seats) - 1}")
                seat = table.seats[seat_no]
                if seat.kind != "empty":
                    raise LookupError("seat_taken")
            token = new_secret()
            values = {"kind": "human", "name": nickname, "token_hash": secret_hash(token)}
            for key, value in values.items():
                setattr(seat, key, value)
            await self._commit([], [UpdateSeat(table.id, seat.seat, values)], bump=True)
            self._hold(seat)
            await self._advance()
            return seat.seat, token

    # ----------------------------------------------------------------- the commit path
    async def _commit(self, makers: Sequence[Callable[[], StoredEvent]],
                      extra: Sequence[WriteOp] = (), bump: bool = False,
                      ack: tuple[Connection, str] | None = None) -> None:
        """Apply events in memory, commit them, then broadcast (the author's state carrying
        the ``ack`` of its action). On a failed commit the table is reloaded from the database
        and :class:`CommitFailed` is raised."""
        table = self.table
        before = self._turn_key()
        events: list[StoredEvent] = []
        try:
            for make in makers:
                event = make()
                table.apply_event(event)
                events.append(event)
            if bump:
                table.version += 1
            now = time.time()
            self._update_clock(before, now)
            if table.next_deal_at is None and table.next_step() is Step.BETWEEN_HANDS:
                table.next_deal_at = now + self.settings.between_hands_seconds
            ops: list[WriteOp] = [InsertEvent(table.id, e) for e in events]
            ops.extend(extra)
            if any(e.kind == "match" for e in events):
                ops.extend(UpdateSeat(table.id, s.seat, {"rematch": False}) for s in table.seats)
            ops.append(UpdateTable(table.id, {
                "version": table.version, "status": table.status,
                "clock_seat": table.clock_seat, "clock_deadline": table.clock_deadline}))
            await self.committer.commit(ops)
        except Exception as exc:
            log.error("table %s: commit failed (%s); reloading it from the database",
                      table.id, type(exc).__name__)
            await self._reload()
            if isinstance(exc, CommitFailed):
                raise
            raise CommitFailed(f"could not apply the change: {type(exc).__name__}") from exc
        self.broadcast(ack)

    def _turn_key(self) -> tuple[int, int, int]:
        table = self.table
        hand = table.running_hand()
        hands = 0 if table.match is None else len(table.match.hands)
        return (hands, -3 if hand is None else hand.to_move, id(table.match))

    def _update_clock(self, before: tuple[int, int, int], now: float) -> None:
        """Start the turn clock of a human who just came to move; clear it otherwise."""
        table = self.table
        hand = table.running_hand()
        if table.clock_ms <= 0 or hand is None or hand.to_move < 0 \
                or table.seats[hand.to_move].computer_plays:
            table.clock_seat = table.clock_deadline = None
            return
        if self._turn_key() != before or table.clock_seat != hand.to_move \
                or table.clock_deadline is None:
            table.clock_seat = hand.to_move
            table.clock_deadline = now + table.clock_ms / 1000

    async def _reload(self) -> None:
        loop = asyncio.get_running_loop()
        stored = await loop.run_in_executor(None, self.repository.load_table, self.table.id)
        if stored is None:
            log.error("table %s vanished from the database", self.table.id)
            return
        fresh = GameTable.from_stored(stored)
        for old, new in zip(self.table.seats, fresh.seats, strict=True):
            new.connections, new.away, new.ready = old.connections, old.away, old.ready
        self.table = fresh

    # ----------------------------------------------------------------- what comes next
    async def _advance(self) -> None:
        """Play what needs no human (deals, reshuffles), then arm the right timer."""
        self._cancel_timer()
        if self.closed:
            return
        table = self.table
        for _ in range(10):  # a few automatic steps at most before someone must act
            step = table.next_step()
            try:
                if step is Step.START_MATCH:
                    await self._commit([table.match_event, table.deal_event])
                    continue
                if step is Step.DEAL:
                    await self._commit([table.deal_event])
                    continue
                if step is Step.RESHUFFLE:
                    await self._commit([table.reshuffle_event])
                    continue
            except CommitFailed:
                self._arm(1.0, self._retry_advance)
                return
            table = self.table
            if step is Step.BETWEEN_HANDS:
                now = time.time()
                if table.next_deal_at is None:
                    table.next_deal_at = now + self.settings.between_hands_seconds
                    self.broadcast()
                self._arm(table.next_deal_at - now, self._deal_timeout)
            elif step is Step.COMPUTER:
                self._arm(self.settings.bot_delay_ms / 1000, self._computer_turn)
            elif step is Step.HUMAN:
                await self._arm_clock()
            return

    async def _arm_clock(self) -> None:
        table = self.table
        hand = table.running_hand()
        if table.clock_ms <= 0 or hand is None:
            return
        if table.clock_seat != hand.to_move or table.clock_deadline is None:
            # e.g. a player back from away on his turn: a fresh clock, stored
            table.clock_seat = hand.to_move
            table.clock_deadline = time.time() + table.clock_ms / 1000
            try:
                await self.committer.commit([UpdateTable(table.id, {
                    "clock_seat": table.clock_seat, "clock_deadline": table.clock_deadline})])
            except CommitFailed:
                log.warning("table %s: could not store the clock deadline", table.id)
            self.broadcast()
        self._arm(table.clock_deadline - time.time(), self._clock_timeout)

    def _arm(self, delay: float, action: Callable[[int], Coroutine[Any, Any, None]]) -> None:
        self._cancel_timer()
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(max(0.0, delay), self._spawn, action, self.table.version)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _spawn(self, action: Callable[[int], Coroutine[Any, Any, None]], arg: int) -> None:
        if self.closed:
            return
        task = asyncio.get_running_loop().create_task(self._guarded(action, arg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _guarded(self, action: Callable[[int], Coroutine[Any, Any, None]],
                       arg: int) -> None:
        try:
            await action(arg)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: timer failed", self.table.id)

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
            if self.table.version != version or self.table.next_step() is not Step.COMPUTER:
                return
            await self._computer_move("bot" if self._mover().kind == "bot" else "away")

    async def _clock_timeout(self, version: int) -> None:
        async with self.lock:
            table = self.table
            if table.version != version or table.next_step() is not Step.HUMAN:
                return
            if table.clock_deadline is None or table.clock_deadline > time.time() + 0.001:
                await self._advance()
                return
            log.info("table %s: seat %s ran out of time", table.id, table.clock_seat)
            await self._computer_move("clock")

    def _mover(self) -> Seat:
        hand = self.table.running_hand()
        assert hand is not None and hand.to_move >= 0
        return self.table.seats[hand.to_move]

    async def _computer_move(self, source: str) -> None:
        """The computer plays one action for the seat to move, then the game goes on."""
        table = self.table
        match = table.match
        hand = table.running_hand()
        assert match is not None and hand is not None
        seat = self._mover()
        level = seat.level if seat.kind == "bot" and seat.level in BOTS else \
            default_bot_level(self.settings)
        bot = self._bots.get((seat.seat, level))
        if bot is None:
            bot = make_bot(level, secrets.randbits(31))
            self._bots[(seat.seat, level)] = bot
        legal = hand.legal_actions()
        seen = view(match, seat.seat)
        try:
            if level in FAST_BOTS:
                action: Action = bot.choose(seen, legal)
            else:
                action = await asyncio.to_thread(bot.choose, seen, legal)
            hand.verify(action, seat.seat)
        except Exception:
            log.exception("table %s: bot %s failed; playing its first legal action",
                          table.id, level)
            action = legal[0]
        try:
            await self._commit([lambda: table.action_event(action, seat.seat, source)])
        except CommitFailed:
            self._arm(1.0, self._retry_advance)
            return
        await self._advance()


def new_table_id() -> str:
    """A short, unguessable table id."""
    return secrets.token_urlsafe(6)
