"""Masked and read-only paths are mounted as runc mounts them: /dev/null over a masked file,
an empty read-only tmpfs over a masked directory, a read-only bind over a read-only path;
each shows in the mount table."""
from __future__ import annotations

from fakecri.engine.specs import ContainerSpec

# what the kubelet sends for procMount Default
MASKED = ("/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
          "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware", "/sys/devices/virtual/powercap")
READ_ONLY = ("/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger")


def _shell(joined, pods, **spec):
    c = pods.running(pods.sandbox(), spec=ContainerSpec(**spec))

    def sh(cmd: str) -> tuple[int, str, str]:
        r = joined.exec_sync(c.id, ["sh", "-c", cmd])
        return r.exit_code, r.stdout.decode(), r.stderr.decode()
    return sh


def test_the_mount_table_shows_each_mask_and_read_only_path_in_runcs_order(joined, pods):
    sh = _shell(joined, pods, masked_paths=MASKED, readonly_paths=READ_ONLY)
    lines = sh("mount")[1].splitlines()
    shm = lines.index("shm on /dev/shm type tmpfs (rw,nosuid,nodev,noexec,relatime,size=65536k)")
    assert lines[shm + 1:shm + 6] == [f"proc on {p} type proc (ro,nosuid,nodev,noexec,relatime)" for p in READ_ONLY]
    assert lines[shm + 6] == "tmpfs on /proc/asound type tmpfs (ro,relatime)"
    assert "tmpfs on /proc/kcore type tmpfs (rw,nosuid,size=65536k,mode=755)" in lines  # /dev/null's file system
    assert "tmpfs on /sys/firmware type tmpfs (ro,relatime)" in lines


def test_masked_files_read_empty_and_read_only_paths_refuse_writes(joined, pods):
    sh = _shell(joined, pods, masked_paths=MASKED, readonly_paths=READ_ONLY)
    assert sh("cat /proc/kcore; echo rc=$?") == (0, "rc=0\n", "")
    assert sh("echo x > /proc/keys; cat /proc/keys; echo rc=$?") == (0, "rc=0\n", "")  # /dev/null swallows it
    assert sh("echo 1 > /proc/sysrq-trigger") == (
        1, "", "sh: can't create /proc/sysrq-trigger: Read-only file system\n")
    assert sh("ls /proc/acpi; touch /proc/acpi/x") == (1, "", "touch: /proc/acpi/x: Read-only file system\n")


def test_no_masks_no_lines(joined, pods):
    assert "/proc/kcore" not in _shell(joined, pods)("mount")[1]
