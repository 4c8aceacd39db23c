#!/usr/bin/env python3
# Is an opening book worth having? For the start and early positions,
# compare the move stackfish plays at 100 ms with the best move of a deep
# search, scored by that deep search: the centi-units the fast move gives
# away. Usage: tools/book-value.py [deep depth, default 11]; needs a
# release build (STACKFISH=path overrides the binary).
import subprocess, sys, random
import os
SF = os.environ.get('STACKFISH', os.path.join(os.path.dirname(__file__), '..', 'target', 'release', 'stackfish'))
DEEP = int(sys.argv[1]) if len(sys.argv) > 1 else 11

def run(cmds, wait_for='bestmove'):
    p = subprocess.Popen([SF], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    for c in cmds:
        p.stdin.write(c + '\n')
    p.stdin.flush()
    lines = []
    for line in p.stdout:
        lines.append(line.strip())
        if line.startswith('bestmove'):
            break
    p.stdin.write('quit\n'); p.stdin.flush(); p.wait()
    return lines

def search(moves, go):
    pos = 'position startpos' + (' moves ' + ' '.join(moves) if moves else '')
    lines = run(['setoption name Hash value 64', pos, go])
    best = lines[-1].split()[1]
    score = None
    for l in lines:
        if l.startswith('info depth') and ' score cp ' in l:
            score = int(l.split(' score cp ')[1].split()[0])
    return best, score

random.seed(5)
files = 'abcde'
squares = [f + r for f in files for r in '12345']
positions = [[]]
# one representative of each start placement up to symmetry: a1 a2 a3 b2 b3 c3
positions += [[s] for s in ['a1', 'a2', 'a3', 'b2', 'b3', 'c3']]
for _ in range(8):
    a, b = random.sample(squares, 2)
    positions.append([a, b])
total = 0
for moves in positions:
    fast, _ = search(moves, 'go movetime 100')
    deep, deep_score = search(moves, f'go depth {DEEP}')
    if fast == deep:
        loss = 0
    else:
        _, reply = search(moves + [fast], f'go depth {DEEP - 1}')
        loss = deep_score - (-reply)
    total += loss
    print(f"{' '.join(moves) or 'start':8} fast {fast:6} deep {deep:6} score {deep_score:5} loss {loss}", flush=True)
print(f"positions {len(positions)} mean loss {total / len(positions):.1f} cp")
