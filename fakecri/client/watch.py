"""The engine behind `fakecri watch`: pods and containers as a relist sees them, CRI
events as they arrive, and transitions the relist found that no event announced.

Works against any CRI runtime. `run_watch` either keeps a live terminal view (rich)
or prints one JSON object per line.

Against a runtime without events (GetContainerEvents UNIMPLEMENTED, or a stream that
closes at once) it does what a kubelet does: it tries the stream a bounded number of
times (5) and then relies on the relist alone. A transition the relist finds counts
as missed only once the stream has delivered an event, and not after it was given up:
without an event stream nothing was promised; and only once no event announced it
within `missed_settle` seconds (an event may trail the relist that found its transition).

Every row names its pod as namespace/name; a relist row about a pod no relist or event
named yet falls back on the pod's uid.
"""
from __future__ import annotations

import json
import queue
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import IO, Any

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client.errors import CRIError
from fakecri.client.pleg.counters import EVENT_TYPE_NAMES
from fakecri.client.pleg.generic import GenericPLEG
from fakecri.client.pleg.ledger import SETTLE_S, EventLedger
from fakecri.client.pleg.lifecycle import PodLifecycleEvent, State
from fakecri.client.pleg.stream import StreamLoop
from fakecri.client.sync_client import CRIClient

# As the kubelet's Evented PLEG: after this many stream failures, the relist alone.
MAX_STREAM_FAILURES = 5


