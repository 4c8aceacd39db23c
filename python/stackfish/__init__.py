"""stackfish: Mixtour, Silo, Coin Stack, Focus and Castle conquest for
game-AI research, on the rules and engine of the stackfish project.

- ``Game(variant, fen=None)``: positions, legal moves and actions, play,
  outcome, perft, observations (docs/python.md).
- ``Engine(hash_mb=16, threads=1, tables=None)``: in-process search, the
  evaluation, Silo table probes.
- ``analyse(game, nodes=...)``: a whole game reviewed (the evaluation of
  every position, each move's class and the better move, each side's
  accuracy, the decisive mistake, the annotated PGN).
- ``stackfish.ugi``: any UGI/UCI engine as a child process.
- ``stackfish.pettingzoo``, ``stackfish.gym``, ``stackfish.openspiel``: the
  adapters (each imports its framework only when imported).

Every bad input raises ``stackfish.Error`` (a ``ValueError``) with the
engine's message.
"""

import json

from ._stackfish import Engine, Error, Game, import_sac, variants

__all__ = [
    "Engine",
    "Error",
    "Game",
    "Review",
    "analyse",
    "import_sac",
    "variants",
    "game_from_sac",
]


def game_from_sac(path, goal=None, variant="mixtour"):
    """A Mixtour game from a StackAndConquer file (``.in``, ``.stackboard``
    or ``.stacksav``), as ``stackfish import`` reads it."""
    return Game(variant, import_sac(str(path), goal))


class Review:
    """A reviewed game, as ``stackfish analyse --json`` writes it
    (protocol.md): ``positions`` (one dict per position: ``fen``, ``side``,
    ``cp``/``mate`` from player 1's side, ``expected`` (player 1's expected
    score), ``depth``, ``pv``), ``moves`` (one dict per move: ``move``,
    ``side``, ``loss``, ``cls`` as ``class``, ``accuracy``, ``best``,
    ``line``), ``accuracy`` (``{"p1": ..., "p2": ...}``), ``decisive``
    (the decisive mistake or None), ``stopped`` (a move the record could not
    play, or None); ``pgn`` the annotated game; ``data`` the whole dict."""

    def __init__(self, data, pgn):
        self.data = data
        self.pgn = pgn
        self.positions = data["positions"]
        self.moves = data["moves"]
        self.accuracy = data["accuracy"]
        self.decisive = data["decisive"]
        self.stopped = data["stopped"]

    @property
    def evaluations(self):
        """Player 1's expected score of each position (None: not searched)."""
        return [p["expected"] for p in self.positions]

    @property
    def classes(self):
        """Each move's class: ``"inaccuracy"``, ``"mistake"``, ``"blunder"`` or None."""
        return [m["class"] for m in self.moves]

    @property
    def better_moves(self):
        """The engine's better move for each move (None where it names the move played)."""
        return [m["best"] for m in self.moves]

    def __repr__(self):
        return "Review({} moves, accuracy p1 {}, p2 {})".format(
            len(self.moves), self.accuracy["p1"], self.accuracy["p2"]
        )


def analyse(game, nodes=None, depth=None, movetime=None, engine=None, threads=1,
            hash_mb=64, tables=None):
    """Reviews a whole game: ``game`` is a ``Game`` (its start and moves) or
    the text of one record (a JSON line of the arena or ``datagen``, a PGN
    block). Every position is searched at the limits (100000 nodes when
    none is given), from the last back to the first with one transposition
    table, by ``engine`` or a new ``Engine(hash_mb, threads, tables)``.
    Returns a ``Review``; bad input raises ``stackfish.Error``."""
    if engine is None:
        engine = Engine(hash_mb=hash_mb, threads=threads, tables=tables)
    text, pgn = engine.analyse(game, nodes=nodes, depth=depth, movetime=movetime)
    return Review(json.loads(text), pgn)
