"""Volumes as a kubelet lays them out on the host, seen from inside a container (no gRPC):
the atomic writer's `..data` layout, symlinks resolved in the container's view, modes and
owners from the host's files, the permission checks, and the file systems `df`, `stat -f`
and `mount` report. Host files are real (LocalHost over tmp_path)."""
from __future__ import annotations

import os

import pytest
from helpers.core_pods import Joined

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.server.codec import decode
from fakecri.server.host.host import LocalHost
from fakecri.sim.userland.fs import MAGIC, FileStat, Who, go_mode_string, human_size, may, mode_string
from fakecri.sim.userland.modes import parse_mode

ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="giving files away (chown) needs root")


@pytest.fixture
def joined(clock):
    host = LocalHost()
    yield Joined(clock, host=host)
    host.close()


def publish(volume, n: int, files: dict[str, str], mode: int = 0o644) -> None:
    """Write `files` as the kubelet's atomic writer does: a timestamped directory, `..data`
    swapped to it by a rename, and a link per top-level name through `..data`."""
    stamp = volume / f"..2026_01_01_00_00_0{n}.{n}"
    stamp.mkdir()
    for rel, text in files.items():
        (stamp / rel).parent.mkdir(parents=True, exist_ok=True)
        (stamp / rel).write_text(text)
        os.chmod(stamp / rel, mode)
    os.symlink(stamp.name, volume / "..data_tmp")
    os.rename(volume / "..data_tmp", volume / "..data")
    for top in {rel.split("/")[0] for rel in files}:
        if not (volume / top).is_symlink():
            os.symlink(f"..data/{top}", volume / top)


@pytest.fixture
def volume(tmp_path):
    v = tmp_path / "configmap"
    v.mkdir()
    publish(v, 1, {"data-1": "value-1", "path/to/data-2": "value-2"})
    return v


@pytest.fixture
def start(pods, joined):
    """start(mounts=[(container_path, host_path, readonly)], **security) -> run(argv...) -> (out, err, code)."""
    def make(mounts=(), **security):
        cfg = pb.ContainerConfig(linux=pb.LinuxContainerConfig(
            security_context=pb.LinuxContainerSecurityContext(**security)))
        for container_path, host_path, readonly in mounts:
            cfg.mounts.add(container_path=container_path, host_path=str(host_path), readonly=readonly)
        decode.check_container_config(cfg)
        c = pods.running(pods.sandbox(hostname="web-0"), spec=decode.container_spec(cfg))

        def run(*argv: str):
            r = joined.exec_sync(c.id, list(argv), 5)
            return r.stdout.decode(), r.stderr.decode(), r.exit_code
        return run
    return make


def user(uid: int, *groups: int) -> dict:
    return {"run_as_user": pb.Int64Value(value=uid), "supplemental_groups": list(groups)}


def test_the_atomic_writer_layout_is_read_through_its_links(start, volume):
    run = start([("/etc/cm", volume, True)])
    assert run("cat", "/etc/cm/data-1") == ("value-1", "", 0)
    assert run("cat", "/etc/cm/path/to/data-2") == ("value-2", "", 0)
    listing = run("ls", "-la", "/etc/cm")[0].splitlines()
    assert listing[0].startswith("total ")
    links = [line for line in listing if line.startswith("l")]
    assert [line.split(" ", 1)[0] for line in links] == ["lrwxrwxrwx"] * 3
    assert [line.rsplit(" ", 3)[1:] for line in links] == [
        ["..data", "->", "..2026_01_01_00_00_01.1"], ["data-1", "->", "..data/data-1"], ["path", "->", "..data/path"]]
    assert run("ls", "/etc/cm")[0] == "data-1\npath\n"  # names starting with a dot are hidden
    assert run("readlink", "/etc/cm/data-1") == ("..data/data-1\n", "", 0)
    assert run("readlink", "-f", "/etc/cm/data-1")[0] == "/etc/cm/..2026_01_01_00_00_01.1/data-1\n"


def test_a_swap_of_data_is_seen_at_the_next_read(start, volume):
    run = start([("/etc/cm", volume, True)])
    assert run("cat", "/etc/cm/data-1")[0] == "value-1"
    publish(volume, 2, {"data-1": "value-2"})
    assert run("cat", "/etc/cm/data-1")[0] == "value-2"


