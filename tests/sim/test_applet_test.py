"""test and [ against busybox's, on files in a container's userland (ExecSync, no gRPC)."""
from __future__ import annotations

import pytest
from helpers.applet_oracle import check_files, needs_busybox

pytestmark = needs_busybox
FILES = {"f": b"x", "e": b""}
CASES = [["-z", ""], ["-n", ""], ["a", "=", "a"], ["a", "!=", "b"], ["1", "-eq", "01"], ["2", "-lt", "10"],
         ["a", "-lt", "1"], ["-e", "f"], ["-f", "f"], ["-s", "e"], ["-s", "f"], ["-d", "."], ["!", "-e", "nope"],
         ["-e", "f", "-a", "-e", "nope"], ["-e", "f", "-o", "-e", "nope"], ["(", "a", "=", "a", ")"],
         ["!", "(", "a", "=", "b", ")"], [], ["x"], ["-x"], ["1", "-gt"], ["1", "-foo", "2"], ["a", "b"], ["-r", "f"],
         ["-w", "f"], ["-x", "f"], ["-L", "f"], ["-h", "f"], ["a", "<", "b"], ["-e"], ["1", "-ge", "1"], ["=", "="],
         ["!", ""], ["-z", "a", "-o", "-n", "a"], ["a", "-a", ""], ["(", "a"], ["-f", "."], ["f", "-ef", "f"],
         ["-n", "=", "x"], [" 3 ", "-eq", "3"]]


@pytest.mark.parametrize("args", CASES, ids=" ".join)
def test_test_matches_busybox(box, args):
    check_files(*box, ["test", *args], b"", FILES)
    check_files(*box, ["[", *args, "]"], b"", FILES)


def test_a_bracket_without_its_end_is_an_error(box):
    check_files(*box, ["[", "a", "=", "a"], b"", FILES)
