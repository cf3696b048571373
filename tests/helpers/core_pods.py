"""Helpers for driving the engine and the container simulation directly, with no server:
`Joined` wires them as the server's Node does (without the host I/O), `Pod` makes
sandboxes and containers with sensible defaults."""
from __future__ import annotations

from collections.abc import Iterable

from fakecri.engine.clock import FakeClock, IdSource, SequentialIds
from fakecri.engine.errors import CoreError
from fakecri.engine.images import ImageStore
from fakecri.engine.records import Event, EventType, Output
from fakecri.engine.runtime import Runtime
from fakecri.sim.catalog import Catalog
from fakecri.sim.host_view import HostView, NoHost
from fakecri.sim.live import Decision, Exited, Wrote
from fakecri.sim.simulation import Simulation

# The busybox image as the default catalog pulls it (its id and digest follow from the reference).
IMAGE = ImageStore(Catalog()).pull("busybox:latest")


class MemoryLog:
    """What containers wrote, by log path: (stream, line, ts_ns) entries; and the reopened paths."""

    def __init__(self, joined: Joined) -> None:
        self._joined = joined
        self.entries: dict[str, list[tuple[str, str, int]]] = {}
        self.reopened: list[str] = []

    def add(self, out: Output) -> None:
        text = out.text[:-1] if out.text.endswith("\n") else out.text
        self.entries.setdefault(out.log_path, []).extend((out.stream, line, out.ts_ns) for line in text.split("\n"))

    def of(self, path: str) -> list[tuple[str, str, int]]:
        """The (stream, line, ts_ns) entries written to `path` so far."""
        self._joined.pump()  # what was written since the last look
        return list(self.entries.get(path, []))

    def lines(self, path: str) -> list[str]:
        return [line for _, line, _ in self.of(path)]


class Joined:
    """An engine and a simulation as one node, minus the server: `events()` drains the outbox
    (output into `log`, the simulation told of stops and removals), `tick()` runs timers."""

    def __init__(self, clock: FakeClock | None = None, ids: IdSource | None = None, *,
                 catalog: Catalog | None = None, host: HostView | None = None, **runtime_options) -> None:
        self.clock = clock or FakeClock()
        self.sim = Simulation(catalog or Catalog(), host or NoHost(), clock=self.clock)
        self.runtime = Runtime(self.clock, ids or SequentialIds(), programs=self.sim, registry=self.sim.catalog,
                               **runtime_options)
        self.sim.watch(self.runtime)
        self.runtime.images.pull("busybox:latest")
        self.log = MemoryLog(self)
        self.seen: list[Event] = []  # every event drained so far
        self._pending: list[Event] = []  # drained, not yet returned by events()
        self.outputs: list[Output] = []  # every output drained so far, as the engine said it

    def pump(self) -> None:
        """Drain the outbox as the server's commit does: output into `log`, the simulation
        told of stops and removals; the events wait for `events()`."""
        for said in self.runtime.drain_events():
            if isinstance(said, Output):
                self.outputs.append(said)
                self.log.add(said)
                continue
            self._pending.append(said)
            self.seen.append(said)
            if not said.is_sandbox and said.type == EventType.STOPPED:
                self.sim.stopped(said.container_id)
            elif not said.is_sandbox and said.type == EventType.DELETED:
                self.sim.forget(said.container_id)

    def events(self) -> list[Event]:
        """The events since the last call (reading the log does not lose any)."""
        self.pump()
        out, self._pending = self._pending, []
        return out

    def apply(self, decisions: Iterable[Decision]) -> None:
        """Carry out what the simulation decided, as the server's Node does."""
        for d in decisions:
            try:
                if isinstance(d, Wrote):
                    self.runtime.write_output(d.container_id, d.stream, d.text, d.ts_ns)
                elif isinstance(d, Exited):
                    self.runtime.exit_container(d.container_id, d.exit_code, d.reason, at_ns=d.ts_ns)
            except CoreError:
                continue  # the container was stopped or removed meanwhile

    def tick(self) -> None:
        self.runtime.tick()
        self.apply(self.sim.tick(self.clock.now_ns()))

    def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)
        self.tick()

    def stop(self, cid: str, timeout_s: float) -> float:
        """StopContainer as the server runs it: the stop signal delivered into a program that
        takes it (its output logged), then the engine's stop; the seconds the stop takes."""
        said, taken = self.sim.signalled(self.runtime.get_container(cid), self.clock.now_ns(), round(timeout_s * 1e9))
        self.apply(said)
        return self.runtime.stop_container(cid, timeout_s, 0, taken)

    def exec_sync(self, cid: str, argv, timeout_s: float = 0.0, stdin: bytes = b""):
        """ExecSync as the server runs it: the engine says whether it may, the simulation runs it."""
        c = self.runtime.check_exec(cid)
        return self.sim.exec_sync(c, list(argv), self.clock.now_ns(), timeout_s, stdin)

    def feed(self, cid: str, data: bytes | None) -> None:
        """Input for a container's own command, as attach gives it."""
        c = self.runtime.check_exec(cid)
        self.apply(self.sim.feed_input(c, data, self.clock.now_ns()))


class Pod:
    """Small helper: make sandboxes and containers with sensible defaults."""

    def __init__(self, runtime: Runtime) -> None:
        self.rt = runtime
        self.n = 0

    def sandbox(self, name: str | None = None, **kw):
        self.n += 1
        kw.setdefault("namespace", "default")
        kw.setdefault("uid", f"uid-{self.n}")
        kw.setdefault("log_directory", f"/var/log/pods/{self.n}")
        return self.rt.run_pod_sandbox(name=name or f"pod-{self.n}", **kw)

    def container(self, sandbox, name: str = "app", command=(), args=(), annotations=None, **kw):
        kw.setdefault("log_path", f"{name}/0.log")
        kw.setdefault("image", "busybox")
        return self.rt.create_container(
            sandbox.id, name=name, command=tuple(command), args=tuple(args), annotations=annotations or {}, **kw,
        )

    def running(self, sandbox, name: str = "app", command=("sleep", "infinity"), **kw):
        c = self.container(sandbox, name, command=command, **kw)
        self.rt.start_container(c.id)
        return self.rt.get_container(c.id)


def kinds(events):
    """Events as (type name, is_sandbox, last 2 id chars) for readable order assertions."""
    return [(e.type.name, "sb" if e.is_sandbox else "c", e.container_id[-2:]) for e in events]


def check_order(events):
    """Assert the per-container and sandbox bracketing rules over a whole event list."""
    order = {EventType.CREATED: 0, EventType.STARTED: 1, EventType.STOPPED: 2, EventType.DELETED: 3}
    seen: dict[str, list[EventType]] = {}
    sandbox_pos: dict[str, dict[EventType, int]] = {}
    last_ts = 0
    for i, e in enumerate(events):
        assert e.created_at >= last_ts
        last_ts = e.created_at
        types = seen.setdefault(e.container_id, [])
        assert e.type not in types, f"duplicate {e.type.name} for {e.container_id}"
        assert not types or order[types[-1]] < order[e.type]
        types.append(e.type)
        if e.is_sandbox:
            assert e.container_id == e.sandbox_id
            sandbox_pos.setdefault(e.sandbox_id, {})[e.type] = i
    for i, e in enumerate(events):
        if e.is_sandbox:
            continue
        pos = sandbox_pos[e.sandbox_id]
        assert pos[EventType.STARTED] < i
        if EventType.STOPPED in pos and e.type == EventType.STOPPED:
            assert i < pos[EventType.STOPPED]
        if EventType.DELETED in pos:
            assert i < pos[EventType.DELETED]
