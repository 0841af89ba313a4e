"""Scoring of an ended hand (docs/rules.md R5 for matches, R6 for the single-hand game)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from ginrummy.rules import Format, Ruleset, UndercutTies


class Outcome(StrEnum):
    """How a hand ended."""

    GIN = "gin"
    BIG_GIN = "big_gin"
    KNOCK = "knock"
    UNDERCUT = "undercut"
    VOID = "void"


@dataclass(frozen=True)
class HandResult:
    """The result of one hand.

    ``points`` are the match points scored per seat (only the winner's is non-zero);
    ``penalties`` are the single-hand penalty points per seat (``None`` in a match).
    ``deadwood`` is each seat's deadwood after layoffs (the knocker's as laid down).
    ``notes`` explain the score in words ("gin bonus 25", "Oklahoma: doubled", ...).
    """

    outcome: Outcome
    knocker: int | None
    winner: int | None
    deadwood: tuple[int, ...]
    points: tuple[int, ...]
    penalties: tuple[int, ...] | None
    multiplier: int
    undercutters: tuple[int, ...]
    notes: tuple[str, ...]

    @property
    def void(self) -> bool:
        """True when the hand ended with no score."""
        return self.outcome is Outcome.VOID

    def to_dict(self) -> dict[str, object]:
        """Plain JSON values."""
        return {
            "outcome": self.outcome.value,
            "knocker": self.knocker,
            "winner": self.winner,
            "deadwood": list(self.deadwood),
            "points": list(self.points),
            "penalties": None if self.penalties is None else list(self.penalties),
            "multiplier": self.multiplier,
            "undercutters": list(self.undercutters),
            "notes": list(self.notes),
        }


def void_result(players: int) -> HandResult:
    """A void hand: no winner, nothing scored (R5.5, R6.1)."""
    zeros = (0,) * players
    return HandResult(Outcome.VOID, None, None, zeros, zeros, None, 1, (), ("void hand",))


def score_hand(
    rules: Ruleset,
    knocker: int,
    deadwood: Sequence[int],
    gin: bool,
    big_gin: bool,
    spade_upcard: bool,
) -> HandResult:
    """Score a knock or gin by ``knocker``; ``deadwood[i]`` is seat i's deadwood after layoffs."""
    n = len(deadwood)
    multiplier = 2 if rules.oklahoma_spades_double and spade_upcard else 1
    k = deadwood[knocker]
    defenders = [(knocker + i) % n for i in range(1, n)]
    notes: list[str] = []
    tie_to_defender = rules.undercut_ties is UndercutTies.DEFENDER
    if gin:
        outcome = Outcome.BIG_GIN if big_gin else Outcome.GIN
        bonus = rules.big_gin_bonus if big_gin else rules.gin_bonus
        winner = knocker
        undercutters: list[int] = []
        notes.append(f"{'big gin' if big_gin else 'gin'} bonus {bonus}")
    else:
        bonus = 0
        undercutters = [
            d for d in defenders if deadwood[d] < k or (tie_to_defender and deadwood[d] == k)
        ]
        if undercutters:
            outcome = Outcome.UNDERCUT
            # least deadwood wins; ties between defenders go to the nearest after the knocker
            winner = min(undercutters, key=lambda d: (deadwood[d], defenders.index(d)))
        else:
            outcome = Outcome.KNOCK
            winner = knocker
    if multiplier == 2:
        notes.append("Oklahoma: spade upcard, hand doubled")

    points = [0] * n
    penalties: list[int] | None = None
    if rules.format is Format.MATCH:
        if gin:
            points[winner] = deadwood[defenders[0]] + bonus
        elif outcome is Outcome.UNDERCUT:
            points[winner] = k - deadwood[winner] + rules.undercut_bonus
            notes.append(f"undercut bonus {rules.undercut_bonus}")
        else:
            points[winner] = deadwood[defenders[0]] - k
            if deadwood[defenders[0]] == k:
                notes.append("tie: the knocker wins for 0 points (strict)")
        points[winner] *= multiplier
    else:
        penalties = [0] * n
        base = deadwood[winner]
        for seat in range(n):
            if seat == winner:
                continue
            if gin:
                penalties[seat] = deadwood[seat] + bonus
            else:
                penalties[seat] = deadwood[seat] - base
                if seat == knocker and outcome is Outcome.UNDERCUT:
                    penalties[seat] += rules.knocker_undercut_penalty
            penalties[seat] *= multiplier
        if outcome is Outcome.UNDERCUT:
            notes.append(f"knocker penalty {rules.knocker_undercut_penalty}")
            for d in undercutters:
                notes.append(f"undercut bonus {rules.undercut_bonus} (seat {d}, label)")
    return HandResult(
        outcome=outcome,
        knocker=knocker,
        winner=winner,
        deadwood=tuple(deadwood),
        points=tuple(points),
        penalties=None if penalties is None else tuple(penalties),
        multiplier=multiplier,
        undercutters=tuple(undercutters),
        notes=tuple(notes),
    )


def split_pool(
    pool_cents: int, penalties: Sequence[int], winner: int, threshold: int
) -> tuple[int, ...]:
    """The prize pool split of R6.4 (``linear_cap``) in integer cents, adding up to the pool.

    Each other player i below ``threshold`` gets
    floor(pool * 25% / (n - 1) * (threshold - penalty_i) / threshold); the winner the rest.
    """
    if pool_cents < 0:
        raise ValueError(f"pool_cents must be >= 0, got {pool_cents}")
    if threshold < 1:
        raise ValueError(f"threshold must be >= 1, got {threshold}")
    n = len(penalties)
    shares = [0] * n
    for seat, penalty in enumerate(penalties):
        if seat != winner and penalty < threshold:
            shares[seat] = pool_cents * 25 * (threshold - penalty) // (100 * (n - 1) * threshold)
    shares[winner] = pool_cents - sum(shares)
    return tuple(shares)
