"""Checksums and encodings as busybox 1.35's: `md5sum`, `sha1sum`, `sha256sum`, `sha512sum`
(`-c` checks a list, `-s` quietly, `-w` warns of bad lines) and `base64` (`-d`, `-w COLS`).
"""
from __future__ import annotations

import base64 as b64
import binascii
import hashlib
import re

from fakecri.sim.applets.common import decode, fail, lines_of, options, read_inputs, read_path
from fakecri.sim.shell import Command, Io, Process
from fakecri.sim.userland.world import FileError


def _summer(name: str, algorithm: str) -> Command:
    def run(args: list[str], io: Io) -> Process:
        o = yield from options(io, name, args, "cswbt", "[-c[sw]] [FILE]...")
        if isinstance(o, int):
            return o
        if not o.has("c"):
            found, status = yield from read_inputs(io, name, o.operands, style="open")
            sums = [f"{hashlib.new(algorithm, data).hexdigest()}  {path}\n" for path, data in found]
            yield from io.write("".join(sums))
            return status
        lists, status = yield from read_inputs(io, name, o.operands, style="open")
        bad = 0
        total = 0
        for _, data in lists:
            for line in lines_of(decode(data)):
                m = re.fullmatch(r"([0-9a-fA-F]+) [ *](.+)", line)
                total += 1
                if m is None:
                    bad += 1
                    continue
                try:
                    body = yield from read_path(io, m.group(2))
                    ok = hashlib.new(algorithm, body).hexdigest() == m.group(1).lower()
                except FileError as exc:
                    yield from io.error(f"{name}: can't open '{m.group(2)}': {exc.reason}\n")
                    ok = False
                if not ok:
                    bad += 1
                if not o.has("s"):
                    yield from io.write(f"{m.group(2)}: {'OK' if ok else 'FAILED'}\n")
        if bad:
            if not o.has("s"):
                yield from io.error(f"{name}: WARNING: {bad} of {total} computed checksums did NOT match\n")
            return 1
        return status
    return run


def base64(args: list[str], io: Io) -> Process:
    o = yield from options(io, "base64", args, "dw:", "[-d] [-w COL] [FILE]")
    if isinstance(o, int):
        return o
    found, status = yield from read_inputs(io, "base64", o.operands[:1])
    if status:
        return status
    data = found[0][1]
    if o.has("d"):
        text = re.sub(rb"[^A-Za-z0-9+/=]", b"", data)  # (what is not base64 is skipped)
        body = text.split(b"=", 1)[0]
        padded = len(text) > len(body)
        whole = len(body) // 4 * 4
        out = b64.b64decode(body[:whole]) if whole else b""
        rest = body[whole:]
        if rest and padded and len(rest) > 1:
            out += binascii.a2b_base64(rest + b"=" * (-len(rest) % 4))
        yield from io.write(decode(out))
        if rest and not padded:
            return (yield from fail(io, "base64: truncated input"))
        return 0
    width_s = o.last("w", "76") or "76"
    if not width_s.isdigit():
        return (yield from fail(io, f"base64: invalid number '{width_s}'"))
    width = int(width_s)
    encoded = b64.b64encode(data).decode("ascii")
    if width:
        encoded = "\n".join(encoded[i:i + width] for i in range(0, len(encoded), width))
    yield from io.write(encoded + "\n" if encoded and width else encoded)  # (-w 0: one line, no newline)
    return 0


SUM_COMMANDS: dict[str, Command] = {
    "md5sum": _summer("md5sum", "md5"), "sha1sum": _summer("sha1sum", "sha1"),
    "sha256sum": _summer("sha256sum", "sha256"), "sha512sum": _summer("sha512sum", "sha512"), "base64": base64,
}
