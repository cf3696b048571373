"""Register servicer objects with a grpc.aio server, straight from the service descriptors.

Responses may be protobuf messages or ready-made wire bytes (the list calls), so the
serializer passes bytes through untouched. Every handler is wrapped by ServerState so
faults, error mapping, events and the call log are handled in one place for all RPCs.
"""
from __future__ import annotations

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import ServiceDescriptor


def _serialize(msg) -> bytes:
    return msg if type(msg) is bytes else msg.SerializeToString()


def generic_handler(service: ServiceDescriptor, servicer, state, *, gated: bool = True) -> grpc.GenericRpcHandler:
    """`gated=False` skips the fault gate and call log (the control service)."""
    methods = {}
    for m in service.methods:
        impl = getattr(servicer, m.name)
        request_cls = message_factory.GetMessageClass(m.input_type)
        if m.server_streaming:
            methods[m.name] = grpc.unary_stream_rpc_method_handler(
                state.wrap_stream(m.name, impl, gated=gated),
                request_deserializer=request_cls.FromString,
                response_serializer=_serialize,
            )
        else:
            methods[m.name] = grpc.unary_unary_rpc_method_handler(
                state.wrap_unary(m.name, impl, gated=gated),
                request_deserializer=request_cls.FromString,
                response_serializer=_serialize,
            )
    return grpc.method_handlers_generic_handler(service.full_name, methods)
