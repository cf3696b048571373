"""The server's HostView over this machine (fakecri.server.host.host.LocalHost): what it says of host
files and file systems, and the changes a container's commands make through it."""
from __future__ import annotations

import os

import pytest

from fakecri.server.host.host import LocalHost
from fakecri.server.host.host_mounts import MountEntry, parse_mountinfo_entries
from fakecri.sim.host_view import HostError


@pytest.fixture
def host():
    h = LocalHost()
    yield h
    h.close()


def test_stat_links_and_changes(host, tmp_path):
    f = tmp_path / "f"
    host.write(str(f), b"hello")
    host.symlink("f", str(tmp_path / "l"))
    host.chmod(str(f), 0o2640)
    st = host.stat(str(f))
    assert (st.kind, st.mode, st.size, st.nlink) == ("file", 0o2640, 5, 1) and st.inode == os.stat(f).st_ino
    link = host.stat(str(tmp_path / "l"), follow=False)
    assert link.kind == "link" and host.readlink(str(tmp_path / "l")) == "f"
    if os.geteuid() == 0:
        host.chown(str(tmp_path / "l"), 1234, 5678)  # the link itself, not its target
        assert (os.lstat(tmp_path / "l").st_uid, os.stat(f).st_uid) == (1234, os.getuid())
    with pytest.raises(HostError, match="No such file or directory"):
        host.chmod(str(tmp_path / "missing"), 0o600)
    with pytest.raises(HostError, match="File exists"):
        host.symlink("x", str(f))


def test_statfs_names_the_mount_its_source_and_options(host, tmp_path):
    fs = host.statfs(str(tmp_path))
    assert fs.fs_type and fs.source and fs.options.split(",")[0] in ("rw", "ro")
    assert fs.blocks > 0 and fs.block_size > 0 and fs.name_max == 255
    proc = host.statfs("/proc")
    assert (proc.fs_type, proc.mount_point, proc.blocks) == ("proc", "/proc", 0)


def test_mountinfo_entries_join_the_mount_and_file_system_options():
    text = (b"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,discard\n"
            b"68 65 0:44 / /var/lib/kubelet/pods/u/volumes/kubernetes.io~empty-dir/mem rw,relatime shared:5 - tmpfs "
            b"tmpfs rw,size=10240k,noswap\n"
            b"70 65 0:46 / /mnt/with\\040space ro,nosuid master:3 - tmpfs my\\040source ro,mode=755\n")
    entries = parse_mountinfo_entries(text)
    assert entries["/"] == MountEntry("ext4", "/dev/sda1", "rw,relatime,discard", "shared:1")
    assert entries["/var/lib/kubelet/pods/u/volumes/kubernetes.io~empty-dir/mem"] == MountEntry(
        "tmpfs", "tmpfs", "rw,relatime,size=10240k,noswap", "shared:5")
    assert entries["/mnt/with space"] == MountEntry("tmpfs", "my source", "ro,nosuid,mode=755", "master:3")
