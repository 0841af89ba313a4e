"""discard_deadwoods_mask against deadwood_mask on each discard (uniform and meld-rich hands)."""

from __future__ import annotations

import random

import pytest

from ginrummy.cards import CARD_VALUES
from ginrummy.solver import deadwood_mask
from ginrummy.solver.discards import (
    discard_deadwoods_mask,
    least_deadwood_after_discard,
    loose_cards_mask,
)


@pytest.mark.parametrize("seed", [1, 2])
def test_discard_deadwoods_match_deadwood_of_each_rest(seed: int) -> None:
    rng = random.Random(seed)
    for i in range(10_000):
        size = rng.randint(1, 11)
        if i % 2:
            cards = rng.sample(range(52), size)
        else:  # meld-rich: a narrow band of ranks, so sets and runs overlap
            ranks = rng.sample(range(13), 4)
            cards = rng.sample([s * 13 + r for s in range(4) for r in ranks], size)
        mask = sum(1 << c for c in cards)
        got = sorted(discard_deadwoods_mask(mask), key=lambda pair: pair[1])
        assert got == [(deadwood_mask(mask ^ 1 << c), c) for c in sorted(cards)], cards


@pytest.mark.parametrize("seed", [3, 4])
def test_loose_cards_and_least_deadwood_after_discard(seed: int) -> None:
    rng = random.Random(seed)
    for i in range(10_000):
        size = rng.randint(1, 11)
        if i % 2:
            cards = rng.sample(range(52), size)
        else:
            ranks = rng.sample(range(13), 4)
            cards = rng.sample([s * 13 + r for s in range(4) for r in ranks], size)
        mask = sum(1 << c for c in cards)
        whole = deadwood_mask(mask)
        loose = sum(1 << c for c in cards
                    if deadwood_mask(mask ^ 1 << c) == whole - CARD_VALUES[c])
        assert loose_cards_mask(mask) == loose, cards
        forbidden = rng.choice([*cards, None])
        rest = [c for c in cards if c != forbidden]
        if rest:
            assert least_deadwood_after_discard(mask, forbidden) == min(
                deadwood_mask(mask ^ 1 << c) for c in rest), cards
