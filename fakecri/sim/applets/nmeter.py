"""`nmeter [-d MSEC] FORMAT` as busybox's (procps/nmeter.c; Debian's busybox-static leaves it out,
the full busybox and alpine images have it): one line per MSEC (default 1000, at whole
multiples of it on the clock; 0: as fast as it can write; negative: no sleep at all), each line
FORMAT with its specifiers replaced by what they show, `%%` a percent sign.

Modelled: `%Nt` / `%[tN]`, the time of day (hh:mm:ss, with N decimals, 0 to 6, rounded as
busybox rounds) on the container's clock (UTC, as `date`), and `%r` (end each line with a
carriage return instead of a newline). The system monitors (`%c %n %m %s %f %i %x %p %b`) are
refused (`nmeter: %c: not modelled by fakecri`, 1) before any line is written. A FORMAT busybox
rejects (a lone `%`, an unknown letter, an unclosed `[`) prints the usage, 1.

The lines are endless: into a pipe whose reader has gone (`nmeter -d0 '%3t' | head -n1`) it ends
at its next write, as by SIGPIPE; with no delay it writes ENDLESS_BYTES at most, then is taken
to run until stopped, as `yes` is.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

from fakecri.engine.clock import FakeClock
from fakecri.sim.applets.common import BadUsage, not_modelled, options, usage_error
from fakecri.sim.applets.date import elapsed
from fakecri.sim.applets.seq import endless
from fakecri.sim.shell import Command, Io, Process, Sleep

SYNOPSIS = "[-d MSEC] FORMAT"
NS_PER_US = 1000
US_PER_S = 1_000_000
_LETTERS = "ncmsfixptbr"  # the specifiers busybox knows

# one piece of a line: literal text, or ("t", decimals)
Piece = str | tuple[str, int]


def parse_format(fmt: str) -> list[Piece]:
    """FORMAT as pieces; BadUsage for what busybox rejects, ValueError(letter) for a monitor not modelled."""
    pieces: list[Piece] = []
    text: list[str] = []
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch != "%":
            text.append(ch)
            i += 1
            continue
        if fmt[i + 1:i + 2] == "%":
            text.append("%")
            i += 2
            continue
        if fmt[i + 1:i + 2] == "[":  # %[LETTERparam]
            close = fmt.find("]", i + 2)
            if close < 0:
                raise BadUsage("")
            letter, param, i = fmt[i + 2:i + 3], fmt[i + 3:close], close + 1
        else:  # %NNNletter
            j = i + 1
            while j < len(fmt) and fmt[j].isdigit():
                j += 1
            if j >= len(fmt):
                raise BadUsage("")
            letter, param, i = fmt[j], fmt[i + 1:j], j + 1
        if not letter or letter not in _LETTERS:
            raise BadUsage("")
        if letter not in "tr":
            raise ValueError(letter)
        if text:
            pieces.append("".join(text))
            text = []
        digits = re.match(r"\d*", param).group(0)  # type: ignore[union-attr]
        pieces.append((letter, min(6, int(digits or 0))))
    if text:
        pieces.append("".join(text))
    return pieces


def _clock_text(total_ns: int, decimals: int) -> str:
    scale = 10 ** (6 - decimals)
    seconds, rest = divmod(total_ns, 1_000_000_000)
    us = rest // NS_PER_US + scale // 2
    if us >= US_PER_S:
        seconds += 1
        us -= US_PER_S
    text = datetime.fromtimestamp(seconds, UTC).strftime("%H:%M:%S")
    return text + (f".{us // scale:0{decimals}d}" if decimals else "")


def line_at(pieces: list[Piece], total_ns: int) -> str:
    """One line of output at `total_ns` (ns since the epoch), its end included."""
    end = "\r" if any(isinstance(p, tuple) and p[0] == "r" for p in pieces) else "\n"
    out = []
    for p in pieces:
        if isinstance(p, str):
            out.append(p)
        elif p[0] == "t":
            out.append(_clock_text(total_ns, p[1]))
    return "".join(out) + end


def nmeter_at(now_ns: Callable[[], int]) -> Command:
    """`nmeter` whose clock is `now_ns()` (ns since the epoch, when the process started) plus the
    time it has slept."""
    def nmeter(args: list[str], io: Io) -> Process:
        o = yield from options(io, "nmeter", args, "d:", SYNOPSIS, permute=False)
        if isinstance(o, int):
            return o
        if not o.operands:
            return (yield from usage_error(io, "nmeter", SYNOPSIS, BadUsage("")))
        try:
            delay_ms = int(o.last("d", "1000") or "")
        except ValueError:
            return (yield from usage_error(io, "nmeter", SYNOPSIS,
                                           BadUsage(f"nmeter: invalid number '{o.last('d')}'", usage=False)))
        try:
            pieces = parse_format(o.operands[0])
        except ValueError as exc:
            return (yield from not_modelled(io, "nmeter", f"%{exc}"))
        except BadUsage as exc:
            return (yield from usage_error(io, "nmeter", SYNOPSIS, exc))
        delta_ns = max(0, delay_ms) * 1_000_000
        now = now_ns() + (yield from elapsed(io))
        if delta_ns:  # the first line comes at the next multiple of the delay
            wait = delta_ns - now % delta_ns
            yield Sleep(wait)
            now += wait
        while delta_ns:
            yield from io.write(line_at(pieces, now))
            yield Sleep(delta_ns)
            now += delta_ns
        # no delay: the same line over and over, no time passing between them (a page at a time)
        line = line_at(pieces, now)
        yield from io.write(line)
        return (yield from endless(io, line))
    return nmeter


NMETER_COMMANDS: dict[str, Command] = {"nmeter": nmeter_at(FakeClock().now_ns)}
