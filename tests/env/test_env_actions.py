"""The fixed action space: every legal engine action has exactly one id and back."""

from __future__ import annotations

import random

import pytest

from ginrummy import Ruleset, parse_card, parse_cards
from ginrummy.actions import Knock, Reshuffle, parse_action
from ginrummy.bots import make_bot
from ginrummy.engine import Hand, Phase
from ginrummy.env.actions import (
    BIG_GIN_ID,
    KNOCK_BASE,
    LAYOFF_ID,
    NUM_ACTIONS,
    action_name,
    decode,
    encode,
    legal_ids,
)
from ginrummy.solver import best_arrangements
from ginrummy.views import view

TABLES = [("eaai", {}), ("classic", {"stock_end": "reshuffle"}),
          ("playok", {"big_gin": True, "oklahoma_knock_limit": True}),
          ("arena", {"players": 3}), ("arena", {"players": 4})]


@pytest.mark.parametrize(("preset", "options"), TABLES)
def test_every_legal_action_has_one_id_and_back(preset: str, options: dict[str, object]) -> None:
    rules = Ruleset.preset(preset, **options)
    decisions = knocks = 0
    for seed in range(6):
        rng = random.Random(seed)
        hand = Hand.deal(rules, dealer=seed % rules.players, seed=seed)
        bots = [make_bot("simple" if s % 2 else "random", seed) for s in range(rules.players)]
        while not hand.over:
            if hand.phase is Phase.RESHUFFLE:
                hand.apply(hand.reshuffle_order(rng))
                continue
            legal = hand.legal_actions()
            ids = legal_ids(hand)
            assert sorted(encode(a) for a in legal) == ids  # one id each, no other id
            for action_id in ids:
                action = decode(action_id, hand)
                assert hand.is_legal(action) and encode(action) == action_id
            for action_id in rng.sample(sorted(set(range(NUM_ACTIONS)) - set(ids)), 3):
                with pytest.raises(ValueError, match=f"action id {action_id} "):
                    decode(action_id, hand)
            knocks += any(KNOCK_BASE <= i < LAYOFF_ID for i in ids)
            decisions += 1
            hand.apply(bots[hand.to_move].choose(view(hand, hand.to_move), legal))
    assert decisions > 150 and knocks > 2, (decisions, knocks)


def test_a_knock_with_other_melds_has_the_same_id() -> None:
    arrangements = best_arrangements(parse_cards("Ts Js Qs Th Td 4c 5c 6c"))
    nine = parse_card("9h")
    assert len(arrangements) == 2
    assert {encode(Knock(nine, a.melds)) for a in arrangements} == {KNOCK_BASE + nine}


def test_names_and_chance() -> None:
    assert action_name(0) == "stock" and action_name(BIG_GIN_ID) == "big gin"
    assert action_name(3) == "discard As" and action_name(KNOCK_BASE + 51) == "knock Kc"
    assert encode(parse_action("layoff [As 2s 3s]")) == LAYOFF_ID
    with pytest.raises(ValueError, match="chance action"):
        encode(Reshuffle((1, 2)))
    with pytest.raises(ValueError, match=r"outside 0\.\.108"):
        action_name(109)


def test_the_ids_follow_the_engine_under_the_openspiel_options() -> None:
    """R4.7 wall and R4.9: the legal ids are the engine's legal moves, in env() and in the
    vector's rows, over whole hands (with walls, knocks and the take limit)."""
    import numpy as np

    from ginrummy.env import VectorGinRummy, raw_env
    from ginrummy.rules import OPENSPIEL_OPTIONS

    game = raw_env(options=OPENSPIEL_OPTIONS)
    vector = VectorGinRummy(8, options=OPENSPIEL_OPTIONS)
    _, masks, _ = vector.reset(seed=1)
    rng = np.random.default_rng(1)
    walls = 0
    for seed in range(60):
        game.reset(seed=seed)
        while not game.game.over:
            hand = game.game.hand
            walls += hand.wall
            assert legal_ids(hand) == sorted({encode(a) for a in hand.legal_actions()})
            game.step(int(rng.choice(legal_ids(hand))))
        for _ in range(40):
            for row, g in enumerate(vector.games):
                expected = sorted({encode(a) for a in g.hand.legal_actions()})
                assert list(np.flatnonzero(masks[row])) == expected
            actions = (rng.random(masks.shape) * masks).argmax(axis=1)
            _, masks, _, _, _, _ = vector.step(actions)
    assert walls > 0
