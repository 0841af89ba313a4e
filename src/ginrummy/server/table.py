"""One table's game state, rebuilt from its stored events, and what each recipient may see.

:class:`GameTable` holds no asyncio machinery: it is the pure part (replay, checks, messages);
:mod:`ginrummy.server.runner` drives it (one writer per table, commits, timers).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import Any

from ginrummy.actions import Action, Knock, LayOff, action_text, parse_action
from ginrummy.cards import format_cards, parse_card_list
from ginrummy.engine import CHANCE, Hand, Phase, deal_order
from ginrummy.errors import IllegalActionError, NotYourTurnError
from ginrummy.match import Match
from ginrummy.rules import Format, Ruleset
from ginrummy.server.jsontext import dumps
from ginrummy.server.protocol import Code, MessageError
from ginrummy.server.viewcache import ViewCache
from ginrummy.solver import knock_options_mask
from ginrummy.storage import StoredEvent, StoredSeat, StoredTable, utcnow

CLIENT_IDS_KEPT = 256
"""Action ids remembered per seat, to acknowledge a resent action once more."""


def secret_hash(secret: str) -> str:
    """The stored form of a token or invite code."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret() -> str:
    """A fresh seat token or invite code."""
    return secrets.token_urlsafe(24)


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


@dataclass
class Seat:
    """A seat: stored facts plus the live ones (connections, away, ready)."""

    seat: int
    kind: str = "empty"
    name: str | None = None
    level: str | None = None
    token_hash: str | None = None
    rematch: bool = False
    connections: int = 0
    away: bool = False
    ready: bool = False

    @property
    def human(self) -> bool:
        """True for a guest's seat."""
        return self.kind == "human"

    @property
    def computer_plays(self) -> bool:
        """True when the computer moves for this seat (a bot, or an absent human)."""
        return self.kind == "bot" or (self.kind == "human" and self.away)


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
    status: str = "waiting"
    version: int = 0
    created_at: datetime = field(default_factory=utcnow)
    match: Match | None = None
    clock_seat: int | None = None
    clock_deadline: float | None = None
    next_deal_at: float | None = None
    client_ids: dict[int, OrderedDict[str, int]] = field(default_factory=dict)
    _fixed_entry: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    _views: ViewCache = field(default_factory=ViewCache, repr=False, compare=False)
    _entry_json: tuple[Any, str] | None = field(default=None, repr=False, compare=False)

    # ----------------------------------------------------------------- storage
    @classmethod
    def from_stored(cls, stored: StoredTable) -> GameTable:
        """Rebuild a table by replaying its events (raises ``ValueError`` on a bad record)."""
        rules = TableRules.from_dict(stored.rules, name=stored.preset)
        seats = [Seat(s.seat, s.kind, s.name, s.level, s.token_hash, s.rematch)
                 for s in stored.seats]
        table = cls(stored.id, stored.name, stored.preset, rules, stored.public,
                    stored.invite_hash, stored.clock_ms, stored.pool_chips, seats,
                    stored.status, 0, stored.created_at)
        for event in stored.events:
            table.apply_event(event)
        table.version = stored.version
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
            seats=[StoredSeat(s.seat, s.kind, s.name, s.level, s.token_hash, s.rematch)
                   for s in self.seats])

    def apply_event(self, event: StoredEvent) -> None:
        """Play a committed (or replayed) event and move to its version."""
        if event.kind == "match":
            first_dealer = int(json.loads(event.payload)["first_dealer"])
            pool = self.pool_chips if self.rules.format is Format.SINGLE_HAND else None
            self.match = Match(self.rules, first_dealer=first_dealer, pool_cents=pool)
            self.client_ids.clear()
            for seat in self.seats:
                seat.rematch = False
                seat.ready = False
        elif event.kind == "deal":
            assert self.match is not None, "a deal before any match"
            self.match.start_hand(parse_card_list(event.payload))
            self.next_deal_at = None
            for seat in self.seats:
                seat.ready = False
        elif event.kind == "action":
            assert self.match is not None, "an action before any match"
            seat_no = None if event.seat is None or event.seat < 0 else event.seat
            self.match.apply(parse_action(event.payload), seat_no)
            if event.client_id is not None and seat_no is not None:
                ids = self.client_ids.setdefault(seat_no, OrderedDict())
                ids[event.client_id] = event.version
                while len(ids) > CLIENT_IDS_KEPT:
                    ids.popitem(last=False)
        else:
            raise ValueError(f"unknown event kind {event.kind!r}")
        self.version = event.version
        self.status = self._status()

    def _status(self) -> str:
        if self.match is None:
            return "waiting"
        return "over" if self.match.over else "playing"

    # ----------------------------------------------------------------- new events
    def match_event(self) -> StoredEvent:
        """The event that starts a match (random first dealer, R2.2)."""
        first = secrets.SystemRandom().randrange(self.rules.players)
        return StoredEvent(self.version + 1, "match", json.dumps({"first_dealer": first}))

    def deal_event(self) -> StoredEvent:
        """The next hand's deck, shuffled with ``secrets.SystemRandom``."""
        deck = deal_order(rng=secrets.SystemRandom())
        return StoredEvent(self.version + 1, "deal", format_cards(deck))

    def action_event(self, action: Action, seat: int, source: str,
                     client_id: str | None = None) -> StoredEvent:
        """An action event (notation as the engine writes it)."""
        return StoredEvent(self.version + 1, "action", str(action), seat, source, client_id)

    def reshuffle_event(self) -> StoredEvent:
        """The due reshuffle, ordered with ``secrets.SystemRandom``."""
        hand = self.hand
        assert hand is not None
        order = hand.reshuffle_order(secrets.SystemRandom())
        return StoredEvent(self.version + 1, "action", str(order), CHANCE, "chance")

    # ----------------------------------------------------------------- facts
    @property
    def hand(self) -> Hand | None:
        """The current hand, if any was dealt in this match."""
        if self.match is None or not self.match.hands:
            return None
        return self.match.hand

    @property
    def full(self) -> bool:
        """True when no seat is empty."""
        return all(s.kind != "empty" for s in self.seats)

    def running_hand(self) -> Hand | None:
        """The hand being played (not over), if any."""
        hand = self.hand
        return hand if hand is not None and not hand.over else None

    def next_step(self) -> Step:
        """What must happen next for the game to go on."""
        match = self.match
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

    def seat_for_token(self, token: str) -> Seat | None:
        """The seat whose token this is."""
        digest = secret_hash(token)
        for seat in self.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return seat
        return None

    def invite_ok(self, invite: str | None) -> bool:
        """True for a public table, or the right invite code of a private one."""
        if self.public:
            return True
        if invite is None or self.invite_hash is None:
            return False
        return hmac.compare_digest(self.invite_hash, secret_hash(invite))

    # ----------------------------------------------------------------- checks
    def check_action(self, seat: int, text: str) -> Action:
        """Parse and verify a seat's action; :class:`MessageError` says why it is refused."""
        hand = self.running_hand()
        if hand is None or self.match is None or self.match.over:
            raise MessageError(Code.NO_HAND, "no hand is being played")
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
    def entry(self) -> dict[str, Any]:
        """The public lobby entry."""
        fixed = self._fixed_entry
        if fixed is None:  # what never changes, computed once
            fixed = self._fixed_entry = {
                "id": self.id,
                "name": self.name,
                "preset": self.preset,
                "rules": self.rules.to_dict(),
                "description": self.rules.describe(),
                "players": self.rules.players,
                "public": self.public,
                "clock_seconds": self.clock_ms / 1000,
                "pool_chips": self.pool_chips,
                "created_at": self.created_at.isoformat().replace("+00:00", "Z"),
            }
        return {
            **fixed,
            "seats": [{"seat": s.seat, "name": s.name, "kind": s.kind, "level": s.level,
                       "connected": s.connections > 0, "away": s.human and s.away}
                      for s in self.seats],
            "status": self.status,
            "version": self.version,
        }

    def entry_json(self) -> str:
        """The lobby entry as JSON text (kept while the table, its seats and their
        connections do not change)."""
        key = (self.version, self.status,
               tuple((s.kind, s.name, s.level, s.connections > 0, s.away) for s in self.seats))
        cached = self._entry_json
        if cached is None or cached[0] != key:
            cached = self._entry_json = (key, dumps(self.entry()))
        return cached[1]

    def state_texts(self, seats: Iterable[int | None], now: float) -> dict[int | None, str]:
        """The ``state`` message of each of ``seats`` (``None``: a spectator) as JSON text, at
        Unix time ``now``. What every recipient shares (the table entry, clock, score sheet,
        the public part of the view) is built and serialised once."""
        head = f'{_STATE_HEAD}"table":{self.entry_json()},'
        tail = f",{dumps(self._shared_body(now))[1:]}"
        texts: dict[int | None, str] = {}
        for seat in seats:
            if seat not in texts:
                texts[seat] = f"{head}{dumps(self._seat_body(seat))[1:-1]}{tail}"
        return texts

    def state_message(self, seat: int | None, now: float) -> dict[str, Any]:
        """The ``state`` message for ``seat`` (``None``: a spectator), at Unix time ``now``."""
        return {"type": "state", "table": self.entry(), **self._seat_body(seat),
                **self._shared_body(now)}

    def _seat_body(self, seat: int | None) -> dict[str, Any]:
        """The fields of a state that depend on its recipient."""
        match = self.match
        hand = self.hand
        legal: list[str] = []
        hints: dict[str, Any] | None = None
        player_view: dict[str, Any] | None = None
        if match is not None and hand is not None:
            player_view = self._views.view_dict(match, seat, self.version)
            if seat is not None:
                hints = _hints(hand, seat, self._views.best_melds(hand, seat))
                if not hand.over and hand.to_move == seat:
                    legal = [_legal_text(a, hand) for a in hand.legal_actions()]
        return {"version": self.version, "seat": seat, "view": player_view, "legal": legal,
                "hints": hints}

    def _shared_body(self, now: float) -> dict[str, Any]:
        """The fields of a state that are the same for every recipient."""
        match = self.match
        return {
            "clock": self.clock_info(now),
            "next_hand": self._next_hand_info(now),
            "sheet": [] if match is None else self._views.sheet(match),
            "result": None if match is None or match.result is None else match.result.to_dict(),
            "rematch": [s.seat for s in self.seats if s.rematch],
        }

    def clock_info(self, now: float) -> dict[str, Any] | None:
        """The running turn clock, if any."""
        hand = self.running_hand()
        if (self.clock_ms <= 0 or hand is None or self.clock_deadline is None
                or self.clock_seat != hand.to_move):
            return None
        remaining = max(0, round((self.clock_deadline - now) * 1000))
        return {"seat": self.clock_seat, "remaining_ms": remaining, "per_turn_ms": self.clock_ms}

    def _next_hand_info(self, now: float) -> dict[str, Any] | None:
        if self.match is None or not self.match.needs_deal or not self.match.hands:
            return None
        remaining = None if self.next_deal_at is None else max(
            0, round((self.next_deal_at - now) * 1000))
        return {"ready": [s.seat for s in self.seats if s.ready or not s.human],
                "remaining_ms": remaining}


