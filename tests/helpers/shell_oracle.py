"""One shell script through fakecri's shell in a container and through the host's `busybox sh`."""
from __future__ import annotations

import os
import subprocess
import tempfile

from fakecri.sim.recording import record
from fakecri.sim.shell import Context, spawn
from fakecri.sim.simulation import INSIDE_COMMANDS
from fakecri.sim.userland import Userland, UserlandSpec
from helpers.awk_oracle import BUSYBOX, Result


def fake_sh(script: str) -> Result:
    """(stdout, stderr, exit code) of `sh -c script` in a container, its working directory /tmp (empty)."""
    box = Userland(UserlandSpec(hostname="client", working_dir="/tmp"))
    trace = record(spawn(["sh", "-c", script], Context(userland=lambda: box, commands=INSIDE_COMMANDS)), b"")
    out = "".join(t for _, s, t in trace.outputs if s == "stdout")
    err = "".join(t for _, s, t in trace.outputs if s == "stderr")
    return out, err, trace.exit_code


APPLETS = ("find cp mv ls mkdir ln echo cat rm rmdir du touch mktemp realpath chmod sort head wc awk printf "
           "test [ true false sh".split())


def real_sh(script: str) -> Result:
    """The same through busybox's sh, its applets (not the host's tools) first on PATH, in a fresh directory."""
    assert BUSYBOX is not None
    with tempfile.TemporaryDirectory() as d:
        bin_dir, work = os.path.join(d, "bin"), os.path.join(d, "w")
        os.mkdir(bin_dir)
        os.mkdir(work)
        for name in APPLETS:
            os.symlink(BUSYBOX, os.path.join(bin_dir, name))
        p = subprocess.run([BUSYBOX, "sh", "-c", script], capture_output=True, cwd=work, timeout=10,
                           env={"PATH": bin_dir, "HOME": "/root"})
        return p.stdout.decode(), p.stderr.decode(), p.returncode
