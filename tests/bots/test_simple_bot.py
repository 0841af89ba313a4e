"""The baseline players do what the engine issue says, decided from their view alone."""

from __future__ import annotations

import random

from ginrummy.actions import DRAW_DISCARD, DRAW_STOCK, Discard, Knock, LayOff
from ginrummy.bots import RandomBot, SimpleBot, make_bot
from ginrummy.bots.simple import take_lowers_deadwood
from ginrummy.cards import CARD_VALUES, cards_of
from ginrummy.engine import CHANCE, Hand, Phase
from ginrummy.rules import Ruleset
from ginrummy.solver import best_arrangements, deadwood_mask
from ginrummy.views import view


def _random_hand(rng: random.Random, size: int) -> list[int]:
    if rng.random() < 0.5:
        return rng.sample(range(52), size)
    ranks = rng.sample(range(13), 5)
    return rng.sample([s * 13 + r for s in range(4) for r in ranks], size)


def test_take_check_matches_its_definition() -> None:
    """Taking the discard is right exactly when some other discard then lowers deadwood."""
    rng = random.Random(3)
    for _ in range(20_000):
        cards = _random_hand(rng, 11)
        top, hand = cards[0], sum(1 << c for c in cards[1:])
        lowers = min(deadwood_mask((hand | 1 << top) ^ 1 << d) for d in cards[1:])
        assert take_lowers_deadwood(hand, top) == (lowers < deadwood_mask(hand))


def _decisions(rules: Ruleset, seeds: range) -> list[tuple[Hand, object, object]]:
    """(hand before, view, action chosen) for every decision of simple-vs-simple hands."""
    out = []
    for seed in seeds:
        rng = random.Random(seed)
        hand = Hand.deal(rules, dealer=seed % 2, rng=rng)
        bots = [SimpleBot(), SimpleBot()]
        while not hand.over:
            if hand.to_move == CHANCE:
                hand.apply(hand.reshuffle_order(rng))
                continue
            v = view(hand, hand.to_move)
            action = bots[hand.to_move].choose(v, hand.legal_actions())
            out.append((hand.copy(), v, action))
            hand.apply(action)
    return out


def test_simple_bot_follows_its_rules() -> None:
    rules = Ruleset.preset("eaai")
    for hand, _view, action in _decisions(rules, range(60)):
        seat = hand.to_move
        mask = hand.hands[seat]
        legal = hand.legal_actions()
        if hand.phase in (Phase.OFFER, Phase.DRAW):
            top = hand.top_discard
            assert top is not None
            best = min(deadwood_mask((mask | 1 << top) ^ 1 << d) for d in cards_of(mask))
            wants = best < deadwood_mask(mask) and DRAW_DISCARD in legal
            assert (action == DRAW_DISCARD) == wants
        elif hand.phase is Phase.DISCARD:
            knocks = [a for a in legal if isinstance(a, Knock)]
            assert isinstance(action, Knock) == bool(knocks)  # knocks as soon as allowed
            if isinstance(action, Discard):
                # the highest card unmatched in some least-deadwood arrangement
                unmatched = {c for a in best_arrangements(mask) for c in a.unmatched}
                allowed = {a.card for a in legal if isinstance(a, Discard)}
                candidates = unmatched & allowed
                if candidates:
                    assert action.card in candidates
                    assert CARD_VALUES[action.card] == max(CARD_VALUES[c] for c in candidates)
        elif hand.phase is Phase.LAYOFF:
            assert isinstance(action, LayOff)
            assert action == legal[0]  # the optimal defence the engine proposes


def test_bots_are_deterministic_given_a_seed() -> None:
    rules = Ruleset.preset("classic")
    for name in ("random", "simple"):
        logs = []
        for _ in range(2):
            hand = Hand.deal(rules, 0, seed=11)
            bots = [make_bot(name, 5), make_bot(name, 6)]
            while not hand.over:
                hand.apply(bots[hand.to_move].choose(view(hand, hand.to_move),
                                                     hand.legal_actions()))
            logs.append(hand.action_log_text())
        assert logs[0] == logs[1]


def test_random_bot_picks_among_legal_actions() -> None:
    hand = Hand.deal(Ruleset.preset("eaai"), 0, seed=2)
    bot = RandomBot(1)
    seen = {str(bot.choose(view(hand, hand.to_move), hand.legal_actions())) for _ in range(50)}
    assert seen == {"take", "pass"}
    assert DRAW_STOCK not in hand.legal_actions()
