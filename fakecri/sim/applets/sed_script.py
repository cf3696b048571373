"""sed scripts read into commands, as busybox 1.35's sed reads them.

Addresses: N, `$`, `/RE/` or `\\cREc`, `A1,A2`, `A1,+N`, `!` after them. Commands: `{ }`,
`s` (flags g p N I w FILE), `y`, `p P d D n N g G h H x = q`, `a i c` (one-line or after a
backslash-newline), `b t T :label`, `r FILE`, `w FILE`, `#` comments. Lines of a script given
with several `-e` join with newlines. What busybox refuses (`Q`, `q` with a code, `1~2`, `/RE/I`)
is refused with its message; `l` (whose output this busybox build does not give) is not modelled.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from fakecri.sim.applets.regex import RegexError, compile_posix


class ScriptError(ValueError):
    """The script cannot be read: busybox's message (without `sed: `)."""


@dataclass(slots=True)
class Address:
    line: int | None = None  # a line number
    last: bool = False  # `$`
    regex: str | None = None  # `/RE/` ("" reuses the last one used)
    plus: int | None = None  # `+N` (only as the second address)


@dataclass(slots=True)
class Cmd:
    name: str
    a1: Address | None = None
    a2: Address | None = None
    negate: bool = False
    text: str = ""  # a/i/c text, a label, a file name
    regex: str | None = None  # s: the expression
    replacement: str = ""
    flags: str = ""  # s: p I
    nth: int = 1  # s: which match (0: every one, the g flag)
    wfile: str = ""  # s///w, w: the file written
    src: str = ""  # y: from
    dst: str = ""  # y: to
    jump: int = -1  # `{`: index after its `}`; b/t/T: the label's index (-1: the end)
    in_range: bool = field(default=False)  # a range's state while running


_SIMPLE = set("pPdDnNgGhHlx=}")  # l: busybox 1.35 parses it and does nothing


def _delimited(s: str, i: int, delim: str, what: str) -> tuple[str, int]:
    """The text up to the unescaped `delim` from s[i] (a `\\delim` kept as the plain character,
    a `\\n` as a newline), and the index after the delimiter."""
    out = []
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            nxt = s[i + 1]
            if nxt == delim and what != "regex":
                out.append(delim)
            elif nxt == delim:  # the delimiter as a plain character in the expression
                out.append(delim if delim.isalnum() else "\\^" if delim == "^" else f"[{delim}]")
            else:
                out.append(c + nxt)
            i += 2
            continue
        if c == "[" and what == "regex":  # a bracket expression: the delimiter inside it is a plain character
            end = _bracket_end(s, i)
            if end < 0:
                break
            out.append(s[i:end])
            i = end
            continue
        if c == delim:
            return "".join(out), i + 1
        if c == "\n" and what == "regex":
            break
        out.append(c)
        i += 1
    raise ScriptError(f"unmatched '{delim}'")


def _bracket_end(s: str, i: int) -> int:
    """The index after the bracket expression opening at s[i], or -1 when it does not close on this line."""
    j = i + 1
    if s[j:j + 1] == "^":
        j += 1
    if s[j:j + 1] == "]":
        j += 1
    while j < len(s) and s[j] != "\n":
        if s[j] == "[" and s[j + 1:j + 2] in (":", "=", "."):
            end = s.find(s[j + 1] + "]", j + 2)
            if end < 0:
                return -1
            j = end + 2
            continue
        if s[j] == "]":
            return j + 1
        j += 1
    return -1


def _address(s: str, i: int) -> tuple[Address | None, int]:
    if i < len(s) and s[i].isdigit():
        m = re.match(r"\d+", s[i:])
        assert m is not None
        return Address(line=int(m.group(0))), i + m.end()
    if i < len(s) and s[i] == "$":
        return Address(last=True), i + 1
    if i < len(s) and s[i] in "/\\":
        delim = s[i]
        if delim == "\\":
            i += 1
            if i >= len(s):
                raise ScriptError("unmatched '\\'")
            delim = s[i]
        regex, i = _delimited(s, i + 1, delim, "regex")
        return Address(regex=regex), i
    return None, i


def _text_arg(s: str, i: int) -> tuple[str, int]:
    """The text of a/i/c: `a\\` newline TEXT (lines continued by a trailing backslash), or
    `a TEXT` on one line (leading blanks dropped; `a\\  TEXT` keeps them)."""
    while i < len(s) and s[i] in " \t":
        i += 1
    if s.startswith("\\\n", i):
        i += 2
    elif s.startswith("\\", i):
        i += 1
    out = []
    while i < len(s) and s[i] != "\n":
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            nxt = s[i + 1]
            out.append("\n" if nxt in "\n" else "\n" if nxt == "n" else nxt)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out), i


def _word(s: str, i: int) -> tuple[str, int]:
    """A label or file name: to the end of the line (labels also end at `;`)."""
    while i < len(s) and s[i] in " \t":
        i += 1
    m = re.match(r"[^\n]*", s[i:])
    assert m is not None
    return m.group(0), i + m.end()


