"""Label selectors as CRI defines them: every key/value of the selector must match."""
from __future__ import annotations

from collections.abc import Mapping


def matches(labels: Mapping[str, str], selector: Mapping[str, str] | None) -> bool:
    if not selector:
        return True
    for key, value in selector.items():
        if labels.get(key) != value:
            return False
    return True
