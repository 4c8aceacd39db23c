"""Every stackfish game registered with OpenSpiel, from outside its
repository::

    import pyspiel
    import stackfish.openspiel
    stackfish.openspiel.register()
    game = pyspiel.load_game("stackfish_silo")

Short names are ``stackfish_<variant>`` with ``-`` as ``_`` (``stackfish_silo_8``).
Players 0 and 1 are stackfish's players 1 and 2. Actions are the game's
action numbers (docs/python.md); the observation tensor is the game's
planes from the observing player's view. A game longer than the
``max_plies`` parameter (default 1000) ends as a draw, since OpenSpiel needs
a bound on the game's length.
"""

import numpy as np
import pyspiel

from ._stackfish import Game, variants

DEFAULT_MAX_PLIES = 1000


def short_name(variant):
    return "stackfish_" + variant.replace("-", "_")


def _game_type(variant):
    return pyspiel.GameType(
        short_name=short_name(variant),
        long_name=f"stackfish {variant}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"max_plies": DEFAULT_MAX_PLIES},
    )


def _make_game_class(variant):
    game_type = _game_type(variant)
    probe = Game(variant)

    class StackfishGame(pyspiel.Game):
        def __init__(self, params=None):
            params = dict(params or {})
            self.max_plies = int(params.get("max_plies", DEFAULT_MAX_PLIES))
            info = pyspiel.GameInfo(
                num_distinct_actions=probe.num_actions(),
                max_chance_outcomes=0,
                num_players=2,
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=0.0,
                max_game_length=self.max_plies,
            )
            super().__init__(game_type, info, params)
            self.variant = variant

        def new_initial_state(self):
            return StackfishState(self)

        def make_py_observer(self, iig_obs_type=None, params=None):
            return Observer(probe.observation_shape())

    StackfishGame.__name__ = f"StackfishGame_{variant.replace('-', '_')}"
    return game_type, StackfishGame


class StackfishState(pyspiel.State):
    def __init__(self, game):
        super().__init__(game)
        self.game = Game(game.variant)
        self.max_plies = game.max_plies
        self.plies = 0

    def _cut(self):
        return self.plies >= self.max_plies

    def current_player(self):
        if self.game.is_over() or self._cut():
            return pyspiel.PlayerId.TERMINAL
        return self.game.side_to_move() - 1

    def _legal_actions(self, player):
        return self.game.legal_actions()

    def _apply_action(self, action):
        self.game.play_action(int(action))
        self.plies += 1

    def _action_to_string(self, player, action):
        return self.game.action_to_move(int(action))

    def is_terminal(self):
        return self.game.is_over() or self._cut()

    def returns(self):
        outcome = self.game.outcome()
        if outcome is None or outcome[0] == 0:
            return [0.0, 0.0]
        return [1.0, -1.0] if outcome[0] == 1 else [-1.0, 1.0]

    def __str__(self):
        return self.game.fen()


class Observer:
    """The planes of ``Game.observation`` from `player`'s view."""

    def __init__(self, shape):
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state, player):
        self.tensor[:] = state.game.observation(player + 1).ravel()

    def string_from(self, state, player):
        return f"{state.game.fen()} | {' '.join(state.game.moves())}"


_registered = set()


def register():
    """Registers every variant (once); returns the short names."""
    names = []
    for variant in variants():
        name = short_name(variant)
        if name not in _registered:
            game_type, game_class = _make_game_class(variant)
            pyspiel.register_game(game_type, game_class)
            _registered.add(name)
        names.append(name)
    return names
