"""printf and sprintf: C's conversions as busybox's awk hands them to the C library.

`%c %d %i %o %u %x %X %e %E %f %F %g %G %s %%` with flags `-+ #0`, a width and a precision.
Integer conversions take the value as a C `int` (out of its range: INT_MIN, as x86 converts);
`%u %o %x %X` show it as unsigned 32 bits. `%c` of a number is that byte, of a string its first
character (of "" a NUL byte). Missing arguments are "" or 0. A `*` width, a length modifier (`l`, `h`...) or an
unknown conversion are errors, worded as busybox's.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from fakecri.sim.applets.awk.values import Value, is_numeric, to_num

_SPEC = re.compile(r"%([-+ #0]*)(\d*)(?:\.(\d*))?(.?)", re.DOTALL)
INT_MIN = -(2 ** 31)


class FormatError(Exception):
    """A format busybox refuses: its message."""


def _c_int(x: float) -> int:
    if x != x or x in (float("inf"), float("-inf")):
        return INT_MIN
    t = int(x)
    return t if INT_MIN <= t < 2 ** 31 else INT_MIN


def _pad(body: str, flags: str, width: int, numeric: bool) -> str:
    if width <= len(body):
        return body
    if "-" in flags:
        return body.ljust(width)
    if numeric and "0" in flags:
        sign = body[:1] if body[:1] in "+- " else ""
        prefix = body[len(sign):len(sign) + 2] if body[len(sign):len(sign) + 2].lower() == "0x" else ""
        digits = body[len(sign) + len(prefix):]
        return sign + prefix + digits.rjust(width - len(sign) - len(prefix), "0")
    return body.rjust(width)


def _float_text(conv: str, flags: str, precision: str | None, x: float) -> str:
    spec = "%" + "".join(f for f in flags if f in "+ #") + ("." + (precision or "0") if precision is not None else "")
    if x != x or x in (float("inf"), float("-inf")):
        body = "nan" if x != x else ("inf" if x > 0 else "-inf")
        if x == x and x > 0 and "+" in flags:
            body = "+" + body
        return body.upper() if conv in "EFG" else body
    return (spec + conv) % x


def conversions(fmt: str) -> int:
    """How many arguments `fmt` takes (busybox evaluates no more of them)."""
    return sum(1 for m in _SPEC.finditer(fmt) if m.group(4) not in ("%", ""))


def sprintf(fmt: str, args: list[Value], to_str: Callable[[Value], str]) -> str:
    out: list[str] = []
    i = 0
    n = 0
    while True:
        j = fmt.find("%", i)
        if j < 0:
            out.append(fmt[i:])
            return "".join(out)
        out.append(fmt[i:j])
        m = _SPEC.match(fmt, j)
        if m is None:  # pragma: no cover - the pattern matches any `%`
            out.append(fmt[j:])
            return "".join(out)
        flags, width_s, precision, conv = m.groups()
        i = m.end()
        if conv == "":
            out.append(fmt[j:])
            return "".join(out)
        if conv == "%":
            out.append("%" if m.end() - j == 2 else fmt[j:m.end()])
            continue
        if conv == "*":
            raise FormatError("%*x formats are not supported")
        if conv not in "cdiouxXeEfFgGs":
            raise FormatError("Invalid format specifier")
        width = int(width_s) if width_s else 0
        arg: Value = args[n] if n < len(args) else ""
        n += 1
        if conv == "s":
            body = to_str(arg)
            if precision is not None:
                body = body[:int(precision or "0")]
            out.append(_pad(body, flags, width, False))
        elif conv == "c":
            if is_numeric(arg):
                body = chr(int(to_num(arg)) & 0xFF)
            else:
                body = to_str(arg)[:1] or "\0"  # busybox formats the C string's NUL
            out.append(_pad(body, flags, width, False))
        elif conv in "di":
            v = _c_int(to_num(arg))
            spec = "%" + "".join(f for f in flags if f in "+ ") + ("." + (precision or "0") if precision is not None
                                                                  else "") + "d"
            out.append(_pad(spec % v, flags if precision is None else flags.replace("0", ""), width, True))
        elif conv in "ouxX":
            v = _c_int(to_num(arg)) & 0xFFFFFFFF
            spec = "%" + ("#" if "#" in flags and conv != "u" else "") + (
                "." + (precision or "0") if precision is not None else "") + ("d" if conv == "u" else conv)
            body = spec % v
            if conv == "o" and "#" in flags:
                body = "0" + body[2:] if body.startswith("0o") else body
            out.append(_pad(body, flags if precision is None else flags.replace("0", ""), width, True))
        else:
            out.append(_pad(_float_text(conv, flags, precision, to_num(arg)), flags, width, True))
