"""The one-line summary of a CRI request kept in the call log (`fakecri ctl calls`,
`FakeCRI.call_log()`): which objects the call was about, so a log reads as a story.

Every call is summarized, so the fields to look at are worked out once per request type
(`_Plan`) rather than tried one by one on each request."""
from __future__ import annotations

from typing import Any

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
