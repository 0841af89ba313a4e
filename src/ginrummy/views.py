"""What one seat (or a spectator) may know of a hand: the only thing bots and clients receive,
and the only code that decides it.

A view never holds another player's unseen cards or the stock order. It shows the viewer's
own hand, the top discard (the whole pile only if ``discard_history_visible``), the cards each
player took from the discard pile and still holds (everybody saw them taken), counts, the
knock and layoffs once laid down, every hand after a knock (R4.8; none after a void hand) and
the action log with other players' stock draws showing no card.

A view has two parts, each built here alone (every field set by name; their constructors take
keywords only) and each with its JSON form:

* :class:`SharedView` (:func:`shared_view`): what every viewer sees alike, the same for each
  seat and spectator of one state (the server builds it once per table version);
* :class:`OwnView` (:func:`own_view`): what only the viewer sees, its seat, its cards and its
  log (other seats' stock draws without the card).

:class:`PlayerView` (:func:`view`), what bots receive, has the fields of both, set by the
same two builders (one object, as cheap as a single tuple: bots ask for a view at every
decision); its JSON is the shared part's with the viewer's part filled in
(:meth:`OwnView.to_dict`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ginrummy.cards import CARD_NAMES, Card, cards_tuple, format_cards
from ginrummy.engine import DefenceInfo, Event, Hand, KnockInfo, Phase
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.scoring import HandResult

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class SeatView:
    """Public facts about one seat; ``cards`` only when the viewer may see them."""

    seat: int
    count: int
    known: tuple[Card, ...]
    cards: tuple[Card, ...] | None


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class SharedView:
    """What every viewer of one state sees alike (:func:`shared_view`): nobody's hidden cards,
    every seat's cards once they are public (after a knock, R4.8). Never changed once built."""

    rules: Ruleset
    phase: Phase
    to_move: int
    dealer: int
    upcard: Card
    top_discard: Card | None
    discard_pile: tuple[Card, ...] | None
    """The whole pile, oldest first, only if ``discard_history_visible``."""
    stock_size: int
    knock_limit: int
    taken: Card | None
    reshuffles: int
    knock: KnockInfo | None
    defences: tuple[DefenceInfo, ...]
    laid_off: tuple[tuple[Card, ...], ...]
    result: HandResult | None
    scores: tuple[int, ...] | None
    """Match scores (``None`` for a lone hand)."""
    hands_won: tuple[int, ...] | None
    hand_number: int
    counts: tuple[int, ...]
    """Cards held, by seat."""
    known_masks: tuple[int, ...]
    """By seat, the cards taken from the discard pile and still held (everybody saw them)."""
    revealed_masks: tuple[int, ...] | None
    """Every seat's cards once they are public (after a knock), else ``None``."""

    @property
    def gin(self) -> bool:
        """Whether the knock (if any) was a gin: the logs then write it ``gin``."""
        return self.knock is not None and self.knock.gin

    @property
    def seats(self) -> tuple[SeatView, ...]:
        """Each seat as everybody sees it: count, known cards, cards only once revealed."""
        return _public_seats(self)

    def to_dict(self, ruleset: Json | None = None) -> Json:
        """The JSON every viewer shares: a spectator's view without its log. Its keys are in
        the order of the whole view's; ``seat``, ``hand`` and ``log`` are left empty for
        :meth:`OwnView.to_dict` to fill in. ``ruleset``: ``rules.to_dict()``, when the caller
        keeps it (it is the same for a whole match)."""
        knock = None
        if (k := self.knock) is not None:
            knock = {
                "knocker": k.knocker,
                "discard": None if k.discard is None else CARD_NAMES[k.discard],
                "melds": _melds(k.melds),
                "unmatched": _names(k.unmatched),
                "deadwood": k.deadwood,
                "gin": k.gin,
                "big_gin": k.big_gin,
            }
        revealed = self.revealed_masks
        pile = self.discard_pile
        return {
            "seat": None,
            "ruleset": self.rules.to_dict() if ruleset is None else ruleset,
            "phase": self.phase.value,
            "to_move": self.to_move,
            "dealer": self.dealer,
            "hand": [],
            "seats": [
                {"seat": s, "count": count, "known": _names(cards_tuple(self.known_masks[s])),
                 "cards": None if revealed is None else _names(cards_tuple(revealed[s]))}
                for s, count in enumerate(self.counts)],
            "upcard": CARD_NAMES[self.upcard],
            "top_discard": None if self.top_discard is None else CARD_NAMES[self.top_discard],
            "discard_pile": None if pile is None else _names(pile),
            "stock_size": self.stock_size,
            "knock_limit": self.knock_limit,
            "taken": None if self.taken is None else CARD_NAMES[self.taken],
            "reshuffles": self.reshuffles,
            "knock": knock,
            "defences": [
                {"seat": d.seat, "melds": _melds(d.melds),
                 "layoffs": [[CARD_NAMES[c], i] for c, i in d.layoffs],
                 "unmatched": _names(d.unmatched), "deadwood": d.deadwood}
                for d in self.defences],
            "laid_off": [_names(x) for x in self.laid_off],
            "result": None if self.result is None else self.result.to_dict(),
            "log": [],
            "scores": None if self.scores is None else list(self.scores),
            "hands_won": None if self.hands_won is None else list(self.hands_won),
            "hand_number": self.hand_number,
        }


