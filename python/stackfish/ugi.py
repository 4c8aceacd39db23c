"""Drive any UGI or UCI engine process from Python, in the manner of
python-chess's ``chess.engine`` (synchronous, one engine per object)::

    with stackfish.ugi.Engine.popen(["stackfish"]) as engine:
        engine.configure({"Game": "silo"})
        game = stackfish.Game("silo")
        result = engine.play(game, stackfish.ugi.Limit(nodes=10_000))
        game.play(result.move)
        info = engine.analyse(game, stackfish.ugi.Limit(depth=6), multipv=2)

Every read waits at most ``timeout`` seconds (plus the search's own time):
a search that outlasts it is sent ``stop`` and its ``bestmove`` taken; an
engine still silent raises ``EngineTimeout``, a dead one ``EngineTerminated``.
An engine's ``info string error: ...`` answer to a command raises
``stackfish.Error`` with that message. ``quit()`` (or leaving the ``with``)
sends ``quit``, waits, then terminates and finally kills the process.
"""

import dataclasses
import queue
import subprocess
import threading
import time
from typing import Dict, List, Optional, Sequence, Union

from ._stackfish import Error

__all__ = [
    "Engine",
    "EngineError",
    "EngineTerminated",
    "EngineTimeout",
    "Limit",
    "Option",
    "PlayResult",
    "parse_info",
]

#: Seconds a command's answer may take, beyond the search's own time.
DEFAULT_TIMEOUT = 10.0
#: Seconds `quit` waits for the process to exit before terminating it.
QUIT_GRACE = 2.0


class EngineError(Exception):
    """The engine process misbehaved (not a bad input of ours)."""


class EngineTerminated(EngineError):
    """The engine process exited or closed its output."""


class EngineTimeout(EngineError, TimeoutError):
    """The engine did not answer in time."""


@dataclasses.dataclass
class Limit:
    """What a search may spend: any of nodes, depth, time (seconds per
    move, `go movetime`) and the clocks (seconds) with increments."""

    nodes: Optional[int] = None
    depth: Optional[int] = None
    time: Optional[float] = None
    p1_clock: Optional[float] = None
    p2_clock: Optional[float] = None
    p1_inc: Optional[float] = None
    p2_inc: Optional[float] = None

    def go(self, protocol="ugi"):
        """The `go` command for this limit (clocks as `wtime`/`btime` for
        a UCI engine)."""
        words = ["go"]
        if self.nodes is not None:
            words += ["nodes", str(int(self.nodes))]
        if self.depth is not None:
            words += ["depth", str(int(self.depth))]
        if self.time is not None:
            words += ["movetime", str(max(1, round(self.time * 1000)))]
        names = ("p1time", "p2time", "p1inc", "p2inc")
        if protocol == "uci":
            names = ("wtime", "btime", "winc", "binc")
        for word, value in zip(names, (self.p1_clock, self.p2_clock, self.p1_inc, self.p2_inc)):
            if value is not None:
                words += [word, str(max(0, round(value * 1000)))]
        if len(words) == 1:
            raise Error("a limit needs nodes, depth, time or a clock")
        return " ".join(words)

    def seconds(self):
        """The longest the search itself may take, as far as we can tell."""
        clocks = [c for c in (self.time, self.p1_clock, self.p2_clock) if c is not None]
        return max(clocks) if clocks else 0.0


@dataclasses.dataclass
class Option:
    """One `option name ...` line of the handshake."""

    name: str
    type: str
    default: Optional[str] = None
    min: Optional[int] = None
    max: Optional[int] = None
    var: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class PlayResult:
    """The engine's move (None when it has none: `bestmove (none)`, `none` or `0000`), the
    ponder move it suggested, and the last `info` of its search."""

    move: Optional[str]
    ponder: Optional[str]
    info: Dict[str, object]


_INT_FIELDS = {"depth", "seldepth", "multipv", "nodes", "nps", "time", "hashfull", "tbhits"}


