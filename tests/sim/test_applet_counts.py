"""wc, head, tail and tee against busybox's: on files in a container's userland (ExecSync, no
gRPC) and the same files on the host, and on standard input."""
from __future__ import annotations

import pytest
from helpers.applet_oracle import check, check_files, fake, needs_busybox

pytestmark = needs_busybox

FILES = {"w1": b"a b\nc\n", "w2": "h\u00e9llo w\u00f6rld".encode(), "n": b"".join(b"%d\n" % i for i in range(1, 21))}


FILE_CASES = [
    ["wc", "w1"], ["wc", "-l", "w1"], ["wc", "w1", "w2"], ["wc", "-m", "w2"], ["wc", "-c", "w2"], ["wc", "-L", "w1"],
    ["wc", "-L", "w2"], ["wc", "-lw", "w1", "w2"], ["wc", "-l", "w1", "w2"], ["wc", "nope", "w1"], ["wc", "-", "w1"],
    ["head", "-n", "1", "w1"], ["head", "-1", "w1", "w2"], ["head", "-c", "3", "w1"], ["head", "-n", "-1", "w1"],
    ["head", "-c", "-2", "w1"], ["head", "-q", "w1", "w1"], ["head", "-v", "w1"], ["head", "n"],
    ["head", "-n", "+3", "n"],
    ["head", "-n", "x", "w1"], ["head", "nope", "w1"], ["head", "-n", "3", "-"],
    ["tail", "-n", "1", "w1"], ["tail", "-1", "w1"], ["tail", "-n", "+3", "n"], ["tail", "+18", "n"],
    ["tail", "-c", "4", "n"],
    ["tail", "w1", "w2"], ["tail", "-3", "n"], ["tail", "-n", "0", "n"], ["tail", "-c", "+3", "w1"], ["tail", "n"],
    ["tail", "-n", "x", "w1"], ["tail", "nope"], ["tail", "nope", "w1"], ["tail", "-q", "w1", "w2"],
    ["sh", "-c", "echo a | tee t1 t2; cat t1 t2; echo b | tee -a t1 >/dev/null; cat t1; rm t1 t2"],
    ["tee", "nope/x"],
]


@pytest.mark.parametrize("argv", FILE_CASES, ids=" ".join)
def test_counts_on_files_match_busybox(box, argv):
    check_files(*box, argv, b"x y\nz\n", FILES)


@pytest.mark.parametrize(("argv", "stdin"), [
    (["wc"], b"x y\n"), (["wc", "-l"], b"x y\n"), (["wc"], b""), (["wc", "-w"], b"  a\tb\n c"),
    (["head", "-n", "2"], b"1\n2\n3"),
    (["tail", "-n", "1"], b"a\nb"), (["tail", "-c", "2"], b"abc"), (["head"], b"".join(b"%d\n" % i for i in range(15))),
    (["wc", "-x"], b""), (["tee"], b"abc"),
])
def test_counts_on_stdin_match_busybox(argv, stdin):
    check(argv, stdin, stderr="first")


def test_tail_f_prints_what_is_there_then_runs_until_stopped():
    from fakecri.sim.applets import APPLET_COMMANDS
    from fakecri.sim.shell import Context, record, spawn
    done = record(spawn(["tail", "-f"], Context(commands=APPLET_COMMANDS)), b"a\nb\n")
    assert [t for _, _, t in done.outputs] == ["a\nb\n"] and done.end_ns is None
    assert fake(["tail", "-n", "1"], b"a\nb\n") == (b"b\n", b"", 0)
