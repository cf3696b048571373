"""A kubelet-like client for any CRI runtime: typed calls, event streams, PLEGs.

Imports only grpc, the generated stubs and the standard library.
"""
from fakecri.client.container_events import EventStream, EventWatcher
from fakecri.client.endpoint import Endpoint, parse_endpoint
from fakecri.client.errors import (
    AlreadyExistsError,
    CancelledError,
    CRIError,
    DeadlineExceededError,
    EventStreamClosed,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    InvalidEndpointError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
)
from fakecri.client.pleg.counters import PLEGMetrics, register_prometheus
from fakecri.client.sync_client import CRIClient

__all__ = [
    "AlreadyExistsError",
    "CRIClient",
    "CRIError",
    "CancelledError",
    "DeadlineExceededError",
    "Endpoint",
    "EventStream",
    "EventStreamClosed",
    "EventWatcher",
    "FailedPreconditionError",
    "InternalError",
    "InvalidArgumentError",
    "InvalidEndpointError",
    "NotFoundError",
    "PLEGMetrics",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "UnauthenticatedError",
    "UnavailableError",
    "UnimplementedError",
    "parse_endpoint",
    "register_prometheus",
]