class Watcher:
    """Relists every `interval` seconds and follows the event stream (reconnecting every
    `retry_delay` seconds). Everything it sees becomes a record (a dict) in `records`."""

    def __init__(
        self,
        client: CRIClient,
        *,
        interval: float = 1.0,
        retry_delay: float = 1.0,
        max_stream_failures: int = MAX_STREAM_FAILURES,
        now: Callable[[], int] = time.time_ns,
        history: int = 200,
        missed_settle: float = SETTLE_S,
    ) -> None:
        self.client = client
        self.now = now
        self.pleg = GenericPLEG(client, relist_period=interval, now=now, channel_capacity=100_000)
        self.metrics = self.pleg.metrics
        self.ledger = EventLedger(self.metrics, settle=missed_settle, now=now)
        self.ledger.active = False  # until the stream delivers an event
        self.ledger.on_missed = self._on_missed
        self.pleg.relist_observer = self._on_relist
        self.pleg.after_relist = self._after_relist
        self._pod_names: dict[str, str] = {}  # uid -> namespace/name, from relists and events
        self.records: queue.Queue[dict[str, Any]] = queue.Queue()
        self.recent: deque[dict[str, Any]] = deque(maxlen=history)
        self.stream_state = "connecting"
        self._stream = StreamLoop(
            client, self.metrics, on_event=self._on_event, on_failure=self._on_failure,
            on_connected=self._on_connected, on_exhausted=self._on_exhausted,
            max_failures=max_stream_failures, retry_delay=retry_delay, name="watch-events",
        )
        self.gave_up = threading.Event()
        self._lock = threading.Lock()

    def start(self) -> Watcher:
        self.pleg.start()
        self._stream.start()
        return self

    def stop(self) -> None:
        self._stream.stop()
        self.pleg.stop()

    def latest(self, n: int) -> list[dict[str, Any]]:
        """The newest `n` records, oldest first (a copy: safe while events keep coming)."""
        with self._lock:
            return list(self.recent)[-n:]

    def _emit(self, record: dict[str, Any]) -> None:
        record.setdefault("time", self.now() / 1e9)
        with self._lock:
            self.recent.append(record)
        self.records.put(record)

    def _on_event(self, event: pb.ContainerEventResponse) -> None:
        received = self.now()
        with self.metrics.lock:
            self.metrics.events_received += 1
            self.metrics.events_received_by_type[EVENT_TYPE_NAMES.get(event.container_event_type, "?")] += 1
            self.metrics.event_latency.observe(max(0, received - event.created_at) / 1e9)
        self.ledger.announce(event)
        if not self.gave_up.is_set():
            self.ledger.active = True
        has_meta = event.HasField("pod_sandbox_status") and event.pod_sandbox_status.HasField("metadata")
        meta = event.pod_sandbox_status.metadata
        self._emit({
            "kind": "event",
            "type": EVENT_TYPE_NAMES.get(event.container_event_type, str(event.container_event_type)),
            "container_id": event.container_id,
            "sandbox": event.container_id == event.pod_sandbox_status.id if has_meta else None,
            "pod_uid": meta.uid if has_meta else None,
            "pod": self._name_pod(meta.uid, f"{meta.namespace}/{meta.name}") if has_meta else None,
            "created_at": event.created_at,
            "latency_ms": round((received - event.created_at) / 1e6, 3),
        })

    def _on_connected(self) -> None:
        self.stream_state = "connected"
        self._emit({"kind": "stream", "state": "connected"})

    def _on_failure(self, exc: CRIError, failures: int) -> None:
        self.stream_state = f"closed ({exc.code.name})"
        self._emit({"kind": "stream", "state": "closed", "code": exc.code.name, "message": exc.details,
                    "failures": failures})

    def _on_exhausted(self) -> None:
        self.ledger.active = False
        self.gave_up.set()
        last = self._stream.errors[-1] if self._stream.errors else None
        why = f"{last.code.name}: {last.details}" if last is not None else "failed"
        self.stream_state = f"given up after {self._stream.failures} failures ({why}); relist only"
        self._emit({"kind": "stream", "state": "given up", "failures": self._stream.failures,
                    "code": last.code.name if last is not None else None,
                    "message": "no event stream: the relist alone shows changes, none counts as missed"})

    def _name_pod(self, uid: str, name: str) -> str:
        with self._lock:
            self._pod_names[uid] = name
        return name

    def pod_name(self, uid: str) -> str:
        """namespace/name of pod `uid` as a relist or an event named it; the uid if none did."""
        current = self.pleg.records().get(uid)
        if current is not None and current.name:
            return self._name_pod(uid, f"{current.namespace}/{current.name}")
        with self._lock:
            return self._pod_names.get(uid, uid)

    def _on_relist(self, events: list[PodLifecycleEvent], first: bool) -> None:
        for ev in events:
            self._emit({"kind": "relist", "type": ev.type.value, "pod_uid": ev.pod_uid,
                        "pod": self.pod_name(ev.pod_uid), "container_id": ev.container_id, "baseline": first})
        self.ledger.observe_relist(events, first)

    def _after_relist(self) -> None:
        for uid, record in self.pleg.records().items():
            if record.name:
                self._name_pod(uid, f"{record.namespace}/{record.name}")
        self.ledger.expire()

    def _on_missed(self, ev: PodLifecycleEvent) -> None:
        self._emit({"kind": "missed", "type": ev.type.value, "pod_uid": ev.pod_uid, "pod": self.pod_name(ev.pod_uid),
                    "container_id": ev.container_id})

    def snapshot(self) -> list[dict[str, Any]]:
        """Pods as the last relist and inspection saw them."""
        pods = []
        for uid, record in sorted(self.pleg.records().items(), key=lambda kv: (kv[1].namespace, kv[1].name)):
            entry = self.pleg.cache.get(uid)
            exit_codes = entry.status.exit_codes() if entry and entry.status else {}
            pods.append({
                "uid": uid,
                "pod": f"{record.namespace}/{record.name}",
                "containers": [
                    {"id": c.id, "name": c.name, "sandbox": c.is_sandbox, "state": c.state.value,
                     "attempt": c.attempt, "exit_code": exit_codes.get(c.id)}
                    for c in sorted(record.containers.values(), key=lambda c: (not c.is_sandbox, c.name))
                ],
            })
        return pods

    def summary(self) -> dict[str, Any]:
        m = self.metrics
        with m.lock:
            return {
                "relists": m.relists,
                "relist_ms": round(m.relist_duration.recent[-1] * 1e3, 2) if m.relist_duration.recent else None,
                "events": m.events_received,
                "missed": m.missed_events,
                "missed_pending": len(self.ledger.pending),
                "latency_ms_p50": round(m.event_latency.quantile(0.5) * 1e3, 3),
                "latency_ms_max": round(m.event_latency.max * 1e3, 3),
                "stream": self.stream_state,
                "stream_errors": m.connection_errors,
            }


STATE_STYLE = {State.RUNNING.value: "green", State.EXITED.value: "yellow", State.UNKNOWN.value: "cyan"}
KIND_STYLE = {"event": "white", "relist": "blue", "missed": "bold red", "stream": "magenta"}


