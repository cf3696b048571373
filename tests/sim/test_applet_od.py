"""od against busybox's (standard input)."""
from __future__ import annotations

import pytest
from helpers.applet_oracle import check, needs_busybox

pytestmark = needs_busybox
DATA = b"hello\nworld\001\377"
A36 = b"a" * 36


@pytest.mark.parametrize(("args", "stdin"), [
    ([], DATA), (["-c"], DATA), (["-An", "-tx1"], DATA), (["-t", "x1"], DATA), (["-x"], DATA), (["-b"], DATA),
    (["-A", "d", "-t", "d1"], DATA), (["-Ax", "-tc"], DATA), (["-t", "u2"], DATA), (["-c"], A36), (["-v", "-c"], A36),
    (["-t", "x4"], b"ab"), ([], b""), (["-t", "x1", "-c"], DATA), (["-t", "d2"], DATA), (["-t", "o4"], DATA),
    (["-t", "x8"], DATA), (["-d"], DATA), (["-o"], DATA), (["-A", "q"], DATA), (["-t", "z"], DATA),
    (["-Z"], DATA), (["-t", "x1"], bytes(range(40))),
], ids=lambda a: repr(a)[:30])
def test_od_matches_busybox(args, stdin):
    check(["od", *args], stdin, stderr="first")
