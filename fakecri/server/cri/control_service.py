"""fakecri.control.v1.Control: faults, scripted exits and stats, conditions, restarts, reset, logs."""
from __future__ import annotations

import math
from typing import Any, TypeAlias

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.engine import errors
from fakecri.engine.clock import FakeClock
from fakecri.engine.exits import EXIT_KILLED, reason_for
from fakecri.faults.kinds import condition
from fakecri.faults.model import Fault, FaultSpecError
from fakecri.server.cri.control_node import ControlNode
from fakecri.sim.stats_script import FIGURES as STATS_FIGURES

Context: TypeAlias = Any  # a grpc.aio.ServicerContext (grpc ships no types)


def fault_to_pb(f: Fault) -> cpb.Fault:
    return cpb.Fault(
        name=f.name, type=f.type, target=f.target, stage=f.stage, toxicity=f.toxicity, count=f.count,
        attributes=f.attributes, hits=f.hits,
    )


def fault_from_pb(msg: cpb.Fault) -> Fault:
    return Fault.from_dict(
        {
            "name": msg.name,
            "type": msg.type,
            "target": msg.target,
            "stage": msg.stage or "before",
            "toxicity": msg.toxicity or 1.0,
            "count": msg.count,
            "attributes": dict(msg.attributes),
        }
    )


MAX_DOWNTIME_S = 86400.0  # a day: longer than any test wants a runtime to stay down


class ControlService:
    def __init__(self, node: ControlNode) -> None:
        self.node = node
        self.runtime, self.sim, self.plan = node.runtime, node.sim, node.plan
        self.clock, self.config = node.clock, node.config

    async def AddFault(self, request: cpb.AddFaultRequest, context: Context) -> Any:
        if not request.fault.type:
            raise errors.InvalidArgument("AddFault: fault.type is required")
        try:
            added = self.plan.add(fault_from_pb(request.fault))
        except FaultSpecError as exc:
            raise errors.InvalidArgument(f"AddFault: {exc}") from None
        await self.node.apply_pending_restart()
        return fault_to_pb(added)

    async def ListFaults(self, request: cpb.ListFaultsRequest, context: Context) -> Any:
        return cpb.ListFaultsResponse(faults=[fault_to_pb(f) for f in self.plan.list()])

    async def RemoveFault(self, request: cpb.RemoveFaultRequest, context: Context) -> Any:
        self.plan.remove(request.name)
        return cpb.RemoveFaultResponse()

    async def ResetFaults(self, request: cpb.ResetFaultsRequest, context: Context) -> Any:
        self.plan.reset()
        self.plan.clear_log()
        return cpb.ResetFaultsResponse()

    async def ExitContainer(self, request: cpb.ExitContainerRequest, context: Context) -> Any:
        code = EXIT_KILLED if request.oom else request.exit_code
        reason = request.reason or reason_for(code, oom=request.oom)
        self.runtime.exit_container(request.container_id, code, reason, request.message)
        return cpb.ExitContainerResponse()

    async def SetStats(self, request: cpb.SetStatsRequest, context: Context) -> Any:
        c = self.runtime.get_container(request.container_id)
        figures = {name: getattr(request, name.replace("-", "_")) for name in STATS_FIGURES}
        self.sim.set_stats(c, {k: v for k, v in figures.items() if v}, self.node.now_ns(), clear=request.clear)
        return cpb.SetStatsResponse()

    async def SetCondition(self, request: cpb.SetConditionRequest, context: Context) -> Any:
        if request.type not in condition.CONDITIONS:
            raise errors.InvalidArgument(
                f"SetCondition: condition {request.type!r} is not {' or '.join(condition.CONDITIONS)}"
            )
        fault = condition.condition_fault(request.type, request.status, reason=request.reason,
                                          message=request.message, duration_s=request.duration_seconds)
        # Setting a condition replaces what was set before for it (the first fault would win).
        for old in self.plan.list():
            if condition.forces(old, request.type):
                self.plan.remove(old.name)
        try:
            self.plan.add(fault)
        except FaultSpecError as exc:
            raise errors.InvalidArgument(f"SetCondition: {exc}") from None
        return cpb.SetConditionResponse()

    async def RestartRuntime(self, request: cpb.RestartRuntimeRequest, context: Context) -> Any:
        # NaN would pass a `< 0` test and, as a loop timer, break the event loop's timer heap.
        if not (math.isfinite(request.downtime_seconds) and 0 <= request.downtime_seconds <= MAX_DOWNTIME_S):
            raise errors.InvalidArgument(
                f"RestartRuntime: downtime_seconds {request.downtime_seconds} is not between 0 and {MAX_DOWNTIME_S:.0f}"
            )
        await self.node.restart(request.downtime_seconds, request.wipe_state)
        return cpb.RestartRuntimeResponse()

    async def AdvanceClock(self, request: cpb.AdvanceClockRequest, context: Context) -> Any:
        clock = self.clock
        if not isinstance(clock, FakeClock):
            raise errors.FailedPrecondition(
                "AdvanceClock: the server runs on the system clock (start it with a fake clock)")
        if request.seconds < 0:
            raise errors.InvalidArgument("AdvanceClock: seconds must not be negative")
        if not math.isfinite(request.seconds) or clock.now_ns() + request.seconds * 1e9 >= 2**63:
            raise errors.InvalidArgument(
                f"AdvanceClock: {request.seconds} seconds would take the clock past what an int64 of nanoseconds holds"
            )
        clock.advance(request.seconds)
        self.node.tick()
        return cpb.AdvanceClockResponse(now_ns=clock.now_ns())

    async def Reset(self, request: cpb.ResetRequest, context: Context) -> Any:
        self.node.reset()
        return cpb.ResetResponse()

    async def GetCallLog(self, request: cpb.GetCallLogRequest, context: Context) -> Any:
        return cpb.GetCallLogResponse(
            calls=[
                cpb.CallRecord(method=c.method, summary=c.summary, code=c.code, duration_seconds=c.duration_s,
                               at_ns=c.at_ns)
                for c in self.node.call_log
            ]
        )

    async def GetFaultLog(self, request: cpb.GetFaultLogRequest, context: Context) -> Any:
        return cpb.GetFaultLogResponse(
            records=[cpb.FaultRecord(fault=r.fault, type=r.type, hit=str(r.hit), at_ns=r.at_ns)
                     for r in self.plan.log]
        )

    async def GetServerInfo(self, request: cpb.GetServerInfoRequest, context: Context) -> Any:
        return cpb.GetServerInfoResponse(
            seed=self.config.seed, counters=dict(self.node.counters), errors=list(self.node.server_errors)
        )
