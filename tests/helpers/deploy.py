"""deploy/ rendered, and one pod of its StatefulSet as a kubelet would set it up, for running
its containers' commands on this machine.

`render(tmp_path, nodes=K)` renders deploy/ with `kubectl kustomize`, through an overlay that
sets K the way README tells a user to (the `fake-node-farm` ConfigMap, and the resources for K
nodes). `Pod(docs, ordinal)` is the pod `fake-node-<ordinal>`: each container's environment as
the kubelet resolves it (values, fieldRefs, configMapKeyRefs, $(VAR) references), its volumes
made under a directory of this machine (emptyDirs as directories, ConfigMaps and projected
sources as files), and its command line with every path inside a volume moved to where that
volume is here, as a container runtime's bind mounts would place it.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
# What the Dockerfile's ENTRYPOINT runs when a container gives args only.
IMAGE_ENTRYPOINTS = {"fakecri": ["fakecri", "serve"]}
FARM_CONFIGMAP = "fake-node-farm"
# The per-node figures README states and kustomization.yaml's resources follow.
PER_NODE = {
    "fakecri": {"cpu": (50, 5), "memory": (64, 8), "limit": (256, 16)},  # (base, per node): m CPU, Mi
    "kubelets": {"cpu": (0, 20), "memory": (0, 96), "limit": (0, 256)},
}


def kubectl() -> str | None:
    return shutil.which("kubectl")


def resources_for(nodes: int) -> dict[str, dict]:
    """The resources of each container for K nodes, from the per-node figures."""
    out = {}
    for name, figures in PER_NODE.items():
        cpu, memory, limit = (base + each * nodes for base, each in
                              (figures["cpu"], figures["memory"], figures["limit"]))
        out[name] = {"requests": {"cpu": f"{cpu}m", "memory": f"{memory}Mi"}, "limits": {"memory": f"{limit}Mi"}}
    return out


def render(tmp_path: Path | None = None, *, nodes: int | None = None, replicas: int | None = None) -> list[dict]:
    """deploy/ as `kubectl kustomize` renders it; with `nodes` (or `replicas`), through an overlay
    that sets K (and the resources for it) or the replicas, as a user's own overlay would."""
    tool = kubectl()
    assert tool, "kubectl is needed to render deploy/"
    target = DEPLOY
    if nodes is not None or replicas is not None:
        assert tmp_path is not None
        target = tmp_path / f"overlay-{nodes}-{replicas}"
        target.mkdir()
        kust: dict = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                      "resources": [os.path.relpath(DEPLOY, target)], "patches": []}
        spec: dict = {}
        if nodes is not None:
            kust["configMapGenerator"] = [{"name": FARM_CONFIGMAP, "behavior": "replace",
                                           "literals": [f"nodes={nodes}"]}]
            res = resources_for(nodes)
            spec["template"] = {"spec": {"initContainers": [{"name": "fakecri", "resources": res["fakecri"]}],
                                         "containers": [{"name": "kubelets", "resources": res["kubelets"]}]}}
        if replicas is not None:
            spec["replicas"] = replicas
        kust["patches"].append({"target": {"kind": "StatefulSet", "name": "fake-node"}, "patch": yaml.safe_dump(
            {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "fake-node"}, "spec": spec})})
        (target / "kustomization.yaml").write_text(yaml.safe_dump(kust))
    out = subprocess.run([tool, "kustomize", str(target)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def only(docs: list[dict], kind: str, name: str | None = None) -> dict:
    """The one object of this kind (and name; a generated ConfigMap by its name before the hash)."""
    hits = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name
                                                      or re.fullmatch(rf"{re.escape(name)}-[a-z0-9]{{10}}",
                                                                      d["metadata"]["name"]))]
    assert len(hits) == 1, f"{len(hits)} {kind} named {name}"
    return hits[0]


def nodes_per_pod(docs: list[dict]) -> int:
    return int(only(docs, "ConfigMap", FARM_CONFIGMAP)["data"]["nodes"])


_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


def expand(text: str, env: dict[str, str]) -> str:
    """Kubernetes' $(VAR) expansion: a defined VAR is replaced, $$ is a $, the rest stays."""
    def one(m: re.Match) -> str:
        if m.group(0) == "$$":
            return "$"
        return env.get(m.group(1), m.group(0))
    return _REF.sub(one, text)


