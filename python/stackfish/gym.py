"""A Gymnasium single-agent environment: the agent plays one side of a
stackfish game against the built-in engine (``stackfish.Engine`` at a
``level`` and a ``nodes`` budget)::

    env = stackfish.gym.StackfishEnv("silo", level=1, nodes=200)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(info["legal_actions"][0])

Observations are the game's planes from the agent's view (float32, docs/
python.md). Actions are the game's action numbers; ``info["action_mask"]``
(int8) and ``info["legal_actions"]`` give the legal ones. An illegal action
ends the episode with reward -1 and ``info["illegal"] = True`` (so random
actions, as ``check_env`` sends, never raise). Reward +1 for a win, -1 for a
loss, 0 for a draw or while the game goes on; a game longer than
``max_plies`` is truncated. The engine varies its play at weaker levels
from one game to the next; ``reset(seed=...)`` starts that sequence over, so
seeded episodes repeat exactly. ``register()`` makes ``gymnasium.make(
"stackfish/<variant>-v0")`` work for every variant.
"""

import gymnasium
import numpy as np
from gymnasium import spaces

from ._stackfish import Engine, Game, variants

DEFAULT_MAX_PLIES = 1000
#: The opponent's transposition table: small searches need little.
OPPONENT_HASH_MB = 1


class StackfishEnv(gymnasium.Env):
    metadata = {"render_modes": ["human", "ansi"]}

    def __init__(
        self,
        variant="silo",
        level=1,
        nodes=1000,
        agent_side=1,
        fen=None,
        render_mode=None,
        max_plies=DEFAULT_MAX_PLIES,
        engine=None,
    ):
        if agent_side not in (1, 2):
            raise ValueError(f"agent_side {agent_side} is not 1 or 2")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.variant = variant
        self.fen = fen
        self.level = level
        self.nodes = nodes
        self.agent_side = agent_side
        self.render_mode = render_mode
        self.max_plies = max_plies
        self._own_engine = engine is None
        self.engine = engine if engine is not None else Engine(hash_mb=OPPONENT_HASH_MB)
        self.game = Game(variant, fen)
        self.observation_space = spaces.Box(0.0, 1.0, self.game.observation_shape(), dtype=np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions())

    def _info(self, **extra):
        mask = np.zeros(self.game.num_actions(), dtype=np.int8)
        legal = self.game.legal_actions()
        mask[legal] = 1
        return dict(action_mask=mask, legal_actions=legal, **extra)

    def _observation(self):
        return self.game.observation(self.agent_side)

    def _reward(self):
        outcome = self.game.outcome()
        if outcome is None or outcome[0] == 0:
            return 0.0
        return 1.0 if outcome[0] == self.agent_side else -1.0

    def _opponent_moves(self):
        """The engine plays until it is the agent's turn or the game ends."""
        while self.game.outcome() is None and self.game.side_to_move() != self.agent_side:
            if self.plies >= self.max_plies:
                return
            found = self.engine.search(self.game, nodes=self.nodes, level=self.level)
            self.game.play(found["move"])
            self.plies += 1

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.game = Game(self.variant, self.fen)
        if seed is not None and self._own_engine:
            # The engine varies its weaker levels from game to game; a
            # seeded reset starts that sequence over, so episodes repeat.
            self.engine = Engine(hash_mb=OPPONENT_HASH_MB)
        self.engine.new_game()
        self.plies = 0
        self._opponent_moves()
        return self._observation(), self._info()

    def step(self, action):
        try:
            self.game.play_action(int(action))
        except ValueError:
            return self._observation(), -1.0, True, False, self._info(illegal=True)
        self.plies += 1
        self._opponent_moves()
        terminated = self.game.outcome() is not None
        truncated = not terminated and self.plies >= self.max_plies
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._reward(), terminated, truncated, self._info()

    def render(self):
        if self.render_mode is None:
            return None
        if self.render_mode == "human":
            print(self.game.pretty())
            return None
        return self.game.pretty()


def register():
    """Registers ``stackfish/<variant>-v0`` with Gymnasium for every variant."""
    for name in variants():
        env_id = f"stackfish/{name}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=StackfishEnv, kwargs={"variant": name})
