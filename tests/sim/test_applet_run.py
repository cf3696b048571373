"""xargs, timeout, env, nice, nohup, usleep, basename, dirname, which, uname: against
busybox's where the host can say (no userland, or files in a container), else as busybox does it."""
from __future__ import annotations

import pytest
from helpers.applet_oracle import check, container_box, in_container, needs_busybox

pytestmark = needs_busybox


@pytest.fixture(scope="module")
def box():
    """The container these cases run in, named web-0 (what uname -n and $HOSTNAME show)."""
    return container_box(hostname="web-0")


@pytest.mark.parametrize(("argv", "stdin"), [
    (["xargs", "echo"], b"a b\nc\n"), (["xargs", "-n1", "echo", "x"], b"a b\nc\n"),
    (["xargs", "-I{}", "echo", "[{}]"], b"a\nb\n"),
    (["xargs", "-0", "-n1", "echo"], b"a\0b c\0"), (["xargs", "echo", "hi"], b""), (["xargs", "-r", "echo", "hi"], b""),
    (["xargs", "-t", "echo"], b"a\n"), (["xargs", "false"], b"a\n"), (["xargs", "-n1"], b"'a b' \"c d\" e\\ f\n"),
    (["xargs"], b"a\n"), (["xargs", "-n", "x"], b"a\n"), (["xargs"], b"'a\n"),
    (["xargs", "-n2", "printf", "%s-%s\n"], b"1 2 3 4\n"),
    (["timeout", "1", "true"], b""), (["timeout", "1", "false"], b""), (["timeout"], b""),
    (["timeout", "x", "true"], b""),
    (["basename", "/a/b/c.txt", ".txt"], b""), (["basename", "/a/b/"], b""), (["basename", "/"], b""),
    (["basename"], b""),
    (["basename", "a.txt", ".txt", "x"], b""), (["basename", "-s", ".c", "a.c", "b.c"], b""),
    (["basename", "-a", "a/b", "c/d"], b""),
    (["basename", ".txt", ".txt"], b""), (["dirname", "/a/b/c"], b""), (["dirname", "a"], b""),
    (["dirname", "/a/"], b""),
    (["dirname", "/"], b""), (["dirname", "a/b", "c/d"], b""), (["dirname", "a//b//"], b""),
    (["usleep"], b""),
    (["usleep", "1"], b""),
    (["uname", "-s"], b""), (["uname"], b""), (["uname", "-p", "-i"], b""), (["uname", "-Z"], b""),
], ids=lambda a: repr(a)[:40])
def test_run_and_names_match_busybox(argv, stdin):
    check(argv, stdin, stderr="first")


def test_timeout_ends_the_program_with_its_signal_after_the_seconds(box):
    from fakecri.sim.applets import APPLET_COMMANDS
    from fakecri.sim.shell import Context, record, spawn
    done = record(spawn(["timeout", "5", "sleep", "10"], Context(commands=APPLET_COMMANDS)), b"")
    assert (done.exit_code, done.end_ns) == (143, 5_000_000_000)
    done = record(spawn(["timeout", "-s", "KILL", "1", "sleep", "infinity"], Context(commands=APPLET_COMMANDS)), b"")
    assert (done.exit_code, done.end_ns) == (137, 1_000_000_000)
    done = record(spawn(["timeout", "5", "sleep", "1"], Context(commands=APPLET_COMMANDS)), b"")
    assert (done.exit_code, done.end_ns) == (0, 1_000_000_000)


def test_env_runs_a_command_with_the_environment_it_makes(box):
    from fakecri.sim.applets import APPLET_COMMANDS
    from fakecri.sim.shell import Context, Input, Io, record
    from fakecri.sim.simulation import INSIDE_COMMANDS
    joined, cid = box
    ctx = Context(userland=lambda: joined.sim.userland_of(cid), commands=INSIDE_COMMANDS)

    def env(*args):  # (the applet itself: the shell takes `env A=1 CMD` apart before any applet sees it)
        done = record(APPLET_COMMANDS["env"](list(args), Io(ctx, Input(empty=True))), b"")
        return "".join(t for _, _, t in done.outputs), done.exit_code
    assert env("-i", "A=1", "env") == ("A=1\n", 0)
    assert env("A=1", "B=2", "printenv", "A", "B") == ("1\n2\n", 0)
    assert env("-u", "HOME", "printenv", "HOME") == ("", 1)
    assert env("-", "sh", "-c", "echo $PATH.") == ("/sbin:/usr/sbin:/bin:/usr/bin.\n", 0)  # (ash's default PATH)
    assert "HOSTNAME=web-0\n" in env()[0]
    assert in_container(*box, ["nice", "-n", "5", "echo", "hi"]) == (b"hi\n", b"", 0)
    assert in_container(*box, ["nohup", "echo", "hi"]) == (b"hi\n", b"", 0)


def test_names_inside_a_container(box):
    assert in_container(*box, ["uname", "-n"]) == (b"web-0\n", b"", 0)
    assert in_container(*box, ["uname", "-a"])[0].startswith(b"Linux web-0 ")
    assert in_container(*box, ["which", "sh", "nope"])[0:3:2] == (b"/bin/sh\n", 1)


def test_uname_is_the_hosts_kernel_where_the_node_reads_the_hosts_proc():
    import platform

    from helpers.core_pods import Joined, Pod

    from fakecri.engine.clock import FakeClock
    from fakecri.server.host.host import LocalHost
    host = LocalHost()
    joined = Joined(FakeClock(), host=host)
    pods = Pod(joined.runtime)
    cid = pods.running(pods.sandbox(hostname="web-1")).id
    try:
        assert in_container(joined, cid, ["uname", "-snrm"]) == (
            f"Linux web-1 {platform.release()} {platform.machine()}\n".encode(), b"", 0)
    finally:
        host.close()
