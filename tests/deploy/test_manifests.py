"""The deploy/ example: manifests parse and are wired as deploy/README.md says.

These read the files as they are; tests/deploy/test_rendered.py renders them with
kustomize and checks the result against the Kubernetes schema and the real kubelet.
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


def env_of(container):
    return {e["name"]: e for e in container.get("env", [])}


def test_kubelet_endpoint_is_the_fakecri_socket(pod_spec):
    cs = containers(pod_spec)
    fakecri, kubelet = cs["fakecri"], cs["kubelet"]
    # The socket is set once, as FAKECRI_SOCKET, which serve and the probes both read.
    socket = env_of(fakecri)["FAKECRI_SOCKET"]["value"]
    assert not any(a.startswith("--socket") for a in fakecri["args"])
    assert flag_value(kubelet["args"], "--container-runtime-endpoint") == f"unix://{socket}"
    for probe in ("startupProbe", "livenessProbe"):
        assert fakecri[probe]["exec"]["command"] == ["fakecri", "health"]
    # Both containers mount the same emptyDir at the socket's directory.
    volumes = {v["name"]: v for v in pod_spec["volumes"]}
    mounts = [{m["mountPath"]: m["name"] for m in c["volumeMounts"]} for c in (fakecri, kubelet)]
    shared = {m.get(str(PurePosixPath(socket).parent)) for m in mounts}
    assert len(shared) == 1 and "emptyDir" in volumes[shared.pop()]
    assert mounts[0]["/var/log/pods"] == mounts[1]["/var/log/pods"]


def pod_cidr_for(pod_spec, ordinal):
    """FAKECRI_POD_CIDR as the kubelet expands it for the pod with this ordinal."""
    env = env_of(containers(pod_spec)["fakecri"])
    assert env["POD_INDEX"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.labels['apps.kubernetes.io/pod-index']"
    names = list(env)
    template = env["FAKECRI_POD_CIDR"]["value"]
    # A $(VAR) reference expands only to a variable defined earlier in the list.
    for ref in re.findall(r"\$\((\w+)\)", template):
        assert names.index(ref) < names.index("FAKECRI_POD_CIDR"), ref
    return template.replace("$(POD_INDEX)", str(ordinal))


def test_every_node_gets_its_own_pod_cidr(pod_spec):
    [sts] = find("StatefulSet")
    assert sts["spec"]["replicas"] >= 2
    nets = [ipaddress.ip_network(pod_cidr_for(pod_spec, n)) for n in range(256)]
    for i, net in enumerate(nets):
        assert net.prefixlen <= 24, net
        assert not any(net.overlaps(other) for other in nets[i + 1:]), net
    # The settings file names no pod_cidr of its own that every node would share.
    [cm] = find("ConfigMap", "fakecri-settings")
    assert "pod_cidr" not in yaml.safe_load(cm["data"]["fakecri.yaml"])


def test_two_nodes_hand_out_different_pod_ips(pod_spec):
    """Two real fakecri servers with the CIDRs of fake-node-0 and fake-node-1."""
    from fakecri.testing import FakeCRI

    ips = []
    for ordinal in (0, 1):
        cidr = pod_cidr_for(pod_spec, ordinal)
        with FakeCRI.start(pod_cidr=cidr) as node, node.client() as cri:
            sid = cri.run_pod_sandbox({"metadata": {"name": "p", "namespace": "default", "uid": "u"}})
            ip = cri.pod_sandbox_status(sid).status.network.ip
            assert ipaddress.ip_address(ip) in ipaddress.ip_network(cidr)
            ips.append(ip)
    assert ips[0] != ips[1]


def test_kubelet_credentials_come_from_the_manifests(pod_spec):
    """No Secret to make by hand: the kubeconfig is a ConfigMap, the token and CA are
    projected, and the ServiceAccount they belong to may act as a node."""
    kubelet = containers(pod_spec)["kubelet"]
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
    assert cluster["cluster"]["server"] == "https://kubernetes.default.svc"
    # The token is the pod's ServiceAccount's, and only the kubelet sees it.
    assert pod_spec["automountServiceAccountToken"] is False
    [sa] = find("ServiceAccount", pod_spec["serviceAccountName"])
    [binding] = find("ClusterRoleBinding")
    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:node"}
    assert {"kind": "ServiceAccount", "name": sa["metadata"]["name"], "namespace": "fakecri-nodes"} in binding["subjects"]
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
    for vol in pod_spec["volumes"]:
        for source in vol.get("projected", {}).get("sources", []):
            if "configMap" in source and source["configMap"]["name"] != "kube-root-ca.crt":
                find("ConfigMap", source["configMap"]["name"])
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
    env["FAKECRI_POD_CIDR"] = pod_cidr_for(pod_spec, 3)
    settings = load_settings(str(local), env, **schema)
    assert settings["cgroup_driver"] == "cgroupfs"
    assert settings["log_level"] == env["FAKECRI_LOG_LEVEL"]
    assert settings["socket"] == env["FAKECRI_SOCKET"]
    assert settings["pod_cidr"] == "198.18.3.0/24"
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
