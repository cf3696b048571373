"""Fixed scenarios that do not fit a random call sequence: a burst of events with a
subscriber that stops reading (slow-subscriber-policy)."""
from __future__ import annotations

import threading
import time
import uuid
from typing import TYPE_CHECKING

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import CRIClient, CRIError
from fakecri.conformance import properties as P
from fakecri.conformance.expectations import NAMESPACE, RUN_LABEL, Subscriber, type_name
from fakecri.conformance.run_state import RunState

if TYPE_CHECKING:
    from fakecri.client.container_events import EventStream


class _GatedReader:
    """Reads an event stream on a thread only while `go` is set (a slow subscriber)."""

    def __init__(self, stream: EventStream) -> None:
        self.stream = stream
        self.events: list[pb.ContainerEventResponse] = []
        self.error: CRIError | None = None
        self.go = threading.Event()
        self.done = threading.Event()
        self.last = time.monotonic()
        threading.Thread(target=self._run, name="slow-subscriber", daemon=True).start()

    def _run(self) -> None:
        try:
            while True:
                self.go.wait()
                try:
                    event = next(self.stream)
                except StopIteration:
                    return
                self.events.append(event)
                self.last = time.monotonic()
        except CRIError as exc:
            self.error = exc
        finally:
            self.done.set()


def _wait(pred, timeout: float, quiet_of=None, quiet: float = 1.5) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not pred():
        if quiet_of is not None and time.monotonic() - quiet_of() > quiet:
            return
        time.sleep(0.02)


def slow_subscriber_policy(run: RunState, burst: int) -> None:
    """A subscriber stops reading while `burst` containers are created, started and
    removed; another keeps reading. See properties.SlowSubscriberPolicy."""
    prop = P.SlowSubscriberPolicy
    opts = run.options
    uid = str(uuid.uuid4())
    labels = {RUN_LABEL: run.run_id, "io.kubernetes.pod.uid": uid}
    cfg = pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(name=f"burst-{uid[:8]}", namespace=NAMESPACE, uid=uid),
                              labels=labels)
    clients = [CRIClient(opts.endpoint, timeout=opts.call_timeout) for _ in range(3)]
    fast_c, slow_c, calls = clients
    fast = Subscriber("fast", frozenset())
    watcher = fast_c.watch_container_events(fast.on_event, on_error=fast.on_error)
    slow = _GatedReader(slow_c.get_container_events())
    try:
        # Sync both on a sandbox whose events each must see; the slow one then stops reading.
        slow.go.set()
        sid = calls.run_pod_sandbox(cfg)
        _wait(lambda: any(e.container_id == sid for e in slow.events)
              and any(r.event.container_id == sid for r in fast.snapshot()), opts.settle_timeout,
              quiet_of=lambda: max(slow.last, fast.last_at), quiet=opts.settle_quiet)
        slow.go.clear()
        ids: list[str] = []
        for i in range(burst):
            try:
                cid = calls.create_container(sid, pb.ContainerConfig(
                    metadata=pb.ContainerMetadata(name=f"burst-{i}"), image=pb.ImageSpec(image=opts.image),
                    command=["sleep", "3600"], labels=labels), cfg)
                ids.append(cid)
                calls.start_container(cid)
                calls.remove_container(cid)
            except CRIError as exc:
                run.record(prop.name, f"with one subscriber not reading, call {len(ids)} of the burst failed: {exc}",
                           [f"burst of {burst} CreateContainer/StartContainer/RemoveContainer"])
                return
        owed = {(t, cid) for cid in ids for t in (pb.CONTAINER_CREATED_EVENT, pb.CONTAINER_STARTED_EVENT,
                                                    pb.CONTAINER_STOPPED_EVENT, pb.CONTAINER_DELETED_EVENT)}
        _wait(lambda: owed <= fast.pairs(), opts.settle_timeout, quiet_of=lambda: fast.last_at,
              quiet=opts.settle_quiet)
        run.exercised(prop.name)
        trace = [f"GetContainerEvents() x2 (one stops reading); RunPodSandbox; {burst} x CreateContainer, "
                 "StartContainer, RemoveContainer"]
        got = owed & fast.pairs()
        if got != owed:
            run.record(prop.name, f"the reading subscriber got {len(got)} of {len(owed)} burst events while another "
                                  "did not read", trace)
            return
        slow.go.set()
        _wait(lambda: slow.done.is_set(), opts.settle_timeout, quiet_of=lambda: slow.last, quiet=opts.settle_quiet)
        wanted = set(ids)
        fast_seq = [(r.event.container_event_type, r.event.container_id) for r in fast.snapshot()
                    if r.event.container_id in wanted]
        slow_seq = [(e.container_event_type, e.container_id) for e in slow.events if e.container_id in wanted]
        it = iter(fast_seq)
        if not all(item in it for item in slow_seq):  # order-preserving subsequence
            bad = next((s for s in slow_seq if slow_seq.count(s) > 1), slow_seq[0] if slow_seq else None)
            what = f"{type_name(bad[0])} of burst container {bad[1][:12]}" if bad else "its events"
            run.record(prop.name, f"the slow subscriber's events are not a subsequence of the fast one's (at {what})",
                       trace)
            return
        if slow.error is not None:
            policy = f"closed the slow stream after {len(slow_seq)} of {len(fast_seq)} events ({slow.error.code.name})"
        elif len(slow_seq) == len(fast_seq):
            policy = f"buffered or blocked: all {len(fast_seq)} events reached the slow subscriber"
        else:
            policy = f"dropped {len(fast_seq) - len(slow_seq)} of {len(fast_seq)} events for the slow subscriber"
        run.pass_notes[prop.name] = f"policy observed: {policy} (drop counters are not visible over CRI)"
    finally:
        slow.stream.cancel()
        watcher.stop()
        for c in clients:
            c.close()


PROBE_WAIT_S = 1.0


def probe_events(run: RunState) -> str | None:
    """Open one event stream and watch it for a moment. None when it stays open (or
    delivers); otherwise why there will be no events: UNIMPLEMENTED (events are
    optional in CRI), a clean close at once, or another error."""
    client = CRIClient(run.options.endpoint, timeout=run.options.call_timeout)
    ended: list[CRIError] = []
    got = threading.Event()

    def on_event(_: pb.ContainerEventResponse) -> None:
        got.set()

    watcher = client.watch_container_events(on_event, on_error=ended.append)
    try:
        deadline = time.monotonic() + PROBE_WAIT_S
        while time.monotonic() < deadline and not ended and not got.is_set():
            time.sleep(0.02)
    finally:
        watcher.stop()
        client.close()
    if got.is_set() or not ended:
        return None
    exc = ended[0]
    code = getattr(exc, "code", None)
    if code is not None and code.name == "UNIMPLEMENTED":
        return "GetContainerEvents answered UNIMPLEMENTED"
    if code is not None and code.name == "OK":
        return "the runtime closed the event stream with OK at once, before any event"
    return f"GetContainerEvents failed at once: {exc}"