@dataclass(slots=True, kw_only=True, unsafe_hash=True)
class OwnView:
    """What only the viewer sees (:func:`own_view`): ``seat`` (``None``: a spectator), its
    cards and its log. Never changed once built."""

    seat: int | None
    hand_mask: int
    """The viewer's cards (0 for a spectator)."""
    log: tuple[Event, ...]
    """The viewer's log: others' stock draws show no card, reshuffles no order."""

    def log_dicts(self, gin: bool, start: int = 0) -> list[Json]:
        """The JSON of the log entries from ``start`` on (``gin``: :attr:`SharedView.gin`)."""
        return log_json(self.log, gin, start)

    def to_dict(self, shared: SharedView, shared_json: Json | None = None,
                log: list[Json] | None = None) -> Json:
        """The viewer's whole view as JSON: ``shared_json`` (``shared.to_dict()``, built when
        not given; left unchanged) with the seat, its cards and its log filled in. ``log``:
        the JSON of the whole log when the caller already has it (:meth:`log_dicts`)."""
        seat = self.seat
        return own_dict(shared.to_dict() if shared_json is None else shared_json, seat,
                        [] if seat is None else mask_names(self.hand_mask),
                        self.log_dicts(shared.gin) if log is None else log)


def log_json(log: Sequence[Event], gin: bool, start: int = 0) -> list[Json]:
    """The JSON of a viewer's log entries from ``start`` on (``log``: its :attr:`OwnView.log`
    or :func:`own_log`; ``gin``: :attr:`SharedView.gin`)."""
    return [{"seat": e.seat, "action": e.text(gin, with_card=False),
             "card": None if e.card is None else CARD_NAMES[e.card]}
            for e in log[start:]]


VIEWER_KEYS = frozenset({"seat", "hand", "seats", "log"})
"""The keys of a view's JSON that :func:`own_dict` sets for its viewer: every other key holds
the shared part's very value."""


def own_dict(shared_json: Json, seat: int | None, hand: list[str], log: list[Json]) -> Json:
    """The JSON of a viewer's whole view: ``shared_json`` (:meth:`SharedView.to_dict`; left
    unchanged) with the viewer's part filled in: ``seat``, ``hand`` (the names of its own
    cards, :func:`own_cards`; empty for a spectator) and ``log`` (:func:`log_json` of its
    :func:`own_log`). The only place where a view's JSON gets a seat's cards."""
    data = shared_json.copy()
    data["seat"] = seat
    if seat is not None:
        data["hand"] = hand
        seats: list[Json] = data["seats"]
        if seats[seat]["cards"] is None:  # not yet public: the viewer sees its own
            seats = seats.copy()
            seats[seat] = {**seats[seat], "cards": hand}
            data["seats"] = seats
    data["log"] = log
    return data


