"""Count the way of one call through fakecri's own modules, as issue 32 measured it.

Two walks, each traced with `sys.setprofile` on the server's loop thread:
- `create`: CreateContainer, from the servicer until CREATED reaches an event subscriber;
- `start`: StartContainer of `sh -c 'echo hi; sleep 1'`, until STOPPED reaches the subscriber.

Only frames of fakecri modules count (the generated `fakecri.api` does not). For each walk
it prints the calls, the distinct modules entered, the changes of module and of package
between one call and the next, and the packages entered again after being left. The same
script counts any checkout: run it with that checkout's interpreter.

    python scripts/walk.py [--json] [--sequence]
"""
from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

import grpc

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc as rpc


def server_class() -> Any:
    try:
        from fakecri.server.process.app import FakeCRIServer
    except ImportError:  # a checkout from before the rooms
        from fakecri.server.app import FakeCRIServer  # type: ignore[no-redef]
    return FakeCRIServer


def counted(module: str) -> bool:
    return module.startswith("fakecri.") and not module.startswith("fakecri.api")


class Trace:
    """The fakecri modules of every Python call on the thread it is installed on."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def profile(self, frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            module = frame.f_globals.get("__name__", "")
            if counted(module):
                self.calls.append(module)

    def summary(self) -> dict[str, Any]:
        calls = self.calls
        # The plumbing of `server.call`, which turns the trace on and off, is not the walk.
        while calls and calls[0].endswith(".app"):
            calls = calls[1:]
        while calls and calls[-1].endswith(".app"):
            calls = calls[:-1]
        runs = [m for i, m in enumerate(calls) if i == 0 or calls[i - 1] != m]
        packages = [m.rpartition(".")[0] for m in runs]
        package_runs = [p for i, p in enumerate(packages) if i == 0 or packages[i - 1] != p]
        parts = [".".join(m.split(".")[:2]) for m in runs]
        part_runs = [p for i, p in enumerate(parts) if i == 0 or parts[i - 1] != p]
        return {"calls": len(calls), "modules": len(set(calls)), "module_changes": max(len(runs) - 1, 0),
                "package_changes": max(len(package_runs) - 1, 0), "part_changes": max(len(part_runs) - 1, 0),
                "packages_entered_again": entered_again(package_runs), "sequence": runs,
                "package_sequence": package_runs}


def entered_again(runs: list[str]) -> dict[str, int]:
    """How often each package is entered again after the walk left it."""
    seen: set[str] = set()
    again: dict[str, int] = {}
    for package in runs:
        if package in seen:
            again[package] = again.get(package, 0) + 1
        seen.add(package)
    return again


def traced(server: Any, act: Callable[[], None]) -> dict[str, Any]:
    trace = Trace()
    server.call(lambda: sys.setprofile(trace.profile))
    try:
        act()
    finally:
        server.call(lambda: sys.setprofile(None))
    return trace.summary()


class Subscriber:
    """A GetContainerEvents stream on its own thread; `wait(cid, kind)` until that event came."""

    def __init__(self, stub: Any) -> None:
        self.seen: list[tuple[str, int]] = []
        self.changed = threading.Condition()
        self.stream = stub.GetContainerEvents(pb.GetEventsRequest())
        threading.Thread(target=self.read, daemon=True).start()

    def read(self) -> None:
        try:
            for event in self.stream:
                with self.changed:
                    self.seen.append((event.container_id, event.container_event_type))
                    self.changed.notify_all()
        except grpc.RpcError:
            pass

    def wait(self, cid: str, kind: int, timeout: float = 20.0) -> None:
        with self.changed:
            if not self.changed.wait_for(lambda: (cid, kind) in self.seen, timeout):
                raise TimeoutError(f"no event {kind} for {cid}")


def walks() -> dict[str, dict[str, Any]]:
    server = server_class()(seed=7, log_rpcs=False).start()
    try:
        channel = grpc.insecure_channel(server.endpoint if "://" in server.endpoint or server.endpoint.startswith(
            "unix:") else "unix:" + server.endpoint)
        runtime = rpc.RuntimeServiceStub(channel)
        images = rpc.ImageServiceStub(channel)
        images.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox:1.36")))
        pod = pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(name="walk", namespace="default", uid="walk-uid"),
                                  log_directory="/tmp/fakecri-walk")
        sid = runtime.RunPodSandbox(pb.RunPodSandboxRequest(config=pod)).pod_sandbox_id
        subscriber = Subscriber(runtime)
        # A first container, untraced and run to its end, so that nothing is imported or cached for the
        # first time in the walk and nothing of it happens during the walk.
        warm = create_request(sid, pod, "warm")
        warm_id = runtime.CreateContainer(warm).container_id
        runtime.StartContainer(pb.StartContainerRequest(container_id=warm_id))
        subscriber.wait(warm_id, pb.CONTAINER_STOPPED_EVENT)
        made: dict[str, str] = {}

        def create() -> None:
            made["cid"] = runtime.CreateContainer(create_request(sid, pod, "walked")).container_id
            subscriber.wait(made["cid"], pb.CONTAINER_CREATED_EVENT)

        out = {"create": traced(server, create)}

        def start() -> None:
            runtime.StartContainer(pb.StartContainerRequest(container_id=made["cid"]))
            subscriber.wait(made["cid"], pb.CONTAINER_STOPPED_EVENT)

        out["start"] = traced(server, start)
        subscriber.stream.cancel()
        channel.close()
        return out
    finally:
        server.stop()


def create_request(sid: str, pod: Any, name: str) -> Any:
    return pb.CreateContainerRequest(pod_sandbox_id=sid, sandbox_config=pod, config=pb.ContainerConfig(
        metadata=pb.ContainerMetadata(name=name), image=pb.ImageSpec(image="busybox:1.36"),
        command=["sh", "-c", "echo hi; sleep 1"], log_path=f"{name}.log"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    parser.add_argument("--sequence", action="store_true", help="also print each walk's modules in order")
    args = parser.parse_args()
    result = walks()
    if args.json:
        print(json.dumps(result, indent=1))
        return
    for name, walk in result.items():
        print(f"{name}: {walk['calls']} calls, {walk['modules']} modules, {walk['module_changes']} changes of "
              f"module, {walk['package_changes']} of package, {walk['part_changes']} of part (fakecri.X); "
              f"packages entered again: {walk['packages_entered_again']}")
        if args.sequence:
            print("  " + " > ".join(m.removeprefix("fakecri.") for m in walk["sequence"]))


if __name__ == "__main__":
    main()
