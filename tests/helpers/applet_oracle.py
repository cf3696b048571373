"""Differential runs of one applet invocation: through fakecri and through the host's
`/usr/bin/busybox APPLET ...`, compared on stdout, exit code and (where stable) stderr.

`fake(argv, stdin)` runs fakecri's applet with no userland (standard input only);
`inside(exec_sync, argv, stdin, files)` runs it in a container (files written into its
userland first); `real(argv, stdin, files)` runs busybox in a temporary directory holding
`files`. Paths in `argv` are relative, so both sides see the same names.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping

import pytest

from fakecri.sim.applets import APPLET_COMMANDS
from fakecri.sim.shell import Context, record, spawn

BUSYBOX = "/usr/bin/busybox"
needs_busybox = pytest.mark.skipif(not os.path.exists(BUSYBOX),
                                   reason="no /usr/bin/busybox on this host to compare with")
Result = tuple[bytes, bytes, int]


def fake(argv: list[str], stdin: bytes = b"") -> Result:
    done = record(spawn(argv, Context(commands=APPLET_COMMANDS)), stdin)
    out = b"".join(t.encode("utf-8", "surrogateescape") for _, s, t in done.outputs if s == "stdout")
    err = b"".join(t.encode("utf-8", "surrogateescape") for _, s, t in done.outputs if s == "stderr")
    return out, err, done.exit_code if done.exit_code is not None else -1


def _sets_the_clock(argv: list[str]) -> bool:
    """Whether busybox would take `argv` (a `date` command line) as a time to set: as root on this
    host it would set the system clock, which these tests must never do."""
    args = argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-d", "-D", "--date") or (len(a) > 1 and a[0] == "-" and a[1] != "-" and a[-1] in "dD"):
            i += 2
            continue
        if a.startswith("-s") or a.startswith("--set") or not (a.startswith("-") or a.startswith("+")):
            return True
        i += 1
    return False


def real(argv: list[str], stdin: bytes = b"", files: Mapping[str, bytes] | None = None,
         env: Mapping[str, str] | None = None) -> Result:
    if argv[:1] == ["date"] and _sets_the_clock(argv):
        raise AssertionError(f"refusing to run {argv} on the host: busybox would set the clock")
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in (files or {}).items():
            path = os.path.join(tmp, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        p = subprocess.run([BUSYBOX, *argv], input=stdin, capture_output=True, cwd=tmp, timeout=10,
                           env={"PATH": "/usr/bin:/bin", "TZ": "UTC", "LC_ALL": "C", **(env or {})})
        return p.stdout, p.stderr, p.returncode


def first_line(err: bytes) -> bytes:
    return err.split(b"\n", 1)[0]


def check(argv: list[str], stdin: bytes = b"", *, stderr: str = "all") -> None:
    """fakecri's `argv` (no userland) against busybox's: stdout and exit code the same, and stderr
    (`stderr`: "all", "first" line, or "none")."""
    assert_same(fake(argv, stdin), real(argv, stdin), stderr)


def assert_same(got: Result, want: Result, stderr: str = "all") -> None:
    if stderr == "first":
        got, want = (got[0], first_line(got[1]), got[2]), (want[0], first_line(want[1]), want[2])
    elif stderr == "none":
        got, want = (got[0], b"", got[2]), (want[0], b"", want[2])
    assert got == want


def container_box(**sandbox):
    """(joined, container id): an engine on a fake clock with one running container, which
    `in_container` and `check_files` run in; `sandbox` sets the sandbox (its hostname, ...)."""
    from fakecri.engine.clock import FakeClock
    from helpers.core_pods import Joined, Pod
    joined = Joined(FakeClock())
    pods = Pod(joined.runtime)
    return joined, pods.running(pods.sandbox(**sandbox)).id


def in_container(joined, cid: str, argv: list[str], stdin: bytes = b"",
                 files: Mapping[str, bytes] | None = None) -> Result:
    """fakecri's `argv` run by ExecSync in container `cid` (of `joined`), after writing `files`
    (relative names: under its working directory) into its userland; the files are removed after."""
    world = joined.sim.userland_of(cid)
    for name, data in (files or {}).items():
        if "/" in name:
            world.mkdir(name.rsplit("/", 1)[0], parents=True)
        world.write(name, data)
    try:
        r = joined.exec_sync(cid, argv, 5, stdin)
        return r.stdout, r.stderr, r.exit_code
    finally:
        for name in files or {}:
            top = name.split("/", 1)[0]
            if world.lexists(top):
                world.remove(top, recursive=True)


def check_files(joined, cid: str, argv: list[str], stdin: bytes = b"", files: Mapping[str, bytes] | None = None,
                *, stderr: str = "all") -> None:
    """As `check`, with `files` in the container's working directory and busybox's."""
    assert_same(in_container(joined, cid, argv, stdin, files), real(argv, stdin, files), stderr)
