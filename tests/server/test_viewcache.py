"""The cached view JSON equals ``view(match, seat).to_dict()`` at every step of whole games."""

from __future__ import annotations

import random

import pytest

from ginrummy.bots import make_bot
from ginrummy.engine import CHANCE
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.server.viewcache import ViewCache
from ginrummy.solver import best_melds_mask
from ginrummy.views import view


@pytest.mark.parametrize(("preset", "players", "seed"), [
    ("classic", 2, 1), ("playok", 2, 2), ("eaai", 2, 3), ("arena", 2, 4), ("arena", 3, 5),
    ("arena", 4, 6),
])
def test_cached_views_equal_the_engine_views(preset: str, players: int, seed: int) -> None:
    options = {"players": players} if players != 2 else {}
    rules = Ruleset.preset(preset, **options)
    if rules.format.value == "match":
        rules = rules.replace(target=60)
    rng = random.Random(seed)
    match = Match(rules, seed=seed)
    bots = [make_bot("simple", seed + s) for s in range(players)]
    cache = ViewCache()
    checked = 0
    while not match.over and checked < 4000:
        if match.needs_deal:
            match.start_hand()
        hand = match.hand
        for seat in [None, *range(players)]:
            assert cache.view_dict(match, seat) == view(match, seat).to_dict()
            if seat is not None:
                best = best_melds_mask(hand.hands[seat])
                assert cache.best_melds(hand, seat)["deadwood"] == best.deadwood
            checked += 1
        if hand.over:
            continue
        if hand.to_move == CHANCE:
            match.apply(hand.reshuffle_order(rng))
            continue
        seen = view(match, hand.to_move)
        match.apply(bots[hand.to_move].choose(seen, hand.legal_actions()))
    assert match.over and checked > 20
