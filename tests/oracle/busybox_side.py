"""The oracle: the host's real busybox, run in a small root shaped like fakecri's busybox image.

As root (CI, this machine) a script runs as `chroot ROOT sh -c SCRIPT` inside its own UTS and
mount namespaces (so `hostname` answers the pod's name and ROOT/proc is a proc of its own),
with the container's environment and nothing else, the container's supplementary groups,
stdin from /dev/null, umask 022. ROOT holds the static busybox with one hard
link per applet in /bin (the busybox image's layout), the image's /etc/passwd and
/etc/group, the /etc/hosts, /etc/hostname and /etc/resolv.conf that the container sees,
and empty /dev (null, zero, tty... as device nodes), /home, /proc, /root, /sys, /tmp (1777),
/usr, /var.

Not root: the fallback is `busybox sh -c SCRIPT` on the host with PATH holding only a
directory of applet links, from a scratch directory; /etc is the host's there and the
hostname is the host's and the umask the caller's (FALLBACK_DIFFERENCES in differences.py
says so).

No preexec hook: the child is spawned (not forked by Python code), which gRPC's threads in the
same process need.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

BUSYBOX = Path("/usr/bin/busybox")

# The environment a container of fakecri's busybox image gets (an exec inherits it).
CONTAINER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

_DEVICES = {"null": (1, 3), "zero": (1, 5), "full": (1, 7), "random": (1, 8), "urandom": (1, 9), "tty": (5, 0)}
# Run by the host's /bin/sh in fresh UTS and mount namespaces: name the host as the pod is
# named, mount a /proc of its own in the root (busybox's shell re-executes itself through
# /proc/self/exe, e.g. for a script without #!), then become the exec'd `sh -c SCRIPT` with the
# container's supplementary groups, and without the PWD and OLDPWD the host shell exported.
_SETUP = (
    'bb=$1 name=$2 root=$3 chroot=$4 groups=$5 script=$6; '
    '"$bb" hostname "$name" && "$bb" mount -t proc proc "$root/proc" && umask 022 && cd / && '
    'exec "$chroot" --groups="$groups" "$root" /bin/env -u PWD -u OLDPWD sh -c "$script"'
)
_DIRS = ("bin", "dev", "etc", "home", "proc", "root", "sys", "tmp", "usr", "var")


@dataclass(frozen=True, slots=True)
class Result:
    """What one run of a script gave."""

    stdout: str
    stderr: str
    rc: int


def available() -> bool:
    return BUSYBOX.is_file() and os.access(BUSYBOX, os.X_OK)


def applets() -> list[str]:
    out = subprocess.run([str(BUSYBOX), "--list"], capture_output=True, text=True, check=True).stdout
    return [name for name in out.split() if name and "/" not in name]


def supplementary_groups(group_file: str, user: str, gid: int) -> list[int]:
    """The groups a container's process of `user` has: its own gid and each group of the image's
    /etc/group that lists the user (as containerd sets them)."""
    gids = [gid]
    for line in group_file.splitlines():
        fields = line.split(":")
        if len(fields) >= 4 and user in fields[3].split(",") and fields[2].isdigit():
            if int(fields[2]) not in gids:
                gids.append(int(fields[2]))
    return gids


def _chroot_possible() -> bool:
    return os.geteuid() == 0 and shutil.which("chroot") is not None and shutil.which("unshare") is not None


class BusyboxSide:
    """Runs scripts through the real busybox. `files` are the container's /etc files
    (name -> content) to lay in the root; `env` the container's environment."""

    def __init__(self, files: dict[str, str], env: dict[str, str], hostname: str) -> None:
        self.env = dict(env)
        self.hostname = hostname
        self.base = Path(tempfile.mkdtemp(prefix="fakecri-oracle-"))
        self.chroot = _chroot_possible()
        self.unshare = shutil.which("unshare") or "unshare"
        self.chroot_bin = shutil.which("chroot") or "chroot"
        self.groups = supplementary_groups(files.get("group", ""), "root", 0)
        if self.chroot:
            self.root = self.base / "root"
            self._build_root(files)
        else:
            self.root = self.base
            self._build_fallback()

    # -- building ----------------------------------------------------------------------------
    def _build_root(self, files: dict[str, str]) -> None:
        root = self.root
        for name in _DIRS:
            (root / name).mkdir(parents=True, exist_ok=True)
        os.chmod(root / "tmp", 0o1777)
        for name in ("spool/mail", "www"):
            (root / "var" / name).mkdir(parents=True, exist_ok=True)
        binary = root / "bin" / "busybox"
        shutil.copy2(BUSYBOX, binary)
        os.chmod(binary, 0o755)
        for applet in applets():
            if applet == "busybox":
                continue
            target = root / "bin" / applet
            try:
                os.link(binary, target)
            except OSError:
                target.symlink_to("busybox")
        for name, content in files.items():
            (root / "etc" / name).write_text(content)
        for name, (major, minor) in _DEVICES.items():
            try:
                os.mknod(root / "dev" / name, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
                os.chmod(root / "dev" / name, 0o666)
            except OSError:
                pass  # a sandbox that forbids mknod: scripts that write to /dev/null then differ

    def _build_fallback(self) -> None:
        links = self.base / "applets"
        links.mkdir()
        for applet in applets():
            (links / applet).symlink_to(BUSYBOX)
        (self.base / "tmp").mkdir()
        self.env["PATH"] = str(links)

    # -- running -----------------------------------------------------------------------------
    def scratch_parent(self) -> str:
        """Where a script's fresh directory goes, as the script names it."""
        return "/tmp" if self.chroot else str(self.base / "tmp")

    def _argv(self, script: str) -> tuple[list[str], str]:
        if self.chroot:
            return [self.unshare, "--uts", "--mount", "--", "/bin/sh", "-c", _SETUP, "oracle-setup", str(BUSYBOX),
                    self.hostname, str(self.root), self.chroot_bin, ",".join(map(str, self.groups)), script], "/"
        return [str(BUSYBOX), "sh", "-c", script], str(self.base)

    def run_stopped(self, script: str, after_s: float, grace_s: float) -> Result:
        """`script` in the background, stopped as a runtime stops a container: SIGTERM to the
        shell `after_s` seconds after its start (the setup before it execs itself into the
        shell), SIGKILL `grace_s` later if it still runs. What it left running (a `sleep &`
        that outlived it) is killed with its session."""
        argv, cwd = self._argv(script)
        proc = subprocess.Popen(argv, env=self.env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
        try:  # (its output is a few lines: the pipes hold it until the end)
            try:
                proc.wait(timeout=after_s)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=grace_s)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        finally:
            with contextlib.suppress(OSError):  # its jobs hold the pipes open
                os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        rc = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        return Result(out.decode(errors="replace"), err.decode(errors="replace"), rc)

    def run(self, script: str, timeout: float = 10.0) -> Result:
        if self.chroot:
            argv = [self.unshare, "--uts", "--mount", "--", "/bin/sh", "-c", _SETUP, "oracle-setup", str(BUSYBOX),
                    self.hostname, str(self.root), self.chroot_bin, ",".join(map(str, self.groups)), script]
            cwd = "/"
        else:
            argv = [str(BUSYBOX), "sh", "-c", script]
            cwd = str(self.base)
        try:
            done = subprocess.run(argv, env=self.env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else ""
            return Result(out, "oracle: timed out", -1)
        rc = done.returncode if done.returncode >= 0 else 128 - done.returncode  # killed: as a shell reports it
        return Result(done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace"), rc)

    def close(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)
