"""stackfish: Mixtour, Silo, Coin Stack, Focus and Castle conquest for
game-AI research, on the rules and engine of the stackfish project.

- ``Game(variant, fen=None)``: positions, legal moves and actions, play,
  outcome, perft, observations (docs/python.md).
- ``Engine(hash_mb=16, threads=1, tables=None)``: in-process search, the
  evaluation, Silo table probes.
- ``stackfish.ugi``: any UGI/UCI engine as a child process.
- ``stackfish.pettingzoo``, ``stackfish.gym``, ``stackfish.openspiel``: the
  adapters (each imports its framework only when imported).

Every bad input raises ``stackfish.Error`` (a ``ValueError``) with the
engine's message.
"""

from ._stackfish import Engine, Error, Game, import_sac, variants

__all__ = ["Engine", "Error", "Game", "import_sac", "variants", "game_from_sac"]


def game_from_sac(path, goal=None, variant="mixtour"):
    """A Mixtour game from a StackAndConquer file (``.in``, ``.stackboard``
    or ``.stacksav``), as ``stackfish import`` reads it."""
    return Game(variant, import_sac(str(path), goal))
