"""The calls of fakecri's control API (service fakecri.control.v1.Control), each declared once:
the proto's rpc, the method of ControlClient that makes it (and of FakeCRI, which forwards
it), the `fakecri ctl` command, how the method's keywords name the request's fields where
they differ, and its help, which the client, FakeCRI and `fakecri ctl --help` all show.

The wire (request and response messages) is declared by proto/fakecri/api/control/v1/control.proto;
the behaviour by fakecri.server.cri.control_service.ControlService, whose methods are the
rpcs'. tests/test_control_calls.py holds the table, the proto, the service, the client,
FakeCRI and `fakecri ctl` to each other.

No imports: the command line reads it before it needs gRPC.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ControlCall:
    rpc: str  # "ExitContainer": the rpc of service Control, and ControlService's method
    method: str  # "exit_container": ControlClient's method (FakeCRI's too, when `fixture`)
    command: str  # "exit": the `fakecri ctl` subcommand
    help: str
    # The method's keyword -> the request field it fills, where the names differ.
    fields: dict[str, str] = field(default_factory=dict)
    fixture: bool = True  # FakeCRI forwards it as it is


CONTROL_CALLS: tuple[ControlCall, ...] = (
    ControlCall("AddFault", "add_fault", "add-fault",
                "Add a fault: a mapping with the keys name, type, target, stage, toxicity, count and attributes "
                "(docs/faults.md); the answer is the fault as stored, its name filled in.",
                fixture=False),  # FakeCRI.add_fault also takes flag strings and lists
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