def test_links_resolve_in_the_containers_view(start, volume, tmp_path):
    (tmp_path / "outside").write_text("the host's file\n")
    os.symlink("/etc/hostname", volume / "absolute")  # the container's /etc/hostname, not the host's
    os.symlink("../../etc/hostname", volume / "climbing")  # out of the mount, into the container's files
    os.symlink(str(tmp_path / "outside"), volume / "host-path")  # a host path means nothing inside
    os.symlink("loop-b", volume / "loop-a")
    os.symlink("loop-a", volume / "loop-b")
    run = start([("/etc/cm", volume, True)])
    assert run("cat", "/etc/cm/absolute") == ("web-0\n", "", 0)
    assert run("cat", "/etc/cm/climbing") == ("web-0\n", "", 0)
    assert run("cat", "/etc/cm/host-path") == ("", "cat: can't open '/etc/cm/host-path': No such file or directory\n",
                                               1)
    assert run("cat", "/etc/cm/loop-a")[1] == "cat: can't open '/etc/cm/loop-a': Too many levels of symbolic links\n"
    assert run("test", "-L", "/etc/cm/host-path")[2] == 0 and run("test", "-e", "/etc/cm/host-path")[2] == 1


def test_links_made_inside(start, tmp_path):
    run = start([("/vol", tmp_path, False)])
    assert run("sh", "-c", "echo hi > /tmp/f; ln -s /tmp/f /tmp/l; ln -s /tmp/f /vol/l") == ("", "", 0)
    assert run("cat", "/tmp/l") == ("hi\n", "", 0)
    assert os.readlink(tmp_path / "l") == "/tmp/f"  # made on the host, resolved inside
    assert run("cat", "/vol/l") == ("hi\n", "", 0)
    assert run("ls", "-l", "/tmp/l")[0].endswith(" /tmp/l -> /tmp/f\n")
    assert run("ln", "-s", "/x", "/tmp/l") == ("", "ln: /tmp/l: File exists\n", 1)
    assert run("ln", "-sf", "/etc/hostname", "/tmp/l")[2] == 0 and run("cat", "/tmp/l")[0] == "web-0\n"
    assert run("rm", "/tmp/l")[2] == 0 and run("cat", "/tmp/f")[0] == "hi\n"  # rm takes the link, not its target


def test_modes_and_owners_come_from_the_host(start, tmp_path):
    (tmp_path / "secret").write_text("s3cret")
    os.chmod(tmp_path / "secret", 0o400)
    os.mkdir(tmp_path / "shared")
    os.chmod(tmp_path / "shared", 0o3777)
    run = start([("/v", tmp_path, False)])
    assert run("stat", "-c", "%a %A %F %s %n", "/v/secret") == ("400 -r-------- regular file 6 /v/secret\n", "", 0)
    assert run("stat", "-c", "%a|%A|%F|%u|%g", "/v/shared")[0] == "3777|drwxrwsrwt|directory|0|0\n"
    assert run("stat", "-c", "%U:%G %h %%", "/v/secret")[0] == "root:root 1 %\n"
    assert run("stat", "-c", "%-6a|%5s|", "/v/secret")[0] == "400   |    6|\n"
    line = run("ls", "-l", "/v/secret")[0]
    assert line.startswith("-r--------    1 root     root             6 ") and line.endswith(" /v/secret\n")
    assert run("ls", "-ln", "/v")[0].splitlines()[1].split()[2:4] == ["0", "0"]
    assert run("stat", "/v/missing") == ("", "stat: can't stat '/v/missing': No such file or directory\n", 1)
    full = run("stat", "/v/secret")[0]
    assert full.startswith("  File: /v/secret\n  Size: 6         \tBlocks: ") and "Access: (0400/-r--------)" in full


def test_a_non_root_user_is_held_to_the_permission_bits(start, tmp_path):
    (tmp_path / "secret").write_text("s3cret")
    os.chmod(tmp_path / "secret", 0o400)
    (tmp_path / "shared").write_text("all\n")
    os.mkdir(tmp_path / "closed")
    os.chmod(tmp_path / "closed", 0o700)
    (tmp_path / "closed" / "inside").write_text("x")
    os.chmod(tmp_path, 0o755)
    mounts = [("/v", tmp_path, False)]
    alice = start(mounts, **user(1000))
    assert alice("cat", "/v/secret") == ("", "cat: can't open '/v/secret': Permission denied\n", 1)
    assert alice("cat", "/v/shared") == ("all\n", "", 0)
    assert alice("sh", "-c", "echo x >> /v/shared") == ("", "sh: can't create /v/shared: Permission denied\n", 1)
    assert alice("touch", "/v/new") == ("", "touch: /v/new: Permission denied\n", 1)  # the directory is 0755 root
    assert alice("cat", "/v/closed/inside")[1] == "cat: can't open '/v/closed/inside': Permission denied\n"
    assert alice("ls", "/v/closed") == ("", "ls: can't open '/v/closed': Permission denied\n", 1)
    assert [alice("test", flag, "/v/secret")[2] for flag in ("-e", "-r", "-w")] == [0, 1, 1]
    assert alice("touch", "/tmp/mine")[2] == 0 and alice("touch", "/etc/theirs")[2] == 1
    assert alice("stat", "-c", "%u %a", "/tmp/mine")[0] == "1000 644\n"
    root = start(mounts)
    assert root("cat", "/v/secret") == ("s3cret", "", 0)  # CAP_DAC_OVERRIDE
    bare_root = start(mounts, capabilities=pb.Capability(drop_capabilities=["ALL"]))
    assert bare_root("cat", "/v/secret") == ("s3cret", "", 0)  # the owner
    assert bare_root("cat", "/v/closed/inside")[2] == 0
    os.chown(tmp_path / "secret", 1234, 1234)
    assert bare_root("cat", "/v/secret")[1] == "cat: can't open '/v/secret': Permission denied\n"
    assert root("cat", "/v/secret")[0] == "s3cret"
    read_only = start([("/v", tmp_path, True)])
    assert read_only("touch", "/v/shared") == ("", "touch: /v/shared: Read-only file system\n", 1)


