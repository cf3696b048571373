"""The one-line summary of a CRI request kept in the call log (`fakecri ctl calls`,
`FakeCRI.call_log()`): which objects the call was about, so a log reads as a story."""
from __future__ import annotations

from typing import Any


def summarize(request: Any) -> str:
    """`pod=default/web`, `container=app attempt=0 pod_sandbox_id=...`, `image=busybox`,
    `container_id=...`: what the request names; "" for a request that names nothing."""
    parts: list[str] = []
    config = getattr(request, "config", None)
    meta = getattr(config, "metadata", None) if config is not None else None
    if meta is not None and meta.name:
        if hasattr(meta, "namespace"):
            parts.append(f"pod={meta.namespace}/{meta.name}")
        else:
            parts.append(f"container={meta.name} attempt={meta.attempt}")
    image = getattr(request, "image", None)
    if image is not None and getattr(image, "image", None):
        parts.append(f"image={image.image}")
    for field in ("pod_sandbox_id", "container_id"):
        value = getattr(request, field, "")
        if value:
            parts.append(f"{field}={value[:12]}")
    filt = getattr(request, "filter", None)
    if filt is not None:
        for field in ("id", "pod_sandbox_id"):
            value = getattr(filt, field, "")
            if value:
                parts.append(f"filter {field}={value[:12]}")
    return " ".join(parts)