@dataclass
class Pod:
    """Pod `fake-node-<ordinal>` of the rendered StatefulSet."""

    docs: list[dict]
    ordinal: int
    paths: dict[str, Path] = field(default_factory=dict)  # mountPath -> where its volume is here

    def __post_init__(self) -> None:
        self.sts = only(self.docs, "StatefulSet", "fake-node")
        self.spec = self.sts["spec"]["template"]["spec"]
        self.name = f"{self.sts['metadata']['name']}-{self.ordinal}"
        self.labels = {**self.sts["spec"]["template"]["metadata"]["labels"],
                       "apps.kubernetes.io/pod-index": str(self.ordinal),
                       "statefulset.kubernetes.io/pod-name": self.name}

    @property
    def containers(self) -> dict[str, dict]:
        return {c["name"]: c for c in self.spec.get("initContainers", []) + self.spec["containers"]}

    def configmap(self, name: str) -> dict[str, str]:
        return only(self.docs, "ConfigMap", name)["data"]

    def _field(self, path: str) -> str:
        if path == "metadata.name":
            return self.name
        if path == "metadata.namespace":
            return self.sts["metadata"]["namespace"]
        m = re.fullmatch(r"metadata\.labels\['([^']+)'\]", path)
        assert m, f"no stand-in for fieldRef {path}"
        return self.labels[m.group(1)]

    def env(self, container: str) -> dict[str, str]:
        """The container's environment as the kubelet resolves it, in order."""
        out: dict[str, str] = {}
        for e in self.containers[container].get("env", []):
            if "value" in e:
                out[e["name"]] = expand(e["value"], out)
            elif "fieldRef" in e["valueFrom"]:
                out[e["name"]] = self._field(e["valueFrom"]["fieldRef"]["fieldPath"])
            elif "configMapKeyRef" in e["valueFrom"]:
                ref = e["valueFrom"]["configMapKeyRef"]
                [cm] = [d for d in self.docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == ref["name"]]
                out[e["name"]] = cm["data"][ref["key"]]
            else:
                raise AssertionError(f"no stand-in for {e}")
        return out

    def argv(self, container: str, images: dict[str, list[str]] | None = None) -> list[str]:
        """The container's command line ($(VAR)s expanded), paths in its volumes moved here."""
        c = self.containers[container]
        env = self.env(container)
        entry = c.get("command") or (images or IMAGE_ENTRYPOINTS)[c["image"].split(":")[0].split("/")[-1]]
        return [self.here(expand(a, env)) for a in [*entry, *c.get("args", [])]]

    def host_env(self, container: str) -> dict[str, str]:
        """The container's environment with paths in its volumes moved here."""
        return {k: self.here(v) for k, v in self.env(container).items()}

    def here(self, text: str) -> str:
        """`text` with each path inside a volume's mountPath moved to where that volume is here."""
        if not self.paths:
            return text
        alternatives = "|".join(re.escape(p) for p in sorted(self.paths, key=len, reverse=True))
        return re.sub(rf"({alternatives})(?=/|$|[^\w.-])", lambda m: str(self.paths[m.group(1)]), text)

    def make_volumes(self, root: Path, *, token: str, ca: bytes) -> None:
        """Every volume of the pod under root/volumes/NAME: emptyDirs empty, ConfigMaps and
        projected sources as their files (paths in them moved here), the ServiceAccount token
        and the cluster CA from the arguments."""
        volumes = {v["name"]: v for v in self.spec["volumes"]}
        for c in self.containers.values():
            for m in c.get("volumeMounts", []):
                where = root / "volumes" / m["name"]
                assert self.paths.setdefault(m["mountPath"], where) == where, \
                    f"{m['mountPath']} is a different volume in another container"
        files: dict[Path, bytes | str] = {}
        for name, v in volumes.items():
            where = root / "volumes" / name
            where.mkdir(parents=True)
            sources = v.get("projected", {}).get("sources", []) or [v]
            for source in sources:
                if "emptyDir" in source:
                    continue
                if "serviceAccountToken" in source:
                    files[where / source["serviceAccountToken"]["path"]] = token
                    continue
                ref = source["configMap"]
                if ref["name"] == "kube-root-ca.crt":
                    for item in ref["items"]:
                        files[where / item["path"]] = ca
                    continue
                data = next(d["data"] for d in self.docs
                            if d["kind"] == "ConfigMap" and d["metadata"]["name"] == ref["name"])
                items = ref.get("items") or [{"key": k, "path": k} for k in data]
                for item in items:
                    files[where / item["path"]] = data[item["key"]]
        for path, content in files.items():
            if isinstance(content, str):
                path.write_text(self.here(content))
            else:
                path.write_bytes(content)
