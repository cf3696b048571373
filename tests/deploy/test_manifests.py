"""The deploy/ example: manifests parse and are wired as deploy/README.md says.

These read the files as they are; tests/deploy/test_rendered.py renders them with
kustomize, checks the result against the Kubernetes schema, runs one pod's containers here
and has the real kubelet load the configuration.
"""
import ipaddress
import re
from pathlib import Path, PurePosixPath

import pytest
import yaml

from fakecri.settings import load_settings, schema_from_click

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
MANIFESTS = sorted(DEPLOY.glob("*.yaml"))
KUBELET_FILES = PurePosixPath("/etc/kubelet")


def all_docs():
    docs = []
    for path in MANIFESTS:
        docs += [(path.name, d) for d in yaml.safe_load_all(path.read_text()) if d is not None]
    return docs


def find(kind, name=None):
    hits = [d for _, d in all_docs() if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert hits, f"no {kind} {name or ''} in deploy/"
    return hits


@pytest.fixture(scope="module")
def pod_spec():
    [sts] = find("StatefulSet")
    return sts["spec"]["template"]["spec"]


def containers(pod_spec):
    return {c["name"]: c for c in pod_spec.get("initContainers", []) + pod_spec["containers"]}


def flag_value(args, flag):
    for i, a in enumerate(args):
        if a == flag:
            return args[i + 1]
        if a.startswith(flag + "="):
            return a.split("=", 1)[1]
    raise AssertionError(f"{flag} not in {args}")


def test_every_manifest_has_api_version_kind_and_metadata():
    assert MANIFESTS and len(all_docs()) >= 6
    for name, doc in all_docs():
        api = doc.get("apiVersion")
        assert api == "v1" or (isinstance(api, str) and "/" in api), name
        assert isinstance(doc.get("kind"), str) and doc["kind"][0].isupper(), name
        assert doc["metadata"]["name"], name
        if doc["kind"] not in ("Namespace", "Kustomization", "ClusterRoleBinding"):
            assert doc["metadata"]["namespace"] == "fakecri-nodes", (name, doc["metadata"]["name"])


def test_kustomization_lists_every_other_manifest():
    [kust] = find("Kustomization")
    assert sorted(kust["resources"]) == sorted(p.name for p in MANIFESTS if p.name != "kustomization.yaml")
    generated = {g["name"]: g for g in kust["configMapGenerator"]}
    assert sorted(generated) == ["fake-node-farm", "fake-node-kubelets"]
    assert generated["fake-node-kubelets"]["files"] == ["kubelets.sh"] and (DEPLOY / "kubelets.sh").is_file()


def nodes_per_pod():
    """K, from the one place it is set: the fake-node-farm ConfigMap in kustomization.yaml."""
    [kust] = find("Kustomization")
    [farm] = [g for g in kust["configMapGenerator"] if g["name"] == "fake-node-farm"]
    [literal] = farm["literals"]
    key, _, value = literal.partition("=")
    assert key == "nodes"
    return int(value)


def test_k_is_set_once_and_the_resources_follow_it(pod_spec):
    """Both containers take K from the generated ConfigMap, and the pod's resources, patched in
    kustomization.yaml next to it, are those of K nodes by README's per-node figures."""
    from helpers.deploy import resources_for

    k = nodes_per_pod()
    assert 1 <= k <= 512
    for name in ("fakecri", "kubelets"):
        ref = env_of(containers(pod_spec)[name])["FAKECRI_NODES"]["valueFrom"]["configMapKeyRef"]
        assert ref == {"name": "fake-node-farm", "key": "nodes"}
        assert "resources" not in containers(pod_spec)[name], "resources belong next to K, in kustomization.yaml"
    [kust] = find("Kustomization")
    [patch] = [p for p in kust["patches"] if p["target"] == {"kind": "StatefulSet", "name": "fake-node"}]
    patched = yaml.safe_load(patch["patch"])["spec"]["template"]["spec"]
    got = {c["name"]: c["resources"] for c in patched["initContainers"] + patched["containers"]}
    assert got == resources_for(k)
    readme = (DEPLOY / "README.md").read_text()
    assert "nodes=" in readme and "50m + 5m" in readme and "96Mi" in readme


def env_of(container):
    return {e["name"]: e for e in container.get("env", [])}


def test_fakecri_and_the_kubelets_share_the_farm_directory(pod_spec):
    cs = containers(pod_spec)
    fakecri, kubelets = cs["fakecri"], cs["kubelets"]
    # The directory is set once per container, as FAKECRI_SOCKET_DIR, which serve, the probes,
    # ctl and kubelets.sh all read; the image's FAKECRI_SOCKET is emptied (a farm has none).
    directory = env_of(fakecri)["FAKECRI_SOCKET_DIR"]["value"]
    assert env_of(kubelets)["FAKECRI_SOCKET_DIR"]["value"] == directory
    assert env_of(fakecri)["FAKECRI_SOCKET"]["value"] == ""
    assert not any(a.startswith(("--socket", "--nodes")) for a in fakecri["args"])
    for probe in ("startupProbe", "livenessProbe"):
        assert fakecri[probe]["exec"]["command"] == ["fakecri", "health"]
    # kubelets.sh gives each kubelet its node's socket, ports, root dir and name.
    assert kubelets["command"] == ["sh", "/etc/fake-node/kubelets.sh"] and kubelets["args"][0] == "kubelet"
    for flag in ("--container-runtime-endpoint", "--hostname-override", "--root-dir", "--cert-dir", "--config-dir",
                 "--port", "--healthz-port"):
        assert not any(a.startswith(flag) for a in kubelets["args"]), flag
    # Both containers mount the same emptyDirs at the farm's directory and the pod logs.
    volumes = {v["name"]: v for v in pod_spec["volumes"]}
    mounts = [{m["mountPath"]: m["name"] for m in c["volumeMounts"]} for c in (fakecri, kubelets)]
    shared = {m.get(directory) for m in mounts}
    assert len(shared) == 1 and "emptyDir" in volumes[shared.pop()]
    logs = env_of(kubelets)["POD_LOGS_DIR"]["value"]
    assert mounts[0][logs] == mounts[1][logs] and "emptyDir" in volumes[mounts[0][logs]]
    assert "emptyDir" in volumes[mounts[1][env_of(kubelets)["KUBELET_ROOT"]["value"]]]


def references_come_before(env, name):
    names = list(env)
    for ref in re.findall(r"\$\((\w+)\)", env[name].get("value", "")):
        assert ref in names and names.index(ref) < names.index(name), (name, ref)


def test_node_names_and_pod_cidrs_come_from_the_ordinal(pod_spec):
    """fake-node-<ordinal>-<k>; every farm gets the same pod CIDR and takes its share by ordinal
    (tests/deploy/test_rendered.py checks the shares never overlap)."""
    env = env_of(containers(pod_spec)["fakecri"])
    assert env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    assert env["FAKECRI_NODE_NAME"]["value"] == "$(POD_NAME)-{i}"
    references_come_before(env, "FAKECRI_NODE_NAME")
    index = "metadata.labels['apps.kubernetes.io/pod-index']"
    assert env["FAKECRI_FARM_INDEX"]["valueFrom"]["fieldRef"]["fieldPath"] == index
    [cm] = find("ConfigMap", "fakecri-settings")
    settings = yaml.safe_load(cm["data"]["fakecri.yaml"])
    assert settings["pod_cidr"] == "198.18.0.0/15" and settings["node_cidr_size"] == 24
    # The kubelets label their Node with the pod that runs it.
    kubelets = containers(pod_spec)["kubelets"]
    references_come_before(env_of(kubelets), "POD_NAME")
    assert "fakecri.io/fake-node-pod=$(POD_NAME)" in flag_value(kubelets["args"], "--node-labels")


def test_two_pods_hand_out_different_pod_ips():
    """Real farms with the settings of fake-node-0 and fake-node-1 (two nodes each here): every
    node hands out pod IPs from a subnet of its own."""
    import shutil
    import tempfile

    import grpc
    from helpers.cri import sandbox_config

    from fakecri.api.runtime.v1 import api_pb2 as pb
    from fakecri.api.runtime.v1 import api_pb2_grpc
    from fakecri.server.config import FarmConfig, ServerConfig
    from fakecri.server.process.farm import Farm

    [cm] = find("ConfigMap", "fakecri-settings")
    settings = yaml.safe_load(cm["data"]["fakecri.yaml"])
    got = []
    for ordinal in (0, 1):
        directory = tempfile.mkdtemp(prefix="dm-", dir="/tmp")  # short: socket paths
        config = ServerConfig(quiet=True, pod_cidr=settings["pod_cidr"], state_root=f"{directory}/root")
        farm = FarmConfig(nodes=2, socket_dir=f"{directory}/s", node_name=f"fake-node-{ordinal}-{{i}}",
                          node_cidr_size=settings["node_cidr_size"], farm_index=ordinal)
        try:
            with Farm(config, farm) as f:
                for name in sorted(f.servers):
                    with grpc.insecure_channel("unix:" + f.socket_of(name)) as channel:
                        rt = api_pb2_grpc.RuntimeServiceStub(channel)
                        sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=sandbox_config(uid=f"u-{name}")),
                                               timeout=10).pod_sandbox_id
                        ip = rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=sid),
                                                 timeout=10).status.network.ip
                    got.append((name, f.describe(name).pod_cidr, ip))
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    assert [(n, c) for n, c, _ in got] == [("fake-node-0-0", "198.18.0.0/24"), ("fake-node-0-1", "198.18.1.0/24"),
                                           ("fake-node-1-0", "198.18.2.0/24"), ("fake-node-1-1", "198.18.3.0/24")]
    for _, cidr, ip in got:
        assert ipaddress.ip_address(ip) in ipaddress.ip_network(cidr)
    assert len({ip for _, _, ip in got}) == 4


