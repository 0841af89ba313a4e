"""The solver against the brute-force oracle on many random hands (R1.3, R1.4).

100,000 random hands in total, split over fixed seeds so that ``pytest -n 2`` spreads them:
uniform hands and meld-rich hands (cards from a narrow band of 4-5 ranks in all suits, or
from two suits), sizes 7 to 11 mostly, 0 to 6 too. Plus every hand of up to 3 cards.
"""

from __future__ import annotations

import random
from itertools import combinations

import oracle
import pytest

from ginrummy.cards import CardSet
from ginrummy.solver import (
    best_arrangements,
    best_melds,
    deadwood,
    deadwood_mask,
    is_meld,
)
from helpers import soak_except

pytestmark = pytest.mark.slow  # 100,000 hands against the brute force: several seconds

HANDS_PER_CASE = 12_500  # x 8 cases = 100,000 hands


def _random_hand(rng: random.Random) -> int:
    size = rng.choice((7, 8, 9, 10, 10, 11, 11)) if rng.random() < 0.9 else rng.randint(0, 6)
    kind = rng.random()
    if kind < 0.4:
        pool = list(range(52))
    elif kind < 0.85:
        low = rng.randrange(0, 10)
        width = rng.choice((4, 5))
        pool = [s * 13 + r for s in range(4) for r in range(low, min(13, low + width))]
    else:
        suits = rng.sample(range(4), 2)
        low = rng.randrange(0, 7)
        pool = [s * 13 + r for s in suits for r in range(low, low + 7)]
        pool += rng.sample([c for c in range(52) if c not in pool], 3)
    return oracle.mask_of(rng.sample(pool, min(size, len(pool))))


def _check_hand(mask: int) -> None:
    least, minimal = oracle.minimal_arrangements(mask)
    assert deadwood_mask(mask) == least, CardSet(mask)
    assert deadwood(CardSet(mask)) == least
    best = best_melds(mask)
    _check_arrangement(mask, best, least)
    arrangements = best_arrangements(mask)
    for arrangement in arrangements:
        _check_arrangement(mask, arrangement, least)
    assert arrangements[0] == best
    ours = [frozenset(oracle.mask_of(m) for m in a.melds) for a in arrangements]
    assert len(set(ours)) == len(ours), f"repeated arrangement for {CardSet(mask)}"
    assert set(ours) == minimal, CardSet(mask)


def _check_arrangement(mask: int, arrangement: object, least: int) -> None:
    from ginrummy.solver import Arrangement

    assert isinstance(arrangement, Arrangement)
    assert arrangement.deadwood == least
    used = 0
    for meld in arrangement.melds:
        assert is_meld(meld) and (oracle.is_run(meld) or oracle.is_set(meld))
        if oracle.is_run(meld):
            assert list(meld) == sorted(meld)
        else:
            assert [c // 13 for c in meld] == sorted(c // 13 for c in meld)
        meld_mask = oracle.mask_of(meld)
        assert not used & meld_mask
        used |= meld_mask
    assert used | oracle.mask_of(arrangement.unmatched) == mask
    assert not used & oracle.mask_of(arrangement.unmatched)
    assert len(arrangement.unmatched) == len(set(arrangement.unmatched))
    assert sum(oracle.value(c) for c in arrangement.unmatched) == least
    assert arrangement.cards == CardSet(mask)


@pytest.mark.parametrize("seed", soak_except(range(8), keep={0, 1}))  # 2-7: scripts/soak
def test_R1_4_least_deadwood_and_arrangements_match_oracle(seed: int) -> None:
    rng = random.Random(1000 + seed)
    for _ in range(HANDS_PER_CASE):
        _check_hand(_random_hand(rng))


def test_R1_4_every_hand_of_up_to_three_cards() -> None:
    for size in range(4):
        for cards in combinations(range(52), size):
            mask = oracle.mask_of(cards)
            assert deadwood_mask(mask) == oracle.min_deadwood(mask)


def test_R1_4_all_four_of_a_kind_triples_with_runs() -> None:
    # Every hand of a full rank plus two neighbours in up to all suits: the triple choices.
    rng = random.Random(7)
    for rank in range(13):
        quad = [s * 13 + rank for s in range(4)]
        near = [s * 13 + r for s in range(4) for r in (rank - 2, rank - 1, rank + 1, rank + 2)
                if 0 <= r < 13]
        for _ in range(300):
            extra = rng.sample(near, min(len(near), rng.randint(2, 7)))
            _check_hand(oracle.mask_of(quad + extra))
