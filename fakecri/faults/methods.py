"""CRI method names, and checking that a fault's target glob names at least one of them."""
from __future__ import annotations

import fnmatch
import re

from fakecri.faults.model import FaultSpecError
from fakecri.faults.values import suggest

RUNTIME_METHODS: tuple[str, ...] = (
    "Version", "RunPodSandbox", "StopPodSandbox", "RemovePodSandbox", "PodSandboxStatus",
    "ListPodSandbox", "StreamPodSandboxes", "CreateContainer", "StartContainer", "StopContainer",
    "RemoveContainer", "ListContainers", "StreamContainers", "ContainerStatus",
    "UpdateContainerResources", "ReopenContainerLog", "ExecSync", "Exec", "Attach", "PortForward",
    "ContainerStats", "ListContainerStats", "StreamContainerStats", "PodSandboxStats",
    "ListPodSandboxStats", "StreamPodSandboxStats", "UpdateRuntimeConfig", "Status",
    "CheckpointContainer", "CheckpointPod", "RestorePod", "GetContainerEvents",
    "ListMetricDescriptors", "ListPodSandboxMetrics", "StreamPodSandboxMetrics", "RuntimeConfig",
    "UpdatePodSandboxResources",
)
IMAGE_METHODS: tuple[str, ...] = (
    "ListImages", "StreamImages", "ImageStatus", "PullImage", "RemoveImage", "ImageFsInfo",
)
CRI_METHODS: tuple[str, ...] = RUNTIME_METHODS + IMAGE_METHODS

_GLOB_CHARS = re.compile(r"[*?\[]")


def compile_glob(pattern: str) -> re.Pattern[str] | None:
    """A compiled case-sensitive glob; None for '' or '*' (matches everything)."""
    if pattern in ("", "*"):
        return None
    return re.compile(fnmatch.translate(pattern))


def check_method_glob(pattern: str) -> None:
    """Reject a target that can never match: a misspelt method or a glob matching none."""
    if pattern in ("", "*"):
        return
    rx = re.compile(fnmatch.translate(pattern))
    if any(rx.match(m) for m in CRI_METHODS):
        return
    if _GLOB_CHARS.search(pattern):
        raise FaultSpecError(f"target {pattern!r} matches no CRI method")
    raise FaultSpecError(
        f"target {pattern!r} is not a CRI method{suggest(pattern, CRI_METHODS)}; "
        "expected a method name such as ListContainers or a glob such as '*Sandbox*'"
    )
