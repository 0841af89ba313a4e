"""The OpenSpiel codec against OpenSpiel itself: the same deal played in lockstep, every
shared decision's legal moves equal, every knock and layoff sequence accepted, same score."""

from __future__ import annotations

import random

import pytest

from ginrummy import Ruleset
from ginrummy.actions import Knock
from ginrummy.engine import Hand, Phase
from ginrummy.env.actions import DISCARD_BASE, KNOCK_BASE, LAYOFF_ID, decode, encode, legal_ids
from ginrummy.env.openspiel_codec import (
    OS_KNOCK,
    from_openspiel,
    id_from_openspiel,
    knock_from_openspiel,
    os_card,
    our_card,
    to_openspiel,
)
from ginrummy.solver import deadwood_mask

pyspiel = pytest.importorskip("pyspiel")

RULES = Ruleset.preset("eaai", no_rediscard_of_taken_card=False)
"""OpenSpiel's rules: eaai, except that a card taken from the pile may be discarded at once."""


def _deal(rng: random.Random) -> tuple[Hand, object]:
    """One deal in both: OpenSpiel deals player 0's ten cards, player 1's, then the upcard;
    the engine (dealer 1, so seat 0 is OpenSpiel's player 0) deals them alternately."""
    deck = list(range(52))
    rng.shuffle(deck)
    first, second, upcard, stock = deck[:10], deck[10:20], deck[20], deck[21:]
    order = [card for pair in zip(first, second, strict=True) for card in pair]
    hand = Hand(RULES, 1, [*order, upcard, *stock])
    state = pyspiel.load_game("gin_rummy").new_initial_state()
    for card in [*first, *second, upcard]:
        state.apply_action(os_card(card))
    return hand, state


def _apply_os(state: object, ids: list[int], hand: Hand) -> None:
    for os_id in ids:
        assert os_id in state.legal_actions(), (os_id, state.legal_actions(), str(state))
        state.apply_action(os_id)
    if state.is_chance_node():  # a stock draw: the card the engine dealt (its top before)
        state.apply_action(os_card(hand.stock[-1]))


def _play(seed: int) -> tuple[int, int]:
    rng = random.Random(seed)
    hand, state = _deal(rng)
    knocks = compared = 0
    while not hand.over:
        if state.is_terminal():  # OpenSpiel's own rule: a card taken back and forth ends
            assert "Repeated move: 1" in str(state) and state.returns() == [0.0, 0.0]
            return knocks, compared
        assert state.current_player() == hand.to_move
        os_legal = state.legal_actions()
        ours = legal_ids(hand)
        if hand.phase is not Phase.LAYOFF:
            simple = sorted(id_from_openspiel(a) for a in os_legal if a != OS_KNOCK)
            assert simple == [i for i in ours if i < KNOCK_BASE], str(state)
            shared = {encode(from_openspiel(a)) for a in os_legal if a < OS_KNOCK}
            assert {decode(i, hand) for i in shared & set(ours)} == {
                from_openspiel(a) for a in os_legal
                if a < OS_KNOCK and encode(from_openspiel(a)) in ours}
            compared += 1
            knocking = [i for i in ours if KNOCK_BASE <= i < LAYOFF_ID]
            if OS_KNOCK in os_legal:
                assert knocking, "OpenSpiel offers a knock the engine does not"
            if knocking and OS_KNOCK in os_legal and rng.random() < 0.5:
                action_id = rng.choice(knocking)
                knocks += 1
            else:  # mostly the discard that leaves the least deadwood, to reach knocks
                plain = [i for i in ours if i < KNOCK_BASE]
                action_id = rng.choice(plain)
                if plain[0] >= DISCARD_BASE and rng.random() < 0.8:
                    cards = hand.hands[hand.to_move]
                    action_id = min(plain, key=lambda i: deadwood_mask(
                        cards & ~(1 << (i - DISCARD_BASE))))
        else:
            action_id = LAYOFF_ID
        hand_before = hand.copy()
        action = decode(action_id, hand)
        ids = to_openspiel(action)
        if isinstance(action, Knock):
            assert knock_from_openspiel(ids) == action
        hand.apply(action)
        if hand.phase is Phase.OVER and hand.result is not None and hand.result.void:
            return knocks, compared  # OpenSpiel ends on two stock cards too: nothing to send
        _apply_os(state, ids, hand_before)
    assert state.is_terminal()
    result = hand.result
    assert result is not None
    points = result.points
    assert state.returns() == [float(points[0] - points[1]), float(points[1] - points[0])]
    return knocks, compared


def test_card_ids_round_trip() -> None:
    assert sorted(os_card(c) for c in range(52)) == list(range(52))
    assert all(our_card(os_card(c)) == c for c in range(52))


def test_lockstep_with_openspiel() -> None:
    knocks = compared = 0
    for seed in range(120):
        k, c = _play(seed)
        knocks += k
        compared += c
    assert knocks >= 25 and compared >= 3_000, (knocks, compared)
