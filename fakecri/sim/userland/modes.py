"""chmod's mode operand: octal (`0644`, `4755`) or symbolic (`u+x`, `go-w`, `a=rX,u+s`)."""
from __future__ import annotations

import re

UMASK = 0o022  # a container process's umask, as runc leaves it
_WHO = {"u": 0o4700, "g": 0o2070, "o": 0o0007, "a": 0o7777}  # (busybox: o covers no sticky bit: o+t does nothing)
_CLAUSE = re.compile(r"([ugoa]*)((?:[-+=](?:[rwxXst]*|[ugo]))+)$")


def parse_mode(spec: str, current: int, *, is_dir: bool = False) -> int:
    """The new permission bits (with setuid/setgid/sticky) of a file now at `current`;
    ValueError for a mode chmod would call invalid."""
    if re.fullmatch(r"[0-7]{1,4}", spec):
        return int(spec, 8)
    mode = current & 0o7777
    for clause in spec.split(","):
        m = _CLAUSE.match(clause)
        if m is None:
            raise ValueError(spec)
        who = 0
        for ch in m.group(1):
            who |= _WHO[ch]
        mask = who or (0o7777 & ~UMASK)
        for op, perms in re.findall(r"([-+=])([rwxXst]*|[ugo])", m.group(2)):
            bits = 0
            if perms in ("u", "g", "o"):
                shift = {"u": 6, "g": 3, "o": 0}[perms]
                part = (mode >> shift) & 7
                bits = part << 6 | part << 3 | part
            else:
                for ch in perms:
                    bits |= {"r": 0o444, "w": 0o222, "x": 0o111, "s": 0o6000, "t": 0o1000}.get(ch, 0)
                    if ch == "X" and (is_dir or mode & 0o111):
                        bits |= 0o111
            bits &= mask
            if op == "+":
                mode |= bits
            elif op == "-":
                mode &= ~bits
            else:
                mode = (mode & ~(who or 0o7777) & 0o7777) | bits
    return mode
