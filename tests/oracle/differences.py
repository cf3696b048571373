"""The deliberate differences between a script run by the real busybox (the oracle) and the same
script in a fakecri container: the one place they are listed, each with its reason, and the
normalising that makes both sides' output comparable (docs/shell.md "Differences from busybox"
mirrors this list).

A difference goes here only when the two runs cannot agree by construction (the clock, the
kernel's numbering, randomness, the host): what fakecri merely does not model yet is a
mismatch, never a difference.
"""
from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from dataclasses import dataclass

_MON = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_DAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"


@dataclass(frozen=True, slots=True)
class Difference:
    name: str
    reason: str
    pattern: str  # a regular expression over stdout and stderr ("" where nothing is rewritten)
    replacement: str = ""


DIFFERENCES: tuple[Difference, ...] = (
    Difference(
        "wall-clock timestamps",
        "The two runs happen at different instants (and fakecri's files carry its own clock's times): "
        "`date`'s default output, `ls -l`'s month-day-time column, `stat`'s and `diff`'s full times "
        "of a fresh file are the present, not a fact about the script. A time of one of these shapes "
        "within a day of the run is rewritten; any other (`date -d @N`, `date -u -d '2024-01-02 "
        "03:04:05'`, a file's old time) is compared as is.",
        rf"\b{_DAY} {_MON} [ \d]\d \d\d:\d\d:\d\d [A-Z]+ \d{{4}}\b"
        rf"|\b{_MON} [ \d]\d (?: \d{{4}}|\d\d:\d\d)\b"
        r"|\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? [+-]\d{4}\b",
        "<time>",
    ),
    Difference(
        "epoch seconds of now",
        "`date +%s`, `stat -c %Y` of a fresh file: a number within a day of the moment the script ran "
        "is the present in seconds since 1970 (rewritten by value, not by shape: see `normalise`).",
        "",
    ),
    Difference(
        "inode and device numbers",
        "The host's filesystem numbers its inodes and devices; fakecri's are its own. `stat`'s "
        "Inode:/Device: fields are rewritten; scripts compare inodes to each other (`[ a -ef b ]`) "
        "rather than print them.",
        r"\b(Inode|Device): *[0-9a-fh/]+",
        r"\1: <n>",
    ),
    Difference(
        "mktemp's random names",
        "mktemp's default template tmp.XXXXXX draws six random characters on each side; the name's "
        "shape is compared, the characters are not.",
        r"\btmp\.[A-Za-z0-9]{6}\b",
        "tmp.XXXXXX",
    ),
    Difference(
        "busybox's build",
        "The oracle is Debian's busybox-static 1.35; the image's busybox is another build: the "
        "version banner (`busybox`, `--help` first lines) names the build.",
        r"BusyBox v\d[\w.\-]*(?: \([^)\n]*\))?",
        "BusyBox vX",
    ),
    Difference(
        "the shell's standalone mode",
        "Debian builds busybox with its shell's standalone mode: an applet is found without PATH, so "
        "`command -v ls` prints `ls` and `type ls` says `ls is ls`, where the image's busybox prints "
        "`/bin/ls` and `ls is /bin/ls`. On both sides a line that is only a path in a bin directory "
        "(`command -v`, `which`) is rewritten to its last part, and `X is /bin/X` to `X is X`.",
        r"(?m)^/(?:usr/)?s?bin/([\w.\[-]+)$|\b([\w.\[-]+) is /(?:usr/)?s?bin/\2\b",
        "",
    ),
    Difference(
        "process ids",
        "`$$`, `$!` and `$PPID` are the kernel's numbering on the host and fakecri's own in the "
        "container; nothing rewrites them, so the corpus tests them (`[ $$ -gt 0 ]`, `kill -0 $!`, "
        "`wait $!`) instead of printing them.",
        "",
    ),
    Difference(
        "PID 1 and the stop signal",
        "A stopped script (`TERM@` in the corpus) is the command of a container of its own on "
        "fakecri's side, its PID 1, which the kernel gives no signal it has no handler for: "
        "without a trap for TERM it goes on until the kill at the end of the grace period (137). "
        "On the host the oracle's shell is no PID 1 and dies of the signal (143). The corpus stops "
        "only scripts that trap or ignore TERM; tests/sim/test_stop_signals.py holds the rest.",
        "",
    ),
    Difference(
        "applets Debian's build leaves out",
        "Debian's busybox-static has 269 applets, the busybox image about 400 (it has e.g. `install`, "
        "`comm`, `cksum`, `printenv`, `split`), and some applets lack options or features the "
        "image's have (`find -delete`; awk built without its math library: `2^10`, `sin`, `exp`...). "
        "The oracle answers those with 127 or an error, so the corpus leaves them out.",
        "",
    ),
)

# What differs only when the oracle cannot chroot (not root, no unshare): the fallback runs
# `busybox sh` on the host.
FALLBACK_DIFFERENCES: tuple[Difference, ...] = (
    Difference("host /etc and hostname",
               "The fallback reads the host's /etc/passwd, /etc/group, /etc/hosts and hostname, not the "
               "image's: scripts about users, groups and names differ there.", ""),
    Difference("scratch directory", "The fallback's scratch directories live under a temporary directory of "
               "the host, not /tmp; its path is rewritten to /tmp.", ""),
)

def _standalone(m: re.Match[str]) -> str:
    return m.group(1) if m.group(1) else f"{m.group(2)} is {m.group(2)}"


_TIME_FORMATS = ("%a %b %d %H:%M:%S %Z %Y", "%Y-%m-%d %H:%M:%S %z", "%b %d %H:%M", "%b %d %Y")


def _seconds(text: str, year: int) -> float | None:
    """The moment a timestamp of one of the shapes above names (UTC; both sides run without TZ)."""
    text = re.sub(r"(\d\d:\d\d:\d\d)\.\d+", r"\1", " ".join(text.split()))
    for fmt in _TIME_FORMATS:
        try:
            moment = datetime.datetime.strptime(text, fmt)
        except ValueError:
            continue
        if fmt == "%b %d %H:%M":
            moment = moment.replace(year=year)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=datetime.UTC)
        return moment.timestamp()
    return None


_COMPILED: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = tuple(
    (re.compile(d.pattern), _standalone if d.name == "the shell's standalone mode" else d.replacement)
    for d in DIFFERENCES if d.pattern)
_NUMBER = re.compile(r"(?<![\d.])\d{9,10}(?![\d.])")


def normalise(text: str, now: tuple[float, float] | None = None, scratch: str | None = None) -> str:
    """`text` with every deliberate difference rewritten. `now` is the (start, end) wall-clock
    seconds of the run; `scratch` a fallback scratch parent to rewrite to /tmp."""
    if scratch:
        text = text.replace(scratch, "/tmp")
    low, high = (now[0] - 86400, now[1] + 86400) if now else (0.0, -1.0)
    year = datetime.datetime.fromtimestamp(low + 86400, datetime.UTC).year if now else 1970

    def recent(m: re.Match[str]) -> str:
        t = _seconds(m.group(), year)
        return "<time>" if t is not None and low <= t <= high else m.group()

    for pattern, replacement in _COMPILED:
        text = pattern.sub(recent if replacement == "<time>" else replacement, text)
    if now is not None:
        within: Callable[[re.Match[str]], str] = (
            lambda m: "<now>" if low <= int(m.group()) <= high else m.group())
        text = _NUMBER.sub(within, text)
    return text
