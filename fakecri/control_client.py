"""A small synchronous client for fakecri's control API (fakecri.control.v1).

Kept apart from fakecri.client on purpose: that package speaks only standard CRI so it
works against any runtime, while this one exists only for fakecri.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import grpc

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.control.v1 import control_pb2_grpc as cgrpc
from fakecri.client.endpoint import parse_endpoint
from fakecri.control_calls import BY_METHOD

NODE_METADATA = "fakecri-node"  # as fakecri.server.process.control_routing reads it

_Method = TypeVar("_Method", bound=Callable[..., Any])


def _declared(method: _Method) -> _Method:
    """A method that makes a call of fakecri.control_calls: its help is the table's (and a method
    the table does not declare fails here, at import)."""
    method.__doc__ = BY_METHOD[method.__name__].help
    return method


def _fault_dict(f: cpb.Fault) -> dict[str, Any]:
    return {
        "name": f.name, "type": f.type, "target": f.target, "stage": f.stage, "toxicity": f.toxicity,
        "count": f.count, "attributes": dict(f.attributes), "hits": f.hits,
    }


class _NamesNode(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc,unused-ignore]  # grpc ships no types
    """Adds the node a farm routes the call to (metadata key fakecri-node) to every call."""

    def __init__(self, node: str) -> None:
        self.node = node

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        metadata = [*(details.metadata or ()), (NODE_METADATA, self.node)]
        return continuation(details._replace(metadata=metadata), request)


class ControlClient:
    """`endpoint` as CRI endpoints are written (unix:///path, a bare path, tcp://host:port);
    InvalidEndpointError for anything else. `node` names the node of a farm whose control
    socket `endpoint` is (a node's own socket needs none)."""

    def __init__(self, endpoint: str, *, node: str | None = None, timeout: float = 30.0) -> None:
        self.endpoint = endpoint
        self.node = node
        self.timeout = timeout
        self._channel = grpc.insecure_channel(parse_endpoint(endpoint).target)
        channel = grpc.intercept_channel(self._channel, _NamesNode(node)) if node else self._channel
        self._stub = cgrpc.ControlStub(channel)  # type: ignore[no-untyped-call,unused-ignore]

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> ControlClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: str, **values: Any) -> Any:
        """Make the call that `method` (a ControlClient method) stands for in fakecri.control_calls:
        its request message built from `values` (keywords renamed to fields as the table says)."""
        call = BY_METHOD[method]
        fields = {call.fields.get(key, key): value for key, value in values.items()}
        request = getattr(cpb, f"{call.rpc}Request")(**fields)
        return getattr(self._stub, call.rpc)(request, timeout=self.timeout)

    # faults
    @_declared
    def add_fault(self, fault: dict[str, Any] | Any) -> dict[str, Any]:
        data = fault if isinstance(fault, dict) else fault.to_dict()
        msg = cpb.Fault(
            name=data.get("name", ""), type=data.get("type", ""), target=data.get("target", ""),
            stage=data.get("stage", ""), toxicity=float(data.get("toxicity", 0) or 0), count=int(data.get("count", 0)),
            attributes={str(k): str(v) for k, v in (data.get("attributes") or {}).items()},
        )
        return _fault_dict(self._call("add_fault", fault=msg))

    @_declared
    def list_faults(self) -> list[dict[str, Any]]:
        return [_fault_dict(f) for f in self._call("list_faults").faults]

    @_declared
    def remove_fault(self, name: str) -> None:
        self._call("remove_fault", name=name)

    @_declared
    def reset_faults(self) -> None:
        self._call("reset_faults")

    # scripted behaviour
    @_declared
    def exit_container(self, container_id: str, exit_code: int = 0, *, reason: str = "", message: str = "",
                       oom: bool = False) -> None:
        self._call("exit_container", container_id=container_id, exit_code=exit_code, reason=reason,
                   message=message, oom=oom)

    def oom_kill(self, container_id: str) -> None:
        """Make a running container exit as killed for memory: exit code 137, reason OOMKilled."""
        self.exit_container(container_id, oom=True)

    @_declared
    def set_stats(self, container_id: str, *, cpu: str = "", memory: str = "", memory_usage: str = "",
                  memory_rss: str = "", disk: str = "", psi: str = "", clear: bool = False) -> None:
        self._call("set_stats", container_id=container_id, cpu=cpu, memory=memory, memory_usage=memory_usage,
                   memory_rss=memory_rss, disk=disk, psi=psi, clear=clear)

    @_declared
    def set_condition(self, type: str, status: bool, *, reason: str = "", message: str = "",
                      duration: float = 0.0) -> None:
        self._call("set_condition", type=type, status=status, reason=reason, message=message, duration=duration)

    @_declared
    def restart(self, downtime: float = 1.0, *, wipe: bool = False) -> None:
        self._call("restart", downtime=downtime, wipe=wipe)

    @_declared
    def advance_clock(self, seconds: float) -> int:
        return int(self._call("advance_clock", seconds=seconds).now_ns)

    @_declared
    def reset(self) -> None:
        self._call("reset")

    # logs
    @_declared
    def call_log(self) -> list[dict[str, Any]]:
        return [
            {"method": c.method, "summary": c.summary, "code": c.code, "duration_seconds": c.duration_seconds,
             "at_ns": c.at_ns}
            for c in self._call("call_log").calls
        ]

    @_declared
    def fault_log(self) -> list[dict[str, Any]]:
        return [{"fault": r.fault, "type": r.type, "hit": r.hit, "at_ns": r.at_ns}
                for r in self._call("fault_log").records]

    @_declared
    def server_info(self) -> dict[str, Any]:
        resp = self._call("server_info")
        return {"seed": resp.seed, "counters": dict(resp.counters), "errors": list(resp.errors)}


def _node_dict(n: cpb.Node) -> dict[str, Any]:
    return {"name": n.name, "socket": n.socket, "pod_cidr": n.pod_cidr, "seed": n.seed,
            "streaming_url": n.streaming_url, "state_file": n.state_file, "sandboxes": n.sandboxes,
            "containers": n.containers}


class FarmClient:
    """The Farm service of a node farm's control socket (`fakecri serve --nodes N`): its nodes,
    added and removed at run time; `control(name)` drives one of them."""

    def __init__(self, endpoint: str, *, timeout: float = 30.0) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self._channel = grpc.insecure_channel(parse_endpoint(endpoint).target)
        self._stub = cgrpc.FarmStub(self._channel)  # type: ignore[no-untyped-call,unused-ignore]

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> FarmClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def nodes(self) -> list[dict[str, Any]]:
        return [_node_dict(n) for n in self._stub.ListNodes(cpb.ListNodesRequest(), timeout=self.timeout).nodes]

    def add_node(self, name: str = "", *, pod_cidr: str = "") -> dict[str, Any]:
        return _node_dict(self._stub.AddNode(cpb.AddNodeRequest(name=name, pod_cidr=pod_cidr), timeout=self.timeout))

    def remove_node(self, name: str) -> None:
        self._stub.RemoveNode(cpb.RemoveNodeRequest(name=name), timeout=self.timeout)

    def control(self, node: str) -> ControlClient:
        """A control client for one node, through this farm's control socket."""
        return ControlClient(self.endpoint, node=node, timeout=self.timeout)
