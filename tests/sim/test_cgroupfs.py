"""A container sees its own cgroup at /sys/fs/cgroup (v2 by default, v1 when the node says so),
with the values runc writes from its resources, following every update; `nproc`, `free` and
/proc/meminfo are what lxcfs-less runc shows; `hostname -f/-d/-i` read /etc/hosts."""
from __future__ import annotations

import pytest

from fakecri.engine.records import Resources
from fakecri.engine.specs import ContainerSpec, Mount
from fakecri.server.host.host import LocalHost
from fakecri.sim import stats
from fakecri.sim.userland.cgroupfs import V1_UNLIMITED, shares_to_weight

MIB = 1024 * 1024
LIMITED = Resources(cpu_period=100_000, cpu_quota=50_000, cpu_shares=256, memory_limit_in_bytes=200 * MIB)


@pytest.fixture
def run(joined, pods):
    def start(resources: Resources = LIMITED, version: int = 2, swap: int | None = None, **kw):
        joined.sim.cgroup_version = version
        joined.sim.swap_bytes = swap
        sb = pods.sandbox(hostname=kw.pop("hostname", "web-0"))
        c = pods.running(sb, resources=resources, **kw)

        def sh(cmd: str) -> tuple[int, str, str]:
            r = joined.exec_sync(c.id, ["sh", "-c", cmd])
            return r.exit_code, r.stdout.decode(), r.stderr.decode()

        sh.container = c  # type: ignore[attr-defined]
        return sh
    return start


def test_shares_become_runc_weights():
    # the quadratic fit runc (opencontainers/cgroups) uses: 2 -> 1, 1024 -> 100, 262144 -> 10000
    assert [shares_to_weight(s) for s in (0, 2, 256, 1024, 262144)] == [0, 1, 35, 100, 10000]


def test_v2_files_follow_the_resources_and_every_update(run, runtime):
    sh = run()
    assert sh("mount -t cgroup2") == (0, "cgroup on /sys/fs/cgroup type cgroup2 (ro,nosuid,nodev,noexec,relatime)\n",
                                      "")
    read = "cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max /sys/fs/cgroup/cpu.weight"
    assert sh(read)[1] == f"{200 * MIB}\n50000 100000\n35\n"
    runtime.update_container_resources(sh.container.id, Resources(
        cpu_period=100_000, cpu_quota=-1, cpu_shares=2048, memory_limit_in_bytes=300 * MIB, cpuset_cpus="0",
        hugepage_limits=(("2MB", 4 * 2 * MIB),), unified=(("pids.max", "42"),)))
    assert sh(read)[1] == f"{300 * MIB}\nmax 100000\n{shares_to_weight(2048)}\n"
    assert sh("cat /sys/fs/cgroup/cpuset.cpus /sys/fs/cgroup/hugetlb.2MB.max /sys/fs/cgroup/hugetlb.1GB.max "
              "/sys/fs/cgroup/pids.max")[1] == f"0\n{8 * MIB}\nmax\n42\n"


def test_unset_resources_read_as_the_kernels_defaults(run):
    sh = run(Resources())
    assert sh("cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max /sys/fs/cgroup/cpu.weight "
              "/sys/fs/cgroup/memory.swap.max")[1] == "max\nmax 100000\n100\nmax\n"


def test_swap_max_is_the_swap_part_of_the_memory_and_swap_limit(run):
    sh = run(Resources(memory_limit_in_bytes=100 * MIB, memory_swap_limit_in_bytes=150 * MIB))
    assert sh("cat /sys/fs/cgroup/memory.swap.max")[1] == f"{50 * MIB}\n"
    sh = run(Resources(memory_limit_in_bytes=100 * MIB, unified=(("memory.swap.max", "12345"),)))
    assert sh("cat /sys/fs/cgroup/memory.swap.max")[1] == "12345\n"


def test_usage_files_agree_with_the_stats(run, joined):
    sh = run()
    joined.advance(45)
    c = joined.runtime.get_container(sh.container.id)
    figures = stats.container_stats(c, joined.clock.now_ns(), joined.sim.stats_script(c))
    out = sh("cat /sys/fs/cgroup/memory.current; grep usage_usec /sys/fs/cgroup/cpu.stat")[1].split("\n")
    assert out[0] == str(figures.memory.usage_bytes)
    assert out[1] == f"usage_usec {figures.cpu.usage_core_nano_seconds // 1000}"


def test_cgroup_files_refuse_writes_unless_privileged(run):
    sh = run()
    assert sh("echo 1 > /sys/fs/cgroup/memory.max") == (
        1, "", "sh: can't create /sys/fs/cgroup/memory.max: Read-only file system\n")


