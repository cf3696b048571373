"""Which node a control call is for, in a farm: the caller names it in the request metadata
key "fakecri-node" (ControlClient's `node=`). A server's own sockets serve only itself, and
refuse a call that names another node rather than act on the wrong one."""
from __future__ import annotations

import grpc

NODE_METADATA = "fakecri-node"


def node_named(details: grpc.HandlerCallDetails) -> str | None:
    """The node a call names, or None when it names none."""
    for key, value in getattr(details, "invocation_metadata", None) or ():
        if key == NODE_METADATA:
            return value if isinstance(value, str) else bytes(value).decode("utf-8", "replace")
    return None


def refusal(code: grpc.StatusCode, message: str) -> grpc.RpcMethodHandler:
    """A handler for a unary method that answers every call with `code` and `message`."""

    async def refuse(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        await context.abort(code, message)
        raise AssertionError("abort returns only by raising")

    return grpc.unary_unary_rpc_method_handler(refuse)


class _CheckedForNode(grpc.GenericRpcHandler):  # type: ignore[misc,unused-ignore]  # grpc ships no types
    def __init__(self, handler: grpc.GenericRpcHandler, name: str) -> None:
        self.handler = handler
        self.name = name

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        handler = self.handler.service(handler_call_details)
        asked = node_named(handler_call_details)
        if handler is None or asked is None or asked == self.name:
            return handler
        serves = f"the farm node {self.name!r}" if self.name else "one runtime, not a farm's nodes"
        return refusal(grpc.StatusCode.NOT_FOUND,
                       f"this socket serves {serves}, and the call is for node {asked!r}; reach a farm's nodes "
                       "through its control socket (farm.sock) or each node's own socket")


def checked_for_node(handler: grpc.GenericRpcHandler, name: str) -> grpc.GenericRpcHandler:
    """`handler`, refusing (NOT_FOUND) a call that names a node other than `name`."""
    return _CheckedForNode(handler, name)
