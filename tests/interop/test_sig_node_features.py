"""SIG Node's features on a fakecri node, through a real control plane and a real kubelet
with its own pod cgroups (the tool kit's mini cluster, `KUBELET_POD_CGROUPS=true`): an
in-place resize read back from inside the container with `kubectl exec`, a pod-level resize,
`hostUsers: false`, an image volume, and the swap the node reports. Slow; `--run-slow`; each
skips with the reason when the machine cannot run a mini cluster (no kubelet, not root...).

The kubelet runs with `PodAndContainerStatsFromCRI`: it then reads a pod's memory usage (for its
check before a lower pod limit) from PodSandboxStats; without it, from the pod cgroup on the
host, which holds none of fakecri's processes (0), so only its per-container check would refuse."""
from __future__ import annotations

import json
import os
import re

import pytest

from interop.mini_cluster import MiniCluster, running

pytestmark = pytest.mark.slow

BUSYBOX = "registry.k8s.io/e2e-test-images/busybox:1.37.0-1"
KITTEN = "registry.k8s.io/e2e-test-images/kitten:1.7"
MIB = 1024 * 1024
SWAP = 1024 * MIB


@pytest.fixture(scope="module")
def mc():
    env = {"KUBELET_POD_CGROUPS": "true", "FAKECRI_EXTRA_ARGS": f"--swap {SWAP}",
           "KUBELET_FEATURE_GATES": "PodAndContainerStatsFromCRI=true"}
    # the kubelet's cgroup root is named by the node (/mini-cluster-NAME): a name of its own, so
    # another cluster's kubelet on this host does not remove this one's pod cgroups as orphans
    with running(env=env, node=f"sig-{os.getpid()}") as cluster:
        yield cluster


def _read(mc: MiniCluster, name: str, path: str) -> str:
    done = mc.exec(name, "cat", path)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _busybox_pod(name: str, resources: dict, extra: dict | None = None) -> str:
    container = {"name": "c1", "image": BUSYBOX, "command": ["sh", "-c", "sleep 1d"], "resources": resources,
                 "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"},
                                  {"resourceName": "memory", "restartPolicy": "NotRequired"}]}
    spec = {"terminationGracePeriodSeconds": 0, "containers": [container], **(extra or {})}
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec})


def test_an_in_place_resize_reaches_the_containers_cgroup(mc):
    limits = {"cpu": "200m", "memory": "200Mi"}
    mc.apply(_busybox_pod("resize", {"requests": limits, "limits": limits}))
    mc.wait_ready("resize")
    assert mc.exec("resize", "sh", "-c", "mount -t cgroup2").stdout != ""
    assert _read(mc, "resize", "/sys/fs/cgroup/memory.max") == str(200 * MIB)
    assert _read(mc, "resize", "/sys/fs/cgroup/cpu.max") == "20000 100000"
    bigger = {"cpu": "400m", "memory": "300Mi"}
    patch = {"spec": {"containers": [{"name": "c1", "resources": {"requests": bigger, "limits": bigger}}]}}
    mc.kubectl("patch", "pod", "resize", "--subresource", "resize", "--type", "strategic", "-p", json.dumps(patch))
    mc.until(lambda: _read(mc, "resize", "/sys/fs/cgroup/memory.max") == str(300 * MIB), 60, "the new memory limit")
    assert _read(mc, "resize", "/sys/fs/cgroup/cpu.max") == "40000 100000"
    assert _read(mc, "resize", "/sys/fs/cgroup/cpu.weight") in ("16", "49")  # runc's old or new weight for 409 shares


def test_a_pod_level_resize_reaches_the_sandbox(mc):
    pod = {"requests": {"cpu": "200m", "memory": "200Mi"}, "limits": {"cpu": "200m", "memory": "200Mi"}}
    mc.apply(_busybox_pod("plr", {}, {"resources": pod}))
    mc.wait_ready("plr")
    bigger = {"cpu": "300m", "memory": "300Mi"}
    patch = {"spec": {"resources": {"requests": bigger, "limits": bigger}}}
    mc.kubectl("patch", "pod", "plr", "--subresource", "resize", "--type", "merge", "-p", json.dumps(patch))
    mc.until(lambda: mc.pod("plr")["status"].get("resources", {}).get("limits", {}).get("memory") == "300Mi", 60,
             "the pod's new limits in its status")


def test_host_users_false_gets_the_kubelets_mapping(mc):
    mc.apply(_busybox_pod("userns", {}, {"hostUsers": False}))
    mc.wait_ready("userns")
    line = _read(mc, "userns", "/proc/self/uid_map").split()
    assert line[0] == "0" and line[1] != "0" and line[2] == "65536"  # the pod's own range, not the host's
    assert _read(mc, "userns", "/proc/self/gid_map").split() == line


