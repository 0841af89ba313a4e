"""The engine's Gin Rummy in OpenSpiel's shape: :class:`OpenSpielState` plays a hand of
:data:`OPENSPIEL_RULES` (docs/rules.md R7.3) through OpenSpiel's ``gin_rummy`` action ids
(0-240) and its chance nodes, so that the two agree node for node: the same legal ids, the
same transitions, the same returns (``tests/env/test_env_openspiel.py`` plays them in
lock-step).

The rules are the engine's; this module only cuts its composite decisions into OpenSpiel's
steps. A knock is ``55``, the discard, each meld (at most five cards), then ``54``; at the wall
(R4.7) ``55`` also takes the last discard. A defender lays off card by card, ``54``, then lays
his melds one by one, ``54`` (after a gin, R4.2, only the melds). Only when the last ``54`` is
played does the engine see the whole :class:`~ginrummy.actions.Knock` or
:class:`~ginrummy.actions.LayOff`; the legal ids of the steps before it are those that can
still end in a legal one. Chance deals player 0's ten cards, player 1's, the upcard, then
each card drawn from the stock; the engine's stock is arranged so that the card chance picks
is the one drawn (its deck order kept in step, so that :meth:`Hand.copy` replays it).

Pure Python, no OpenSpiel needed; :mod:`ginrummy.env.pyspiel_game` registers it with
``pyspiel`` so that OpenSpiel's own algorithms run on it.
"""

from __future__ import annotations

from itertools import product

from ginrummy.actions import DISCARDS, DRAW_DISCARD, DRAW_STOCK, PASS, Knock, LayOff
from ginrummy.cards import CARD_VALUES
from ginrummy.engine import Hand, Phase
from ginrummy.env.openspiel_codec import (
    OPENSPIEL_MELDS,
    OS_DRAW_STOCK,
    OS_DRAW_UPCARD,
    OS_KNOCK,
    OS_MELD_BASE,
    OS_NUM_ACTIONS,
    OS_PASS,
    os_card,
    our_card,
)
from ginrummy.rules import OPENSPIEL_OPTIONS, Ruleset
from ginrummy.solver import check_layoffs, deadwood_mask, layoff_targets

OPENSPIEL_RULES = Ruleset.preset("eaai", **OPENSPIEL_OPTIONS)
"""``eaai`` with the options of R7.3: OpenSpiel's ``gin_rummy`` with its default parameters."""

CHANCE_PLAYER = -1
TERMINAL_PLAYER = -4
"""OpenSpiel's ids of the chance player and of nobody (``pyspiel.PlayerId``)."""

_MELD_MASKS: tuple[tuple[int, int], ...] = tuple(
    (sum(1 << c for c in meld), OS_MELD_BASE + i) for i, meld in enumerate(OPENSPIEL_MELDS))
_DEALT = 21  # ten cards to each player, then the upcard


def _value(mask: int) -> int:
    total = 0
    while mask:
        low = mask & -mask
        total += CARD_VALUES[low.bit_length() - 1]
        mask ^= low
    return total


def _meld_ids(mask: int) -> list[int]:
    """OpenSpiel's ids of every meld (at most five cards) within ``mask``."""
    return [os_id for meld, os_id in _MELD_MASKS if meld & mask == meld]