@ROOT
def test_new_files_belong_to_the_user_and_a_setgid_directorys_group(start, tmp_path):
    os.chmod(tmp_path, 0o2777)
    os.chown(tmp_path, 0, 123)
    run = start([("/test-volume", tmp_path, False)], **user(1001, 123))
    assert run("sh", "-c", "echo hi > /test-volume/f; mkdir /test-volume/d") == ("", "", 0)
    st = os.stat(tmp_path / "f")
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (1001, 123, 0o644)
    d = os.stat(tmp_path / "d")
    assert (d.st_uid, d.st_gid, d.st_mode & 0o7777) == (1001, 123, 0o2755)
    assert run("stat", "-c", "%u %g", "/test-volume/f")[0] == "1001 123\n"
    assert run("chmod", "g+w,o-r", "/test-volume/f")[2] == 0 and (os.stat(tmp_path / "f").st_mode & 0o777) == 0o660
    assert run("chown", "0", "/test-volume/f") == ("", "chown: /test-volume/f: Operation not permitted\n", 1)
    os.chmod(tmp_path, 0o3777)  # sticky: only a file's owner (or the directory's) may remove it
    (tmp_path / "roots").write_text("")
    assert run("rm", "/test-volume/roots") == ("", "rm: can't remove '/test-volume/roots': Operation not permitted\n",
                                               1)
    assert run("rm", "/test-volume/f")[2] == 0


def test_the_mount_point_itself_stays(start, tmp_path):
    (tmp_path / "f").write_text("x")
    run = start([("/v", tmp_path, False)])
    assert run("rm", "-rf", "/v") == ("", "rm: can't remove '/v': Device or resource busy\n", 1)
    assert tmp_path.is_dir() and list(tmp_path.iterdir()) == []


