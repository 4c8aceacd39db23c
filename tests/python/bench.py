"""Speed figures of the Python package (docs/python.md quotes them):

    python tests/python/bench.py [path/to/stackfish]

- perft from Python against the native `stackfish perft` (best of 5 each, in
  CPU seconds: the process's own for Python, the child's for the command, so
  that other load on the machine counts less);
- random playouts: a Python loop over legal_moves/play, and play_random(n);
- PettingZoo AEC steps per second with random legal actions.
"""

import random
import resource
import subprocess
import sys
import time

import numpy as np

import stackfish
import stackfish.pettingzoo

PERFT = [("mixtour", 6), ("silo", 12), ("coinstack", 5), ("castle", 5)]


def cpu_seconds():
    """CPU time of this process and of its finished children."""
    own = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + children.ru_utime + children.ru_stime


def best_of(runs, fn):
    times = []
    for _ in range(runs):
        start = cpu_seconds()
        fn()
        times.append(cpu_seconds() - start)
    return min(times)


def perft_figures(binary):
    print("perft: variant depth nodes | native CPU s | python CPU s | python/native")
    for variant, depth in PERFT:
        game = stackfish.Game(variant)
        nodes = game.perft(depth)
        cmd = [binary, "perft", str(depth), "--game", variant]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        assert f"Nodes searched: {nodes}" in out, out
        native = best_of(5, lambda: subprocess.run(cmd, capture_output=True, check=True))
        python = best_of(5, lambda: game.perft(depth))
        print(f"  {variant} {depth} {nodes} | {native:.3f} | {python:.3f} | {python / native:.3f}")


def python_playouts(variant, seconds=3.0):
    rng = random.Random(0)
    games = plies = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = stackfish.Game(variant)
        while game.outcome() is None and len(game.moves()) < 1000:
            game.play(rng.choice(game.legal_moves()))
            plies += 1
        games += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, plies / elapsed


def rust_playouts(variant, n):
    game = stackfish.Game(variant)
    start = time.perf_counter()
    *_, plies = game.play_random(n, seed=0, max_plies=1000)
    elapsed = time.perf_counter() - start
    return n / elapsed, plies / elapsed


def pettingzoo_steps(variant, steps=20000):
    env = stackfish.pettingzoo.env(variant)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    done = 0
    while done < steps:
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.reset()
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        done += 1
    return steps / (time.perf_counter() - start)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/stackfish"
    perft_figures(binary)
    print("playouts (games/s, plies/s): variant | Python loop | play_random")
    for variant in ("mixtour", "silo", "castle"):
        py_games, py_plies = python_playouts(variant)
        rs_games, rs_plies = rust_playouts(variant, 2000)
        print(f"  {variant} | {py_games:.0f}, {py_plies:.0f} | {rs_games:.0f}, {rs_plies:.0f}")
    print("PettingZoo AEC steps/s (random legal actions, observations included):")
    for variant in ("mixtour", "silo", "castle"):
        print(f"  {variant} {pettingzoo_steps(variant):.0f}")


if __name__ == "__main__":
    main()
