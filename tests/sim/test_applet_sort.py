"""sort and uniq against busybox's (standard input; sort -o and uniq's output file in a container)."""
from __future__ import annotations

import pytest
from helpers.applet_oracle import check, check_files, needs_busybox

pytestmark = needs_busybox

MIX = b"b\na\nB\n10\n9\n"
CASES = [
    (["sort"], MIX), (["sort", "-f"], MIX), (["sort", "-n"], b"10\n9\n-1\nx\n1.5\n"),
    (["sort", "-k2", "-n"], b"b 2\na 10\nc 1\n"),
    (["sort", "-t:", "-k2,2", "-r"], b"b:2\na:10\nc:1\n"), (["sort", "-u"], b"a\na\nb\n"),
    (["sort", "-uf"], b"A\na\nb\n"),
    (["sort", "-k2,2", "-s"], b"x 1\ny 1\n"), (["sort", "-k2,2", "-r"], b"x 1\ny 1\n"), (["sort", "-c"], b"3\n1\n2\n"),
    (["sort", "-c"], b"1\n2\n"), (["sort", "-cu"], b"1\n1\n"), (["sort"], b" b\na\n"), (["sort", "-b"], b" b\na\n"),
    (["sort", "-h"], b"1\n"), (["sort", "-k2.1,2.1", "-k3r"], b"a b c\na a d\n"), (["sort", "-g"], b"2\n10\n1e1\n"),
    (["sort", "-k0"], b"a\n"), (["sort", "-r"], b"b\nA\na\n"), (["sort", "-k", "2n,2"], b"a b\n"),
    (["sort", "-k1,1", "-k2"], b"b\na\n"),
    (["sort", "-t", "a", "-k2n"], b"b10\na2\na10\n"), (["sort", "-k1f"], b"B\na\n"), (["sort", "-z"], b"b\x00a\x00"),
    (["sort", "-M"], b"Feb\nJan\nxyz\n"), (["sort", "-V"], b"1.10\n1.9\n1.9a\n"), (["sort", "-n"], b" 2\n10\n"),
    (["sort", "-t", "\\t", "-k2"], b"a\t1\n"), (["sort", "-t,", "-k2", "-n", "-r"], b"1,5\n1,10\n"),
    (["sort", "-k2,2", "-k3nr"], b"a b 1\na  b 2\n"), (["sort", "-k2,1"], b"x\n"),
    (["sort", "-k2", "-u"], b"b a\na b\n"),
    (["sort", "-fu"], b"A\na\nB\n"), (["sort", "-rn"], b"a\nb\n"), (["sort", "-nr"], b"3\n20\n100\n"),
    (["sort", "-nu"], b"1\n01\n2\n"),
    (["sort", "-k3", "-t", " "], b"a b c\na b\nz z a\n"), (["sort"], b"b"), (["sort", "-d"], b"a-c\nab\n"),
    (["uniq", "-c"], b"a\na\nb\nA\n"), (["uniq", "-d"], b"a\na\nb\n"), (["uniq", "-u"], b"a\na\nb\n"),
    (["uniq", "-i"], b"a\nA\n"),
    (["uniq", "-f1"], b"x a\ny a\n"), (["uniq", "-s1"], b"ax\nbx\n"), (["uniq", "-w2"], b"abc\nabd\n"),
    (["uniq"], b"a\na"),
    (["uniq", "-c", "-d"], b"a\n"), (["uniq", "-Z"], b"x\n"), (["uniq", "-c"], b"5\n5\n"), (["uniq", "-f", "x"], b""),
]


@pytest.mark.parametrize(("argv", "stdin"), CASES, ids=lambda a: repr(a)[:40])
def test_sort_and_uniq_match_busybox(argv, stdin):
    check(argv, stdin, stderr="first")


@pytest.mark.parametrize("argv", [["sh", "-c", "sort -o out in1 && cat out"], ["sh", "-c", "uniq in1 out1; cat out1"],
                                  ["sort", "in1", "nope"], ["uniq", "nope"], ["sort", "in1", "in1"]], ids=" ".join)
def test_sort_and_uniq_files_match_busybox(box, argv):
    check_files(*box, argv, b"", {"in1": b"b\na\na\n"})
