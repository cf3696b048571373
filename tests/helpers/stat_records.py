"""Container and sandbox records with fixed times, for the stats tests."""
from fakecri.engine.clock import NS_PER_S
from fakecri.engine.records import Container, ContainerState, Resources, Sandbox, SandboxState

T0 = 1_767_225_600 * NS_PER_S
MIB = 1024 * 1024


def make_container(cid="c" * 64, *, state=ContainerState.RUNNING, started=T0, finished=0, limit=0, swap=0,
                   image="busybox", command=()):
    return Container(
        id=cid, sandbox_id="s" * 64, name="app", attempt=0, state=state, created_at=T0 - NS_PER_S,
        image=image, command=tuple(command), image_ref="docker.io/library/busybox@sha256:" + "0" * 64,
        image_id="sha256:" + "1" * 64,
        labels={"k": "v"}, annotations={"a": "b"}, started_at=started, finished_at=finished,
        resources=Resources(memory_limit_in_bytes=limit, memory_swap_limit_in_bytes=swap),
    )


def make_sandbox(state=SandboxState.READY, limit=0):
    return Sandbox(
        id="s" * 64, name="pod", namespace="ns", uid="u1", attempt=0, state=state, created_at=T0 - 5 * NS_PER_S,
        labels={"app": "x"}, annotations={}, resources=Resources(memory_limit_in_bytes=limit) if limit else None,
    )
