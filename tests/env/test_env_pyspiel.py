"""The engine registered with OpenSpiel (``python_ginrummy``): OpenSpiel's own API test and
ISMCTS run on it, it agrees with the C++ ``gin_rummy`` through ``pyspiel``, and its
determinisation keeps the information state."""

from __future__ import annotations

import random

import pytest

from ginrummy.env.openspiel_game import OpenSpielState

pyspiel = pytest.importorskip("pyspiel")
pyspiel_game = pytest.importorskip("ginrummy.env.pyspiel_game")


def _game() -> object:
    return pyspiel.load_game(pyspiel_game.SHORT_NAME)


def test_openspiels_random_sim_test_passes() -> None:
    pyspiel.random_sim_test(_game(), num_sims=5, serialize=False, verbose=False)


def test_the_registered_game_agrees_with_cpp_gin_rummy_through_pyspiel() -> None:
    ours, cpp = _game(), pyspiel.load_game("gin_rummy")
    assert ours.num_distinct_actions() == cpp.num_distinct_actions()
    for seed in range(20):
        rng = random.Random(seed)
        a, b = ours.new_initial_state(), cpp.new_initial_state()
        while not b.is_terminal():
            assert a.current_player() == b.current_player()
            assert a.legal_actions() == b.legal_actions()
            action = rng.choice(b.legal_actions())
            assert a.action_to_string(a.current_player(), action) == \
                b.action_to_string(b.current_player(), action)
            a.apply_action(action)
            b.apply_action(action)
        assert a.is_terminal() and a.returns() == b.returns()


def test_ismcts_plays_a_hand_against_random() -> None:
    np = pytest.importorskip("numpy")
    from open_spiel.python.algorithms import ismcts, mcts

    game = _game()
    state = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, state), uct_c=2.0,
                           max_simulations=5, random_state=state)
    rng = random.Random(0)
    hand = game.new_initial_state()
    decisions = 0
    while not hand.is_terminal():
        if hand.current_player() == 0:
            action = bot.step(hand)
            decisions += 1
        else:
            action = rng.choice(hand.legal_actions())
        assert action in hand.legal_actions()
        hand.apply_action(action)
    assert decisions > 5 and sum(hand.returns()) == 0


def test_a_determinisation_keeps_the_players_information_and_varies_the_rest() -> None:
    checked = 0
    for seed in range(12):
        rng = random.Random(seed)
        state = OpenSpielState()
        while not state.is_terminal():
            hand = state.hand
            if hand is not None and not state.is_chance_node() and hand.knock is None \
                    and not state.knocking and len(state.history) > 30 and rng.random() < 0.2:
                player = rng.choice((0, 1))
                other = 1 - player
                seen = set()
                for k in range(4):
                    sample = state.resample_from_infostate(player, random.Random(k))
                    assert sample.information_state_string(player) == \
                        state.information_state_string(player)
                    assert sample.hand is not None
                    assert sample.hand.hands[player] == hand.hands[player]
                    assert sample.hand.known[other] == hand.known[other]
                    assert sample.legal_actions() == state.legal_actions() or \
                        player != hand.to_move
                    seen.add(sample.hand.hands[other])
                assert len(seen) > 1
                checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 15