def parse_info(line: str) -> Dict[str, object]:
    """An `info ...` line as a dict: integer fields as ints, `score` as
    {"cp": n} or {"mate": n} (plus "bound": "lower"/"upper" when given),
    `pv` as a list, `string` as the rest of the line."""
    words = line.split()
    if words[:1] == ["info"]:
        words = words[1:]
    info: Dict[str, object] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word == "string":
            info["string"] = " ".join(words[i + 1:])
            break
        if word == "pv":
            info["pv"] = words[i + 1:]
            break
        if word == "score" and i + 2 < len(words) + 1:
            score: Dict[str, object] = {}
            if i + 2 < len(words) and words[i + 1] in ("cp", "mate"):
                try:
                    score[words[i + 1]] = int(words[i + 2])
                except ValueError:
                    pass
                i += 3
            else:
                i += 1
            while i < len(words) and words[i] in ("lowerbound", "upperbound"):
                score["bound"] = words[i][:-5]
                i += 1
            info["score"] = score
            continue
        if word in _INT_FIELDS and i + 1 < len(words):
            try:
                info[word] = int(words[i + 1])
            except ValueError:
                info[word] = words[i + 1]
            i += 2
            continue
        i += 1
    return info


def _position_command(position) -> str:
    """`position ...` for a stackfish.Game, a position string, or a pair
    (position string or None for the start, moves)."""
    if hasattr(position, "start_fen") and hasattr(position, "moves"):
        fen, moves = position.start_fen(), list(position.moves())
    elif isinstance(position, str):
        fen, moves = position, []
    else:
        fen, moves = position
        moves = list(moves)
    text = "position startpos" if fen is None else f"position fen {fen}"
    if moves:
        text += " moves " + " ".join(moves)
    return text


