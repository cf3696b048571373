"""FaultPlan: the faults in force, and the seeded decisions they make for each call.

Every fault draws from its own random stream, derived from the plan's seed and the
fault's name, so decisions do not depend on the order faults were added in. Faults
that fire together are combined in name order.
"""
from __future__ import annotations

import builtins
import dataclasses
import random
from collections import deque
from collections.abc import Callable

from fakecri.engine import errors
from fakecri.engine.clock import SystemClock
from fakecri.faults import registry
from fakecri.faults.event_faults import EventFaults
from fakecri.faults.ftype import CALL, CONDITION, EVENT, PULL, QUIRK, RESTART, CallDecision, Entry, PullDecision
from fakecri.faults.kinds import condition
from fakecri.faults.methods import compile_glob
from fakecri.faults.model import (
    CallAction,
    ConditionOverride,
    Fault,
    FaultRecord,
    FaultSpecError,
    PullAction,
    RestartAction,
)
from fakecri.faults.quirks import BY_NAME, Quirk
from fakecri.faults.rng import derive_rng

DEFAULT_LOG_SIZE = 10_000


class FaultPlan:
    """The faults in force for one server. Not thread-safe: the server's event loop owns it."""

    def __init__(
        self,
        seed: int = 0,
        *,
        on_fire: Callable[[FaultRecord], None] | None = None,
        now_ns: Callable[[], int] | None = None,
        log_size: int = DEFAULT_LOG_SIZE,
    ) -> None:
        self._seed = seed
        self._on_fire = on_fire
        self._now_ns = now_ns or SystemClock().now_ns
        self._log: deque[FaultRecord] = deque(maxlen=log_size)
        self.counters: dict[str, int] = {}
        self._entries: dict[str, Entry] = {}
        self._by_kind: dict[str, list[Entry]] = {}
        self._rpc: list[Entry] = []
        # What is in force, kept by _rebuild as plain attributes: the server reads them on every
        # call and every event, and with nothing in force that read is all it does (no call into
        # this package: a plain call never enters fakecri.faults).
        self.quirk_set: frozenset[Quirk] = frozenset()  # the quirks in force (what quirks() returns)
        self.has_quirks = False  # some quirk is in force
        self.has_rpc_faults = False  # some fault may act on RPCs (the call gate has work)
        self.has_event_faults = False  # some fault acts on event streams (delivery asks EventFaults)
        self._numbers: dict[str, int] = {}
        self._serial = 0
        self._pending_restart: RestartAction | None = None

    # ---- the collection -------------------------------------------------

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def log(self) -> list[FaultRecord]:
        return list(self._log)

    def add(self, fault: Fault) -> Fault:
        """Validate and add a fault; return a copy as stored (with its name filled in)."""
        try:
            normal, params = registry.validate(fault)
        except FaultSpecError as exc:
            raise errors.InvalidArgument(str(exc)) from None
        ftype = registry.type_of(normal.type)
        if ftype.expand is not None:
            return self._add_all(ftype.expand(normal))
        if not normal.name:
            normal = dataclasses.replace(normal, name=self._default_name(normal.type))
        elif normal.name in self._entries:
            raise errors.AlreadyExists(f"a fault named {normal.name!r} already exists")
        normal = dataclasses.replace(normal, attributes=dict(normal.attributes), hits=0)
        self._serial += 1
        entry = Entry(
            fault=normal, params=params, ftype=ftype,
            rng=derive_rng(self._seed, "fault", normal.name), serial=self._serial,
            matcher=compile_glob(normal.target), added_ns=self._now_ns(),
        )
        due = ftype.at_once(entry) if ftype.at_once is not None else None
        if due is not None:
            # Nothing to wait for: the restart is due now; the server collects it.
            self._pending_restart = due
            self._fire(entry, "at once", keep=False)
            return dataclasses.replace(normal, attributes=dict(normal.attributes))
        self._entries[normal.name] = entry
        self._rebuild()
        return self._copy(entry)

    def _add_all(self, faults: builtins.list[Fault]) -> Fault:
        """Add the faults a recipe stands for (all or none); return the first as stored."""
        taken = [f.name for f in faults if f.name in self._entries]
        if taken:
            raise errors.AlreadyExists(f"a fault named {taken[0]!r} already exists")
        added = [self.add(f) for f in faults]
        return added[0]

    def remove(self, name: str) -> None:
        if name not in self._entries:
            raise errors.NotFound(f"no fault named {name!r}")
        del self._entries[name]
        self._rebuild()

    def list(self) -> list[Fault]:
        self._expire_conditions(self._now_ns())
        return [self._copy(e) for e in self._entries.values()]

    def reset(self) -> None:
        """Remove every fault (the log and counters stay; see clear_log)."""
        self._entries.clear()
        self._numbers.clear()
        self._pending_restart = None
        self._rebuild()

    def clear_log(self) -> None:
        self._log.clear()
        self.counters.clear()

    def take_restart(self) -> RestartAction | None:
        """A restart added to happen at once, handed out a single time."""
        action, self._pending_restart = self._pending_restart, None
        return action

    # ---- decisions -------------------------------------------------------

    def on_call(self, method: str, stage: str) -> CallAction | None:
        """Decide what happens to one call of `method` ("ListContainers") at `stage`."""
        entries = self._rpc
        if not entries:
            return None
        d = CallDecision()
        fired: builtins.list[str] = []
        for e in entries:
            if e.fault.stage != stage or not e.matches(method):
                continue
            assert e.ftype.on_call is not None
            acted = e.ftype.on_call(e, method, d)
            if acted is None:
                continue
            hit = f"{method} ({stage}), {acted.detail}" if acted.detail else f"{method} ({stage})"
            self._fire(e, hit, keep=acted.keep)
            fired.append(e.fault.name)
        if not fired:
            return None
        return CallAction(delay_s=d.delay_s, hang=d.hang, error=d.error, restart=d.restart, faults=tuple(fired))

    def on_pull(self, reference: str) -> PullAction | None:
        """Decide what happens to one pull of `reference` (as the client asked for it)."""
        entries = self._by_kind.get(PULL)
        if not entries:
            return None
        d = PullDecision()
        fired = False
        for e in entries:
            if not e.matches(reference) or not e.applies(e.rng):
                continue
            assert e.ftype.on_pull is not None
            e.ftype.on_pull(e, reference, d)
            self._fire(e, f"pull {reference}")
            fired = True
        return PullAction(error=d.error, delay_s=d.delay_s) if fired else None

    def quirks(self) -> frozenset[Quirk]:
        return self.quirk_set

    def quirk_hit(self, quirk: str, hit: str) -> bool:
        """Log that `quirk` (a Quirk, or its name) changed what the server did (`hit` says to
        what). False if not active."""
        for e in self._by_kind.get(QUIRK, []):
            if e.params["name"] == quirk:
                self._fire(e, hit)
                return True
        return False

    def quirk_rng(self, quirk: str) -> random.Random | None:
        """The random stream of `quirk`'s fault (from the plan's seed); None if not in force."""
        for e in self._by_kind.get(QUIRK, []):
            if e.params["name"] == quirk:
                return e.rng
        return None

    def conditions(self, now_ns: int) -> dict[str, ConditionOverride]:
        """Conditions forced at `now_ns`, by type; expired condition faults are removed."""
        self._expire_conditions(now_ns)
        out: dict[str, ConditionOverride] = {}
        for e in self._by_kind.get(CONDITION, []):
            which, forced, hit = condition.override(e)
            if which in out:
                continue
            out[which] = forced
            if not e.reported:
                e.reported = True
                self._fire(e, hit)
        return out

    def subscriber(self, index: int) -> EventFaults:
        """Event faults for the `index`th GetContainerEvents stream, with its own random streams."""
        return EventFaults(self, index)

    # ---- used by EventFaults ----------------------------------------------

    def event_entries(self) -> builtins.list[Entry]:
        return self._by_kind.get(EVENT, [])

    def subscriber_rng(self, index: int, fault_name: str) -> random.Random:
        return derive_rng(self._seed, "subscriber", index, fault_name)

    def fire(self, entry: Entry, hit: str) -> None:
        self._fire(entry, hit)

    # ---- internals ----------------------------------------------------------

    def _fire(self, entry: Entry, hit: str, *, keep: bool = True) -> None:
        fault = entry.fault
        fault.hits += 1
        self.counters[fault.name] = self.counters.get(fault.name, 0) + 1
        record = FaultRecord(fault=fault.name, type=fault.type, hit=hit, at_ns=self._now_ns())
        self._log.append(record)
        if fault.count > 0:
            fault.count -= 1
            if fault.count == 0:
                keep = False
        if not keep and self._entries.get(fault.name) is entry:
            del self._entries[fault.name]
            self._rebuild()
        if self._on_fire is not None:
            self._on_fire(record)

    def _default_name(self, type_name: str) -> str:
        n = self._numbers.get(type_name, 0)
        while True:
            n += 1
            name = f"{type_name}_{n}"
            if name not in self._entries:
                self._numbers[type_name] = n
                return name

    def _rebuild(self) -> None:
        by_kind: dict[str, list[Entry]] = {}
        for e in sorted(self._entries.values(), key=lambda x: x.fault.name):
            by_kind.setdefault(e.kind, []).append(e)
        self._by_kind = by_kind
        self.quirk_set = frozenset(BY_NAME[e.params["name"]] for e in by_kind.get(QUIRK, []))
        self.has_quirks = bool(self.quirk_set)
        # Restarts are decided alongside the other RPC faults, in one name-ordered pass.
        self._rpc = sorted(by_kind.get(CALL, []) + by_kind.get(RESTART, []),
                           key=lambda x: x.fault.name)
        self.has_rpc_faults = bool(self._rpc)
        self.has_event_faults = bool(by_kind.get(EVENT))

    def _copy(self, entry: Entry) -> Fault:
        return dataclasses.replace(entry.fault, attributes=dict(entry.fault.attributes))

    def _expire_conditions(self, now_ns: int) -> None:
        expired = [e for e in self._by_kind.get(CONDITION, [])
                   if (until := condition.until_ns(e)) is not None and now_ns >= until]
        for e in expired:
            del self._entries[e.fault.name]
        if expired:
            self._rebuild()
