"""awk against the oracle: each case of awk_cases.txt run through fakecri's awk and through the
host's `busybox awk` (same arguments, input and files) must give the same output and exit code
(and the same errors). Skipped where busybox is not installed.

awk_cases.txt: cases split by `===` lines; a case is the program (or `ARGS:` and a JSON list of
arguments), then optionally `FILES:` and a JSON object of files in the working directory, then
optionally a `---` line and the standard input.
"""
from __future__ import annotations

import json
import pathlib

import pytest
from helpers.awk_oracle import BUSYBOX, fake, real

CASES = pathlib.Path(__file__).with_name("awk_cases.txt")


def cases() -> list[tuple[list[str], str, dict[str, str]]]:
    out = []
    for case in CASES.read_text().split("\n===\n"):
        if not case.strip():
            continue
        head, _, stdin = case.partition("\n---\n")
        files: dict[str, str] = {}
        lines = head.split("\n")
        if lines[-1].startswith("FILES:"):
            files = json.loads(lines.pop()[6:])
        head = "\n".join(lines)
        args = json.loads(head[5:]) if head.startswith("ARGS:") else [head]
        out.append((args, stdin, files))
    return out


needs_busybox = pytest.mark.skipif(BUSYBOX is None, reason="busybox (the oracle) is not installed on this host")


@needs_busybox
@pytest.mark.parametrize("args, stdin, files", cases(), ids=lambda v: repr(v)[:60] if isinstance(v, list) else "")
def test_awk_as_busybox_runs_it(args, stdin, files):
    assert fake(args, stdin, files) == real(args, stdin, files)