def render(watcher: Watcher, endpoint: str) -> Any:
    """The rich renderable for the live view."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table

    pods = Table(title="pods (as the relist sees them)", expand=True)
    for col in ("pod", "container", "id", "state", "exit"):
        pods.add_column(col)
    for pod in watcher.snapshot():
        for c in pod["containers"]:
            pods.add_row(
                pod["pod"] if c["sandbox"] else "",
                "(sandbox)" if c["sandbox"] else c["name"],
                c["id"][:13],
                f"[{STATE_STYLE.get(c['state'], 'white')}]{c['state']}[/]",
                "" if c["exit_code"] is None else str(c["exit_code"]),
            )
    feed = Table(title="events", expand=True)
    for col in ("kind", "type", "pod", "id", "latency ms"):
        feed.add_column(col)
    recent = watcher.latest(20)
    for r in recent:
        style = KIND_STYLE.get(r["kind"], "white")
        label = "MISSED" if r["kind"] == "missed" else r["kind"]
        feed.add_row(
            f"[{style}]{label}[/]",
            str(r.get("type") or r.get("state", "")),
            str(r.get("pod") or r.get("pod_uid") or ""),
            str(r.get("container_id", ""))[:13],
            "" if r.get("latency_ms") is None else str(r["latency_ms"]),
        )
    s = watcher.summary()
    head = (f"{endpoint}  relists {s['relists']} ({s['relist_ms']} ms)  events {s['events']}  "
            f"[bold red]missed {s['missed']}[/]  latency p50 {s['latency_ms_p50']} ms  stream {s['stream']}")
    return Group(Panel(head, title="fakecri watch"), pods, feed)


def run_watch(
    endpoint: str,
    *,
    json_mode: bool,
    interval: float,
    duration: float | None = None,
    out: IO[str] | None = None,
    timeout: float = 10.0,
    missed_settle: float = SETTLE_S,
) -> int:
    """Watch a runtime until `duration` seconds pass (None: until Ctrl-C). Returns 0, or
    2 (after saying why, on stderr and as a JSON `error` record) when the runtime
    cannot be reached or answers neither Version nor the lists. `out` defaults to the
    sys.stdout of the moment (so a runner that replaces it sees the output)."""
    out = out if out is not None else sys.stdout
    client = CRIClient(endpoint, timeout=timeout)  # a malformed endpoint raises InvalidEndpointError
    problem = _reachable(client, timeout)
    if problem is not None:
        client.close()
        message = f"cannot watch the runtime at {endpoint}: {problem}"
        if json_mode:
            out.write(json.dumps({"kind": "error", "message": message}) + "\n")
            out.flush()
        print(f"error: {message}", file=sys.stderr)
        return 2
    watcher = Watcher(client, interval=interval, missed_settle=missed_settle).start()
    deadline = None if duration is None else time.monotonic() + duration
    try:
        if json_mode:
            _pump_json(watcher, out, deadline)
        else:
            _live(watcher, endpoint, out, interval, deadline)
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop()
        client.close()
        if json_mode:
            _flush_json(watcher, out)
            out.write(json.dumps({"kind": "summary", **watcher.summary()}) + "\n")
            out.flush()
    return 0


def _reachable(client: CRIClient, timeout: float) -> str | None:
    """None when the runtime answers Version and ListPodSandbox; else why not."""
    try:
        client.wait_ready(min(timeout, 5.0))
        client.version()
        client.list_pod_sandbox()
    except CRIError as exc:
        return str(exc)
    return None


def _flush_json(watcher: Watcher, out: IO[str]) -> None:
    while True:
        try:
            record = watcher.records.get_nowait()
        except queue.Empty:
            return
        out.write(json.dumps(record) + "\n")


def _pump_json(watcher: Watcher, out: IO[str], deadline: float | None) -> None:
    while deadline is None or time.monotonic() < deadline:
        wait = 0.2 if deadline is None else max(0.0, min(0.2, deadline - time.monotonic()))
        try:
            record = watcher.records.get(timeout=wait)
        except queue.Empty:
            continue
        out.write(json.dumps(record) + "\n")
        _flush_json(watcher, out)
        out.flush()
        watcher.pleg.events.drain()


def _live(watcher: Watcher, endpoint: str, out: IO[str], interval: float, deadline: float | None) -> None:
    from rich.console import Console
    from rich.live import Live

    console = Console(file=out)
    with Live(render(watcher, endpoint), console=console, refresh_per_second=4, transient=False) as live:
        while deadline is None or time.monotonic() < deadline:
            time.sleep(min(0.25, interval))
            while True:
                try:
                    watcher.records.get_nowait()
                except queue.Empty:
                    break
            watcher.pleg.events.drain()
            live.update(render(watcher, endpoint))
