"""The expert's play-out follows the engine's rules (issue 10, point 3).

:func:`~ginrummy.bots.rollout.play_out` restates the turn rules on bitmasks for speed. Here
it plays seeded deals of every preset and of every rule option that changes play, from the
deal and from positions part-way through, and its moves (the ``trace`` it writes) are played
in the engine on the same deck: before each move, whose turn it is, the draw or offer moves
the play-out allowed (exactly the engine's), the card just taken; after it, the stock size and
the face-up card; at each discard, whether the engine would accept a knock there (its knock
limit and big gin); then how and when the hand ends (a knock's whole result, the stock floor,
the reshuffle point) and the value the play-out returns.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from ginrummy.actions import Action, Discard, DrawDiscard, Knock
from ginrummy.bots import SimpleBot
from ginrummy.bots.belief import World
from ginrummy.bots.expert import ExpertBot, discard_scorer, knock_scorer, playout_rules
from ginrummy.bots.rollout import DISCARD, DRAW, OFFER, PlayoutRules, Step, hand_value, play_out
from ginrummy.engine import CHANCE, Hand, Phase
from ginrummy.rules import OPENSPIEL_OPTIONS, OPTION_NAMES, Ruleset, StockEnd, UpcardOffer
from ginrummy.solver import best_melds_mask, deadwood_mask
from ginrummy.solver.openspiel import openspiel_min_deadwood
from ginrummy.views import view

# Every option that changes how a hand is played or scored, each varied from its default
# in some configuration below; the others only act between hands or on what is shown.
IN_PLAY = {
    "players", "hand_size", "format", "target", "upcard_offer", "stock_end", "max_reshuffles",
    "knock_limit", "gin_bonus", "undercut_bonus", "undercut_ties", "layoff_chain",
    "oklahoma_spades_double", "oklahoma_knock_limit", "big_gin", "big_gin_bonus",
    "knocker_undercut_penalty", "no_rediscard_of_taken_card", "melds_after_gin",
    "openspiel_limits",
}
BETWEEN_HANDS = {
    "next_dealer", "game_bonus", "line_bonus", "shutout_bonus", "payout", "payout_threshold",
    "discard_history_visible",
}

CONFIGS: dict[str, Ruleset] = {
    "classic": Ruleset.preset("classic"),
    "playok": Ruleset.preset("playok"),
    "eaai": Ruleset.preset("eaai"),
    "arena": Ruleset.preset("arena"),
    "arena-3": Ruleset.preset("arena", players=3),
    "arena-4": Ruleset.preset("arena", players=4),
    "offer-none": Ruleset.preset("eaai", upcard_offer="none"),
    "offer-dealer-first": Ruleset.preset("classic", upcard_offer="dealer_first"),
    "offer-non-dealer-first-3": Ruleset.preset("arena", players=3,
                                               upcard_offer="non_dealer_first"),
    "offer-non-dealer-first-4": Ruleset.preset("arena", players=4,
                                               upcard_offer="non_dealer_first"),
    "void-at-two-single": Ruleset.preset("arena", stock_end="void_at_two"),
    "reshuffle-match": Ruleset.preset("eaai", stock_end="reshuffle", knock_limit=2),
    "reshuffle-none-left": Ruleset.preset("arena", max_reshuffles=0, knock_limit=1),
    "reshuffle-4": Ruleset.preset("arena", players=4, max_reshuffles=1, knock_limit=1),
    "gin-only": Ruleset.preset("classic", knock_limit=0),
    "knock-limit-5": Ruleset.preset("playok", knock_limit=5),
    "layoff-none-match": Ruleset.preset("classic", layoff_chain="none"),
    "layoff-own-3": Ruleset.preset("arena", players=3, layoff_chain="own"),
    "layoff-own-4": Ruleset.preset("arena", players=4, layoff_chain="own"),
    "big-gin": Ruleset.preset("classic", big_gin=True, big_gin_bonus=50, knock_limit=0),
    "big-gin-3": Ruleset.preset("arena", players=3, big_gin=True, knock_limit=0),
    "oklahoma-knock": Ruleset.preset("playok", oklahoma_knock_limit=True),
    "oklahoma-spades": Ruleset.preset("playok", oklahoma_spades_double=True),
    "oklahoma-single": Ruleset.preset("arena", oklahoma_knock_limit=True,
                                      oklahoma_spades_double=True),
    "undercut-strict": Ruleset.preset("classic", undercut_ties="strict"),
    "undercut-defender-single": Ruleset.preset("arena", undercut_ties="defender",
                                               payout_threshold=50),
    "no-bonuses": Ruleset.preset("eaai", gin_bonus=0, undercut_bonus=0),
    "penalty-0": Ruleset.preset("arena", players=3, knocker_undercut_penalty=0,
                                undercut_bonus=5),
    "target-10": Ruleset.preset("classic", target=10),
    "hand-size-7": Ruleset.preset("eaai", hand_size=7),
    "hand-size-10-3": Ruleset.preset("arena", players=3, hand_size=10),
    "hand-size-4-4": Ruleset.preset("arena", players=4, hand_size=4),
    "rediscard-allowed": Ruleset.preset("eaai", no_rediscard_of_taken_card=False),
    "wall": Ruleset.preset("eaai", stock_end="wall", knock_limit=3),
    "layoff-two": Ruleset.preset("classic", layoff_chain="two"),
    "melds-after-gin": Ruleset.preset("playok", knock_limit=5, melds_after_gin=True),
    "openspiel": Ruleset.preset("eaai", **OPENSPIEL_OPTIONS),
}
DEALS = 40
"""Deals per configuration; each is played out from the deal and from a later position."""
SEEN: dict[str, set[str]] = {
    "classic": {"void", "layoff"},
    "playok": {"undercut"},
    "knock-limit-5": {"undercut", "gin"},
    "arena-4": {"reshuffle", "layoff"},
    "reshuffle-match": {"reshuffle"},
    "reshuffle-4": {"reshuffle", "layoff"},
    "reshuffle-none-left": {"void"},
    "layoff-none-match": {"layoff"},
    "layoff-own-3": {"layoff"},
    "big-gin": {"big_gin"},
    "gin-only": {"gin", "void"},
    "wall": {"void"},
    "layoff-two": {"layoff"},
    "melds-after-gin": {"gin"},
}
"""What some deals of a configuration must show, so that each path is exercised."""


def test_every_option_is_classified_and_every_option_in_play_is_varied() -> None:
    assert IN_PLAY | BETWEEN_HANDS == OPTION_NAMES
    assert not IN_PLAY & BETWEEN_HANDS
    default = Ruleset()
    varied = {name for rules in CONFIGS.values() for name in OPTION_NAMES
              if getattr(rules, name) != getattr(default, name)}
    assert varied >= IN_PLAY, IN_PLAY - varied


def _start(hand: Hand) -> dict[str, Any]:
    """play_out's arguments for the engine's position (the seat to move, its phase)."""
    phase = hand.phase
    args: dict[str, Any] = {"seat": hand.to_move, "taken": None, "passes": 0}
    if phase is Phase.OFFER:
        args |= {"phase": OFFER, "top": hand.top_discard, "passes": hand.passes}
    elif phase is Phase.DRAW:
        assert not hand.stock_only  # the expert draws itself then (its after-offer scorer)
        args |= {"phase": DRAW, "top": hand.top_discard}
    else:
        assert phase is Phase.DISCARD
        # after a take the card below is out of play for the play-out: it is never shown
        top = hand.top_discard if hand.taken is None else None
        args |= {"phase": DISCARD, "top": top, "taken": hand.taken}
    return args


def _advance(hand: Hand, rng: random.Random, moves: int) -> None:
    """Up to ``moves`` random moves other than knocks (reshuffles from ``rng``); a forced
    stock draw after an all-pass offer is taken too (a play-out does not start there)."""
    for _ in range(moves):
        if hand.over or hand.phase is Phase.LAYOFF:
            return
        if hand.to_move == CHANCE:
            hand.apply(hand.reshuffle_order(rng))
            continue
        hand.apply(rng.choice([a for a in hand.legal_actions() if not isinstance(a, Knock)]))
    if hand.phase is Phase.DRAW and hand.stock_only:
        hand.apply("stock")
    if hand.to_move == CHANCE:
        hand.apply(hand.reshuffle_order(rng))


def _check_moves(hand: Hand, trace: list[Step]) -> Step:
    """Play the trace's moves in the engine, checking each; the last step (the end)."""
    for step in trace:
        if step.action is None:
            return step
        assert hand.to_move == step.seat, step
        legal = hand.legal_actions()
        if step.offered:
            assert set(step.offered) == set(legal), step
        if hand.phase is Phase.DISCARD:
            assert hand.taken == step.taken, step
            big_gins = [a for a in legal if isinstance(a, Knock) and a.discard is None]
            action = step.action
            if isinstance(action, Knock) and action.discard is None:
                assert deadwood_mask(hand.hands[step.seat]) == 0
            else:
                assert isinstance(action, Knock | Discard)
                card = action.discard if isinstance(action, Knock) else action.card
                assert card is not None
                assert not big_gins, step  # the play-out goes big gin whenever it may
                rest = hand.hands[step.seat] & ~(1 << card)
                assert step.deadwood == deadwood_mask(rest)
                knock = Knock(card, best_melds_mask(rest).melds)
                open_ = hand.rules.openspiel_limits is False or openspiel_min_deadwood(
                    hand.hands[step.seat], hand.rules.cards_per_hand) <= hand.knock_limit
                assert hand.is_legal(knock) == (step.deadwood <= hand.knock_limit
                                                and open_), step
        hand.apply(step.action)
        if step.end == "knock":
            return step
        assert len(hand.stock) == step.stock, step
        if step.top is None:
            assert isinstance(step.action, DrawDiscard), step
        else:
            assert hand.top_discard == step.top, step
    raise AssertionError("the trace has no end")


