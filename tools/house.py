#!/usr/bin/env python3
"""The house's figures: how the Rust code is spread and where it is heavy.

    python3 tools/house.py            # the summary
    python3 tools/house.py --long 60  # and every function over 60 lines

Prints, per crate, the lines of code and of tests (blank lines and lines
that are only a comment left out; a file's `#[cfg(test)]` module, files
named tests.rs or under a tests/ folder, and benches count as tests), the
files over 1,000 lines (comments included, the test module not), the
functions over 100 lines (the longest first), and the import circles
between the files of each crate: groups of files that reach each other
through the paths they name (`crate::`, `super::`, `self::`, a child
module, a module a `use` brought in), a module naming its own children
left out.
A reading of the text, not a compiler: good for before/after figures of a
restructuring, not for exact counts.
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rust_files():
    out = subprocess.run(["git", "ls-files", "*.rs"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    return [f for f in out.split() if not f.startswith("fuzz/")]


def crate_of(path):
    parts = path.split("/")
    if parts[0] == "crates":
        return parts[1]
    if parts[0] == "python":
        return "python"
    if parts[0] == "tests":
        return "tests"
    return "stackfish"


def strip_strings(line):
    """The line without string and char literals and without its comment."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])'", "''", line)
    return line.split("//", 1)[0]


def is_code(line):
    s = line.strip()
    return bool(s) and not s.startswith("//")


def test_start(lines):
    """Index of the line where the file's test module begins, or None."""
    for i, line in enumerate(lines):
        if line.strip() == "#[cfg(test)]" and i + 1 < len(lines) and \
                re.match(r"\s*mod \w+\s*(\{|;)", lines[i + 1]):
            return i
    return None


def functions(lines):
    """(name, first line, length in lines) of every fn with a body."""
    found = []
    for i, line in enumerate(lines):
        m = re.match(r"\s*(pub(\([^)]*\))?\s+)?(const\s+|async\s+|unsafe\s+|extern\s+\"C\"\s+)*fn\s+(\w+)", line)
        if not m:
            continue
        depth, opened = 0, False
        for j in range(i, len(lines)):
            code = strip_strings(lines[j])
            if not opened and ";" in code and "{" not in code:
                break  # a declaration without a body
            depth += code.count("{") - code.count("}")
            opened = opened or "{" in code
            if opened and depth <= 0:
                found.append((m.group(4), i + 1, j - i + 1))
                break
    return found


def module_of(path):
    """The module path of a file inside its crate, as a tuple."""
    parts = path.split("/")
    inner = parts[3:] if parts[0] == "crates" else parts[1:]
    if inner and inner[-1] in ("lib.rs", "main.rs", "mod.rs"):
        inner = inner[:-1]
    elif inner:
        inner[-1] = inner[-1][:-3]
    return tuple(inner)


def expand(tree):
    """`a::{b, c::{d, e}}` as the paths a::b, a::c::d, a::c::e."""
    tree = re.sub(r"\s*(::|[{},])\s*", r"\1", tree.strip())
    depth, start = 0, None
    for i, ch in enumerate(tree):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                head, inner, tail = tree[:start], tree[start + 1:i], tree[i + 1:]
                parts, d, cur = [], 0, ""
                for c in inner:
                    if c == "," and d == 0:
                        parts.append(cur)
                        cur = ""
                        continue
                    d += c == "{"
                    d -= c == "}"
                    cur += c
                parts.append(cur)
                return [p for part in parts if part for p in expand(head + part + tail)]
    return [tree]


def imports(path, lines, modules):
    """The files of the same crate this file names through `crate::` or
    `super::` paths, in `use` items (braces expanded) or in the code."""
    me = module_of(path)
    parent = me[:-1]
    text = "\n".join(strip_strings(l) for l in lines)
    used = []
    for m in re.finditer(r"\buse\s+([^;]*);", text):
        used += expand(m.group(1).strip())
    named = [m.group(0) for m in re.finditer(r"(?<![:\w])\w+(::\w+)+", text)]
    aliases = {}

    def resolve(p):
        names = [re.split(r"\s+as\s+", n)[0] for n in p.split("::") if n]
        if not names:
            return None
        if names[0] == "crate":
            base, rest = (), names[1:]
        elif names[0] == "super":
            base, rest = parent, names[1:]
        elif names[0] == "self":
            base, rest = me, names[1:]
        elif me + (names[0],) in modules:
            # A child module named without `self::`.
            base, rest = me, names
        elif names[0] in aliases:
            base, rest = aliases[names[0]], names[1:]
        else:
            return None
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
        return base + tuple(rest)

    # A `use` of a module makes its last name (or its `as` name) stand for it.
    for p in used:
        target = resolve(p)
        if target in modules:
            alias = re.split(r"\s+as\s+", p.split("::")[-1])[-1]
            aliases[alias] = target
    targets = set()
    for p in used + named:
        target = resolve(p)
        if target is None:
            continue
        while target and target not in modules:
            target = target[:-1]
        # A module naming its own children (`mod x; pub use x::Y`) is
        # structure, not an arrow between peers.
        if target in modules and target[:len(me)] != me:
            targets.add(modules[target])
    return targets


def circles(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--long", type=int, default=100, help="list functions longer than this")
    args = ap.parse_args()
    code, tests, long_fns, big_files = {}, {}, [], []
    per_crate_files = {}
    texts = {}
    for path in rust_files():
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            lines = f.read().split("\n")
        texts[path] = lines
        crate = crate_of(path)
        per_crate_files.setdefault(crate, []).append(path)
        whole_test = (crate == "tests" or "/tests/" in path or path.endswith("tests.rs")
                      or "/benches/" in path or path.startswith("benches/"))
        split = len(lines) if whole_test else (test_start(lines) or len(lines))
        if whole_test:
            split = 0
        c = sum(is_code(l) for l in lines[:split])
        t = sum(is_code(l) for l in lines[split:])
        code[crate] = code.get(crate, 0) + c
        tests[crate] = tests.get(crate, 0) + t
        if split > 1000:
            big_files.append((split, path))
        if not whole_test:
            for name, first, length in functions(lines[:split]):
                if length > args.long:
                    long_fns.append((length, f"{path}:{first}", name))
    print(f"{'crate':<16}{'code':>8}{'tests':>8}")
    for crate in sorted(code, key=lambda c: -code[c]):
        print(f"{crate:<16}{code[crate]:>8}{tests[crate]:>8}")
    print(f"{'all':<16}{sum(code.values()):>8}{sum(tests.values()):>8}")
    print(f"\nfiles over 1,000 lines (their test module left out): {len(big_files)}")
    for c, path in sorted(big_files, reverse=True):
        print(f"  {c:>6}  {path}")
    print(f"\nfunctions over {args.long} lines: {len(long_fns)}")
    for length, at, name in sorted(long_fns, reverse=True):
        print(f"  {length:>5}  {name}  {at}")
    all_circles = []
    for crate, files in per_crate_files.items():
        if crate in ("tests",):
            continue
        modules = {module_of(p): p for p in files if "/tests/" not in p or p.startswith("crates/")}
        graph = {p: imports(p, texts[p][:test_start(texts[p]) or len(texts[p])], modules)
                 for p in files}
        all_circles += circles(graph)
    print(f"\nimport circles: {len(all_circles)}")
    for group in all_circles:
        print(f"  {len(group)} files: {', '.join(group)}")


if __name__ == "__main__":
    main()