def parse(script: str, *, extended: bool) -> list[Cmd]:
    cmds: list[Cmd] = []
    opened: list[int] = []
    s = script
    i = 0
    while i < len(s):
        c = s[i]
        if c in " \t\n;":
            i += 1
            continue
        if c == "#":
            while i < len(s) and s[i] != "\n":
                i += 1
            continue
        a1, i = _address(s, i)
        a2 = None
        if a1 is not None and i < len(s) and s[i] == ",":
            i += 1
            if s.startswith("+", i):
                m = re.match(r"\+(\d+)", s[i:])
                if m is None:
                    raise ScriptError("unexpected ','")
                a2, i = Address(plus=int(m.group(1))), i + m.end()
            else:
                a2, i = _address(s, i)
                if a2 is None:
                    raise ScriptError("unexpected ','")
        while i < len(s) and s[i] in " \t":
            i += 1
        negate = False
        while i < len(s) and s[i] == "!":
            negate = True
            i += 1
            while i < len(s) and s[i] in " \t":
                i += 1
        if i >= len(s):
            raise ScriptError("missing command")
        name = s[i]
        i += 1
        cmd = Cmd(name, a1, a2, negate)
        if name == "{":
            opened.append(len(cmds))
        elif name == "}":
            if opened:
                cmds[opened.pop()].jump = len(cmds) + 1
        elif name in _SIMPLE:
            pass
        elif name == "q":
            pass
        elif name in "aic":
            cmd.text, i = _text_arg(s, i)
        elif name in "btT:":
            cmd.text, i = _word(s, i)
            if ";" in cmd.text:
                cmd.text, rest = cmd.text.split(";", 1)
                i -= len(rest) + 1
            cmd.text = cmd.text.strip()
            if name == ":" and not cmd.text:
                raise ScriptError("\":\" lacks a label")
        elif name in "rw":
            cmd.text, i = _word(s, i)
        elif name == "s":
            i = _substitute(s, i, cmd)
        elif name == "y":
            if i >= len(s):
                raise ScriptError("unmatched 'y'")
            delim = s[i]
            src, i = _delimited(s, i + 1, delim, "text")
            dst, i = _delimited(s, i, delim, "text")
            src, dst = (t.replace("\\\\", "\0").replace("\\n", "\n").replace("\0", "\\") for t in (src, dst))
            n = min(len(src), len(dst))  # busybox pairs them up to the shorter one (no error in 1.35)
            cmd.src, cmd.dst = src[:n], dst[:n]
        else:
            raise ScriptError(f"unsupported command {name}")
        # No separator is needed after a command: what follows is the next one (`pd` is `p;d`,
        # `p 5` a command missing after the address 5), as busybox's add_cmd reads on.
        cmds.append(cmd)
    for cmd in cmds:
        if cmd.name == "s" and cmd.regex:
            try:
                compile_posix(cmd.regex, extended, "I" in cmd.flags)
            except RegexError as exc:
                raise ScriptError(f"bad regex '{cmd.regex}': {exc}") from None
        for a in (cmd.a1, cmd.a2):
            if a is not None and a.regex:
                try:
                    compile_posix(a.regex, extended)
                except RegexError as exc:
                    raise ScriptError(f"bad regex '{a.regex}': {exc}") from None
    labels = {cmd.text: n for n, cmd in enumerate(cmds) if cmd.name == ":"}
    for cmd in cmds:
        if cmd.name in "btT":
            if cmd.text and cmd.text not in labels:
                raise ScriptError(f"can't find label for jump to '{cmd.text}'")
            cmd.jump = labels[cmd.text] if cmd.text else len(cmds)
    for n in opened:
        cmds[n].jump = len(cmds)
    return cmds


def _substitute(s: str, i: int, cmd: Cmd) -> int:
    if i >= len(s) or s[i] in "\n\\":
        raise ScriptError("unmatched 's'")
    delim = s[i]
    cmd.regex, i = _delimited(s, i + 1, delim, "regex")
    cmd.replacement, i = _delimited(s, i, delim, "replacement")
    flags = []
    while i < len(s) and s[i] not in ";\n}#":
        c = s[i]
        if c in "pIi":
            flags.append("I" if c == "i" else c)
            i += 1
        elif c == "g":  # every match: busybox's which_match 0, whatever number came before
            cmd.nth = 0
            i += 1
        elif c.isdigit():  # the Nth match (0: every one; the last number or g given wins), but
            m = re.match(r"\d+", s[i:])  # busybox ignores the number when the regex starts with ^
            assert m is not None
            if not cmd.regex.startswith("^"):
                cmd.nth = int(m.group(0))
            i += m.end()
        elif c == "w":
            cmd.wfile, i = _word(s, i + 1)
            break
        elif c in " \t":
            i += 1
        else:
            raise ScriptError("bad option in substitution expression")
    cmd.flags = "".join(flags)
    return i
