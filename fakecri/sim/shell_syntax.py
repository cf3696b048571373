"""Shell syntax as the interpreter (fakecri.sim.shell) reads it: a script split into
statements joined by `;`, `&&` and `||`, with their redirections and command
substitutions. What it cannot read raises `UnknownSyntax`."""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

OPERATORS = frozenset({";", "&&", "||"})  # and `&` (in the background), `|` (a pipeline)


class UnknownSyntax(Exception):
    """The script uses shell syntax the interpreter does not model."""


KEYWORDS = frozenset({"while", "until", "do", "!"})  # words that stand before a pipeline
# Compound commands the interpreter does not model (while and until loops it runs).
COMPOUND = frozenset({"for", "if", "case", "select", "{", "function"})
TO_STDOUT = frozenset({"1", "/dev/stdout", "/proc/1/fd/1", "/proc/self/fd/1"})
TO_STDERR = frozenset({"2", "/dev/stderr", "/proc/1/fd/2", "/proc/self/fd/2"})


@dataclass(slots=True)
class Statement:
    connector: str  # ";", "&&" or "||": how it joins the previous statement
    argv: list[str]
    stdout: str | None = "stdout"  # where its output goes after redirections; None: a file
    stdin_from_file: bool = False  # `< file`: it reads a file, not the process's input
    to_file: str = ""  # `> file` / `>> file`: the file its output goes to
    append: bool = False
    subs: dict[str, str] = field(default_factory=dict)  # command substitutions: marker -> script
    upstream: list[Statement] = field(default_factory=list)  # `a | b | this`: the stages before it
    background: bool = False  # `this &`: the shell does not wait for it


SUB = "\x01"  # marks a command substitution's place in a word: \x01N\x01


def cut_substitutions(script: str) -> tuple[str, dict[str, str]]:
    """Replace each `$(...)` by a marker; the markers and the scripts they stand for."""
    subs: dict[str, str] = {}
    out = []
    i = 0
    while i < len(script):
        if script.startswith("$(", i):
            depth, j = 1, i + 2
            while j < len(script) and depth:
                depth += {"(": 1, ")": -1}.get(script[j], 0)
                j += 1
            if depth:
                raise UnknownSyntax("unbalanced $(")
            marker = f"{SUB}{len(subs)}{SUB}"
            subs[marker] = script[i + 2:j - 1]
            out.append(marker)
            i = j
        else:
            out.append(script[i])
            i += 1
    return "".join(out), subs


_FUNCTION = re.compile(r"(?:^|(?<=[;\n&|]))\s*"
                       r"(?:function\s+([A-Za-z_][\w-]*)\s*(?:\(\s*\))?|([A-Za-z_][\w-]*)\s*\(\s*\))\s*\{")


def cut_functions(script: str) -> tuple[str, dict[str, str]]:
    """The script without its function definitions (`name() { ...; }`, `function name { ... }`),
    and the definitions: name -> body. Braces are counted outside quotes; a definition
    without its closing brace is left in place (and read as syntax not modelled)."""
    functions: dict[str, str] = {}
    out = []
    at = 0
    while (m := _FUNCTION.search(script, at)) is not None:
        end = _closing_brace(script, m.end())
        if end is None:
            break
        out.append(script[at:m.start()] + "\n")
        functions[m.group(1) or m.group(2)] = script[m.end():end].strip()
        at = end + 1
    out.append(script[at:])
    return "".join(out), functions


def _closing_brace(script: str, i: int) -> int | None:
    depth, quote = 1, ""
    while i < len(script):
        ch = script[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def split_script(script: str) -> list[Statement]:
    """Split a shell script into statements; raise UnknownSyntax on what we can't read."""
    if SUB in script:
        raise UnknownSyntax("a control character in the script")
    script, subs = cut_substitutions(script)
    lexer = shlex.shlex(script.replace("\n", ";"), posix=True, punctuation_chars=";&|<>()")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError as exc:  # unbalanced quotes and the like
        raise UnknownSyntax(str(exc)) from None
    statements: list[Statement] = []
    current = Statement(";", [])
    stages: list[Statement] = []  # the pipeline so far
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if len(tok) > 1 and set(tok) == {";"}:
            tok = ";"  # blank lines: empty statements
        if tok == "|":
            if not current.argv:
                raise UnknownSyntax("| without a command")
            stages.append(current)
            current = Statement(current.connector, [])
        elif tok in OPERATORS or tok == "&":
            if current.argv:
                current.upstream, stages = stages, []
                current.background = tok == "&"
                statements.append(current)
            elif tok != ";" or stages:
                raise UnknownSyntax(f"operator {tok} without a command")
            current = Statement(";" if tok == "&" else tok, [])
        elif tok and set(tok) <= set("<>&") and tok != "&":
            target = tokens[i] if i < len(tokens) else ""
            i += 1
            if ">" in tok:
                current.stdout = "stdout" if target in TO_STDOUT else "stderr" if target in TO_STDERR else None
                if current.stdout is None and tok in (">", ">>"):
                    current.to_file, current.append = target, tok == ">>"
            else:
                current.stdin_from_file = True
        elif tok and set(tok) <= set(";&|<>()"):
            raise UnknownSyntax(f"unsupported shell syntax {tok!r}")
        else:
            current.argv.append(tok)
    if current.argv:
        current.upstream = stages
        statements.append(current)
    elif stages:
        raise UnknownSyntax("| without a command")
    for st in statements:
        if st.upstream:  # `while ! a | b`: the keywords belong to the whole pipeline, not its first stage
            head = st.upstream[0].argv
            n = 0
            while n < len(head) - 1 and head[n] in KEYWORDS:
                n += 1
            st.argv, st.upstream[0].argv = head[:n] + st.argv, head[n:]
        for one in [*st.upstream, st]:
            one.argv = strip_prefixes(one.argv)
            one.subs = subs
    return statements


def strip_prefixes(argv: list[str]) -> list[str]:
    """Drop `exec`, `env`, VAR=value assignments and a leading `busybox` (`env` alone prints the environment)."""
    if argv and argv[-1] == "env" and all(w in ("exec", "busybox", "/bin/busybox") for w in argv[:-1]):
        return ["env"]
    i = 0
    while i < len(argv):
        word = argv[i]
        if word in ("exec", "env", "busybox", "/bin/busybox") or ("=" in word and word.split("=", 1)[0].isidentifier()):
            i += 1
            continue
        break
    return argv[i:]