class OpenSpielState:
    """One hand in OpenSpiel's action ids: ``legal_actions``, ``apply_action``, chance
    outcomes, ``returns``; player 0 is the engine's seat 0 (the dealer is seat 1)."""

    def __init__(self, rules: Ruleset = OPENSPIEL_RULES) -> None:
        if rules.players != 2:
            raise ValueError("OpenSpiel's gin_rummy is a two-player game")
        self.rules = rules
        self.dealt: list[int] = []  # our cards, in chance order, until the hand is dealt
        self.hand: Hand | None = None
        self.drawn: list[int] = []  # cards drawn from the stock, in order
        self.drawing = False  # a stock draw chose: chance picks the card
        self.knocking = False  # 55 played: the knock's discard and melds are being chosen
        self.knock_discard: int | None = None
        self.melds: list[int] = []  # OpenSpiel meld ids laid in the current declaration
        self.layoffs: list[int] = []  # our cards laid off by the defender so far
        self.layoffs_done = False
        self.history: list[int] = []

    # ------------------------------------------------------------------ queries
    def is_chance_node(self) -> bool:
        """Chance deals the cards and picks each card drawn from the stock."""
        return self.hand is None or self.drawing

    def is_terminal(self) -> bool:
        """The hand is over (a score, or void)."""
        return self.hand is not None and self.hand.over

    def current_player(self) -> int:
        """0 or 1, :data:`CHANCE_PLAYER` or :data:`TERMINAL_PLAYER`."""
        if self.is_chance_node():
            return CHANCE_PLAYER
        assert self.hand is not None
        return TERMINAL_PLAYER if self.hand.over else self.hand.to_move

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Each card still in the deck (OpenSpiel's ids, ascending) with equal probability."""
        if self.hand is None:
            left = [c for c in range(52) if c not in set(self.dealt)]
        elif self.drawing:
            left = list(self.hand.stock)
        else:
            return []
        ids = sorted(os_card(c) for c in left)
        return [(i, 1.0 / len(ids)) for i in ids]

    def legal_actions(self) -> list[int]:
        """OpenSpiel's legal ids now, ascending."""
        if self.is_chance_node():
            return [i for i, _ in self.chance_outcomes()]
        hand = self.hand
        assert hand is not None
        if hand.over:
            return []
        if hand.phase is Phase.LAYOFF:
            return self._defence_ids(hand)
        if self.knocking:
            return self._knock_ids(hand)
        phase = hand.phase
        if phase is Phase.OFFER:
            return [OS_DRAW_UPCARD, OS_PASS]
        if hand.wall:
            legal = hand.legal_actions()
            return [OS_PASS, OS_KNOCK] if DRAW_DISCARD in legal else [OS_PASS]
        if phase is Phase.DRAW:
            return [OS_DRAW_STOCK] if hand.stock_only else [OS_DRAW_UPCARD, OS_DRAW_STOCK]
        ids = [os_card(c) for c in hand.hand_of(hand.to_move)]
        if any(isinstance(a, Knock) for a in hand.legal_actions()):
            ids.append(OS_KNOCK)
        return sorted(ids)

    def _knock_ids(self, hand: Hand) -> list[int]:
        if self.knock_discard is None:
            return sorted(os_card(a.discard) for a in hand.legal_actions()
                          if isinstance(a, Knock) and a.discard is not None)
        rest = self._knocker_rest(hand)
        limit = hand.knock_limit
        ids = [i for i in _meld_ids(rest)
               if deadwood_mask(rest & ~_MELD_MASKS[i - OS_MELD_BASE][0]) <= limit]
        if _value(rest) <= limit:
            ids.append(OS_PASS)
        return sorted(ids)

    def _knocker_rest(self, hand: Hand) -> int:
        """The knocker's cards not yet discarded or laid in a meld."""
        rest = hand.hands[hand.to_move]
        if self.knock_discard is not None:
            rest &= ~(1 << self.knock_discard)
        for os_id in self.melds:
            rest &= ~_MELD_MASKS[os_id - OS_MELD_BASE][0]
        return rest

    def _defender_rest(self, hand: Hand) -> int:
        rest = hand.hands[hand.to_move]
        for card in self.layoffs:
            rest &= ~(1 << card)
        for os_id in self.melds:
            rest &= ~_MELD_MASKS[os_id - OS_MELD_BASE][0]
        return rest

    def _defence_ids(self, hand: Hand) -> list[int]:
        assert hand.knock is not None
        rest = self._defender_rest(hand)
        if self._no_layoffs(hand):
            return sorted([OS_PASS, *_meld_ids(rest)])
        reach = 0
        for target in layoff_targets(hand.knock.melds, hand.laid_off, hand.rules.layoff_chain):
            reach |= target.mask
        ids = [OS_PASS]
        candidates = rest & reach
        while candidates:
            low = candidates & -candidates
            candidates ^= low
            card = low.bit_length() - 1
            if self._assign([*self.layoffs, card], hand) is not None:
                ids.append(os_card(card))
        return sorted(ids)

    def _no_layoffs(self, hand: Hand) -> bool:
        assert hand.knock is not None
        return self.layoffs_done or hand.knock.gin

    @staticmethod
    def _assign(cards: list[int], hand: Hand) -> tuple[tuple[int, int], ...] | None:
        """(card, knocker meld) pairs placing ``cards`` legally, or ``None``."""
        assert hand.knock is not None
        melds = hand.knock.melds
        choices = []
        for card in cards:
            fits = [i for i, meld in enumerate(melds)
                    if any(c % 13 == card % 13 or c // 13 == card // 13 for c in meld)]
            if not fits:
                return None
            choices.append(fits)
        for combo in product(*choices):
            pairs = tuple(zip(cards, combo, strict=True))
            if check_layoffs(melds, pairs, hand.rules.layoff_chain, hand.laid_off) is None:
                return pairs
        return None

    def returns(self) -> list[float]:
        """Each player's score of the hand (zero-sum); zeros until it ends, or when void."""
        if not self.is_terminal():
            return [0.0, 0.0]
        assert self.hand is not None and self.hand.result is not None
        points = self.hand.result.points
        return [float(points[0] - points[1]), float(points[1] - points[0])]

    # ------------------------------------------------------------------ moves
    def apply_action(self, action: int) -> None:
        """Play one OpenSpiel id (a chance outcome at a chance node); an id that is not legal
        raises ``ValueError`` naming it and the legal ones, changing nothing."""
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(f"OpenSpiel id {action!r} is not legal here; legal: {legal}")
        self.history.append(action)
        if self.hand is None:
            self._deal(our_card(action))
            return
        hand = self.hand
        if self.drawing:
            self._draw(hand, our_card(action))
        elif hand.phase is Phase.LAYOFF:
            self._defend(hand, action)
        elif self.knocking:
            self._declare(hand, action)
        elif action == OS_KNOCK:
            if hand.wall:
                hand.apply_legal(DRAW_DISCARD)
            self.knocking = True
        elif action == OS_DRAW_STOCK:
            self.drawing = True
        elif action == OS_DRAW_UPCARD:
            hand.apply_legal(DRAW_DISCARD)
        elif action == OS_PASS:
            hand.apply_legal(PASS)
        else:
            hand.apply_legal(DISCARDS[our_card(action)])

    def _deal(self, card: int) -> None:
        self.dealt.append(card)
        if len(self.dealt) < _DEALT:
            return
        first, second, upcard = self.dealt[:10], self.dealt[10:20], self.dealt[20]
        order = [c for pair in zip(first, second, strict=True) for c in pair]
        rest = [c for c in range(52) if c not in set(self.dealt)]
        self.hand = Hand(self.rules, 1, [*order, upcard, *rest])

    def _draw(self, hand: Hand, card: int) -> None:
        stock = hand.stock
        where = stock.index(card)
        stock[where], stock[-1] = stock[-1], stock[where]
        hand.deck = (*hand.deck[:_DEALT], *self.drawn, *reversed(stock))
        self.drawn.append(card)
        self.drawing = False
        hand.apply_legal(DRAW_STOCK)

    def _declare(self, hand: Hand, action: int) -> None:
        if self.knock_discard is None:
            self.knock_discard = our_card(action)
        elif action == OS_PASS:
            melds = tuple(tuple(sorted(OPENSPIEL_MELDS[i - OS_MELD_BASE])) for i in self.melds)
            knock = Knock(self.knock_discard, melds)
            self.knocking, self.knock_discard, self.melds = False, None, []
            hand.apply(knock)
        else:
            self.melds.append(action)

    def _defend(self, hand: Hand, action: int) -> None:
        if not self._no_layoffs(hand):
            if action == OS_PASS:
                self.layoffs_done = True
            else:
                self.layoffs.append(our_card(action))
            return
        if action != OS_PASS:
            self.melds.append(action)
            return
        pairs = self._assign(self.layoffs, hand) if self.layoffs else ()
        assert pairs is not None
        melds = tuple(tuple(sorted(OPENSPIEL_MELDS[i - OS_MELD_BASE])) for i in self.melds)
        self.melds, self.layoffs, self.layoffs_done = [], [], False
        hand.apply(LayOff(melds, pairs))

    # ------------------------------------------------------------------ copies
    def clone(self) -> OpenSpielState:
        """An independent copy (the engine's hand replayed with :meth:`Hand.copy`)."""
        other = OpenSpielState.__new__(OpenSpielState)
        other.__dict__.update(self.__dict__)
        other.dealt, other.drawn = list(self.dealt), list(self.drawn)
        other.melds, other.layoffs = list(self.melds), list(self.layoffs)
        other.history = list(self.history)
        other.hand = None if self.hand is None else self.hand.copy()
        return other

    def __str__(self) -> str:
        return f"<OpenSpielState history={self.history} hand={self.hand!r}>"


__all__ = ["CHANCE_PLAYER", "OPENSPIEL_RULES", "OS_NUM_ACTIONS", "TERMINAL_PLAYER",
           "OpenSpielState"]
