#!/usr/bin/env python3
"""Writes fakecri/sim/usage_texts.py: the usage text the oracle's busybox (Debian's
busybox-static 1.35, /usr/bin/busybox) prints after a bad command line, for each applet a
container of fakecri runs, as `busybox APPLET --help` shows it: what follows `Usage: ` (the
synopsis first), or "" where busybox says `No help available`.

    .venv/bin/python scripts/usage_texts.py            # rewrite the table
    .venv/bin/python scripts/usage_texts.py --check    # exit 1 when the table is not the host's
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TARGET = ROOT / "fakecri" / "sim" / "usage_texts.py"
BUSYBOX = "/usr/bin/busybox"
_SKIP = {"sh", "ash"}  # the shell's own usage is not an applet's bad command line


def texts() -> dict[str, str]:
    from fakecri.sim.shell import COMMANDS
    from fakecri.sim.simulation import INSIDE_COMMANDS

    listed = set(subprocess.run([BUSYBOX, "--list"], capture_output=True, text=True, check=True).stdout.split())
    found: dict[str, str] = {}
    for name in sorted((set(INSIDE_COMMANDS) | set(COMMANDS)) & listed - _SKIP):
        out = subprocess.run([BUSYBOX, name, "--help"], capture_output=True, text=True).stderr
        _, sep, body = out.partition("\n\nUsage: ")
        if sep and body.endswith("\n"):
            found[name] = body[:-1]
        elif out.endswith("\n\nNo help available\n"):
            found[name] = ""
    return found


def render(found: dict[str, str]) -> str:
    lines = ['"""The usage text busybox 1.35 (Debian\'s busybox-static, the oracle) prints after a bad command',
             "line, by applet: what follows `Usage: ` (the synopsis first; an empty text where busybox says",
             "`No help available`). Written by scripts/usage_texts.py from `busybox APPLET --help`; do not edit",
             'by hand."""', "", "USAGE_TEXTS: dict[str, str] = {"]
    for name, body in found.items():
        pieces = _pieces(body)
        if len(pieces) == 1 and len(name) + len(pieces[0]) < 104:
            lines.append(f"    {name!r}: {pieces[0]},")
            continue
        lines.append(f"    {name!r}: (")
        lines += [f"        {piece}" for piece in pieces]
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _pieces(body: str, width: int = 108) -> list[str]:
    """`body` as string literals of at most `width` characters each (their concatenation is `body`)."""
    out: list[str] = []
    rest = body
    while True:
        n = len(rest)
        while len(repr(rest[:n])) > width:
            n = n * 3 // 4 if len(repr(rest[:n * 3 // 4])) > width else n - 1
        out.append(repr(rest[:n]))
        rest = rest[n:]
        if not rest:
            return out


def main() -> int:
    text = render(texts())
    if "--check" in sys.argv[1:]:
        return 0 if TARGET.read_text() == text else 1
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
