"""`grep`, `egrep`, `fgrep` as busybox 1.35's: `-HhnlLoqvsiwxFE -c -m N -A/-B/-C N -e PATTERN
-f FILE -r/-R` (through the container's directories). Exit 0 when a line was selected, 1 when
none was, 2 on an error (unless `-q` found one first). Several patterns select a line when any
matches (with `-o`, busybox prints the matches of only one of them; here those of all, leftmost
first; and `-ow` checks each match, where busybox checks only the first).
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Generator
from dataclasses import dataclass

from fakecri.sim.applets.common import BadUsage, decode, getopt, lines_of, read_path, usage_error
from fakecri.sim.applets.regex import RegexError, compile_posix
from fakecri.sim.shell import Command, Io, Process, Reply, Step
from fakecri.sim.usage import usage_text
from fakecri.sim.userland.files import looking
from fakecri.sim.userland.world import FileError

SYNOPSIS = "[-HhnlLoqvsrRiwFEz] [-m N] [-A|B|C N] { PATTERN | -e PATTERN... | -f FILE... } [FILE]..."
SPEC = "HhnlLoqvsrRiwFExzcm:A:B:C:e:f:"


@dataclass(slots=True)
class _Grep:
    regexes: list[re.Pattern[str]]
    opts: set[str]
    max_count: int | None
    after: int
    before: int
    show_names: bool
    sep: str = "\n"  # what ends a line (-z: NUL)
    printed: bool = False  # a line was printed, from an earlier input too (context puts `--` between)
    plain: list[re.Pattern[str]] | None = None  # -w's patterns without the word test (-o's later matches)

    def selects(self, line: str) -> bool:
        return any(r.search(line) for r in self.regexes) != ("v" in self.opts)

    def parts(self, line: str) -> list[str]:
        """-o: the matches in `line`, leftmost first (empty ones are not shown). With -w busybox looks
        for a whole word only for the first one: every match after it is shown, word or not."""
        found: list[str] = []
        pos = 0
        while pos <= len(line):
            regexes = self.plain if found and self.plain is not None else self.regexes
            hits = [m for r in regexes if (m := r.search(line, pos)) is not None]
            if not hits:
                break
            m = min(hits, key=lambda h: (h.start(), -(h.end() - h.start())))
            if m.end() > m.start():
                found.append(m.group(0))
                pos = m.end()
            else:
                pos = m.end() + 1
        return found

    def scan(self, name: str, text: str) -> tuple[list[str], int]:
        """(what it prints for one input, how many lines it selected)."""
        lines = lines_of(text, self.sep)
        out: list[str] = []
        count = 0
        shown = -1  # the last line number printed (context)
        after_left = 0
        prefix = f"{name}" if self.show_names else ""
        quiet_kinds = self.opts & {"q", "l", "L", "c"}
        for n, line in enumerate(lines):
            if self.max_count is not None and count >= self.max_count:
                if after_left and not self.selects(line) and not quiet_kinds:
                    out.append(self._line(prefix, n, line, "-"))
                    after_left -= 1
                    continue
                break
            if self.selects(line):
                count += 1
                if quiet_kinds:
                    if "q" in self.opts or "l" in self.opts or "L" in self.opts:
                        break
                    continue
                if (self.before or self.after) and self.printed and (shown < 0 or n - self.before > shown + 1):
                    out.append("--\n")
                self.printed = True
                for k in range(max(shown + 1, n - self.before), n):
                    out.append(self._line(prefix, k, lines[k], "-"))
                if "o" in self.opts and "v" not in self.opts:
                    out.extend(self._line(prefix, n, part, ":") for part in self.parts(line))
                elif "o" not in self.opts:
                    out.append(self._line(prefix, n, line, ":"))
                shown = n
                after_left = self.after
            elif after_left and not quiet_kinds:
                out.append(self._line(prefix, n, line, "-"))
                shown = n
                after_left -= 1
        return out, count

    def _line(self, prefix: str, n: int, line: str, sep: str) -> str:
        head = (prefix + sep if prefix else "") + (f"{n + 1}{sep}" if "n" in self.opts else "")
        return head + line + self.sep


def _compile(patterns: list[str], opts: set[str]) -> list[re.Pattern[str]]:
    out = []
    for p in patterns:
        if "F" in opts:
            body = re.escape(p)
            flags = re.IGNORECASE if "i" in opts else 0
            if "x" in opts:
                body = f"(?:{body})\\Z"
            elif "w" in opts:
                body = f"(?<!\\w)(?:{body})(?!\\w)"
            out.append(re.compile(("^" if "x" in opts else "") + body, flags | re.DOTALL))
            continue
        base = compile_posix(p, "E" in opts, "i" in opts)
        if "x" in opts:
            out.append(re.compile(f"^(?:{base.pattern})\\Z", base.flags))
        elif "w" in opts:
            out.append(re.compile(f"(?<!\\w)(?:{base.pattern})(?!\\w)", base.flags))
        else:
            out.append(base)
    return out


def _walk(io: Io, path: str) -> Generator[Step, Reply, list[str]]:
    """-r: the files under `path` (itself when it is one), in the order ls gives."""
    world = yield from looking(io)
    found: list[str] = []
    todo = [path]
    while todo:
        p = todo.pop(0)
        if world.is_dir(p):
            try:
                names = world.listdir(p)
            except FileError:
                found.append(p)
                continue
            todo[:0] = [posixpath.join(p, n) if p != "." else f"./{n}" for n in names]
        else:
            found.append(p)
    return found


def grep_as(name: str, forced: str = "") -> Command:
    def grep(args: list[str], io: Io) -> Process:
        try:
            o = getopt(name, args, SPEC)
        except BadUsage as exc:
            return (yield from usage_error(io, name, SYNOPSIS, exc, code=2))
        opts = {ch for ch, _ in o.given} | set(forced)
        patterns = o.all("e")
        for path in o.all("f"):
            try:
                patterns += lines_of(decode((yield from read_path(io, path))))
            except FileError as exc:
                yield from io.error(f"{name}: {path}: {exc.reason}\n")
                return 2
        operands = o.operands
        if not patterns and not o.has("f"):
            if not operands:
                return (yield from _usage(io, name))
            patterns, operands = [operands[0]], operands[1:]
        try:
            regexes = _compile(patterns, opts)
        except RegexError as exc:
            yield from io.error(f"{name}: bad regex '{patterns[0] if len(patterns) == 1 else exc}'\n")
            return 2
        numbers = {}
        for ch in "mABC":
            value = o.last(ch)
            if value is not None:
                if not value.isdigit():
                    yield from io.error(f"{name}: invalid number '{value}'\n")
                    return 1
                numbers[ch] = int(value)
        context = numbers.get("C", 0)
        paths = operands or (["."] if opts & {"r", "R"} else ["-"])
        if opts & {"r", "R"}:
            walked: list[str] = []
            for p in paths:
                walked += (yield from _walk(io, p)) if p != "-" else ["-"]
            paths = walked
        show = "H" in opts or (len(paths) > 1 or bool(opts & {"r", "R"})) and "h" not in opts
        g = _Grep(regexes, opts, numbers.get("m"), numbers.get("A", context), numbers.get("B", context), show,
                  "\0" if "z" in opts else "\n",
                  plain=_compile(patterns, opts - {"w"}) if opts >= {"o", "w"} and "x" not in opts else None)
        status = 1
        listed = False
        errors = False
        for path in paths:
            try:
                text = decode((yield from read_path(io, path)))
            except FileError as exc:
                if "s" not in opts:
                    yield from io.error(f"{name}: {path}: {exc.reason}\n")
                errors = True
                continue
            shown = "(standard input)" if path == "-" else path
            out, count = g.scan(shown, text)
            if count:
                status = 0
                if "q" in opts:
                    return 0
            if "l" in opts and count:
                out = [shown + "\n"]
            elif "L" in opts:
                out = [] if count else [shown + "\n"]
                listed = listed or not count
            elif "c" in opts:
                out = [(f"{shown}:" if show else "") + f"{count}\n"]
            yield from io.write("".join(out))
        if "L" in opts:
            status = 0 if listed else 1
        return 2 if errors and not ("q" in opts and status == 0) else status
    return grep


def _usage(io: Io, name: str) -> Process:
    yield from io.error(usage_text(name, SYNOPSIS))
    return 2


GREP_COMMANDS: dict[str, Command] = {"grep": grep_as("grep"), "egrep": grep_as("egrep", "E"),
                                     "fgrep": grep_as("fgrep", "F")}
