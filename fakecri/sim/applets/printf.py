"""`printf FORMAT [ARG]...` as busybox's: the format is used again while arguments remain; a
missing argument is "" (an invalid number for a numeric conversion); a bad number is reported
(`printf: invalid number 'X'`), printed as 0, and makes the exit code 1; an unknown conversion
ends it (`printf: %q: invalid format`, exit 1). Widths and precisions count bytes, as C's do.

Text is handled as bytes (one `str` character per byte, latin-1), so `%c` takes one byte and
`%5s` pads to five bytes, as busybox does.
"""
from __future__ import annotations

import math
import re

from fakecri.sim.applets.common import encode
from fakecri.sim.shell import Io, Process
from fakecri.sim.usage import usage_text

_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}
# busybox drops any run of the size modifiers l L h z (`%lld`, `%zu`), and no others (`%jd` is invalid).
_SPEC = re.compile(r"%([-+ #0']*)(\*|\d*)(?:\.(\*|\d*))?([lLhz]*)(.?)", re.S)
_INT_RANGE = 1 << 64


class _Stop(Exception):
    """`\\c`: no more output at all (`done`: what came before it)."""

    def __init__(self, done: str = "") -> None:
        super().__init__(done)
        self.done = done


def _escape(text: str, i: int, *, in_b: bool) -> tuple[str, int]:
    """The escape at text[i] (just after a backslash): (its character(s), index after it)."""
    if i >= len(text):
        return "\\", i
    c = text[i]
    if c in _SIMPLE:
        return _SIMPLE[c], i + 1
    if c == "c":
        raise _Stop
    if c == "x":
        m = re.match(r"[0-9a-fA-F]{1,2}", text[i + 1:])
        if m is None:
            return "\\x", i + 1
        return chr(int(m.group(0), 16)), i + 1 + m.end()
    if in_b and c == "0":
        m = re.match(r"[0-7]{0,3}", text[i + 1:])
        digits = m.group(0) if m else ""
        return chr(int(digits or "0", 8) & 0xFF), i + 1 + len(digits)
    if c in "01234567":
        m = re.match(r"[0-7]{1,3}", text[i:])
        assert m is not None
        return chr(int(m.group(0), 8) & 0xFF), i + m.end()
    return "\\" + c, i + 1


def unescape(text: str, *, in_b: bool = False) -> str:
    """`text` with its backslash escapes done (raises _Stop at `\\c`, keeping nothing after)."""
    out = []
    i = 0
    while i < len(text):
        j = text.find("\\", i)
        if j < 0:
            out.append(text[i:])
            break
        out.append(text[i:j])
        try:
            s, i = _escape(text, j + 1, in_b=in_b)
        except _Stop:
            raise _Stop("".join(out)) from None
        out.append(s)
    return "".join(out)


