"""Mount propagation and mounts made inside a container, in the simulated userland (no gRPC).

The containers reach the real host (LocalHost) but for its mount table, which is replaced
by a table the test sets, so no test needs root."""
from __future__ import annotations

import os

import pytest
from helpers.core_pods import Joined

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.server.codec import decode
from fakecri.server.host.host import LocalHost
from fakecri.server.host.host_mounts import HostMounts, parse_mountinfo, parse_mountinfo_entries


class TableHost(LocalHost):
    """The real host, but with the mount points the test says are mounted; counts who asked."""

    def __init__(self) -> None:
        super().__init__()
        self.points: frozenset[str] = frozenset({"/"})
        self.asked = 0

    def mount_points(self) -> frozenset[str]:
        self.asked += 1
        return self.points

    def mount(self, point: str) -> None:
        self.points = self.points | {point}


@pytest.fixture
def host():
    h = TableHost()
    yield h
    h.close()


@pytest.fixture
def joined(clock, host):
    return Joined(clock, host=host)


@pytest.fixture
def volume(tmp_path):
    """A host directory with a directory that the host later mounts over, and one file."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "file").write_text("on the host\n")
    return tmp_path


def start(pods, joined, volume, propagation, *, privileged=True):
    table = joined.sim.host
    table.points = frozenset({"/", str(volume)})
    cfg = pb.ContainerConfig(linux=pb.LinuxContainerConfig(
        security_context=pb.LinuxContainerSecurityContext(privileged=privileged)))
    cfg.mounts.add(container_path="/vol", host_path=str(volume), propagation=propagation)
    c = pods.running(pods.sandbox(), spec=decode.container_spec(cfg))

    def run(*argv: str):
        r = joined.exec_sync(c.id, list(argv), 5)
        return r.stdout.decode(), r.stderr.decode(), r.exit_code
    return run, table


def host_mounts_over(volume, table):
    """The host mounts something over `sub` after the container started (its content: what the
    host directory now shows)."""
    (volume / "sub" / "flagFile").write_text("")
    table.mount(str(volume / "sub"))


def test_a_private_mount_does_not_see_what_the_host_mounts_later(pods, joined, volume):
    run, table = start(pods, joined, volume, pb.MountPropagation.PROPAGATION_PRIVATE)
    host_mounts_over(volume, table)
    assert run("ls", "-A", "/vol/sub") == ("", "", 0)  # the directory underneath, empty
    assert run("cat", "/vol/sub/flagFile")[2] == 1
    assert run("test", "-d", "/vol/sub")[2] == 0
    assert run("cat", "/vol/file") == ("on the host\n", "", 0)  # the rest of the mount is live


@pytest.mark.parametrize("propagation", [pb.MountPropagation.PROPAGATION_HOST_TO_CONTAINER,
                                         pb.MountPropagation.PROPAGATION_BIDIRECTIONAL])
def test_slave_and_shared_mounts_see_what_the_host_mounts_later(pods, joined, volume, propagation):
    run, table = start(pods, joined, volume, propagation)
    host_mounts_over(volume, table)
    assert run("ls", "-A", "/vol/sub") == ("flagFile\n", "", 0)


def test_a_mount_already_there_at_start_is_seen(pods, joined, volume):
    run, table = start(pods, joined, volume, pb.MountPropagation.PROPAGATION_PRIVATE)
    (volume / "sub" / "early").write_text("")
    table.mount(str(volume / "sub"))
    cfg = pb.ContainerConfig()  # a second container started after that mount
    cfg.mounts.add(container_path="/vol", host_path=str(volume))
    late = pods.running(pods.sandbox(), "late", spec=decode.container_spec(cfg))
    assert joined.exec_sync(late.id, ["ls", "/vol/sub"], 5).stdout == b"early\n"
    assert run("ls", "/vol/sub") == ("", "", 0)  # the first still sees underneath


def test_only_containers_with_a_private_host_mount_note_the_table(pods, host):
    sb = pods.sandbox()
    pods.running(sb, "plain")
    shared = pb.ContainerConfig()
    shared.mounts.add(container_path="/v", host_path="/tmp", propagation=pb.MountPropagation.PROPAGATION_BIDIRECTIONAL)
    pods.running(sb, "shared", spec=decode.container_spec(shared))
    assert host.asked == 0
    private = pb.ContainerConfig()
    private.mounts.add(container_path="/v", host_path="/tmp")
    pods.running(sb, "private", spec=decode.container_spec(private))
    assert host.asked == 1  # noted once, at its start


@pytest.mark.parametrize("propagation,seen_on_host", [(pb.MountPropagation.PROPAGATION_PRIVATE, False),
                                                      (pb.MountPropagation.PROPAGATION_HOST_TO_CONTAINER, False),
                                                      (pb.MountPropagation.PROPAGATION_BIDIRECTIONAL, True)])
def test_a_mount_made_inside_reaches_the_host_only_when_bidirectional(pods, joined, volume, propagation,
                                                                      seen_on_host):
    run, _ = start(pods, joined, volume, propagation)
    assert run("sh", "-c", "mkdir -p /vol/inner")[2] == 0
    assert (volume / "inner").is_dir()
    assert run("sh", "-c", "mount --bind /etc /vol/inner") == ("", "", 0)
    assert "hostname" in run("ls", "/vol/inner")[0].split()  # inside, the mount shows /etc
    assert bool(os.listdir(volume / "inner")) is seen_on_host
    assert "overlay on /vol/inner type overlay (rw,relatime)" in run("mount")[0]  # /etc's file system, there
    assert run("umount", "/vol/inner") == ("", "", 0)
    assert os.listdir(volume / "inner") == []  # unmounting takes the copies back
    assert run("ls", "/vol/inner") == ("", "", 0)


def test_tmpfs_and_refusals(pods, joined, volume):
    run, _ = start(pods, joined, volume, pb.MountPropagation.PROPAGATION_PRIVATE)
    assert run("mkdir", "/scratch")[2] == 0
    assert run("mount", "-t", "tmpfs", "tmpfs", "/scratch")[2] == 0
    assert run("sh", "-c", "echo hi > /scratch/f && cat /scratch/f") == ("hi\n", "", 0)
    assert run("umount", "/scratch")[2] == 0
    assert run("ls", "/scratch") == ("", "", 0)
    assert run("umount", "/scratch") == ("", "umount: can't unmount /scratch: Invalid argument\n", 1)
    assert run("mount", "--bind", "/etc", "/nowhere") == (
        "", "mount: mounting /etc on /nowhere failed: No such file or directory\n", 255)
    unprivileged, _ = start(pods, joined, volume, pb.MountPropagation.PROPAGATION_PRIVATE, privileged=False)
    assert unprivileged("mount", "--bind", "/etc", "/tmp") == ("", "mount: permission denied (are you root?)\n", 1)


def test_the_mount_table_reader(tmp_path):
    text = (b"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
            b"40 22 0:5 / /mnt/with\\040space rw - tmpfs tmpfs rw\n")
    assert parse_mountinfo(text) == {"/": "ext4", "/mnt/with space": "tmpfs"}
    entries = parse_mountinfo_entries(text + b"41 22 0:7 / /s rw shared:3 master:1 - tmpfs t rw\n")
    assert [entries[p].tags for p in ("/", "/mnt/with space", "/s")] == ["shared:1", "", "shared:3 master:1"]
    over = b"41 22 0:6 / /mnt/with\\040space rw - overlay o rw\n"
    assert parse_mountinfo(text + over)["/mnt/with space"] == "overlay"  # the last mount on a point wins
    copy = tmp_path / "mountinfo"
    copy.write_bytes(text)
    table = HostMounts(str(copy))
    assert table.current() == {"/", "/mnt/with space"}
    assert table.holding("/mnt/with space/a/b") == ("/mnt/with space", "tmpfs")
    assert table.holding("/etc/hosts") == ("/", "ext4") and table.holding("/") == ("/", "ext4")
    table.close()
    assert HostMounts(str(tmp_path / "missing")).current() == frozenset()  # unreadable: nothing told apart
    live = HostMounts()
    assert "/" in live.current() and live.current() is live.current()  # re-read only on a change
    live.close()


@pytest.mark.skipif(os.geteuid() != 0 or not os.path.exists("/proc/self/mountinfo"),
                    reason="making a mount to watch needs root and /proc")
def test_the_table_follows_a_real_mount(tmp_path):
    import subprocess
    table = HostMounts()
    before = table.current()
    subprocess.run(["mount", "-t", "tmpfs", "fakecri-test", str(tmp_path)], check=True)
    try:
        assert str(tmp_path) in table.current() and str(tmp_path) not in before
    finally:
        subprocess.run(["umount", str(tmp_path)], check=True)
    assert str(tmp_path) not in table.current()
    table.close()


def container(pods, joined, volume, propagation, *, path="/vol", privileged=True, readonly=False, rro=False):
    """A running container of its own pod mounting `volume` at `path`; its command runner."""
    cfg = pb.ContainerConfig(linux=pb.LinuxContainerConfig(
        security_context=pb.LinuxContainerSecurityContext(privileged=privileged)))
    cfg.mounts.add(container_path=path, host_path=str(volume), propagation=propagation, readonly=readonly,
                   recursive_read_only=rro)
    c = pods.running(pods.sandbox(), spec=decode.container_spec(cfg))

    def run(*argv: str):
        r = joined.exec_sync(c.id, list(argv), 5)
        return r.stdout.decode(), r.stderr.decode(), r.exit_code
    return run


def test_a_tmpfs_under_a_bidirectional_mount_propagates_to_the_host_and_receiving_containers(pods, joined, volume):
    joined.sim.host.points = frozenset({"/", str(volume)})
    maker = container(pods, joined, volume, pb.PROPAGATION_BIDIRECTIONAL)
    slave = container(pods, joined, volume, pb.PROPAGATION_HOST_TO_CONTAINER, path="/s")
    peer = container(pods, joined, volume, pb.PROPAGATION_BIDIRECTIONAL, path="/p")
    private = container(pods, joined, volume, pb.PROPAGATION_PRIVATE, path="/q")
    (volume / "sub" / "old").write_text("under\n")
    assert maker("mount", "-t", "tmpfs", "none", "/vol/sub") == ("", "", 0)
    assert maker("sh", "-c", "echo shared > /vol/sub/f") == ("", "", 0)
    assert (volume / "sub" / "f").read_text() == "shared\n"  # the host path shows it
    assert slave("cat", "/s/sub/f") == ("shared\n", "", 0)
    assert peer("cat", "/p/sub/f") == ("shared\n", "", 0)
    assert peer("sh", "-c", "echo back > /p/sub/g") == ("", "", 0)
    assert maker("cat", "/vol/sub/g") == ("back\n", "", 0)
    for run, point in ((maker, "/vol/sub"), (slave, "/s/sub"), (peer, "/p/sub")):
        table = run("cat", "/proc/mounts")[0]
        assert f"none {point} tmpfs rw,relatime 0 0" in table, table
        assert f"none on {point} type tmpfs (rw,relatime" in run("mount")[0]
        assert run("stat", "-f", "-c", "%T", point) == ("tmpfs\n", "", 0)
    # the private mount, started before, still sees the directory underneath, and no mount
    assert private("ls", "-A", "/q/sub") == ("", "", 0)
    assert private("cat", "/q/sub/f")[2] == 1
    assert "/q/sub" not in private("cat", "/proc/mounts")[0]
    late = container(pods, joined, volume, pb.PROPAGATION_PRIVATE, path="/late")
    assert late("cat", "/late/sub/f") == ("shared\n", "", 0)  # started after: its rbind has it
    assert "none /late/sub tmpfs" in late("cat", "/proc/mounts")[0]
    # umount through another bidirectional mount takes it away for everyone; what was there stays
    assert peer("umount", "/p/sub") == ("", "", 0)
    assert sorted(os.listdir(volume / "sub")) == ["old"]
    assert slave("ls", "/s/sub") == ("old\n", "", 0)
    assert "/vol/sub" not in maker("cat", "/proc/mounts")[0]
    assert maker("umount", "/vol/sub") == ("", "umount: can't unmount /vol/sub: Invalid argument\n", 1)


def test_only_a_bidirectional_mount_propagates_and_a_slave_unmounts_for_itself(pods, joined, volume):
    slave = container(pods, joined, volume, pb.PROPAGATION_HOST_TO_CONTAINER)
    other = container(pods, joined, volume, pb.PROPAGATION_HOST_TO_CONTAINER, path="/o")
    assert slave("mount", "-t", "tmpfs", "tmpfs", "/vol/sub") == ("", "", 0)
    assert slave("sh", "-c", "echo mine > /vol/sub/f && cat /vol/sub/f") == ("mine\n", "", 0)
    assert os.listdir(volume / "sub") == [] and other("ls", "/o/sub") == ("", "", 0)
    assert "/o/sub" not in other("mount")[0]
    assert slave("umount", "/vol/sub") == ("", "", 0)
    maker = container(pods, joined, volume, pb.PROPAGATION_BIDIRECTIONAL, path="/m")
    assert maker("mount", "-t", "tmpfs", "tmpfs", "/m/sub") == ("", "", 0)
    assert "tmpfs /o/sub tmpfs" in other("cat", "/proc/mounts")[0]
    assert other("umount", "/o/sub") == ("", "", 0)  # from its own view only
    assert "/o/sub" not in other("cat", "/proc/mounts")[0]
    assert "tmpfs /vol/sub tmpfs" in slave("cat", "/proc/mounts")[0]
    assert "tmpfs /m/sub tmpfs" in maker("cat", "/proc/mounts")[0]
    assert maker("sh", "-c", "umount /m/sub && mount -t tmpfs again /m/sub && echo 2 > /m/sub/f") == ("", "", 0)
    assert other("cat", "/o/sub/f") == ("2\n", "", 0)  # a new mount there propagates again
    assert "again /o/sub tmpfs" in other("cat", "/proc/mounts")[0]


def test_a_recursive_read_only_mount_makes_a_propagated_tmpfs_read_only(pods, joined, volume):
    """The node e2e "Mount recursive read-only" pod: an init container mounts a tmpfs through a
    bidirectional mount; the next mounts the same directory rro, ro and rw; a third unmounts."""
    maker = container(pods, joined, volume, pb.PROPAGATION_BIDIRECTIONAL, path="/mnt")
    assert maker("sh", "-c", "mkdir -p /mnt/tmpfs && mount -t tmpfs none /mnt/tmpfs") == ("", "", 0)
    rro = container(pods, joined, volume, pb.PROPAGATION_PRIVATE, path="/mnt-rro", readonly=True, rro=True)
    ro = container(pods, joined, volume, pb.PROPAGATION_PRIVATE, path="/mnt-ro", readonly=True)
    rw = container(pods, joined, volume, pb.PROPAGATION_PRIVATE, path="/mnt-rw")
    assert rro("touch", "/mnt-rro/tmpfs/foo") == ("", "touch: /mnt-rro/tmpfs/foo: Read-only file system\n", 1)
    assert "none /mnt-rro/tmpfs tmpfs ro,relatime" in rro("cat", "/proc/mounts")[0]
    assert ro("touch", "/mnt-ro/tmpfs/foo") == ("", "", 0)  # a plain ro mount leaves submounts writable
    assert ro("touch", "/mnt-ro/bar")[2] == 1
    assert "none /mnt-ro/tmpfs tmpfs rw,relatime" in ro("cat", "/proc/mounts")[0]
    assert rw("touch", "/mnt-rw/tmpfs/baz") == ("", "", 0)
    assert sorted(os.listdir(volume / "tmpfs")) == ["baz", "foo"]
    unmount = container(pods, joined, volume, pb.PROPAGATION_BIDIRECTIONAL, path="/mnt")
    assert unmount("umount", "/mnt/tmpfs") == ("", "", 0)
    assert os.listdir(volume / "tmpfs") == []


TMPFS_OPTIONS = ["", "ro", "size=1m", "size=1000", "size=50%", "mode=700,uid=5,gid=6", "mode=1777,nr_inodes=10",
                 "nosuid,nodev,noexec,noatime", "strictatime,sync,nodiratime", "ro,rw", "rw,ro,size=2g",
                 "exec,noexec,suid", "noswap", "huge=always"]
REFUSED = [["-t", "tmpfs", "-o", "bogus", "x", "/scratch"], ["-t", "tmpfs", "-o", "mode=8", "x", "/scratch"],
           ["-t", "tmpfs", "-o", "size=12q", "x", "/scratch"], ["-Z", "x", "/scratch"], ["-B", "/etc", "/scratch"],
           ["-t", "tmpfs", "x", "/scratch", "/other"], ["-t", "tmpfs", "x", "/nowhere"], ["/scratch"]]


def _busybox_mount(argv: list[str], script: str) -> tuple[str, str, int]:
    """busybox's mount in a mount namespace of its own (nothing reaches the host's)."""
    import subprocess
    r = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                        "mkdir -p /tmp/fakecri-scratch && busybox mount \"$@\"; s=$?; " + script + "; exit $s",
                        "sh", *argv], capture_output=True, text=True, timeout=30)
    return r.stdout, r.stderr, r.returncode


busybox_as_root = pytest.mark.skipif(
    os.geteuid() != 0 or not all(map(__import__("shutil").which, ("busybox", "unshare"))),
    reason="busybox's mount runs for real (as root, in a mount namespace of its own)")


@busybox_as_root
@pytest.mark.parametrize("options", TMPFS_OPTIONS)
def test_a_tmpfs_line_reads_as_the_kernels(pods, joined, volume, options):
    run, _ = start(pods, joined, volume, pb.PROPAGATION_PRIVATE)
    argv = ["-t", "tmpfs"] + (["-o", options] if options else []) + ["name"]
    real = _busybox_mount(argv + ["/tmp/fakecri-scratch"], "grep ' /tmp/fakecri-scratch ' /proc/mounts")
    assert run("mkdir", "/scratch")[2] == 0
    assert run("mount", *argv, "/scratch")[1:] == real[1:]
    ours = run("grep", " /scratch ", "/proc/mounts")[0]
    assert ours.replace(" /scratch ", " /tmp/fakecri-scratch ") == real[0]
    if options.endswith("ro"):
        assert run("touch", "/scratch/f") == ("", "touch: /scratch/f: Read-only file system\n", 1)


@busybox_as_root
@pytest.mark.parametrize("argv", REFUSED, ids=lambda a: " ".join(a))
def test_a_refused_mount_reads_as_busyboxs(pods, joined, volume, argv):
    run, _ = start(pods, joined, volume, pb.PROPAGATION_PRIVATE)
    assert run("mkdir", "/scratch")[2] == 0
    real = _busybox_mount([a.replace("/scratch", "/tmp/fakecri-scratch") for a in argv], "true")
    ours = run("mount", *argv)
    assert (ours[1].replace("/scratch", "/tmp/fakecri-scratch"), ours[2]) == real[1:]


@busybox_as_root
@pytest.mark.parametrize("argv", [[], ["-Z", "/scratch"], ["/nothing"], ["-n", "/nothing"], ["/scratch"]],
                         ids=lambda a: " ".join(a) or "none")
def test_a_refused_umount_reads_as_busyboxs(pods, joined, volume, argv):
    import subprocess
    run, _ = start(pods, joined, volume, pb.PROPAGATION_PRIVATE)
    assert run("mkdir", "/scratch")[2] == 0
    real = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                           'mkdir -p /tmp/fakecri-scratch && busybox umount "$@"', "sh",
                           *[a.replace("/scratch", "/tmp/fakecri-scratch") for a in argv]],
                          capture_output=True, text=True, timeout=30)
    ours = run("umount", *argv)
    assert (ours[1].replace("/scratch", "/tmp/fakecri-scratch"), ours[2]) == (real.stderr, real.returncode)


def test_umount_of_what_is_not_there(pods, joined, volume):
    run, _ = start(pods, joined, volume, pb.PROPAGATION_PRIVATE)
    assert run("umount", "/nothing") == ("", "umount: can't unmount /nothing: No such file or directory\n", 1)
    assert run("umount", "-l", "/tmp") == ("", "umount: can't unmount /tmp: Invalid argument\n", 1)


def test_a_read_only_tmpfs_propagates_read_only(pods, joined, volume):
    maker = container(pods, joined, volume, pb.PROPAGATION_BIDIRECTIONAL)
    slave = container(pods, joined, volume, pb.PROPAGATION_HOST_TO_CONTAINER, path="/s")
    assert maker("mount", "-r", "-t", "tmpfs", "-o", "size=1m", "ro", "/vol/sub") == ("", "", 0)
    assert slave("touch", "/s/sub/f") == ("", "touch: /s/sub/f: Read-only file system\n", 1)
    assert maker("mkdir", "/vol/sub/d") == ("", "mkdir: can't create directory '/vol/sub/d': Read-only file system\n",
                                            1)
    assert "ro /s/sub tmpfs ro,relatime,size=1024k 0 0\n" in slave("cat", "/proc/mounts")[0]
    assert maker("mount", "-o", "remount,rw", "/vol/sub") == ("", "mount: -o remount: not modelled by fakecri\n", 1)


def test_a_reset_of_the_node_forgets_the_propagated_mounts(pods, joined, volume):
    maker = container(pods, joined, volume, pb.PROPAGATION_BIDIRECTIONAL)
    assert maker("mount", "-t", "tmpfs", "t", "/vol/sub") == ("", "", 0)
    assert joined.sim.shared_mounts.points() == {str(volume / "sub")}
    joined.sim.reset()
    assert not joined.sim.shared_mounts and joined.sim.shared_mounts.points() == frozenset()
