"""The PettingZoo, Gymnasium and OpenSpiel adapters pass their frameworks'
own checks."""

import numpy as np
import pytest

import stackfish



@pytest.mark.parametrize("variant", ["mixtour", "silo", "coinstack", "castle"])
def test_pettingzoo_api_test(variant):
    from pettingzoo.test import api_test

    import stackfish.pettingzoo

    api_test(stackfish.pettingzoo.env(variant, max_plies=200), num_cycles=300)


def test_pettingzoo_episode_ends_with_opposite_rewards():
    import stackfish.pettingzoo

    env = stackfish.pettingzoo.env("silo")
    env.reset(seed=0)
    totals = {agent: 0 for agent in env.possible_agents}
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert sorted(legal) == env.game.legal_actions()
        env.step(int(rng.choice(legal)))
    assert sorted(totals.values()) == [-1, 1]


def test_gymnasium_check_env():
    from gymnasium.utils.env_checker import check_env

    import stackfish.gym

    check_env(stackfish.gym.StackfishEnv("silo", level=1, nodes=200), skip_render_check=True)
    check_env(stackfish.gym.StackfishEnv("mixtour", level=1, nodes=200, agent_side=2),
              skip_render_check=True)


def test_gymnasium_episode_against_the_engine():
    import gymnasium

    import stackfish.gym

    stackfish.gym.register()
    env = gymnasium.make("stackfish/silo-v0", level=1, nodes=100)
    obs, info = env.reset(seed=1)
    done, reward = False, 0.0
    while not done:
        obs, reward, terminated, truncated, info = env.step(info["legal_actions"][0])
        assert not info.get("illegal")
        done = terminated or truncated
    assert reward in (-1.0, 0.0, 1.0)
    obs, info = env.reset()
    obs, reward, terminated, _, info = env.step(env.unwrapped.game.num_actions() - 1)
    # The pass is not legal at the start of Silo: refused, not raised.
    assert info["illegal"] and terminated and reward == -1.0


def test_openspiel_registration_runs_its_algorithms():
    import pyspiel
    from open_spiel.python.algorithms import mcts

    import stackfish.openspiel

    names = stackfish.openspiel.register()
    assert "stackfish_silo" in names and len(names) == len(stackfish.variants())
    for name in names:
        game = pyspiel.load_game(name)
        state = game.new_initial_state()
        assert state.current_player() == 0
        assert len(state.legal_actions()) > 0
        assert game.num_distinct_actions() == stackfish.Game(
            name.removeprefix("stackfish_").replace("_", "-")).num_actions()
    game = pyspiel.load_game("stackfish_silo")
    # A random simulation through OpenSpiel's own test helper.
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    # An MCTS bot against a random bot, played to the end.
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 1.4, 30, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.current_player() == 0:
            action = bot.step(state)
        else:
            action = rng.choice(state.legal_actions())
        assert action in state.legal_actions()
        state.apply_action(action)
    assert sum(state.returns()) == 0
    obs = state.observation_tensor(0)
    assert len(obs) == int(np.prod(stackfish.Game("silo").observation_shape()))