def _check_end(hand: Hand, end: Step, value: float, ctx: PlayoutRules, root: int) -> str:
    """The engine ends the hand as the play-out did; the kind of ending."""
    if end.end == "knock":
        while not hand.over:  # each defender lays off at his best (the engine's proposal)
            hand.apply(hand.legal_actions()[0])
        assert hand.result is not None and hand.result == end.result
        assert value == hand_value(ctx, hand.result, root)
        return hand.result.outcome.value
    assert value == 0.0
    if end.end == "floor":
        if hand.rules.stock_end is StockEnd.WALL:  # the play-out passed at the wall
            assert hand.over and hand.result is not None and hand.result.void
            return "void"
        if hand.rules.stock_end is StockEnd.VOID_AT_TWO:
            assert hand.over and hand.result is not None and hand.result.void
            assert len(hand.stock) <= 2
            return "void"
        # a reshuffle is not played out: the play-out stops where the engine reshuffles
        assert not hand.stock
        if hand.phase is Phase.RESHUFFLE:
            return "reshuffle"
        assert hand.over and hand.result is not None and hand.result.void
        return "void"
    assert end.end == "turns", end
    assert not hand.over
    return "turns"


def _play_both(hand: Hand, root: int, known: bool,
               scores: tuple[int, ...] | None) -> list[str]:
    """Play out from ``hand``'s position and replay it in the engine; what happened: the
    ending, and ``"layoff"`` when a defender laid off."""
    ctx = playout_rules(view(hand, root))
    if known or scores is not None:
        ctx = PlayoutRules(ctx.rules, ctx.players, ctx.knock_limit, ctx.dealer,
                           ctx.spade_upcard, scores, tuple(hand.known) if known else None)
    trace: list[Step] = []
    value = play_out(ctx, list(hand.hands), list(hand.stock), root=root, trace=trace,
                     **_start(hand))
    end = _check_moves(hand, trace)
    tags = [_check_end(hand, end, value, ctx, root)]
    if any(defence.layoffs for defence in hand.defences):
        tags.append("layoff")
    return tags