def test_kubelet_credentials_come_from_the_manifests(pod_spec):
    """No Secret to make by hand: the kubeconfig is a ConfigMap, the token and CA are
    projected, and the ServiceAccount they belong to may act as a node."""
    kubelet = containers(pod_spec)["kubelets"]
    kubeconfig_path = PurePosixPath(flag_value(kubelet["args"], "--kubeconfig"))
    mount = {m["mountPath"]: m["name"] for m in kubelet["volumeMounts"]}[str(kubeconfig_path.parent)]
    [volume] = [v for v in pod_spec["volumes"] if v["name"] == mount]
    projected = {}
    for source in volume["projected"]["sources"]:
        if "configMap" in source:
            name = source["configMap"]["name"]
            if name == "kube-root-ca.crt":  # every namespace has it (Kubernetes 1.21 and later)
                projected.update({i["path"]: "ca" for i in source["configMap"]["items"]})
                continue
            [cm] = find("ConfigMap", name)
            projected.update({key: cm["data"][key] for key in cm["data"]})
        elif "serviceAccountToken" in source:
            projected[source["serviceAccountToken"]["path"]] = "token"
        else:
            raise AssertionError(f"unexpected source {source}: the pod should need nothing made by hand")
    kubeconfig = yaml.safe_load(projected[kubeconfig_path.name])
    [user] = kubeconfig["users"]
    [cluster] = kubeconfig["clusters"]
    assert projected[PurePosixPath(user["user"]["tokenFile"]).relative_to(kubeconfig_path.parent).as_posix()] == "token"
    ca = PurePosixPath(cluster["cluster"]["certificate-authority"])
    assert projected[ca.relative_to(kubeconfig_path.parent).as_posix()] == "ca"
    # The API server's client certificate (logs, exec) is checked against the same CA.
    config = yaml.safe_load(projected[PurePosixPath(flag_value(kubelet["args"], "--config")).name])
    assert PurePosixPath(config["authentication"]["x509"]["clientCAFile"]) == ca
    assert cluster["cluster"]["server"] == "https://kubernetes.default.svc"
    # The token is the pod's ServiceAccount's, and only the kubelet sees it.
    assert pod_spec["automountServiceAccountToken"] is False
    [sa] = find("ServiceAccount", pod_spec["serviceAccountName"])
    [binding] = find("ClusterRoleBinding")
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:node"}
    subject = {"kind": "ServiceAccount", "name": sa["metadata"]["name"], "namespace": "fakecri-nodes"}
    assert subject in binding["subjects"]
    fakecri_mounts = {m["name"] for m in containers(pod_spec)["fakecri"]["volumeMounts"]}
    assert mount not in fakecri_mounts


