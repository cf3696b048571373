"""The simulated userland: what commands in a container see follows its config (no gRPC).

Configs are written as runtime.v1 messages and decoded as the server decodes them
(fakecri.server.codec.configs); host paths are reached through the real host (LocalHost)."""
from __future__ import annotations

import pytest
from helpers.core_pods import Joined

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.server.codec import decode
from fakecri.server.host.host import LocalHost
from fakecri.sim import simulation
from fakecri.sim.userland import Userland, UserlandSpec, userland_spec
from fakecri.sim.userland.spec import sysctl_name, sysctl_path


@pytest.fixture
def joined(clock):
    host = LocalHost()
    yield Joined(clock, host=host)
    host.close()


@pytest.fixture
def built(monkeypatch):
    """The specs of the userlands the simulation builds from now on, in order."""
    made = []

    class Counted(Userland):
        def __init__(self, spec, **kw):
            made.append(spec)
            super().__init__(spec, **kw)

    monkeypatch.setattr(simulation, "Userland", Counted)
    return made


def container_spec(**security) -> pb.ContainerConfig:
    return pb.ContainerConfig(metadata=pb.ContainerMetadata(name="app"),
                              linux=pb.LinuxContainerConfig(security_context=pb.LinuxContainerSecurityContext(**security)))


def test_the_userland_spec_follows_the_decoded_configs(tmp_path, pods):
    cfg = container_spec(run_as_user=pb.Int64Value(value=1001), run_as_group=pb.Int64Value(value=0),
                         run_as_username="nobody", supplemental_groups=[1234, 5678], readonly_rootfs=True,
                         masked_paths=["/proc/kcore"], readonly_paths=["/proc/sys"],
                         supplemental_groups_policy=pb.SupplementalGroupsPolicy.Strict)
    cfg.envs.add(key="GREETING", value=b"hello world")
    cfg.mounts.add(container_path="/data", host_path=str(tmp_path), readonly=True)
    cfg.working_dir = "/work"
    sandbox = pb.PodSandboxConfig(
        hostname="web-1", dns_config=pb.DNSConfig(servers=["10.0.0.10"], searches=["ns.svc.cluster.local"],
                                                  options=["ndots:5"]),
        linux=pb.LinuxPodSandboxConfig(sysctls={"kernel.shm_rmid_forced": "1", "net.ipv4.ip_forward": "1"}))
    sb = pods.sandbox(hostname=sandbox.hostname, spec=decode.sandbox_spec(sandbox))
    c = pods.container(sb, spec=decode.container_spec(cfg))
    spec = userland_spec(c, sb)
    assert (spec.run_as_user, spec.run_as_group, spec.run_as_username) == (1001, 0, "nobody")
    assert spec.supplemental_groups == (1234, 5678) and spec.strict_groups and spec.readonly_rootfs
    assert (spec.masked_paths, spec.readonly_paths) == (("/proc/kcore",), ("/proc/sys",))
    assert spec.envs == (("GREETING", "hello world"),) and spec.working_dir == "/work"
    assert [(m.container_path, m.host_path, m.readonly) for m in spec.mounts] == [("/data", str(tmp_path), True)]
    assert spec.hostname == "web-1"
    assert (spec.dns_servers, spec.dns_searches, spec.dns_options) == (("10.0.0.10",), ("ns.svc.cluster.local",),
                                                                       ("ndots:5",))
    assert spec.sysctls == (("kernel/shm_rmid_forced", "1"), ("net/ipv4/ip_forward", "1"))  # paths under /proc/sys
    assert spec.sysctl("net/ipv4/ip_forward") == "1" and spec.sysctl("net.ipv4.ip_forward") is None
    assert userland_spec(pods.container(pods.sandbox(), "bare"), None) == UserlandSpec()
    assert userland_spec(pods.container(sb, "plain"), sb).run_as_user is None


def test_sysctl_names_and_paths():
    assert sysctl_path("net.ipv4.ip_forward") == "net/ipv4/ip_forward"
    assert sysctl_path("net/ipv4/conf/eth0.100/forwarding") == "net/ipv4/conf/eth0.100/forwarding"  # dots kept
    assert sysctl_name("kernel/shm_rmid_forced") == "kernel.shm_rmid_forced"


