"""The calls of fakecri's control API (service fakecri.control.v1.Control), each declared once:
the proto's rpc, the method that makes it, the `fakecri ctl` command, how the method's
keywords name the request's fields where they differ, and its help, which the method and
`fakecri ctl --help` both show. The methods themselves are ControlCalls' (ControlClient and
FakeCRI both have them), but for the two whose FakeCRI version is its own (add_fault, reset),
which ControlClient defines.

The wire (request and response messages) is declared by proto/fakecri/api/control/v1/control.proto;
the behaviour by fakecri.server.cri.control_service.ControlService, whose methods are the
rpcs'. tests/test_control_calls.py holds the table, the proto, the service, the client,
FakeCRI and `fakecri ctl` to each other.

The standard library only: the command line reads it before it needs gRPC.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar


@dataclass(frozen=True)
class ControlCall:
    rpc: str  # "ExitContainer": the rpc of service Control, and ControlService's method
    method: str  # "exit_container": ControlClient's method (FakeCRI's too, when `fixture`)
    command: str  # "exit": the `fakecri ctl` subcommand
    help: str
    # The method's keyword -> the request field it fills, where the names differ.
    fields: dict[str, str] = field(default_factory=dict)
    fixture: bool = True  # a method of ControlCalls, so FakeCRI's as well


CONTROL_CALLS: tuple[ControlCall, ...] = (
    ControlCall("AddFault", "add_fault", "add-fault",
                "Add a fault: a mapping with the keys name, type, target, stage, toxicity, count and attributes "
                "(docs/faults.md); the answer is the fault as stored, its name filled in.",
                fixture=False),  # FakeCRI.add_fault also takes flag strings
    ControlCall("ListFaults", "list_faults", "faults",
                "The faults in force, each with name, type, target, stage, toxicity, count, attributes and hits."),
    ControlCall("RemoveFault", "remove_fault", "remove-fault",
                "Remove one fault by name (NOT_FOUND if there is none by that name)."),
    ControlCall("ResetFaults", "reset_faults", "reset-faults", "Remove every fault and clear the fault log."),
    ControlCall("ExitContainer", "exit_container", "exit",
                "Make a running container exit now with an exit code, as if its process ended on its own. "
                "Without a reason: Completed for 0, Error otherwise (as containerd reports); as OOM-killed: "
                "the kernel's OOM killer ended it (137, OOMKilled)."),
    ControlCall("SetStats", "set_stats", "set-stats",
                "Script what a container's stats report from now on (ContainerStats, the pod's stats and "
                "metrics, so the kubelet's /stats/summary). Each figure is a value or a curve whose time "
                "starts now, as the fakecri.io/ stats annotations take them (docs/behaviour.md): cpu "
                "in cores (250m), memory (the working set), memory usage, memory RSS and disk "
                "(the writable layer) in bytes (50Mi, '0->200Mi over 60s', 'steps 10Mi@0s,1Gi@30s'), "
                "psi as 'memory.some=40; io.full=5' (percent stalled). A figure not given stays as it "
                "is; clear first forgets what earlier calls set."),
    ControlCall("SetCondition", "set_condition", "condition",
                "Set the RuntimeReady or NetworkReady condition that Status reports, for a duration "
                "(0: until reset or set again).",
                fields={"duration": "duration_seconds"}),
    ControlCall("RestartRuntime", "restart", "restart",
                "Simulate a restart of the runtime: event streams close and calls answer UNAVAILABLE for "
                "the downtime; a wipe forgets every sandbox and container.",
                fields={"downtime": "downtime_seconds", "wipe": "wipe_state"}),
    ControlCall("AdvanceClock", "advance_clock", "advance-clock",
                "Move a fake clock (`fakecri serve --fake-clock`, FakeCRI.start(fake_clock=True)) forward, "
                "firing the timers that fall due; the answer is the new time. A server on the system clock "
                "refuses (FAILED_PRECONDITION)."),
    ControlCall("Reset", "reset", "reset", "Forget state, faults, clock, call log and counters.",
                fixture=False),  # FakeCRI.reset resets the server it holds directly
    ControlCall("GetCallLog", "call_log", "calls",
                "The CRI calls served since the last reset, oldest first: method, summary, code, "
                "duration_seconds, at_ns."),
    ControlCall("GetFaultLog", "fault_log", "fault-log",
                "Every time a fault acted since the last reset: fault, type, hit, at_ns."),
    ControlCall("GetServerInfo", "server_info", "info",
                "The seed, the server's counters (calls by method and code, events, faults fired) and the "
                "tracebacks of handlers that raised."),
)
BY_METHOD: dict[str, ControlCall] = {c.method: c for c in CONTROL_CALLS}
BY_COMMAND: dict[str, ControlCall] = {c.command: c for c in CONTROL_CALLS}

_Method = TypeVar("_Method", bound=Callable[..., Any])


def declared(method: _Method) -> _Method:
    """A method that makes a call of the table: its help is the table's (and a method the table
    does not declare fails here, at import)."""
    method.__doc__ = BY_METHOD[method.__name__].help
    return method


def fault_dict(f: Any) -> dict[str, Any]:
    """A Fault message as a dict with the proto's keys."""
    return {
        "name": f.name, "type": f.type, "target": f.target, "stage": f.stage, "toxicity": f.toxicity,
        "count": f.count, "attributes": dict(f.attributes), "hits": f.hits,
    }


