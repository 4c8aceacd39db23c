"""Bad input raises stackfish.Error (a ValueError) with the engine's message."""

import numpy as np
import pytest

import stackfish


def strip(message):
    """The engine's message without what the protocol adds around it."""
    for tail in ("; position unchanged",):
        message = message.removesuffix(tail)
    if message.endswith(" of the list)"):
        message = message[: message.rindex(" (move ")]
    return message


def test_the_error_is_a_value_error():
    assert issubclass(stackfish.Error, ValueError)
    assert stackfish.Error.__module__ == "stackfish"


@pytest.mark.parametrize(
    "variant,fen",
    [
        ("mixtour", "x5/x5 1"),
        ("mixtour", "x5/x5/x5/x5/x5 3 20,20 0,0 1 -"),
        ("silo", "zz"),
        ("coinstack", "x8 1"),
        ("castle", "not a position"),
    ],
)
def test_a_bad_position_string_gives_the_engines_message(variant, fen, raw):
    with pytest.raises(stackfish.Error) as caught:
        stackfish.Game(variant, fen)
    expected = strip(raw(variant).error_after(f"position fen {fen}"))
    assert str(caught.value) == expected


@pytest.mark.parametrize("move", ["zz9", "a1x", "pass", "9a1b2"])
def test_an_illegal_or_malformed_move_gives_the_engines_message(move, raw):
    game = stackfish.Game("mixtour")
    with pytest.raises(stackfish.Error) as caught:
        game.play(move)
    expected = strip(raw("mixtour").error_after(f"position startpos moves {move}"))
    assert str(caught.value) == expected
    assert game.moves() == []
    with pytest.raises(stackfish.Error):
        game.move_to_action(move)


def test_an_unknown_variant_gives_the_engines_message(raw):
    with pytest.raises(stackfish.Error) as caught:
        stackfish.Game("chess")
    expected = raw("mixtour").error_after("setoption name Game value chess")
    assert "option Game: " + str(caught.value) == expected


def test_actions_out_of_range_or_illegal_are_refused():
    game = stackfish.Game("silo")
    for action in (-1, game.num_actions(), 10**12, 10**30, -(10**30), np.int64(7)):
        with pytest.raises(stackfish.Error, match=f"action {action} is out of range"):
            game.play_action(action)
        with pytest.raises(stackfish.Error, match="out of range"):
            game.action_to_move(action)
    with pytest.raises(stackfish.Error, match="not an integer"):
        game.play_action("a")
    game = stackfish.Game("mixtour")
    pass_action = game.num_actions() - 1
    with pytest.raises(stackfish.Error, match="not a legal move"):
        game.play_action(pass_action)
    assert game.moves() == []


def test_a_finished_game_refuses_moves():
    game = stackfish.Game("silo")
    while game.outcome() is None:
        game.play(game.legal_moves()[0])
    with pytest.raises(stackfish.Error, match="the game is over"):
        game.play("a")


def test_a_bad_table_folder_gives_the_engines_message(tmp_path, raw):
    folder = tmp_path / "missing"
    with pytest.raises(stackfish.Error) as caught:
        stackfish.Engine(tables=str(folder))
    expected = raw("silo").error_after(f"setoption name SiloTablePath value {folder}")
    assert str(caught.value) == expected


def test_bad_engine_options_and_limits_are_refused():
    engine = stackfish.Engine()
    with pytest.raises(stackfish.Error, match="Level"):
        engine.search(stackfish.Game("silo"), nodes=100, level=99)
    with pytest.raises(stackfish.Error, match="needs a limit"):
        engine.search(stackfish.Game("silo"))
    with pytest.raises(stackfish.Error):
        stackfish.Engine(hash_mb=0)