@pytest.fixture
def exec_in(pods, joined, tmp_path):
    """Start a container with the given configs; returns exec(argv) -> (stdout, stderr, code)."""
    def make(container: pb.ContainerConfig | None = None, sandbox: pb.PodSandboxConfig | None = None,
             hostname: str = ""):
        sandbox = sandbox or pb.PodSandboxConfig()
        decode.check_sandbox_config(sandbox)
        sb = pods.sandbox(hostname=hostname or sandbox.hostname, spec=decode.sandbox_spec(sandbox))
        cfg = container or pb.ContainerConfig()
        decode.check_container_config(cfg)
        c = pods.running(sb, spec=decode.container_spec(cfg))

        def run(*argv: str):
            r = joined.exec_sync(c.id, list(argv), 5)
            return r.stdout.decode(), r.stderr.decode(), r.exit_code
        run.container = c
        return run
    return make


def test_no_userland_is_built_until_a_command_looks(exec_in, joined, built):
    run = exec_in()
    assert built == []
    run("echo", "hi")
    assert built == []  # echo needs no userland
    run("id")
    run("id", "-u")
    assert len(built) == 1 and joined.sim.userland_of(run.container.id).spec is built[0]  # built once, kept


def test_identity_follows_the_security_context(exec_in):
    root = exec_in()
    assert root("id") == ("uid=0(root) gid=0(root) groups=0(root),10(wheel)\n", "", 0)
    assert root("whoami")[0] == "root\n"
    user = exec_in(container_spec(run_as_user=pb.Int64Value(value=1001), supplemental_groups=[1234, 5678]))
    assert user("id", "-u") == ("1001\n", "", 0)
    assert user("id", "-G")[0].split() == ["0", "1234", "5678"]
    assert user("whoami") == ("", "whoami: unknown uid 1001\n", 1)
    named = exec_in(container_spec(run_as_username="nobody"))
    assert named("id", "-nu")[0] == "nobody\n"
    assert named("id", "-g")[0] == "65534\n"
    group = exec_in(container_spec(run_as_user=pb.Int64Value(value=1000), run_as_group=pb.Int64Value(value=3000)))
    assert group("id", "-g")[0] == "3000\n"
    strict = exec_in(container_spec(run_as_user=pb.Int64Value(value=0), supplemental_groups=[99],
                                    supplemental_groups_policy=pb.SupplementalGroupsPolicy.Strict))
    assert strict("id", "-G")[0] == "0 99\n"  # root's image group wheel (10) is not merged in


def test_id_names_another_account_of_the_images_passwd(exec_in):
    run = exec_in(container_spec(run_as_user=pb.Int64Value(value=1001)))
    assert run("id", "nobody") == ("uid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup)\n", "", 0)
    assert run("id", "-u", "root") == ("0\n", "", 0)
    assert run("id", "-G", "root")[0] == "0 10\n"  # the primary group, then /etc/group's (wheel)
    assert run("id", "nosuchuser") == ("", "id: unknown user nosuchuser\n", 1)
    assert run("id", "0") == ("", "id: unknown user 0\n", 1)  # a name, never a uid (as busybox)


def test_files_from_the_sandbox_config(exec_in):
    run = exec_in(sandbox=pb.PodSandboxConfig(
        hostname="web-1", dns_config=pb.DNSConfig(servers=["10.0.0.10"], searches=["svc.local"], options=["ndots:5"]),
        linux=pb.LinuxPodSandboxConfig(sysctls={"kernel.shm_rmid_forced": "1"})))
    assert run("cat", "/etc/resolv.conf")[0] == "search svc.local\nnameserver 10.0.0.10\noptions ndots:5\n"
    assert run("hostname")[0] == "web-1\n"
    assert run("cat", "/etc/hostname")[0] == "web-1\n"
    assert "\tweb-1\n" in run("cat", "/etc/hosts")[0]
    assert run("sysctl", "-n", "kernel.shm_rmid_forced")[0] == "1\n"
    assert run("cat", "/proc/sys/kernel/shm_rmid_forced")[0] == "1\n"
    assert run("sysctl", "kernel.shm_rmid_forced")[0] == "kernel.shm_rmid_forced = 1\n"
    assert run("hostname", "other")[2] == 1


