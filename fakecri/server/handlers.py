"""Register servicer objects with a grpc.aio server, straight from the service descriptors.

Responses may be protobuf messages or ready-made wire bytes (the list calls), so the
serializer passes bytes through untouched. Every handler is wrapped by ServerState so
faults, error mapping, events and the call log are handled in one place for all RPCs.
"""
from __future__ import annotations

import grpc
from google.protobuf import message_factory
from google.protobuf.message import DecodeError
from google.protobuf.descriptor import ServiceDescriptor

from fakecri.core import errors


def _serialize(msg) -> bytes:
    return msg if type(msg) is bytes else msg.SerializeToString()


class _Undecodable:
    """What the deserializer hands the wrapper for bytes that are not a valid request message."""

    def __init__(self, type_name: str, error: str) -> None:
        self.type_name = type_name
        self.error = error


def _deserializer(request_cls):
    def parse(data: bytes):
        try:
            return request_cls.FromString(data)
        except DecodeError as exc:  # a caller mistake: INVALID_ARGUMENT, not grpc's UNKNOWN
            return _Undecodable(request_cls.DESCRIPTOR.full_name, str(exc))

    return parse


def _refuse(request) -> None:
    if type(request) is _Undecodable:
        raise errors.InvalidArgument(f"the request is not a valid {request.type_name}: {request.error}")


def _checked_unary(impl):
    async def run(request, context):
        _refuse(request)
        return await impl(request, context)

    return run


def _checked_stream(impl):
    async def run(request, context):
        _refuse(request)
        async for item in impl(request, context):
            yield item

    return run


def generic_handler(service: ServiceDescriptor, servicer, state, *, gated: bool = True) -> grpc.GenericRpcHandler:
    """`gated=False` skips the fault gate and call log (the control service)."""
    methods = {}
    for m in service.methods:
        impl = getattr(servicer, m.name)
        request_cls = message_factory.GetMessageClass(m.input_type)
        if m.server_streaming:
            methods[m.name] = grpc.unary_stream_rpc_method_handler(
                state.wrap_stream(m.name, _checked_stream(impl), gated=gated),
                request_deserializer=_deserializer(request_cls),
                response_serializer=_serialize,
            )
        else:
            methods[m.name] = grpc.unary_unary_rpc_method_handler(
                state.wrap_unary(m.name, _checked_unary(impl), gated=gated),
                request_deserializer=_deserializer(request_cls),
                response_serializer=_serialize,
            )
    return grpc.method_handlers_generic_handler(service.full_name, methods)
