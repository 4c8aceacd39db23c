"""Random games through the Python API agree move for move and result for
result with the engine binary (`go perft 1`, `query result`)."""

import random

import pytest

import stackfish

GAMES_PER_VARIANT = 3
MAX_PLIES = 120


@pytest.mark.parametrize("variant", stackfish.variants())
def test_random_games_agree_with_the_engine_binary(variant, raw):
    engine = raw(variant)
    rng = random.Random(variant)
    for _ in range(GAMES_PER_VARIANT):
        game = stackfish.Game(variant)
        for _ in range(MAX_PLIES):
            engine.position(game.start_fen(), game.moves())
            result = engine.query("result")
            assert game.result() == result, (game.fen(), game.moves())
            assert (game.outcome() is None) == (result == "none")
            if game.outcome() is not None:
                assert game.legal_moves() == []
                break
            moves, count = engine.divide()
            assert sorted(game.legal_moves()) == sorted(moves), game.fen()
            assert len(game.legal_actions()) == count
            game.play(rng.choice(game.legal_moves()))


@pytest.mark.parametrize("variant", stackfish.variants())
def test_perft_two_agrees_with_the_engine_binary(variant, raw):
    engine = raw(variant)
    game = stackfish.Game(variant)
    engine.position(game.start_fen(), [])
    engine.send("go perft 2")
    lines = engine.read_until(lambda l: l.startswith("Nodes searched:"))
    assert game.perft(2) == int(lines[-1].split(":")[1])
