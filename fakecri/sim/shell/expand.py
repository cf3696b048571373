"""Word expansion, in POSIX's order: tilde, parameters (every `${...}` form), command
substitution, arithmetic; then field splitting by IFS, pathname expansion against the
container's files, and quote removal.

A word expands to pieces of text, each marked: literal (globbed, never split), quoted
(neither), or an unquoted expansion's result (split and globbed); `"$@"` breaks fields.
"""
from __future__ import annotations

import posixpath
from collections.abc import Callable, Generator
from typing import Any

from fakecri.sim.shell import pattern as patterns
from fakecri.sim.shell.arith import ArithError, evaluate
from fakecri.sim.shell.ast import Arith, CmdSub, Lit, Node, Param, Part, Tilde, Word
from fakecri.sim.shell.state import Shell, ShellError
from fakecri.sim.steps import LOOK, Reply, Step

LIT, QUOTED, EXPANDED, BREAK = 0, 1, 2, 3
Piece = tuple[str, int]
Expansion = Generator[Step, Reply, list[Piece]]
MAX_GLOB = 10_000  # paths one pattern may match, at most

# How a command substitution runs: set by the interpreter (it runs the tree).
substitute: Callable[[Node, Shell], Generator[Step, Reply, str]] | None = None


def _positional(sh: Shell) -> list[str]:
    return sh.positional


def _special(name: str, sh: Shell) -> str | None:
    if name == "#":
        return str(len(sh.positional))
    if name == "?":
        return str(sh.status)
    if name == "-":
        return sh.flags()
    if name == "$":
        return str(sh.pid)
    if name == "!":
        return None if sh.last_bg is None else str(sh.last_bg)
    if name == "0":
        return sh.name
    if name.isdigit():
        n = int(name)
        return sh.positional[n - 1] if n <= len(sh.positional) else None
    if name in ("@", "*"):
        return " ".join(sh.positional) if sh.positional else None
    if name == "LINENO":
        return str(sh.line)
    if name == "RANDOM" and "RANDOM" not in sh.vars:
        return str(sh.random())
    return sh.get(name)


def value_of(name: str, sh: Shell) -> str | None:
    special = not (name[0].isalpha() or name[0] == "_") or name in ("LINENO", "RANDOM")
    return _special(name, sh) if special else sh.get(name)


def _pieces(parts: tuple[Part, ...], sh: Shell, quoted: bool) -> Expansion:
    out: list[Piece] = []
    for part in parts:
        if isinstance(part, Lit):
            out.append((part.text, QUOTED if (part.quoted or quoted) else LIT))
        elif isinstance(part, Param):
            got = yield from _param(part, sh, quoted or part.quoted)
            if not got and (quoted or part.quoted) and part.name not in ("@", "*"):
                got = [("", QUOTED)]  # between double quotes, even nothing is a word
            out.extend(got)
        elif isinstance(part, CmdSub):
            if substitute is None:
                raise ShellError("command substitution is not available")
            text = yield from substitute(part.body, sh)
            out.append((text, QUOTED if (quoted or part.quoted) else EXPANDED))
        elif isinstance(part, Arith):
            expr = yield from expand_string(part.expr, sh)
            try:
                value = evaluate(expr, sh.get, sh.set)
            except ArithError as exc:
                raise ShellError(exc.message) from None
            out.append((str(value), QUOTED if (quoted or part.quoted) else EXPANDED))
        elif isinstance(part, Tilde):
            home = sh.get("HOME") if not part.user else ("/root" if part.user == "root" else None)
            out.append((home if home is not None else "~" + part.user, QUOTED))
    return out


def _all_params(p: Param, sh: Shell, quoted: bool) -> list[Piece]:
    params = sh.positional
    if p.name == "*" and quoted:
        ifs = sh.ifs()
        return [((ifs[:1]).join(params), QUOTED)]  # (no parameters: still one word, empty)
    kind = QUOTED if quoted else EXPANDED
    out: list[Piece] = []
    for i, value in enumerate(params):
        if i:
            out.append(("", BREAK))
        out.append((value, kind))
    return out