def test_file_systems_of_the_mounts(start, tmp_path):
    run = start([("/data", tmp_path, False)])
    host = LocalHost().statfs(str(tmp_path))
    out = run("stat", "-f", "-c", "%t %b %S %l %n", "/data")[0]
    assert out == f"{MAGIC.get(host.fs_type, 0):x} {host.blocks} {host.block_size} {host.name_max} /data\n"
    mounts = run("cat", "/proc/mounts")[0].splitlines()
    assert mounts[0] == "overlay / overlay rw,relatime 0 0"
    mine = [line for line in mounts if line.split()[1] == "/data"]
    assert len(mine) == 1 and mine[0].split()[2] == host.fs_type and mine[0].split()[0] == host.source
    assert mine[0].split()[3].startswith("rw,")
    assert "shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0" in mounts
    assert f"{host.source} on /data type {host.fs_type} (rw," in run("mount")[0]
    df = run("df", "/data")[0].splitlines()
    assert df[0] == "Filesystem           1K-blocks      Used Available Use% Mounted on"
    assert df[1].split()[1] == str((host.blocks * host.block_size + 512) // 1024) and df[1].endswith(" /data")
    assert run("df", "-k")[0].splitlines()[1].split()[0] == "overlay"  # the container's root first
    assert run("df", "-h", "/dev/shm")[0].splitlines()[1].split() == ["shm", "64.0M", "0", "64.0M", "0%", "/dev/shm"]
    assert run("stat", "-f", "-c", "%T %t", "/dev/shm")[0] == "tmpfs 1021994\n"
    assert run("stat", "-f", "-c", "%T", "/proc")[0] == "proc\n"


@pytest.mark.skipif(not os.path.isdir("/dev/shm") or LocalHost().statfs("/dev/shm").fs_type != "tmpfs",
                    reason="needs a tmpfs on the host at /dev/shm")
def test_a_tmpfs_on_the_host_shows_as_tmpfs(start, tmp_path):
    import tempfile
    with tempfile.TemporaryDirectory(dir="/dev/shm") as shm:
        host = LocalHost().statfs(shm)
        run = start([("/cache", shm, False)])
        assert run("stat", "-f", "-c", "%T %t", "/cache")[0] == "tmpfs 1021994\n"
        row = run("df", "-k", "/cache")[0].splitlines()[1].split()
        assert row[0] == host.source and row[1] == str((host.blocks * host.block_size + 512) // 1024)
        assert row[-1] == "/cache"


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a sized tmpfs needs root")
def test_a_memory_volume_shows_its_size_limit(start, tmp_path):
    import subprocess
    mem = tmp_path / "mem"
    mem.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=10240k", "tmpfs", str(mem)], check=True)
    try:
        run = start([("/usr/share/volumeshare", mem, False)])
        assert run("df", "/usr/share/volumeshare")[0].splitlines()[1].split()[1] == "10240"
        assert run("df", "-h", "/usr/share/volumeshare")[0].splitlines()[1].split()[1] == "10.0M"
        # what Kubernetes' "memory backed volumes of specified size" test runs in the container
        assert run("sh", "-c", "df | grep /usr/share/volumeshare | awk '{print $2}'") == ("10240\n", "", 0)
        assert "tmpfs on /usr/share/volumeshare type tmpfs (rw,relatime,size=10240k" in run("mount")[0]
        assert run("ls", "/usr/share")[0] == "volumeshare\n"  # the mount point's parents exist
    finally:
        subprocess.run(["umount", str(mem)], check=True)


def test_a_tmpfs_mounted_inside(start):
    run = start(privileged=True)
    assert run("sh", "-c", "mkdir /scratch && mount -t tmpfs -o size=1m tmpfs /scratch") == ("", "", 0)
    assert run("stat", "-f", "-c", "%T %b", "/scratch")[0] == "tmpfs 256\n"
    assert "tmpfs on /scratch type tmpfs (rw,relatime,size=1024k)" in run("mount")[0]


def test_hexdump_and_chmod(start):
    run = start()
    assert run("sh", "-c", "echo x > /dev/null; echo -n abc > /tmp/b") == ("", "", 0)
    assert run("hexdump", "-C", "/tmp/b")[0] == ("00000000  61 62 63                                          |abc|\n"
                                                 "00000003\n")
    assert run("chmod", "0640", "/tmp/b")[2] == 0 and run("stat", "-c", "%a", "/tmp/b")[0] == "640\n"
    assert run("chmod", "u+x,g=r,o+w", "/tmp/b")[2] == 0 and run("stat", "-c", "%A", "/tmp/b")[0] == "-rwxr---w-\n"
    assert run("chmod", "9", "/tmp/b") == ("", "chmod: invalid mode '9'\n", 1)


def test_the_pure_helpers():
    assert mode_string("dir", 0o3777) == "drwxrwsrwt" and mode_string("file", 0o4644) == "-rwSr--r--"
    assert go_mode_string("dir", 0o3777) == "dgtrwxrwxrwx" and go_mode_string("file", 0o644) == "-rw-r--r--"
    assert go_mode_string("dir", 0o1777, perm_only=True) == "-rwxrwxrwx"
    assert [human_size(n, 4096, 0) for n in (0, 2560, 256)] == ["0", "10.0M", "1.0M"]
    assert human_size(2560, 4096, 1024) == "10240"
    assert parse_mode("a=rX", 0o700, is_dir=True) == 0o555 and parse_mode("+w", 0o444) == 0o644
    owner = FileStat("file", 0o640, 1000, 50)
    assert may(Who(1000, frozenset({0}), 0), owner, 6) and not may(Who(7, frozenset({50}), 0), owner, 2)
    assert may(Who(7, frozenset({50}), 0), owner, 4) and not may(Who(7, frozenset(), 0), owner, 4)


WORDS = ["-l", "-la", "-c", "%s", "%-999999999s", "%.99999999d", "%T", "-f", "-L", "/", "/tmp", "/v", "/v/f",
         "/etc/hosts", "..", "a\x00b", "-m", "zz", "-n", "-s", "/nope/x", "-R", "u+x,g=", "0755", "1000:1000",
         "{print $2}", "/[/", "NR==1", "-F", "[", "--", "-", "-h", "-k", "-t", "--bind", "-o", "size=1k"]


@pytest.mark.parametrize("command", ["ls", "stat", "df", "mount", "umount", "touch", "mkdir", "rm", "ln", "readlink",
                                     "chmod", "chown", "chgrp", "hexdump", "test", "awk", "wc", "head", "cat",
                                     "agnhost"])
def test_odd_arguments_never_break_a_command(start, tmp_path, command):
    (tmp_path / "f").write_text("x")
    run = start([("/v", tmp_path, False)], privileged=True)
    words = WORDS if command != "agnhost" else ["mounttest", "--fs_type"] + WORDS
    for n in range(0, len(words), 3):
        _, _, code = run(command, *words[n:n + 5])
        assert 0 <= code <= 255
