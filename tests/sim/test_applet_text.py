"""cut, tr, rev, tac, paste, fold, nl against busybox's (standard input; paste also on files)."""
from __future__ import annotations

import pytest
from helpers.applet_oracle import check, check_files, needs_busybox

pytestmark = needs_busybox

CASES = [
    (["cut", "-d:", "-f2"], b"a:b:c\nxyz\n"), (["cut", "-d:", "-f2", "-s"], b"a:b:c\nxyz\n"),
    (["cut", "-d:", "-f1,3-"], b"a:b:c\n"), (["cut", "-d:", "-f-2"], b"a:b:c\n"), (["cut", "-c2-4,6"], b"abcdef\n"),
    (["cut", "-b1,1,3"], b"abcdef\n"), (["cut", "-f2"], b"a\tb\n"), (["cut", "-c", "0"], b"abc\n"),
    (["cut", "-c", "3-1"], b"abc\n"), (["cut", "-d:", "-c1"], b"abc\n"), (["cut", "-f1", "-c1"], b"abc\n"),
    (["cut", "-d::", "-f1"], b"a:b\n"), (["cut", "-c", "x"], b"abc\n"), (["cut", "-d", " ", "-f3"], b"a b  c\n"),
    (["cut", "-c2"], "h\u00e9llo\n".encode()), (["cut", "-d:", "-f3,1"], b"a:b:c\n"), (["cut", "-c1"], b"abc"),
    (["cut", "-d:", "-f2", "-O", "X"], b"a:b:c\n"), (["cut", "-F", "2"], b" a  b c\n"), (["cut"], b"x\n"),
    (["cut", "-d:", "-f", "2", "-D"], b"a:b\n"), (["cut", "-Z"], b""),
    (["tr", "a-z", "A-Z"], b"hello\n"), (["tr", "[:lower:]", "[:upper:]"], b"hello\n"), (["tr", "-d", "l"], b"hello\n"),
    (["tr", "-s", "eo"], b"heelloo\n"), (["tr", "-c", "a-z", "_"], b"hello\n"),
    (["tr", "-cd", "a-z"], b"hello world\n"),
    (["tr", "el", "x"], b"hello\n"), (["tr", "elo", "xy"], b"hello\n"), (["tr", "-", "_"], b"a-b\n"),
    (["tr", "\\t", " "], b"a\tb\n"), (["tr", "-s", " "], b"aaa  bb\n"), (["tr", "-ds", "b", "c"], b"abc\n"),
    (["tr"], b"hello\n"), (["tr", "a"], b"hello\n"), (["tr", "-d", "[:digit:]"], b"a1b2\n"),
    (["tr", "a-c", "[x*]"], b"abc\n"),
    (["tr", "\\141", "\\142"], b"ab\n"), (["tr", ".", "\\n"], b"a.b\n"), (["tr", "-s", "a-c", "x"], b"abc\n"),
    (["tr", "[:upper:][:lower:]", "[:lower:][:upper:]"], b"AbC\n"), (["tr", "[:space:]", "\\n"], b"a b\n"),
    (["tr", "z-x", "a"], b"xyz\n"), (["tr", "]", "x"], b"a]b\n"), (["tr", "[=a=]", "x"], b"a=b\n"),
    (["tr", "-d", "\\r"], b"a\r\nb\r\n"), (["tr", "\\000", "x"], b"a\x00b"),
    (["rev"], b"abc\ndef"), (["rev"], b"ab\n\ncd\n"), (["tac"], b"a\nb\nc"), (["tac"], b"a\nb\n"),
    (["paste", "-", "-"], b"1\n2\n3\n"), (["paste", "-s", "-d,"], b"1\n2\n3\n"), (["paste", "-s"], b"1\n2\n"),
    (["fold", "-w", "3"], b"abcdefghij\n"), (["fold", "-s", "-w", "4"], b"ab cd ef\n"), (["fold", "-w", "0"], b"x\n"),
    (["nl"], b"a\n\nb\n"), (["nl", "-ba"], b"a\n\nb\n"), (["nl", "-w2", "-s:"], b"a\nb\n"),
    (["nl", "-v5", "-i2", "-bn"], b"x\n"),
    (["nl", "-i2"], b"1\n2\n3\n"),
]


@pytest.mark.parametrize(("argv", "stdin"), CASES, ids=lambda a: repr(a)[:40])
def test_text_applets_match_busybox(argv, stdin):
    check(argv, stdin, stderr="first")


FILES = {"p1": b"1\n2\n3\n", "p2": b"a\nb\n", "f": b"a:b\nc:d\n"}


@pytest.mark.parametrize("argv", [["paste", "p1", "p2"], ["paste", "-d,", "p1", "p2"], ["paste", "-s", "-d,:", "p1"],
                                  ["paste", "p2", "p1"], ["cut", "-d:", "-f2", "f", "p1"], ["cut", "-f1", "nope"],
                                  ["tac", "p1", "p2"], ["rev", "f", "nope"], ["nl", "p2", "p1"], ["fold", "-w1", "p2"]],
                         ids=" ".join)
def test_text_applets_on_files_match_busybox(box, argv):
    check_files(*box, argv, b"", FILES)


@pytest.mark.parametrize("argv", [["cat", "-n", "cf"], ["cat", "-b", "cf"], ["cat", "-A", "cf"], ["cat", "-s", "cf"],
                                  ["cat", "-n", "-", "cf"], ["cat", "cf", "-", "nope"], ["cat", "-vet", "bn"],
                                  ["cat", "p1", "p2"]], ids=" ".join)
def test_cat_matches_busybox(box, argv):
    check_files(*box, argv, b"q\n", {"cf": b"a\n\nb", "bn": b"\x01\x7f\xc3\xa9\tx\n", **FILES}, stderr="first")