@pytest.mark.parametrize("name", list(CONFIGS))
def test_play_out_moves_are_the_engines(name: str) -> None:
    rules = CONFIGS[name]
    n = rules.players
    ends: Counter[str] = Counter()
    for seed in range(DEALS):
        rng = random.Random(seed)
        scores = (rng.randrange(100), rng.randrange(100)) if rules.target == 100 else None
        hand = Hand.deal(rules, dealer=seed % n, seed=seed)
        ends.update(_play_both(hand.copy(), seed % n, seed % 2 == 1, scores))
        _advance(hand, rng, rng.randrange(1, 40))
        if not hand.over and hand.phase is not Phase.LAYOFF and hand.to_move != CHANCE:
            ends.update(_play_both(hand, (seed + 1) % n, seed % 3 == 0, None))
    assert ends["knock"] + ends["gin"] >= 10, ends
    assert ends.keys() >= SEEN.get(name, set()), ends


# ----------------------------------------------------------------- the expert's entry points
def _value_from(hand: Hand, ctx: PlayoutRules, root: int) -> float:
    """What a play-out from the engine's position is worth to ``root`` (0 once void, or
    where the engine would reshuffle: play-outs do not reshuffle)."""
    if hand.phase is Phase.LAYOFF:
        while not hand.over:
            hand.apply(hand.legal_actions()[0])
    if hand.over:
        assert hand.result is not None
        return hand_value(ctx, hand.result, root)
    if hand.phase is Phase.RESHUFFLE:
        return 0.0
    if hand.phase is Phase.DRAW and hand.stock_only:
        hand.apply("stock")
    return play_out(ctx, list(hand.hands), list(hand.stock), root=root, **_start(hand))


