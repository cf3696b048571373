"""sed against busybox's (no gRPC, no userland: scripts on standard input)."""
from __future__ import annotations

import pytest
from helpers.applet_oracle import check, needs_busybox

pytestmark = needs_busybox

L3 = b"1\n2\n3\n"
CASES = [
    (["s/b/c/"], b"a\nb"), (["N;N;N;s/\\n/,/g"], L3), (["$!N;s/\\n/,/"], L3), (["a\\  foo"], b"1\n2\n"),
    (["a  foo\\nbar"], b"1\n2\n"), (["1i\\\nhello\\\nworld"], b"1\n2\n"), (["-n", "2{p;p}"], L3),
    (["1,+1d"], b"1\n2\n3\n4\n"), (["2,1p"], L3), (["n;d"], b"x\n"), (["s/l/L/2"], b"hello\n"),
    (["s/L/x/Ig"], b"hello\n"), (["-E", "s/(h)(e)/\\2\\1/"], b"hello\n"), (["s/\\(a\\)\\|b/[\\1]/g"], b"ab\n"),
    (["y/ab/xy/"], b"ab\n"), (["="], b"ab\n"), (["s/x*/-/g"], b"ab\n"), (["-n", "$="], b"1\n2\n"),
    (["$a end"], b"1\n2\n"), (["1c\\\nchanged"], b"1\n2\n"), (["1,2c X"], L3), (["-n", "/1/,/2/{=;p}"], b"1\n2\n"),
    (["s/a/\\n/"], b"a\n"), (["s|\\.|/|"], b"a.b\n"), (["s/a/b/2g"], b"aaa\n"), (["s/a/&&\\&/"], b"a\n"),
    (["-e", "s/a/x/", "-e", "s/b/y/"], b"ab\n"), (["1!G;h;$!d"], b"a\nb\n"), (["a\\"], b"1\n2\n"),
    (["1d;s/2/X/;"], b"1\n2\n"), (["s/ /\\\n/"], b"a b\n"), (["/1/ !d"], b"1\n2\n"), (["2 {s/2/x/}"], b"1\n2\n"),
    (["s/x/a\\tb/"], b"x\n"), (["bfoo"], b"x\n"), ([":a;N;$!ba;s/\\n/+/g"], b"x\ny\n"), (["s/x/-/I"], b"aXb\n"),
    (["-n", "/A/Ip"], b"ab\n"), (["s/a/b"], b"ab\n"), (["k"], b"ab\n"), (["/a/,/b/"], b"ab\n"),
    (["s/a/\\x41/"], b"a\n"), (["-n", "2{n;p}"], L3), (["$!N"], b"1\n"), (["n;n;s/./X/"], b"1\n2\n3\n4\n"),
    (["-e", "a\\", "-e", "foo"], b"a\n"), (["s/\\(a\\)/\\2/"], b"a\n"), (["i\\"], b"a\n"), (["p"], b"x"),
    (["a foo"], b"x"), (["$!d"], b"x"), (["2q"], L3), (["q5"], L3), (["2Q"], L3), (["1~2d"], L3),
    (["-n", "/2/,$p"], L3), (["/2/,/nothing/d"], b"1\n2\n3\n"), (["s/[0-9]\\{2\\}/<&>/g"], b"1 22 333\n"),
    (["-r", "s/[0-9]{2}/<&>/g"], b"1 22 333\n"), (["-E", "s/(a|b)+/X/"], b"xaabbx\n"),
    (["s/^[[:space:]]*//"], b"  \tx\n"),
    (["s/\\s\\+$//"], b"x  \n"), (["s/\\<./X/"], b"ab cd\n"), (["-n", "s/a/b/p"], b"a\nc\n"),
    (["/^#/d;/^$/d"], b"# c\n\nx\n"), (["s/=.*//"], b"KEY=value\n"), (["-n", "h;n;G;p"], b"1\n2\n3\n4\n"),
    (["s,/,_,g"], b"/a/b\n"), (["x;$!d;x"], L3), (["D"], b"a\nb\n"), (["N;P;D"], L3), (["$!{N};P;D"], L3),
    (["/1/b end;s/./X/;:end"], b"1\n2\n"), (["s/1/X/;t;s/./Y/"], b"1\n2\n"), (["s/1/X/;T;s/./Y/"], b"1\n2\n"),
    (["-n", "1!p"], L3), (["2!{s/./X/}"], L3), (["-n", "\\,2,p"], L3), (["-n", "/[/p"], L3), (["s/a/b/q"], b"a\n"),
    (["-E", "s/a{2}/X/"], b"aaa\n"), (["s/a\\{2,\\}/X/"], b"aaaa\n"), (["s/.*/\"&\"/"], b"x y\n"),
    (["--expression=s/a/b/"], b"a\n"), (["--bogus"], b"a\n"), (["-Z", "p"], b"a\n"),
]


@pytest.mark.parametrize(("args", "stdin"), CASES, ids=lambda a: repr(a)[:40])
def test_sed_matches_busybox(args, stdin):
    check(["sed", *args], stdin, stderr="first")


def test_sed_without_a_script_is_a_usage_error():
    check(["sed"], b"x\n", stderr="none")
