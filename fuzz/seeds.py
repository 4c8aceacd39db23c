#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (fuzz/seeds/<target>/) from the
repository: the protocol transcripts, games the engine plays, the shipped
StackAndConquer boards and files the binary exports, records `datagen`
writes, Silo tables `solve` builds, and the requests of the API and
webhook tests. Run from the repository root after `cargo build --release
--bins`; the seeds are committed, so CI does not run this. Each seed is
small (a few kilobytes at most)."""

import base64
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = os.path.join(ROOT, "fuzz", "seeds")
STACKFISH = os.path.join(ROOT, "target", "release", "stackfish")
# variants::variant_names(), in order: game_moves picks by the first byte.
VARIANTS = ["mixtour", "mixtour-5", "silo", "silo-8", "coinstack", "focus",
            "castle", "castle-2", "castle-3"]


def write(target, name, data):
    folder = os.path.join(SEEDS, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def run(args, stdin=""):
    out = subprocess.run([STACKFISH] + args, input=stdin, capture_output=True,
                         text=True, check=True, timeout=120)
    return out.stdout


def transcripts():
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "transcripts", "*.txt"))):
        name = os.path.basename(path)[:-4]
        sent = [l[2:] for l in open(path).read().splitlines() if l.startswith("> ")]
        write("engine_loop", name, "\n".join(sent) + "\n")
        for i, line in enumerate(sent):
            write("ugi_command", f"{name}-{i}", line)


def played(variant, plies):
    """The position strings and moves of a short game the engine plays."""
    moves, fens = [], []
    for _ in range(plies):
        lines = [f"setoption name Game value {variant}",
                 "position startpos moves " + " ".join(moves), "d",
                 "go nodes 200", "quit"]
        out = run([], "\n".join(lines) + "\n").splitlines()
        fens.append(next(l[5:] for l in out if l.startswith("Fen: ")))
        best = next(l.split()[1] for l in out if l.startswith("bestmove"))
        if best == "(none)":
            break
        moves.append(best)
    return fens, moves


def games():
    for i, variant in enumerate(VARIANTS):
        fens, moves = played(variant, 12)
        pick = bytes([i])
        # The start, then its moves as text, a legal pick and an illegal move.
        write("game_moves", f"{variant}-start",
              pick + b"\n" + "\n".join(moves[:6]).encode() + b"\n\x05\nzz9\n")
        for ply in (4, len(fens) - 1):
            rest = "\n".join(moves[ply:ply + 4])
            write("game_moves", f"{variant}-ply{ply}",
                  pick + fens[ply].encode() + b"\n" + rest.encode() + b"\n\x01\n\x02\n")
        write("engine_loop", f"{variant}-game",
              f"setoption name Game value {variant}\nposition fen {fens[-1]}\n"
              f"go nodes 100\nd\nquery gameover\nposition startpos moves {' '.join(moves)}\n"
              "go perft 2\nquery result\n")


def stackandconquer():
    for path in sorted(glob.glob(os.path.join(ROOT, "boards", "*.in"))):
        shutil.copy(path, os.path.join(SEEDS, "sac_in", os.path.basename(path)))
    fens = ["x5/x2,12,x2/x5/2,x4/x3,1122,x 2 15,16 0,1 2 -",
            "#,x3,#/x,12,x3/x5/x2,2,x2/#,1,x2,# 2 18,19 0,0 1 -",
            "x8/x3,12,x4/2,x7 2 17,18 0,0 1 -"]
    with tempfile.TemporaryDirectory() as tmp:
        for i, fen in enumerate(fens):
            sav, board = os.path.join(tmp, "g.stacksav"), os.path.join(tmp, "g.stackboard")
            run(["export", "--fen", fen, "--stacksav", sav, "--stackboard", board])
            shutil.copy(sav, os.path.join(SEEDS, "sac_stacksav", f"export-{i}.stacksav"))
            shutil.copy(board, os.path.join(SEEDS, "sac_stackboard", f"export-{i}.stackboard"))
            # The save's JSON inside, for the fuzzer to vary before base64.
            inner = base64.b64decode(open(sav, "rb").read())
            write("record_jsonl", f"sac-json-{i}", inner)


def records():
    with tempfile.TemporaryDirectory() as tmp:
        for game in ("mixtour", "silo", "castle"):
            out = os.path.join(tmp, f"{game}.jsonl")
            run(["datagen", "--game", game, "--games", "2", "--nodes", "50", "--out", out])
            lines = open(out).read().splitlines()
            write("record_jsonl", f"datagen-{game}", "\n".join(lines) + "\n")
    arena = {"game": 3, "round": 2, "opening": 0, "event": "match", "date": "2026.04.13",
             "variant": "mixtour", "player1": "a", "player2": "b",
             "fen": "startpos", "moves": [{"move": "c3", "book": True},
                                          {"move": "d4", "cp": -35, "depth": 8, "ms": 102},
                                          {"move": "2c3d4", "mate": -3, "depth": 12}],
             "result": "0-1", "termination": "adjudication", "time_control": "10+0.1",
             "duration_ms": 1500}
    write("record_jsonl", "arena", json.dumps(arena) + "\n" + json.dumps(arena)[:50])
    # PGN: the arena's blocks, the board's download, and a game annotated
    # by `stackfish analyse` (glyphs, comments, variations).
    for name in ("match.pgn", "board.pgn"):
        shutil.copy(os.path.join(ROOT, "tests", "records", name),
                    os.path.join(SEEDS, "record_pgn", name))
    with tempfile.TemporaryDirectory() as tmp:
        game = os.path.join(tmp, "game.jsonl")
        with open(game, "w") as f:
            f.write(open(os.path.join(ROOT, "tests", "records", "match.jsonl")).readline())
        write("record_pgn", "annotated.pgn", run(["analyse", game, "--nodes", "300"]))


def tables():
    with tempfile.TemporaryDirectory() as tmp:
        for name, fen in (("silo-4x2", "1/2/1/2 1"), ("silo-6x1", "1/2/x/x/x/x 1"),
                          ("silo-2x2", "12/21 1")):
            path = os.path.join(tmp, name + ".tbl")
            run(["solve", "--fen", fen, "--write", path])
            shutil.copy(path, os.path.join(SEEDS, "silo_table", name))


def webhooks():
    mixtour = {"verb": "move", "metaGame": "mixtour", "variants": [], "gameid": "g-1",
               "clockCurr": 2.5, "moves": [["c3", "d4"], ["c3-d4"]]}
    focus = {"verb": "move", "metaGame": "focus", "variants": [], "gameid": "f_2",
             "moves": [["d2-d3", "c7-c6"]]}
    challenge = {"verb": "challenge", "metaGame": "mixtour", "variants": ["three"]}
    for name, note in (("mixtour", mixtour), ("focus", focus), ("challenge", challenge)):
        write("apbot_webhook", name, "\n" + json.dumps(note))
    write("apbot_webhook", "signed-stale", "1700000000 0123456789abcdef0123456789abcdef\n"
          + json.dumps(challenge))
    write("apbot_webhook", "bad-signature", "1780000000 0123456789abcdef0123456789abcdef AAAA\n{}")


def board():
    write("board_api", "play",
          'POST /api/new {"engine":"p2","level":3,"movetime_ms":100}\n'
          "GET /api/state\n"
          'POST /api/move {"move":"c3"}\n'
          "info depth 3 score cp 12 nodes 100 time 5 pv d4 c2\n"
          "bestmove d4\n"
          'POST /api/undo {"plies":1}\n'
          'POST /api/goto {"ply":0}\n'
          "GET /api/record\nGET /api/stacksav\nGET /api/stackboard\n")
    write("board_api", "analyse",
          'POST /api/fen {"fen":"x5/x2,12,x2/x5/2,x4/x3,1122,x 2 15,16 0,1 2 -"}\n'
          'POST /api/analyse {"on":true,"engine":"other","multipv":2}\n'
          "info depth 2 multipv 2 score mate -3 nodes 9 pv a1b1\n"
          "fail the engine died\nPOST /api/stop {}\nPOST /api/go\nGET /api/boards\n")
    write("board_api", "games",
          'POST /api/new {"variant":"silo"}\nPOST /api/move {"move":"a"}\n'
          'POST /api/new {"variant":"castle-2","engine":"both"}\nbestmove (none)\n'
          'PUT /api/new {}\nGET /nowhere\n')
    board_in = open(os.path.join(ROOT, "boards", "square_6x6.in"), "rb").read()
    write("board_api", "files",
          'POST /api/new {"board":"ring_7x7","engine":"none"}\nGET /api/stacksav\n'
          'POST /api/new {"file":{"name":"b.in","base64":"%s"}}\nGET /api/stackboard\n'
          'POST /api/new {"variant":"mixtour-5","file":{"name":"g.stacksav","base64":"e30="}}\n'
          % base64.b64encode(board_in).decode())


def network():
    write("mixtour_network", "magic", b"STACKNET\x02\x00mixtour\x00\x01\x00" + bytes(range(64)))
    # Offset 18 (the goals field of the header), then past the first-layer
    # weights (the biases and output weights), then the last bytes (b2 and
    # the linear weights).
    write("mixtour_network", "patch-start", (18).to_bytes(4, "little") + b"\x07\x00")
    write("mixtour_network", "patch-middle", (32 + 2 * 792 * 64).to_bytes(4, "little") + b"\xff\x7f" * 8)
    write("mixtour_network", "patch-end", (101716 - 40).to_bytes(4, "little") + b"\xff\xff\xff\x7f" * 10)


def main():
    if not os.path.exists(STACKFISH):
        sys.exit("build first: cargo build --release --bins")
    shutil.rmtree(SEEDS, ignore_errors=True)
    for t in ("sac_in", "sac_stacksav", "sac_stackboard", "silo_table", "record_pgn"):
        os.makedirs(os.path.join(SEEDS, t), exist_ok=True)
    transcripts()
    games()
    stackandconquer()
    records()
    tables()
    webhooks()
    board()
    network()


main()
