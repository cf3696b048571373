"""md5sum, sha*sum and base64 against busybox's (files in a container's userland, and stdin)."""
from __future__ import annotations

import pytest
from helpers.applet_oracle import check, check_files, needs_busybox

pytestmark = needs_busybox

FILES = {"w1": b"a b\nc\n", "w2": b"x"}


@pytest.mark.parametrize("argv", [
    ["md5sum", "w1", "nope"], ["sha1sum", "w1"], ["sha512sum", "w1", "w2"], ["md5sum", "-", "w2"],
    ["sh", "-c", "sha256sum w1 w2 > sums; sha256sum -c sums; echo $?; sha256sum -c -s sums; echo $?; rm sums"],
    ["sh", "-c", "echo 'bad  w1' > s; sha256sum -c s; echo $?; rm s"], ["base64", "w1"],
], ids=" ".join)
def test_sums_on_files_match_busybox(box, argv):
    check_files(*box, argv, b"stdin", FILES)


def test_an_unknown_option_is_refused_with_the_usage():
    check(["md5sum", "-Z"], stderr="first")


@pytest.mark.parametrize(("argv", "stdin"), [
    (["md5sum"], b"abc"), (["base64"], b"hello"), (["base64", "-d"], b"aGVsbG8="), (["base64", "-d"], b"aGVsbG8"),
    (["base64", "-d"], b"!!"), (["base64"], b"\0" * 100), (["base64", "-w", "20"], b"\0" * 100),
    (["base64", "-w0"], b"ab"),
    (["base64"], b""), (["base64", "-d"], b"aGk=\n"), (["base64", "-d"], b"YQ=="), (["md5sum", "-c"], b"garbage\n"),
])
def test_sums_on_stdin_match_busybox(argv, stdin):
    check(argv, stdin, stderr="first")
