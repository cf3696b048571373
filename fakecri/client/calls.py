"""The typed CRI calls, written once for the sync and the asyncio client.

Each method only describes its call: a `Unary` (the RPC, its request, and the part of the
reply it returns) or a `Listing` (a list served by a unary List* RPC and by its Stream* twin;
list methods take `streaming=True` to use the latter). The decorators `unary` and `listing`
make such a method run its call through the client it is read from: a `BlockingCalls`
client (CRIClient) makes the call and returns the result, an `AsyncCalls` client
(AsyncCRIClient) returns a coroutine of it. Their `__get__` overloads tell the type
checker the same, so one definition types both clients.
"""
from __future__ import annotations

import functools
import types
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

import grpc
from google.protobuf.message import Message

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.errors import from_rpc_error

CRI_API_VERSION = "v1"
RUNTIME, IMAGES = "runtime", "images"

P = ParamSpec("P")
R = TypeVar("R")  # a reply message
T = TypeVar("T")  # what a call gives its caller
Item = TypeVar("Item")  # an item of a list

# Where a method takes a message (a config, a filter) it also takes a dict of the message's
# fields: protobuf builds the message from it, nested dicts and all.
Fields = Mapping[str, Any]


def _none(_: object) -> None:
    return None


def _image_spec(image: str | pb.ImageSpec) -> pb.ImageSpec:
    return pb.ImageSpec(image=image) if isinstance(image, str) else image


@dataclass(frozen=True)
class Unary(Generic[R, T]):
    """One unary call: the RPC, its request, and `extract`, which takes the reply (an R) to
    what the caller gets (a T). `timeout` replaces the client's deadline for this call."""

    service: str
    method: str
    request: Message
    extract: Callable[[R], T]
    timeout: float | None = None


Whole = Unary[R, R]  # a call that returns its whole reply
Done = Unary[object, None]  # a call whose reply holds nothing the caller needs


def whole(reply: type[R]) -> Callable[[R], R]:
    """The `extract` of a call that returns the whole reply, an instance of `reply`."""
    return lambda message: message


@dataclass(frozen=True)
class ListRPC(Generic[Item]):
    """A list served twice: by a unary List* RPC and by its Stream* twin, which sends the
    items in parts. Each RPC's request message is named after it (ListContainersRequest)."""

    service: str
    method: str
    field: str  # where the unary reply holds the items
    stream_method: str
    stream_field: str  # where each Stream* reply holds its part
    item: type[Item]  # the message type of the items

    @property
    def request(self) -> type[Message]:
        request: type[Message] = getattr(pb, self.method + "Request")
        return request

    @property
    def stream_request(self) -> type[Message]:
        request: type[Message] = getattr(pb, self.stream_method + "Request")
        return request


POD_SANDBOXES = ListRPC(RUNTIME, "ListPodSandbox", "items", "StreamPodSandboxes", "pod_sandboxes", pb.PodSandbox)
CONTAINERS = ListRPC(RUNTIME, "ListContainers", "containers", "StreamContainers", "containers", pb.Container)
CONTAINER_STATS = ListRPC(RUNTIME, "ListContainerStats", "stats", "StreamContainerStats", "container_stats",
                          pb.ContainerStats)
POD_SANDBOX_STATS = ListRPC(RUNTIME, "ListPodSandboxStats", "stats", "StreamPodSandboxStats", "pod_sandbox_stats",
                            pb.PodSandboxStats)
POD_SANDBOX_METRICS = ListRPC(RUNTIME, "ListPodSandboxMetrics", "pod_metrics", "StreamPodSandboxMetrics",
                              "pod_sandbox_metrics", pb.PodSandboxMetrics)
IMAGE_LIST = ListRPC(IMAGES, "ListImages", "images", "StreamImages", "images", pb.Image)


