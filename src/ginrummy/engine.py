"""The state machine of one hand of Gin Rummy for 2-4 players (docs/rules.md R2-R4).

A :class:`Hand` is created from a ruleset, a dealer and a deck order (explicit, from a seed, or
shuffled by the caller); it then moves only through :meth:`Hand.apply`, which checks every
action and raises an :class:`~ginrummy.errors.IllegalActionError` (leaving the state unchanged)
for one that is not allowed. Reshuffles of the discard pile (R4.7) are chance actions
(:class:`~ginrummy.actions.Reshuffle`) supplied by whoever runs the game, so a hand is a pure
function of its deck and its action list.

Asking never changes a hand: :meth:`Hand.legal_actions`, :meth:`Hand.verify` and
:meth:`Hand.is_legal` keep no cache, so a hand's behaviour depends only on the actions applied
(what they reuse, a defender's best defence, is computed by the action that makes him defend).
A hand dealt by a :class:`~ginrummy.match.Match` carries the match's ``on_over`` callback and
calls it once, when the hand ends, whichever door (``match.apply`` or ``hand.apply``) played
the last action; copies (:meth:`Hand.copy`, ``copy.deepcopy``, pickling the hand alone) are
free-standing and never touch the match.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple, cast

from ginrummy import errors
from ginrummy.actions import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    LayOff,
    Melds,
    Pass,
    Reshuffle,
    action_text,
    discards_of,
    parse_action,
)
from ginrummy.cards import CARD_VALUES, Card, card_name, cards_of, format_cards, suit_of
from ginrummy.rules import LayoffChain, Ruleset, StockEnd, UpcardOffer
from ginrummy.scoring import HandResult, Outcome, score_hand, void_result
from ginrummy.solver import (
    Arrangement,
    Chaining,
    Defence,
    arrangement_from_melds,
    best_defence,
    best_melds,
    check_layoffs,
    knock_options_mask,
)
from ginrummy.solver.openspiel import openspiel_min_deadwood

CHANCE = -1
"""The pseudo-seat that supplies reshuffles."""
NOBODY = -2
"""``to_move`` once the hand is over."""


class Phase(StrEnum):
    """Where a hand stands; each phase has its own legal actions."""

    OFFER = "offer"          # first-turn upcard: take or pass (R3.5)
    DRAW = "draw"            # draw from stock or discard pile
    DISCARD = "discard"      # discard, knock or gin
    LAYOFF = "layoff"        # a defender lays down melds and layoffs (R4.4)
    RESHUFFLE = "reshuffle"  # chance: new stock from the discards (R4.7)
    OVER = "over"


# Enum member lookups cost about 0.2 µs each on Python 3.11; the hot paths compare with these.
_OFFER, _DRAW, _DISCARD, _LAYOFF, _RESHUFFLE, _OVER = (
    Phase.OFFER, Phase.DRAW, Phase.DISCARD, Phase.LAYOFF, Phase.RESHUFFLE, Phase.OVER)
_VOID_AT_TWO = StockEnd.VOID_AT_TWO
_WALL = StockEnd.WALL
TAKE_LIMIT = 50
"""R4.9 (``openspiel_limits``): the 50th draw from the discard pile (first-turn and wall
takes not counted) ends the hand as void, as OpenSpiel's ``kMaxNumDrawUpcardActions``."""


class Event(NamedTuple):
    """One entry of a seat's log; ``card`` is the stock card drawn, shown only to the drawer.

    A reshuffle appears with an empty order: nobody sees the new stock.
    """

    seat: int
    action: Action
    card: Card | None = None

    def text(self, gin: bool = False, with_card: bool = True) -> str:
        """The action in notation, with the drawn card when known."""
        if isinstance(self.action, Reshuffle):
            return "reshuffle"
        drew = f" ({card_name(self.card)})" if with_card and self.card is not None else ""
        return action_text(self.action, gin and isinstance(self.action, Knock)) + drew

    def __str__(self) -> str:
        who = "chance" if self.seat < 0 else f"seat {self.seat}"
        return f"{who}: {self.text()}"


_HIDDEN_RESHUFFLE = Reshuffle(())
_new_event = tuple.__new__  # builds an Event without the generated __new__ (hot path)