def test_images_are_set_in_one_place(pod_spec):
    [kust] = find("Kustomization")
    entries = {e["name"]: e for e in kust["images"]}
    for c in containers(pod_spec).values():
        # A bare name that kustomize's images: entry replaces; no tag spread over the manifests.
        assert ":" not in c["image"] and "/" not in c["image"], c["image"]
        assert c["image"] in entries and entries[c["image"]]["newTag"], c["image"]


def test_fakecri_runs_as_a_native_sidecar(pod_spec):
    [sidecar] = [c for c in pod_spec["initContainers"] if c["name"] == "fakecri"]
    assert sidecar["restartPolicy"] == "Always"


def test_statefulset_selector_service_and_referenced_objects(pod_spec):
    [sts] = find("StatefulSet")
    labels = sts["spec"]["template"]["metadata"]["labels"]
    assert sts["spec"]["selector"]["matchLabels"].items() <= labels.items()
    [svc] = find("Service", sts["spec"]["serviceName"])
    assert svc["spec"]["clusterIP"] == "None" and svc["spec"]["selector"].items() <= labels.items()
    mounted = {m["name"] for c in containers(pod_spec).values() for m in c["volumeMounts"]}
    assert mounted == {v["name"] for v in pod_spec["volumes"]}
    [kust] = find("Kustomization")
    generated = {g["name"] for g in kust["configMapGenerator"]}
    for vol in pod_spec["volumes"]:
        for source in vol.get("projected", {}).get("sources", []) or [vol]:
            if "configMap" in source and source["configMap"]["name"] != "kube-root-ca.crt":
                name = source["configMap"]["name"]
                assert name in generated or find("ConfigMap", name)
            assert "secret" not in source, "a Secret the manifests do not make would keep pods waiting"


