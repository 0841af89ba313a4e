"""One table's game state, rebuilt from its stored events: seats, replay, checks, new events.

:class:`GameTable` holds no asyncio machinery and sends nothing: it is the pure part;
:mod:`ginrummy.server.play.tablewriter` drives it (one writer per table, commits, timers) and
:mod:`ginrummy.server.play.messages` says what each recipient may see of it.
"""

from __future__ import annotations

import json
import secrets
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

from ginrummy.actions import Action, Reshuffle, parse_action
from ginrummy.cards import format_cards, parse_card_list
from ginrummy.engine import CHANCE, Hand, Phase, deal_order
from ginrummy.errors import IllegalActionError, NotYourTurnError
from ginrummy.match import Match
from ginrummy.rules import Format, Ruleset
from ginrummy.server.core.kinds import EventKind, SeatKind, Source, TableStatus
from ginrummy.server.core.protocol import Code, MessageError
from ginrummy.server.play.fairdeal import FairHand, dealt, pending
from ginrummy.server.play.messages import State, StateMessages, TableEntry
from ginrummy.server.play.resign import ends_match, finished_sheet, resign_match
from ginrummy.server.play.seat import Seat
from ginrummy.storage import StoredEvent, StoredSeat, StoredTable, utcnow

_HAND_OVER = Phase.OVER
"""A hand's last phase, looked up once (an enum member lookup on every call costs)."""
CLIENT_IDS_KEPT = 256
"""Action ids remembered per seat, to acknowledge a resent action once more."""

STOP_REASONS = {TableStatus.STUCK: "stopped: a hand passed the decision cap",
                TableStatus.ABANDONED: "abandoned: nobody was connected",
                TableStatus.CLOSED: "closed by an administrator"}
"""Why a table nobody plays on was stopped, by its stored status."""


class TableRules(Ruleset):
    """A table's ruleset whose dict form is computed once: it goes out with every state."""

    def to_dict(self) -> dict[str, Any]:
        """Every option as plain JSON values (cached; a fresh copy each call)."""
        cached: dict[str, Any] | None = self.__dict__.get("_as_dict")
        if cached is None:
            cached = super().to_dict()
            object.__setattr__(self, "_as_dict", cached)
        return dict(cached)


def table_rules(rules: Ruleset) -> TableRules:
    """The same options as a :class:`TableRules`."""
    return TableRules.from_dict(rules.to_dict(), name=rules.name)  # type: ignore[return-value]


class Step(Enum):
    """What the table needs next."""

    NOTHING = "nothing"          # waiting for players, a human's move, or a rematch
    START_MATCH = "start_match"  # every seat is filled: a match begins
    DEAL = "deal"                # deal the next hand now
    BETWEEN_HANDS = "between"    # a hand ended: wait for `next` or the timeout
    RESHUFFLE = "reshuffle"      # chance: a reshuffle is due
    COMPUTER = "computer"        # the computer moves for the seat to move
    HUMAN = "human"              # a human is to move