@dataclass(frozen=True)
class KnockInfo:
    """What the knocker laid down."""

    knocker: int
    discard: Card | None
    melds: Melds
    unmatched: tuple[Card, ...]
    deadwood: int
    gin: bool
    big_gin: bool


@dataclass(frozen=True)
class DefenceInfo:
    """What one defender laid down: own melds, layoffs (card, knocker meld index), the rest."""

    seat: int
    melds: Melds
    layoffs: tuple[tuple[Card, int], ...]
    unmatched: tuple[Card, ...]
    deadwood: int


_CHAINING = {chain: Chaining(chain.value) for chain in LayoffChain}


def layoff_chaining(rules: Ruleset) -> Chaining:
    """The rules' layoff chain (R4.5) as the solver's own switch (the same values): the one
    place the rules are mapped to the solver."""
    return _CHAINING[rules.layoff_chain]


def deal_order(seed: int | None = None, rng: random.Random | None = None) -> list[Card]:
    """A shuffled deck order: from ``rng`` if given, else from ``seed`` (deterministic), else
    from ``secrets.SystemRandom`` (live play: no guessable seed)."""
    deck = list(range(52))
    if rng is None:
        rng = random.Random(seed) if seed is not None else secrets.SystemRandom()
    rng.shuffle(deck)
    return deck


