"""printf against busybox's (no gRPC, no userland)."""
from __future__ import annotations

import pytest
from helpers.applet_oracle import check, needs_busybox

pytestmark = needs_busybox

CASES = [
    ["printf", "%d|%5.2f|%-4s|%x|%o|%c|%e|%g|%X|%i|%u\n", "42", "3.14159", "ab", "255", "8", "hello", "1234.5",
     "0.0001", "255", "-3", "-1"],
    ["printf", "%s-%s\n", "a", "b", "c"],
    ["printf", "%d\n", "12abc", "", "0x1f", "010", "-0x10", " 5", "5 ", "+5", "'a", '"b', "'"],
    ["printf", "%b|\n", "a\\tb", "\\0101", "\\101", "\\x4", "\\e", "a\\0b", "x\\cy", "z"],
    ["printf", "\\e\\a\\x\\xZ\\8\\1234\\q\\0101\\\\\\\"|\\c after"],
    ["printf", "%*d|%.*s|%*s|\n", "5", "3", "2", "abcdef", "-4", "a"],
    ["printf", "%5%|\n"], ["printf", "%q"], ["printf", "a %a\n", "1"], ["printf", "%d %s|\n"],
    ["printf", "%.3d|%-+5d|%5s|%.1s|%#x|%#o|% d|%05d|%5.3x\n", "7", "3", "abc", "xyz", "255", "8", "5", "42", "10"],
    ["printf", "%f|%f|%f|%f|%f\n", "1e400", "abc", "0x10", "inf", " 2"],
    ["printf", "%g %g %G %e %E %.2f %5.1e\n", "100000", "1000000", "1e-5", "0", "12", "2.345", "12345"],
    ["printf", "%x %o %d\n", "-1", "-1", "99999999999999999999"],
    ["printf", "%5c|%c|%s\n", "xyz", "", "caf\u00e9"], ["printf", "%5s|\n", "\u00e9"],
    ["printf", "%s\n", "--", "x"], ["printf", "--", "%s\n", "x"], ["printf", "no newline"],
    ["printf", "%ld %hd %lld %zd\n", "1", "2", "3", "4"], ["printf", "a\\"], ["printf", "%s"],
]


@pytest.mark.parametrize("argv", CASES, ids=lambda a: " ".join(a[1:])[:40])
def test_printf_matches_busybox(argv):
    check(argv)


def test_printf_without_a_format_is_a_usage_error():
    check(["printf"], stderr="none")


def test_in_a_shell_printf_is_ashs_builtin_and_its_errors_say_so():
    check(["sh", "-c", "printf '%d|\\n' x 5; printf '%q' || echo failed"])
