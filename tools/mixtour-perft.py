#!/usr/bin/env python3
# A slow Mixtour perft written straight from docs/rules/mixtour.md, for
# boards of any shape (holes `#`/`#N`), independent of the engine's code:
# the figures of that page's perft tables come from it and from
# `stackfish perft`, and each checks the other.
#
#   tools/mixtour-perft.py "<position string>" <max depth>
#
# Prints the counts for depths 1..max depth on one line.
import sys

DIRECTIONS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]


def square(text):
    """`a1` -> (file, rank), files and ranks from 0."""
    return (ord(text[0]) - ord('a'), int(text[1:]) - 1)


def parse_move(text):
    if text == 'pass':
        return ('pass',)
    count = 1
    if text[0].isdigit():
        count, text = int(text[0]), text[1:]
    # Squares are a letter and one or two digits: a second letter starts
    # the target.
    split = next((i for i in range(1, len(text)) if text[i].isalpha()), None)
    if split is None:
        return ('enter', square(text))
    return ('stack', count, square(text[:split]), square(text[split:]))


def parse(fen):
    board, side, reserves, scores, goal, last = fen.split()
    ranks = board.split('/')
    cells = {}
    width = None
    for i, rank_text in enumerate(ranks):
        rank = len(ranks) - 1 - i
        file = 0
        for cell in rank_text.split(','):
            if cell[0] in 'x#':
                run = int(cell[1:]) if len(cell) > 1 else 1
                for _ in range(run):
                    if cell[0] == 'x':
                        cells[(file, rank)] = ()
                    file += 1
            else:
                cells[(file, rank)] = tuple(int(c) for c in cell)
                file += 1
        assert width in (None, file), 'ranks of different widths'
        width = file
    last_move = None if last == '-' else parse_move(last)
    return {
        'cells': cells,
        'side': int(side),
        'reserves': tuple(map(int, reserves.split(','))),
        'scores': tuple(map(int, scores.split(','))),
        'goal': int(goal),
        'last': last_move,
        'passes': 1 if last_move == ('pass',) else 0,
    }


def moves(p):
    cells, side = p['cells'], p['side']
    out = []
    if p['reserves'][side - 1] > 0:
        out += [('enter', c) for c, stack in sorted(cells.items()) if not stack]
    forbidden = None
    if p['last'] and p['last'][0] == 'stack':
        _, n, a, b = p['last']
        forbidden = ('stack', n, b, a)
    for target, stack in sorted(cells.items()):
        height = len(stack)
        if height == 0:
            continue
        for dx, dy in DIRECTIONS:
            # Every square between must be a playable empty square: a hole
            # (not in `cells`) blocks like a stack.
            between = [(target[0] + dx * k, target[1] + dy * k) for k in range(1, height)]
            if any(c not in cells or cells[c] for c in between):
                continue
            source = (target[0] + dx * height, target[1] + dy * height)
            if not cells.get(source):
                continue
            for n in range(1, len(cells[source]) + 1):
                move = ('stack', n, source, target)
                if move != forbidden:
                    out.append(move)
    return out or [('pass',)]


def play(p, move):
    cells = dict(p['cells'])
    reserves, scores = list(p['reserves']), list(p['scores'])
    side = p['side']
    passes = 0
    if move[0] == 'enter':
        cells[move[1]] = (side,)
        reserves[side - 1] -= 1
    elif move[0] == 'stack':
        _, n, a, b = move
        stack = cells[b] + cells[a][-n:]
        cells[a] = cells[a][:-n]
        if len(stack) >= 5:
            cells[b] = ()
            reserves[0] += stack.count(1)
            reserves[1] += stack.count(2)
            scores[stack[-1] - 1] += 1
        else:
            cells[b] = stack
    else:
        passes = p['passes'] + 1
    return dict(p, cells=cells, reserves=tuple(reserves), scores=tuple(scores),
                side=3 - side, last=move, passes=passes)


def over(p):
    return max(p['scores']) >= p['goal'] or p['passes'] >= 2


def perft(p, depth):
    if depth == 0:
        return 1
    if over(p):
        return 0
    return sum(perft(play(p, m), depth - 1) for m in moves(p))


if __name__ == '__main__':
    position = parse(sys.argv[1])
    print(' '.join(str(perft(position, d)) for d in range(1, int(sys.argv[2]) + 1)))
