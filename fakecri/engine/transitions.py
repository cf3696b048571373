"""The legal moves of sandboxes and containers, as data.

Each table maps (operation, current state) to the path of states the object walks
through. An empty path means "nothing to do" (CRI's idempotent stop/remove). A pair
missing from the table is illegal. `MISSING` stands for an object that does not exist
and `GONE` for the end of the road (removed). Entering a state emits the events listed
for it in `CONTAINER_EVENTS` / `SANDBOX_EVENTS`; the runtime emits nothing else.

`path_for` is the one function that reads the tables and raises; `events_on_entering`
says what entering a state announces.
"""
from __future__ import annotations

from fakecri.engine.errors import FailedPrecondition, NotFound
from fakecri.engine.records import ContainerState, EventType, SandboxState

MISSING = "MISSING"  # the object does not exist (any more)
GONE = "GONE"  # the object has been removed

_C = ContainerState
_S = SandboxState

CONTAINER_TRANSITIONS: dict[tuple[str, object], tuple[object, ...]] = {
    ("create", MISSING): (_C.CREATED,),
    ("start", _C.CREATED): (_C.RUNNING,),
    # The command could not be started: the container is left EXITED, as containerd leaves it.
    ("fail_start", _C.CREATED): (_C.EXITED,),
    # Stop is a no-op unless the container runs (containerd ignores CREATED ones too).
    ("stop", _C.CREATED): (),
    ("stop", _C.RUNNING): (_C.EXITED,),
    ("stop", _C.EXITED): (),
    ("stop", MISSING): (),
    # An exit that happens on its own (a timer, the control plane).
    ("exit", _C.RUNNING): (_C.EXITED,),
    # Removing a running container kills it first.
    ("remove", _C.CREATED): (GONE,),
    ("remove", _C.RUNNING): (_C.EXITED, GONE),
    ("remove", _C.EXITED): (GONE,),
    ("remove", MISSING): (),
    ("update_resources", _C.CREATED): (),
    ("update_resources", _C.RUNNING): (),
    ("exec", _C.RUNNING): (),
    ("attach", _C.RUNNING): (),
    ("reopen_log", _C.RUNNING): (),
    ("checkpoint", _C.RUNNING): (),
    # StopPodSandbox kills what runs and leaves the rest as it is.
    ("kill", _C.CREATED): (),
    ("kill", _C.RUNNING): (_C.EXITED,),
    ("kill", _C.EXITED): (),
}

SANDBOX_TRANSITIONS: dict[tuple[str, object], tuple[object, ...]] = {
    # A new sandbox is ready at once: it is announced as created, then started.
    ("run", MISSING): (_S.READY,),
    ("stop", _S.READY): (_S.NOTREADY,),
    ("stop", _S.NOTREADY): (),
    ("stop", MISSING): (),
    ("remove", _S.READY): (_S.NOTREADY, GONE),
    ("remove", _S.NOTREADY): (GONE,),
    ("remove", MISSING): (),
    ("create_container", _S.READY): (),
    ("start_container", _S.READY): (),
    ("update_resources", _S.READY): (),
    ("update_resources", _S.NOTREADY): (),
    ("checkpoint", _S.READY): (),
    ("port_forward", _S.READY): (),
}

# The events each state emits when entered, in order.
CONTAINER_EVENTS: dict[object, tuple[EventType, ...]] = {
    _C.CREATED: (EventType.CREATED,),
    _C.RUNNING: (EventType.STARTED,),
    _C.EXITED: (EventType.STOPPED,),
    GONE: (EventType.DELETED,),
}
SANDBOX_EVENTS: dict[object, tuple[EventType, ...]] = {
    _S.READY: (EventType.CREATED, EventType.STARTED),
    _S.NOTREADY: (EventType.STOPPED,),
    GONE: (EventType.DELETED,),
}

_VERBS = {
    "fail_start": "fail the start of",
    "update_resources": "update the resources of",
    "exec": "exec in",
    "attach": "attach to",
    "port_forward": "forward a port of",
    "reopen_log": "reopen the log of",
    "create_container": "create a container in",
    "start_container": "start a container in",
}


def _state_name(state: object) -> str:
    return state.name if isinstance(state, (ContainerState, SandboxState)) else str(state)


def path_for(kind: str, obj_id: str, op: str, state: object) -> tuple[object, ...]:
    """The states `op` walks `kind` ("container" or "sandbox") `obj_id` through.

    Raises NotFound for an operation on a missing object that is not idempotent, and
    FailedPrecondition for an illegal move, naming the object, its state and the operation.
    """
    table = CONTAINER_TRANSITIONS if kind == "container" else SANDBOX_TRANSITIONS
    path = table.get((op, state))
    if path is not None:
        return path
    if state == MISSING:
        raise NotFound(f"{kind} {obj_id!r} not found")
    verb = _VERBS.get(op, op)
    legal = [s for (o, s) in table if o == op and s != MISSING]
    only = f", not {_state_name(legal[0])}" if len(legal) == 1 else ""  # exec: "it is EXITED, not RUNNING"
    raise FailedPrecondition(f"cannot {verb} {kind} {obj_id}: it is {_state_name(state)}{only}")


def events_on_entering(kind: str, state: object) -> tuple[EventType, ...]:
    """The events `kind` ("container" or "sandbox") emits when it enters `state`."""
    return (CONTAINER_EVENTS if kind == "container" else SANDBOX_EVENTS)[state]


def legal_ops(kind: str) -> dict[str, list[str]]:
    """op -> the states it is legal from; for docs and diagrams."""
    table = CONTAINER_TRANSITIONS if kind == "container" else SANDBOX_TRANSITIONS
    out: dict[str, list[str]] = {}
    for op, state in table:
        out.setdefault(op, []).append(_state_name(state))
    return out