class Hand:
    """One hand: deal, turns, knock or gin, layoffs, scoring.

    ``on_over``, if given (a :class:`~ginrummy.match.Match` gives its settlement), is called
    with the hand once, when its last action has been applied.
    """

    def __init__(self, rules: Ruleset, dealer: int, deck: Sequence[Card],
                 on_over: Callable[[Hand], None] | None = None) -> None:
        n = rules.players
        if not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {dealer}")
        if sorted(deck) != list(range(52)):
            raise ValueError("deck must hold each of the 52 cards exactly once")
        self.rules = rules
        self.players = n
        self.dealer = dealer
        self.deck: tuple[Card, ...] = tuple(deck)
        size = rules.cards_per_hand
        hands = [0] * n
        for i in range(n * size):  # R2.3: one at a time from the dealer's left
            hands[(dealer + 1 + i) % n] |= 1 << deck[i]
        self.hands: list[int] = hands
        self.upcard: Card = deck[n * size]
        # the knock limit in force: oklahoma_knock_limit uses the first upcard (R5.4)
        self.knock_limit = rules.knock_limit
        if rules.oklahoma_knock_limit:
            value = CARD_VALUES[self.upcard]
            self.knock_limit = min(rules.knock_limit, 0 if value == 1 else value)
        self.discards: list[Card] = [self.upcard]
        self.stock: list[Card] = list(reversed(deck[n * size + 1:]))  # top is stock[-1]
        self.log: list[tuple[int, Action]] = []
        # per-seat logs (R3.4), and the spectators' log as the last entry
        self.seat_logs: list[list[Event]] = [[] for _ in range(n + 1)]
        self.discard_history: list[Card] = [self.upcard]  # every card put face up, in order
        self.known: list[int] = [0] * n  # cards taken from the discard pile, still held
        self.taken: Card | None = None  # card just taken from the pile this turn
        self.reshuffles = 0
        self._after_reshuffle = 0  # who draws first from a reshuffled stock
        # called once with this hand when it ends (a match settles its score); not copied
        self._on_over = on_over
        # LAYOFF phase: the best defence of the seat to move, computed by the action that
        # made him defend (a function of the log, like every other field): legal_actions
        # proposes it and verify accepts it as it is, without checking it again
        self._defence_due: Defence | None = None
        self.passes = 0
        self.stock_only = False
        # R4.7 stock_end "wall": the last discard may be taken only to knock (or passed)
        self.wall = False
        # R4.9 openspiel_limits: draws from the pile so far, and whether the last discard put
        # back the card its player had just taken
        self.takes = 0
        self.rediscarded = False
        self.knock: KnockInfo | None = None
        self.defences: list[DefenceInfo] = []
        self.laid_off: list[list[Card]] = []
        self.result: HandResult | None = None
        first = (dealer + 1) % n
        if rules.upcard_offer is UpcardOffer.NONE:
            self.phase, self.to_move = _DRAW, first
        elif rules.upcard_offer is UpcardOffer.NON_DEALER_FIRST:
            self.phase, self.to_move = _OFFER, first
        else:
            self.phase, self.to_move = _OFFER, dealer

    # ----------------------------------------------------------------- construction helpers
    @classmethod
    def deal(cls, rules: Ruleset, dealer: int = 0, seed: int | None = None,
             rng: random.Random | None = None) -> Hand:
        """A hand dealt from a seeded (or given) random generator."""
        return cls(rules, dealer, deal_order(seed, rng))

    def copy(self) -> Hand:
        """An independent copy (replays its log on the same deck); it has no ``on_over``
        callback, so playing it on never touches a match."""
        clone = Hand(self.rules, self.dealer, self.deck)
        for seat, action in self.log:
            clone._apply(seat, action)
        return clone

    def clone(self) -> Hand:
        """An independent copy made field by field (a few times faster than :meth:`copy`, for
        searches that copy a state at every node); like :meth:`copy` it has no ``on_over``
        callback. Equal to :meth:`copy` in every field (``tests/test_engine_clone.py``)."""
        other = Hand.__new__(Hand)
        fields = self.__dict__.copy()
        fields["_on_over"] = None
        fields["hands"] = self.hands[:]
        fields["discards"] = self.discards[:]
        fields["stock"] = self.stock[:]
        fields["log"] = self.log[:]
        fields["seat_logs"] = [log[:] for log in self.seat_logs]
        fields["discard_history"] = self.discard_history[:]
        fields["known"] = self.known[:]
        fields["defences"] = self.defences[:]
        fields["laid_off"] = [cards[:] for cards in self.laid_off]
        other.__dict__ = fields
        return other

    def __getstate__(self) -> dict[str, Any]:
        """Pickling and ``copy.deepcopy`` leave out the ``on_over`` callback: a copy of a
        match's hand is free-standing (a pickled match links its hands again)."""
        state = self.__dict__.copy()
        state["_on_over"] = None
        return state

    # ----------------------------------------------------------------- derived facts
    @property
    def over(self) -> bool:
        """True once the hand has a result."""
        return self.phase is _OVER

    @property
    def top_discard(self) -> Card | None:
        """The card that may be taken, if any."""
        return self.discards[-1] if self.discards else None

    def hand_of(self, seat: int) -> list[Card]:
        """A seat's cards, lowest first."""
        return cards_of(self.hands[seat])

    def snapshot(self) -> tuple[object, ...]:
        """Every piece of state as a hashable tuple (for equality checks in tests)."""
        return (
            self.phase, self.to_move, tuple(self.hands), tuple(self.stock),
            tuple(self.discards), tuple(self.discard_history), tuple(self.known), self.taken,
            self.reshuffles, self.wall, self.takes, self.rediscarded,
            self.passes, self.stock_only, self.knock, tuple(self.defences),
            tuple(tuple(x) for x in self.laid_off), self.result, len(self.log),
        )

    # ----------------------------------------------------------------- legal actions
    def legal_actions(self) -> list[Action]:
        """The actions open to the player (or chance) to move; knocks with the best melds.

        A knock with any other valid arrangement of the same discard is also legal
        (:meth:`is_legal`); for layoffs the proposal is the best defence only.
        """
        phase = self.phase
        if self.wall:
            return self._wall_actions()
        if phase is _DRAW:
            if self.stock_only or not self.discards:
                return [DRAW_STOCK]
            return [DRAW_STOCK, DRAW_DISCARD]
        if phase is _DISCARD:
            hand = self.hands[self.to_move]
            forbidden = self.taken if self.rules.no_rediscard_of_taken_card else None
            out = discards_of(hand if forbidden is None else hand & ~(1 << forbidden))
            if self._knock_offered(hand):
                for option in knock_options_mask(hand, self.knock_limit, self.rules.big_gin,
                                                 forbidden):
                    out.append(Knock(option.discard, option.arrangement.melds))
            return out
        if phase is _OFFER:
            return [DRAW_DISCARD, PASS]
        if phase is _LAYOFF:
            best = self._defence_due
            assert best is not None
            return [LayOff(best.melds, best.layoffs)]
        return []

    def _knock_offered(self, hand: int) -> bool:
        """R4.9: with ``openspiel_limits`` a knock is open only when OpenSpiel's estimate of
        the least deadwood (:func:`openspiel_min_deadwood`) is within the knock limit."""
        return not self.rules.openspiel_limits or openspiel_min_deadwood(
            hand, self.rules.cards_per_hand) <= self.knock_limit

    def _wall_knocks(self, hand: int) -> list[Action]:
        forbidden = self.taken if self.rules.no_rediscard_of_taken_card else None
        if not self._knock_offered(hand):
            return []
        return [Knock(o.discard, o.arrangement.melds)
                for o in knock_options_mask(hand, self.knock_limit, self.rules.big_gin,
                                            forbidden)]

    def _wall_actions(self) -> list[Action]:
        """R4.7 ``wall``: pass (the hand is void) or take the last discard to knock at once;
        once taken, only knocks."""
        hand = self.hands[self.to_move]
        if self.phase is _DISCARD:
            return self._wall_knocks(hand)
        top = self.discards[-1]
        taking = hand | 1 << top
        forbidden = top if self.rules.no_rediscard_of_taken_card else None
        can = self._knock_offered(taking) and bool(knock_options_mask(
            taking, self.knock_limit, self.rules.big_gin, forbidden))
        return [PASS, DRAW_DISCARD] if can else [PASS]

    def discard_choices(self) -> list[Card]:
        """The cards that may be discarded now (DISCARD phase)."""
        if self.phase is not _DISCARD:
            return []
        forbidden = self.taken if self.rules.no_rediscard_of_taken_card else None
        return [c for c in cards_of(self.hands[self.to_move]) if c != forbidden]

    def best_defence(self, seat: int) -> Defence:
        """The layoffs and melds that leave ``seat`` the least deadwood now (R4.4)."""
        if self.knock is None:
            raise errors.WrongPhaseError("nobody has knocked")
        return best_defence(self.hands[seat], self.knock.melds,
                            layoff_chaining(self.rules), self.laid_off)

    def is_legal(self, action: Action, seat: int | None = None) -> bool:
        """Whether ``apply`` would accept the action."""
        try:
            self._verify(action, seat)
        except errors.IllegalActionError:
            return False
        return True

    # ----------------------------------------------------------------- applying actions
    def apply(self, action: Action | str, seat: int | None = None) -> None:
        """Check and play an action (or its text) for ``seat`` (default: whoever is to move).

        Raises an :class:`~ginrummy.errors.IllegalActionError` subclass and changes nothing
        if the action is not legal now.
        """
        if isinstance(action, str):
            try:
                action = parse_action(action)
            except ValueError as exc:
                raise errors.IllegalActionError(str(exc)) from None
        self._apply(self.to_move, action, self._verify(action, seat))

    def apply_legal(self, action: Action) -> None:
        """Play, for the player to move, an action known to be legal now (one of
        :meth:`legal_actions`, or a knock :meth:`is_legal` accepts) without checking it again:
        the fast path of callers that chose it from the legal moves (the environments check an
        id against the legal ids first). Anything else leaves the hand corrupt."""
        self._apply(self.to_move, action,
                    self._defence_due if type(action) is LayOff else None)

    def verify(self, action: Action, seat: int | None = None) -> None:
        """Raise the specific error for an action that may not be played now (and change
        nothing either way)."""
        self._verify(action, seat)

    def _verify(self, action: Action, seat: int | None) -> Arrangement | Defence | None:
        """:meth:`verify`, returning what checking a knock or a layoff computed (for
        :meth:`_apply`, which then need not compute it again)."""
        if self.phase is _OVER:
            raise errors.HandOverError("the hand is over")
        if seat is not None and seat != self.to_move:
            who = "chance" if self.to_move == CHANCE else f"seat {self.to_move}"
            raise errors.NotYourTurnError(f"seat {seat} acted but {who} is to move")
        phase = self.phase
        kind = type(action)
        if self.wall:
            if kind is Pass or kind is DrawDiscard:
                if action not in self._wall_actions():
                    raise errors.KnockLimitError(
                        "at the wall (R4.7) the last discard may be taken only to knock, and "
                        "no knock is open with it")
                return None
            if kind is not Knock:
                raise errors.WrongPhaseError(
                    f"{_ACTION_NAMES.get(kind, kind.__name__)} is not allowed at the wall "
                    "(R4.7): pass, or take the last discard and knock")
        allowed = _PHASE_ACTIONS[phase]
        if kind not in allowed:
            names = ", ".join(_ACTION_NAMES[k] for k in allowed)
            raise errors.WrongPhaseError(
                f"{_ACTION_NAMES.get(kind, kind.__name__)} is not allowed in the {phase} phase;"
                f" expected {names}"
            )
        if kind is Discard:
            self._check_discard(cast(Discard, action).card)
        elif kind is DrawDiscard:
            if phase is _DRAW and self.stock_only:
                raise errors.WrongPhaseError(
                    "everybody passed the upcard: the first player draws from the stock (R3.5)")
            if not self.discards:
                raise errors.IllegalActionError("the discard pile is empty")
        elif isinstance(action, Knock):
            return self._check_knock(action)
        elif isinstance(action, LayOff):
            best = self._defence_due
            if best is not None and action.melds == best.melds and action.layoffs == best.layoffs:
                return best  # the proposal of legal_actions, or the same melds and layoffs
            return self._check_layoff(action)
        elif isinstance(action, Reshuffle):
            expected = sorted(self.discards[:-1])
            if sorted(action.order) != expected or len(action.order) != len(expected):
                raise errors.InvalidChanceError(
                    "a reshuffle must order exactly the discards below the top card")
        return None

    def _check_discard(self, card: Card) -> None:
        if not 0 <= card < 52 or not self.hands[self.to_move] >> card & 1:
            raise errors.CardNotHeldError(f"{_name(card)} is not in seat {self.to_move}'s hand")
        if card == self.taken and self.rules.no_rediscard_of_taken_card:
            raise errors.RediscardError(
                f"{card_name(card)} was just taken from the discard pile and may not be "
                "discarded this turn (R3.3)")

    def _check_knock(self, action: Knock) -> Arrangement:
        hand = self.hands[self.to_move]
        if action.discard is None:
            if not self.rules.big_gin:
                raise errors.IllegalActionError("big gin is off: a knock needs a discard")
            rest = hand
        else:
            self._check_discard(action.discard)
            rest = hand & ~(1 << action.discard)
        try:
            arrangement = arrangement_from_melds(rest, action.melds)
        except ValueError as exc:
            raise errors.InvalidArrangementError(str(exc)) from None
        if action.discard is None and arrangement.deadwood:
            raise errors.KnockLimitError("big gin needs every card in a meld")
        if not self._knock_offered(hand):
            estimate = openspiel_min_deadwood(hand, self.rules.cards_per_hand)
            raise errors.KnockLimitError(
                f"OpenSpiel's estimate of the deadwood, {estimate}, is above the knock limit "
                f"{self.knock_limit} (R4.9)")
        if action.gin and arrangement.deadwood:
            raise errors.KnockLimitError(
                f"gin needs every card in a meld; these melds leave deadwood "
                f"{arrangement.deadwood} (R4.2)")
        limit = self.knock_limit
        if arrangement.deadwood > limit:
            raise errors.KnockLimitError(
                f"deadwood {arrangement.deadwood} is above the knock limit {limit} (R4.1)")
        return arrangement

    def _check_layoff(self, action: LayOff) -> Defence:
        assert self.knock is not None
        seat = self.to_move
        hand = self.hands[seat]
        if self.knock.gin and action.layoffs:
            raise errors.InvalidLayoffError("nobody may lay off on a gin (R4.2)")
        layoff_mask = 0
        for card, _ in action.layoffs:
            if not 0 <= card < 52 or not hand >> card & 1:
                raise errors.CardNotHeldError(f"{_name(card)} is not in seat {seat}'s hand")
            if layoff_mask >> card & 1:
                raise errors.InvalidLayoffError(f"{card_name(card)} is laid off twice")
            layoff_mask |= 1 << card
        try:
            arrangement = arrangement_from_melds(hand & ~layoff_mask, action.melds)
        except ValueError as exc:
            raise errors.InvalidArrangementError(str(exc)) from None
        try:
            problem = check_layoffs(self.knock.melds, action.layoffs,
                                    layoff_chaining(self.rules), self.laid_off)
        except ValueError as exc:
            problem = str(exc)
        if problem:
            raise errors.InvalidLayoffError(problem)
        return Defence(arrangement.melds, tuple(action.layoffs), arrangement.unmatched,
                       arrangement.deadwood)

    def _apply(self, seat: int, action: Action,
               checked: Arrangement | Defence | None = None) -> None:
        """Play an already verified action (the fast path used by replays and simulations);
        ``checked`` is what :meth:`_verify` computed for it, if anything."""
        self.log.append((seat, action))
        kind = type(action)
        # the logs first: ending the hand (below) may call on_over, which sees them complete
        public = _new_event(Event, (seat, _HIDDEN_RESHUFFLE if kind is Reshuffle else action,
                                    None))
        for seat_log in self.seat_logs:
            seat_log.append(public)
        n = self.players
        if kind is DrawStock:
            drawn = self.stock.pop()
            self.seat_logs[seat][-1] = _new_event(Event, (seat, action, drawn))
            self.hands[seat] |= 1 << drawn
            self.taken = None
            self.phase = _DISCARD
        elif kind is DrawDiscard:
            if self.rules.openspiel_limits and self.phase is _DRAW and not self.wall:
                self.takes += 1
                if self.takes >= TAKE_LIMIT:  # R4.9: the card stays where it is
                    self._finish(void_result(n))
                    return
            card = self.discards.pop()
            self.hands[seat] |= 1 << card
            self.known[seat] |= 1 << card
            self.taken = card
            self.phase = _DISCARD
        elif kind is Discard:
            card = action.card  # type: ignore[union-attr]  # kind is Discard (no cast call)
            repeated = False
            if self.rules.openspiel_limits:  # R4.9: two rediscards in a row void the hand
                again = card == self.taken
                repeated = again and self.rediscarded
                self.rediscarded = again
            self._discard(seat, card)
            if repeated:
                self._finish(void_result(n))
                return
            self._end_turn(seat)
        elif kind is Pass:
            if self.wall:  # R4.7: nobody takes the last discard
                self._finish(void_result(n))
                return
            self.passes += 1
            if self.rules.offer_closed(self.passes):
                self.phase = _DRAW
                self.to_move = (self.dealer + 1) % n
                self.stock_only = True
            else:
                self.to_move = (seat + 1) % n
        elif isinstance(action, Knock):
            self._knock(seat, action, checked)
        elif isinstance(action, LayOff):
            self._lay_off(seat, action, checked)
        elif isinstance(action, Reshuffle):
            top = self.discards[-1]
            self.stock = list(reversed(action.order))
            self.discards = [top]
            self.reshuffles += 1
            self.phase = _DRAW
            self.to_move = self._after_reshuffle

    def _discard(self, seat: int, card: Card) -> None:
        self.hands[seat] &= ~(1 << card)
        self.known[seat] &= ~(1 << card)
        self.discards.append(card)
        self.discard_history.append(card)
        self.taken = None

    def _end_turn(self, seat: int) -> None:
        self.stock_only = False
        left = len(self.stock)
        if left <= 2:  # R4.7
            rules = self.rules
            if rules.stock_end is _VOID_AT_TWO:
                self._finish(void_result(self.players))
                return
            if rules.stock_end is _WALL:
                self.wall = True
                self.phase = _DRAW
                self.to_move = (seat + 1) % self.players
                return
            if not left:
                if self.reshuffles < rules.max_reshuffles and len(self.discards) > 1:
                    self.phase = _RESHUFFLE
                    self.to_move = CHANCE
                    self._after_reshuffle = (seat + 1) % self.players
                    return
                self._finish(void_result(self.players))
                return
        self.phase = _DRAW
        self.to_move = (seat + 1) % self.players

    def _knock(self, seat: int, action: Knock, checked: Arrangement | Defence | None) -> None:
        hand = self.hands[seat]
        rest = hand if action.discard is None else hand & ~(1 << action.discard)
        arrangement = checked
        if not isinstance(arrangement, Arrangement):
            arrangement = arrangement_from_melds(rest, action.melds)
        if action.discard is not None:
            self._discard(seat, action.discard)
        self.taken = None
        self.wall = False
        gin = arrangement.deadwood == 0
        # keep the melds in the order he laid them: layoffs number them so (CARD@N)
        by_cards = {frozenset(m): m for m in arrangement.melds}
        melds = tuple(by_cards[frozenset(m)] for m in action.melds)
        self.knock = KnockInfo(seat, action.discard, melds, arrangement.unmatched,
                               arrangement.deadwood, gin, action.discard is None)
        self.laid_off = [[] for _ in melds]
        if gin and self.rules.melds_after_gin:  # R4.2: defenders lay their own melds
            self.phase = _LAYOFF
            self.to_move = (seat + 1) % self.players
            self._defence_due = self._due(self.to_move)
        elif gin:
            for i in range(1, self.players):
                defender = (seat + i) % self.players
                best = best_melds(self.hands[defender])
                self.defences.append(DefenceInfo(defender, best.melds, (), best.unmatched,
                                                 best.deadwood))
            self._score()
        else:
            self.phase = _LAYOFF
            self.to_move = (seat + 1) % self.players
            self._defence_due = self._due(self.to_move)

    def _due(self, seat: int) -> Defence:
        """The defence proposed to ``seat``: after a gin his best melds alone (R4.2)."""
        assert self.knock is not None
        if self.knock.gin:
            best = best_melds(self.hands[seat])
            return Defence(best.melds, (), best.unmatched, best.deadwood)
        return self.best_defence(seat)

    def _lay_off(self, seat: int, action: LayOff, checked: Arrangement | Defence | None) -> None:
        defence = checked
        if not isinstance(defence, Defence):
            defence = self._check_layoff(action)
        for card, index in defence.layoffs:
            self.laid_off[index].append(card)
        self.defences.append(DefenceInfo(seat, defence.melds, defence.layoffs,
                                         defence.unmatched, defence.deadwood))
        assert self.knock is not None
        following = (seat + 1) % self.players
        if following == self.knock.knocker:
            self._defence_due = None
            self._score()
        else:
            self.to_move = following
            self._defence_due = self._due(following)

    def _score(self) -> None:
        knock = self.knock
        assert knock is not None
        deadwood = [0] * self.players
        deadwood[knock.knocker] = knock.deadwood
        for defence in self.defences:
            deadwood[defence.seat] = defence.deadwood
        self._finish(score_hand(self.rules, knock.knocker, deadwood, knock.gin, knock.big_gin,
                                suit_of(self.upcard) == 0))

    def _finish(self, result: HandResult) -> None:
        self.result = result
        self.phase = _OVER
        self.to_move = NOBODY
        on_over = self._on_over
        if on_over is not None:
            # called once (an ended hand never ends again), then dropped: that breaks the
            # reference cycle match -> hand -> match._settle, so that a finished match and its
            # logs are freed as soon as they are dropped rather than by the garbage collector
            # (which a process stepping millions of hands paid for about 8% of its time)
            self._on_over = None
            on_over(self)

    # ----------------------------------------------------------------- chance
    def reshuffle_order(self, rng: random.Random) -> Reshuffle:
        """A chance action: the discards below the top card, shuffled by ``rng``."""
        if self.phase is not _RESHUFFLE:
            raise errors.WrongPhaseError("no reshuffle is due")
        order = list(self.discards[:-1])
        rng.shuffle(order)
        return Reshuffle(tuple(order))

    # ----------------------------------------------------------------- text
    def action_log_text(self) -> list[str]:
        """The log in notation (gin knocks written as ``gin``)."""
        gin = self.knock is not None and self.knock.gin
        return [action_text(a, gin) for _, a in self.log]

    def __repr__(self) -> str:
        hands = " | ".join(format_cards(self.hand_of(s)) for s in range(self.players))
        return (f"<Hand dealer={self.dealer} phase={self.phase} to_move={self.to_move} "
                f"stock={len(self.stock)} top={_name(self.top_discard)} hands=[{hands}]>")


def _name(card: Card | None) -> str:
    if card is None:
        return "-"
    return card_name(card) if isinstance(card, int) and 0 <= card < 52 else repr(card)


_PHASE_ACTIONS: dict[Phase, tuple[type, ...]] = {
    _OFFER: (DrawDiscard, Pass),
    _DRAW: (DrawStock, DrawDiscard),
    _DISCARD: (Discard, Knock),
    _LAYOFF: (LayOff,),
    _RESHUFFLE: (Reshuffle,),
    _OVER: (),
}
_ACTION_NAMES: dict[type, str] = {
    Pass: "pass", DrawStock: "stock", DrawDiscard: "take", Discard: "discard",
    Knock: "knock", LayOff: "layoff", Reshuffle: "reshuffle",
}

__all__ = [
    "CHANCE",
    "NOBODY",
    "DefenceInfo",
    "Event",
    "Hand",
    "KnockInfo",
    "LayoffChain",
    "Outcome",
    "Phase",
    "deal_order",
]
