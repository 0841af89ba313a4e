"""``intermediate``: card tracking, safe discards and knock timing, no search.

Every decision is a small hand evaluation on bitmasks (docs/bots.md tells it in prose):

- *potential* of a hand about to draw: the mean deadwood it would shed by drawing one card
  uniformly from the unseen cards (:class:`~ginrummy.bots.tracking.CardTracker`) and
  discarding its best card;
- *danger* of a discard: how likely the next player (the only one who can take it) can meld
  it, from the cards he holds known, the cards still unseen that could meld with it, and his
  own discards and declines of its rank and neighbours;
- a discard minimises ``deadwood - POTENTIAL_WEIGHT * potential + DANGER_WEIGHT * danger``,
  ties toward discarding the higher card;
- the face-up card is taken when the best discard after taking it scores better than the
  expected result of a stock draw, but never a card it already took once this hand: two
  players passing the same cards back and forth would otherwise never end the hand (each
  card taken at most once bounds the takes, and every stock draw brings the end nearer);
- a knock is made when the deadwood is within a threshold that shrinks as the opponents get
  further (their draws, plus the cards they took: their deadwood falls and an undercut gets
  likelier) and when the opponent nears the match target, and at any deadwood
  when the knock should win the match; a gin is always taken;
- as defender it lays off optimally (the engine's best defence).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ginrummy.actions import (
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    Action,
    Discard,
    Knock,
    LayOff,
)
from ginrummy.bots.beginner import in_some_meld
from ginrummy.bots.tracking import CardTracker, track
from ginrummy.cards import CARD_VALUES, LANE_MASK
from ginrummy.engine import Phase
from ginrummy.rules import Format
from ginrummy.solver import best_arrangements, deadwood_mask
from ginrummy.solver.discards import discard_deadwoods_mask, least_deadwood_after_discard
from ginrummy.views import PlayerView

__all__ = ["IntermediateBot", "danger", "layoff_spots", "meld_completers", "potential"]

_OFFER, _DRAW, _LAYOFF = Phase.OFFER, Phase.DRAW, Phase.LAYOFF


_LANES = LANE_MASK | LANE_MASK << 13 | LANE_MASK << 26 | LANE_MASK << 39
_LOW_RANKS = 1 | 1 << 13 | 1 << 26 | 1 << 39        # the aces: rank 0 of each lane
_HIGH_RANKS = _LOW_RANKS << 12                        # the kings
_RANK_MASKS = tuple(_LOW_RANKS << r for r in range(13))
_RANK_VALUE = tuple(min(r + 1, 10) for r in range(13))


def meld_completers(hand: int) -> int:
    """The cards (outside ``hand``) that would be part of some meld of ``hand`` plus them."""
    up1 = (hand & ~_HIGH_RANKS) << 1         # card r-1 held, seen from rank r
    up2 = (up1 & ~_HIGH_RANKS) << 1
    down1 = (hand & ~_LOW_RANKS) >> 1        # card r+1 held
    down2 = (down1 & ~_LOW_RANKS) >> 1
    runs = (up1 & up2 | up1 & down1 | down1 & down2) & _LANES
    sets = 0
    for rank_mask in _RANK_MASKS:
        if (hand & rank_mask).bit_count() >= 2:
            sets |= rank_mask
    return (runs | sets) & ~hand


def potential(hand: int, unseen: int) -> float:
    """Mean deadwood ``hand`` sheds by drawing one unseen card and discarding its best card."""
    dw = deadwood_mask(hand)
    count = unseen.bit_count()
    if not count or not dw:
        return 0.0
    melding = meld_completers(hand) & unseen
    total = 0
    rest = melding
    while rest:
        low = rest & -rest
        rest ^= low
        total += dw - least_deadwood_after_discard(hand | low)
    # a drawn card in no meld can only replace the highest loose card, if it is lower
    loose_top = dw - least_deadwood_after_discard(hand)
    other = unseen & ~melding
    for rank in range(min(loose_top, 10) - 1):
        total += (loose_top - _RANK_VALUE[rank]) * (other & _RANK_MASKS[rank]).bit_count()
    return total / count


def danger(card: int, tracker: CardTracker, seat: int) -> float:
    """How likely (0 to about 1) ``seat`` can meld ``card`` if it is discarded now."""
    held = tracker.held_known[seat]
    if in_some_meld(held, card):
        return 1.0
    unseen = tracker.unseen
    rank, suit = card % 13, card // 13
    score = 0.0
    for s in range(4):
        if s != suit:
            other = 13 * s + rank
            if held >> other & 1:
                score += 0.45
            elif unseen >> other & 1:
                score += 0.12
    for step, near, far in ((1, 0.45, 0.12), (2, 0.2, 0.04)):
        for r in (rank - step, rank + step):
            if 0 <= r < 13:
                other = 13 * suit + r
                if held >> other & 1:
                    score += near
                elif unseen >> other & 1:
                    score += far
    signals = tracker.discarded[seat] | tracker.declined[seat]
    same_rank = 0
    for s in range(4):
        same_rank |= 1 << (13 * s + rank)
    if signals & same_rank:
        score *= 0.5
    lane = signals >> (13 * suit) & LANE_MASK
    if lane & (1 << rank >> 1 | 1 << rank << 1) & LANE_MASK:
        score *= 0.7
    return min(score, 1.0)


class IntermediateBot:
    """Card tracking, safe discards, knock timing (see the module docstring)."""

    name = "intermediate"

    POTENTIAL_WEIGHT = 0.8
    DANGER_WEIGHT = 6.0
    TAKE_MARGIN = 0.0
    """Points a take must gain over the stock draw (a take shows the opponent part of the
    hand; measured against beginner, any margin cost more than the information was worth)."""
    KNOCK_EARLY_DRAWS = 6
    LATE_KNOCK_DEADWOOD = 4
    KNOWN_CARD_DRAWS = 1
    """Each card an opponent is known to hold counts as this many extra draws of progress."""
    NEAR_TARGET_CAUTION = 2
    """Points off the late knock threshold when the opponent is near the match target."""

    def __init__(self, seed: int | None = None, budget_ms: float | None = None) -> None:
        self.rng = random.Random(seed)

    # ------------------------------------------------------------------ decisions
    def choose(self, view: PlayerView, legal: Sequence[Action]) -> Action:
        """The intermediate decision for this view."""
        if view.phase is _LAYOFF:
            return next(a for a in legal if isinstance(a, LayOff))
        return self.decide(view, legal, track(view))

    def decide(self, view: PlayerView, legal: Sequence[Action], tracker: CardTracker
               ) -> Action:
        """The decision for this view given its ``tracker`` (``track(view)``), outside the
        layoff step."""
        phase = view.phase
        if phase is _DRAW or phase is _OFFER:
            top = view.top_discard
            if (top is not None and DRAW_DISCARD in legal
                    and not tracker.taken[tracker.seat] >> top & 1
                    and self.wants_take(tracker, top)):
                return DRAW_DISCARD
            return PASS if phase is _OFFER else DRAW_STOCK
        allowed = 0
        for action in legal:
            if type(action) is Discard:
                allowed |= 1 << action.card
        if view.taken is not None:
            allowed &= ~(1 << view.taken)
        knock = self.knock_choice(view, tracker, allowed)
        if knock is not None:
            return knock
        return DISCARDS[self.best_discard(tracker, view.hand_mask, allowed)[1]]

    def wants_take(self, tracker: CardTracker, top: int) -> bool:
        """Whether the face-up card beats a stock draw."""
        hand = tracker.hand
        unseen = tracker.unseen
        after = hand | 1 << top
        score_take, _ = self.best_discard(tracker, after, after & ~(1 << top), unseen)
        now = deadwood_mask(hand)
        pot = potential(hand, unseen)
        # a stock draw: expected deadwood after it, then the same potential again
        score_stock = now - pot - self.POTENTIAL_WEIGHT * pot
        return score_take + self.TAKE_MARGIN < score_stock

    def best_discard(self, tracker: CardTracker, hand: int, allowed: int,
                     unseen: int | None = None) -> tuple[float, int]:
        """(score, card) of the best discard of ``hand`` among ``allowed`` (lower is better)."""
        if unseen is None:
            unseen = tracker.unseen
        options = [(dw, card) for dw, card in discard_deadwoods_mask(hand) if allowed >> card & 1]
        least = min(dw for dw, _ in options)
        nxt = tracker.next_seat
        best: tuple[float, int, int] | None = None
        for dw, card in options:
            if dw > least + 12:
                continue
            rest = hand & ~(1 << card)
            score = (dw - self.POTENTIAL_WEIGHT * potential(rest, unseen & ~(1 << card))
                     + self.DANGER_WEIGHT * danger(card, tracker, nxt))
            key = (score, -CARD_VALUES[card], -card)
            if best is None or key < best:
                best = key
        assert best is not None
        return best[0], -best[2]

    # ------------------------------------------------------------------ knocking
    def knock_choice(self, view: PlayerView, tracker: CardTracker, allowed: int) -> Knock | None:
        """A knock when the timing is right, else ``None``."""
        hand = view.hand_mask
        limit = view.knock_limit
        options = [(dw, card) for dw, card in discard_deadwoods_mask(hand)
                   if allowed >> card & 1 and dw <= limit]
        if not options:
            return None
        least = min(dw for dw, _ in options)
        if least and not self.should_knock(view, tracker, least):
            return None
        cards = [card for dw, card in options if dw == least]
        nxt = tracker.next_seat
        card = min(cards, key=lambda c: (danger(c, tracker, nxt), -CARD_VALUES[c], c))
        rest = hand & ~(1 << card)
        melds = self.knock_melds(tracker, rest)
        return Knock(card, melds, gin=least == 0)

    def should_knock(self, view: PlayerView, tracker: CardTracker, deadwood: int) -> bool:
        """Knock with ``deadwood`` > 0 now, or play on?"""
        rules = view.rules
        caution = 0
        if rules.format is Format.MATCH and view.scores is not None:
            me = view.scores[tracker.seat]
            opp = max(s for i, s in enumerate(view.scores) if i != tracker.seat)
            target = rules.target or 100
            if me + 10 >= target and opp + 25 < target:
                return True  # a modest win should end the match: take no risk of waiting
            if opp + 25 >= target:
                caution = self.NEAR_TARGET_CAUTION  # an undercut would likely end it for them
        # how far the opponents are: their draws, and each card they took counts extra
        progress = max(tracker.draws[s] + self.KNOWN_CARD_DRAWS * tracker.held_known[s].bit_count()
                       for s in tracker.opponents)
        if progress <= self.KNOCK_EARLY_DRAWS:
            return True
        late = progress - self.KNOCK_EARLY_DRAWS
        threshold = max(self.LATE_KNOCK_DEADWOOD - late // 3 - caution, 1)
        return deadwood <= min(threshold, view.knock_limit)

    def knock_melds(self, tracker: CardTracker, rest: int) -> tuple[tuple[int, ...], ...]:
        """Among the least-deadwood arrangements, the one leaving the fewest layoff spots
        for the cards the viewer has not seen."""
        arrangements = best_arrangements(rest)
        if len(arrangements) == 1:
            return arrangements[0].melds
        unseen = tracker.unseen
        return min((a.melds for a in arrangements), key=lambda melds: layoff_spots(melds, unseen))


def layoff_spots(melds: tuple[tuple[int, ...], ...], unseen: int) -> int:
    """How many ``unseen`` cards could be laid off directly onto ``melds``."""
    spots = 0
    for meld in melds:
        first, last = min(meld), max(meld)
        if first // 13 == last // 13 and len(meld) >= 3 and last - first == len(meld) - 1:
            if first % 13 > 0:
                spots |= 1 << (first - 1)
            if last % 13 < 12:
                spots |= 1 << (last + 1)
        else:
            rank = meld[0] % 13
            for s in range(4):
                spots |= 1 << (13 * s + rank)
    return (spots & unseen).bit_count()