def _param(p: Param, sh: Shell, quoted: bool) -> Expansion:
    kind = QUOTED if quoted else EXPANDED
    name, op = p.name, p.op
    if name in ("@", "*") and op == "":
        return _all_params(p, sh, quoted)
    value = value_of(name, sh)
    if op == "len":
        if name in ("@", "*"):
            return [(str(len(sh.positional)), kind)]
        if value is None and "u" in sh.options and name not in ("!",):
            raise ShellError(f"{name}: parameter not set")
        return [(str(len(value or "")), kind)]
    if op in ("-", ":-", "=", ":=", "+", ":+", "?", ":?"):
        unset = value is None or (op.startswith(":") and value == "")
        base = op.lstrip(":")
        if base == "+":
            return (yield from _arg(p, sh, quoted)) if not unset else []
        if not unset:
            if name in ("@", "*"):
                return _all_params(p, sh, quoted)
            return [(value or "", kind)]
        if base == "-":
            return (yield from _arg(p, sh, quoted))
        if base == "=":
            if not (name[0].isalpha() or name[0] == "_"):
                raise ShellError(f"{name}: bad variable name" if not name.isdigit()
                                 else f"${{{name}}}: bad substitution")
            text = yield from expand_string(p.arg, sh)
            sh.set(name, text)
            return [(text, kind)]
        message = (yield from expand_string(p.arg, sh)) if p.arg is not None and p.arg.parts else ""
        if not message:
            message = "parameter not set" if op == "?" else "parameter not set or null"
        raise ShellError(f"{name}: {message}")
    if value is None and "u" in sh.options and name not in ("@", "*", "!"):
        raise ShellError(f"{name}: parameter not set")
    text = value or ""
    if op in ("#", "##", "%", "%%"):
        pat = (yield from expand_pattern(p.arg, sh)) if p.arg is not None else ""
        return [(patterns.strip(text, pat, op), kind)]
    if op in ("/", "//"):
        pat = (yield from expand_pattern(p.arg, sh)) if p.arg is not None else ""
        rep = (yield from expand_string(p.arg2, sh)) if p.arg2 is not None else ""
        return [(patterns.replace(text, pat, rep, op == "//"), kind)]
    if op == ":":
        try:
            start = evaluate((yield from expand_string(p.arg, sh)) if p.arg is not None else "", sh.get, sh.set)
            length = None if p.arg2 is None else evaluate((yield from expand_string(p.arg2, sh)), sh.get, sh.set)
        except ArithError as exc:
            raise ShellError(exc.message) from None
        if start < 0:
            start = max(0, len(text) + start)
        end = len(text) if length is None else (start + length if length >= 0 else len(text) + length)
        return [(text[start:max(start, end)], kind)]
    return [(text, kind)]


def _arg(p: Param, sh: Shell, quoted: bool) -> Expansion:
    if p.arg is None:
        return []
    return (yield from _pieces(p.arg.parts, sh, quoted))


# ---------------------------------------------------------------- the three uses of a word


def expand_string(word: Word | None, sh: Shell) -> Generator[Step, Reply, str]:
    """The word as one string: no splitting, no globbing (assignments, redirection targets,
    `case` subjects, here-documents)."""
    if word is None:
        return ""
    if len(word.parts) == 1 and isinstance(word.parts[0], Lit):
        return word.parts[0].text
    pieces = yield from _pieces(word.parts, sh, False)
    return "".join(text if kind != BREAK else " " for text, kind in pieces)


def expand_pattern(word: Word | None, sh: Shell) -> Generator[Step, Reply, str]:
    """The word as a pattern: its quoted characters stand for themselves."""
    if word is None:
        return ""
    pieces = yield from _pieces(word.parts, sh, False)
    return "".join(_escape(text) if kind == QUOTED else (" " if kind == BREAK else text) for text, kind in pieces)


def _escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