def test_env_and_expansion(exec_in):
    cfg = pb.ContainerConfig()
    cfg.envs.add(key="GREETING", value=b"hello")
    run = exec_in(cfg, hostname="h1")
    assert run("printenv", "GREETING")[0] == "hello\n"
    assert "GREETING=hello\n" in run("env")[0] and "HOSTNAME=h1\n" in run("env")[0]
    assert run("sh", "-c", "echo $GREETING ${GREETING}! $UNSET.")[0] == "hello hello! .\n"
    assert run("sh", "-c", "false; echo $?")[0] == "1\n"
    # env's options are its own: -u drops a name, -i starts from nothing (not read as programs or skipped)
    assert run("sh", "-c", "env -u GREETING sh -c 'echo [${GREETING-none}]'")[0] == "[none]\n"
    assert run("sh", "-c", "env -i X=1 sh -c 'echo \"$X:$GREETING:$HOME\"'")[0] == "1::\n"
    assert run("sh", "-c", "export Y=2; env | grep '^Y='")[0] == "Y=2\n"
    # cd exports OLDPWD (as ash does); pwd -P resolves the symlinks that pwd keeps
    assert run("sh", "-c", "cd /tmp; env | grep PWD | sort")[0] == "OLDPWD=/\nPWD=/tmp\n"
    assert run("sh", "-c", "cd /tmp; mkdir r; ln -s r s; cd s; pwd; pwd -P; pwd -P -L")[0] == "/tmp/s\n/tmp/r\n/tmp/s\n"


def test_mounts_map_to_host_paths_and_read_only_is_honoured(exec_in, tmp_path):
    rw, ro = tmp_path / "rw", tmp_path / "ro"
    rw.mkdir()
    ro.mkdir()
    (ro / "seed.txt").write_text("from the host\n")
    cfg = pb.ContainerConfig()
    cfg.mounts.add(container_path="/data", host_path=str(rw))
    cfg.mounts.add(container_path="/config", host_path=str(ro), readonly=True)
    run = exec_in(cfg)
    assert run("ls", "/config") == ("seed.txt\n", "", 0)
    assert run("cat", "/config/seed.txt")[0] == "from the host\n"
    assert run("sh", "-c", "echo written > /data/out.txt; echo more >> /data/out.txt")[2] == 0
    assert (rw / "out.txt").read_text() == "written\nmore\n"  # the write reached the host
    assert run("touch", "/config/new") == ("", "touch: /config/new: Read-only file system\n", 1)
    assert run("sh", "-c", "echo x > /config/f") == ("", "sh: can't create /config/f: Read-only file system\n", 1)
    (rw / "later.txt").write_text("made on the host after start\n")
    assert run("cat", "/data/later.txt")[0] == "made on the host after start\n"
    assert "data" in run("ls", "/")[0].split()


def test_hard_links_within_a_file_system_and_refused_across(exec_in, tmp_path):
    vol = tmp_path / "vol"
    vol.mkdir()
    (vol / "a").write_text("host\n")
    cfg = pb.ContainerConfig()
    cfg.mounts.add(container_path="/data", host_path=str(vol))
    run = exec_in(cfg)
    # the pod's /dev/shm and a mount are file systems of their own
    assert run("sh", "-c", "echo x > /tmp/a; ln /tmp/a /dev/shm/a; ln /tmp/a /data/b") == (
        "", "ln: /dev/shm/a: Invalid cross-device link\nln: /data/b: Invalid cross-device link\n", 1)
    # on a mount the link is made on the host
    assert run("sh", "-c", "ln /data/a /data/c && stat -c %h /data/c") == ("2\n", "", 0)
    assert (vol / "c").stat().st_ino == (vol / "a").stat().st_ino
    assert run("sh", "-c", "echo y > /tmp/f; ln /tmp/f /tmp/g; mv /tmp/g /data/g; stat -c %h /tmp/f /data/g; "
                     "cat /data/g")[0] == "1\n1\ny\n"  # across file systems mv copies


def test_the_root_filesystem_is_an_overlay_and_may_be_read_only(exec_in):
    run = exec_in()
    assert run("sh", "-c", "mkdir -p /tmp/a/b && echo hi > /tmp/a/b/f && cat /tmp/a/b/f")[0] == "hi\n"
    assert run("test", "-e", "/tmp/a/b/f")[2] == 0
    assert run("rm", "-r", "/tmp/a")[2] == 0
    assert run("test", "-e", "/tmp/a/b/f")[2] == 1
    assert run("cat", "/nope") == ("", "cat: can't open '/nope': No such file or directory\n", 1)
    locked = exec_in(container_spec(readonly_rootfs=True))
    assert locked("touch", "/tmp/x") == ("", "touch: /tmp/x: Read-only file system\n", 1)


