"""agnhost mounttest in a container of the agnhost image, and container commands that look at
their files after their start (they see the files as they are then). No gRPC; host files
are real (LocalHost over tmp_path), time is the fake clock's."""
from __future__ import annotations

import os

import pytest
from helpers.core_pods import Joined

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.records import ContainerState
from fakecri.server.codec import decode
from fakecri.server.host.host import LocalHost
from fakecri.sim.userland.fs import MAGIC, go_mode_string

AGNHOST = "registry.k8s.io/e2e-test-images/agnhost:2.63"


@pytest.fixture
def joined(clock):
    host = LocalHost()
    j = Joined(clock, host=host)
    j.runtime.images.pull(AGNHOST)
    yield j
    host.close()


@pytest.fixture
def container(pods, joined, tmp_path):
    """container(args, command=(), image=AGNHOST, uid=None) -> (record, log lines so far as a function);
    tmp_path is mounted at /test-volume."""
    def make(args=(), command=(), image=AGNHOST, uid=None, readonly=False):
        ctx = pb.LinuxContainerSecurityContext()
        if uid is not None:
            ctx.run_as_user.value = uid
        cfg = pb.ContainerConfig(linux=pb.LinuxContainerConfig(security_context=ctx))
        cfg.mounts.add(container_path="/test-volume", host_path=str(tmp_path), readonly=readonly)
        c = pods.running(pods.sandbox(), image=image, command=tuple(command), args=tuple(args),
                         spec=decode.container_spec(cfg))
        joined.tick()
        return c, lambda: joined.log.lines(c.log_path)
    return make


def state(joined, c):
    got = joined.runtime.get_container(c.id)
    return ContainerState(got.state).name, got.exit_code


def test_checks_print_in_mounttests_order(container, joined, tmp_path):
    (tmp_path / "old").write_text("old content")
    c, lines = container(["mounttest", "--fs_type=/test-volume", "--new_file_0660=/test-volume/new",
                          "--file_perm=/test-volume/new", "--file_mode", "/test-volume",
                          "--file_owner=/test-volume/old", "--file_content=/test-volume/old"])
    fs = LocalHost().statfs(str(tmp_path))
    fs_type = "tmpfs" if fs.fs_type == "tmpfs" else str(MAGIC[fs.fs_type])
    mode = go_mode_string("dir", os.stat(tmp_path).st_mode & 0o7777)
    assert lines() == [
        f'mount type of "/test-volume": {fs_type}',
        'content of file "/test-volume/new": mount-tester new file', "",
        f'mode of file "/test-volume": {mode}',
        'perms of file "/test-volume/new": -rw-rw----',
        f'owner UID of "/test-volume/old": {os.getuid()}', f'owner GID of "/test-volume/old": {os.getgid()}',
        'content of file "/test-volume/old": old content']
    assert (tmp_path / "new").read_text() == "mount-tester new file\n"
    assert os.stat(tmp_path / "new").st_mode & 0o777 == 0o660
    assert state(joined, c) == ("EXITED", 0)


def test_failures_are_printed_as_go_prints_them_and_exit_1(container, joined, tmp_path):
    c, lines = container(["mounttest", "--file_content=/test-volume/missing", "--file_mode=/nope",
                          "--fs_type=/nope", "--file_owner=/nope"])
    assert lines() == [
        'error from statfs("/nope"): no such file or directory',
        'error from Stat("/nope"): stat /nope: no such file or directory',
        'error from stat("/nope"): no such file or directory',
        'error reading file content for "/test-volume/missing": open /test-volume/missing: no such file or directory']
    assert state(joined, c) == ("EXITED", 1)
    ro, ro_lines = container(["mounttest", "--new_file_0644=/test-volume/x"], readonly=True)
    assert ro_lines() == ['error writing new file "/test-volume/x": open /test-volume/x: read-only file system']
    assert state(joined, ro) == ("EXITED", 1)


def test_a_bad_command_line_fails_as_cobra_does(container, joined):
    c, lines = container(["mounttest", "--no-such-flag"])
    assert lines()[-1] == "Error: unknown flag: --no-such-flag" and lines()[0] == "Usage:"
    assert state(joined, c) == ("EXITED", 1)
    c, lines = container(["mounttest", "extra"])
    assert lines() == ["Error: accepts at most 0 arg(s), received 1"]
    c, lines = container(["mounttest", "--retry_time=soon"])
    assert 'invalid argument "soon" for "--retry_time" flag' in lines()[-1]


def test_the_loop_sees_updates_and_ends_after_retry_time(container, joined, tmp_path):
    (tmp_path / "data").write_text("value-1")
    c, lines = container(["mounttest", "--break_on_expected_content=false", "--retry_time=10",
                          "--file_content_in_loop=/test-volume/data"])
    assert lines() == ['content of file "/test-volume/data": value-1']
    joined.advance(2)
    (tmp_path / "data").write_text("value-2")
    joined.advance(2)
    assert lines()[-2:] == ['content of file "/test-volume/data": value-1',
                            'content of file "/test-volume/data": value-2']
    os.remove(tmp_path / "data")
    joined.advance(2)
    assert lines()[-1] == ("Error reading file /test-volume/data: open /test-volume/data: no such file or directory, "
                           "retrying")
    assert state(joined, c)[0] == "RUNNING"
    (tmp_path / "data").write_text("value-3")
    for _ in range(4):
        joined.advance(1)
    assert state(joined, c) == ("EXITED", 0)  # at 10 s; its last read worked
    assert len(lines()) == 5 and lines()[-1] == 'content of file "/test-volume/data": value-3'


def test_the_loop_waits_for_the_new_file_content(container, joined, tmp_path):
    writer, _ = container(["mounttest", "--new_file_0644=/test-volume/test-file"], uid=0)
    c, lines = container(["mounttest", "--file_content_in_loop=/test-volume/test-file", "--retry_time=180"])
    assert lines() == ['content of file "/test-volume/test-file": mount-tester new file', ""]
    assert state(joined, c) == ("EXITED", 0)
    (tmp_path / "other").write_text("other")
    c, lines = container(["mounttest", "--file_content_in_loop=/test-volume/other", "--retry_time=4"])
    joined.advance(4)
    assert lines() == ['content of file "/test-volume/other": other',
                       "Unexpected content. Expected: mount-tester new file", ". Retrying"] * 2
    assert state(joined, c) == ("EXITED", 0)


def test_other_agnhost_programs_run_until_stopped(container, joined):
    c, _ = container(["netexec", "--http-port=8080"])
    joined.advance(60)
    assert state(joined, c)[0] == "RUNNING"


def test_a_busybox_loop_sees_the_file_as_it_is_at_each_moment(container, joined, tmp_path, short_traces):
    (tmp_path / "f").write_text("one\n")
    c, lines = container(command=["sh", "-c", "cat /test-volume/f; sleep 5; cat /test-volume/f; ls /test-volume"],
                         image="busybox")
    (tmp_path / "f").write_text("two\n")
    (tmp_path / "g").write_text("")
    joined.advance(5)
    assert lines() == ["one", "two", "f", "g"]
    assert state(joined, c) == ("EXITED", 0)
    c, lines = container(command=["sh", "-c", "while [ ! -e /test-volume/ready ]; do sleep 1; done; echo ready"],
                         image="busybox")
    joined.advance(3)
    assert lines() == [] and state(joined, c)[0] == "RUNNING"
    (tmp_path / "ready").write_text("")
    joined.advance(1)
    assert lines() == ["ready"] and state(joined, c) == ("EXITED", 0)
