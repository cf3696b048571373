"""Kubelet-like PLEGs over CRI: the generic relist and both Evented PLEG generations."""
from fakecri.client.pleg.cache import CacheEntry, PodCache, PodStatus
from fakecri.client.pleg.evented_current import CurrentEventedPLEG
from fakecri.client.pleg.evented_legacy import LegacyEventedPLEG
from fakecri.client.pleg.generic import GenericPLEG
from fakecri.client.pleg.lifecycle import (
    ContainerRecord,
    EventChannel,
    EventType,
    PodLifecycleEvent,
    PodRecord,
    State,
    build_pods,
    compute_pod_events,
    generate_events,
)

__all__ = [
    "CacheEntry",
    "ContainerRecord",
    "CurrentEventedPLEG",
    "EventChannel",
    "EventType",
    "GenericPLEG",
    "LegacyEventedPLEG",
    "PodCache",
    "PodLifecycleEvent",
    "PodRecord",
    "PodStatus",
    "State",
    "build_pods",
    "compute_pod_events",
    "generate_events",
]
