"""`date [-uR] [-I[SPEC]] [-d TIME [-D FMT]] [+FORMAT]` as busybox 1.35's, in UTC (the zone a
container without TZ has; another TZ is not modelled).

"Now" is the moment the process started, as the node's clock said it (the simulation makes
each exec's `date` with `date_at`), plus the time the process has slept since; without one
(no container) it is the fake clock's start, 2026-01-01T00:00:00Z. TIME for -d as busybox's
parse_datestr reads it: `hh:mm[:ss]` (today), `MM.DD-hh:mm[:ss]`, `YYYY.MM.DD-hh:mm[:ss]`,
`Mon DD hh:mm:ss YYYY`, `YYYY-MM-DD [hh[:mm[:ss]]] [+hhmm]` (each as glibc's strptime takes it),
`@SECONDS`, `[[[[[CC]YY]MM]DD]hh]mm[.ss]`; out-of-range days and seconds roll over as mktime
does; or as `-D FMT` (strptime) says. Setting the clock (`date MMDDhhmm`, `-s`) is refused as in a
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


# busybox's parse_datestr (ENABLE_DESKTOP): the first of these strptime formats that takes the whole
# text, then `@SECONDS`, then the digits-only forms of `touch -t`.
_DATE_FORMATS = ("%R", "%T", "%m.%d-%R", "%m.%d-%T", "%Y.%m.%d-%R", "%Y.%m.%d-%T", "%b %d %T %Y", "%Y-%m-%d %R",
                 "%Y-%m-%d %T", "%Y-%m-%d %R %z", "%Y-%m-%d %T %z", "%Y-%m-%d %H", "%Y-%m-%d")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
# glibc's strptime: each number's range and most digits.
_NUMBERS = {"Y": (0, 9999, 4), "m": (1, 12, 2), "d": (1, 31, 2), "H": (0, 23, 2), "M": (0, 59, 2), "S": (0, 61, 2)}


def _strptime(text: str, fmt: str, tm: dict[str, int]) -> bool:
    """glibc's strptime over `fmt`, the fields it reads set in `tm` (year, mon 1-12, mday, hour,
    min, sec, off: a zone's offset in seconds); True when it took the whole text."""
    fmt = fmt.replace("%R", "%H:%M").replace("%T", "%H:%M:%S")
    got: dict[str, int] = {}
    i = 0
    j = 0
    while j < len(fmt):
        f = fmt[j]
        j += 1
        if f.isspace():  # any run of white space, none too
            while i < len(text) and text[i].isspace():
                i += 1
            continue
        if f != "%":
            if i >= len(text) or text[i] != f:
                return False
            i += 1
            continue
        conv = fmt[j]
        j += 1
        while i < len(text) and text[i].isspace():
            i += 1
        if conv in _NUMBERS:
            low, high, most = _NUMBERS[conv]
            if i >= len(text) or not text[i].isdigit():
                return False
            val = 0
            n = 0
            while i < len(text) and text[i].isdigit() and n < most and (n == 0 or val * 10 <= high):
                val = val * 10 + int(text[i])
                i += 1
                n += 1
            if not low <= val <= high:
                return False
            got[conv] = val
        elif conv == "b":
            low_text = text[i:].lower()
            for k, name in enumerate(_MONTHS):
                taken = name if low_text.startswith(name) else name[:3] if low_text.startswith(name[:3]) else ""
                if taken:
                    got["m"] = k + 1
                    i += len(taken)
                    break
            else:
                return False
        elif conv == "z":
            if text[i:i + 1] == "Z":
                got["z"] = 0
                i += 1
                continue
            m = re.match(r"([+-])(\d\d)(?::?(\d\d))?", text[i:])
            if m is None:
                return False
            sign = -1 if m.group(1) == "-" else 1
            got["z"] = sign * (int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60)
            i += m.end()
    if i != len(text):
        return False
    for conv, key in (("Y", "year"), ("m", "mon"), ("d", "mday"), ("H", "hour"), ("M", "min"), ("S", "sec"),
                      ("z", "off")):
        if conv in got:
            tm[key] = got[conv]
    return True


def _digits_form(text: str, tm: dict[str, int]) -> bool:
    """`[[[[[CC]YY]MM]DD]hh]mm[.ss]` (the length before a `.` says which), busybox's checks after."""
    head, dot, tail = text.partition(".")
    if not head.isdigit() or len(head) not in (2, 4, 6, 8, 10, 12):
        return False
    pairs = [int(head[k:k + 2]) for k in range(0, len(head), 2)]
    if len(head) == 12:
        tm["year"] = int(head[:4])
        pairs = pairs[2:]
    elif len(head) == 10:
        year = pairs.pop(0) + 1900  # put in the current century, within 50 years of now
        year += (tm["year"] - 1900) // 100 * 100
        if year < tm["year"] - 50:
            year += 100
        if year > tm["year"] + 50:
            year -= 100
        tm["year"] = year
    keys = ("mon", "mday", "hour", "min")[4 - len(pairs):]
    tm.update(zip(keys, pairs, strict=True))
    tm["sec"] = 0
    if dot:
        if not tail.isdigit():
            return False
        tm["sec"] = int(tail)
    return tm["sec"] <= 60 and tm["min"] <= 59 and tm["hour"] <= 23 and tm["mday"] <= 31 and 1 <= tm["mon"] <= 12


def _parse(text: str, now_s: int, given_format: str | None) -> int | None:
    if given_format is not None:
        if given_format == "%s":
            return int(text) if re.fullmatch(r"-?\d+", text.strip()) else None
        try:
            return calendar.timegm(datetime.strptime(text, given_format).timetuple())
        except ValueError:
            return None
    return parse_datestr(text, now_s, midnight=True)


def parse_datestr(text: str, now_s: int, *, midnight: bool) -> int | None:
    """busybox's parse_datestr and validate_tm_time: TIME as seconds since the epoch (None: an
    invalid date). The fields a form does not give are now's, the time of day midnight's when
    `midnight` (date zeroes it first, touch does not)."""
    today = datetime.fromtimestamp(now_s, UTC)
    start = {"year": today.year, "mon": today.month, "mday": today.day, "hour": 0 if midnight else today.hour,
             "min": 0 if midnight else today.minute, "sec": 0 if midnight else today.second}
    for fmt in _DATE_FORMATS:
        tm = dict(start)
        if _strptime(text, fmt, tm):
            break
    else:
        m = re.fullmatch(r"@(\d+)", text)
        if m:
            return int(m.group(1)) if int(m.group(1)) < 2 ** 63 else None
        tm = dict(start)
        if not _digits_form(text, tm):
            return None
    if tm["year"] < 1:
        return None
    # mktime's normalising: 2024-02-30 is March 1st, 12:30:61 is 12:31:01.
    days = datetime(tm["year"], tm["mon"], 1).toordinal() - datetime(1970, 1, 1).toordinal() + tm["mday"] - 1
    return days * 86400 + tm["hour"] * 3600 + tm["min"] * 60 + tm["sec"] - tm.get("off", 0)


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
