"""`pull_error`: fail pulls of matching image references."""
from __future__ import annotations

from fakecri.faults.ftype import PULL, Attr, Entry, FaultType, PullDecision
from fakecri.faults.kinds.common import choice, error_code, text

# Each reason: the code it implies and the registry's message.
REASONS: dict[str, tuple[str, str]] = {
    "not_found": ("NOT_FOUND", "pulling {ref}: the registry has no such repository or tag"),
    "auth": ("UNAUTHENTICATED", "pulling {ref}: the registry refused anonymous access (401 Unauthorized)"),
    "rate_limited": ("RESOURCE_EXHAUSTED",
                     "pulling {ref}: the registry's pull rate limit was reached (429 Too Many Requests)"),
}


def _on_pull(e: Entry, reference: str, d: PullDecision) -> None:
    if d.error is not None:
        return
    code, message = REASONS[e.params["reason"]]
    d.error = (e.params["code"] or code, e.params["message"] or message.format(ref=reference))


PULL_ERROR = FaultType(
    "pull_error", PULL, "Fail pulls of matching image references.",
    {"reason": Attr(choice(tuple(REASONS)), "not_found", doc="not_found, auth or rate_limited"),
     "code": Attr(error_code, None, doc="override the code the reason implies"),
     "message": Attr(text, "", doc="override the message")},
    on_pull=_on_pull,
)
