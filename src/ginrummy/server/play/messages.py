"""Every server -> client message of docs/protocol.md: its type, its builder, and the
``state`` messages of a table (built together for every recipient of a broadcast).

Outgoing messages are ``TypedDict``s: plain dicts at run time (no validation on the hot path)
that mypy checks where they are built; :func:`ginrummy.server.core.jsontext.dumps` (orjson) turns
them into text. Incoming messages are the pydantic models of :mod:`ginrummy.server.core.protocol`.
Adding a server message means a ``TypedDict`` and a builder here, and a line in
docs/protocol.md.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal, NotRequired, Protocol, TypedDict

from ginrummy.actions import Action, Discard, Knock, LayOff, action_text
from ginrummy.cards import CARD_NAMES
from ginrummy.engine import Hand, Phase
from ginrummy.rules import Ruleset
from ginrummy.server.core.delta import (
    Segments,
    body_delta,
    object_changes,
    shared_changes,
    state_delta,
    table_changes,
)
from ginrummy.server.core.jsontext import dumps, loads
from ginrummy.server.core.kinds import SeatKind, TableStatus
from ginrummy.server.core.protocol import Code
from ginrummy.server.play.fairdeal import SeededTable, fair_block
from ginrummy.server.play.layoffhints import knock_arrangements, layoff_hints
from ginrummy.server.play.movedelta import move_changes, move_view_changes
from ginrummy.server.play.seat import Seat
from ginrummy.server.play.viewcache import ViewCache, ViewParts
from ginrummy.solver import knock_options_mask
from ginrummy.views import VIEWER_KEYS, own_cards


# ---------------------------------------------------------------------- message types
class Welcome(TypedDict):
    """The answer to ``hello``."""

    type: Literal["welcome"]
    protocol: int
    table: str
    seat: int | None
    version: int
    name: str


class Ack(TypedDict):
    """An acknowledgement: protocol 1's own frame, or an action sent again (``duplicate``)."""

    type: Literal["ack"]
    id: str
    version: int
    duplicate: NotRequired[bool]


class Error(TypedDict):
    """A refused message or a stopped table; ``id`` is the action's, if any."""

    type: Literal["error"]
    id: str | None
    code: str
    message: str


class Chat(TypedDict):
    """A chat line (plain text). ``seq`` numbers the table's stored lines (it only grows);
    ``history`` marks a line said before the connection joined (sent right after
    ``welcome``)."""

    type: Literal["chat"]
    seat: int | None
    name: str
    text: str
    at: str
    seq: NotRequired[int]
    history: NotRequired[bool]


class Pong(TypedDict):
    """The answer to ``ping``."""

    type: Literal["pong"]


class Notice(TypedDict):
    """A notice from the server's administrators to every connection (plain text)."""

    type: Literal["notice"]
    text: str
    at: str


class ClockNotice(TypedDict):
    """The turn clock ran out and the computer played for a seat: told to every connection,
    so that nobody reads the move as the player's own (``kind`` ``"clock"``)."""

    type: Literal["notice"]
    kind: Literal["clock"]
    text: str
    at: str
    seat: int
    action: str
    hand_number: int
    log_index: int


class SeatEntry(TypedDict):
    """A seat in a table entry."""

    seat: int
    name: str | None
    kind: SeatKind
    level: str | None
    connected: bool
    away: bool
    account: bool
    """An account sits here (its name is the account's): a guest's nickname cannot pass
    for one."""


class _FixedEntry(TypedDict):
    """The parts of a table entry that never change."""

    id: str
    name: str
    preset: str
    rules: dict[str, Any]
    description: str
    players: int
    public: bool
    clock_seconds: float
    pool_chips: int | None
    buy_in: int | None
    created_at: str


class TableEntry(_FixedEntry):
    """A table as the lobby lists it (and every ``state`` carries it)."""

    seats: list[SeatEntry]
    status: TableStatus
    version: int


class Clock(TypedDict):
    """The running turn clock."""

    seat: int
    remaining_ms: int
    per_turn_ms: int


class ClockMove(TypedDict):
    """A move of the current hand that the turn clock played: its place in ``view.log``."""

    hand: int
    index: int


class NextHand(TypedDict):
    """Between two hands: who is ready, and the time left before the deal."""

    ready: list[int]
    remaining_ms: int | None


