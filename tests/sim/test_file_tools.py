"""find, cp, mv, mktemp, realpath, rmdir, du and touch -c in a container, against the host's
busybox: the same script (a small tree made first) through fakecri's shell and through
`busybox sh` with busybox's applets on PATH. Lines are compared as sets where busybox walks
a directory in the kernel's readdir order (fakecri lists names sorted: a documented difference).
"""
from __future__ import annotations

import pytest
from helpers.awk_oracle import BUSYBOX
from helpers.shell_oracle import fake_sh, real_sh

from fakecri.sim.recording import record
from fakecri.sim.shell import Context, Input, Io
from fakecri.sim.simulation import INSIDE_COMMANDS
from fakecri.sim.userland import Userland, UserlandSpec

TREE = "mkdir -p d/e; echo x > d/f1; echo yy > d/e/f2; ln -s f1 d/l; touch d/.h; "
SCRIPTS = [
    "find d", "find d/ -name 'f*'", "find d -type d -o -name l", "find d -maxdepth 1 -type f", "find nope; echo $?",
    "find d -empty", "find d -path '*e*'", "find d -name e -prune -o -print", "find . -mindepth 2 -size -1k",
    "find d ! -type d", "find d -perm 644", "find d -perm -u+w", "find d -user root -group 0 -type f",
    "find d -links 1 -type f", "find -L d -type l", "find d -maxdepth 0", "find d -quit", "find d -iname F1",
    "find d -type f -newer d/e/f2", "find d -bogus 2>/dev/null; echo $?",
    "cp nope x; echo $?", "cp d x; echo $?", "cp d/f1 d/e/f2 d/f1; echo $?", "cp d/f1 d/e/f2 zz; echo $?",
    "cp -r d d2; find d2", "cp -a d d3; find d3 -type l", "cp d/f1 d/e; cat d/e/f1", "cp -P d/l ll; find . -type l",
    "cp -r d/l ll; find . -type l", "cp d/l ll; find . -type l", "cp -r d/e .; find e",
    "mv nope x; echo $?", "mv d/f1 g; cat g; find d", "mv d d4; find d4", "mv d/e d/f1; echo $?",
    "mv d/f1 d/e; find d", "rmdir d; echo $?", "rmdir d/f1; rmdir nope; echo $?",
    "mkdir -p a/b/c; rmdir -p a/b/c; echo $?; ls", "touch -c newf; ls", "du -s d", "du d", "du -a d",
    "mktemp -u abcXXX; echo $?", "realpath nope; echo $?",
    "echo a > a; echo b > b; echo n | cp -i a b; cat b; echo y | cp -i a b; cat b",
    "echo a > a; echo b > b; cp -n a b; cat b; echo n | mv -i a b; cat b; ls; mv -n a b; ls",
    "echo a > a; cp -Z a c 2>/dev/null; echo $?; mv -Z a c 2>/dev/null; echo $?",
    "mkdir zz; rm zz; echo $?; rm nope; rm -f nope; echo $?; rm -r zz; ls", "echo a > f; rm f d/f1; ls; ls d",
    "printf abcdef > in; dd if=in of=out bs=2 count=2 2>/dev/null; cat out; dd if=in bs=2 skip=1 count=2 2>/dev/null",
    "printf abcde | dd bs=2 2>&1 >/dev/null | head -n 2; dd if=nope of=x; echo $?; ls",
    "echo 123456 > f; truncate -s 3 f; cat f; truncate -s 5 f; od -c f",
    "truncate -c -s 1 g; truncate -s 2k h; ls; stat -c %s h",
    "truncate -s x d/f1; echo $?; truncate -s 1 d; echo $?; truncate -s 1KB d/f1; wc -c d/f1",
]
# ls: exact output (its order is sorted in busybox too); times are left out (fakecri's clock is not the host's)
LS_TREE = "mkdir -p d/e; echo xxxxx > d/big; echo x > d/f1; touch d/e/f2 d/.h; ln -s f1 d/l; chmod +x d/f1; "
LS_SCRIPTS = [
    "ls d", "ls -a d", "ls -A d", "ls -1 d", "ls -d d", "ls -d d/", "ls -R d", "ls -R", "ls -F d", "ls -p d",
    "ls -S d", "ls -r d", "ls -Sr d", "ls d d/e d/f1", "ls nope d/f1; echo $?", "ls -dF d d/l d/f1",
    "ls -lR d | grep -c total", "ls -Z d 2>/dev/null; echo $?", "ls -l d/e | grep -c f2",
]


@pytest.mark.skipif(BUSYBOX is None, reason="busybox (the oracle) is not installed on this host")
@pytest.mark.parametrize("script", LS_SCRIPTS)
def test_ls_as_busybox(script):
    assert fake_sh(LS_TREE + script) == real_sh(LS_TREE + script)