@dataclass(frozen=True)
class Listing(Generic[Item]):
    """Every item of a list: from the Stream* RPC when `streaming` and the runtime has it
    (the whole stream within the timeout; a stream that fails midway raises and its items
    are dropped), else from the unary one. `fields` go into either request."""

    rpc: ListRPC[Item]
    streaming: bool
    fields: Mapping[str, object]

    def unary(self) -> Unary[object, list[Item]]:
        """The unary List* call."""
        field = self.rpc.field

        def items(reply: object) -> list[Item]:
            found: Iterable[Item] = getattr(reply, field)
            return list(found)
        return Unary(self.rpc.service, self.rpc.method, self.rpc.request(**self.fields), items)

    def stream_request(self) -> Message:
        return self.rpc.stream_request(**self.fields)

    def part(self, reply: object) -> Iterable[Item]:
        """The items one Stream* reply holds."""
        found: Iterable[Item] = getattr(reply, self.rpc.stream_field)
        return found


def _unary_method(describe: Callable[Concatenate[CRICalls, P], Unary[R, T]],
                  ) -> Callable[Concatenate[Client, P], object]:
    def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> object:
        return self._unary(describe(self, *args, **kwargs))
    return functools.update_wrapper(method, describe)


def _listing_method(describe: Callable[Concatenate[CRICalls, P], Listing[Item]],
                    ) -> Callable[Concatenate[Client, P], object]:
    def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> object:
        return self._collect(describe(self, *args, **kwargs))
    return functools.update_wrapper(method, describe)


class unary(Generic[P, R, T]):
    """Decorates a CRICalls method that describes a unary call: read from a client, it is a
    method that makes the call (BlockingCalls) or returns a coroutine that does (AsyncCalls)."""

    def __init__(self, describe: Callable[Concatenate[CRICalls, P], Unary[R, T]]) -> None:
        self._method = _unary_method(describe)
        self.__doc__ = describe.__doc__

    @overload
    def __get__(self, client: None, owner: type[object]) -> Self: ...
    @overload
    def __get__(self, client: BlockingCalls, owner: type[object]) -> Callable[P, T]: ...
    @overload
    def __get__(self, client: AsyncCalls, owner: type[object]) -> Callable[P, Coroutine[Any, Any, T]]: ...

    def __get__(self, client: Client | None, owner: type[object]) -> Self | Callable[..., object]:
        return self if client is None else types.MethodType(self._method, client)


class listing(Generic[P, Item]):
    """Decorates a CRICalls method that describes a Listing, as `unary` does a unary call."""

    def __init__(self, describe: Callable[Concatenate[CRICalls, P], Listing[Item]]) -> None:
        self._method = _listing_method(describe)
        self.__doc__ = describe.__doc__

    @overload
    def __get__(self, client: None, owner: type[object]) -> Self: ...
    @overload
    def __get__(self, client: BlockingCalls, owner: type[object]) -> Callable[P, list[Item]]: ...
    @overload
    def __get__(self, client: AsyncCalls, owner: type[object]) -> Callable[P, Coroutine[Any, Any, list[Item]]]: ...

    def __get__(self, client: Client | None, owner: type[object]) -> Self | Callable[..., object]:
        return self if client is None else types.MethodType(self._method, client)