def expand_words(words: tuple[Word, ...], sh: Shell) -> Generator[Step, Reply, list[str]]:
    """Command words as fields: expanded, split by IFS, globbed."""
    out: list[str] = []
    for word in words:
        parts = word.parts
        if len(parts) == 1 and isinstance(parts[0], Lit) and (parts[0].quoted or not _magic(parts[0].text)):
            out.append(parts[0].text)
            continue
        pieces = yield from _pieces(parts, sh, False)
        for field in split(pieces, sh.ifs()):
            out.extend((yield from _glob(field, sh)))
    return out


def _magic(text: str) -> bool:
    return "*" in text or "?" in text or "[" in text


def split(pieces: list[Piece], ifs: str) -> list[list[Piece]]:
    """Field splitting: the pieces of expansions split at IFS characters (runs of IFS white
    space are one separator, and go at the ends; each other IFS character separates)."""
    out: list[list[Piece]] = []
    cur: list[Piece] = []
    has = False  # the field has begun (text, or a quoted piece even if empty)
    merged = False  # a white-space separator just ended a field (a following `:` joins it)
    white = frozenset(c for c in ifs if c in " \t\n")
    for text, kind in pieces:
        if kind == BREAK:
            if has:
                out.append(cur)
            cur, has, merged = [], False, False
        elif kind != EXPANDED or not ifs:
            if text or kind == QUOTED:
                cur.append((text, kind))
                has, merged = True, False
        else:
            start = 0
            for i, ch in enumerate(text):
                if ch not in ifs:
                    continue
                if i > start:
                    cur.append((text[start:i], kind))
                    has, merged = True, False
                start = i + 1
                if ch in white:
                    if has:
                        out.append(cur)
                        cur, has, merged = [], False, True
                else:
                    if has or not merged:
                        out.append(cur)
                    cur, has, merged = [], False, False
            if start < len(text):
                cur.append((text[start:], kind))
                has, merged = True, False
    if has:
        out.append(cur)
    return out


def _glob(field: list[Piece], sh: Shell) -> Generator[Step, Reply, list[str]]:
    plain = "".join(text for text, _ in field)
    if "f" in sh.options or not any(kind != QUOTED and _magic(text) for text, kind in field):
        return [plain]
    pat = "".join(_escape(text) if kind == QUOTED else text.replace("\\", "\\\\") if kind == EXPANDED else text
                  for text, kind in field)
    if sh.io.ctx.userland is None or not patterns.has_magic(pat):
        return [plain]
    yield LOOK
    found = glob(sh.io.ctx.userland(), pat, sh.cwd())
    return found or [plain]


def glob(world: Any, pat: str, cwd: str) -> list[str]:
    """The paths of the container's files that the pattern matches, sorted (as written: a
    relative pattern gives relative paths)."""
    absolute = pat.startswith("/")
    comps = [c for c in pat.split("/") if c]

    def join(base: str, name: str) -> str:
        return base + name if not base or base.endswith("/") else base + "/" + name

    def real(shown: str) -> str:
        return shown if absolute else posixpath.join(cwd, shown) if shown else cwd

    paths = ["/" if absolute else ""]
    for n, comp in enumerate(comps):
        last = n == len(comps) - 1 and not pat.endswith("/")
        found: list[str] = []
        for base in paths:
            if not patterns.has_magic(comp):
                shown = join(base, patterns.unescape(comp))
                if world.exists(real(shown)) and (last or world.is_dir(real(shown))):
                    found.append(shown)
                continue
            try:
                names = sorted(world.listdir(real(base)))
                if comp.startswith("."):
                    names = [".", "..", *names]  # (readdir gives them too)
            except Exception:  # the userland's FileError: not a directory, or unreadable
                continue
            for name in names:
                if name.startswith(".") and not comp.startswith((".", "\\.")):
                    continue  # a leading dot is matched only by a leading dot
                if patterns.matches(comp, name):
                    shown = join(base, name)
                    if last or world.is_dir(real(shown)):
                        found.append(shown)
            if len(found) > MAX_GLOB:
                break
        paths = found
        if not paths:
            return []
    if pat.endswith("/"):
        paths = [p + "/" for p in paths]
    return sorted(paths)