def _public_seats(v: SharedView | PlayerView) -> tuple[SeatView, ...]:
    revealed = v.revealed_masks
    return tuple(
        SeatView(s, count, cards_tuple(v.known_masks[s]),
                 None if revealed is None else cards_tuple(revealed[s]))
        for s, count in enumerate(v.counts))


def _names(cards: tuple[Card, ...]) -> list[str]:
    return list(map(_NAME_OF, cards))


def mask_names(mask: int) -> list[str]:
    """The names of the cards of ``mask``, in card order (a view's ``hand``)."""
    return list(map(_NAME_OF, cards_tuple(mask)))


_NAME_OF = CARD_NAMES.__getitem__


def _melds(melds: tuple[tuple[Card, ...], ...]) -> list[list[str]]:
    names = CARD_NAMES
    return [[names[c] for c in m] for m in melds]


def shared_view(state: Hand | Match) -> SharedView:
    """What every viewer of a hand, or of a match's current hand, sees alike."""
    v: SharedView = _new(SharedView)
    if isinstance(state, Match):
        _fill_shared(v, state.hand, state)
    else:
        _fill_shared(v, state, None)
    return v


def own_view(hand: Hand, seat: int | None) -> OwnView:
    """What only ``seat`` (``None``: a spectator) sees of ``hand``: its cards and its log."""
    v: OwnView = _new(OwnView)
    _fill_own(v, hand, seat)
    return v


def own_log(hand: Hand, seat: int | None) -> list[Event]:
    """The log ``seat`` (``None``: a spectator) sees of ``hand``, as the hand keeps it (read
    it, do not change it; :class:`OwnView` holds a copy): others' stock draws show no card,
    reshuffles no order."""
    if seat is None:
        return hand.seat_logs[hand.players]
    if 0 <= seat < hand.players:
        return hand.seat_logs[seat]
    raise ValueError(f"seat must be 0..{hand.players - 1} or None for a spectator, got {seat}")


def own_cards(hand: Hand, seat: int) -> int:
    """The cards ``seat`` holds, as a mask: its :class:`OwnView`'s ``hand_mask``, without
    copying its log (the server's hints ask for it at every state)."""
    if not 0 <= seat < hand.players:
        raise ValueError(f"seat must be 0..{hand.players - 1}, got {seat}")
    return hand.hands[seat]


# The two builders. Each sets its part's fields one by one, by name, on a new SharedView or
# OwnView, or on a PlayerView (which has the fields of both): as safe as keywords (a field left
# out raises AttributeError when read, and the tests read them all) and cheap enough for bots,
# which ask for a view at every decision: a whole view costs about what the old 24-field tuple
# did, where a 21-keyword call alone takes 1.2 us and one object per part adds a tenth of a us.

def _fill_shared(v: SharedView | PlayerView, hand: Hand, match: Match | None) -> None:
    revealed = hand.knock is not None  # R4.8: every hand is shown after a knock
    hands = hand.hands
    discards = hand.discards
    v.rules = hand.rules
    v.phase = hand.phase
    v.to_move = hand.to_move
    v.dealer = hand.dealer
    v.upcard = hand.upcard
    v.top_discard = discards[-1] if discards else None  # Hand.top_discard, inline (hot path)
    v.discard_pile = tuple(discards) if hand.rules.discard_history_visible else None
    v.stock_size = len(hand.stock)
    v.knock_limit = hand.knock_limit
    v.taken = hand.taken
    v.reshuffles = hand.reshuffles
    v.knock = hand.knock
    v.defences = tuple(hand.defences) if revealed else ()
    v.laid_off = tuple(map(tuple, hand.laid_off)) if revealed else ()
    v.result = hand.result
    if match is None:
        v.scores = v.hands_won = None
        v.hand_number = 1
    else:
        v.scores = tuple(match.scores)
        v.hands_won = tuple(match.hands_won)
        v.hand_number = len(match.hands)
    v.counts = tuple(map(int.bit_count, hands))
    v.known_masks = tuple(hand.known)
    v.revealed_masks = tuple(hands) if revealed else None


def _fill_own(v: OwnView | PlayerView, hand: Hand, seat: int | None) -> None:
    v.log = tuple(own_log(hand, seat))  # checks the seat
    v.hand_mask = 0 if seat is None else hand.hands[seat]
    v.seat = seat


