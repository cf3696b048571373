"""Shell syntax as the interpreter (fakecri.sim.shell) reads it: a script split into
statements joined by `;`, `&&`, `||` and `|` (a pipe: the statement's input is the output of
the one before) or ended by `&` (in the background), with their redirections and command
substitutions; function definitions cut out of a script (`cut_functions`). What it cannot
read raises `UnknownSyntax`."""
from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

OPERATORS = frozenset({";", "&&", "||", "|"})  # and `&`, which ends a statement run in the background


class UnknownSyntax(Exception):
    """The script uses shell syntax the interpreter does not model."""


# Compound commands the interpreter does not model (while and until loops it runs).
COMPOUND = frozenset({"for", "if", "case", "select", "{", "function"})
TO_STDOUT = frozenset({"1", "/dev/stdout", "/proc/1/fd/1", "/proc/self/fd/1"})
TO_STDERR = frozenset({"2", "/dev/stderr", "/proc/1/fd/2", "/proc/self/fd/2"})


@dataclass(slots=True)
class Statement:
    connector: str  # ";", "&&", "||" or "|": how it joins the previous statement
    argv: list[str]
    stdout: str | None = "stdout"  # where its output goes after redirections; None: a file
    stderr: str | None = "stderr"  # where its errors go (`2>&1`: "stdout"); None: `err_file`, or nowhere
    err_file: str = ""  # `2> file` / `2>> file`: the file its errors go to
    stdin_from_file: bool = False  # `< file`: it reads a file, not the process's input
    to_file: str = ""  # `> file` / `>> file`: the file its output goes to
    append: bool = False
    subs: dict[str, str] = field(default_factory=dict)  # command substitutions: marker -> script
    execs: bool = False  # it was written `exec CMD`: the shell replaces itself with CMD
    background: bool = False  # `this &` (the last command of a pipeline): the shell does not wait for it


_OPERATOR = re.compile(r"&&|\|\||[;&|]")
SUB = "\x01"  # marks a command substitution's place in a word: \x01N\x01
LITERAL_DOLLAR = "\x02"  # a `$` between single quotes, which no expansion touches (see `literal`)


FD = "\x03"  # marks a redirection's file descriptor number (`2>`), which the lexer would take for a word


def _protect_single_quoted(script: str) -> str:
    """The script with each `$` between single quotes marked, so that neither `$VAR` nor `$(...)`
    is expanded there (the lexer drops the quotes)."""
    out = []
    quote = ""
    escaped = False
    for i, ch in enumerate(script):
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif ch in "'\"" and (not quote or quote == ch):
            quote = "" if quote else ch
        elif ch == "$" and quote == "'":
            ch = LITERAL_DOLLAR
        elif (not quote and ch.isdigit() and script[i + 1:i + 2] in ("<", ">")
              and (i == 0 or script[i - 1] in " \t\n;&|(")):
            ch = f" {FD}{ch} "  # `2>`: a descriptor, not an argument `2`
        out.append(ch)
    return "".join(out)


def literal(word: str) -> str:
    """A word as the command gets it, once expansions are done."""
    return word.replace(LITERAL_DOLLAR, "$")


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
    if SUB in script or LITERAL_DOLLAR in script:
        raise UnknownSyntax("a control character in the script")
    script, subs = cut_substitutions(_protect_single_quoted(script))
    lexer = shlex.shlex(script.replace("\n", ";"), posix=True, punctuation_chars=";&|<>()")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError as exc:  # unbalanced quotes and the like
        raise UnknownSyntax(str(exc)) from None
    # The lexer joins the operators that meet (`&` then a newline: "&;", blank lines: ";;").
    tokens = [op for tok in tokens for op in (_OPERATOR.findall(tok) if tok and set(tok) <= set(";&|") else [tok])]
    statements: list[Statement] = []
    current = Statement(";", [])
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok in OPERATORS or tok == "&":
            if current.argv:
                current.background = tok == "&"
                statements.append(current)
            elif tok == ";":
                continue  # an empty statement (a blank line), or a line that ends in `&&`, `||` or `|`
            else:
                raise UnknownSyntax(f"operator {tok} without a command")
            current = Statement(";" if tok == "&" else tok, [])
        elif tok.startswith(FD) and i < len(tokens) and set(tokens[i]) <= set("<>&"):
            fd, tok, target = tok[1:], tokens[i], tokens[i + 1] if i + 1 < len(tokens) else ""
            i += 2
            if fd == "2" and ">" in tok:
                _redirect_errors(current, tok, target)
            elif fd in ("0", "1"):
                _redirect(current, tok, target)
            # other descriptors (3 and up) carry nothing the simulation writes
        elif tok and set(tok) <= set("<>&") and tok != "&":
            target = tokens[i] if i < len(tokens) else ""
            i += 1
            _redirect(current, tok, target)
        elif tok and set(tok) <= set(";&|<>()"):
            raise UnknownSyntax(f"unsupported shell syntax {tok!r}")
        else:
            current.argv.append(tok)
    if current.argv:
        statements.append(current)
    elif current.connector == "|":
        raise UnknownSyntax("| without a command")
    for st in statements:
        words = st.argv
        st.argv = strip_prefixes(words)
        st.execs = "exec" in words[: len(words) - len(st.argv)]
        st.subs = subs
    return statements


def _redirect(st: Statement, op: str, target: str) -> None:
    """`> target`, `>> target`, `>&N`, `< file` on the statement's output or input."""
    if ">" in op:
        st.stdout = "stdout" if target in TO_STDOUT else "stderr" if target in TO_STDERR else None
        if st.stdout is None and op in (">", ">>"):
            st.to_file, st.append = target, op == ">>"
    else:
        st.stdin_from_file = True


def _redirect_errors(st: Statement, op: str, target: str) -> None:
    """`2> target`, `2>> target`, `2>&1`: where the statement's errors go. `2>&1` sends them where
    its output goes at that point, as the shell applies redirections left to right."""
    if target in TO_STDOUT:
        st.stderr, st.err_file = st.stdout, st.to_file
    elif target in TO_STDERR:
        st.stderr, st.err_file = "stderr", ""
    else:
        st.stderr, st.err_file = None, "" if target == "/dev/null" else target


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


def loop_parts(statements: Sequence[Statement], i: int) -> tuple[list[Statement], list[Statement], int] | None:
    """`while`/`until` at statements[i]: (condition, body, index after `done`); None when the
    loop is not closed. The keywords sit at the head of a statement's words."""
    cond: list[Statement] = []
    body: list[Statement] = []
    part, depth = cond, 0
    for j in range(i, len(statements)):
        st = statements[j]
        words = st.argv
        if j == i:
            words = words[1:]
        elif words and words[0] in ("while", "until"):
            depth += 1
        elif words and words[0] == "do" and depth == 0 and part is cond:
            part, words = body, words[1:]
        elif words and words[0] == "done":
            if depth == 0:
                if part is cond or len(words) > 1:
                    return None
                return cond, body, j + 1
            depth -= 1
        if words:
            part.append(replace(st, argv=list(words), connector=";" if not part else st.connector))
    return None
