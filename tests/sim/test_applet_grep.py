"""grep, egrep and fgrep against busybox's: on standard input (no userland), and on files in a
container's userland (ExecSync, no gRPC) against the same files on the host."""
from __future__ import annotations

import pytest
from helpers.applet_oracle import check, check_files, needs_busybox

pytestmark = needs_busybox

FILES = {"g.txt": b"foo\nbar\nFoo bar\n", "h.txt": b"x\n", "c.txt": b"1\n2\nfoo\n3\n4\n5\nfoo\n6\n",
         "d/e.txt": b"foo in d\n"}


FILE_CASES = [
    ["-c", "o", "g.txt", "h.txt"], ["-n", "-i", "foo", "g.txt"], ["-o", "o", "g.txt"], ["-l", "o", "g.txt", "h.txt"],
    ["-L", "o", "g.txt", "h.txt"], ["-H", "x", "h.txt"], ["-h", "o", "g.txt", "h.txt"], ["-w", "bar", "g.txt"],
    ["-x", "bar", "g.txt"], ["-e", "foo", "-e", "bar", "g.txt"], ["-q", "foo", "g.txt", "nope"], ["foo", "nope"],
    ["-s", "foo", "nope"], ["-v", "o", "g.txt"], ["-F", "o.", "g.txt"], ["-E", "fo+|ba", "g.txt"],
    ["-A1", "-B1", "foo", "c.txt"], ["-C1", "-n", "foo", "c.txt"], ["-A1", "-c", "foo", "c.txt"],
    ["-m1", "-c", "foo", "c.txt"], ["-n", "-A1", "foo", "c.txt", "g.txt"], ["-w", "o*", "g.txt"],
    ["-i", "-o", "F", "g.txt"],
    ["-r", "foo", "d"], ["-f", "h.txt", "h.txt", "g.txt"], ["-f", "nope", "x"], ["-cv", "x", "h.txt"],
    ["-m1", "o", "g.txt"],
    ["-ln", "foo", "c.txt", "g.txt", "h.txt"], ["-c", "foo", "-"],
]


@pytest.mark.parametrize("args", FILE_CASES, ids=lambda a: " ".join(a))
def test_grep_on_files_matches_busybox(box, args):
    check_files(*box, ["grep", *args], b"foo\n", FILES)


STDIN_CASES = [
    (["-F", "."], b"a.b\n"), ([""], b"a\n"), (["-c", "x"], b"a\n"), (["-o", ""], b"ab\n"),
    (["-n", "-v", "a", "-"], b"a\nb\n"),
    (["-E", "("], b"a\n"), (["a\\{1"], b"a\n"), (["-o", "a*"], b"aaa\n"),
    (["-b", "x"], b"x\n"), (["-z", "x"], b"x\n"), (["^[[:digit:]]\\+$"], b"12\nx1\n"),
    (["-E", "^a|b$"], b"ab\nxb\nax\nq\n"),
    (["-i", "ABC"], b"xabcx\n"), (["-x", "-F", "ab"], b"ab\nabc\n"),
    (["-E", "x{2}"], b"xx\nx\n"), (["\\(ab\\)\\1"], b"abab\nab\n"), (["-E", "(ab)\\1"], b"abab\nab\n"),
    (["-q", "a"], b"a\n"), (["-qv", "a"], b"a\n"), (["-c", ""], b""), (["a"], b"a"),
]


@pytest.mark.parametrize(("args", "stdin"), STDIN_CASES, ids=lambda a: repr(a)[:30])
def test_grep_on_stdin_matches_busybox(args, stdin):
    check(["grep", *args], stdin, stderr="first")


def test_egrep_and_fgrep_and_usage():
    check(["egrep", "a|b"], b"a\nc\n")
    check(["fgrep", "a|b"], b"a|b\nc\n")
    check(["grep"], b"", stderr="none")
