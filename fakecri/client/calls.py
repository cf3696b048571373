"""The typed CRI calls, written once for the sync and the asyncio client.

Each method builds its request and names the RPC and the part of the reply it
returns; the client class underneath decides how the call is made (blocking, or as
a coroutine). List methods take `streaming=True` to use the Stream* RPCs.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf.message import Message

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.errors import from_rpc_error

CRI_API_VERSION = "v1"
RUNTIME, IMAGES = "runtime", "images"

Filter = Any  # a filter message, a dict with its fields, or None
Extract = Callable[[Any], Any]


def _none(_: Any) -> None:
    return None


def _field(name: str) -> Extract:
    return lambda resp: getattr(resp, name)


def _items(name: str) -> Extract:
    return lambda resp: list(getattr(resp, name))


def _image_spec(image: str | pb.ImageSpec) -> pb.ImageSpec:
    return pb.ImageSpec(image=image) if isinstance(image, str) else image


@dataclass(frozen=True)
class ListRPC:
    """A list served twice: by a unary List* RPC and by its Stream* twin, which sends the
    items in parts. Each RPC's request message is named after it (ListContainersRequest)."""

    service: str
    method: str
    field: str  # where the unary reply holds the items
    stream_method: str
    stream_field: str  # where each Stream* reply holds its part

    @property
    def request(self) -> type[Message]:
        return getattr(pb, self.method + "Request")

    @property
    def stream_request(self) -> type[Message]:
        return getattr(pb, self.stream_method + "Request")


POD_SANDBOXES = ListRPC(RUNTIME, "ListPodSandbox", "items", "StreamPodSandboxes", "pod_sandboxes")
CONTAINERS = ListRPC(RUNTIME, "ListContainers", "containers", "StreamContainers", "containers")
CONTAINER_STATS = ListRPC(RUNTIME, "ListContainerStats", "stats", "StreamContainerStats", "container_stats")
POD_SANDBOX_STATS = ListRPC(RUNTIME, "ListPodSandboxStats", "stats", "StreamPodSandboxStats", "pod_sandbox_stats")
POD_SANDBOX_METRICS = ListRPC(RUNTIME, "ListPodSandboxMetrics", "pod_metrics", "StreamPodSandboxMetrics",
                              "pod_sandbox_metrics")
IMAGE_LIST = ListRPC(IMAGES, "ListImages", "images", "StreamImages", "images")


