"""`stop-returns-while-running`: StopContainer answers OK while the container still runs;
its exit (with the STOPPED event) comes 150-250 ms later, drawn from the quirk's seeded
stream, and a RemoveContainer in that window answers UNKNOWN."""
from __future__ import annotations

from fakecri.engine.records import ContainerState
from fakecri.faults.quirk_kinds.common import ContainerView, QuirkDraws, QuirkLog, Quirks, QuirkSpec
from fakecri.faults.quirk_kinds.remove_exiting_unknown import still_running

SPEC = QuirkSpec(
    "stop-returns-while-running",
    "StopContainer answers OK while the container still runs: ContainerStatus says RUNNING and "
    "the STOPPED event waits for 150-250 ms more (seeded), and a RemoveContainer in that window "
    "answers UNKNOWN 'container is still running, to stop first' (containerd 1.6.20, 2.0.0, 2.3.4).",
    "containerd 1.6.20, 2.0.0 and 2.3.4 (measured by fakecri's conformance suite)",
    ("containerd/containerd#4655", "containerd/containerd#8953"))


def stop_lag_ns(container_id: str, plan: QuirkDraws, containers: ContainerView) -> int:
    """How much later than the stop the exit comes (0 without the quirk): 150-250 ms, drawn
    from the quirk's seeded stream, for a container that is running."""
    rng = plan.quirk_rng(SPEC.name) if plan.has_quirks else None
    if rng is None:
        return 0
    found = containers.list_containers(id=container_id)
    if not found or found[0].state != ContainerState.RUNNING:
        return 0
    plan.quirk_hit(SPEC.name, f"stop {found[0].id[:12]}")
    return rng.randrange(150_000_000, 250_000_001)


def check_remove(container_id: str, quirks: Quirks, log: QuirkLog, containers: ContainerView) -> None:
    """At RemoveContainer: raise UNKNOWN for a container still RUNNING while its stop is under way
    (containerd finds it RUNNING while its exit is not yet handled)."""
    if SPEC.name not in quirks:
        return
    found = containers.list_containers(id=container_id)
    if (found and found[0].state == ContainerState.RUNNING and containers.is_stopping(found[0].id)
            and log.quirk_hit(SPEC.name, f"remove {found[0].id[:12]}")):
        raise still_running(found[0].id)