def test_masked_and_read_only_paths(exec_in):
    run = exec_in(container_spec(masked_paths=["/etc/hostname"], readonly_paths=["/etc"]))
    assert run("cat", "/etc/hostname") == ("", "", 0)
    assert run("touch", "/etc/new")[2] == 1


def test_a_container_that_was_never_looked_into_costs_nothing(joined, pods, built):
    sb = pods.sandbox()
    cs = [pods.running(sb, f"c{i}") for i in range(50)]
    assert built == []
    plans = {id(joined.sim.plan(c, sb, None)) for c in cs}
    assert len(plans) == 1 and built == []  # one shared plan, no userland


def test_a_container_command_that_looks_inside_sees_its_own_userland(pods, runtime, joined, sink, built):
    sb = pods.sandbox()
    ids = container_spec(run_as_user=pb.Int64Value(value=1001), run_as_group=pb.Int64Value(value=1002))
    who = pods.running(sb, "who", command=("sh", "-c", "echo $(id -u):$(id -g)"), spec=decode.container_spec(ids))
    locked = pods.running(sb, "locked", command=("sh", "-c", "touch test.go && [ -f test.go ] && echo Found"),
                          spec=decode.container_spec(container_spec(readonly_rootfs=True)))
    free = pods.running(sb, "free", command=("sh", "-c", "touch test.go && [ -f test.go ] && echo Found"))
    assert len(built) == 3
    plain = pods.running(sb, "plain", command=("sh", "-c", "echo plain"))
    assert sink.lines(who.log_path) == ["1001:1002"]
    assert sink.of(locked.log_path)[0][:2] == ("stderr", "touch: test.go: Read-only file system")
    assert (runtime.get_container(locked.id).exit_code, runtime.get_container(free.id).exit_code) == (1, 0)
    assert sink.lines(free.log_path) == ["Found"] and sink.lines(plain.log_path) == ["plain"]
    assert len(built) == 3  # echo looks at nothing: no userland, the shared plan
    assert joined.sim.plan(plain, sb, None) is joined.sim.plan(
        pods.container(sb, "plain2", command=("sh", "-c", "echo plain")), sb, None)
    assert joined.sim.plan(free, sb, None) is not joined.sim.plan(
        pods.container(sb, "free2", command=("sh", "-c", "touch test.go && [ -f test.go ] && echo Found")), sb, None)


def test_command_substitution():
    from fakecri.sim.shell import trace
    # unquoted, the substitution's lines are split into words, as busybox does
    assert trace(["sh", "-c", "echo [$(echo a; echo b)] $(false)x"]).outputs == ((0, "stdout", "[a b] x\n"),)


def test_capabilities_and_seccomp_decide_privileged_commands(exec_in, tmp_path):
    plain = exec_in(container_spec())
    status = plain("cat", "/proc/self/status")[0]
    assert "CapEff:\t00000000a80425fb\n" in status and "Seccomp:\t0\n" in status
    assert plain("brctl", "addbr", "br0")[2] == 1
    assert plain("hostname", "new-name") == ("", "hostname: sethostname: Operation not permitted\n", 1)
    admin = exec_in(container_spec(capabilities=pb.Capability(add_capabilities=["NET_ADMIN", "CAP_SYS_ADMIN"]),
                                   seccomp=pb.SecurityProfile(profile_type=pb.SecurityProfile.Unconfined)))
    assert admin("brctl", "addbr", "br0")[2] == 0 and admin("hostname", "new-name")[2] == 0
    everything = exec_in(container_spec(capabilities=pb.Capability(add_capabilities=["ALL"])))
    assert "CapBnd:\t000001ffffffffff\n" in everything("cat", "/proc/self/status")[0]
    none = exec_in(container_spec(capabilities=pb.Capability(drop_capabilities=["ALL"])))
    assert "CapEff:\t0000000000000000\n" in none("grep", "Cap", "/proc/self/status")[0]
    filtered = exec_in(container_spec(seccomp=pb.SecurityProfile(profile_type=pb.SecurityProfile.RuntimeDefault)))
    assert filtered("grep", "Seccomp:", "/proc/self/status")[0] == "Seccomp:\t2\n"
    profile = tmp_path / "no-chmod.json"
    profile.write_text('{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["chmod", "fchmodat"],'
                       ' "action": "SCMP_ACT_ERRNO"}]}')
    local = exec_in(container_spec(seccomp=pb.SecurityProfile(profile_type=pb.SecurityProfile.Localhost,
                                                              localhost_ref=str(profile))))
    assert local("chmod", "400", "/") == ("", "chmod: /: Operation not permitted\n", 1)
    assert plain("chmod", "400", "/")[2] == 0
    root_only = exec_in(container_spec(run_as_user=pb.Int64Value(value=1000),
                                       capabilities=pb.Capability(add_capabilities=["NET_ADMIN"])))
    assert root_only("brctl", "addbr", "br0")[2] == 1  # a non-root user holds no effective capability


