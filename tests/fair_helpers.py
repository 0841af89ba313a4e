"""Matches dealt the provably fair way (``ginrummy.fair``), for the fair and verify tests:
each hand's deck and reshuffles come from seeds, and the record carries each hand's fair data."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ginrummy import fair
from ginrummy.bots import make_bot
from ginrummy.engine import CHANCE, Phase
from ginrummy.match import Match
from ginrummy.records import GameRecord
from ginrummy.rules import Ruleset
from ginrummy.views import view


def hand_seeds(rng: random.Random, players: int) -> tuple[bytes, list[bytes], tuple[bool, ...]]:
    """A hand's seeds as a scheme 2 server makes them: seat 0's from its client (drawn from
    ``rng``), the others' server-made (derived from the server seed)."""
    server_seed = rng.randbytes(fair.SEED_BYTES)
    seeds = [rng.randbytes(fair.SEED_BYTES)] + [fair.server_made_seed(server_seed, seat)
                                                 for seat in range(1, players)]
    return server_seed, seeds, (False,) + (True,) * (players - 1)


SeedMaker = Callable[[random.Random, int], tuple[bytes, list[bytes], tuple[bool, ...]]]
"""Makes a hand's (server seed, client seeds, server-made flags) from a generator and the
number of players."""


def fair_match_record(seed: int, bots: str = "random", max_hands: int = 40,
                      make_seeds: SeedMaker = hand_seeds, first_dealer: int | None = None,
                      scheme: int = fair.SCHEME, **options: Any) -> dict[str, Any]:
    """A match between bots (``classic`` with reshuffles, plus ``options``) whose first
    dealer, every deal and every reshuffle come from scheme 2 seeds drawn from
    ``random.Random(seed)`` (:func:`hand_seeds`), as a record's JSON. ``make_seeds``,
    ``first_dealer`` and ``scheme`` make other records: a dishonest server's, an older
    server's."""
    rng = random.Random(seed)
    rules = Ruleset.preset("classic", **({"target": 60, "stock_end": "reshuffle"} | options))
    seats = [make_bot(bots, seed + i) for i in range(rules.players)]
    first = make_seeds(rng, rules.players)
    if first_dealer is None:
        first_dealer = fair.first_dealer(first[0], first[1], rules.players)
    match = Match(rules, seed=seed, first_dealer=first_dealer)
    fair_data: list[dict[str, Any]] = []
    for _ in range(max_hands):
        if match.over:
            break
        server_seed, client_seeds, made = first if not fair_data else make_seeds(
            rng, rules.players)
        hand = match.start_hand(fair.deck(server_seed, client_seeds))
        fair_data.append(fair.FairData(fair.commitment(server_seed), server_seed,
                                       tuple(client_seeds), made, scheme).to_json())
        while hand.phase is not Phase.OVER:
            if hand.to_move == CHANCE:
                match.apply(fair.reshuffle_for(hand, server_seed, client_seeds))
                continue
            seat = hand.to_move
            match.apply(seats[seat].choose(view(match, seat), hand.legal_actions()), seat)
    names = [f"{bots} {i}" for i in range(rules.players)]
    return GameRecord.from_match(match, names, fair_data).to_json()