class Engine:
    """A UGI (or UCI) engine process. Make one with ``Engine.popen``."""

    def __init__(self, process: subprocess.Popen, timeout: float = DEFAULT_TIMEOUT):
        self.process = process
        self.timeout = timeout
        self.id: Dict[str, str] = {}
        self.options: Dict[str, Option] = {}
        self.protocol = "ugi"
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._variant: Optional[str] = None

    @classmethod
    def popen(
        cls,
        command: Union[str, Sequence[str]],
        *,
        protocol: str = "ugi",
        timeout: float = DEFAULT_TIMEOUT,
        cwd=None,
        env=None,
        stderr=subprocess.DEVNULL,
    ) -> "Engine":
        """Starts `command` and runs the handshake (`ugi` ... `ugiok`, or
        `uci` ... `uciok` with protocol="uci"), then `isready`."""
        if protocol not in ("ugi", "uci"):
            raise Error(f"protocol {protocol!r} is not ugi or uci")
        args = [command] if isinstance(command, str) else list(command)
        try:
            process = subprocess.Popen(
                args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                bufsize=1,
                cwd=cwd,
                env=env,
            )
        except OSError as error:
            raise EngineTerminated(f"cannot start {args[0]}: {error}") from error
        engine = cls(process, timeout)
        engine.protocol = protocol
        try:
            engine._handshake()
        except BaseException:
            engine.quit()
            raise
        return engine

    # -- transport -------------------------------------------------------

    def _read(self):
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.rstrip("\r\n"))
        self._lines.put(None)

    def send(self, line: str):
        """Sends one line as it is."""
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as error:
            raise EngineTerminated(f"the engine exited (writing {line!r})") from error

    def _next(self, deadline: float, waiting_for: str) -> str:
        left = deadline - time.monotonic()
        try:
            line = self._lines.get(timeout=max(0.0, left))
        except queue.Empty:
            raise EngineTimeout(f"no {waiting_for} within {self.timeout:g} s") from None
        if line is None:
            self._lines.put(None)
            raise EngineTerminated(f"the engine exited while we waited for {waiting_for}")
        return line

    def _until(self, done, waiting_for: str, seconds: float = 0.0) -> List[str]:
        deadline = time.monotonic() + self.timeout + seconds
        lines = []
        while True:
            line = self._next(deadline, waiting_for)
            lines.append(line)
            if done(line):
                return lines

    # -- protocol --------------------------------------------------------

    def _handshake(self):
        self.send(self.protocol)
        ok = f"{self.protocol}ok"
        for line in self._until(lambda l: l.strip() == ok, ok):
            words = line.split()
            if words[:1] == ["id"] and len(words) >= 2:
                self.id[words[1]] = " ".join(words[2:])
            elif words[:2] == ["option", "name"]:
                option = _parse_option(words[2:])
                self.options[option.name] = option
        self.ping()

    def ping(self) -> List[str]:
        """`isready` ... `readyok`; returns the lines before it."""
        self.send("isready")
        return self._until(lambda l: l.strip() == "readyok", "readyok")[:-1]

    def _checked(self, command: str):
        """Sends `command` and raises the engine's `info string error`."""
        self.send(command)
        for line in self.ping():
            if line.startswith("info string error: "):
                raise Error(line[len("info string error: "):])

    def configure(self, options: Dict[str, object]):
        """`setoption` for each name and value (None for a button); an
        engine's error answer raises stackfish.Error with its message."""
        for name, value in options.items():
            if value is None:
                self._checked(f"setoption name {name}")
            else:
                if isinstance(value, bool):
                    value = "true" if value else "false"
                self._checked(f"setoption name {name} value {value}")
            if name.replace(" ", "").lower() == "game":
                self._variant = str(value).lower()

    def new_game(self):
        """`uginewgame` (or `ucinewgame`)."""
        self._checked(f"{self.protocol}newgame")

    def _follow_variant(self, position):
        """A stackfish.Game of another variant switches the `Game` option."""
        variant = getattr(position, "variant", None)
        if isinstance(variant, str) and "Game" in self.options and variant != self._variant:
            self.configure({"Game": variant})

    def _search(self, position, limit: Limit):
        self._follow_variant(position)
        self._checked(_position_command(position))
        self.send(limit.go(self.protocol))
        try:
            lines = self._until(lambda l: l.startswith("bestmove"), "bestmove", limit.seconds())
        except EngineTimeout:
            # Ask it to stop, and give it a moment to answer.
            self.send("stop")
            lines = self._until(lambda l: l.startswith("bestmove"), "bestmove after stop")
        infos = [parse_info(l) for l in lines if l.startswith("info ")]
        words = lines[-1].split()
        move = words[1] if len(words) > 1 and words[1] not in ("none", "(none)", "0000") else None
        ponder = words[3] if len(words) > 3 and words[2] == "ponder" else None
        return move, ponder, infos

    def play(self, position, limit: Limit) -> PlayResult:
        """The engine's move in `position` (a stackfish.Game, a position
        string, or (fen or None, moves))."""
        move, ponder, infos = self._search(position, limit)
        searched = [i for i in infos if "string" not in i]
        return PlayResult(move, ponder, searched[-1] if searched else {})

    def analyse(self, position, limit: Limit, multipv: Optional[int] = None):
        """The last `info` of each principal variation: a dict, or a list
        of dicts (best first) when `multipv` is given."""
        if multipv is not None:
            self.configure({"MultiPV": multipv})
        try:
            _, _, infos = self._search(position, limit)
        finally:
            if multipv is not None:
                self.configure({"MultiPV": 1})
        lines: Dict[int, Dict[str, object]] = {}
        for info in infos:
            if "string" in info or "score" not in info:
                continue
            lines[int(info.get("multipv", 1))] = info
        ranked = [lines[k] for k in sorted(lines)]
        if multipv is None:
            return ranked[0] if ranked else {}
        return ranked

    def query(self, what: str) -> str:
        """`query gameover|p1turn|result` (UGI): the response word."""
        self.send(f"query {what}")
        line = self._until(lambda l: l.startswith("response"), "response")[-1]
        words = line.split()
        return words[1] if len(words) > 1 else ""

    def quit(self):
        """Sends `quit`, waits, then terminates (and kills) the process."""
        if self.process.poll() is None:
            try:
                self.send("quit")
            except EngineTerminated:
                pass
            try:
                self.process.wait(timeout=QUIT_GRACE)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                try:
                    self.process.wait(timeout=QUIT_GRACE)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    close = quit

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.quit()
        return False


def _parse_option(words: List[str]) -> Option:
    """`option name <name...> type <t> [default <d...>] [min m] [max m] [var v]*`."""
    keys = {"type", "default", "min", "max", "var"}
    fields: Dict[str, List[str]] = {}
    current = "name"
    fields["name"] = []
    var: List[str] = []
    for word in words:
        if word in keys and not (current == "name" and not fields["name"]):
            if current == "var":
                var.append(" ".join(fields.pop("var", [])))
            current = word
            fields.setdefault(current, [])
            if current == "var":
                fields["var"] = []
            continue
        fields.setdefault(current, []).append(word)
    if current == "var":
        var.append(" ".join(fields.pop("var", [])))

    def number(key):
        try:
            return int(fields[key][0]) if fields.get(key) else None
        except ValueError:
            return None

    default = " ".join(fields["default"]) if "default" in fields else None
    return Option(
        name=" ".join(fields["name"]),
        type=" ".join(fields.get("type", [])),
        default=default,
        min=number("min"),
        max=number("max"),
        var=var,
    )
