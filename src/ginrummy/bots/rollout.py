"""Fast play-outs of a hand on card bitmasks, for the expert's search.

A play-out continues a determinized hand (every seat's cards and the stock order known) to
its end with one simple policy for every seat, and returns the score from one seat's point
of view. It never builds a :class:`~ginrummy.engine.Hand` or a view: hands are int bitmasks,
the stock a list (top card last), and the discard pile only its top card (after a take the
card below counts as gone: it was declined before). The policy:

- draw: take the face-up card when it would be in a meld;
- discard: of the cards that some least-deadwood arrangement leaves unmatched, the one with
  the highest value less ``NEAR_WEIGHT`` for each meld partner next to it in hand and
  ``FAR_WEIGHT`` for each two ranks away (ties: the higher rank), never the card just
  taken;
- knock as soon as the least deadwood after the discard is within the knock limit (gin and
  big gin when they are there).

A knock is scored exactly by the rules (:func:`~ginrummy.scoring.score_hand`), each defender
laying off as well as he can (the solver's :func:`~ginrummy.solver.layoff_options_mask` and
:func:`~ginrummy.solver.defence_deadwood_mask`, the engine's layoff rules); in a match, a
hand that takes its winner to the target counts ``MATCH_BONUS`` more (or less) for ``root``.
The stock running out ends the hand with no score (a reshuffle, R4.7, is not simulated: the
hand counts as void; at the ``wall`` the next player takes the last discard if the policy then
knocks), and so does a play-out still going after ``MAX_TURNS`` turns (cards passed back and
forth without a stock draw). With ``openspiel_limits`` (R4.9) a knock also needs OpenSpiel's
deadwood estimate; its 50-take limit is not counted (the policy takes only cards that meld).

The turn rules restated here for speed (the upcard offer and its passes, who draws after
them, the stock floor, the knock limit, big gin, the card just taken) are the engine's:
``tests/bots/test_rollout_engine.py`` plays every preset and every rule option that changes
play through both, move by move, from the :class:`Step` list a play-out writes when given
``trace``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ginrummy.actions import DRAW_DISCARD, DRAW_STOCK, PASS, Action, Discard, Knock
from ginrummy.bots.belief import FAR_PARTNERS, NEAR_PARTNERS, meld_partners
from ginrummy.cards import CARD_VALUES
from ginrummy.engine import layoff_chaining
from ginrummy.rules import Ruleset, StockEnd
from ginrummy.scoring import HandResult, score_hand
from ginrummy.solver import (
    best_melds_mask,
    deadwood_mask,
    layoff_options_mask,
)
from ginrummy.solver import defence_deadwood_mask as defence_deadwood
from ginrummy.solver.discards import discard_deadwoods_mask, loose_cards_mask
from ginrummy.solver.openspiel import openspiel_min_deadwood

__all__ = [
    "DISCARD",
    "DRAW",
    "OFFER",
    "PlayoutRules",
    "Step",
    "defence_deadwood",
    "hand_value",
    "knock_result",
    "knock_value",
    "layoff_options",
    "play_out",
    "policy_discard",
    "wants_card",
]

DRAW, DISCARD, OFFER = 0, 1, 2
"""Where a play-out starts for the seat to move."""
MATCH_BONUS = 30.0
"""Points added to (or taken from) a hand's value when it decides the match: winning the
match is what counts, and points beyond the target are worth nothing more."""

MAX_TURNS = 200
"""A play-out that lasts this many turns counts as a void hand: players passing the same
cards back and forth without drawing from the stock would never end it (a hand that draws
from the stock ends within about 40 turns)."""

_VALUES = CARD_VALUES


_PARTNERS = tuple(meld_partners(card) for card in range(52))
_NEAR = NEAR_PARTNERS
_FAR = FAR_PARTNERS
NEAR_WEIGHT = 16
"""A loose card's worth kept per meld partner next to it in hand (same rank, or same suit one
rank away), in quarter points: a card that is one draw from a meld is kept over a lone card
up to 4 points higher (what ``intermediate``'s potential does, cheaply)."""
FAR_WEIGHT = 8
"""The same for a partner two ranks away in the suit (a gap one card fills): 2 points."""
_KEEP_BASE = tuple(_VALUES[card] * 4 + card % 13 for card in range(52))
"""A loose card's discard score before its partners: its value in quarter points, ties
toward the higher rank."""
_EITHER: tuple[Action, ...] = (DRAW_STOCK, DRAW_DISCARD)
_STOCK_ONLY: tuple[Action, ...] = (DRAW_STOCK,)
_OFFERED: tuple[Action, ...] = (DRAW_DISCARD, PASS)


@dataclass(frozen=True, slots=True)
class PlayoutRules:
    """What a play-out needs of the rules, resolved once per decision."""

    rules: Ruleset
    players: int
    knock_limit: int
    dealer: int
    spade_upcard: bool
    scores: tuple[int, ...] | None = None
    """The match score before this hand (``None``: the hand is scored on its own)."""
    known: tuple[int, ...] | None = None
    """Per seat, the cards the others know it holds (taken from the pile): a play-out's
    discards avoid feeding the next player's known cards (``None``: nobody's are known)."""

    @property
    def big_gin(self) -> bool:
        """Whether big gin (no discard) is allowed."""
        return self.rules.big_gin

    @property
    def stock_floor(self) -> int:
        """The hand ends with no score once the stock is down to this many cards."""
        return 0 if self.rules.stock_end is StockEnd.RESHUFFLE else 2

    def knock_open(self, cards: int) -> bool:
        """R4.9: with ``openspiel_limits`` a knock needs OpenSpiel's deadwood estimate of the
        cards before the discard within the limit (otherwise always true)."""
        return not self.rules.openspiel_limits or openspiel_min_deadwood(
            cards, self.rules.cards_per_hand) <= self.knock_limit


def wants_card(hand: int, card: int) -> bool:
    """The policy's draw: take ``card`` when it would be in a meld (in every least-deadwood
    arrangement of the hand with it)."""
    return not loose_cards_mask(hand | 1 << card) >> card & 1


def _near(known: int) -> int:
    """The cards one step from a meld with some card of ``known``."""
    out = 0
    while known:
        low = known & -known
        known ^= low
        out |= NEAR_PARTNERS[low.bit_length() - 1]
    return out


def policy_discard(hand: int, forbidden: int | None, loose: int | None = None,
                   avoid: int = 0) -> tuple[int, int]:
    """The policy's discard from ``hand`` (one card over the hand size): (card, least
    deadwood of the rest). ``loose`` is ``loose_cards_mask(hand)`` when already known;
    loose cards in ``avoid`` are kept unless every loose card is in it."""
    if loose is None:
        loose = loose_cards_mask(hand)
    if forbidden is not None:
        loose &= ~(1 << forbidden)
    if avoid and loose & ~avoid:
        loose &= ~avoid
    if loose:
        best = -1
        top = -99
        rest = loose
        while rest:
            low = rest & -rest
            rest ^= low
            card = low.bit_length() - 1
            keep = (_KEEP_BASE[card] - NEAR_WEIGHT * (_NEAR[card] & hand).bit_count()
                    - FAR_WEIGHT * (_FAR[card] & hand).bit_count())
            if keep > top:
                best, top = card, keep
        return best, deadwood_mask(hand) - _VALUES[best]
    dw, card = min((dw, -_VALUES[c] * 64 - c) for dw, c in discard_deadwoods_mask(hand)
                   if c != forbidden)
    return (-card) % 64, dw


def layoff_options(melds: Sequence[Sequence[int]], rules: Ruleset) -> list[list[int]]:
    """Per knocker meld, the card masks a defender may lay off on it: the solver's
    :func:`~ginrummy.solver.layoff_options_mask` under the rules' layoff chain."""
    return layoff_options_mask(melds, layoff_chaining(rules))


def hand_value(ctx: PlayoutRules, result: HandResult, root: int) -> float:
    """What a hand's result is worth to ``root``: his points less the others' (a match), or
    the others' mean penalty less his (a single hand); ``MATCH_BONUS`` when it decides the
    match (``ctx.scores``)."""
    if result.penalties is None:
        points = result.points
        value = float(2 * points[root] - sum(points))
        scores = ctx.scores
        target = ctx.rules.target
        if scores is not None and target is not None and result.winner is not None:
            winner = result.winner
            if scores[winner] + points[winner] >= target:  # the hand decides the match
                value += MATCH_BONUS if winner == root else -MATCH_BONUS
        return value
    penalties = result.penalties
    n = len(penalties)
    return (sum(penalties) - penalties[root]) / (n - 1) - penalties[root]


def knock_result(ctx: PlayoutRules, hands: Sequence[int], knocker: int, rest: int,
                 melds: Sequence[Sequence[int]] | None) -> HandResult:
    """The result of ``knocker`` laying down ``rest`` (his cards after the discard) as
    ``melds`` (default: a least-deadwood arrangement), the others defending at their best."""
    if melds is None:
        arrangement = best_melds_mask(rest)
        melds = arrangement.melds
        dk = arrangement.deadwood
    else:
        loose = rest
        for meld in melds:
            for card in meld:
                loose &= ~(1 << card)
        dk = 0
        while loose:
            low = loose & -loose
            loose ^= low
            dk += _VALUES[low.bit_length() - 1]
    gin = dk == 0
    n = ctx.players
    deadwood = [0] * n
    deadwood[knocker] = dk
    options = None if gin else layoff_options(melds, ctx.rules)
    for seat in range(n):
        if seat != knocker:
            deadwood[seat] = (deadwood_mask(hands[seat]) if options is None
                              else defence_deadwood(hands[seat], options))
    big = gin and rest.bit_count() > ctx.rules.cards_per_hand
    return score_hand(ctx.rules, knocker, deadwood, gin, big, ctx.spade_upcard)


def knock_value(ctx: PlayoutRules, hands: Sequence[int], knocker: int, rest: int,
                melds: Sequence[Sequence[int]] | None, root: int) -> float:
    """The score for ``root`` of :func:`knock_result`."""
    return hand_value(ctx, knock_result(ctx, hands, knocker, rest, melds), root)


class Step(NamedTuple):
    """One move of a traced play-out, as the engine would take it.

    ``offered``: at a draw or the upcard offer, the moves the play-out allowed (else empty);
    ``taken``: at a discard, the card just taken from the pile (``None`` after a stock draw);
    ``deadwood``: after a discard, the least deadwood of the rest (what decides a knock);
    ``stock`` and ``top``: the stock size and the face-up card after the move. A last step
    with ``action`` ``None`` ends the hand with no score: ``end`` says why (``"floor"``: the
    stock ran down, ``"turns"``: ``MAX_TURNS``, ``"empty"``: nothing to draw); a knock's step
    has ``end`` ``"knock"`` and its ``result``.
    """

    seat: int
    action: Action | None
    offered: tuple[Action, ...] = ()
    taken: int | None = None
    deadwood: int | None = None
    stock: int = 0
    top: int | None = None
    end: str | None = None
    result: HandResult | None = None


def play_out(ctx: PlayoutRules, hands: list[int], stock: list[int], top: int | None,
             seat: int, phase: int, root: int, taken: int | None = None,
             passes: int = 0, trace: list[Step] | None = None) -> float:
    """Play the hand to its end with the policy; the score for ``root``.

    ``hands`` and ``stock`` (top card last) are changed in place. ``phase`` says what ``seat``
    does first: ``DRAW``, ``DISCARD`` (it holds one card more; ``taken`` may not be
    discarded) or ``OFFER`` (the first-turn upcard offer, ``passes`` passes so far). With a
    ``trace`` list, every move is appended to it as a :class:`Step`.
    """
    n = ctx.players
    limit = ctx.knock_limit
    floor = ctx.stock_floor
    big_gin_ok = ctx.rules.big_gin
    can_take = True
    known = list(ctx.known) if ctx.known is not None else None
    if known is not None and taken is not None:
        known[seat] |= 1 << taken
    if phase == OFFER:
        offer_closed = ctx.rules.offer_closed
        while True:
            assert top is not None
            if wants_card(hands[seat], top):
                hands[seat] |= 1 << top
                taken = top
                if known is not None:
                    known[seat] |= 1 << top
                if trace is not None:
                    trace.append(Step(seat, DRAW_DISCARD, _OFFERED, None, None,
                                      len(stock), None))
                top = None
                phase = DISCARD
                break
            passes += 1
            if trace is not None:
                trace.append(Step(seat, PASS, _OFFERED, None, None, len(stock),
                                  top))
            if offer_closed(passes):  # >=: no endless offer
                seat = (ctx.dealer + 1) % n
                phase = DRAW
                can_take = False
                break
            seat = (seat + 1) % n
    turns_left = MAX_TURNS
    while True:
        turns_left -= 1
        if not turns_left:
            if trace is not None:
                trace.append(Step(seat, None, stock=len(stock), top=top, end="turns"))
            return 0.0
        hand = hands[seat]
        loose = None
        if phase == DRAW:
            if can_take and top is not None:
                with_top = hand | 1 << top
                loose = loose_cards_mask(with_top)
                if loose >> top & 1:  # it would not be in a meld: draw from the stock
                    loose = None
                else:
                    hand = with_top
                    taken = top
                    if known is not None:
                        known[seat] |= 1 << top
                    top = None
                    if trace is not None:
                        trace.append(Step(seat, DRAW_DISCARD, _EITHER, stock=len(stock)))
            if loose is None:
                if not stock:
                    if trace is not None:
                        trace.append(Step(seat, None, stock=0, top=top, end="empty"))
                    return 0.0
                hand |= 1 << stock.pop()
                taken = None
                if trace is not None:
                    trace.append(Step(seat, DRAW_STOCK, _EITHER if can_take and top is not None
                                      else _STOCK_ONLY,
                                      stock=len(stock), top=top))
            can_take = True
        phase = DRAW
        if big_gin_ok and not deadwood_mask(hand):
            hands[seat] = hand
            return _knock(ctx, hands, seat, hand, None, taken, stock, top, root, trace)
        if known is not None:
            nxt = known[(seat + 1) % n]
            card, dw = policy_discard(hand, taken, loose, _near(nxt) if nxt else 0)
            known[seat] &= ~(1 << card)
        else:
            card, dw = policy_discard(hand, taken, loose)
        hand ^= 1 << card
        hands[seat] = hand
        if dw <= limit and ctx.knock_open(hand | 1 << card):
            return _knock(ctx, hands, seat, hand, card, taken, stock, top, root, trace)
        if trace is not None:
            trace.append(Step(seat, Discard(card), (), taken, dw, len(stock), card))
        top = card
        taken = None
        if len(stock) <= floor:
            if ctx.rules.stock_end is StockEnd.WALL:
                return _wall(ctx, hands, (seat + 1) % n, stock, card, root, trace)
            if trace is not None:
                trace.append(Step(seat, None, stock=len(stock), top=top, end="floor"))
            return 0.0
        seat = (seat + 1) % n


def _wall(ctx: PlayoutRules, hands: list[int], seat: int, stock: list[int], top: int,
          root: int, trace: list[Step] | None) -> float:
    """R4.7 ``wall``: ``seat`` takes the last discard if the policy then knocks, else passes
    and the hand is void."""
    with_top = hands[seat] | 1 << top
    forbidden = top if ctx.rules.no_rediscard_of_taken_card else None
    card, dw = policy_discard(with_top, forbidden)
    if dw <= ctx.knock_limit and ctx.knock_open(with_top):
        if trace is not None:
            trace.append(Step(seat, DRAW_DISCARD, (), stock=len(stock)))
        rest = with_top ^ 1 << card
        hands[seat] = rest
        return _knock(ctx, hands, seat, rest, card, top, stock, None, root, trace)
    if trace is not None:
        trace.append(Step(seat, PASS, (), None, None, len(stock), top))
        trace.append(Step(seat, None, stock=len(stock), top=top, end="floor"))
    return 0.0


def _knock(ctx: PlayoutRules, hands: list[int], seat: int, rest: int, discard: int | None,
           taken: int | None, stock: list[int], top: int | None, root: int,
           trace: list[Step] | None) -> float:
    """``seat`` knocks (``discard`` ``None``: big gin) with a least-deadwood arrangement."""
    result = knock_result(ctx, hands, seat, rest, None)
    if trace is not None:
        melds = best_melds_mask(rest).melds
        trace.append(Step(seat, Knock(discard, melds), (), taken,
                          deadwood_mask(rest), len(stock),
                          top if discard is None else discard, "knock", result))
    return hand_value(ctx, result, root)
