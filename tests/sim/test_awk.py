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


def test_a_runaway_program_is_stopped_loudly(monkeypatch):
    from fakecri.sim.applets.awk import interp

    # The bound (a million rounds, about a second of CPU alone and several on a busy machine) at
    # 20,000: the same stop and message, sooner.
    monkeypatch.setattr(interp, "MAX_STEPS", 20_000)
    out, err, code = fake(["BEGIN { while (1) n++ }"])
    assert (out, code) == ("", 2) and err.startswith("awk: a program running more than 20000 loop rounds")
    assert err.endswith("not modelled by fakecri\n")


def test_math_is_modelled_where_the_hosts_busybox_has_none():
    assert fake(["BEGIN { print 2^10, (2**0.5 > 1.41), sqrt(16), int(exp(1) * 1000), log(1), cos(0) }"]) == (
        "1024 1 4 2718 0 1\n", "", 0)


def test_srand_and_rand_are_deterministic():
    once = fake(["BEGIN { srand(7); print rand(), rand(); print srand(3) }"])
    assert once == fake(["BEGIN { srand(7); print rand(), rand(); print srand(3) }"]) and once[0].endswith("\n7\n")


def test_arrays_walk_in_busybox_hash_order_after_growing():
    # past 671 keys busybox grows its table (61 buckets to 251) and re-chains them
    prog = "BEGIN { for (i = 0; i < 700; i++) a[i]; for (k in a) printf \"%s \", k; print \"\" }"
    assert fake([prog])[0].split()[:8] == ["71", "32", "420", "72", "33", "460", "421", "73"]


def test_each_line_is_answered_before_the_next_is_read():
    """Typed at a terminal: what a line prints comes out before awk waits for the next one."""
    from fakecri.sim.applets.awk import awk
    from fakecri.sim.shell import Context, Input, Io
    from fakecri.sim.steps import Read, Write

    io = Io(Context(), Input())
    proc = awk(["{ print NR \": \" toupper($0) }"], io)
    step, seen = proc.send(None), []
    for chunk in (b"one\n", b"two\n", None):
        while not isinstance(step, Read):
            if isinstance(step, Write):
                seen.append(step.text)
            step = proc.send(None)
        seen.append("<read>")
        try:
            step = proc.send(chunk)
        except StopIteration as done:
            assert done.value == 0
            break
    assert seen == ["<read>", "1: ONE\n", "<read>", "2: TWO\n", "<read>"]
