"""PettingZoo AEC environments of every stackfish game::

    env = stackfish.pettingzoo.env("silo")
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            action = None
        else:
            action = int(np.flatnonzero(obs["action_mask"])[0])
        env.step(action)

Agents are "player_1" and "player_2" (player 1 moves first). Each
observation is a dict: "observation", the game's planes from that agent's
view (``Game.observation(side)``, float32), and "action_mask", an int8 mask
over the game's actions (docs/python.md), all zero when it is not that
agent's turn. Rewards come at the end: +1 for the winner, -1 for the
loser, 0 each for a draw. A game longer than ``max_plies`` is truncated.
"""

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ._stackfish import Game

AGENTS = ["player_1", "player_2"]
#: Plies after which a game is truncated (random Focus play can go on and on).
DEFAULT_MAX_PLIES = 1000


def env(variant="mixtour", **kwargs):
    """The AEC environment of `variant` (any name of ``stackfish.variants()``)."""
    return StackfishEnv(variant, **kwargs)


class StackfishEnv(AECEnv):
    """One game of `variant` per episode, from its start (or from `fen`)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "stackfish_v0", "is_parallelizable": False}

    def __init__(self, variant="mixtour", fen=None, render_mode=None, max_plies=DEFAULT_MAX_PLIES):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.variant = variant
        self.fen = fen
        self.render_mode = render_mode
        self.max_plies = max_plies
        self.game = Game(variant, fen)
        self.metadata = dict(self.metadata, name=f"stackfish_{self.game.variant}_v0")
        shape = self.game.observation_shape()
        n = self.game.num_actions()
        self.possible_agents = list(AGENTS)
        self._observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, shape, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self._action_spaces = {agent: spaces.Discrete(n) for agent in self.possible_agents}
        self.agents = []

    def observation_space(self, agent):
        return self._observation_spaces[agent]

    def action_space(self, agent):
        return self._action_spaces[agent]

    def _agent_to_move(self):
        return AGENTS[self.game.side_to_move() - 1]

    def observe(self, agent):
        side = AGENTS.index(agent) + 1
        mask = np.zeros(self.game.num_actions(), dtype=np.int8)
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            mask[self.game.legal_actions()] = 1
        return {"observation": self.game.observation(side), "action_mask": mask}

    def reset(self, seed=None, options=None):
        # The game has no chance: the seed has nothing to decide.
        self.game = Game(self.variant, self.fen)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self.plies = 0
        self.agent_selection = self._agent_to_move()
        self._settle()

    def _settle(self):
        """Marks the end of the game, if it has come."""
        outcome = self.game.outcome()
        if outcome is not None:
            winner, reason = outcome
            for i, agent in enumerate(AGENTS):
                self.rewards[agent] = 0 if winner == 0 else (1 if winner == i + 1 else -1)
                self.terminations[agent] = True
                self.infos[agent] = {"reason": reason}
        elif self.plies >= self.max_plies:
            for agent in AGENTS:
                self.truncations[agent] = True

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0
        self.game.play_action(int(action))
        self.plies += 1
        self._settle()
        if not (self.terminations[agent] or self.truncations[agent]):
            self.agent_selection = self._agent_to_move()
        else:
            # Both are done: hand the turn over so that each sees the end.
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            return None
        text = self.game.pretty()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass
