"""Questions other modules ask of a command line without running it, answered from its
syntax tree: the script of `sh -c SCRIPT`, the command a script ends with, the names of
the programs it runs, whether it loops. (sim/signals.py, sim/behaviour.py and
sim/programs ask them.)"""
from __future__ import annotations

import posixpath
from collections.abc import Iterator, Sequence

from fakecri.sim.shell import ast
from fakecri.sim.shell.lexer import ShellSyntaxError, is_name
from fakecri.sim.shell.parser import parse

SHELL_NAMES = frozenset({"sh", "bash", "ash", "dash", "zsh", "ksh"})
PREFIXES = frozenset({"exec", "env", "busybox", "/bin/busybox"})


def strip_prefixes(argv: Sequence[str]) -> list[str]:
    """Drop `exec`, `env`, NAME=value assignments and a leading `busybox` (`env` alone stays)."""
    words = list(argv)
    if words and words[-1] == "env" and all(w in ("exec", "busybox", "/bin/busybox") for w in words[:-1]):
        return ["env"]
    i = 0
    while i < len(words):
        word = words[i]
        if word in PREFIXES or ("=" in word and is_name(word.split("=", 1)[0])):
            i += 1
            continue
        break
    return words[i:]


def shell_script(argv: Sequence[str]) -> str | None:
    """SCRIPT of `sh [-opts] -c SCRIPT ...` (after exec/env prefixes); None for anything else."""
    words = strip_prefixes([str(a) for a in argv])
    if not words or posixpath.basename(words[0]) not in SHELL_NAMES:
        return None
    rest = words[1:]
    while rest and rest[0].startswith("-") and "c" not in rest[0]:
        rest = rest[1:]
    if len(rest) >= 2 and rest[0].startswith("-") and "c" in rest[0]:
        return rest[1]
    return None


def tree(script: str) -> ast.Node | None:
    try:
        return parse(script)
    except ShellSyntaxError:
        return None


def word_text(word: ast.Word) -> str:
    """A word as a program would get it when it has no expansions; expansions as written."""
    out: list[str] = []
    for part in word.parts:
        if isinstance(part, ast.Lit):
            out.append(part.text)
        elif isinstance(part, ast.Param):
            out.append("$" + part.name if not part.op else "${" + part.name + "}")
        elif isinstance(part, ast.Tilde):
            out.append("~" + part.user)
        else:
            out.append("$(...)")
    return "".join(out)


def is_static(word: ast.Word) -> bool:
    return all(isinstance(p, ast.Lit) for p in word.parts)


def argv_of(cmd: ast.Simple) -> list[str]:
    return [word_text(w) for w in cmd.words]


def items(node: ast.Node) -> list[ast.Node]:
    """The top-level commands of a script, in order, without its function definitions."""
    if isinstance(node, ast.Sequence):
        return [n for n, _ in node.items if not isinstance(n, ast.FuncDef)]
    return [] if isinstance(node, ast.FuncDef) else [node]


def last_simple(node: ast.Node) -> ast.Simple | None:
    """The command a script ends with, when that is a simple command (of an `&&` list or a
    pipeline: its last one)."""
    if isinstance(node, ast.Sequence):
        fore = [n for n, bg in node.items if not bg and not isinstance(n, ast.FuncDef)]
        return last_simple(fore[-1]) if fore else None
    if isinstance(node, ast.AndOr):
        return last_simple(node.rest[-1][1]) if node.rest else last_simple(node.first)
    if isinstance(node, ast.Pipeline):
        return last_simple(node.commands[-1]) if not node.negate else None
    if isinstance(node, ast.Simple):
        return node if node.words else None
    return None


def walk(node: ast.Node | None) -> Iterator[ast.Node]:
    if node is None:
        return
    yield node
    if isinstance(node, ast.Sequence):
        for n, _ in node.items:
            yield from walk(n)
    elif isinstance(node, ast.AndOr):
        yield from walk(node.first)
        for _, n in node.rest:
            yield from walk(n)
    elif isinstance(node, ast.Pipeline):
        for n in node.commands:
            yield from walk(n)
    elif isinstance(node, (ast.Subshell, ast.Group)):
        yield from walk(node.body)
    elif isinstance(node, ast.If):
        for c, b in node.branches:
            yield from walk(c)
            yield from walk(b)
        yield from walk(node.otherwise)
    elif isinstance(node, ast.Loop):
        yield from walk(node.cond)
        yield from walk(node.body)
    elif isinstance(node, ast.For):
        yield from walk(node.body)
    elif isinstance(node, ast.Case):
        for _, body in node.items:
            yield from walk(body)
    elif isinstance(node, (ast.FuncDef, ast.Redirected)):
        yield from walk(node.body)


def command_names(node: ast.Node) -> set[str]:
    """The names of the commands a script runs anywhere (as written)."""
    names: set[str] = set()
    for n in walk(node):
        if isinstance(n, ast.Simple) and n.words:
            words = strip_prefixes(argv_of(n))
            if words:
                names.add(posixpath.basename(words[0]))
    return names


def has_loop(node: ast.Node) -> bool:
    return any(isinstance(n, (ast.Loop, ast.For)) for n in walk(node))


def has_while(node: ast.Node) -> bool:
    return any(isinstance(n, ast.Loop) for n in walk(node))