class CRICalls(ABC):
    """One method per RPC of RuntimeService and ImageService (snake_case names)."""

    timeout: float
    # RUNTIME and IMAGES: the generated stub of each service (grpc's generated stubs carry no types).
    _stubs: dict[str, Any]
    # Stream* RPCs the runtime answered UNIMPLEMENTED; their unary lists serve from then on.
    unimplemented_streams: set[str]

    def _wants_stream(self, call: Listing[Item]) -> bool:
        return call.streaming and call.rpc.stream_method not in self.unimplemented_streams

    def _stub_method(self, service: str, method: str) -> Any:
        """The generated stub's callable for `method` (untyped, as grpc generates it)."""
        return getattr(self._stubs[service], method)

    def _stream_refused(self, err: grpc.RpcError, rpc: ListRPC[Item]) -> None:
        """A Stream* list call failed: remember a runtime without it (the caller falls back to
        the unary list), raise anything else."""
        if err.code() is not grpc.StatusCode.UNIMPLEMENTED:
            raise from_rpc_error(err, rpc.stream_method) from None
        self.unimplemented_streams.add(rpc.stream_method)

    # ------------------------------------------------------------ runtime: info

    @unary
    def version(self, api_version: str = CRI_API_VERSION) -> Whole[pb.VersionResponse]:
        return Unary(RUNTIME, "Version", pb.VersionRequest(version=api_version), whole(pb.VersionResponse))

    @unary
    def status(self, verbose: bool = False) -> Whole[pb.StatusResponse]:
        return Unary(RUNTIME, "Status", pb.StatusRequest(verbose=verbose), whole(pb.StatusResponse))

    @unary
    def runtime_config(self) -> Whole[pb.RuntimeConfigResponse]:
        return Unary(RUNTIME, "RuntimeConfig", pb.RuntimeConfigRequest(), whole(pb.RuntimeConfigResponse))

    @unary
    def update_runtime_config(self, pod_cidr: str | None = None, *,
                              runtime_config: pb.RuntimeConfig | None = None) -> Done:
        if runtime_config is None:
            runtime_config = pb.RuntimeConfig(network_config=pb.NetworkConfig(pod_cidr=pod_cidr or ""))
        return Unary(RUNTIME, "UpdateRuntimeConfig", pb.UpdateRuntimeConfigRequest(runtime_config=runtime_config),
                     _none)

    # ------------------------------------------------------------ runtime: sandboxes

    @unary
    def run_pod_sandbox(self, config: pb.PodSandboxConfig | Fields,
                        runtime_handler: str = "") -> Unary[pb.RunPodSandboxResponse, str]:
        """Returns the new sandbox id."""
        req = pb.RunPodSandboxRequest(config=config, runtime_handler=runtime_handler)
        return Unary(RUNTIME, "RunPodSandbox", req, lambda reply: reply.pod_sandbox_id)

    @unary
    def stop_pod_sandbox(self, pod_sandbox_id: str) -> Done:
        return Unary(RUNTIME, "StopPodSandbox", pb.StopPodSandboxRequest(pod_sandbox_id=pod_sandbox_id), _none)

    @unary
    def remove_pod_sandbox(self, pod_sandbox_id: str) -> Done:
        return Unary(RUNTIME, "RemovePodSandbox", pb.RemovePodSandboxRequest(pod_sandbox_id=pod_sandbox_id), _none)

    @unary
    def pod_sandbox_status(self, pod_sandbox_id: str, verbose: bool = False) -> Whole[pb.PodSandboxStatusResponse]:
        return Unary(RUNTIME, "PodSandboxStatus",
                     pb.PodSandboxStatusRequest(pod_sandbox_id=pod_sandbox_id, verbose=verbose),
                     whole(pb.PodSandboxStatusResponse))

    @listing
    def list_pod_sandbox(self, filter: pb.PodSandboxFilter | Fields | None = None, *,
                         streaming: bool = False) -> Listing[pb.PodSandbox]:
        return Listing(POD_SANDBOXES, streaming, {"filter": filter})

    @unary
    def update_pod_sandbox_resources(self, pod_sandbox_id: str, *, overhead: pb.LinuxContainerResources | None = None,
                                     resources: pb.LinuxContainerResources | None = None) -> Done:
        req = pb.UpdatePodSandboxResourcesRequest(pod_sandbox_id=pod_sandbox_id, overhead=overhead, resources=resources)
        return Unary(RUNTIME, "UpdatePodSandboxResources", req, _none)

    @unary
    def port_forward(self, pod_sandbox_id: str, ports: Iterable[int] = ()) -> Unary[pb.PortForwardResponse, str]:
        """Returns the streaming URL."""
        req = pb.PortForwardRequest(pod_sandbox_id=pod_sandbox_id, port=list(ports))
        return Unary(RUNTIME, "PortForward", req, lambda reply: reply.url)

    @unary
    def checkpoint_pod(self, pod_sandbox_id: str, output_path: str, container_ids: Iterable[str] = (),
                       options: Mapping[str, str] | None = None) -> Done:
        req = pb.CheckpointPodRequest(pod_sandbox_id=pod_sandbox_id, output_path=output_path,
                                      container_ids=list(container_ids), options=options)
        return Unary(RUNTIME, "CheckpointPod", req, _none)

    @unary
    def restore_pod(self, request: pb.RestorePodRequest) -> Whole[pb.RestorePodResponse]:
        return Unary(RUNTIME, "RestorePod", request, whole(pb.RestorePodResponse))

    # ------------------------------------------------------------ runtime: containers

    @unary
    def create_container(self, pod_sandbox_id: str, config: pb.ContainerConfig | Fields,
                         sandbox_config: pb.PodSandboxConfig | Fields | None = None,
                         ) -> Unary[pb.CreateContainerResponse, str]:
        """Returns the new container id."""
        req = pb.CreateContainerRequest(pod_sandbox_id=pod_sandbox_id, config=config, sandbox_config=sandbox_config)
        return Unary(RUNTIME, "CreateContainer", req, lambda reply: reply.container_id)

    @unary
    def start_container(self, container_id: str) -> Done:
        return Unary(RUNTIME, "StartContainer", pb.StartContainerRequest(container_id=container_id), _none)

    @unary
    def stop_container(self, container_id: str, timeout: int = 0) -> Done:
        """`timeout` is the grace period in seconds given to the runtime; the RPC deadline is
        stretched by it, as the kubelet does."""
        req = pb.StopContainerRequest(container_id=container_id, timeout=timeout)
        return Unary(RUNTIME, "StopContainer", req, _none, timeout=self.timeout + max(timeout, 0))

    @unary
    def remove_container(self, container_id: str) -> Done:
        return Unary(RUNTIME, "RemoveContainer", pb.RemoveContainerRequest(container_id=container_id), _none)

    @listing
    def list_containers(self, filter: pb.ContainerFilter | Fields | None = None, *,
                        streaming: bool = False) -> Listing[pb.Container]:
        return Listing(CONTAINERS, streaming, {"filter": filter})

    @unary
    def container_status(self, container_id: str, verbose: bool = False) -> Whole[pb.ContainerStatusResponse]:
        return Unary(RUNTIME, "ContainerStatus", pb.ContainerStatusRequest(container_id=container_id, verbose=verbose),
                     whole(pb.ContainerStatusResponse))

    @unary
    def update_container_resources(self, container_id: str,
                                   linux: pb.LinuxContainerResources | Fields | None = None, *,
                                   windows: pb.WindowsContainerResources | None = None,
                                   annotations: Mapping[str, str] | None = None) -> Done:
        req = pb.UpdateContainerResourcesRequest(container_id=container_id, linux=linux, windows=windows,
                                                 annotations=annotations)
        return Unary(RUNTIME, "UpdateContainerResources", req, _none)

    @unary
    def reopen_container_log(self, container_id: str) -> Done:
        return Unary(RUNTIME, "ReopenContainerLog", pb.ReopenContainerLogRequest(container_id=container_id), _none)

    @unary
    def exec_sync(self, container_id: str, cmd: Iterable[str], timeout: int = 0) -> Whole[pb.ExecSyncResponse]:
        """`timeout` (seconds) is the command's; the RPC deadline is stretched by it."""
        req = pb.ExecSyncRequest(container_id=container_id, cmd=list(cmd), timeout=timeout)
        return Unary(RUNTIME, "ExecSync", req, whole(pb.ExecSyncResponse), timeout=self.timeout + max(timeout, 0))

    @unary
    def exec(self, container_id: str, cmd: Iterable[str], *, tty: bool = False, stdin: bool = False,
             stdout: bool = True, stderr: bool = True) -> Unary[pb.ExecResponse, str]:
        """Returns the streaming URL."""
        req = pb.ExecRequest(container_id=container_id, cmd=list(cmd), tty=tty, stdin=stdin, stdout=stdout,
                             stderr=stderr)
        return Unary(RUNTIME, "Exec", req, lambda reply: reply.url)

    @unary
    def attach(self, container_id: str, *, tty: bool = False, stdin: bool = False, stdout: bool = True,
               stderr: bool = True) -> Unary[pb.AttachResponse, str]:
        """Returns the streaming URL."""
        req = pb.AttachRequest(container_id=container_id, tty=tty, stdin=stdin, stdout=stdout, stderr=stderr)
        return Unary(RUNTIME, "Attach", req, lambda reply: reply.url)

    @unary
    def checkpoint_container(self, container_id: str, location: str, timeout: int = 0) -> Done:
        req = pb.CheckpointContainerRequest(container_id=container_id, location=location, timeout=timeout)
        return Unary(RUNTIME, "CheckpointContainer", req, _none)

    # ------------------------------------------------------------ runtime: stats and metrics

    @unary
    def container_stats(self, container_id: str) -> Unary[pb.ContainerStatsResponse, pb.ContainerStats]:
        return Unary(RUNTIME, "ContainerStats", pb.ContainerStatsRequest(container_id=container_id),
                     lambda reply: reply.stats)

    @listing
    def list_container_stats(self, filter: pb.ContainerStatsFilter | Fields | None = None, *,
                             streaming: bool = False) -> Listing[pb.ContainerStats]:
        return Listing(CONTAINER_STATS, streaming, {"filter": filter})

    @unary
    def pod_sandbox_stats(self, pod_sandbox_id: str) -> Unary[pb.PodSandboxStatsResponse, pb.PodSandboxStats]:
        return Unary(RUNTIME, "PodSandboxStats", pb.PodSandboxStatsRequest(pod_sandbox_id=pod_sandbox_id),
                     lambda reply: reply.stats)

    @listing
    def list_pod_sandbox_stats(self, filter: pb.PodSandboxStatsFilter | Fields | None = None, *,
                               streaming: bool = False) -> Listing[pb.PodSandboxStats]:
        return Listing(POD_SANDBOX_STATS, streaming, {"filter": filter})

    @unary
    def list_metric_descriptors(self) -> Unary[pb.ListMetricDescriptorsResponse, list[pb.MetricDescriptor]]:
        return Unary(RUNTIME, "ListMetricDescriptors", pb.ListMetricDescriptorsRequest(),
                     lambda reply: list(reply.descriptors))

    @listing
    def list_pod_sandbox_metrics(self, *, streaming: bool = False) -> Listing[pb.PodSandboxMetrics]:
        return Listing(POD_SANDBOX_METRICS, streaming, {})

    # ------------------------------------------------------------ images

    @listing
    def list_images(self, filter: pb.ImageFilter | Fields | None = None, *,
                    streaming: bool = False) -> Listing[pb.Image]:
        return Listing(IMAGE_LIST, streaming, {"filter": filter})

    @unary
    def image_status(self, image: str | pb.ImageSpec, verbose: bool = False) -> Whole[pb.ImageStatusResponse]:
        return Unary(IMAGES, "ImageStatus", pb.ImageStatusRequest(image=_image_spec(image), verbose=verbose),
                     whole(pb.ImageStatusResponse))

    @unary
    def pull_image(self, image: str | pb.ImageSpec, *, auth: pb.AuthConfig | None = None,
                   sandbox_config: pb.PodSandboxConfig | None = None) -> Unary[pb.PullImageResponse, str]:
        """Returns the image reference the runtime pulled."""
        req = pb.PullImageRequest(image=_image_spec(image), auth=auth, sandbox_config=sandbox_config)
        return Unary(IMAGES, "PullImage", req, lambda reply: reply.image_ref)

    @unary
    def remove_image(self, image: str | pb.ImageSpec) -> Done:
        return Unary(IMAGES, "RemoveImage", pb.RemoveImageRequest(image=_image_spec(image)), _none)

    @unary
    def image_fs_info(self) -> Whole[pb.ImageFsInfoResponse]:
        return Unary(IMAGES, "ImageFsInfo", pb.ImageFsInfoRequest(), whole(pb.ImageFsInfoResponse))


class BlockingCalls(CRICalls):
    """Calls made on the caller's thread: each typed method returns its result."""

    @abstractmethod
    def _unary(self, call: Unary[R, T]) -> T:
        """Make one unary call and return what `call.extract` takes from its reply."""

    @abstractmethod
    def _collect(self, call: Listing[Item]) -> list[Item]:
        """Return every item of a list (see Listing)."""


class AsyncCalls(CRICalls):
    """Calls made on an asyncio loop: each typed method returns a coroutine of its result."""

    @abstractmethod
    async def _unary(self, call: Unary[R, T]) -> T:
        """Make one unary call and return what `call.extract` takes from its reply."""

    @abstractmethod
    async def _collect(self, call: Listing[Item]) -> list[Item]:
        """Return every item of a list (see Listing)."""


Client = BlockingCalls | AsyncCalls

