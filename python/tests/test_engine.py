"""stackfish.Engine in-process, and stackfish.ugi driving the binary."""

import subprocess
import sys

import pytest

import stackfish
import stackfish.ugi as ugi


def test_search_returns_a_legal_move_with_its_line():
    engine = stackfish.Engine()
    for variant in stackfish.variants():
        game = stackfish.Game(variant)
        found = engine.search(game, nodes=2000)
        assert found["move"] in game.legal_moves(), variant
        assert found["pv"][0] == found["move"]
        assert found["nodes"] > 0


def test_the_same_search_finds_what_the_binary_finds(stackfish_bin):
    game = stackfish.Game("mixtour")
    for move in ("c3", "b2", "d4"):
        game.play(move)
    found = stackfish.Engine().search(game, nodes=20000)
    with ugi.Engine.popen([stackfish_bin]) as binary:
        played = binary.play(game, ugi.Limit(nodes=20000))
    assert played.move == found["move"]
    assert played.info["nodes"] == found["nodes"]
    assert played.info["score"] == {"cp": found["score"]}
    assert played.info["pv"] == found["pv"]


def test_multipv_and_levels():
    engine = stackfish.Engine()
    game = stackfish.Game("coinstack")
    found = engine.search(game, depth=2, multipv=3)
    assert len(found["lines"]) == 3
    firsts = [line["pv"][0] for line in found["lines"]]
    assert len(set(firsts)) == 3 and set(firsts) <= set(game.legal_moves())
    assert found["lines"][0]["score"] >= found["lines"][2]["score"]
    weak = engine.search(game, nodes=500, level=1)
    assert weak["move"] in game.legal_moves()


def test_a_won_silo_position_is_proved_with_its_mate_distance():
    # Player 1 to move wins on a 1 x 4 row; the proof gives the distance.
    game = stackfish.Game("silo", "11/22/11/22 1")
    found = stackfish.Engine().search(game, nodes=100000)
    assert found["mate"] is not None


def test_the_silo_tables_are_probed(tmp_path, stackfish_bin):
    fen = "11/22/11/22 1"
    subprocess.run([stackfish_bin, "solve", "--fen", fen, "--write", str(tmp_path / "t.tbl")],
                   check=True, capture_output=True)
    solved = subprocess.run([stackfish_bin, "solve", "--fen", fen, "--method", "full"],
                            check=True, capture_output=True, text=True).stdout
    value = next(l for l in solved.splitlines() if l.startswith("Value: "))
    # "Value: win in N plies for player 1 to move" (or loss / draw).
    words = value.split()
    engine = stackfish.Engine(tables=str(tmp_path))
    result, plies, line = engine.probe(stackfish.Game("silo", fen))
    assert result == {"win": 1, "loss": -1, "draw": 0}[words[1]]
    if result != 0:
        assert plies == int(words[3])
        assert len(line) == plies
    assert engine.probe(stackfish.Game("silo")) is None
    with pytest.raises(stackfish.Error, match="no table folder"):
        stackfish.Engine().probe(stackfish.Game("silo"))


def test_evaluate_is_from_the_movers_view():
    engine = stackfish.Engine()
    game = stackfish.Game("mixtour")
    assert engine.evaluate(game) == game.evaluate()
    assert isinstance(engine.evaluate(game), int)


def test_ugi_handshake_options_and_errors(stackfish_bin):
    with ugi.Engine.popen([stackfish_bin]) as engine:
        assert "stackfish" in engine.id.get("name", "").lower()
        assert engine.options["Level"].type == "spin"
        assert engine.options["Level"].max == 20
        assert "silo" in engine.options["Game"].var
        with pytest.raises(stackfish.Error) as caught:
            engine.configure({"Game": "chess"})
        assert str(caught.value).startswith("option Game: unknown game 'chess'")
        game = stackfish.Game("silo")
        result = engine.play(game, ugi.Limit(nodes=1000))
        assert result.move in game.legal_moves()
        lines = engine.analyse(stackfish.Game("focus"), ugi.Limit(depth=2), multipv=2)
        assert len(lines) == 2 and lines[0]["multipv"] == 1
        assert engine.query("result") == "none"
    assert engine.process.poll() is not None


def test_ugi_times_out_on_a_silent_engine_and_kills_it():
    silent = [sys.executable, "-c", "import time; time.sleep(60)"]
    with pytest.raises(ugi.EngineTimeout):
        ugi.Engine.popen(silent, timeout=0.5)


def test_ugi_reports_an_engine_that_exits():
    with pytest.raises(ugi.EngineTerminated):
        ugi.Engine.popen([sys.executable, "-c", "print('id name quitter')"], timeout=5)


def test_info_lines_are_parsed():
    info = ugi.parse_info("info depth 3 seldepth 5 multipv 2 score mate -4 nodes 99 pv a1 b2")
    assert info == {"depth": 3, "seldepth": 5, "multipv": 2, "score": {"mate": -4},
                    "nodes": 99, "pv": ["a1", "b2"]}
    assert ugi.parse_info("info string hello world") == {"string": "hello world"}


FAKE = r"""
import sys
stop_answers = sys.argv[1] == "yes"
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "ugi":
        print("id name fake\noption name Hash type spin default 1 min 1 max 8\nugiok", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "stop" and stop_answers:
        print("info depth 1 score cp 5 pv a1\nbestmove a1", flush=True)
    elif word == "quit":
        break
"""


def test_ugi_stops_a_search_that_outlasts_the_timeout(tmp_path):
    script = tmp_path / "fake.py"
    script.write_text(FAKE)
    # The handshake gets a generous deadline (a Python start on a loaded
    # machine can take seconds); the search's, which the fake never meets,
    # is then cut to a short one so that the test is quick.
    with ugi.Engine.popen([sys.executable, str(script), "yes"], timeout=60) as engine:
        assert engine.options["Hash"].max == 8
        engine.timeout = 2
        result = engine.play(stackfish.Game("mixtour"), ugi.Limit(nodes=10))
        assert result.move == "a1" and result.info["score"] == {"cp": 5}
    with ugi.Engine.popen([sys.executable, str(script), "no"], timeout=60) as engine:
        engine.timeout = 1
        with pytest.raises(ugi.EngineTimeout):
            engine.play(stackfish.Game("mixtour"), ugi.Limit(nodes=10))
    assert engine.process.poll() is not None