@pytest.mark.parametrize("name", ["playok", "eaai", "offer-non-dealer-first-3",
                                  "offer-non-dealer-first-4", "arena-4", "reshuffle-match",
                                  "big-gin", "layoff-own-3"])
def test_the_experts_scorers_start_where_the_engine_is(name: str) -> None:
    """Each move the expert weighs (take, stock, pass, each discard, each knock) is scored by
    a play-out starting where the engine stands after that move: the expert's own reading of
    the offer's end, the stock floor and the knock agree with the engine's."""
    rules = CONFIGS[name]
    expert = ExpertBot(1)
    simple = SimpleBot()
    checked: Counter[str] = Counter()
    for seed in range(8):
        rng = random.Random(seed)
        hand = Hand.deal(rules, dealer=seed % rules.players, seed=seed)
        for decision in range(60):  # the simple bot plays, never knocking, until the end
            if hand.over or hand.phase in (Phase.LAYOFF, Phase.RESHUFFLE):
                break
            seat = hand.to_move
            seen = view(hand, seat)
            legal = hand.legal_actions()
            knocks = [a for a in legal if isinstance(a, Knock)]
            if decision % 4 == 0 or knocks or hand.phase is Phase.OFFER:
                ctx = playout_rules(seen)
                world = World(tuple(hand.hands), tuple(hand.stock))
                scored: list[tuple[Action, Callable[[World], float]]]
                if hand.phase is Phase.DISCARD:
                    scored = [(a, discard_scorer(ctx, seat, seen.hand_mask, a.card))
                              for a in legal if isinstance(a, Discard)]
                    scored += [(a, knock_scorer(ctx, seat, seen.hand_mask, a)) for a in knocks]
                else:
                    scored = [(c.action, c.score)
                              for c in expert.draw_candidates(seen, legal, ctx)]
                assert scored
                for action, score in scored:
                    after = hand.copy()
                    after.apply(action)
                    if after.phase is Phase.DRAW and after.stock_only:
                        checked["offer over"] += 1
                    assert score(world) == _value_from(after, ctx, seat), action
                    checked[type(action).__name__] += 1
            action = simple.choose(seen, legal)
            if isinstance(action, Knock):
                action = rng.choice([a for a in legal if isinstance(a, Discard)])
            hand.apply(action)
    assert checked["DrawStock"] and checked["Discard"] and checked["Knock"], checked
    if rules.upcard_offer is not UpcardOffer.NONE:
        assert checked["Pass"] > checked["offer over"] > 0, checked
