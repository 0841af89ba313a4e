"""Gymnasium's and PettingZoo's conventions (issue 30, point 3): a plain reset continues the
seeded stream, the registered Gymnasium id, action masks for MaskablePPO, the AEC state."""

from __future__ import annotations

import gymnasium
import numpy as np

from ginrummy.env import GinRummyGym, VectorGinRummy, raw_env


def _deals(game: object, resets: list[int | None]) -> list[tuple[int, ...]]:
    out = []
    for seed in resets:
        game.reset(seed=seed)  # type: ignore[attr-defined]
        out.append(tuple(game.game.hand.deck))  # type: ignore[attr-defined]
    return out


def test_a_plain_reset_continues_the_seeded_stream_in_the_aec_env() -> None:
    first = _deals(raw_env(), [7, None, None])
    again = _deals(raw_env(), [7, None, None])
    assert first == again and len(set(first)) == 3
    assert _deals(raw_env(preset="arena", players=3), [3, None]) == \
        _deals(raw_env(preset="arena", players=3), [3, None])


def test_a_plain_reset_continues_the_seeded_stream_in_the_vector_and_the_gym() -> None:
    runs = []
    for _ in range(2):
        games = VectorGinRummy(4)
        games.reset(seed=11)
        games.reset()
        runs.append([tuple(g.hand.deck) for g in games.games])
    assert runs[0] == runs[1]
    solo = [GinRummyGym(opponents="random") for _ in range(2)]
    observed = []
    for gym in solo:
        gym.reset(seed=4)
        observed.append(gym.reset()[0]["observation"].tobytes())
    assert observed[0] == observed[1]


def test_the_registered_gymnasium_id() -> None:
    spec = gymnasium.spec("ginrummy/GinRummy-v0")
    assert spec.entry_point == "ginrummy.env.gym:GinRummyGym"
    assert spec.max_episode_steps is not None
    game = gymnasium.make("ginrummy/GinRummy-v0", opponents="simple")
    observation, info = game.reset(seed=1)
    assert observation["observation"].shape == (387,) and info["seat"] == 0
    assert game.unwrapped.opponents == ["simple"]
    game.close()


def test_action_masks_are_the_legal_ids_for_maskable_ppo() -> None:
    gym = GinRummyGym(opponents="simple", seat=None)
    observation, _ = gym.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(40):
        masks = gym.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (109,)
        assert (masks == observation["action_mask"].astype(bool)).all()
        observation, _, terminated, truncated, _ = gym.step(int(rng.choice(np.flatnonzero(masks))))
        if terminated or truncated:
            assert not gym.action_masks().any()
            observation, _ = gym.reset()


def test_the_aec_state_is_the_full_state() -> None:
    game = raw_env(preset="arena", players=3)
    game.reset(seed=3)
    state = game.state()
    assert game.state_space.contains(state)
    hand = game.game.hand
    cards = state[game.STATE_HANDS:game.STATE_HANDS + 4 * 52].reshape(4, 52)
    for seat in range(3):
        assert [c for c in range(52) if cards[seat, c]] == hand.hand_of(seat)
    order = state[game.STATE_STOCK:game.STATE_STOCK + 52]
    assert int(np.argmax(order)) == hand.stock[-1] and (order > 0).sum() == len(hand.stock)
    assert sorted(order[order > 0].tolist(), reverse=True)[0] == 1.0
    for seat, agent in enumerate(game.possible_agents):
        start = seat * 387
        assert (state[start:start + 387] == game.observe(agent)["observation"]).all()
