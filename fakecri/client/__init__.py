"""A kubelet-like client for any CRI runtime: typed calls, event streams, PLEGs.

Imports only grpc, the generated stubs and the standard library.
"""
from fakecri.client.container_events import EventStream, EventWatcher
from fakecri.client.endpoint import Endpoint, parse_endpoint
from fakecri.client.errors import (
    AlreadyExistsError,
    CRIError,
    DeadlineExceededError,
    EventStreamClosed,
    FailedPreconditionError,
    InvalidArgumentError,
    InvalidEndpointError,
    NotFoundError,
    ResourceExhaustedError,
    UnavailableError,
    UnimplementedError,
)
from fakecri.client.pleg.counters import PLEGMetrics, register_prometheus
from fakecri.client.sync_client import CRIClient

__all__ = [
    "AlreadyExistsError",
    "CRIClient",
    "CRIError",
    "DeadlineExceededError",
    "Endpoint",
    "EventStream",
    "EventStreamClosed",
    "EventWatcher",
    "FailedPreconditionError",
    "InvalidArgumentError",
    "InvalidEndpointError",
    "NotFoundError",
    "PLEGMetrics",
    "ResourceExhaustedError",
    "UnavailableError",
    "UnimplementedError",
    "parse_endpoint",
    "register_prometheus",
]
