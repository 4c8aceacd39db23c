"""stackfish.analyse: a whole game reviewed in-process, compared with the
binary's `stackfish analyse` on the same game."""

import json
import subprocess

import pytest

import stackfish

# A "save 2" position of the tactics suite (proven by exact search): the
# side to move must play c2e2; 2c2e2 lets player 1 win at once with 4e2e1.
SAVE = "x,2212,x,1,x/x,21,x3/x5/x2,2121,x,22/x,12,x2,1 2 13,11 0,0 1 e1e2"


def test_a_move_that_allows_a_win_in_one_is_a_blunder_with_the_defence():
    game = stackfish.Game("mixtour", SAVE)
    game.play("2c2e2")
    game.play("4e2e1")
    review = stackfish.analyse(game, nodes=20000)
    assert review.classes == ["blunder", None]
    assert review.better_moves[0] == "c2e2"
    assert review.moves[0]["line"][0] == "c2e2"
    assert review.decisive["ply"] == 1 and review.decisive["side"] == "p2"
    assert review.data["result"] == "1-0"
    # Player 1's expected score: the last position is the result itself.
    assert review.evaluations[-1] == 1.0
    assert len(review.evaluations) == 3
    # Player 2 moved first: `1...`, the defence as a variation in its place
    # (the lines wrap at 80 columns).
    flat = review.pgn.replace("\n", " ")
    assert "1... 2c2e2 $4 {[%eval #1," in flat
    assert "(1... c2e2 2. " in flat
    assert review.accuracy["p1"] is not None and review.accuracy["p2"] < 50


def test_the_review_is_the_binarys(stackfish_bin):
    game = stackfish.Game("mixtour")
    for move in ("c3", "b2", "d4", "c3d4"):
        game.play(move)
    review = stackfish.analyse(game, nodes=5000)
    out = subprocess.run(
        [stackfish_bin, "analyse", "--moves", " ".join(game.moves()), "--nodes", "5000", "--json"],
        capture_output=True, text=True, check=True,
    )
    binary = json.loads(out.stdout)
    assert review.positions == binary["positions"]
    assert review.moves == binary["moves"]
    assert review.accuracy == binary["accuracy"]


def test_a_record_text_is_reviewed_like_its_game():
    line = json.dumps({"variant": "mixtour", "result": "*", "moves": [{"move": "c3"}, {"move": "b2"}]})
    engine = stackfish.Engine()
    from_text = stackfish.analyse(line, nodes=3000, engine=engine)
    game = stackfish.Game("mixtour")
    game.play("c3")
    game.play("b2")
    from_game = stackfish.analyse(game, nodes=3000, engine=engine)
    assert from_text.positions == from_game.positions
    # A move the rules refuse ends the review there, and says so.
    bad = json.dumps({"moves": [{"move": "c3"}, {"move": "c3"}]})
    stopped = stackfish.analyse(bad, nodes=1000)
    assert stopped.stopped["ply"] == 2
    assert stopped.stopped["error"].startswith("illegal move")
    assert len(stopped.moves) == 1


@pytest.mark.parametrize(
    "game, message",
    [
        ("not a record", "does not end in a result"),
        ("", "holds no game"),
        ('{"moves": []}\n{"moves": []}', "more than one game"),
        ('{"variant": "chess", "moves": []}', "unknown variant"),
        (42, "takes a Game or the text of one game record"),
    ],
)
def test_bad_input_raises_with_the_reason(game, message):
    with pytest.raises(stackfish.Error, match=message):
        stackfish.analyse(game, nodes=1000)


def test_limits_are_checked():
    with pytest.raises(stackfish.Error, match="nodes must be at least 1"):
        stackfish.analyse(stackfish.Game("silo"), nodes=0)
