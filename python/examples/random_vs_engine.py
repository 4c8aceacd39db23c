"""Worked example 1: a random player against the engine.

    python random_vs_engine.py [variant] [games] [level] [nodes]

Plays `games` games (colours alternating) of a uniformly random player
against stackfish.Engine at `level` with a `nodes` budget per move, and
prints the engine's score.
"""

import random
import sys

import stackfish


def play_match(variant="silo", games=20, level=1, nodes=200, seed=0):
    rng = random.Random(seed)
    engine = stackfish.Engine(hash_mb=4)
    score = {"engine": 0.0, "random": 0.0}
    reasons = {}
    for number in range(games):
        engine_side = 1 if number % 2 == 0 else 2
        game = stackfish.Game(variant)
        engine.new_game()
        while game.outcome() is None and len(game.moves()) < 1000:
            if game.side_to_move() == engine_side:
                move = engine.search(game, nodes=nodes, level=level)["move"]
            else:
                move = rng.choice(game.legal_moves())
            game.play(move)
        outcome = game.outcome()
        winner, reason = outcome if outcome else (0, "move cap")
        reasons[reason] = reasons.get(reason, 0) + 1
        if winner == 0:
            score["engine"] += 0.5
            score["random"] += 0.5
        elif winner == engine_side:
            score["engine"] += 1
        else:
            score["random"] += 1
    return score, reasons


if __name__ == "__main__":
    args = sys.argv[1:]
    variant = args[0] if args else "silo"
    games = int(args[1]) if len(args) > 1 else 20
    level = int(args[2]) if len(args) > 2 else 1
    nodes = int(args[3]) if len(args) > 3 else 200
    score, reasons = play_match(variant, games, level, nodes)
    print(f"{variant}: engine (level {level}, {nodes} nodes) {score['engine']} - "
          f"{score['random']} random, over {games} games; endings {reasons}")