_STATE_HEAD = '{"type":"state",'


def with_ack(state_text: str, action_id: str) -> str:
    """A ``state`` text that also acknowledges the action ``action_id`` (``"ack"``)."""
    assert state_text.startswith(_STATE_HEAD)
    return f'{_STATE_HEAD}"ack":{dumps(action_id)},{state_text[len(_STATE_HEAD):]}'


def _legal_text(action: Action, hand: Hand) -> str:
    if isinstance(action, Knock):
        melded = sum(len(m) for m in action.melds)
        held = hand.hands[hand.to_move].bit_count()
        gin = melded == held - (0 if action.discard is None else 1)
        return action_text(action, gin)
    return str(action)


def _hints(hand: Hand, seat: int, best: dict[str, Any]) -> dict[str, Any]:
    """Least deadwood of the seat's own hand (``best``), its knock options and its best
    defence."""
    mask = hand.hands[seat]
    hints: dict[str, Any] = {**best, "knocks": [], "defence": None}
    if hand.over or hand.to_move != seat:
        return hints
    if hand.phase is Phase.DISCARD:
        forbidden = hand.taken if hand.rules.no_rediscard_of_taken_card else None
        for option in knock_options_mask(mask, hand.knock_limit, hand.rules.big_gin, forbidden):
            knock = Knock(option.discard, option.arrangement.melds)
            hints["knocks"].append({"action": action_text(knock, option.gin),
                                    "deadwood": option.deadwood})
    elif hand.phase is Phase.LAYOFF:
        defence = hand.best_defence(seat)
        hints["defence"] = str(LayOff(defence.melds, defence.layoffs))
    return hints
