"""Worked example 2: train a small policy on Silo with PettingZoo, then
measure it against the engine's Level 1.

    python train_silo.py [seconds] [eval_games]

The policy is linear in the observation planes (a softmax over the legal
actions, NumPy only), trained by REINFORCE in the PettingZoo environment
against a uniformly random opponent, playing both colours. Before and after
training it plays `eval_games` games against random play and against
stackfish.Engine at Level 1 (200 nodes a move); the script prints the scores.
"""

import sys
import time

import numpy as np

import stackfish
import stackfish.pettingzoo

VARIANT = "silo"
LEARNING_RATE = 0.01
BASELINE_DECAY = 0.99


class LinearPolicy:
    def __init__(self, n_features, n_actions, seed=0):
        self.rng = np.random.default_rng(seed)
        self.weights = np.zeros((n_actions, n_features + 1), np.float64)

    def features(self, planes):
        return np.append(planes.ravel(), 1.0)

    def probabilities(self, x, legal):
        logits = self.weights[legal] @ x
        logits -= logits.max()
        p = np.exp(logits)
        return p / p.sum()

    def choose(self, planes, legal, greedy=False):
        x = self.features(planes)
        p = self.probabilities(x, legal)
        index = int(np.argmax(p)) if greedy else int(self.rng.choice(len(legal), p=p))
        return legal[index], x, p, index


def train(policy, seconds):
    env = stackfish.pettingzoo.env(VARIANT)
    rng = np.random.default_rng(1)
    baseline, episodes, wins = 0.0, 0, 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        learner = env.possible_agents[episodes % 2]
        env.reset()
        trace = []
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            if terminated or truncated:
                if agent == learner:
                    final = reward
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            if agent == learner:
                action, x, p, index = policy.choose(obs["observation"], legal)
                trace.append((x, legal, p, index))
            else:
                action = int(rng.choice(legal))
            env.step(int(action))
        advantage = final - baseline
        baseline = BASELINE_DECAY * baseline + (1 - BASELINE_DECAY) * final
        for x, legal, p, index in trace:
            # d log pi(a) / d w_b = (1[b = a] - p_b) x for each legal b.
            grad = -p
            grad[index] += 1.0
            policy.weights[legal] += LEARNING_RATE * advantage * np.outer(grad, x)
        episodes += 1
        wins += final > 0
    return episodes, wins


def evaluate(policy, games, engine=None, level=1, nodes=200):
    """The policy's score (greedy) against the engine, or against random play."""
    rng = np.random.default_rng(2)
    score = 0.0
    for number in range(games):
        me = 1 + number % 2
        game = stackfish.Game(VARIANT)
        if engine is not None:
            engine.new_game()
        while game.outcome() is None:
            legal = game.legal_actions()
            if game.side_to_move() == me:
                action, *_ = policy.choose(game.observation(me), legal, greedy=True)
                game.play_action(int(action))
            elif engine is not None:
                game.play(engine.search(game, nodes=nodes, level=level)["move"])
            else:
                game.play_action(int(rng.choice(legal)))
        winner = game.outcome()[0]
        score += 1.0 if winner == me else 0.5 if winner == 0 else 0.0
    return score


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 180
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    probe = stackfish.Game(VARIANT)
    policy = LinearPolicy(int(np.prod(probe.observation_shape())), probe.num_actions())
    engine = stackfish.Engine(hash_mb=4)
    before = (evaluate(policy, games), evaluate(policy, games, engine))
    episodes, wins = train(policy, seconds)
    after = (evaluate(policy, games), evaluate(policy, games, engine))
    print(f"trained {seconds:g} s: {episodes} episodes, {wins} won against random play")
    print(f"against random play: {before[0]}/{games} before, {after[0]}/{games} after")
    print(f"against Level 1 (200 nodes): {before[1]}/{games} before, {after[1]}/{games} after")


if __name__ == "__main__":
    main()