class CRICalls(ABC):
    """One method per RPC of RuntimeService and ImageService (snake_case names)."""

    timeout: float
    _stubs: dict[str, Any]  # RUNTIME and IMAGES: the generated stub of each service
    # Stream* RPCs the runtime answered UNIMPLEMENTED; their unary lists serve from then on.
    unimplemented_streams: set[str]

    @abstractmethod
    def _unary(self, service: str, method: str, request: Any, extract: Extract | None = None,
               timeout: float | None = None) -> Any:
        """Make one unary call and return `extract(reply)` (the reply itself if None)."""

    @abstractmethod
    def _collect(self, rpc: ListRPC, streaming: bool, **fields: Any) -> Any:
        """Return every item of a list, from the Stream* RPC when asked and available (the
        whole stream within the timeout; a stream that fails midway raises and its items are
        dropped), else from the unary one. `fields` go into either request."""

    def _wants_stream(self, rpc: ListRPC, streaming: bool) -> bool:
        return streaming and rpc.stream_method not in self.unimplemented_streams

    def _open_stream(self, rpc: ListRPC, fields: dict[str, Any]) -> Any:
        """The Stream* call of `rpc`: an iterator of replies (an async one in the asyncio client)."""
        call = getattr(self._stubs[rpc.service], rpc.stream_method)
        return call(rpc.stream_request(**fields), timeout=self.timeout)

    def _unary_list(self, rpc: ListRPC, fields: dict[str, Any]) -> Any:
        """The items from the unary List* call of `rpc` (a coroutine in the asyncio client)."""
        return self._unary(rpc.service, rpc.method, rpc.request(**fields), _items(rpc.field))

    def _stream_refused(self, err: grpc.RpcError, rpc: ListRPC) -> None:
        """A Stream* list call failed: remember a runtime without it (the caller falls back to
        the unary list), raise anything else."""
        if err.code() is not grpc.StatusCode.UNIMPLEMENTED:
            raise from_rpc_error(err, rpc.stream_method) from None
        self.unimplemented_streams.add(rpc.stream_method)

    # ------------------------------------------------------------ runtime: info

    def version(self, api_version: str = CRI_API_VERSION) -> pb.VersionResponse:
        return self._unary(RUNTIME, "Version", pb.VersionRequest(version=api_version))

    def status(self, verbose: bool = False) -> pb.StatusResponse:
        return self._unary(RUNTIME, "Status", pb.StatusRequest(verbose=verbose))

    def runtime_config(self) -> pb.RuntimeConfigResponse:
        return self._unary(RUNTIME, "RuntimeConfig", pb.RuntimeConfigRequest())

    def update_runtime_config(self, pod_cidr: str | None = None, *,
                              runtime_config: pb.RuntimeConfig | None = None) -> None:
        if runtime_config is None:
            runtime_config = pb.RuntimeConfig(network_config=pb.NetworkConfig(pod_cidr=pod_cidr or ""))
        return self._unary(RUNTIME, "UpdateRuntimeConfig",
                           pb.UpdateRuntimeConfigRequest(runtime_config=runtime_config), _none)

    # ------------------------------------------------------------ runtime: sandboxes

    def run_pod_sandbox(self, config: pb.PodSandboxConfig | Mapping[str, Any], runtime_handler: str = "") -> str:
        """Returns the new sandbox id."""
        req = pb.RunPodSandboxRequest(config=config, runtime_handler=runtime_handler)
        return self._unary(RUNTIME, "RunPodSandbox", req, _field("pod_sandbox_id"))

    def stop_pod_sandbox(self, pod_sandbox_id: str) -> None:
        return self._unary(RUNTIME, "StopPodSandbox", pb.StopPodSandboxRequest(pod_sandbox_id=pod_sandbox_id), _none)

    def remove_pod_sandbox(self, pod_sandbox_id: str) -> None:
        return self._unary(RUNTIME, "RemovePodSandbox", pb.RemovePodSandboxRequest(pod_sandbox_id=pod_sandbox_id),
                           _none)

    def pod_sandbox_status(self, pod_sandbox_id: str, verbose: bool = False) -> pb.PodSandboxStatusResponse:
        return self._unary(RUNTIME, "PodSandboxStatus",
                           pb.PodSandboxStatusRequest(pod_sandbox_id=pod_sandbox_id, verbose=verbose))

    def list_pod_sandbox(self, filter: Filter = None, *, streaming: bool = False) -> list[pb.PodSandbox]:
        return self._collect(POD_SANDBOXES, streaming, filter=filter)

    def update_pod_sandbox_resources(self, pod_sandbox_id: str, *, overhead: pb.LinuxContainerResources | None = None,
                                     resources: pb.LinuxContainerResources | None = None) -> None:
        req = pb.UpdatePodSandboxResourcesRequest(pod_sandbox_id=pod_sandbox_id, overhead=overhead, resources=resources)
        return self._unary(RUNTIME, "UpdatePodSandboxResources", req, _none)

    def port_forward(self, pod_sandbox_id: str, ports: Iterable[int] = ()) -> str:
        """Returns the streaming URL."""
        req = pb.PortForwardRequest(pod_sandbox_id=pod_sandbox_id, port=list(ports))
        return self._unary(RUNTIME, "PortForward", req, _field("url"))

    def checkpoint_pod(self, pod_sandbox_id: str, output_path: str, container_ids: Iterable[str] = (),
                       options: Mapping[str, str] | None = None) -> None:
        req = pb.CheckpointPodRequest(pod_sandbox_id=pod_sandbox_id, output_path=output_path,
                                      container_ids=list(container_ids), options=options)
        return self._unary(RUNTIME, "CheckpointPod", req, _none)

    def restore_pod(self, request: pb.RestorePodRequest) -> pb.RestorePodResponse:
        return self._unary(RUNTIME, "RestorePod", request)

    # ------------------------------------------------------------ runtime: containers

    def create_container(self, pod_sandbox_id: str, config: pb.ContainerConfig | Mapping[str, Any],
                         sandbox_config: pb.PodSandboxConfig | Mapping[str, Any] | None = None) -> str:
        """Returns the new container id."""
        req = pb.CreateContainerRequest(pod_sandbox_id=pod_sandbox_id, config=config, sandbox_config=sandbox_config)
        return self._unary(RUNTIME, "CreateContainer", req, _field("container_id"))

    def start_container(self, container_id: str) -> None:
        return self._unary(RUNTIME, "StartContainer", pb.StartContainerRequest(container_id=container_id), _none)

    def stop_container(self, container_id: str, timeout: int = 0) -> None:
        """`timeout` is the grace period in seconds given to the runtime; the RPC deadline is
        stretched by it, as the kubelet does."""
        req = pb.StopContainerRequest(container_id=container_id, timeout=timeout)
        return self._unary(RUNTIME, "StopContainer", req, _none, timeout=self.timeout + max(timeout, 0))

    def remove_container(self, container_id: str) -> None:
        return self._unary(RUNTIME, "RemoveContainer", pb.RemoveContainerRequest(container_id=container_id), _none)

    def list_containers(self, filter: Filter = None, *, streaming: bool = False) -> list[pb.Container]:
        return self._collect(CONTAINERS, streaming, filter=filter)

    def container_status(self, container_id: str, verbose: bool = False) -> pb.ContainerStatusResponse:
        return self._unary(RUNTIME, "ContainerStatus",
                           pb.ContainerStatusRequest(container_id=container_id, verbose=verbose))

    def update_container_resources(self, container_id: str,
                                   linux: pb.LinuxContainerResources | Mapping[str, Any] | None = None, *,
                                   windows: pb.WindowsContainerResources | None = None,
                                   annotations: Mapping[str, str] | None = None) -> None:
        req = pb.UpdateContainerResourcesRequest(container_id=container_id, linux=linux, windows=windows,
                                                 annotations=annotations)
        return self._unary(RUNTIME, "UpdateContainerResources", req, _none)

    def reopen_container_log(self, container_id: str) -> None:
        return self._unary(RUNTIME, "ReopenContainerLog", pb.ReopenContainerLogRequest(container_id=container_id),
                           _none)

    def exec_sync(self, container_id: str, cmd: Iterable[str], timeout: int = 0) -> pb.ExecSyncResponse:
        """`timeout` (seconds) is the command's; the RPC deadline is stretched by it."""
        req = pb.ExecSyncRequest(container_id=container_id, cmd=list(cmd), timeout=timeout)
        return self._unary(RUNTIME, "ExecSync", req, timeout=self.timeout + max(timeout, 0))

    def exec(self, container_id: str, cmd: Iterable[str], *, tty: bool = False, stdin: bool = False,
             stdout: bool = True, stderr: bool = True) -> str:
        """Returns the streaming URL."""
        req = pb.ExecRequest(container_id=container_id, cmd=list(cmd), tty=tty, stdin=stdin, stdout=stdout,
                             stderr=stderr)
        return self._unary(RUNTIME, "Exec", req, _field("url"))

    def attach(self, container_id: str, *, tty: bool = False, stdin: bool = False, stdout: bool = True,
               stderr: bool = True) -> str:
        """Returns the streaming URL."""
        req = pb.AttachRequest(container_id=container_id, tty=tty, stdin=stdin, stdout=stdout, stderr=stderr)
        return self._unary(RUNTIME, "Attach", req, _field("url"))

    def checkpoint_container(self, container_id: str, location: str, timeout: int = 0) -> None:
        req = pb.CheckpointContainerRequest(container_id=container_id, location=location, timeout=timeout)
        return self._unary(RUNTIME, "CheckpointContainer", req, _none)

    # ------------------------------------------------------------ runtime: stats and metrics

    def container_stats(self, container_id: str) -> pb.ContainerStats:
        return self._unary(RUNTIME, "ContainerStats", pb.ContainerStatsRequest(container_id=container_id),
                           _field("stats"))

    def list_container_stats(self, filter: Filter = None, *, streaming: bool = False) -> list[pb.ContainerStats]:
        return self._collect(CONTAINER_STATS, streaming, filter=filter)

    def pod_sandbox_stats(self, pod_sandbox_id: str) -> pb.PodSandboxStats:
        return self._unary(RUNTIME, "PodSandboxStats", pb.PodSandboxStatsRequest(pod_sandbox_id=pod_sandbox_id),
                           _field("stats"))

    def list_pod_sandbox_stats(self, filter: Filter = None, *, streaming: bool = False) -> list[pb.PodSandboxStats]:
        return self._collect(POD_SANDBOX_STATS, streaming, filter=filter)

    def list_metric_descriptors(self) -> list[pb.MetricDescriptor]:
        return self._unary(RUNTIME, "ListMetricDescriptors", pb.ListMetricDescriptorsRequest(), _items("descriptors"))

    def list_pod_sandbox_metrics(self, *, streaming: bool = False) -> list[pb.PodSandboxMetrics]:
        return self._collect(POD_SANDBOX_METRICS, streaming)

    # ------------------------------------------------------------ images

    def list_images(self, filter: Filter = None, *, streaming: bool = False) -> list[pb.Image]:
        return self._collect(IMAGE_LIST, streaming, filter=filter)

    def image_status(self, image: str | pb.ImageSpec, verbose: bool = False) -> pb.ImageStatusResponse:
        return self._unary(IMAGES, "ImageStatus", pb.ImageStatusRequest(image=_image_spec(image), verbose=verbose))

    def pull_image(self, image: str | pb.ImageSpec, *, auth: pb.AuthConfig | None = None,
                   sandbox_config: pb.PodSandboxConfig | None = None) -> str:
        """Returns the image reference the runtime pulled."""
        req = pb.PullImageRequest(image=_image_spec(image), auth=auth, sandbox_config=sandbox_config)
        return self._unary(IMAGES, "PullImage", req, _field("image_ref"))

    def remove_image(self, image: str | pb.ImageSpec) -> None:
        return self._unary(IMAGES, "RemoveImage", pb.RemoveImageRequest(image=_image_spec(image)), _none)

    def image_fs_info(self) -> pb.ImageFsInfoResponse:
        return self._unary(IMAGES, "ImageFsInfo", pb.ImageFsInfoRequest())