@dataclass
class GameTable:
    """A table: settings, seats, the match (replayed from events) and its version."""

    id: str
    name: str
    preset: str
    rules: Ruleset
    public: bool
    invite_hash: str | None
    clock_ms: int
    pool_chips: int | None
    seats: list[Seat]
    status: TableStatus = TableStatus.WAITING
    version: int = 0
    created_at: datetime = field(default_factory=utcnow)
    match: Match | None = None
    clock_seat: int | None = None
    clock_deadline: float | None = None
    next_deal_at: float | None = None
    client_ids: dict[int, OrderedDict[str, int]] = field(default_factory=dict)
    stuck: str | None = None
    """Why the table was stopped (status ``stuck``: a hand passed the decision cap)."""
    messages: StateMessages = field(default_factory=StateMessages, repr=False, compare=False)
    buy_in: int | None = None
    """Chips each account pays into the pool when it sits down (arena tables)."""
    match_first_version: int | None = None
    """The version of the current match's ``match`` event (where its record starts)."""
    resigned: list[int] = field(default_factory=list)
    """The seats that resigned the current match, in order."""
    previous: dict[str, Any] | None = None
    """The previous match's score sheet and result (kept after a rematch)."""
    fair: FairHand | None = field(default=None, repr=False, compare=False)
    """The seeds of the latest committed hand (:mod:`ginrummy.server.play.fairdeal`)."""
    clock_moves: list[tuple[int, int]] = field(default_factory=list)
    """The current hand's moves the turn clock played (event source ``clock``), as (hand
    number from 1, index in the hand's public log): public, and rebuilt on replay."""
    ratings: list[dict[str, Any]] | None = field(default=None, compare=False)
    """The rating change of each seat of the match that just ended, when it was rated
    (``{"seat", "category", "before", "after"}``, set with the match's record by the players'
    layer, :mod:`ginrummy.server.players.matchrecord`); ``None`` otherwise, and again from the
    next match on. Not stored with the table: the match's record keeps the ratings."""

    # ----------------------------------------------------------------- storage
    @classmethod
    def from_stored(cls, stored: StoredTable) -> GameTable:
        """Rebuild a table by replaying its events (raises ``ValueError`` on a bad record)."""
        rules = TableRules.from_dict(stored.rules, name=stored.preset)
        seats = [Seat(s.seat, SeatKind(s.kind), s.name, s.level, s.token_hash, s.rematch,
                      s.account_id) for s in stored.seats]
        status = TableStatus(stored.status)
        table = cls(stored.id, stored.name, stored.preset, rules, stored.public,
                    stored.invite_hash, stored.clock_ms, stored.pool_chips, seats, status, 0,
                    stored.created_at, buy_in=stored.buy_in)
        for event in stored.events:
            table.apply_event(event)
        table.version = stored.version
        if status in STOP_REASONS:  # replaying its events made it waiting, playing or over
            table.stop(STOP_REASONS[status], status)
        table.clock_seat = stored.clock_seat
        table.clock_deadline = stored.clock_deadline
        return table

    def to_stored(self) -> StoredTable:
        """The rows of a new table (no events)."""
        return StoredTable(
            id=self.id, name=self.name, preset=self.preset, rules=self.rules.to_dict(),
            players=self.rules.players, public=self.public, invite_hash=self.invite_hash,
            clock_ms=self.clock_ms, pool_chips=self.pool_chips, status=self.status,
            version=self.version, created_at=self.created_at, updated_at=self.created_at,
            buy_in=self.buy_in,
            seats=[StoredSeat(s.seat, s.kind.value, s.name, s.level, s.token_hash, s.rematch,
                              s.account_id) for s in self.seats])

    def apply_event(self, event: StoredEvent) -> None:
        """Play a committed (or replayed) event and move to its version."""
        if event.kind == EventKind.MATCH:
            first_dealer = int(json.loads(event.payload)["first_dealer"])
            pool = self.pool_chips if self.rules.format is Format.SINGLE_HAND else None
            if self.match is not None:
                self.previous = finished_sheet(self.match, self.resigned)
            self.resigned = []
            self.ratings = None
            self.match = Match(self.rules, first_dealer=first_dealer, pool_cents=pool)
            self.match_first_version = event.version
            self.client_ids.clear()
            self.clock_moves = []
            for seat in self.seats:
                seat.rematch = False
                seat.ready = False
                if seat.resigned:  # the person plays the new match, if there
                    seat.resigned, seat.left = False, seat.connections == 0
        elif event.kind == EventKind.DEAL:
            assert self.match is not None, "a deal before any match"
            self.match.start_hand(parse_card_list(event.payload))
            self.next_deal_at = None
            self.clock_moves = []
            for seat in self.seats:
                seat.ready = False
        elif event.kind == EventKind.ACTION:
            assert self.match is not None, "an action before any match"
            seat_no = None if event.seat is None or event.seat < 0 else event.seat
            self.match.apply(parse_action(event.payload), seat_no)
            if event.source == Source.CLOCK:
                self.clock_moves.append((len(self.match.hands),
                                         len(self.match.hand.seat_logs[-1]) - 1))
            if event.client_id is not None and seat_no is not None:
                ids = self.client_ids.setdefault(seat_no, OrderedDict())
                ids[event.client_id] = event.version
                while len(ids) > CLIENT_IDS_KEPT:
                    ids.popitem(last=False)
        elif event.kind == EventKind.RESIGN:
            assert self.match is not None and event.seat is not None, "a stray resignation"
            self.resigned.append(event.seat)
            if ends_match(self.match):
                resign_match(self.match, event.seat)
            else:
                self.seats[event.seat].resigned = True
        else:
            raise ValueError(f"unknown event kind {event.kind!r}")
        self.version = event.version
        self.status = self._status()

    def _status(self) -> TableStatus:
        if self.stuck is not None:
            return TableStatus.STUCK
        if self.match is None:
            return TableStatus.WAITING
        return TableStatus.OVER if self.match.over else TableStatus.PLAYING

    def stop(self, reason: str, status: TableStatus = TableStatus.STUCK) -> None:
        """Stop the table for good (status ``stuck``, or ``abandoned``): nobody plays on."""
        self.stuck = reason
        self.status = status

    # ----------------------------------------------------------------- new events
    def match_event(self) -> StoredEvent:
        """The event that starts a match: its first dealer (R2.2) drawn from the first
        hand's committed seeds (:func:`ginrummy.fair.first_dealer`); without any (a table
        built by hand), with ``secrets.SystemRandom``."""
        seeds = pending(self)
        first = (secrets.SystemRandom().randrange(self.rules.players) if seeds is None
                 else seeds.first_dealer(self.rules.players))
        return StoredEvent(self.version + 1, EventKind.MATCH, json.dumps({"first_dealer": first}))

    def deal_event(self) -> StoredEvent:
        """The next hand's deck: from its committed seeds (:mod:`ginrummy.fair`); without
        any (a table built by hand), shuffled with ``secrets.SystemRandom``."""
        seeds = pending(self)
        deck = deal_order(rng=secrets.SystemRandom()) if seeds is None else seeds.deck()
        return StoredEvent(self.version + 1, EventKind.DEAL, format_cards(deck))

    def action_event(self, action: Action, seat: int, source: Source,
                     client_id: str | None = None) -> StoredEvent:
        """An action event (notation as the engine writes it)."""
        return StoredEvent(self.version + 1, EventKind.ACTION, str(action), seat, source,
                           client_id)

    def resign_event(self, seat: int) -> StoredEvent:
        """A seat resigns the match (docs/protocol.md, *Resign and leave*)."""
        return StoredEvent(self.version + 1, EventKind.RESIGN, "resign", seat, Source.HUMAN)

    def reshuffle_event(self) -> StoredEvent:
        """The due reshuffle, ordered from the hand's seeds (without any, with
        ``secrets.SystemRandom``)."""
        hand = self.hand
        assert hand is not None
        seeds = dealt(self)
        if seeds is None:
            order = hand.reshuffle_order(secrets.SystemRandom())
        else:
            order = Reshuffle(tuple(seeds.reshuffle(hand.reshuffles + 1,
                                                    list(hand.discards[:-1]))))
        return StoredEvent(self.version + 1, EventKind.ACTION, str(order), CHANCE,
                           Source.CHANCE)

    # ----------------------------------------------------------------- facts
    @property
    def hand(self) -> Hand | None:
        """The current hand, if any was dealt in this match."""
        match = self.match
        if match is None or not match.hands:
            return None
        return match.hands[-1]  # Match.hand, without its check (called a dozen times an action)

    @property
    def full(self) -> bool:
        """True when no seat is empty."""
        return all(s.kind != SeatKind.EMPTY for s in self.seats)

    def running_hand(self) -> Hand | None:
        """The hand being played (not over, in a match not over: a resignation ends a match
        during a hand), if any."""
        match = self.match  # the chain of properties inlined: ten calls an action
        if match is None or match.result is not None or not match.hands:
            return None
        hand = match.hands[-1]
        return None if hand.phase is _HAND_OVER else hand

    def check_resign(self, seat: int | None) -> None:
        """:class:`MessageError` when ``seat`` (``None``: a spectator) may not resign now."""
        if seat is None:
            raise MessageError(Code.NOT_SEATED, "spectators cannot resign")
        if self.stuck is not None:
            raise MessageError(Code.NO_HAND, f"the table was stopped: {self.stuck}")
        if self.match is None or not self.match.hands:
            raise MessageError(Code.NO_HAND, "no match is being played: before the first deal "
                               "leave the table instead (POST /api/tables/{id}/leave)")
        if self.match.over:
            raise MessageError(Code.NO_HAND, "the match is over: there is nothing to resign")
        if seat in self.resigned:
            raise MessageError(Code.RESIGNED, f"seat {seat} has already resigned this match")

    def next_step(self) -> Step:
        """What must happen next for the game to go on."""
        match = self.match
        if self.stuck is not None:
            return Step.NOTHING
        if match is None:
            return Step.START_MATCH if self.full else Step.NOTHING
        if match.over:  # a rematch once every present human asked for one
            humans = [s for s in self.seats if s.human and not s.away]
            if humans and all(s.rematch for s in humans):
                return Step.START_MATCH
            return Step.NOTHING
        if match.needs_deal:
            if not match.hands:
                return Step.DEAL
            waiting = [s for s in self.seats if s.human and not s.away and not s.ready]
            return Step.BETWEEN_HANDS if waiting else Step.DEAL
        hand = match.hand
        if hand.to_move == CHANCE:
            return Step.RESHUFFLE
        seat = self.seats[hand.to_move]
        return Step.COMPUTER if seat.computer_plays else Step.HUMAN

    # ----------------------------------------------------------------- checks
    def check_action(self, seat: int, text: str) -> Action:
        """Parse and verify a seat's action; :class:`MessageError` says why it is refused."""
        hand = self.running_hand()
        if self.stuck is not None:
            raise MessageError(Code.NO_HAND, f"the table was stopped: {self.stuck}")
        if hand is None or self.match is None or self.match.over:
            raise MessageError(Code.NO_HAND, "no hand is being played")
        if seat in self.resigned:
            raise MessageError(Code.RESIGNED, f"seat {seat} resigned this match: the computer "
                               "plays it")
        try:
            action = parse_action(text)
        except ValueError as exc:
            raise MessageError(Code.ILLEGAL_ACTION, f"bad action: {exc}") from None
        if hand.to_move != seat:
            who = "the dealer (reshuffling)" if hand.to_move == CHANCE else f"seat {hand.to_move}"
            raise MessageError(Code.NOT_YOUR_TURN, f"{who} is to move, not seat {seat}")
        try:
            hand.verify(action, seat)
        except NotYourTurnError as exc:
            raise MessageError(Code.NOT_YOUR_TURN, str(exc)) from None
        except IllegalActionError as exc:
            raise MessageError(Code.ILLEGAL_ACTION, str(exc)) from None
        return action

    # ----------------------------------------------------------------- messages
    def entry(self) -> TableEntry:
        """The public lobby entry (:class:`ginrummy.server.play.messages.StateMessages`)."""
        return self.messages.entry(self)

    def state_texts(self, seats: Iterable[int | None], now: float) -> dict[int | None, str]:
        """The ``state`` message of each of ``seats`` (``None``: a spectator) as JSON text, at
        Unix time ``now`` (the shared parts built once)."""
        return self.messages.state_texts(self, seats, now)

    def broadcast_texts(self, full: Iterable[int | None],
                        synced: Iterable[tuple[int | None, int]], now: float
                        ) -> tuple[dict[int | None, str], dict[tuple[int | None, int], str]]:
        """One broadcast's texts: ``state`` for the ``full`` seats, ``delta`` (protocol 3)
        for the ``(seat, base number)`` pairs of ``synced``
        (:meth:`StateMessages.broadcast_texts`)."""
        return self.messages.broadcast_texts(self, full, synced, now)

    def state_message(self, seat: int | None, now: float) -> State:
        """The ``state`` message for ``seat`` (``None``: a spectator), at Unix time ``now``."""
        return self.messages.state_message(self, seat, now)
