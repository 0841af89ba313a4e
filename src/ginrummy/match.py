"""A match: hands to the target with end bonuses (R5), or the single-hand penalty game (R6)."""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ginrummy.actions import Action
from ginrummy.cards import Card
from ginrummy.engine import Hand, Phase, deal_order
from ginrummy.errors import HandOverError
from ginrummy.rules import Format, NextDealer, Ruleset
from ginrummy.scoring import HandResult, split_pool

_HAND_OVER = Phase.OVER
"""A hand's last phase, looked up once (enum member lookups cost on hot paths)."""


@dataclass(frozen=True)
class MatchResult:
    """The end of a match.

    ``totals`` include the end bonuses; ``bonuses[seat]`` names them (``game``, ``line``,
    ``shutout``). For the single-hand game ``penalties`` and ``payouts`` (cents) are set.
    """

    winner: int
    hand_points: tuple[int, ...]
    bonuses: tuple[dict[str, int], ...]
    totals: tuple[int, ...]
    margin: int
    penalties: tuple[int, ...] | None = None
    payouts: tuple[int, ...] | None = None

    def to_dict(self) -> dict[str, object]:
        """Plain JSON values."""
        return {
            "winner": self.winner,
            "hand_points": list(self.hand_points),
            "bonuses": [dict(b) for b in self.bonuses],
            "totals": list(self.totals),
            "margin": self.margin,
            "penalties": None if self.penalties is None else list(self.penalties),
            "payouts": None if self.payouts is None else list(self.payouts),
        }


