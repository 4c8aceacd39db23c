"""Shared by the tests: the engine binary of this checkout, which the
exactness tests compare the Python API with."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def binary_path():
    path = pathlib.Path(os.environ.get("STACKFISH_BIN", ROOT / "target" / "release" / "stackfish"))
    if not path.is_file():
        # Never a silent skip: the comparison is the point of these tests.
        raise RuntimeError(f"the engine binary {path} is missing: cargo build --release --bins")
    return str(path)


@pytest.fixture(scope="session")
def stackfish_bin():
    return binary_path()


class Raw:
    """The engine binary driven line by line, without stackfish.ugi (so that
    the exactness tests do not depend on the code they check)."""

    def __init__(self, path, variant):
        self.proc = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send(f"setoption name Game value {variant}")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, predicate):
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the engine closed its output after {lines}")
            line = line.rstrip("\n")
            lines.append(line)
            if predicate(line):
                return lines

    def position(self, start_fen, moves):
        text = f"position fen {start_fen}"
        if moves:
            text += " moves " + " ".join(moves)
        self.send(text)

    def divide(self):
        """The legal moves by `go perft 1`."""
        self.send("go perft 1")
        lines = self.read_until(lambda l: l.startswith("Nodes searched:"))
        moves = [l.split(":")[0] for l in lines if ":" in l and not l.startswith("Nodes")]
        count = int(lines[-1].split(":")[1])
        return moves, count

    def query(self, what):
        self.send(f"query {what}")
        return self.read_until(lambda l: l.startswith("response "))[-1].split()[1]

    def error_after(self, line):
        """The message of the error the engine answers `line` with."""
        self.send(line)
        self.send("isready")
        lines = self.read_until(lambda l: l == "readyok")
        errors = [l for l in lines if l.startswith("info string error: ")]
        assert errors, f"no error for {line!r}: {lines}"
        return errors[0][len("info string error: "):]

    def close(self):
        self.send("quit")
        self.proc.wait(timeout=10)


@pytest.fixture
def raw(stackfish_bin):
    engines = []

    def start(variant):
        engine = Raw(stackfish_bin, variant)
        engines.append(engine)
        return engine

    yield start
    for engine in engines:
        engine.close()
