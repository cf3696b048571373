"""The transition tables and the one function that enforces them."""
from __future__ import annotations

import pytest

from fakecri.engine.errors import FailedPrecondition, NotFound
from fakecri.engine.records import ContainerState as C
from fakecri.engine.records import SandboxState as S
from fakecri.engine.transitions import (
    CONTAINER_EVENTS,
    CONTAINER_TRANSITIONS,
    GONE,
    MISSING,
    SANDBOX_TRANSITIONS,
    legal_ops,
    path_for,
)


@pytest.mark.parametrize("op,state,path", [
    ("start", C.CREATED, (C.RUNNING,)),
    ("stop", C.RUNNING, (C.EXITED,)),
    ("stop", C.EXITED, ()),
    ("stop", C.CREATED, ()),
    ("stop", MISSING, ()),
    ("remove", C.RUNNING, (C.EXITED, GONE)),
    ("remove", C.EXITED, (GONE,)),
    ("remove", MISSING, ()),
    ("fail_start", C.CREATED, (C.EXITED,)),
])
def test_container_paths(op, state, path):
    assert path_for("container", "c1", op, state) == path


@pytest.mark.parametrize("op,state", [
    ("start", C.RUNNING), ("start", C.EXITED), ("exec", C.CREATED), ("exec", C.EXITED),
    ("reopen_log", C.EXITED), ("exit", C.EXITED), ("update_resources", C.EXITED),
])
def test_illegal_container_moves_name_object_state_and_operation(op, state):
    with pytest.raises(FailedPrecondition) as exc:
        path_for("container", "c-42", op, state)
    msg = exc.value.message
    assert "container c-42" in msg and state.name in msg


def test_non_idempotent_operation_on_missing_object_is_not_found():
    with pytest.raises(NotFound, match="container 'zz' not found"):
        path_for("container", "zz", "start", MISSING)
    with pytest.raises(NotFound, match="sandbox 'yy' not found"):
        path_for("sandbox", "yy", "create_container", MISSING)


def test_sandbox_paths():
    assert path_for("sandbox", "s", "stop", S.READY) == (S.NOTREADY,)
    assert path_for("sandbox", "s", "stop", S.NOTREADY) == ()
    assert path_for("sandbox", "s", "remove", S.READY) == (S.NOTREADY, GONE)
    with pytest.raises(FailedPrecondition, match="create a container in sandbox s: it is NOTREADY"):
        path_for("sandbox", "s", "create_container", S.NOTREADY)


def test_every_state_in_a_path_has_an_event_and_paths_are_forward_only():
    order = {C.CREATED: 0, C.RUNNING: 1, C.EXITED: 2, GONE: 3}
    for (op, state), path in CONTAINER_TRANSITIONS.items():
        prev = order.get(state, -1)
        for step in path:
            assert step in CONTAINER_EVENTS
            assert order[step] > prev, (op, state, path)
            prev = order[step]
    assert set(legal_ops("sandbox")) == {op for op, _ in SANDBOX_TRANSITIONS}
