"""`seq [-w] [-s SEP] [FIRST [INC]] LAST` and `yes [STRING]...` as busybox 1.35's.

seq counts in exact decimals (`seq 1 0.1 1.3` ends at 1.3), printing as many decimals as
FIRST or INC has. Endless output cannot be written at once: `yes` (and a `seq` whose INC is 0)
writes ENDLESS_BYTES of it, a page at a time; into a pipe whose reader has gone it ends at its
next write, as by SIGPIPE (141); else, after that much, it is taken to go on until stopped
(modelled as waiting).
"""
from __future__ import annotations

from decimal import Decimal, InvalidOperation

from fakecri.sim.applets.common import BadUsage, options, usage_error
from fakecri.sim.shell import Command, Io, Process, Sleep

SEQ_SYNOPSIS = "[-w] [-s SEP] [FIRST [INC]] LAST"
ENDLESS_BYTES = 1 << 20  # what an endless writer writes before it is taken to write on until stopped
SIGPIPE_EXIT = 141


def _decimal(text: str) -> Decimal | None:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _places(text: str) -> int:
    mantissa = text.strip().lower().split("e")[0]
    return len(mantissa.split(".")[1]) if "." in mantissa else 0


def endless(io: Io, line: str) -> Process:
    """Write `line` over and over, ENDLESS_BYTES at most (see the module's note). A pipe whose
    reader has gone ends the writer at its next write (the shell's scheduler sees to it)."""
    chunk = line * max(1, 4096 // max(1, len(line)))
    for _ in range(ENDLESS_BYTES // len(chunk) + 1):
        yield from io.write(chunk)
    if io.capture is not None and io.out == "stdout":
        return SIGPIPE_EXIT
    yield Sleep(None)
    return 0


def seq(args: list[str], io: Io) -> Process:
    o = yield from options(io, "seq", args, "ws:", SEQ_SYNOPSIS, permute=False)
    if isinstance(o, int):
        return o
    words = o.operands
    if not 1 <= len(words) <= 3:
        return (yield from usage_error(io, "seq", SEQ_SYNOPSIS, BadUsage("")))
    values = [_decimal(w) for w in words]
    if any(v is None for v in values):
        return (yield from usage_error(io, "seq", SEQ_SYNOPSIS, BadUsage("")))
    nums = [v for v in values if v is not None]
    first, step, last = (Decimal(1), Decimal(1), nums[0]) if len(nums) == 1 else \
        (nums[0], Decimal(1), nums[1]) if len(nums) == 2 else (nums[0], nums[1], nums[2])
    places = max([_places(w) for w in words[:-1]] or [0])
    sep = o.last("s", "\n") or ""

    def shown(v: Decimal) -> str:
        return f"{v:.{places}f}"

    width = max(len(shown(first)), len(shown(last))) if o.has("w") else 0
    if step == 0:
        if first > last:
            return 0
        return (yield from endless(io, shown(first).zfill(width) + sep))
    out = []
    v = first
    while (step > 0 and v <= last) or (step < 0 and v >= last):
        out.append(shown(v).zfill(width))
        v += step
        if len(out) > 10_000_000:
            break
    if out:
        yield from io.write(sep.join(out) + "\n")
    return 0


def yes(args: list[str], io: Io) -> Process:
    return (yield from endless(io, (" ".join(args) if args else "y") + "\n"))


SEQ_COMMANDS: dict[str, Command] = {"seq": seq, "yes": yes}
