"""A short check of an installed stackfish wheel, small enough to run under
qemu (tests/python/run.sh runs it on a baseline x86-64 CPU and on aarch64):
the rules, perft and a search, in-process. No NumPy, no framework: only
what the wheel itself brings.
"""
import sys

import stackfish

# Perft from the start of mixtour, as docs/rules/mixtour.md gives it.
MIXTOUR_PERFT = {1: 25, 2: 600, 3: 14088, 4: 330384}

game = stackfish.Game("mixtour")
for depth, leaves in MIXTOUR_PERFT.items():
    got = game.perft(depth)
    if got != leaves:
        sys.exit(f"smoke: mixtour perft {depth} is {got}, docs/rules/mixtour.md says {leaves}")

assert game.play("c3") == "c3"
assert game.side_to_move() == 2
for variant in stackfish.variants():
    assert stackfish.Game(variant).legal_moves(), variant

engine = stackfish.Engine(hash_mb=4, threads=1)
found = engine.search(game, nodes=3000)
if found["move"] not in game.legal_moves():
    sys.exit(f"smoke: the engine played {found['move']!r}, not a legal move")
print(f"smoke: ok on {stackfish.__name__} from {stackfish.__file__}")
