"""The checkpoint RPCs of runtime.v1.RuntimeService (CheckpointContainer, CheckpointPod,
RestorePod) and the archives they write and read.

A checkpoint is a real tar file at the path the caller names, holding one JSON
document (`fakecri-checkpoint.json`) that the core produced. Restoring reads it back
and recreates the pod with fresh ids.
"""
from __future__ import annotations

import io
import json
import os
import posixpath
import tarfile
from typing import Any, TypeAlias

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine import checkpoints, errors
from fakecri.engine.runtime import Runtime
from fakecri.server.codec.decode import check_sandbox_config, sandbox_spec
from fakecri.server.cri.cri_node import CRINode
from fakecri.server.host.host import HostRoot

Context: TypeAlias = Any  # a grpc.aio.ServicerContext (grpc ships no types)

_WHOLE_HOST = HostRoot()  # no --host-root: any path
MEMBER = "fakecri-checkpoint.json"
FORMAT = "fakecri-checkpoint/2"


def write_archive(path: str, doc: dict[str, Any], host_root: HostRoot = _WHOLE_HOST) -> None:
    if not path:
        raise errors.InvalidArgument("checkpoint: a location (archive path) is required")
    host_root.check(path, "checkpoint location")
    data = json.dumps({"format": FORMAT, **doc}, sort_keys=True).encode()
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise errors.InvalidArgument(f"checkpoint: directory {parent} does not exist")
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with tarfile.open(tmp, "w") as tar:
            info = tarfile.TarInfo(MEMBER)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        os.replace(tmp, path)
    except (OSError, ValueError) as exc:  # a directory, a NUL byte, a name too long: the caller's path
        if os.path.lexists(tmp) and not os.path.isdir(tmp):
            os.unlink(tmp)
        raise errors.InvalidArgument(f"checkpoint: cannot write an archive at {path!r}: {exc}") from None


def read_archive(path: str, host_root: HostRoot = _WHOLE_HOST) -> dict[str, Any]:
    if not path:
        raise errors.InvalidArgument("RestorePod: checkpoint_path is required")
    host_root.check(path, "RestorePod: checkpoint_path")
    if not os.path.exists(path):
        raise errors.NotFound(f"RestorePod: checkpoint archive {path!r} does not exist")
    if not os.path.isfile(path):
        raise errors.InvalidArgument(f"RestorePod: {path} is not a file")
    try:
        with tarfile.open(path, "r") as tar:
            member = tar.extractfile(MEMBER)
            if member is None:
                raise KeyError(MEMBER)
            doc = json.loads(member.read())
    except (tarfile.TarError, KeyError, ValueError, OSError, RecursionError) as exc:
        raise errors.InvalidArgument(f"RestorePod: {path} is not a fakecri checkpoint ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise errors.InvalidArgument(f"RestorePod: {path} has unknown format {found!r}")
    return doc


def checkpoint_container(rt: Runtime, container_id: str, location: str, host_root: HostRoot = _WHOLE_HOST) -> None:
    doc = rt.checkpoint_container(container_id)
    write_archive(location, {"kind": "container", "container": doc}, host_root)


def checkpoint_pod(rt: Runtime, sandbox_id: str, path: str, container_ids: list[str],
                   host_root: HostRoot = _WHOLE_HOST) -> None:
    doc = rt.checkpoint_pod(sandbox_id, container_ids)
    write_archive(path, {"kind": "pod", "pod": doc}, host_root)


def _confine_restore(host_root: HostRoot, data: Any, overrides: dict[str, Any]) -> None:
    """The host paths the restored pod would have (the archive's, under the request's overrides),
    checked before anything is made: an archive may name any path."""
    old_sb, old_containers = checkpoints.read(data)
    log_directory = overrides.get("log_directory") or old_sb.log_directory
    host_root.check_sandbox(log_directory, overrides.get("spec") or old_sb.spec, "the restored pod's ")
    for c in old_containers:
        rel = c.log_path
        if c.log_path and old_sb.log_directory:
            rel = posixpath.relpath(c.log_path, old_sb.log_directory)
        log_path = posixpath.join(log_directory, rel) if rel else ""
        host_root.check_container(c.spec, log_path, f"the restored container {c.name!r}'s ")


def restore_pod(rt: Runtime, request: Any, host_root: HostRoot = _WHOLE_HOST) -> tuple[Any, list[Any]]:
    """RestorePod: the pod in the archive, recreated with fresh ids and the request's overrides."""
    doc = read_archive(request.checkpoint_path, host_root)
    if not isinstance(doc, dict) or doc.get("kind") != "pod":
        raise errors.InvalidArgument(f"RestorePod: {request.checkpoint_path} holds a container, not a pod")
    overrides: dict[str, Any] = {}
    cfg = request.config
    if cfg.HasField("metadata"):
        md = cfg.metadata
        overrides.update(name=md.name or None, namespace=md.namespace or None, uid=md.uid or None,
                         attempt=md.attempt)
    if cfg.labels:
        overrides["labels"] = dict(cfg.labels)
    if cfg.annotations:
        overrides["annotations"] = dict(cfg.annotations)
    if cfg.log_directory:
        overrides["log_directory"] = cfg.log_directory
    if request.runtime_handler:
        overrides["runtime_handler"] = request.runtime_handler
    if cfg.ByteSize():
        check_sandbox_config(cfg)
        overrides["spec"] = sandbox_spec(cfg)
    if host_root.confined:
        _confine_restore(host_root, doc.get("pod"), overrides)
    return rt.restore_pod(doc.get("pod"), **overrides)


class CheckpointCalls:
    def __init__(self, node: CRINode) -> None:
        self.runtime, self.host_root = node.runtime, node.host_root

    async def CheckpointContainer(self, request: pb.CheckpointContainerRequest, context: Context) -> Any:
        checkpoint_container(self.runtime, request.container_id, request.location, self.host_root)
        return pb.CheckpointContainerResponse()

    async def CheckpointPod(self, request: pb.CheckpointPodRequest, context: Context) -> Any:
        checkpoint_pod(self.runtime, request.pod_sandbox_id, request.output_path,
                                list(request.container_ids), self.host_root)
        return pb.CheckpointPodResponse()

    async def RestorePod(self, request: pb.RestorePodRequest, context: Context) -> Any:
        sb, containers = restore_pod(self.runtime, request, self.host_root)
        return pb.RestorePodResponse(
            pod_sandbox_id=sb.id,
            restored_containers=[pb.RestoredContainer(name=c.name, container_id=c.id) for c in containers],
        )
