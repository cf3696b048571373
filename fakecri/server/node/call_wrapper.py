"""The one path every RPC takes, unary or streaming, around the servicer's own code.

Register servicer objects with a grpc.aio server straight from the service descriptors
(`generic_handler`), each method wrapped by `_call_unary` or `_call_stream`, which do, in
order: the fault gate (a restart in progress, injected latency, hangs, errors and restarts),
the request check, the servicer method inside `node.changing()` (which commits on its way
out: events out, timers, state file; a call that failed commits what it changed first), the
message-size limit, the "after" fault gate, the wait for slow event readers under the block
policy; then, whatever happened, the mapping of errors to status codes and the call record.

Responses may be protobuf messages or ready-made wire bytes (the list calls), so the
serializer passes bytes through untouched.

The call record's one-line summary of a request (the call log: `fakecri ctl calls`,
`FakeCRI.call_log()`) names the objects the call was about, so a log reads as a story;
every call is summarized, so the fields to look at are worked out once per request type
(`_Plan`) rather than tried one by one on each request.
"""
from __future__ import annotations

import asyncio
import functools
import time
import traceback
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
from google.protobuf import message_factory
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import DecodeError

from fakecri.engine import errors
from fakecri.server.codec.status import code_for
from fakecri.server.exceptions import DeadlineExceeded, Unavailable
from fakecri.server.node.node import Node

# INTERNAL answers: every one is counted (`internal_errors`), the tracebacks of the last
# the node keeps for check() and GetServerInfo (node.ERROR_RING), each cut to TRACEBACK_CHARS.
TRACEBACK_CHARS = 16 * 1024
MESSAGE_CHARS = 1024


# Each unary list's streaming twin, named when the list is too big for one message.
STREAM_TWINS = {
    "ListPodSandbox": "StreamPodSandboxes", "ListContainers": "StreamContainers", "ListImages": "StreamImages",
    "ListContainerStats": "StreamContainerStats", "ListPodSandboxStats": "StreamPodSandboxStats",
    "ListPodSandboxMetrics": "StreamPodSandboxMetrics",
}


def too_big(name: str, size: int, limit: int, *, at_least: bool = False) -> errors.ResourceExhausted:
    """The error of a unary answer over the message limit, naming the call that can carry it."""
    twin = STREAM_TWINS.get(name)
    advice = f"use {twin}, which sends it in parts under the limit, or a filter" if twin else "use a filter"
    return errors.ResourceExhausted(
        f"{name}: the answer would be {'over ' if at_least else ''}{size} bytes, over the {limit}-byte "
        f"message limit; {advice}")


def _serialize(msg: Any) -> bytes:
    return msg if type(msg) is bytes else msg.SerializeToString()


class _Undecodable:
    """What the deserializer hands the wrapper for bytes that are not a valid request message."""

    def __init__(self, type_name: str, error: str) -> None:
        self.type_name = type_name
        self.error = error


def _deserializer(request_cls: Any) -> Callable[[bytes], Any]:
    def parse(data: bytes) -> Any:
        try:
            return request_cls.FromString(data)
        except DecodeError as exc:  # a caller mistake: INVALID_ARGUMENT, not grpc's UNKNOWN
            return _Undecodable(request_cls.DESCRIPTOR.full_name, str(exc))

    return parse


async def _gate(node: Node, name: str, context: Any, stage: str) -> None:
    """What the fault plan (or a restart in progress) does to this call at `stage`."""
    if stage == "before" and node.down_until and asyncio.get_running_loop().time() < node.down_until:
        raise Unavailable(f"{name}: the runtime is restarting")
    action = node.plan.on_call(name, stage)
    if action is None:
        return
    if action.restart is not None:
        await node.restart(action.restart.downtime_s, action.restart.wipe)
        raise Unavailable(f"{name}: the runtime is restarting")
    if action.delay_s > 0:
        await asyncio.sleep(action.delay_s)
    if action.hang:
        remaining = context.time_remaining()
        await asyncio.sleep(remaining + 0.05 if remaining is not None else 3600.0)
        raise DeadlineExceeded(f"{name}: hung by a fault until the deadline")
    if action.error is not None:
        code, message = action.error
        raise errors.from_code(code, message or f"{name}: error injected by a fault")


def _record(node: Node, name: str, request: Any, code: str, started: float) -> None:
    duration = time.perf_counter() - started
    node.record_call(name, summarize(request), code, duration,
                     lambda: ids_named(request) if type(request) is not _Undecodable else {})


async def _abort(node: Node, name: str, exc: Exception, context: Any) -> None:
    """End the call with the status for `exc`: a core error's code, or INTERNAL for a bug
    in fakecri (recorded so that check() fails the test that caused it)."""
    if isinstance(exc, errors.CoreError):
        await context.abort(code_for(exc), exc.message)
    tb = _cut(traceback.format_exc(), TRACEBACK_CHARS)
    node.record_error(tb)
    error = _cut(repr(exc), MESSAGE_CHARS)
    node.log.error("handler raised", method=name, error=error, traceback=tb)
    await context.abort(grpc.StatusCode.INTERNAL, f"fakecri internal error in {name}: {error}")


def _cut(text: str, limit: int) -> str:
    """`text` if short enough, else its head and its tail (where a traceback names the error)."""
    if len(text) <= limit:
        return text
    head = limit // 4
    return f"{text[:head]}\n... ({len(text) - limit} characters left out) ...\n{text[-(limit - head):]}"


def _check_decoded(request: Any) -> None:
    if type(request) is _Undecodable:
        raise errors.InvalidArgument(f"the request is not a valid {request.type_name}: {request.error}")


