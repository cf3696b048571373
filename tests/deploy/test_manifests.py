"""The deploy/ example: manifests parse and are wired as deploy/README.md says."""
from pathlib import Path, PurePosixPath

import pytest
import yaml

from fakecri.settings import load_settings, schema_from_click

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
MANIFESTS = sorted(DEPLOY.glob("*.yaml"))


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
        if doc["kind"] not in ("Namespace", "Kustomization"):
            assert doc["metadata"]["namespace"] == "fakecri-nodes", (name, doc["metadata"]["name"])


def test_kustomization_lists_every_other_manifest():
    [kust] = find("Kustomization")
    assert sorted(kust["resources"]) == sorted(p.name for p in MANIFESTS if p.name != "kustomization.yaml")


def test_kubelet_endpoint_is_the_fakecri_socket(pod_spec):
    cs = containers(pod_spec)
    fakecri, kubelet = cs["fakecri"], cs["kubelet"]
    socket = flag_value(fakecri["args"], "--socket")
    assert flag_value(kubelet["args"], "--container-runtime-endpoint") == f"unix://{socket}"
    for probe in ("startupProbe", "livenessProbe"):
        cmd = fakecri[probe]["exec"]["command"]
        assert cmd[:2] == ["fakecri", "health"] and flag_value(cmd, "--socket") == socket
    # Both containers mount the same emptyDir at the socket's directory.
    volumes = {v["name"]: v for v in pod_spec["volumes"]}
    mounts = [{m["mountPath"]: m["name"] for m in c["volumeMounts"]} for c in (fakecri, kubelet)]
    shared = {m.get(str(PurePosixPath(socket).parent)) for m in mounts}
    assert len(shared) == 1 and "emptyDir" in volumes[shared.pop()]
    assert mounts[0]["/var/log/pods"] == mounts[1]["/var/log/pods"]


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
            if "configMap" in source:
                find("ConfigMap", source["configMap"]["name"])


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
    settings = load_settings(str(local), env, **schema)
    assert settings["cgroup_driver"] == "cgroupfs"
    assert settings["log_level"] == env["FAKECRI_LOG_LEVEL"]
    # The catalog the settings name is the catalog the pod mounts next to it.
    catalog_name = PurePosixPath(settings["image_catalog"]).name
    [catalog] = find("ConfigMap", "fakecri-image-catalog")
    assert PurePosixPath(settings["image_catalog"]).parent == PurePosixPath(config_path).parent
    assert catalog_name in catalog["data"]


def test_catalog_loads_and_cgroup_drivers_agree():
    from fakecri.core.catalog import Catalog

    [catalog] = find("ConfigMap", "fakecri-image-catalog")
    cat = Catalog.from_dict(yaml.safe_load(catalog["data"]["catalog.yaml"]), source="deploy catalog")
    assert cat.images
    [kcm] = find("ConfigMap", "fake-kubelet-config")
    kubelet = yaml.safe_load(kcm["data"]["kubelet-config.yaml"])
    assert kubelet["kind"] == "KubeletConfiguration"
    [cm] = find("ConfigMap", "fakecri-settings")
    assert yaml.safe_load(cm["data"]["fakecri.yaml"])["cgroup_driver"] == kubelet["cgroupDriver"]
