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

import random
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


def _mask(cards: list[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


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
        self.actors: list[int] = []  # per history entry: the player, or -1 for the deal
        # (a stock card chance picks is the drawer's)

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
        self.actors.append(-1 if self.hand is None else self.hand.to_move)
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
        """An independent copy (the engine's hand copied field by field with
        :meth:`Hand.clone`: OpenSpiel's searches clone at every node, and :meth:`Hand.copy`
        replays the whole log)."""
        other = OpenSpielState.__new__(OpenSpielState)
        other.__dict__.update(self.__dict__)
        other.dealt, other.drawn = list(self.dealt), list(self.drawn)
        other.melds, other.layoffs = list(self.melds), list(self.layoffs)
        other.history, other.actors = list(self.history), list(self.actors)
        other.hand = None if self.hand is None else self.hand.clone()
        return other

    @classmethod
    def replay(cls, history: list[int], rules: Ruleset = OPENSPIEL_RULES) -> OpenSpielState:
        """The state after playing ``history`` (each id checked) from the start."""
        state = cls(rules)
        for action in history:
            state.apply_action(action)
        return state

    # ------------------------------------------------------------------ information
    def information_state_string(self, player: int) -> str:
        """Everything ``player`` has seen, in order (perfect recall): the cards dealt to him
        and the upcard, every player's move, and the stock cards he drew himself (another
        player's drawn card is ``?``). Two histories give the same string exactly when the
        player cannot tell them apart."""
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        own = range(10) if player == 0 else range(10, 20)
        parts = [f"p{player}"]
        for i, (action, actor) in enumerate(zip(self.history, self.actors, strict=True)):
            if i < _DEALT:
                parts.append(str(action) if i in own or i == _DEALT - 1 else "?")
            elif self._is_chance_entry(i):
                parts.append(f"d{action}" if actor == player else "d?")
            else:
                parts.append(f"{actor}:{action}")
        return " ".join(parts)

    def _is_chance_entry(self, index: int) -> bool:
        """Whether history entry ``index`` (after the deal) is the stock card chance picked
        for a draw: the entry after ``53``, which nothing else follows (cards are 0-51)."""
        return index > _DEALT and self.history[index - 1] == OS_DRAW_STOCK

    def resample_from_infostate(self, player: int, rng: random.Random) -> OpenSpielState:
        """A state ``player`` cannot tell from this one (a determinisation, for ISMCTS): the
        other player's unseen cards drawn uniformly from every card ``player`` has not seen,
        his past made consistent with it (the cards he discarded came from his deal or from
        his stock draws before each discard), the same history otherwise. Once a knock has
        started every hand is shown (R4.8) and the state is its own sample, as in OpenSpiel's
        ``ResampleFromInfostate``; so it is while the cards are dealt. Future stock cards are
        chance nodes, so the stock needs no order."""
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        hand = self.hand
        if hand is None or hand.knock is not None or self.knocking or hand.over:
            return self.clone()
        other = 1 - player
        probe = OpenSpielState(self.rules)
        deadline: dict[int, int] = {}  # other's discards of cards he did not take: when
        draws: list[int] = []  # history indices of the stock cards chance picked for him
        for i, action in enumerate(self.history):
            current = probe.hand
            if current is not None and self.actors[i] == other:
                if probe.drawing:
                    draws.append(i)
                elif action < 52 and not current.known[other] >> our_card(action) & 1:
                    deadline[our_card(action)] = i
            probe.apply_action(action)
        hidden = hand.hands[other] & ~hand.known[other]
        count = hidden.bit_count()
        unseen = [c for c in range(52)
                  if (hidden | _mask(hand.stock)) >> c & 1]
        rng.shuffle(unseen)
        sample = unseen[:count]
        never = len(self.history) + 1
        sourced = sorted(deadline, key=deadline.__getitem__) + sample
        times = [deadline.get(c, never) for c in sourced]
        initial, drawn = sourced[:10], sourced[10:]
        if len(drawn) != len(draws) or any(t <= d for t, d in zip(times[10:], draws,
                                                                     strict=True)):
            raise AssertionError("no consistent past found; please report this history")
        history = list(self.history)
        first = 0 if other == 0 else 10
        history[first:first + 10] = [os_card(c) for c in initial]
        for index, card in zip(draws, drawn, strict=True):
            history[index] = os_card(card)
        return OpenSpielState.replay(history, self.rules)

    def __str__(self) -> str:
        return f"<OpenSpielState history={self.history} hand={self.hand!r}>"


__all__ = ["CHANCE_PLAYER", "OPENSPIEL_RULES", "OS_NUM_ACTIONS", "TERMINAL_PLAYER",
           "OpenSpielState"]
