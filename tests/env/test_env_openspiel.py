"""The engine under the OpenSpiel options (docs/rules.md R7.3) against OpenSpiel's own
``gin_rummy``: 2,000 hands played in lock-step through :class:`OpenSpielState`, every node's
player, legal ids (chance outcomes included), transition and return the same; the codec
against every one of OpenSpiel's 241 ids."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ginrummy.actions import Knock
from ginrummy.cards import parse_card, parse_cards
from ginrummy.engine import Phase
from ginrummy.env.openspiel_codec import (
    OS_DRAW_UPCARD,
    OS_KNOCK,
    OS_NUM_ACTIONS,
    OS_PASS,
    from_openspiel,
    knock_from_openspiel,
    meld_from_openspiel,
    openspiel_action_text,
    os_card,
    our_card,
    to_openspiel,
)
from ginrummy.env.openspiel_game import OPENSPIEL_RULES, OpenSpielState
from ginrummy.scoring import Outcome
from ginrummy.solver import deadwood_mask, is_meld

pyspiel = pytest.importorskip("pyspiel")

GAMES = 2_000


def test_card_ids_round_trip() -> None:
    assert sorted(os_card(c) for c in range(52)) == list(range(52))
    assert all(our_card(os_card(c)) == c for c in range(52))


def test_the_codec_reads_every_openspiel_id_as_openspiel_writes_it() -> None:
    state = pyspiel.load_game("gin_rummy").new_initial_state()
    assert pyspiel.load_game("gin_rummy").num_distinct_actions() == OS_NUM_ACTIONS
    for os_id in range(OS_NUM_ACTIONS):
        assert state.action_to_string(0, os_id) == "Player: 0 Action: " + (
            openspiel_action_text(os_id)), os_id
    melds = [meld_from_openspiel(i) for i in range(56, OS_NUM_ACTIONS)]
    assert len(set(melds)) == 185 and all(is_meld(m) for m in melds)
    with pytest.raises(ValueError, match=r"0\.\.240"):
        openspiel_action_text(241)
    knock = Knock(parse_card("Kd"), (tuple(parse_cards("As 2s 3s")),))
    assert knock_from_openspiel(to_openspiel(knock)) == knock
    assert str(from_openspiel(53)) == "stock"


def _choose(rng: random.Random, ours: OpenSpielState, legal: list[int], style: int) -> int:
    """Style 0: uniformly random. Style 1: takes every upcard and keeps it (the 50-take limit),
    else random. Otherwise a simple player that reaches knocks, gins, layoffs and the wall:
    takes the upcard when it lowers his deadwood, discards the card that keeps the least (not
    the one he took), knocks at once with gin or at the wall and now and then otherwise, lays
    most melds and layoffs; one decision in ten is uniformly random."""
    hand = ours.hand
    assert hand is not None
    if style == 1 and OS_DRAW_UPCARD in legal:
        return OS_DRAW_UPCARD
    if style == 1 and hand.phase is Phase.DISCARD and not ours.knocking:
        return rng.choice([a for a in legal if a < 52 and our_card(a) != hand.taken])
    if style < 2 or rng.random() < 0.1:
        return rng.choice(legal)
    held = hand.hands[hand.to_move]
    if OS_KNOCK in legal and (hand.wall or least(held) == 0 or rng.random() < 0.25):
        return OS_KNOCK
    if OS_DRAW_UPCARD in legal:
        top = hand.discards[-1]
        better = least(held | 1 << top, top) < deadwood_mask(held)
        return OS_DRAW_UPCARD if better else legal[-1]
    if hand.phase is Phase.DISCARD and not ours.knocking:
        cards = [a for a in legal if a < 52 and our_card(a) != hand.taken]
        return min(cards, key=lambda a: deadwood_mask(held & ~(1 << our_card(a))))
    others = [a for a in legal if a != OS_PASS]
    if others and rng.random() < 0.85:
        return rng.choice(others)
    return rng.choice(legal)


def least(held: int, keep: int | None = None) -> int:
    """The least deadwood left after the best discard (never ``keep``)."""
    return min(deadwood_mask(held & ~(1 << c)) for c in range(52)
               if held >> c & 1 and c != keep)


def _play(seed: int, game: object, seen: Counter[str]) -> None:
    rng = random.Random(seed)
    ours, theirs = OpenSpielState(), game.new_initial_state()
    while not theirs.is_terminal():
        assert not ours.is_terminal()
        assert ours.current_player() == theirs.current_player()
        legal = theirs.legal_actions()
        assert ours.legal_actions() == legal, (seed, ours.history, str(theirs))
        if theirs.is_chance_node():
            assert ours.chance_outcomes() == theirs.chance_outcomes()
            action = rng.choice(legal)
        else:
            action = _choose(rng, ours, legal, seed % 10)
            hand = ours.hand
            assert hand is not None
            seen["wall knock"] += hand.wall and action == OS_KNOCK
            seen["gin declaration"] += hand.phase is Phase.LAYOFF and hand.knock is not None \
                and hand.knock.gin and action != OS_PASS
            seen["layoff"] += hand.phase is Phase.LAYOFF and action < 52
        ours.apply_action(action)
        theirs.apply_action(action)
    assert ours.is_terminal() and ours.returns() == theirs.returns(), (seed, str(theirs))
    hand = ours.hand
    assert hand is not None and hand.result is not None
    result = hand.result
    seen[result.outcome.value] += 1
    if result.outcome is Outcome.KNOCK and result.deadwood[0] == result.deadwood[1]:
        seen["tie"] += 1
        assert ours.returns() == [0.0, 0.0]
    if result.void:
        seen["take limit" if hand.takes >= 50 else "repeated" if hand.rediscarded
             else "stock end" if hand.wall else "void"] += 1


@pytest.mark.soak
def test_lockstep_with_openspiel_over_2000_hands() -> None:
    game = pyspiel.load_game("gin_rummy")
    seen: Counter[str] = Counter()
    for seed in range(GAMES):
        _play(seed, game, seen)
    assert sum(seen[o.value] for o in Outcome) == GAMES
    for what in ("gin", "tie", "undercut", "knock", "stock end", "wall knock", "take limit",
                 "repeated", "gin declaration", "layoff"):
        assert seen[what] > 0, (what, seen)


def test_an_illegal_id_is_refused_and_changes_nothing() -> None:
    state = OpenSpielState()
    for _card in range(21):
        state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 0 and state.legal_actions() == [52, 54]
    before = list(state.history)
    with pytest.raises(ValueError, match="OpenSpiel id 53 is not legal here"):
        state.apply_action(53)
    assert state.history == before and state.hand is not None and state.hand.phase is Phase.OFFER
    assert OPENSPIEL_RULES.stock_end.value == "wall"