class KnockHint(TypedDict):
    """A knock the seat may make now."""

    action: str
    deadwood: int
    arrangements: list[str]
    """Every least-deadwood arrangement of this discard as a knock action, ``action`` first."""


class SeatBody(TypedDict):
    """The fields of a ``state`` that depend on its recipient."""

    version: int
    seat: int | None
    view: dict[str, Any] | None
    legal: list[str]
    hints: dict[str, Any] | None


class SharedBody(TypedDict):
    """The fields of a ``state`` that are the same for every recipient."""

    clock: Clock | None
    clock_moves: list[ClockMove]
    """The current hand's moves the clock played (rebuilt from the stored events)."""
    next_hand: NextHand | None
    sheet: list[dict[str, Any]]
    result: dict[str, Any] | None
    rematch: list[int]
    resigned: list[int]
    previous: dict[str, Any] | None
    fair: dict[str, Any] | None
    """The latest hand's fair-deal seeds (:func:`ginrummy.server.play.fairdeal.fair_block`)."""
    ratings: list[dict[str, Any]] | None
    """The rating change of every seat when the match that just ended was rated."""


class State(SeatBody, SharedBody):
    """A ``state`` message (key order: type, table, the seat's fields, the shared ones). The
    state that acknowledges an action also has ``"ack"`` after ``type`` (:func:`with_ack`,
    on the text)."""

    type: Literal["state"]
    table: TableEntry


ServerMessage = Welcome | Ack | Error | Chat | Pong | State
"""Anything the server sends."""


# ---------------------------------------------------------------------- builders
PONG: Pong = {"type": "pong"}


def welcome(protocol: int, table: str, seat: int | None, version: int, name: str) -> Welcome:
    """The ``welcome`` message."""
    return {"type": "welcome", "protocol": protocol, "table": table, "seat": seat,
            "version": version, "name": name}


def ack(action_id: str, version: int) -> Ack:
    """Protocol 1's acknowledgement frame, sent just before the state."""
    return {"type": "ack", "id": action_id, "version": version}


def duplicate_ack(action_id: str, version: int) -> Ack:
    """The answer to an action sent again whose id was already committed."""
    return {"type": "ack", "id": action_id, "version": version, "duplicate": True}


def error(code: Code, message: str, action_id: str | None = None) -> Error:
    """An ``error`` message."""
    return {"type": "error", "id": action_id, "code": code.value, "message": message}


def chat_message(seat: int | None, name: str, text: str, seq: int | None = None,
                 at: float | None = None, history: bool = False) -> Chat:
    """The ``chat`` message of a line said at Unix time ``at`` (default: now), numbered
    ``seq`` when it is stored; ``history``: sent to a newcomer, said before it came."""
    moment = datetime.now(UTC) if at is None else datetime.fromtimestamp(at, UTC)
    message: Chat = {"type": "chat", "seat": seat, "name": name, "text": text,
                     "at": moment.isoformat(timespec="seconds").replace("+00:00", "Z")}
    if seq is not None:
        message["seq"] = seq
    if history:
        message["history"] = True
    return message


def notice_message(text: str) -> Notice:
    """The ``notice`` message sent to every connection of every table."""
    at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return {"type": "notice", "text": text, "at": at}


def clock_notice(seat: int, name: str, action: str, hand_number: int,
                 log_index: int) -> ClockNotice:
    """The ``notice`` of kind ``clock``: the clock of ``seat`` ran out and the computer played
    ``action`` (public notation: a stock draw names no card) for it; ``log_index`` is that
    move's place in the log of hand ``hand_number`` (1 for the first)."""
    at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    text = f"time ran out: the computer played {action} for {name}"
    return {"type": "notice", "kind": "clock", "text": text, "at": at, "seat": seat,
            "action": action, "hand_number": hand_number, "log_index": log_index}


_STATE_HEAD = '{"type":"state",'
_DELTA_HEAD = '{"type":"delta",'


def with_ack(state_text: str, action_id: str) -> str:
    """A ``state`` (or protocol 3's ``delta``) text that also acknowledges the action
    ``action_id`` (``"ack"``, right after the type)."""
    head = _STATE_HEAD if state_text.startswith(_STATE_HEAD) else _DELTA_HEAD
    assert state_text.startswith(head)
    return f'{head}"ack":{dumps(action_id)},{state_text[len(head):]}'


