"""A small synchronous client for fakecri's control API (fakecri.control.v1).

Kept apart from fakecri.client on purpose: that package speaks only standard CRI so it
works against any runtime, while this one exists only for fakecri.
"""
from __future__ import annotations

from typing import Any

import grpc

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.control.v1 import control_pb2_grpc as cgrpc
from fakecri.client.endpoint import parse_endpoint
from fakecri.control_calls import BY_METHOD, ControlCalls, declared, fault_dict

NODE_METADATA = "fakecri-node"  # as fakecri.server.process.control_routing reads it

class _NamesNode(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc,unused-ignore]  # grpc ships no types
    """Adds the node a farm routes the call to (metadata key fakecri-node) to every call."""

    def __init__(self, node: str) -> None:
        self.node = node

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        metadata = [*(details.metadata or ()), (NODE_METADATA, self.node)]
        return continuation(details._replace(metadata=metadata), request)


class ControlClient(ControlCalls):
    """The control API's calls (fakecri.control_calls), made on `endpoint`, written as CRI
    endpoints are (unix:///path, a bare path, tcp://host:port);
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

    def send(self, method: str, **values: Any) -> Any:
        """Make a control call over gRPC (see ControlCalls.send)."""
        call = BY_METHOD[method]
        fields = {call.fields.get(key, key): value for key, value in values.items()}
        request = getattr(cpb, f"{call.rpc}Request")(**fields)
        return getattr(self._stub, call.rpc)(request, timeout=self.timeout)

    @declared
    def add_fault(self, fault: dict[str, Any] | Any) -> dict[str, Any]:
        data = fault if isinstance(fault, dict) else fault.to_dict()
        msg = cpb.Fault(
            name=data.get("name", ""), type=data.get("type", ""), target=data.get("target", ""),
            stage=data.get("stage", ""), toxicity=float(data.get("toxicity", 0) or 0), count=int(data.get("count", 0)),
            attributes={str(k): str(v) for k, v in (data.get("attributes") or {}).items()},
        )
        return fault_dict(self.send("add_fault", fault=msg))

    @declared
    def reset(self) -> None:
        self.send("reset")


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
