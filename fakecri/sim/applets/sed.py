"""`sed [-inrE] [-e SCRIPT]... [-f FILE]... [SCRIPT] [FILE]...` as busybox 1.35's: the script
(sed_script.py) runs on each line of the input, the files taken as one stream (with `-i`,
each file on its own, written back in place: a container's file). A last line without a
newline is written without one. Quirks of this busybox kept: `s/x/y/Ng` replaces every match
(the N is not heeded with g), a `\\N` naming no group is replaced by nothing.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from fakecri.sim.applets.common import (
    BadUsage,
    decode,
    encode,
    getopt,
    read_path,
    replace_path,
    usage_error,
    write_path,
)
from fakecri.sim.applets.regex import compile_posix
from fakecri.sim.applets.sed_script import Address, Cmd, ScriptError, parse
from fakecri.sim.shell import Io, Process
from fakecri.sim.userland.world import IS_DIR, FileError

SYNOPSIS = "[-i[SFX]] [-nrE] [-f FILE]... [-e CMD]... [FILE]..."
_LONGS = {"quiet": "n", "silent": "n", "expression": "e", "file": "f", "regexp-extended": "r"}


class _Quit(Exception):
    pass


class _NoRegex(Exception):
    """An empty regex with none before it."""


@dataclass(slots=True)
class _Run:
    cmds: list[Cmd]
    extended: bool
    quiet: bool
    lines: list[str]  # the input's lines, without newlines
    last_newline: bool  # the last line ended with a newline
    out: list[str] = field(default_factory=list)
    files: dict[str, list[str]] = field(default_factory=dict)  # what `w` wrote, by file
    reads: dict[str, str] = field(default_factory=dict)  # the `r` files' text
    last_regex: str = ""
    n: int = 0  # lines read so far
    hold: str = ""
    open: bool = False  # the last thing printed was a last line without its newline
    error: str = ""  # what ended the run early (busybox's error_msg_and_die), exit 1

    def regex(self, text: str, flags: str = "") -> re.Pattern[str]:
        if text:
            self.last_regex = text
        elif not self.last_regex:
            raise _NoRegex  # (busybox dies there: what was printed before stays)
        return compile_posix(self.last_regex, self.extended, "I" in flags)

    def next_line(self) -> str | None:
        if self.n >= len(self.lines):
            return None
        self.n += 1
        return self.lines[self.n - 1]

    def at_last(self) -> bool:
        return self.n >= len(self.lines)

    def emit(self, text: str, newline: bool = False) -> None:
        """Print a line of the pattern space: the input's last line without its newline if it had
        none (a newline is put before whatever is printed after it), unless `newline` (busybox's
        `p` and `P` always end theirs)."""
        self.raw(text)
        if self.at_last() and not self.last_newline and not newline:
            self.open = True
        else:
            self.out.append("\n")

    def raw(self, text: str) -> None:
        if self.open:
            self.out.append("\n")
            self.open = False
        self.out.append(text)

    def matches(self, a: Address, space: str) -> bool:
        if a.line is not None:
            return self.n == a.line
        if a.last:
            return self.at_last()
        return bool(self.regex(a.regex or "").search(space))

    def selected(self, cmd: Cmd, space: str) -> bool:
        if cmd.a1 is None:
            hit = True
        elif cmd.a2 is None:
            hit = self.matches(cmd.a1, space)
        elif cmd.in_range:
            a2 = cmd.a2
            if a2.plus is not None:
                end = a2.line or 0
                hit, cmd.in_range = True, self.n < end
            elif a2.line is not None:
                hit, cmd.in_range = True, self.n < a2.line
            else:
                hit, cmd.in_range = True, not self.matches(a2, space)
        elif self.matches(cmd.a1, space):
            hit = True
            cmd.in_range = not self._range_ends_at_once(cmd)
        else:
            hit = False
        return hit != cmd.negate

    def _range_ends_at_once(self, cmd: Cmd) -> bool:
        a2 = cmd.a2
        assert a2 is not None
        if a2.plus is not None:
            a2.line = self.n + a2.plus
            return a2.plus == 0
        if a2.line is not None:
            return a2.line <= self.n
        if a2.last:
            return self.at_last()
        return False

    def substitute(self, cmd: Cmd, space: str) -> tuple[str, bool]:
        """busybox's do_subst_command: after each match the search starts again on the rest of
        the line as a string of its own, not at its beginning (REG_NOTBOL: `^` no longer
        matches, while `\\<` and `\\b` take the rest's first character as a word's start, as
        busybox 1.35 does); an empty match right after a non-empty one is not replaced; after an
        empty match one character is copied before searching again."""
        regex = self.regex(cmd.regex or "", cmd.flags)
        m = regex.search(space)
        if m is None:
            return space, False
        which = cmd.nth
        parts: list[str] = []
        line = space
        base = 0  # where the match's positions start in `line` (1 after the first search)
        count = 0
        altered = False
        prev_empty = True
        tried_at_eol = False
        while m is not None:
            start, end = m.start() - base, m.end() - base
            count += 1
            if which and which != count:
                parts.append(line[:end])
                line = line[end:]
                if start == end and line:
                    parts.append(line[0])
                    line = line[1:]
            else:
                parts.append(line[:start])
                if prev_empty or start != 0 or start != end:
                    parts.append(_replacement(cmd.replacement, m))
                    altered = True
                prev_empty = start == end
                if prev_empty:
                    if end >= len(line):
                        tried_at_eol = True
                    else:
                        parts.append(line[end])
                        end += 1
                line = line[end:]
                if which:
                    break
            if not line:
                if tried_at_eol:
                    break
                tried_at_eol = True
            # The rest as a string of its own that does not begin a line: searched after a
            # newline that no match may start on (a newline is not a word character).
            m = regex.search("\n" + line, 1)
            base = 1
        parts.append(line)
        return "".join(parts), altered

    def cycle(self, space: str) -> None:
        """One cycle of the script over the pattern space."""
        appended: list[str] = []
        substituted = False
        i = 0
        deleted = False
        while i < len(self.cmds):
            cmd = self.cmds[i]
            i += 1
            if cmd.name == "}" or cmd.name == ":":
                continue
            if not self.selected(cmd, space):
                if cmd.name == "{":
                    i = cmd.jump
                continue
            name = cmd.name
            if name == "{":
                continue
            if name == "s":
                space, did = self.substitute(cmd, space)
                substituted = substituted or did
                if did and "p" in cmd.flags:
                    self.emit(space)
                if did and cmd.wfile:
                    self.files.setdefault(cmd.wfile, []).append(space + "\n")
            elif name == "p":
                self.emit(space, newline=True)
            elif name == "P":
                self.emit(space.split("\n", 1)[0], newline=True)
            elif name == "d":
                deleted = True
                break
            elif name == "D":
                if "\n" not in space:
                    deleted = True
                    break
                space = space.split("\n", 1)[1]
                self._flush(appended)
                appended = []
                i = 0
                continue
            elif name in "nN":
                if self.at_last():
                    break  # no next line: the cycle ends as at the end of the script (GNU's way)
                if name == "n" and not self.quiet:
                    self.emit(space)
                self._flush(appended)
                appended = []
                line = self.next_line()
                assert line is not None
                space = line if name == "n" else space + "\n" + line
                substituted = False if name == "n" else substituted
            elif name == "y":
                space = space.translate(str.maketrans(cmd.src, cmd.dst))
            elif name == "g":
                space = self.hold
            elif name == "G":
                space += "\n" + self.hold
            elif name == "h":
                self.hold = space
            elif name == "H":
                self.hold += "\n" + space
            elif name == "x":
                space, self.hold = self.hold, space
            elif name == "=":
                self.raw(f"{self.n}\n")
            elif name == "a":
                appended.append(cmd.text + "\n")
            elif name == "i":
                self.raw(cmd.text + "\n")
            elif name == "c":
                if cmd.a2 is None or not cmd.in_range or cmd.negate:
                    self.raw(cmd.text + "\n")
                deleted = True
                break
            elif name == "r":
                if cmd.text in self.reads:
                    appended.append(self.reads[cmd.text])
            elif name == "w":
                self.files.setdefault(cmd.text, []).append(space + "\n")
            elif name == "q":
                if not self.quiet:
                    self.emit(space)
                self._flush(appended)
                raise _Quit
            elif name in "btT":
                if name == "b" or (name == "t" and substituted) or (name == "T" and not substituted):
                    if name != "b":
                        substituted = False
                    i = cmd.jump
        if not deleted and not self.quiet:
            self.emit(space)
        self._flush(appended)

    def _flush(self, appended: list[str]) -> None:
        for text in appended:
            self.raw(text)

    def run(self) -> None:
        try:
            while (line := self.next_line()) is not None:
                self.cycle(line)
        except _Quit:
            pass
        except _NoRegex:
            self.error = "sed: no previous regexp\n"


def _replacement(template: str, m: re.Match[str]) -> str:
    out = []
    i = 0
    while i < len(template):
        c = template[i]
        if c == "&":
            out.append(m.group(0))
        elif c == "\\" and i + 1 < len(template):
            i += 1
            c = template[i]
            if c.isdigit():
                n = int(c)
                out.append((m.group(n) or "") if n <= (m.re.groups or 0) else "")
            elif c == "n":
                out.append("\n")
            elif c == "t":
                out.append("\t")
            else:
                out.append(c)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _split(text: str) -> tuple[list[str], bool]:
    if not text:
        return [], True
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
        return lines, True
    return lines, False


def sed(args: list[str], io: Io) -> Process:
    args, in_place = _in_place(args)
    try:
        opts = getopt("sed", args, "nrEe:f:", longs=_LONGS)
    except BadUsage as exc:
        return (yield from usage_error(io, "sed", SYNOPSIS, exc))
    pieces: list[str] = []
    for ch, value in opts.given:
        if ch == "e":
            pieces.append(value)
        elif ch == "f":
            try:
                pieces.append(decode((yield from read_path(io, value))).removesuffix("\n"))
            except FileError as exc:
                yield from io.error(f"sed: {value}: {exc.reason}\n")
                return 1
    operands = opts.operands
    if not pieces:
        if not operands:
            return (yield from usage_error(io, "sed", SYNOPSIS, BadUsage("")))
        pieces, operands = [operands[0]], operands[1:]
    extended = opts.has("r") or opts.has("E")
    try:
        cmds = parse("\n".join(pieces), extended=extended)
    except ScriptError as exc:
        yield from io.error(f"sed: {exc}\n")
        return 1
    reads: dict[str, str] = {}
    for cmd in cmds:
        if cmd.name == "r" and cmd.text not in reads:
            try:
                reads[cmd.text] = decode((yield from read_path(io, cmd.text)))
            except FileError:
                pass  # a file that cannot be read adds nothing, as sed's `r` says nothing
    if in_place is not None:
        if not operands:
            yield from io.error("sed: no files to edit in place\n")  # wording: ours (busybox reads stdin)
            return 1
        status = 0
        for path in operands:
            try:
                text = decode((yield from read_path(io, path)))
            except FileError as exc:  # busybox stat()s each file first: `sed: PATH: reason`, exit 1
                yield from io.error(f"sed: {path}: {exc.reason}\n")
                status = 1
                continue
            lines, newline = _split(text)
            run = _Run(_fresh(cmds), extended, opts.has("n"), lines, newline, reads=reads)
            run.run()
            if run.error:  # (busybox dies: the file stays as it was)
                yield from io.error(run.error)
                return 1
            try:
                yield from replace_path(io, path, encode("".join(run.out)), in_place)
                yield from _write_files(io, run)
            except FileError as exc:
                yield from io.error(f"sed: {path}: {exc.reason}\n")
                status = 4
        return status
    texts = []
    status = 0
    for path in operands or ["-"]:
        try:
            texts.append(decode((yield from read_path(io, path))))
        except FileError as exc:
            if exc.reason != IS_DIR:  # a directory opens and reads as nothing (EISDIR ends the input)
                yield from io.error(f"sed: {path}: {exc.reason}\n")  # busybox's fopen_or_warn
                status = 1
    whole = ""
    for text in texts:  # the files as one stream; a file's missing last newline is supplied between files
        whole += text if not whole or whole.endswith("\n") else "\n" + text
    lines, newline = _split(whole)
    run = _Run(cmds, extended, opts.has("n"), lines, newline, reads=reads)
    run.run()
    yield from io.write("".join(run.out))
    if run.error:
        yield from io.error(run.error)
        return 1
    try:
        yield from _write_files(io, run)
    except FileError as exc:
        yield from io.error(f"sed: {exc.reason}\n")
        return 4
    return status


def _in_place(args: list[str]) -> tuple[list[str], str | None]:
    """The arguments without `-i[SFX]` (also inside a cluster: `-ni`), and SFX ("" for none; None:
    not in place). `-i` takes the rest of its word as the suffix, as getopt's optional values do."""
    kept: list[str] = []
    suffix: str | None = None
    it = iter(args)
    for a in it:
        if a == "--":
            kept += ["--", *it]
            break
        if a.startswith("--in-place"):
            suffix = a.partition("=")[2]
            continue
        if a.startswith("-") and not a.startswith("--") and "i" in a:
            head = a[1:a.index("i")]
            if not set(head) & set("ef"):  # not inside the value of -e or -f
                suffix = a[a.index("i") + 1:]
                if head:
                    kept.append("-" + head)
                continue
        kept.append(a)
        if a in ("-e", "-f"):
            kept.append(next(it, ""))
    return kept, suffix


def _fresh(cmds: list[Cmd]) -> list[Cmd]:
    for cmd in cmds:
        cmd.in_range = False
    return cmds


def _write_files(io: Io, run: _Run) -> Process:
    for path, parts in run.files.items():
        yield from write_path(io, path, encode("".join(parts)))
    return 0


SED_COMMANDS = {"sed": sed}