def test_fakecri_settings_use_keys_settings_py_accepts(tmp_path, pod_spec):
    from fakecri.cli import serve

    [cm] = find("ConfigMap", "fakecri-settings")
    config_path = flag_value(containers(pod_spec)["fakecri"]["args"], "--config")
    filename = PurePosixPath(config_path).name
    schema = schema_from_click(serve)
    accepted = set(schema["known_keys"]) | set(schema["aliases"])
    data = yaml.safe_load(cm["data"][filename])
    assert data and set(data) <= accepted, set(data) - accepted
    local = tmp_path / filename
    local.write_text(cm["data"][filename])
    env = {e["name"]: e["value"] for e in containers(pod_spec)["fakecri"].get("env", []) if "value" in e}
    env.update(FAKECRI_NODES="10", FAKECRI_FARM_INDEX="3", FAKECRI_NODE_NAME="fake-node-3-{i}")
    settings = load_settings(str(local), env, **schema)
    assert settings["cgroup_driver"] == "cgroupfs"
    assert settings["log_level"] == env["FAKECRI_LOG_LEVEL"]
    assert "socket" not in settings and settings["socket_dir"] == env["FAKECRI_SOCKET_DIR"]
    assert (settings["nodes"], settings["farm_index"]) == ("10", "3")
    assert settings["pod_cidr"] == "198.18.0.0/15" and settings["node_cidr_size"] == 24
    # The catalog the settings name is the catalog the pod mounts next to it.
    catalog_name = PurePosixPath(settings["image_catalog"]).name
    [catalog] = find("ConfigMap", "fakecri-image-catalog")
    assert PurePosixPath(settings["image_catalog"]).parent == PurePosixPath(config_path).parent
    assert catalog_name in catalog["data"]


def test_catalog_loads_and_cgroup_drivers_agree():
    from fakecri.sim.catalog import Catalog

    [catalog] = find("ConfigMap", "fakecri-image-catalog")
    cat = Catalog.from_dict(yaml.safe_load(catalog["data"]["catalog.yaml"]), source="deploy catalog")
    assert cat.images
    [kcm] = find("ConfigMap", "fake-kubelet-config")
    kubelet = yaml.safe_load(kcm["data"]["kubelet-config.yaml"])
    assert kubelet["kind"] == "KubeletConfiguration"
    [cm] = find("ConfigMap", "fakecri-settings")
    assert yaml.safe_load(cm["data"]["fakecri.yaml"])["cgroup_driver"] == kubelet["cgroupDriver"]


def test_kubelets_sh_is_plain_sh():
    import shutil
    import subprocess

    script = DEPLOY / "kubelets.sh"
    out = subprocess.run(["sh", "-n", str(script)], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert script.read_text().startswith("#!/bin/sh\n")
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck not found on PATH: the script was only parsed by sh -n")
    out = subprocess.run([shellcheck, "-s", "sh", str(script)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout
