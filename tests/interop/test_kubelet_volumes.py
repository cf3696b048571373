"""Volumes a real kubelet writes, read by containers on fakecri: configMap, secret, downwardAPI,
projected, emptyDir on disk and in memory with a size limit, hostPath with subPath; modes,
owners, fsGroup and runAsUser; the file systems df, stat -f, mount and agnhost mounttest
report; a configMap update reaching a running container.

A whole cluster (control plane, one kubelet on fakecri) runs for the module, through the
mini-cluster scripts (see interop/mini_cluster.py), about 20 s to start. The kubelet
syncs pods every 10 s here (the default is a minute), so a configMap update lands sooner.
"""
from __future__ import annotations

import os

import pytest

from interop.mini_cluster import MiniCluster, running

pytestmark = pytest.mark.slow

BUSYBOX = "busybox:1.36"
AGNHOST = "registry.k8s.io/e2e-test-images/agnhost:2.53"
NODE = "fv-volumes"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with running(lambda: MiniCluster(tmp_path_factory.mktemp("mini-cluster"), kubelet_args="--sync-frequency=10s"),
                 node=NODE, pod_cidr="127.91.200.0/24") as c:
        c.apply(CONFIG)
        yield c


CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {data-1: value-1, data-2: value-2}
---
apiVersion: v1
kind: Secret
metadata: {name: credentials}
stringData: {user: admin}
"""


def pod(name: str, containers: str, volumes: str, security: str = "{}", restart: str = "Never") -> str:
    return f"""\
apiVersion: v1
kind: Pod
metadata: {{name: {name}, labels: {{app: {name}}}}}
spec:
  restartPolicy: {restart}
  terminationGracePeriodSeconds: 1
  securityContext: {security}
  containers:
{containers}
  volumes:
{volumes}
"""


def finished_logs(cluster: MiniCluster, name: str, container: str = "", phase: str = "Succeeded") -> list[str]:
    got = cluster.finished(name)
    assert got["status"]["phase"] == phase, (got["status"], cluster.node_log_tail())
    return cluster.logs(name, container).splitlines()


def test_configmap_secret_downward_and_projected_files(cluster):
    script = ("id; cat /etc/cm/path/to/d1; echo; cat /etc/cm/d2; echo; ls -l /etc/cm; "
              "stat -L -c '%a %u %g %n' /etc/cm/path/to/d1 /etc/cm/d2 /etc/secret/user /etc/podinfo/labels "
              "/proj/data-1; cat /etc/podinfo/labels; echo; ls /proj; stat -f -c '%T %n' /etc/cm /etc/secret /proj; "
              "cat /etc/cm/missing; touch /etc/cm/new")
    cluster.apply(pod("files", f"""\
  - name: c
    image: {BUSYBOX}
    command: [sh, -c, "{script}"]
    volumeMounts:
    - {{name: cm, mountPath: /etc/cm}}
    - {{name: secret, mountPath: /etc/secret}}
    - {{name: dapi, mountPath: /etc/podinfo}}
    - {{name: proj, mountPath: /proj}}""", """\
  - {name: cm, configMap: {name: settings, defaultMode: 0440, items: [{key: data-1, path: path/to/d1, mode: 0600},
                                                                       {key: data-2, path: d2}]}}
  - {name: secret, secret: {secretName: credentials, defaultMode: 0400}}
  - {name: dapi, downwardAPI: {items: [{path: labels, fieldRef: {fieldPath: metadata.labels}}]}}
  - {name: proj, projected: {sources: [{configMap: {name: settings}}, {serviceAccountToken: {path: token}}]}}""",
        security="{runAsUser: 1000, fsGroup: 2000}"))
    lines = finished_logs(cluster, "files", phase="Failed")  # the last two commands fail, as they should
    assert lines[0] == "uid=1000 gid=0(root) groups=0(root),2000"
    assert lines[1:3] == ["value-1", "value-2"]
    listing = [line for line in lines if line.startswith("l")]
    assert [line.split()[-3:] for line in listing] == [["d2", "->", "..data/d2"], ["path", "->", "..data/path"]]
    assert all(line.split()[2:4] == ["root", "2000"] for line in listing)
    # item mode 0600, defaultMode 0440 and 0400, the downward API's 0644: fsGroup owns them, and the
    # kubelet lets the group read what its owner may
    assert "640 0 2000 /etc/cm/path/to/d1" in lines and "440 0 2000 /etc/cm/d2" in lines
    assert "440 0 2000 /etc/secret/user" in lines and "644 0 2000 /etc/podinfo/labels" in lines
    assert "644 0 2000 /proj/data-1" in lines
    assert 'app="files"' in lines and ["data-1", "data-2", "token"] == lines[lines.index('app="files"') + 1:][:3]
    assert "ext2/ext3 /etc/cm" in lines or any(line.endswith(" /etc/cm") for line in lines)
    assert "tmpfs /etc/secret" in lines and "tmpfs /proj" in lines  # the kubelet mounts these as tmpfs
    assert lines[-2:] == ["cat: can't open '/etc/cm/missing': No such file or directory",
                          "touch: /etc/cm/new: Read-only file system"]


def test_emptydir_on_disk_and_in_memory(cluster):
    script = ("stat -f -c '%T' /mem /disk; df -k /mem; df -h /mem; grep ' /mem ' /proc/mounts; "
              "touch /mem/a /disk/b; ls -ln /mem /disk; stat -c '%A %u %g' /mem /disk")
    cluster.apply(pod("emptydir", f"""\
  - name: c
    image: {BUSYBOX}
    command: [sh, -c, "{script}"]
    volumeMounts:
    - {{name: mem, mountPath: /mem}}
    - {{name: disk, mountPath: /disk}}
  - name: mounttest
    image: {AGNHOST}
    args: [mounttest, --fs_type=/mem, --new_file_0660=/mem/test-file, --file_perm=/mem/test-file,
           --file_owner=/mem/test-file, --file_mode=/disk]
    volumeMounts:
    - {{name: mem, mountPath: /mem}}
    - {{name: disk, mountPath: /disk}}""", """\
  - {name: mem, emptyDir: {medium: Memory, sizeLimit: 10Mi}}
  - {name: disk, emptyDir: {}}""", security="{runAsUser: 1001, fsGroup: 123}"))
    lines = finished_logs(cluster, "emptydir", "c")
    assert lines[0] == "tmpfs" and lines[1] != "tmpfs"
    assert lines[3].split()[:2] == ["tmpfs", "10240"] and lines[3].endswith(" /mem")
    assert lines[5].split()[1] == "10.0M"
    assert any(line.startswith("tmpfs /mem tmpfs rw,") and "size=10240k" in line for line in lines)
    owned = [line.split()[2:4] for line in lines if line.startswith("-rw-r--r--")]
    assert owned == [["1001", "123"], ["1001", "123"]]  # the user's file, the setgid directory's group
    assert "drwxrwsrwt 0 123" in lines and "drwxrwsrwx 0 123" in lines
    out = cluster.logs("emptydir", "mounttest").splitlines()
    assert 'mount type of "/mem": tmpfs' in out and 'perms of file "/mem/test-file": -rw-rw----' in out
    assert 'owner UID of "/mem/test-file": 1001' in out and 'owner GID of "/mem/test-file": 123' in out
    assert 'mode of file "/disk": dgrwxrwxrwx' in out


def test_hostpath_with_subpath(cluster, tmp_path):
    host = tmp_path / "host-volume"
    host.mkdir()
    os.chmod(host, 0o1777)
    cluster.apply(pod("hostpath", f"""\
  - name: writer
    image: {AGNHOST}
    args: [mounttest, --new_file_0644=/test-volume/test-file, --file_mode=/test-volume/test-file]
    volumeMounts: [{{name: hp, mountPath: /test-volume, subPath: sub-path}}]
  - name: reader
    image: {AGNHOST}
    args: [mounttest, --file_content_in_loop=/test-volume/sub-path/test-file, --retry_time=60]
    volumeMounts: [{{name: hp, mountPath: /test-volume}}]
  - name: busybox
    image: {BUSYBOX}
    command: [sh, -c, "sleep 2; ls -l /test-volume; stat -c '%a %F' /test-volume/test-file"]
    volumeMounts: [{{name: hp, mountPath: /test-volume, subPath: sub-path}}]""",
        f"  - {{name: hp, hostPath: {{path: {host}, type: Directory}}}}"))
    assert finished_logs(cluster, "hostpath", "writer") == [
        'content of file "/test-volume/test-file": mount-tester new file', "",
        'mode of file "/test-volume/test-file": -rw-r--r--']
    assert cluster.logs("hostpath", "reader").splitlines()[-2:] == [
        'content of file "/test-volume/sub-path/test-file": mount-tester new file', ""]
    assert (host / "sub-path" / "test-file").read_text() == "mount-tester new file\n"
    busybox = cluster.logs("hostpath", "busybox").splitlines()
    assert busybox[-1] == "644 regular file" and busybox[-2].endswith(" test-file")


def test_a_configmap_update_reaches_a_running_container(cluster):
    cluster.apply("""\