async def _call_unary(node: Node, name: str, impl: Callable[..., Any], gated: bool, request: Any,
                      context: Any) -> Any:
    """One unary call. `gated=False` skips the fault gate and the call record (the control service)."""
    started = time.perf_counter()
    code = "OK"
    try:
        # The gate only has work when faults are armed or a restart is in progress;
        # skipping the coroutine otherwise keeps the no-fault path short.
        if gated and (node.down_until or node.plan.has_rpc_faults):
            await _gate(node, name, context, "before")
        _check_decoded(request)
        emitted = node.bus.emitted
        with node.changing():
            resp = await impl(request, context)
        if type(resp) is bytes and len(resp) > node.config.max_message_bytes:
            raise too_big(name, len(resp), node.config.max_message_bytes)
        if gated and node.plan.has_rpc_faults:
            await _gate(node, name, context, "after")
        if node.bus.policy == "block" and node.bus.emitted != emitted:
            await node.bus.wait_for_room()  # only an RPC that emitted events waits for slow readers
        return resp
    except grpc.aio.AbortError:
        raise
    except asyncio.CancelledError:
        code = "CANCELLED"
        raise
    except Exception as exc:
        code = exc.code if isinstance(exc, errors.CoreError) else "INTERNAL"
        await _abort(node, name, exc, context)
    finally:
        if gated:
            _record(node, name, request, code, started)


async def _call_stream(node: Node, name: str, impl: Callable[..., Any], gated: bool, request: Any,
                       context: Any) -> AsyncIterator[Any]:
    """One server-streaming call: each item the servicer yields, through the same steps."""
    started = time.perf_counter()
    code = "OK"
    try:
        if gated and (node.down_until or node.plan.has_rpc_faults):
            await _gate(node, name, context, "before")
        _check_decoded(request)
        with node.changing():
            async for item in impl(request, context):
                yield item
    except grpc.aio.AbortError:
        raise
    except (asyncio.CancelledError, GeneratorExit):
        code = "CANCELLED"
        raise
    except Exception as exc:
        code = exc.code if isinstance(exc, errors.CoreError) else "INTERNAL"
        await _abort(node, name, exc, context)
    finally:
        if gated:
            _record(node, name, request, code, started)


def generic_handler(service: ServiceDescriptor, servicer: Any, node: Node, *,
                    gated: bool = True) -> grpc.GenericRpcHandler:
    """Every method of `service`, served by the same-named method of `servicer` through
    `_call_unary` or `_call_stream`. `servicer` may be a list: a service served by one servicer
    per family of RPCs, each method by the one servicer that has it."""
    servicers = servicer if isinstance(servicer, list) else [servicer]
    methods = {}
    for m in service.methods:
        owners = [s for s in servicers if hasattr(s, m.name)]
        if len(owners) != 1:
            raise TypeError(f"{service.full_name}.{m.name} is served by {len(owners)} servicers, not one")
        impl = getattr(owners[0], m.name)
        options = dict(request_deserializer=_deserializer(message_factory.GetMessageClass(m.input_type)),
                       response_serializer=_serialize)
        # A partial of a coroutine (or async generator) function still counts as one for grpc.aio.
        call = functools.partial(_call_stream if m.server_streaming else _call_unary, node, m.name, impl, gated)
        if m.server_streaming:
            methods[m.name] = grpc.unary_stream_rpc_method_handler(call, **options)
        else:
            methods[m.name] = grpc.unary_unary_rpc_method_handler(call, **options)
    return grpc.method_handlers_generic_handler(service.full_name, methods)


ID_FIELDS = ("pod_sandbox_id", "container_id")


class _Plan:
    """Which of the summarized fields a request type has."""

    def __init__(self, descriptor: Any) -> None:
        fields = descriptor.fields_by_name
        config = fields.get("config")
        meta = config.message_type.fields_by_name.get("metadata") if config is not None and config.message_type \
            else None
        self.config = meta is not None
        self.pod = meta is not None and "namespace" in meta.message_type.fields_by_name
        image = fields.get("image")
        self.image = image is not None and image.message_type is not None and \
            "image" in image.message_type.fields_by_name
        self.ids = tuple(f for f in ID_FIELDS if f in fields)
        filt = fields.get("filter")
        self.filter_ids = tuple(f for f in ("id", "pod_sandbox_id")
                                if filt is not None and filt.message_type is not None
                                and f in filt.message_type.fields_by_name)


_PLANS: dict[type, _Plan] = {}


def ids_named(request: Any) -> dict[str, str]:
    """The pod_sandbox_id and container_id a request names (for the per-call log line)."""
    plan = _plan(request)
    return {f: value for f in plan.ids if (value := getattr(request, f))}


def _plan(request: Any) -> _Plan:
    plan = _PLANS.get(type(request))
    if plan is None:
        plan = _PLANS[type(request)] = _Plan(request.DESCRIPTOR)
    return plan


def summarize(request: Any) -> str:
    """`pod=default/web`, `container=app attempt=0 pod_sandbox_id=...`, `image=busybox`,
    `container_id=...`: what the request names; "" for a request that names nothing."""
    if not hasattr(request, "DESCRIPTOR"):  # bytes that did not parse: nothing to name
        return ""
    plan = _plan(request)
    parts: list[str] = []
    if plan.config:
        meta = request.config.metadata
        if meta.name:
            parts.append(f"pod={meta.namespace}/{meta.name}" if plan.pod else
                         f"container={meta.name} attempt={meta.attempt}")
    if plan.image and request.image.image:
        parts.append(f"image={request.image.image}")
    for field in plan.ids:
        value = getattr(request, field)
        if value:
            parts.append(f"{field}={value[:12]}")
    if plan.filter_ids:
        filt = request.filter
        for field in plan.filter_ids:
            value = getattr(filt, field)
            if value:
                parts.append(f"filter {field}={value[:12]}")
    return " ".join(parts)