class _Numbers:
    """Reads the numeric arguments, noting those that are not numbers."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def integer(self, arg: str, unsigned: bool = False) -> int:
        """The number busybox's bb_strtoll takes (bb_strtoull for `unsigned`: up to 2**64 - 1,
        and a negative one wraps); out of range it is reported and 0."""
        # busybox skips leading blanks first: ` 'a` is 97, and ` 12 ` is reported as '12 '
        t = arg.lstrip(" \t\n\r\f\v")
        if t[:1] in ("'", '"'):
            return ord(t[1]) if len(t) > 1 else 0
        m = re.fullmatch(r"([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)", t)
        if m is None:
            self.errors.append(t)
            return 0
        body = m.group(2)
        value = int(body, 16) if body[:2].lower() == "0x" else int(body, 8) if body.startswith("0") else int(body)
        value = -value if m.group(1) == "-" else value
        if not (-(1 << 63) <= value < (_INT_RANGE if unsigned and m.group(1) != "-" else 1 << 63)):
            self.errors.append(t)
            return 0
        return value

    def real(self, arg: str) -> float:
        if arg[:1] in ("'", '"'):
            return float(ord(arg[1])) if len(arg) > 1 else 0.0
        t = arg.lstrip(" \t\n\r\f\v")
        try:
            if re.fullmatch(r"[+-]?0[xX][0-9a-fA-F]+", t):
                return float(int(t, 16))
            if not re.fullmatch(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", t, re.I):
                raise ValueError(t)
            value = float(t)
        except ValueError:
            self.errors.append(arg)
            return 0.0
        if math.isinf(value) and "inf" not in t.lower():
            self.errors.append(arg)  # out of range: C's strtod says so, busybox reports it
        return value


def _convert(flags: str, width: int | None, prec: int | None, conv: str, arg: str, nums: _Numbers) -> str:
    spec = "%" + flags.replace("'", "") + ("" if width is None else str(width)) + (
        "" if prec is None else "." + str(prec))
    if conv == "s":
        return (spec + "s") % arg
    if conv == "b":
        try:
            return (spec + "s") % unescape(arg, in_b=True)
        except _Stop as stop:
            raise _Stop(stop.done) from None
    if conv == "c":
        return (spec.split(".")[0] + "s") % (arg[:1] or "\0")
    if conv in "diouxX":
        value = nums.integer(arg, unsigned=conv in "ouxX")
        if conv in "ouxX" and value < 0:
            value += _INT_RANGE
        if conv == "o" and "#" in flags:  # C's alternate octal form is a leading 0, Python's is 0o
            digits = ("%" + ("" if prec is None else f".{prec}") + "o") % value
            digits = digits if digits.startswith("0") else "0" + digits
            pad = "0" if "0" in flags and "-" not in flags and prec is None else " "
            width = width or 0
            return digits.ljust(width) if "-" in flags else digits.rjust(width, pad)
        return (spec + ("d" if conv in "iu" else conv)) % value
    value_f = nums.real(arg)
    return (spec + conv) % value_f


def format_all(fmt: str, args: list[str]) -> tuple[str, list[str], str | None]:
    """(the output, the arguments that were not numbers, the bad conversion that stopped it)."""
    nums = _Numbers()
    out: list[str] = []
    rest = list(args)
    try:
        while True:
            used = False
            i = 0
            while i < len(fmt):
                c = fmt[i]
                if c == "\\":
                    s, i = _escape(fmt, i + 1, in_b=False)
                    out.append(s)
                    continue
                if c != "%":
                    j = min([k for k in (fmt.find("%", i), fmt.find("\\", i)) if k >= 0], default=len(fmt))
                    out.append(fmt[i:j])
                    i = j
                    continue
                if fmt[i + 1:i + 2] == "%":
                    out.append("%")
                    i += 2
                    continue
                m = _SPEC.match(fmt, i)
                assert m is not None
                flags, width_s, prec_s, _, conv = m.groups()
                if not conv or conv not in "sbcdiouxXfFeEgG":  # (named without the size modifiers)
                    return "".join(out), nums.errors, fmt[i:m.start(4)] + fmt[m.end(4):]
                width: int | None = None
                prec: int | None = None
                if width_s == "*":
                    width = nums.integer(rest.pop(0) if rest else "")
                    used = True
                elif width_s:
                    width = int(width_s)
                if prec_s == "*":
                    prec = nums.integer(rest.pop(0) if rest else "")
                    used = True
                    prec = None if prec < 0 else prec
                elif prec_s is not None:
                    prec = int(prec_s or "0")
                if width is not None and width < 0:
                    flags, width = flags + "-", -width
                arg = rest.pop(0) if rest else ""
                used = True
                try:
                    out.append(_convert(flags, width, prec, conv, arg, nums))
                except _Stop as stop:
                    out.append(stop.done)
                    raise
                i = m.end()
            if not rest or not used:
                break
    except _Stop:
        pass
    return "".join(out), nums.errors, None


def _bytes_text(text: str) -> str:
    """A str of one character per byte (latin-1) for `text` as the process sees it."""
    return encode(text).decode("latin-1")


def printf(args: list[str], io: Io) -> Process:
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        if io.builtin:  # ash's builtin says it in a line of its own, exit 2
            yield from io.error(f"{io.shell}: usage: printf FORMAT [ARGUMENT...]\n")
            return 2
        yield from io.error(usage_text("printf", "FORMAT [ARG]..."))
        return 1
    fmt, rest = _bytes_text(args[0]), [_bytes_text(a) for a in args[1:]]
    out, errors, bad = format_all(fmt, rest)
    name = io.shell if io.builtin else "printf"  # `printf` in a script is ash's builtin: named so
    yield from io.write(out.encode("latin-1").decode("utf-8", "surrogateescape"))
    for arg in errors:
        yield from io.error(f"{name}: invalid number '{arg.encode('latin-1').decode('utf-8', 'surrogateescape')}'\n")
    if bad is not None:
        yield from io.error(f"{name}: {bad.encode('latin-1').decode('utf-8', 'surrogateescape')}: invalid format\n")
        return 1
    return 1 if errors else 0


PRINTF_COMMANDS = {"printf": printf}
