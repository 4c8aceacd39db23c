"""The worked examples of docs/python.md run (with tiny budgets)."""

import pathlib
import subprocess
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def run(name, *args):
    done = subprocess.run([sys.executable, str(EXAMPLES / name), *map(str, args)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_random_against_the_engine():
    out = run("random_vs_engine.py", "mixtour", 2, 1, 300)
    # Two games: the scores add up to two.
    words = out.split()
    engine, rand = float(words[words.index("random,") - 3]), float(words[words.index("random,") - 1])
    assert engine + rand == 2.0, out


def test_training_a_policy_on_silo():
    out = run("train_silo.py", 2, 4)
    assert "episodes" in out and "against Level 1" in out, out
