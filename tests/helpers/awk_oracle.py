"""Running one awk invocation through fakecri's awk and through the host's busybox (the oracle)."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from fakecri.sim.applets.awk import awk
from fakecri.sim.recording import record
from fakecri.sim.shell import Context, Input, Io
from fakecri.sim.simulation import INSIDE_COMMANDS
from fakecri.sim.userland import Userland, UserlandSpec

BUSYBOX = shutil.which("busybox") or ("/usr/bin/busybox" if os.path.exists("/usr/bin/busybox") else None)
Result = tuple[str, str, int]


def fake(args: list[str], stdin: str = "", files: dict[str, str] | None = None) -> Result:
    """(stdout, stderr, exit code) of fakecri's awk, in a container whose working directory is /tmp."""
    box = Userland(UserlandSpec(hostname="client", working_dir="/tmp"))
    for name, text in (files or {}).items():
        box.write(f"/tmp/{name}", text.encode())
    data = stdin.encode()
    io = Io(Context(userland=lambda: box, commands=INSIDE_COMMANDS), Input(data, empty=True))
    trace = record(awk(args, io), data)
    out = "".join(t for _, s, t in trace.outputs if s == "stdout")
    err = "".join(t for _, s, t in trace.outputs if s == "stderr")
    return out, err, trace.exit_code


def real(args: list[str], stdin: str = "", files: dict[str, str] | None = None) -> Result:
    """The same through `busybox awk` on the host, in a fresh directory holding `files`."""
    assert BUSYBOX is not None
    with tempfile.TemporaryDirectory() as d:
        for name, text in (files or {}).items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        p = subprocess.run([BUSYBOX, "awk", *args], input=stdin.encode(), capture_output=True, cwd=d, timeout=10,
                           env={"PATH": "/usr/bin:/bin", "HOME": "/root", "HOSTNAME": "client"})
        return p.stdout.decode("utf-8", "surrogateescape"), p.stderr.decode("utf-8", "surrogateescape"), p.returncode