class ControlCalls:
    """The control API's calls that ControlClient and FakeCRI share; `send` is how each of them
    reaches the server."""

    def send(self, method: str, **values: Any) -> Any:
        """Make the call `method` stands for in the table, its request's fields from `values`;
        the response message."""
        raise NotImplementedError

    # faults
    @declared
    def list_faults(self) -> list[dict[str, Any]]:
        return [fault_dict(f) for f in self.send("list_faults").faults]

    @declared
    def remove_fault(self, name: str) -> None:
        self.send("remove_fault", name=name)

    @declared
    def reset_faults(self) -> None:
        self.send("reset_faults")

    # scripted behaviour
    @declared
    def exit_container(self, container_id: str, exit_code: int = 0, *, reason: str = "", message: str = "",
                       oom: bool = False) -> None:
        self.send("exit_container", container_id=container_id, exit_code=exit_code, reason=reason,
                  message=message, oom=oom)

    def oom_kill(self, container_id: str) -> None:
        """Make a running container exit as killed for memory: exit code 137, reason OOMKilled."""
        self.exit_container(container_id, oom=True)

    @declared
    def set_stats(self, container_id: str, *, cpu: str = "", memory: str = "", memory_usage: str = "",
                  memory_rss: str = "", disk: str = "", psi: str = "", clear: bool = False) -> None:
        self.send("set_stats", container_id=container_id, cpu=cpu, memory=memory, memory_usage=memory_usage,
                  memory_rss=memory_rss, disk=disk, psi=psi, clear=clear)

    @declared
    def set_condition(self, type: str, status: bool, *, reason: str = "", message: str = "",
                      duration: float = 0.0) -> None:
        self.send("set_condition", type=type, status=status, reason=reason, message=message, duration=duration)

    @declared
    def restart(self, downtime: float = 1.0, *, wipe: bool = False) -> None:
        self.send("restart", downtime=downtime, wipe=wipe)

    @declared
    def advance_clock(self, seconds: float) -> int:
        return int(self.send("advance_clock", seconds=seconds).now_ns)

    # logs
    @declared
    def call_log(self) -> list[dict[str, Any]]:
        return [
            {"method": c.method, "summary": c.summary, "code": c.code, "duration_seconds": c.duration_seconds,
             "at_ns": c.at_ns}
            for c in self.send("call_log").calls
        ]

    @declared
    def fault_log(self) -> list[dict[str, Any]]:
        return [{"fault": r.fault, "type": r.type, "hit": r.hit, "at_ns": r.at_ns}
                for r in self.send("fault_log").records]

    @declared
    def server_info(self) -> dict[str, Any]:
        resp = self.send("server_info")
        return {"seed": resp.seed, "counters": dict(resp.counters), "errors": list(resp.errors)}