def test_an_image_volume_shows_the_images_files(mc):
    volumes = {"volumes": [{"name": "v", "image": {"reference": KITTEN}}]}
    manifest = json.loads(_busybox_pod("imgvol", {}, volumes))
    manifest["spec"]["containers"][0]["volumeMounts"] = [{"name": "v", "mountPath": "/volume"}]
    mc.apply(json.dumps(manifest))
    mc.wait_ready("imgvol", timeout=120)
    assert "kitten.jpg" in _read(mc, "imgvol", "/volume/data.json")
    assert "Alpine Linux" in _read(mc, "imgvol", "/volume/etc/os-release")


def test_the_nodes_swap_and_the_kubelets_swap_limit(mc):
    mc.apply(_busybox_pod("swap", {"requests": {"memory": "100Mi"}, "limits": {"memory": "200Mi"}}))
    mc.wait_ready("swap")
    assert f"{SWAP // 1024} kB" in mc.exec("swap", "grep", "SwapTotal", "/proc/meminfo").stdout
    # what the kubelet sent as unified memory.swap.max: 0 with NoSwap or no host swap, else LimitedSwap's share
    assert _read(mc, "swap", "/sys/fs/cgroup/memory.swap.max").isdigit()


def _resize(mc: MiniCluster, name: str, resources: dict, *, pod_level: bool = False) -> None:
    spec = {"resources": resources} if pod_level else {"containers": [{"name": "c1", "resources": resources}]}
    mc.kubectl("patch", "pod", name, "--subresource", "resize", "--type", "strategic", "-p", json.dumps({"spec": spec}))


def _refused(mc: MiniCluster, name: str) -> str:
    """The kubelet's message once it holds the resize in progress with an error ("" before)."""
    conditions = mc.pod(name)["status"].get("conditions", [])
    held = [c for c in conditions if c["type"] == "PodResizeInProgress" and c.get("reason") == "Error"]
    return held[0].get("message", "") if held else ""


def _guaranteed(memory: str) -> dict:
    both = {"cpu": "20m", "memory": memory}
    return {"requests": both, "limits": both}


BELOW_USAGE = re.compile(r"memory limit \(\d+\) below current usage")


def test_a_lower_memory_limit_is_taken_and_one_below_the_usage_is_refused(mc):
    """The e2e's "decrease memory limit below usage": 35Mi to 30Mi completes (a busybox shell holds
    well under that), 10Ki is refused by the kubelet, which reads the usage fakecri reports."""
    mc.apply(_busybox_pod("shrink", _guaranteed("35Mi")))
    mc.wait_ready("shrink")
    _resize(mc, "shrink", _guaranteed("30Mi"))
    mc.until(lambda: _read(mc, "shrink", "/sys/fs/cgroup/memory.max") == str(30 * MIB), 60, "the lower limit")
    mc.until(lambda: not _refused(mc, "shrink") and mc.status("shrink", "c1").get("resources", {}).get(
        "limits", {}).get("memory") == "30Mi", 60, "the resize to complete")
    _resize(mc, "shrink", _guaranteed("10Ki"))
    message = mc.until(lambda: _refused(mc, "shrink"), 60, "the kubelet to refuse 10Ki")
    assert BELOW_USAGE.search(message), message
    assert _read(mc, "shrink", "/sys/fs/cgroup/memory.max") == str(30 * MIB)


def test_a_lower_pod_memory_limit_below_the_pods_usage_is_refused(mc):
    """The pod-level e2e's "decrease pod-level memory limit below usage": the kubelet reads the pod's
    usage from PodSandboxStats (the pause container and the shell), so 10Ki is refused."""
    pod = {"requests": {"memory": "35Mi"}, "limits": {"memory": "35Mi"}}
    mc.apply(_busybox_pod("podshrink", {}, {"resources": pod}))
    mc.wait_ready("podshrink")
    _resize(mc, "podshrink", {"requests": {"memory": "30Mi"}, "limits": {"memory": "30Mi"}}, pod_level=True)
    mc.until(lambda: mc.pod("podshrink")["status"].get("resources", {}).get("limits", {}).get("memory") == "30Mi",
             60, "the pod's lower limit in its status")
    _resize(mc, "podshrink", {"requests": {"memory": "10Ki"}, "limits": {"memory": "10Ki"}}, pod_level=True)
    message = mc.until(lambda: _refused(mc, "podshrink"), 60, "the kubelet to refuse 10Ki for the pod")
    assert BELOW_USAGE.search(message) and "pod memory limit" in message, message
