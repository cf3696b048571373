"""FakeCRI: a running fakecri with its endpoint and control API at hand.

What the pytest plugin's `fakecri` and `make_fakecri` fixtures hand out; usable
without pytest too: `FakeCRI.start(seed=7)` ... `.stop()`.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakecri.control_client import ControlClient


class FakeCRI:
    """A running fakecri: the server, its endpoint and its control API.

    The control API's calls are methods here (faults, scripted exits and stats, conditions,
    restarts, the clock, logs); `.control` is the ControlClient they go through.
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        self._control: ControlClient | None = None

    @classmethod
    def start(cls, **config: Any) -> FakeCRI:
        """Start a FakeCRIServer (ServerConfig fields as keywords) on a background thread."""
        from fakecri.server.process.app import FakeCRIServer

        return cls(FakeCRIServer(**config).start())

    @property
    def endpoint(self) -> str:
        return str(self.server.endpoint)

    @property
    def node(self) -> Any:
        """The server's Node (runtime, simulation, faults...): touch it only through `server.call`."""
        return self.server.node

    @property
    def seed(self) -> int:
        return int(self.server.config.seed)

    @property
    def control(self) -> ControlClient:
        if self._control is None:
            from fakecri.control_client import ControlClient

            self._control = ControlClient(self.server.control_endpoint)
        return self._control

    def add_fault(self, fault: Any) -> list[dict[str, Any]]:
        """Add faults given as a dict, a Fault, or a flag string; returns them as stored."""
        return [self.control.add_fault(f) for f in faults_from_spec(fault)]

    def add_quirks(self, *names: str) -> list[dict[str, Any]]:
        """Switch on real runtimes' quirks by name (see docs/faults.md); returns them as stored."""
        return self.add_fault(f"--quirks {','.join(names)}")

    def list_faults(self) -> list[dict[str, Any]]:
        """The faults in force, each a dict with name, type, target, stage, toxicity, count,
        attributes and hits."""
        return self.control.list_faults()

    def remove_fault(self, name: str) -> None:
        """Remove one fault by name (NOT_FOUND if there is none by that name)."""
        self.control.remove_fault(name)

    def reset_faults(self) -> None:
        """Remove every fault and clear the fault log."""
        self.control.reset_faults()

    def exit_container(self, container_id: str, exit_code: int = 0, *, reason: str = "", message: str = "",
                       oom: bool = False) -> None:
        """Make a running container exit now with `exit_code`, as if its process ended on its own.
        Without a reason: Completed for 0, Error otherwise (as containerd reports); `oom`: the
        kernel's OOM killer ended it (137, OOMKilled)."""
        self.control.exit_container(container_id, exit_code, reason=reason, message=message, oom=oom)

    def oom_kill(self, container_id: str) -> None:
        """Make a running container exit as killed for memory: exit code 137, reason OOMKilled."""
        self.control.oom_kill(container_id)

    def set_stats(self, container_id: str, *, cpu: str = "", memory: str = "", memory_usage: str = "",
                  memory_rss: str = "", disk: str = "", psi: str = "", clear: bool = False) -> None:
        """Script what a container's stats report from now on (ContainerStats, the pod's stats and
        metrics, so the kubelet's /stats/summary). Each figure is a value or a curve whose time
        starts now, as the `fakecri.io/` stats annotations take them (docs/behaviour.md): `cpu`
        in cores ("250m"), `memory` (the working set), `memory_usage`, `memory_rss` and `disk`
        (the writable layer) in bytes ("50Mi", "0->200Mi over 60s", "steps 10Mi@0s,1Gi@30s"),
        `psi` as "memory.some=40; io.full=5" (percent stalled). A figure not given stays as it
        is; `clear` first forgets what earlier calls set."""
        self.control.set_stats(container_id, cpu=cpu, memory=memory, memory_usage=memory_usage,
                               memory_rss=memory_rss, disk=disk, psi=psi, clear=clear)

    def set_condition(self, type: str, status: bool, *, reason: str = "", message: str = "",
                      duration: float = 0.0) -> None:
        """Set the RuntimeReady or NetworkReady condition that Status reports, for `duration`
        seconds (0: until reset or set again)."""
        self.control.set_condition(type, status, reason=reason, message=message, duration=duration)

    def restart(self, downtime: float = 1.0, *, wipe: bool = False) -> None:
        """Simulate a restart of the runtime: event streams close and calls answer UNAVAILABLE for
        `downtime` seconds; `wipe` forgets every sandbox and container."""
        self.control.restart(downtime, wipe=wipe)

    def advance_clock(self, seconds: float) -> int:
        """Move a fake clock (a server started with fake_clock=True) forward; returns the new
        time in nanoseconds. Timers that fall due fire."""
        return self.control.advance_clock(seconds)

    def call_log(self) -> list[dict[str, Any]]:
        """The CRI calls served since the last reset, oldest first: method, summary, code,
        duration_seconds, at_ns."""
        return self.control.call_log()

    def fault_log(self) -> list[dict[str, Any]]:
        """Every time a fault acted since the last reset: fault, type, hit, at_ns."""
        return self.control.fault_log()

    def server_info(self) -> dict[str, Any]:
        """The seed, the server's counters and the tracebacks of handlers that raised."""
        return self.control.server_info()

    def reset(self) -> None:
        """Forget state, faults, clock, call log and counters."""
        self.server.reset()

    def client(self, **kwargs: Any) -> Any:
        """A new CRIClient on this server (close it when done)."""
        from fakecri.client.sync_client import CRIClient

        return CRIClient(self.endpoint, **kwargs)

    def check(self) -> None:
        """Raise if a handler raised inside the server since the last reset."""
        self.server.check()

    def stop(self) -> None:
        """Stop the server and close the control connection."""
        if self._control is not None:
            self._control.close()
            self._control = None
        self.server.stop()

    def __repr__(self) -> str:
        return f"<FakeCRI {self.endpoint} seed={self.seed}>"

    def __enter__(self) -> FakeCRI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def faults_from_spec(spec: Any) -> list[Any]:
    """One marker/fixture fault item -> Fault objects. Accepts a Fault, a dict with the
    control proto's keys, or a serve flag such as '--latency ListContainers=200ms'."""
    from fakecri.faults.flags import STRING_FLAGS, parse_fault_flag
    from fakecri.faults.model import Fault, FaultSpecError

    if isinstance(spec, Fault):
        return [spec]
    if isinstance(spec, dict):
        return [Fault.from_dict(spec)]
    if isinstance(spec, str):
        match = re.fullmatch(r"(--[a-z-]+)(?:=|\s+)(.+)", spec.strip(), re.S)
        flag, value = match.groups() if match else ("", "")
        if flag not in STRING_FLAGS or not value.strip():
            raise FaultSpecError(
                f"fakecri fault {spec!r}: write it as a serve flag, one of "
                + ", ".join(f"'{f} VALUE'" for f in STRING_FLAGS)
            )
        return parse_fault_flag(flag, value.strip())
    raise FaultSpecError(f"fakecri fault {spec!r}: give a dict, a Fault or a flag string")
