"""Runtime quirks seen in real CRI runtimes, one enum member each, built from the quirks'
modules (fakecri.faults.quirk_kinds, one module per quirk, each declaring its SPEC and
holding its behaviour, which the server's hook points call). A name that is not a member
fails where it is written, so a typo cannot silently switch a quirk off.

Each member carries its description, the runtime it replays and its upstream references
(issues and pull requests, `owner/repo#N`), which `fakecri quirks`, `fakecri serve --help`
and docs/bug-lab.md show. docs/bug-lab.md says what a real kubelet does with each.
"""
from __future__ import annotations

import enum

from fakecri.faults.quirk_kinds import (
    created_at_seconds,
    deleted_on_stop,
    nil_sandbox_status_on_delete,
    no_container_deleted_on_sandbox_remove,
    no_sandbox_created_event,
    no_sandbox_deleted_event,
    oldest_first_container_statuses,
    pod_wide_container_statuses,
    remove_exiting_unknown,
    resize_not_applied,
    shared_event_channel,
    stop_returns_while_running,
    stopped_as_created,
    stopped_before_started,
    timestamp_without_statuses,
)
from fakecri.faults.quirk_kinds.common import QuirkSpec


class Quirk(str, enum.Enum):
    _value_: str
    description: str
    runtime: str
    reference: tuple[str, ...]

    def __new__(cls, spec: QuirkSpec) -> Quirk:
        member = str.__new__(cls, spec.name)
        member._value_ = spec.name
        member.description = spec.description
        member.runtime = spec.runtime
        member.reference = spec.reference
        return member

    NO_SANDBOX_DELETED_EVENT = no_sandbox_deleted_event.SPEC
    NIL_SANDBOX_STATUS_ON_DELETE = nil_sandbox_status_on_delete.SPEC
    STOPPED_BEFORE_STARTED = stopped_before_started.SPEC
    CREATED_AT_SECONDS = created_at_seconds.SPEC
    TIMESTAMP_WITHOUT_STATUSES = timestamp_without_statuses.SPEC
    POD_WIDE_CONTAINER_STATUSES = pod_wide_container_statuses.SPEC
    OLDEST_FIRST_CONTAINER_STATUSES = oldest_first_container_statuses.SPEC
    RESIZE_NOT_APPLIED = resize_not_applied.SPEC
    SHARED_EVENT_CHANNEL = shared_event_channel.SPEC
    STOPPED_AS_CREATED = stopped_as_created.SPEC
    DELETED_ON_STOP = deleted_on_stop.SPEC
    REMOVE_EXITING_UNKNOWN = remove_exiting_unknown.SPEC
    STOP_RETURNS_WHILE_RUNNING = stop_returns_while_running.SPEC
    NO_SANDBOX_CREATED_EVENT = no_sandbox_created_event.SPEC
    NO_CONTAINER_DELETED_ON_SANDBOX_REMOVE = no_container_deleted_on_sandbox_remove.SPEC

    @property
    def references(self) -> str:
        """The references as one comma-separated line ('' when there are none)."""
        return ", ".join(self.reference)


QUIRK_NAMES: tuple[str, ...] = tuple(q.value for q in Quirk)
BY_NAME: dict[str, Quirk] = {q.value: q for q in Quirk}
QUIRKS: dict[str, str] = {q.value: q.description for q in Quirk}
