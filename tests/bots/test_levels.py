"""Every registered level plays every preset to the end, legally, and lays off optimally."""

from __future__ import annotations

import random

import pytest

from ginrummy.actions import Action, LayOff
from ginrummy.bots import BOTS, Bot, make_bot
from ginrummy.engine import CHANCE, Hand, Phase
from ginrummy.gameloop import play_match
from ginrummy.match import Match
from ginrummy.rules import Ruleset
from ginrummy.views import PlayerView, view

PRESETS: dict[str, Ruleset] = {
    "classic": Ruleset.preset("classic"),
    "playok": Ruleset.preset("playok"),
    "playok-oklahoma": Ruleset.preset("playok", oklahoma_knock_limit=True,
                                      oklahoma_spades_double=True),
    "arena2": Ruleset.preset("arena", players=2),
    "arena3": Ruleset.preset("arena", players=3),
    "arena4": Ruleset.preset("arena", players=4),
    "eaai": Ruleset.preset("eaai"),
}
BUDGET_MS = 5.0
"""A small per-move budget for the bots that search: the point here is legality."""


class Checked:
    """Wraps a bot: every action it picks must be legal in the real hand, and as defender
    its deadwood after layoffs must equal the engine's best defence."""

    def __init__(self, bot: Bot, match: Match) -> None:
        self.bot = bot
        self.name = bot.name
        self.match = match
        self.layoffs = 0

    def choose(self, v: PlayerView, legal: list[Action]) -> Action:
        hand: Hand = self.match.hand
        assert v == view(self.match, v.seat)       # the bot sees its own view only
        action = self.bot.choose(v, legal)
        assert hand.is_legal(action, v.seat), f"{self.name} played illegal {action}"
        if hand.phase is Phase.LAYOFF:
            assert isinstance(action, LayOff)
            best = hand.best_defence(hand.to_move)
            copy = hand.copy()
            copy.apply(action)
            assert copy.defences[-1].deadwood == best.deadwood
            self.layoffs += 1
        return action


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("level", list(BOTS))
def test_level_plays_complete_games(level: str, preset: str) -> None:
    rules = PRESETS[preset]
    n = rules.players
    seed = list(BOTS).index(level) * 100 + list(PRESETS).index(preset)
    match = Match(rules, seed=seed,
                  pool_cents=10_000 if n > 2 or rules.target is None else None)
    # the level in every seat, plus a simple opponent in seat 1 so hands end quickly
    bots = [Checked(make_bot(level, 10 + s, budget_ms=BUDGET_MS)
                    if s != 1 else make_bot("simple", 1), match) for s in range(n)]
    play_match(rules, bots, match=match)
    assert match.over and match.result is not None
    assert all(h.over for h in match.hands)


@pytest.mark.parametrize("level", list(BOTS))
def test_level_lays_off_optimally_as_defender(level: str) -> None:
    """Hands against the simple bot, who knocks as soon as it can: the level defends."""
    rules = PRESETS["classic"]
    layoffs = 0
    for seed in range(6):
        rng = random.Random(seed)
        hand = Hand.deal(rules, dealer=seed % 2, rng=rng)
        level_bot = make_bot(level, seed, budget_ms=BUDGET_MS)
        knocker = make_bot("simple", seed)
        while not hand.over:
            if hand.to_move == CHANCE:
                hand.apply(hand.reshuffle_order(rng))
                continue
            seat = hand.to_move
            bot = level_bot if seat == 0 else knocker
            action = bot.choose(view(hand, seat), hand.legal_actions())
            assert hand.is_legal(action)
            if seat == 0 and hand.phase is Phase.LAYOFF:
                best = hand.best_defence(0)
                hand.apply(action)
                assert hand.defences[-1].deadwood == best.deadwood
                layoffs += 1
            else:
                hand.apply(action)
    assert layoffs >= 1