class TableFacts(SeededTable, Protocol):
    """What a state message and a lobby entry read of a table
    (:class:`ginrummy.server.play.table.GameTable`, which this module sits below)."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def preset(self) -> str: ...
    @property
    def rules(self) -> Ruleset: ...
    @property
    def public(self) -> bool: ...
    @property
    def clock_ms(self) -> int: ...
    @property
    def pool_chips(self) -> int | None: ...
    @property
    def buy_in(self) -> int | None: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def seats(self) -> Sequence[Seat]: ...
    @property
    def status(self) -> TableStatus: ...
    @property
    def resigned(self) -> Sequence[int]: ...
    @property
    def clock_moves(self) -> Sequence[tuple[int, int]]: ...
    @property
    def previous(self) -> dict[str, Any] | None: ...
    @property
    def ratings(self) -> list[dict[str, Any]] | None: ...
    @property
    def clock_deadline(self) -> float | None: ...
    @property
    def clock_seat(self) -> int | None: ...
    @property
    def next_deal_at(self) -> float | None: ...
    @property
    def hand(self) -> Hand | None: ...


# ---------------------------------------------------------------------- state messages
_BROADCASTS = itertools.count(1)
"""Numbers every broadcast and every state sent alone, in the whole process (a reloaded
table's too): a connection that got number ``n`` can take the next broadcast as a delta."""


ALONE_KEPT = 64
"""States sent alone kept as bases between two broadcasts at most (spectators coming and
going at a table where nothing happens)."""


@dataclass(frozen=True, slots=True)
class Broadcast:
    """What one broadcast sent: its number, and what the next one's deltas start from."""

    serial: int
    entry_key: str
    """The table entry's text without its version (a change of it sends the entry)."""
    bodies: dict[int | None, SeatBody]
    """The state fields of each recipient seat (``None``: the spectators); with
    :attr:`parts`, their views are made when first asked (:meth:`body`)."""
    shared: SharedBody
    view_shared: dict[str, Any] | None = None
    """The shared part the recipients' views were made of (:attr:`ViewCache.shared_json`),
    when they have views: the next deltas compare it once for them all."""
    hand: Hand | None = None
    """The hand the views showed."""
    parts: ViewParts | None = None
    """The views as parts, not yet JSON (:meth:`ViewCache.parts`): while the same hand runs
    (no knock yet), the next deltas' view changes are made from what the move changed
    (:func:`move_changes`), and a view is written only for a whole state or a diff."""

    def body(self, seat: int | None) -> SeatBody:
        """The state fields of ``seat``, its view made now when it was left as parts."""
        body = self.bodies[seat]
        parts = self.parts
        if parts is not None and body["view"] is None:
            body["view"] = parts.view(seat)
        return body

    def views_shared(self) -> dict[str, Any] | None:
        """:attr:`view_shared`, made from the parts when need be."""
        parts = self.parts
        return self.view_shared if parts is None else parts.shared_json()


class StateMessages:
    """A table's ``state`` messages and lobby entry, with what they can keep between calls
    (the entry's fixed part and text, the views of :class:`ViewCache`)."""

    def __init__(self, move_deltas: bool = True) -> None:
        self.views = ViewCache()
        self.move_deltas = move_deltas
        """Whether a running hand's view changes are made from the move (the same bytes as
        the generic diff: ``tests/server/test_delta_moves.py``); ``False``: always the diff."""
        self._idle_hints: dict[int, tuple[Hand, int, dict[str, Any]]] = {}
        """By seat not to move: its hand, cards and hints (:meth:`_hints`)."""
        self._fixed: _FixedEntry | None = None
        self._fixed_json = ""
        """The fixed part's JSON text without its closing brace (the entry's text begins
        with it: orjson writes a dict's keys in order, without spaces)."""
        self._seats_json: tuple[Any, str] | None = None
        self.last: Broadcast | None = None
        """The latest broadcast (:meth:`broadcast_texts`): deltas start from it."""
        self.alone: dict[int, Broadcast] = {}
        """The states sent to one connection alone since (:meth:`state_alone`), by number:
        the next broadcast's deltas to those connections start from them."""

    def entry(self, table: TableFacts) -> TableEntry:
        """The public lobby entry."""
        return {**self._fixed_entry(table), "seats": _seat_entries(table),
                "status": table.status, "version": table.version}

    def _fixed_entry(self, table: TableFacts) -> _FixedEntry:
        fixed = self._fixed
        if fixed is None:  # what never changes, computed once
            fixed = self._fixed = {
                "id": table.id,
                "name": table.name,
                "preset": table.preset,
                "rules": table.rules.to_dict(),
                "description": table.rules.describe(),
                "players": table.rules.players,
                "public": table.public,
                "clock_seconds": table.clock_ms / 1000,
                "pool_chips": table.pool_chips,
                "buy_in": table.buy_in,
                "created_at": table.created_at.isoformat().replace("+00:00", "Z"),
            }
            self._fixed_json = dumps(fixed)[:-1]
        return fixed

    def entry_json(self, table: TableFacts) -> str:
        """The lobby entry as JSON text: ``dumps(self.entry(table))``, from the fixed part's
        text (made once) and the seats' (kept while the seats and their connections do not
        change), so that only the status and version are written for each state."""
        if self._fixed is None:
            self._fixed_entry(table)
        key = [(s.kind, s.name, s.level, s.connections > 0, s.left or s.resigned,
                s.account_id is not None) for s in table.seats]
        cached = self._seats_json
        if cached is None or cached[0] != key:
            cached = self._seats_json = (key, dumps(_seat_entries(table)))
        return (f'{self._fixed_json},"seats":{cached[1]},"status":{dumps(table.status)},'
                f'"version":{table.version}}}')

    def state_texts(self, table: TableFacts, seats: Iterable[int | None],
                    now: float) -> dict[int | None, str]:
        """The ``state`` message of each of ``seats`` (``None``: a spectator) as JSON text, at
        Unix time ``now``. What every recipient shares (the table entry, clock, score sheet,
        the public part of the view) is built and serialised once."""
        head = f'{_STATE_HEAD}"table":{self.entry_json(table)},'
        tail = f",{dumps(self.shared_body(table, now))[1:]}"
        texts: dict[int | None, str] = {}
        for seat in seats:
            if seat not in texts:
                texts[seat] = f"{head}{dumps(self.seat_body(table, seat))[1:-1]}{tail}"
        return texts

    def has_base(self, serial: int | None) -> bool:
        """Whether the next broadcast can send a delta to a connection whose last state was
        ``serial``'s (the latest broadcast, or a state sent alone since)."""
        last = self.last
        return serial is not None and (serial in self.alone
                                       or (last is not None and serial == last.serial))

    def broadcast_texts(self, table: TableFacts, full: Iterable[int | None],
                        synced: Iterable[tuple[int | None, int]], now: float
                        ) -> tuple[dict[int | None, str], dict[tuple[int | None, int], str]]:
        """One broadcast at Unix time ``now``: the ``state`` text of each of the ``full`` seats,
        and for each ``(seat, serial)`` of ``synced`` (protocol 3: a connection whose last
        state was broadcast ``serial``, or the state sent alone under that number) a
        ``delta`` from that state (a ``state`` when there is no such base). Becomes
        :attr:`last`; the bases of states sent alone are then forgotten (every connection
        got this broadcast)."""
        entry_text = self.entry_json(table)
        entry_key = entry_text.rpartition(',"version":')[0]
        shared = self.shared_body(table, now)
        full, synced = list(full), list(synced)
        match, hand = table.match, table.hand
        parts = None
        if self.move_deltas and match is not None and hand is not None:
            parts = self.views.parts(match, table.version)  # views written only if needed
        bodies: dict[int | None, SeatBody] = {}
        for seat in (*full, *(seat for seat, _ in synced)):
            if seat not in bodies:
                bodies[seat] = self.seat_body(table, seat, parts)
        now_sent = Broadcast(next(_BROADCASTS), entry_key, bodies, shared,
                             None if parts is not None else self._view_shared(bodies.values()),
                             hand, parts)
        ends: list[str] = []  # the text before and after a seat's fields, made when needed

        def state_text(seat: int | None) -> str:
            if not ends:
                ends.extend((f'{_STATE_HEAD}"table":{entry_text},', f",{dumps(shared)[1:]}"))
            return f"{ends[0]}{dumps(now_sent.body(seat))[1:-1]}{ends[1]}"

        texts = {seat: state_text(seat) for seat in full}
        entry: list[TableEntry] = []  # built once, when some base's entry differs
        shared_moves: dict[int, dict[str, Any]] = {}
        view_moves: dict[int, Segments | None] = {}  # the views' shared changes, by base
        moves: dict[int, tuple[Segments, dict[str, Any]] | None] = {}  # made from the move
        table_moves: dict[int, dict[str, Any]] = {}  # the table entry's changes, by base
        deltas: dict[tuple[int | None, int], str] = {}
        for seat, serial in synced:
            if (seat, serial) in deltas:
                continue
            base = self.alone.get(serial) or self.last
            if base is None or base.serial != serial or seat not in base.bodies:
                deltas[seat, serial] = texts[seat] if seat in texts else state_text(seat)
                continue
            changed = entry_key != base.entry_key
            if changed and not entry:
                entry.append(self.entry(table))
            moved = shared_moves.get(base.serial)
            if moved is None:  # the shared fields are compared once per base, not per seat
                moved = shared_moves[base.serial] = object_changes(dict(base.shared),
                                                                   dict(shared))
            old_entry = loads(f"{base.entry_key}}}") if changed else None
            view_patch = None
            if parts is not None and base.parts is not None and base.hand is hand:
                if base.serial not in moves:
                    moves[base.serial] = move_changes(base.parts.shared, parts.shared)
                made = moves[base.serial]
                if made is not None:
                    view_patch = move_view_changes(base.parts.own[seat], parts.own[seat], *made)
            if view_patch is None:  # diff the views
                before, after = base.body(seat), now_sent.body(seat)
                if base.serial in view_moves:
                    segments = view_moves[base.serial]
                else:  # the views' shared parts are compared once per base, not per seat
                    old_shared, new_shared = base.views_shared(), now_sent.views_shared()
                    segments = view_moves[base.serial] = (
                        None if old_shared is None or new_shared is None
                        else shared_changes(old_shared, new_shared, VIEWER_KEYS))
                old = {"type": "state", "table": None, **before}
                new = {"type": "state", "table": entry[0] if changed else None, **after}
                delta = state_delta(old, new, changed, old_entry, segments)
            else:
                if changed and base.serial not in table_moves:
                    assert old_entry is not None
                    table_moves[base.serial] = table_changes(old_entry, entry[0])
                assert parts is not None
                delta = body_delta(base.bodies[seat], bodies[seat],
                                   table_moves.get(base.serial) if changed else None,
                                   view_patch, parts.own[seat][0])
            delta.update(moved)  # after the seat's fields, as in the state: the same text
            deltas[seat, serial] = dumps(delta)
        self.last = now_sent
        self.alone.clear()
        return texts, deltas

    def state_alone(self, table: TableFacts, seat: int | None, now: float) -> tuple[State, int]:
        """The ``state`` of ``seat`` at Unix time ``now``, to send to one connection alone,
        and the number under which the next broadcast's delta can start from it."""
        body = self.seat_body(table, seat)
        shared = self.shared_body(table, now)
        entry = self.entry(table)
        serial = next(_BROADCASTS)
        entry_key = self.entry_json(table).rpartition(',"version":')[0]
        if len(self.alone) >= ALONE_KEPT:  # no broadcast for long: those get whole states
            self.alone.clear()
        self.alone[serial] = Broadcast(serial, entry_key, {seat: body}, shared,
                                       self._view_shared((body,)), table.hand)
        return {"type": "state", "table": entry, **body, **shared}, serial

    def _view_shared(self, bodies: Iterable[SeatBody]) -> dict[str, Any] | None:
        """The shared part of the views of ``bodies``, just built together (for one version),
        or ``None`` when they have none."""
        if any(body["view"] is not None for body in bodies):
            return self.views.shared_json
        return None

    def state_message(self, table: TableFacts, seat: int | None, now: float) -> State:
        """The ``state`` message for ``seat`` (``None``: a spectator), at Unix time ``now``."""
        return {"type": "state", "table": self.entry(table), **self.seat_body(table, seat),
                **self.shared_body(table, now)}

    def seat_body(self, table: TableFacts, seat: int | None,
                  parts: ViewParts | None = None) -> SeatBody:
        """The fields of a state that depend on its recipient; with ``parts`` (the views of
        this version), its view is left ``None`` and taken as parts (:class:`ViewParts`)."""
        match = table.match
        hand = table.hand
        legal: list[str] = []
        hints: dict[str, Any] | None = None
        player_view: dict[str, Any] | None = None
        if match is not None and hand is not None:
            if parts is None:
                player_view = self.views.view_dict(match, seat, table.version)
            else:
                parts.add(seat)
            if seat is not None:
                hints = self._hints(hand, seat)
                if table.running_hand() is hand and hand.to_move == seat \
                        and table.stuck is None and seat not in table.resigned:
                    legal = [_DISCARD_TEXTS[a.card] if type(a) is Discard
                             else _legal_text(a, hand) if type(a) is Knock else str(a)
                             for a in hand.legal_actions()]
        return {"version": table.version, "seat": seat, "view": player_view, "legal": legal,
                "hints": hints}

    def _hints(self, hand: Hand, seat: int) -> dict[str, Any]:
        """:func:`_hints` of ``seat``; while it is not to move, the same object as long as its
        cards do not change (a delta then skips it without comparing it)."""
        if hand.over or hand.to_move != seat:
            mask = own_cards(hand, seat)
            kept = self._idle_hints.get(seat)
            if kept is not None and kept[0] is hand and kept[1] == mask:
                return kept[2]
            hints = _hints(hand, seat, self.views.best_melds(hand, seat))
            self._idle_hints[seat] = (hand, mask, hints)
            return hints
        return _hints(hand, seat, self.views.best_melds(hand, seat))

    def shared_body(self, table: TableFacts, now: float) -> SharedBody:
        """The fields of a state that are the same for every recipient."""
        match = table.match
        return {
            "clock": clock_info(table, now),
            "clock_moves": [{"hand": hand, "index": index} for hand, index in table.clock_moves],
            "next_hand": _next_hand_info(table, now),
            "sheet": [] if match is None else self.views.sheet(match),
            "result": None if match is None or match.result is None else match.result.to_dict(),
            "rematch": [s.seat for s in table.seats if s.rematch],
            "resigned": list(table.resigned),
            "previous": table.previous,
            "fair": fair_block(table),
            "ratings": table.ratings if match is not None and match.result is not None else None,
        }


def _seat_entries(table: TableFacts) -> list[SeatEntry]:
    return [{"seat": s.seat, "name": s.name, "kind": s.kind, "level": s.level,
             "connected": s.connections > 0, "away": s.human and s.away,
             "account": s.account_id is not None}
            for s in table.seats]


def clock_info(table: TableFacts, now: float) -> Clock | None:
    """The running turn clock, if any."""
    hand = table.running_hand()
    if (table.clock_ms <= 0 or hand is None or table.clock_deadline is None
            or table.clock_seat != hand.to_move):
        return None
    remaining = max(0, round((table.clock_deadline - now) * 1000))
    return {"seat": table.clock_seat, "remaining_ms": remaining, "per_turn_ms": table.clock_ms}


def _next_hand_info(table: TableFacts, now: float) -> NextHand | None:
    match = table.match
    if match is None or not match.needs_deal or not match.hands:
        return None
    remaining = None if table.next_deal_at is None else max(
        0, round((table.next_deal_at - now) * 1000))
    return {"ready": [s.seat for s in table.seats if s.ready or not s.human],
            "remaining_ms": remaining}


_DISCARD_TEXTS = tuple(f"discard {name}" for name in CARD_NAMES)
"""``str(Discard(card))`` of every card, by card (a legal list names up to 11 of them)."""


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
    knocks: list[KnockHint] = []
    hints: dict[str, Any] = {**best, "knocks": knocks, "defence": None}
    if hand.over or hand.to_move != seat:
        return hints
    if hand.phase is Phase.DISCARD:
        forbidden = hand.taken if hand.rules.no_rediscard_of_taken_card else None
        for option in knock_options_mask(own_cards(hand, seat), hand.knock_limit,
                                          hand.rules.big_gin, forbidden):
            knock = Knock(option.discard, option.arrangement.melds)
            knocks.append({"action": action_text(knock, option.gin), "deadwood": option.deadwood,
                           "arrangements": knock_arrangements(option)})
    elif hand.phase is Phase.LAYOFF:
        defence = hand.best_defence(seat)
        hints["defence"] = str(LayOff(defence.melds, defence.layoffs))
        hints.update(layoff_hints(hand, seat, defence))
    return hints