_new: Any = object.__new__
_SHARED = SharedView.__slots__
_OWN = OwnView.__slots__


class PlayerView:
    """Everything ``seat`` may know (``seat`` is ``None`` for a spectator): the fields of the
    state's :class:`SharedView` and of the viewer's :class:`OwnView`, set by their builders
    (``shared`` and ``own`` give the two parts back, :meth:`of` joins two parts).

    A snapshot: nothing changes it once built; ``hand`` and ``seats`` are materialised when
    read. It holds nothing the seat may not know: its own cards, counts and the public cards of
    the others (all cards once revealed, R4.8), and its own log.
    """

    __slots__ = _OWN + _SHARED
    _fields: ClassVar[tuple[str, ...]] = _OWN + _SHARED
    """Every field of the two parts."""

    seat: int | None
    hand_mask: int
    log: tuple[Event, ...]
    rules: Ruleset
    phase: Phase
    to_move: int
    dealer: int
    upcard: Card
    top_discard: Card | None
    discard_pile: tuple[Card, ...] | None
    stock_size: int
    knock_limit: int
    taken: Card | None
    reshuffles: int
    knock: KnockInfo | None
    defences: tuple[DefenceInfo, ...]
    laid_off: tuple[tuple[Card, ...], ...]
    result: HandResult | None
    scores: tuple[int, ...] | None
    hands_won: tuple[int, ...] | None
    hand_number: int
    counts: tuple[int, ...]
    known_masks: tuple[int, ...]
    revealed_masks: tuple[int, ...] | None

    # No __init__: ``PlayerView()`` is then the fastest way to a new (blank) object.

    @classmethod
    def of(cls, shared: SharedView, own: OwnView) -> PlayerView:
        """The view made of ``shared`` and ``own``."""
        v = cls()
        for name in _SHARED:
            setattr(v, name, getattr(shared, name))
        for name in _OWN:
            setattr(v, name, getattr(own, name))
        return v

    @property
    def shared(self) -> SharedView:
        """The part every viewer of the state shares."""
        return SharedView(**{name: getattr(self, name) for name in _SHARED})

    @property
    def own(self) -> OwnView:
        """The viewer's own part."""
        return OwnView(seat=self.seat, hand_mask=self.hand_mask, log=self.log)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlayerView):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __repr__(self) -> str:
        return (f"<PlayerView seat={self.seat} phase={self.phase} to_move={self.to_move} "
                f"hand={format_cards(self.hand)}>")

    def _replace(self, **changes: Any) -> PlayerView:
        """A copy with some fields changed (what-if questions in tests), as a NamedTuple's."""
        own = {name: changes.pop(name) for name in _OWN if name in changes}
        return PlayerView.of(replace(self.shared, **changes), replace(self.own, **own))

    @property
    def hand(self) -> tuple[Card, ...]:
        """The viewer's own cards, lowest first (empty for a spectator)."""
        return cards_tuple(self.hand_mask)

    @property
    def seats(self) -> tuple[SeatView, ...]:
        """Counts, cards known to be held (taken from the pile) and, when visible, cards."""
        seats = _public_seats(self)
        seat = self.seat
        if seat is None or seats[seat].cards is not None:
            return seats
        mine = seats[seat]  # not yet public: the viewer sees its own
        return (*seats[:seat], SeatView(seat, mine.count, mine.known, self.hand),
                *seats[seat + 1:])

    @property
    def my_turn(self) -> bool:
        """True when the viewer is to move."""
        return self.seat is not None and self.seat == self.to_move

    def to_dict(self) -> Json:
        """Plain JSON values, cards in text form."""
        return self.own.to_dict(self.shared)


def view(state: Hand | Match, seat: int | None) -> PlayerView:
    """The view of ``seat`` (``None``: a spectator) of a hand or of a match's current hand."""
    v = PlayerView()
    if isinstance(state, Match):
        _fill_own(v, state.hand, seat)
        _fill_shared(v, state.hand, state)
    else:
        _fill_own(v, state, seat)
        _fill_shared(v, state, None)
    return v