apiVersion: v1
kind: ConfigMap
metadata: {name: changing}
data: {data-1: value-1}
""")
    cluster.apply(pod("watcher", f"""\
  - name: c
    image: {AGNHOST}
    args: [mounttest, --break_on_expected_content=false, --retry_time=120,
           --file_content_in_loop=/etc/configmap-volume/data-1]
    volumeMounts: [{{name: cm, mountPath: /etc/configmap-volume}}]
  - name: shell
    image: {BUSYBOX}
    command: [sh, -c, "while true; do cat /etc/configmap-volume/data-1; echo; sleep 1; done"]
    volumeMounts: [{{name: cm, mountPath: /etc/configmap-volume}}]""",
        "  - {name: cm, configMap: {name: changing}}", restart="Always"))
    line = 'content of file "/etc/configmap-volume/data-1": '
    cluster.until(lambda: line + "value-1" in cluster.logs("watcher", "c", check=False), 60, "the first content")
    cluster.kubectl("patch", "configmap", "changing", "-p", '{"data": {"data-1": "value-2"}}')
    cluster.until(lambda: line + "value-2" in cluster.logs("watcher", "c", check=False), 150,
                  "the update in mounttest's loop")
    cluster.until(lambda: "value-2" in cluster.logs("watcher", "shell", check=False).splitlines(), 30,
                  "the update in the shell loop")
    assert cluster.pod("watcher")["status"]["phase"] == "Running"
    cluster.kubectl("delete", "pod", "watcher", "--wait=false")