def test_v1_has_a_hierarchy_per_controller(run, runtime):
    sh = run(version=1)
    code, out, _ = sh("mount -t cgroup2; mount | grep cgroup")
    lines = out.splitlines()
    assert lines[0] == "tmpfs on /sys/fs/cgroup type tmpfs (ro,nosuid,nodev,noexec,relatime,mode=755)"
    assert lines[1] == ("cgroup on /sys/fs/cgroup/systemd type cgroup "
                        "(ro,nosuid,nodev,noexec,relatime,xattr,name=systemd)")
    assert "cgroup on /sys/fs/cgroup/memory type cgroup (ro,nosuid,nodev,noexec,relatime,memory)" in lines
    assert "cgroup on /sys/fs/cgroup/cpu,cpuacct type cgroup (ro,nosuid,nodev,noexec,relatime,cpu,cpuacct)" in lines
    read = ("cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/cpu/cpu.cfs_quota_us "
            "/sys/fs/cgroup/cpu/cpu.cfs_period_us /sys/fs/cgroup/cpu/cpu.shares")
    assert sh(read)[1] == f"{200 * MIB}\n50000\n100000\n256\n"
    runtime.update_container_resources(sh.container.id, Resources(cpu_shares=2))
    assert sh(read)[1] == f"{V1_UNLIMITED}\n-1\n100000\n2\n"
    assert sh("readlink /sys/fs/cgroup/cpu; grep memory /proc/self/cgroup")[1] == "cpu,cpuacct\n11:memory:/\n"


def test_nproc_follows_the_cpuset_and_free_the_hosts_memory(run):
    sh = run(Resources(cpuset_cpus="0", memory_limit_in_bytes=64 * MIB), swap=2 * 1024 * MIB)
    assert sh("nproc; grep Cpus_allowed_list /proc/self/status")[1] == "1\nCpus_allowed_list:\t0\n"
    code, out, _ = sh("free -m")
    mem, swap = out.splitlines()[1].split(), out.splitlines()[2].split()
    assert int(mem[1]) > 64  # the host's memory, not the limit: no lxcfs
    assert swap == ["Swap:", "2048", "0", "2048"]
    assert sh("grep SwapTotal /proc/meminfo")[1] == f"SwapTotal:      {2 * 1024 * 1024:>8} kB\n"
    assert sh("nproc --bad")[0] == 1


@pytest.fixture
def local_host(joined):
    host = joined.sim.host = LocalHost()
    yield host
    host.close()


def test_hostname_looks_itself_up_in_etc_hosts(run, local_host, tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1\tlocalhost\n10.1.2.3\tweb-0.sub.ns.svc.cluster.local\tweb-0\n")
    spec = ContainerSpec(mounts=(Mount(container_path="/etc/hosts", host_path=str(hosts)),))
    sh = run(spec=spec)
    assert sh("hostname; hostname -s; hostname -f; hostname -d; hostname -i") == (
        0, "web-0\nweb-0\nweb-0.sub.ns.svc.cluster.local\nsub.ns.svc.cluster.local\n10.1.2.3\n", "")
    hosts.write_text("127.0.0.1\tlocalhost\n")
    assert sh("hostname -f") == (1, "", "hostname: web-0: Unknown host\n")
    assert sh("hostname -x")[0] == 1


def test_dd_meets_the_limit_as_last_set(run, runtime):
    sh = run(Resources(memory_limit_in_bytes=15 * MIB))
    assert sh("dd if=/dev/zero of=/dev/null bs=20M count=1")[0] == 137
    sh = run(Resources(memory_limit_in_bytes=15 * MIB))
    runtime.update_container_resources(sh.container.id, Resources(memory_limit_in_bytes=64 * MIB))
    assert sh("dd if=/dev/zero of=/dev/null bs=20M count=1")[0] == 0


def test_the_kubelets_limited_swap_share_reaches_the_file_and_the_stats(run, joined):
    # LimitedSwap (the kubelet's calcSwapForBurstablePods): request / node memory x node swap
    request, node_memory, node_swap = 128 * MIB, 8192 * MIB, 2048 * MIB
    share = int(request / node_memory * node_swap)
    sh = run(Resources(memory_limit_in_bytes=256 * MIB, unified=(("memory.swap.max", str(share)),)), swap=node_swap)
    assert sh("cat /sys/fs/cgroup/memory.swap.max")[1] == f"{share}\n"
    c = joined.runtime.get_container(sh.container.id)
    assert stats.container_stats(c, joined.clock.now_ns()).swap.swap_available_bytes == share


def test_the_kernels_own_proc_files_are_the_hosts(run, local_host):
    sh = run(Resources(cpuset_cpus="0"))
    with open("/proc/version") as f:
        assert sh("cat /proc/version")[1] == f.read()
    code, out, _ = sh("grep -c processor /proc/cpuinfo")
    assert code == 0 and int(out) >= 1  # every CPU of the host, whatever the cpuset
