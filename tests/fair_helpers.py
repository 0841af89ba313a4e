"""Matches dealt the provably fair way (``ginrummy.fair``), for the fair and verify tests:
each hand's deck and reshuffles come from seeds, and the record carries each hand's fair data."""

from __future__ import annotations

import random
from typing import Any

from ginrummy import fair
from ginrummy.bots import make_bot
from ginrummy.engine import CHANCE, Phase
from ginrummy.match import Match
from ginrummy.records import GameRecord
from ginrummy.rules import Ruleset
from ginrummy.views import view


def fair_match_record(seed: int, bots: str = "random", max_hands: int = 40,
                      **options: Any) -> dict[str, Any]:
    """A match between bots (``classic`` with reshuffles, plus ``options``) whose every deal
    and reshuffle comes from seeds drawn from ``random.Random(seed)``, as a record's JSON."""
    rng = random.Random(seed)
    rules = Ruleset.preset("classic", **({"target": 60, "stock_end": "reshuffle"} | options))
    seats = [make_bot(bots, seed + i) for i in range(rules.players)]
    match = Match(rules, seed=seed)
    fair_data: list[dict[str, Any]] = []
    for _ in range(max_hands):
        if match.over:
            break
        server_seed = rng.randbytes(fair.SEED_BYTES)
        client_seeds = [rng.randbytes(fair.SEED_BYTES) for _ in range(rules.players)]
        hand = match.start_hand(fair.deck(server_seed, client_seeds))
        fair_data.append(fair.FairData(fair.commitment(server_seed), server_seed,
                                       tuple(client_seeds), (False, True, True, True)
                                       [:rules.players]).to_json())
        while hand.phase is not Phase.OVER:
            if hand.to_move == CHANCE:
                match.apply(fair.reshuffle_for(hand, server_seed, client_seeds))
                continue
            seat = hand.to_move
            match.apply(seats[seat].choose(view(match, seat), hand.legal_actions()), seat)
    names = [f"{bots} {i}" for i in range(rules.players)]
    return GameRecord.from_match(match, names, fair_data).to_json()
