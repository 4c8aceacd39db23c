"""The Game API: positions, play, undo, copies, actions and observations."""

import copy
import random

import numpy as np
import pytest

import stackfish


def random_positions(variant, seed, plies=60):
    """Games after 0..plies random moves (fewer if the game ends)."""
    rng = random.Random(seed)
    game = stackfish.Game(variant)
    yield game.copy()
    for _ in range(plies):
        if game.outcome() is not None:
            return
        game.play(rng.choice(game.legal_moves()))
        yield game.copy()


def test_every_engine_variant_is_a_game():
    names = stackfish.variants()
    assert {"mixtour", "silo", "coinstack", "focus", "castle"} <= set(names)
    for name in names:
        game = stackfish.Game(name.upper())
        assert game.variant == name
        assert game.side_to_move() == 1
        assert game.outcome() is None
        assert game.moves() == []


@pytest.mark.parametrize("variant", stackfish.variants())
def test_position_strings_round_trip_and_hash_follows_the_position(variant):
    seen = {}
    for game in random_positions(variant, 1):
        again = stackfish.Game(variant, game.fen())
        assert again.fen() == game.fen()
        assert again.zobrist() == game.zobrist()
        assert sorted(again.legal_moves()) == sorted(game.legal_moves())
        seen.setdefault(game.fen(), game.zobrist())
        assert seen[game.fen()] == game.zobrist()
    assert len(set(seen.values())) == len(seen)


@pytest.mark.parametrize("variant", stackfish.variants())
def test_actions_number_the_legal_moves_one_to_one(variant):
    for game in random_positions(variant, 2):
        actions = game.legal_actions()
        moves = game.legal_moves()
        assert len(actions) == len(set(actions)) == len(moves)
        assert all(0 <= a < game.num_actions() for a in actions)
        assert sorted(game.action_to_move(a) for a in actions) == sorted(moves)
        assert sorted(game.move_to_action(m) for m in moves) == actions


@pytest.mark.parametrize("variant", stackfish.variants())
def test_undo_and_play_action_retrace_the_game(variant):
    history = list(random_positions(variant, 3, plies=40))
    game = history[-1].copy()
    for earlier in reversed(history[:-1]):
        assert game.undo()
        assert game.fen() == earlier.fen()
        assert game.zobrist() == earlier.zobrist()
    assert not game.undo()
    for later in history[1:]:
        move = later.moves()[-1]
        assert game.play_action(game.move_to_action(move)) == move
        assert game.fen() == later.fen()


def test_a_copy_is_independent():
    game = stackfish.Game("mixtour")
    game.play("c3")
    for other in (game.copy(), copy.copy(game), copy.deepcopy(game)):
        other.play(other.legal_moves()[0])
        assert game.moves() == ["c3"]
        assert len(other.moves()) == 2


def test_mixtour_actions_follow_the_documented_numbering():
    # Cells rank * 5 + file; N = 25; stack moves N + (from * N + to) * 4 + count - 1.
    game = stackfish.Game("mixtour")
    assert game.num_actions() == 25 + 4 * 25 * 25 + 1
    assert game.move_to_action("a1") == 0
    assert game.move_to_action("e5") == 24
    game.play("a1")
    game.play("b2")
    # 1 piece from a1 (cell 0) onto b2 (cell 6).
    assert game.move_to_action("1a1b2") in (25 + (0 * 25 + 6) * 4,)
    assert game.action_to_move(25 + (6 * 25 + 0) * 4) == "b2a1"


def test_silo_and_castle_actions_follow_the_documented_numbering():
    silo = stackfish.Game("silo")
    assert silo.num_actions() == 7
    assert [silo.action_to_move(a) for a in silo.legal_actions()] == silo.legal_moves()
    for move in silo.legal_moves():
        assert silo.move_to_action(move) == "abcdef".index(move)
    castle = stackfish.Game("castle")
    assert castle.num_actions() == 361 * 4 * 18


def test_a_board_of_another_shape_has_its_own_numbering():
    game = stackfish.Game("mixtour", "x6/x6/x6/x6/x6/x6 1 20,20 0,0 1 -")
    assert game.num_actions() == 36 + 4 * 36 * 36 + 1
    assert game.move_to_action("f6") == 35
    assert game.observation_shape() == (13, 6, 6)


def test_observation_planes_show_the_pieces_from_the_movers_view():
    game = stackfish.Game("mixtour")
    obs = game.observation()
    assert obs.dtype == np.float32 and obs.shape == (13, 5, 5)
    assert obs[:8].sum() == 0 and obs[8].sum() == 25
    assert np.allclose(obs[9], 20 / 25) and np.allclose(obs[10], 20 / 25)
    game.play("b1")  # player 1 on b1 (rank 0, file 1); player 2 to move
    obs = game.observation()
    assert obs[4, 0, 1] == 1 and obs[:8].sum() == 1
    assert np.allclose(obs[9], 20 / 25) and np.allclose(obs[10], 19 / 25)
    silo = stackfish.Game("silo")
    planes = silo.observation()
    assert planes.shape == (2, 18, 6)
    assert planes.sum() == 18 and planes[0].sum() == 9


@pytest.mark.parametrize("variant", stackfish.variants())
def test_observations_keep_their_shape_and_range(variant):
    shape = stackfish.Game(variant).observation_shape()
    for game in random_positions(variant, 4, plies=30):
        obs = game.observation()
        assert obs.shape == shape
        assert obs.min() >= 0 and obs.max() <= 1


@pytest.mark.parametrize("variant", stackfish.variants())
def test_play_random_is_seeded_and_counts_every_game(variant):
    game = stackfish.Game(variant)
    first = game.play_random(6, seed=11, max_plies=400)
    assert first == game.play_random(6, seed=11, max_plies=400)
    p1, p2, draws, cut, plies = first
    assert p1 + p2 + draws + cut == 6
    assert 0 < plies <= 6 * 400
    assert game.moves() == []


def test_perft_counts_the_leaves():
    game = stackfish.Game("silo")
    total = 0
    for move in game.legal_moves():
        child = game.copy()
        child.play(move)
        total += child.perft(1)
    assert game.perft(2) == total
    assert game.perft(1) == len(game.legal_moves())


def test_a_game_pickles_with_its_history():
    import pickle

    game = stackfish.Game("silo")
    for move in ("a", "d", "a"):
        game.play(move)
    back = pickle.loads(pickle.dumps(game))
    assert back.variant == "silo" and back.moves() == game.moves()
    assert back.fen() == game.fen() and back.start_fen() == game.start_fen()
    back.undo()
    assert back.moves() == ["a", "d"]
    shaped = stackfish.Game("mixtour", "x6/x6/x6/x6/x6/x6 1 20,20 0,0 1 -")
    shaped.play("f6")
    assert pickle.loads(pickle.dumps(shaped)).fen() == shaped.fen()