class Match:
    """Hands dealt one after another until the match is decided.

    Randomness (first dealer, deck orders, reshuffles) comes from ``rng``; by default a
    ``secrets.SystemRandom`` (live play) or ``random.Random(seed)`` when a seed is given.
    Explicit decks may be passed to :meth:`start_hand` (replays, tests).

    The score is settled exactly once when a hand ends, whether its last action came through
    :meth:`apply` or through the hand itself (``match.hand.apply``): the match deals each hand
    with its settlement as the hand's ``on_over`` callback. Copies of a hand never settle.
    """

    def __init__(
        self,
        rules: Ruleset,
        seed: int | None = None,
        rng: random.Random | None = None,
        first_dealer: int | None = None,
        pool_cents: int | None = None,
    ) -> None:
        self.rules = rules
        self.players = rules.players
        if rng is None:
            rng = random.Random(seed) if seed is not None else secrets.SystemRandom()
        self.rng = rng
        if first_dealer is None:
            first_dealer = rng.randrange(self.players)  # R2.2
        if not 0 <= first_dealer < self.players:
            raise ValueError(f"first_dealer must be a seat 0..{self.players - 1}")
        if pool_cents is not None and pool_cents < 0:
            raise ValueError("pool_cents must be >= 0")
        self.first_dealer = first_dealer
        self.dealer = first_dealer
        self.pool_cents = pool_cents
        self.scores = [0] * self.players
        self.hands_won = [0] * self.players
        self.hands: list[Hand] = []
        self.result: MatchResult | None = None

    # ----------------------------------------------------------------- flow
    @property
    def over(self) -> bool:
        """True once the match has a result."""
        return self.result is not None

    @property
    def hand(self) -> Hand:
        """The current (or last) hand."""
        if not self.hands:
            raise HandOverError("no hand has been dealt yet")
        return self.hands[-1]

    @property
    def needs_deal(self) -> bool:
        """True when the next hand should be dealt."""
        hands = self.hands  # Match.over and Hand.over inlined (called on every step)
        return self.result is None and (not hands or hands[-1].phase is _HAND_OVER)

    def start_hand(self, deck: Sequence[Card] | None = None) -> Hand:
        """Deal the next hand from ``deck`` or from the match's random generator."""
        if self.over:
            raise HandOverError("the match is over")
        if self.hands and not self.hands[-1].over:
            raise HandOverError("the current hand is not over")
        order = list(deck) if deck is not None else deal_order(rng=self.rng)
        hand = Hand(self.rules, self.dealer, order, on_over=self._settle)
        self.hands.append(hand)
        return hand

    def apply(self, action: Action | str, seat: int | None = None) -> None:
        """Play an action in the current hand (the hand settles the score when it ends)."""
        self.hand.apply(action, seat)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickling (and ``copy.deepcopy``): the current hand reports to this match again
        (a hand pickles without its callback; a shallow copy's hand stays its original's)."""
        self.__dict__.update(state)
        if self.hands and self.hands[-1]._on_over is None:
            self.hands[-1]._on_over = self._settle

    def step_chance(self) -> bool:
        """Play the pending reshuffle, if any, with the match's generator."""
        hand = self.hand
        if hand.phase is not Phase.RESHUFFLE:
            return False
        self.apply(hand.reshuffle_order(self.rng))
        return True

    def _settle(self, hand: Hand) -> None:
        result = hand.result
        assert result is not None
        if result.void:
            return  # R2.2: same dealer deals again; R5.5: no score or count
        assert result.winner is not None
        for seat, points in enumerate(result.points):
            self.scores[seat] += points
        self.hands_won[result.winner] += 1
        if self.rules.format is Format.SINGLE_HAND:
            self._finish_single(result)
            return
        self.dealer = self._next_dealer(result)
        target = self.rules.target
        assert target is not None
        if self.scores[result.winner] >= target:
            self._finish_match(result.winner)

    def _next_dealer(self, result: HandResult) -> int:
        rule = self.rules.next_dealer
        assert result.winner is not None
        if rule is NextDealer.WINNER:
            return result.winner
        if rule is NextDealer.LOSER:
            return (result.winner + 1) % self.players
        return (self.dealer + 1) % self.players

    def _finish_match(self, winner: int) -> None:
        rules = self.rules
        bonuses: list[dict[str, int]] = []
        for seat in range(self.players):
            b: dict[str, int] = {}
            if rules.line_bonus:
                b["line"] = rules.line_bonus * self.hands_won[seat]
            if seat == winner:
                if rules.game_bonus:
                    b["game"] = rules.game_bonus
                losers_won = sum(self.hands_won[s] for s in range(self.players) if s != winner)
                if rules.shutout_bonus and losers_won == 0:
                    b["shutout"] = rules.shutout_bonus
            bonuses.append(b)
        totals = tuple(self.scores[s] + sum(bonuses[s].values()) for s in range(self.players))
        margin = totals[winner] - max(t for s, t in enumerate(totals) if s != winner)
        self.result = MatchResult(winner, tuple(self.scores), tuple(bonuses), totals, margin)

    def resign(self, seat: int) -> None:
        """End a two-player match that ``seat`` resigned: the other seat wins it. In a match
        to a target the winner gets the end bonuses of R5.7 on the score as it stands; in a
        single hand the resigning seat takes ``payout_threshold`` penalty points, so the
        winner gets the whole pool. The unfinished hand counts for nothing. (Three or four
        players play on: the server hands the seat to the computer.)"""
        if self.players != 2:
            raise ValueError("only a two-player match ends when a seat resigns")
        if self.over:
            raise HandOverError("the match is over")
        if seat not in (0, 1):
            raise ValueError(f"no seat {seat} in a two-player match")
        winner = 1 - seat
        rules = self.rules
        if rules.format is not Format.SINGLE_HAND:
            self._finish_match(winner)
            return
        penalties = [0, 0]
        penalties[seat] = rules.payout_threshold
        payouts = None
        if self.pool_cents is not None:
            payouts = split_pool(self.pool_cents, penalties, winner, rules.payout_threshold)
        self.result = MatchResult(winner, tuple(self.scores), ({}, {}),
                                  tuple(-p for p in penalties), penalties[seat],
                                  tuple(penalties), payouts)

    def _finish_single(self, result: HandResult) -> None:
        assert result.winner is not None and result.penalties is not None
        payouts = None
        if self.pool_cents is not None:
            payouts = split_pool(self.pool_cents, result.penalties, result.winner,
                                 self.rules.payout_threshold)
        totals = tuple(-p for p in result.penalties)
        margin = min(result.penalties[s] for s in range(self.players) if s != result.winner)
        self.result = MatchResult(result.winner, tuple(self.scores),
                                  tuple({} for _ in range(self.players)), totals, margin,
                                  result.penalties, payouts)

    # ----------------------------------------------------------------- score sheet
    def score_sheet(self) -> list[tuple[int, HandResult]]:
        """(hand number from 1, result) for every finished hand, void ones included."""
        return [(i + 1, h.result) for i, h in enumerate(self.hands) if h.result is not None]