def test_masked_programs_and_raw_sockets(exec_in):
    masked = exec_in(container_spec(masked_paths=["/bin/ls"]))
    assert masked("/bin/sh", "-c", "ls") == ("", "/bin/sh: ls: Permission denied\n", 126)
    no_raw = exec_in(container_spec(capabilities=pb.Capability(drop_capabilities=["NET_RAW"])))
    out, err, code = no_raw("ping", "127.0.0.1")
    assert out.startswith("PING 127.0.0.1") and "permission denied" in err and code == 1
    pinger = exec_in()
    out, err, code = pinger("ping", "-c", "2", "127.0.0.1")
    assert code == 0 and out.count("64 bytes from 127.0.0.1") == 2
    assert pinger("sh", "-c", "nope")[1] == "sh: nope: not found\n"
    assert pinger("/bin/sh", "-c", "nope")[1] == "/bin/sh: nope: not found\n"


def _userns(mode: int, mappings=()) -> pb.NamespaceOption:
    maps = [pb.IDMapping(container_id=c, host_id=h, length=n) for c, h, n in mappings]
    return pb.NamespaceOption(userns_options=pb.UserNamespace(mode=mode, uids=maps, gids=maps))


def test_a_pod_user_namespace_shows_its_maps(exec_in, pods, sink):
    ns = _userns(pb.NamespaceMode.POD, [(0, 1000, 100000)])
    sandbox = pb.PodSandboxConfig(linux=pb.LinuxPodSandboxConfig(
        security_context=pb.LinuxSandboxSecurityContext(namespace_options=ns)))
    run = exec_in(pb.ContainerConfig(), sandbox)
    line = "         0       1000     100000\n"
    assert run("cat", "/proc/self/uid_map") == (line, "", 0)
    assert run("cat", "/proc/self/gid_map") == (line, "", 0)
    # the container's own namespace options win over the pod's; its own command reads the map too
    sb = pods.sandbox(spec=decode.sandbox_spec(sandbox))
    own = pb.ContainerConfig(linux=pb.LinuxContainerConfig(security_context=pb.LinuxContainerSecurityContext(
        namespace_options=_userns(pb.NamespaceMode.POD, [(0, 65536, 65536)]))))
    c = pods.running(sb, "maps", command=("cat", "/proc/self/uid_map"), spec=decode.container_spec(own))
    assert sink.lines(c.log_path) == ["         0      65536      65536"]


def test_the_node_user_namespace_is_the_hosts(exec_in):
    with open("/proc/self/uid_map") as f:
        host = f.read()
    ns = _userns(pb.NamespaceMode.NODE)
    sandbox = pb.PodSandboxConfig(linux=pb.LinuxPodSandboxConfig(
        security_context=pb.LinuxSandboxSecurityContext(namespace_options=ns)))
    assert exec_in(pb.ContainerConfig(), sandbox)("cat", "/proc/self/uid_map") == (host, "", 0)
    with open("/proc/self/gid_map") as f:
        assert exec_in()("cat", "/proc/self/gid_map") == (f.read(), "", 0)  # no user namespace option at all


def test_cat_reads_files_of_the_container_and_standard_input(exec_in):
    from fakecri.sim.userland import looks_inside
    run = exec_in()
    assert run("cat", "/nope") == ("", "cat: can't open '/nope': No such file or directory\n", 1)
    assert run("cat", "/dev/stdin") == ("", "", 0)  # no input given: nothing to echo
    assert looks_inside(["cat", "/etc/hosts"]) and not looks_inside(["cat", "/dev/stdin"])
    assert not looks_inside(["sh", "-c", "echo hi | cat"])
