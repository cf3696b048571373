"""What busybox prints after a bad command line: its banner and the applet's usage text (the
oracle's own, usage_texts.py, which scripts/usage_texts.py writes from `busybox APPLET --help`),
shared by the applets and the userland's commands."""
from __future__ import annotations

from fakecri.sim.usage_texts import USAGE_TEXTS

BANNER = "BusyBox v1.35.0 (Debian 1:1.35.0-4+deb12u1+b1) multi-call binary.\n"  # the oracle's, word for word


def usage_text(applet: str, synopsis: str = "") -> str:
    """The banner and the applet's whole usage text, or `Usage: APPLET SYNOPSIS` for one busybox
    1.35 lacks."""
    body = USAGE_TEXTS.get(applet)
    if body is None:
        return f"{BANNER}\nUsage: {applet} {synopsis}\n"
    return f"{BANNER}\nUsage: {body}\n" if body else f"{BANNER}\nNo help available\n"


def invalid_option(applet: str, flags: set[str] | str, known: str) -> str:
    """busybox's complaint about the first option of `flags` (in getopt's order: sorted here)
    that `known` lacks, with the usage after it; "" when all are known."""
    for flag in sorted(flags):
        if flag not in known:
            return f"{applet}: invalid option -- '{flag}'\n" + usage_text(applet)
    return ""


def bad_command_line(applet: str, args: list[str], known: str, with_value: str = "",
                     longs: tuple[str, ...] = ()) -> str:
    """busybox's complaint about the first option in `args` its getopt does not take (before the
    first operand; `--` ends the options), with the usage after it; "" when there is none.
    `known`: the applet's option letters, `with_value` those that take a value, `longs` its long
    option names (the others are `unrecognized option '--NAME'`)."""
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--" or not a.startswith("-") or a == "-":
            return ""
        if a.startswith("--"):
            name = a[2:].split("=", 1)[0]
            if not any(long.startswith(name) for long in longs) or not name:
                return f"{applet}: unrecognized option '{a}'\n" + usage_text(applet)
            continue
        for j, ch in enumerate(a[1:], 1):
            if ch not in known:
                return f"{applet}: invalid option -- '{ch}'\n" + usage_text(applet)
            if ch in with_value:
                if j + 1 == len(a):
                    if i >= len(args):
                        return f"{applet}: option requires an argument -- '{ch}'\n" + usage_text(applet)
                    i += 1
                break
    return ""
