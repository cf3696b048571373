"""hostUsers: false. A pod with a user namespace of its own sees the kubelet's mapping in
/proc/self/uid_map; files on its volumes show owners through the mount's idmap when the
kubelet asks for an idmapped mount (the on-disk id is read as an id of the map), and the
overflow id 65534 when the namespace does not map the file's owner."""
from __future__ import annotations

import os

import pytest

from fakecri.engine.specs import POD, ContainerSpec, Mount, Namespaces, SandboxSpec, UserNamespace
from fakecri.server.host.host import LocalHost

MAP = ((0, 100_000, 65_536),)


@pytest.fixture
def local_host(joined):
    host = joined.sim.host = LocalHost()
    yield host
    host.close()


def _run(joined, pods, volume, mappings=(), **container):
    userns = Namespaces(userns=UserNamespace(mode=POD, uids=MAP, gids=MAP))
    sb = pods.sandbox(spec=SandboxSpec(namespaces=userns))
    mount = Mount(container_path="/vol", host_path=str(volume), uid_mappings=mappings, gid_mappings=mappings)
    c = pods.running(sb, spec=ContainerSpec(mounts=(mount,), **container))

    def sh(cmd: str) -> tuple[int, str, str]:
        r = joined.exec_sync(c.id, ["sh", "-c", cmd])
        return r.exit_code, r.stdout.decode(), r.stderr.decode()
    return sh


def test_owners_through_the_idmapped_volume(joined, pods, local_host, tmp_path):
    volume = tmp_path / "vol"
    volume.mkdir()
    (volume / "f").write_text("x")
    owner = os.stat(volume / "f").st_uid
    shown = owner if owner < 65_536 else 65534
    sh = _run(joined, pods, volume)  # no maps named: idmapped with the pod's, as containerd mounts it
    assert sh("cat /proc/self/uid_map") == (0, "         0     100000      65536\n", "")
    assert sh("stat -c %u /vol/f") == (0, f"{shown}\n", "")
    assert _run(joined, pods, volume, MAP)("stat -c %u /vol/f") == (0, f"{shown}\n", "")
    # a mount that names maps of its own that lead outside the pod's range: the overflow id
    other = _run(joined, pods, volume, ((0, 500_000, 65_536),))
    assert other("stat -c %u /vol/f") == (0, "65534\n", "")
