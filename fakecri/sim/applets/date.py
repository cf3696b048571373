"""`date [-uR] [-I[SPEC]] [-d TIME [-D FMT]] [+FORMAT]` as busybox 1.35's, in UTC (the zone a
container without TZ has; another TZ is not modelled).

"Now" is the moment the process started, as the node's clock said it (the simulation makes
each exec's `date` with `date_at`), plus the time the process has slept since; without one
(no container) it is the fake clock's start, 2026-01-01T00:00:00Z. TIME for -d: `@SECONDS`,
`YYYY-MM-DD [hh:mm[:ss]]`, `YYYY.MM.DD-hh:mm[:ss]`, `hh:mm[:ss]` (today), `[[CC]YY]MMDDhhmm`,
or as `-D FMT` (strptime) says. Setting the clock (`date MMDDhhmm`, `-s`) is refused as in a
container without CAP_SYS_TIME. `-r FILE`: the file's modification time.
"""
from __future__ import annotations

import calendar
import importlib
import re
from collections.abc import Callable, Generator
from datetime import UTC, datetime
from typing import Any

from fakecri.engine.clock import FakeClock
from fakecri.sim.applets.common import BadUsage, fail, options, usage_error
from fakecri.sim.shell import Command, Io, Process, Reply, Step
from fakecri.sim.userland.files import looking
from fakecri.sim.userland.world import FileError

NS_PER_S = 1_000_000_000
SYNOPSIS = "[OPTIONS] [+FMT] [[-s] TIME]"
_ISO = {"date": "%Y-%m-%d", "hours": "%Y-%m-%dT%H%z", "minutes": "%Y-%m-%dT%H:%M%z",
        "seconds": "%Y-%m-%dT%H:%M:%S%z", "ns": "%Y-%m-%dT%H:%M:%S,%N%z"}


def _format(fmt: str, seconds: int, nanos: int) -> str:
    tm = datetime.fromtimestamp(seconds, UTC)
    fmt = re.sub(r"%(.)", lambda m: {"Z": "UTC", "s": str(seconds), "%": "%%"}.get(m.group(1), m.group(0)), fmt)
    return tm.strftime(fmt)


def _iso(spec: str, seconds: int, nanos: int) -> str | None:
    names = [n for n in _ISO if n.startswith(spec or "date")]
    if not names:
        return None
    fmt = _ISO[names[0]].replace("%N", f"{nanos:09d}")
    text = _format(fmt, seconds, nanos)
    return re.sub(r"([+-]\d\d)(\d\d)$", r"\1:\2", text)


def _parse(text: str, now_s: int, given_format: str | None) -> int | None:
    if given_format is not None:
        if given_format == "%s":
            return int(text) if re.fullmatch(r"-?\d+", text.strip()) else None
        try:
            return calendar.timegm(datetime.strptime(text, given_format).timetuple())
        except ValueError:
            return None
    t = text.strip()
    m = re.fullmatch(r"@(\d+)", t)
    if m:
        return int(m.group(1))
    today = datetime.fromtimestamp(now_s, UTC)
    m = re.fullmatch(r"(\d{4})[-.](\d\d)[-.](\d\d)(?:[ T-](\d\d?):(\d\d)(?::(\d\d))?)?", t)
    if m and "T" not in t:
        y, mo, d, h, mi, s = (int(g) if g else 0 for g in m.groups())
        return calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
    m = re.fullmatch(r"(\d\d?):(\d\d)(?::(\d\d))?", t)
    if m:
        h, mi, s = (int(g) if g else 0 for g in m.groups())
        return calendar.timegm((today.year, today.month, today.day, h, mi, s, 0, 0, 0))
    m = re.fullmatch(r"(\d{8}|\d{10}|\d{12})(?:\.(\d\d))?", t)
    if m:
        digits, sec = m.groups()
        year = int(digits[:4]) if len(digits) == 12 else 2000 + int(digits[:2]) if len(digits) == 10 \
            else today.year
        mo, d, h, mi = (int(digits[k:k + 2]) for k in range(len(digits) - 8, len(digits), 2))
        return calendar.timegm((year, mo, d, h, mi, int(sec or 0), 0, 0, 0))
    return None


def elapsed(io: Io) -> Generator[Step, Reply, int]:
    """How long the process has run (its simulated time): the shell's scheduler knows it where
    there is one (the shell's `Now` request), else the process's clock counts its sleeps."""
    try:
        jobs: Any = importlib.import_module("fakecri.sim.shell.jobs")
    except ImportError:
        jobs = None
    if jobs is not None and hasattr(jobs, "Now"):
        now = yield from jobs.ask(jobs.Now(0))
        if isinstance(now, int) and now >= 0:
            return now
    return int(getattr(io, "clock", [0])[0])


def date_at(now_ns: Callable[[], int]) -> Command:
    """`date` whose "now" is `now_ns()` (ns since the epoch) plus the time the process slept."""
    def date(args: list[str], io: Io) -> Process:
        o = yield from options(io, "date", args, "uRI::d:D:s:r:", SYNOPSIS,
                               longs={"utc": "u", "rfc-2822": "R", "iso-8601": "I", "date": "d", "set": "s",
                                      "reference": "r"})
        if isinstance(o, int):
            return o
        reference: int | None = None
        if o.has("r"):
            path = o.last("r") or ""
            try:
                if io.ctx.userland is None:
                    raise FileError("files are not modelled outside a container by fakecri")
                world = yield from looking(io)
                reference = world.stat(path).mtime_ns
            except FileError as exc:
                return (yield from fail(io, f"date: can't stat '{path}': {exc.reason}"))
        formats = [w for w in o.operands if w.startswith("+")]
        rest = [w for w in o.operands if not w.startswith("+")]
        if o.has("s") or rest:
            if len(rest) > 1:
                return (yield from usage_error(io, "date", SYNOPSIS, BadUsage("")))
            return (yield from fail(io, "date: can't set date: Operation not permitted"))
        total = reference if reference is not None else now_ns() + (yield from elapsed(io))
        seconds, nanos = divmod(total, NS_PER_S)
        given = o.last("d")
        if given is not None:
            parsed = _parse(given, seconds, o.last("D"))
            if parsed is None:
                return (yield from fail(io, f"date: invalid date '{given}'"))
            seconds, nanos = parsed, 0
        if formats:
            text = _format(formats[-1][1:], seconds, nanos)  # (%N is not busybox's: it stays as written)
        elif o.has("I"):
            iso = _iso(o.last("I") or "", seconds, nanos)
            if iso is None:
                return (yield from usage_error(io, "date", SYNOPSIS, BadUsage("")))
            text = iso
        elif o.has("R"):
            text = _format("%a, %d %b %Y %H:%M:%S %z", seconds, nanos)
        else:
            text = _format("%a %b %e %H:%M:%S %Z %Y", seconds, nanos)
        yield from io.write(text + "\n")
        return 0
    return date


DATE_COMMANDS: dict[str, Command] = {"date": date_at(FakeClock().now_ns)}