def test_ls_options_busybox_has_but_fakecri_does_not_model(box):
    assert _run(["ls", "-i", "d"], box) == ("", "ls: -i is not modelled by fakecri\n", 2)


def test_truncate_without_a_size_is_a_usage_error(box):
    assert _run(["truncate", "d/f1"], box) == ("", "Usage: truncate [-c] -s SIZE FILE...\n", 1)
    assert _run(["dd", "if=d/f1", "conv=notrunc"], box) == ("", "dd: conv: not modelled by fakecri\n", 1)


def _lines(result):
    out, err, code = result
    return sorted(out.splitlines()), err, code


@pytest.mark.skipif(BUSYBOX is None, reason="busybox (the oracle) is not installed on this host")
@pytest.mark.parametrize("script", SCRIPTS)
def test_file_tools_as_busybox(script):
    assert _lines(fake_sh(TREE + script)) == _lines(real_sh(TREE + script))


def _run(argv, box):
    io = Io(Context(userland=lambda: box, commands=INSIDE_COMMANDS), Input(empty=True))
    trace = record(INSIDE_COMMANDS[argv[0]](argv[1:], io), b"")
    return ("".join(t for _, s, t in trace.outputs if s == "stdout"),
            "".join(t for _, s, t in trace.outputs if s == "stderr"), trace.exit_code)


@pytest.fixture
def box():
    b = Userland(UserlandSpec(hostname="client", working_dir="/tmp"))
    b.mkdir("/tmp/d/e", parents=True)
    b.write("/tmp/d/f1", b"x\n")
    b.write("/tmp/d/e/f2", b"yy\n")
    return b


def test_find_exec_runs_each_path_or_all_at_once(box):
    assert _run(["find", "d", "-type", "f", "-exec", "echo", "X", "{}", ";"], box) == ("X d/e/f2\nX d/f1\n", "", 0)
    assert _run(["find", "d", "-name", "f*", "-exec", "echo", "P", "{}", "+"], box) == ("P d/e/f2 d/f1\n", "", 0)
    assert _run(["find", "d", "-name", "f1", "-exec", "echo", "a{}b", ";"], box)[0] == "ad/f1b\n"
    assert _run(["find", "d", "(", "-name", "f1", "-o", "-name", "f2", ")", "-print"], box)[0] == "d/e/f2\nd/f1\n"
    assert _run(["find", "d", "-exec", "false", ";", "-print"], box)[0] == ""  # a failed -exec is false


def test_find_delete_and_what_is_not_modelled(box):
    # (-delete is busybox's FEATURE_FIND_DELETE: the host's Debian build leaves it out)
    assert _run(["find", "d", "-type", "f", "-delete"], box) == ("", "", 0)
    assert _run(["find", "d"], box)[0] == "d\nd/e\n"
    assert _run(["find", "d", "-atime", "-1"], box) == ("", "find: -atime is not modelled by fakecri\n", 2)
    assert _run(["touch", "-a", "x"], box) == ("", "touch: -a: not modelled by fakecri\n", 2)


def test_touch_sets_the_time_busybox_parses(box):
    assert _run(["touch", "-d", "2020-01-02 03:04:05", "x"], box) == ("", "", 0)
    assert _run(["stat", "-c", "%Y", "x"], box)[0] == "1577934245\n"
    assert _run(["touch", "-t", "202001020304.06", "-r", "x", "y"], box)[2] == 1  # -r and -t: usage
    assert _run(["touch", "-r", "x", "y"], box)[2] == 0
    assert _run(["stat", "-c", "%Y", "y"], box)[0] == "1577934245\n"
    assert _run(["touch", "-d", "yesterday", "x"], box) == ("", "touch: invalid date 'yesterday'\n", 1)


def test_mktemp_names_are_deterministic_and_free(box):
    first = _run(["mktemp"], box)
    assert first[2] == 0 and first[0].startswith("/tmp/tmp.") and len(first[0]) == len("/tmp/tmp.XXXXXX\n")
    assert box.exists(first[0].strip()) and box.stat(first[0].strip()).mode & 0o777 == 0o600
    again = Userland(UserlandSpec(hostname="client"))
    assert _run(["mktemp"], again) == first  # the same name in a fresh container
    second = _run(["mktemp"], box)
    assert second[0] != first[0]  # the first is taken now
    made = _run(["mktemp", "-d", "-p", "/var", "zzXXXXXX"], box)[0].strip()
    assert made.startswith("/var/zz") and box.is_dir(made)
    assert _run(["mktemp", "bad"], box) == ("", "mktemp: (null): Invalid argument\n", 1)


def test_realpath_follows_links(box):
    box.symlink("d/f1", "/tmp/lnk")
    assert _run(["realpath", "lnk", "d/e"], box) == ("/tmp/d/f1\n/tmp/d/e\n", "", 0)
