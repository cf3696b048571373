"""Fixed scenarios that do not fit a random call sequence: a burst of events with a
subscriber that stops reading (slow-subscriber-policy)."""
from __future__ import annotations

import math
import threading
import time
import uuid
from collections.abc import Callable

import grpc

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc as pb_grpc
from fakecri.client import CRIClient, CRIError
from fakecri.client.endpoint import parse_endpoint
from fakecri.conformance import kubelet_calls
from fakecri.conformance import properties as P
from fakecri.conformance.expectations import NAMESPACE, RUN_LABEL, Subscriber, type_name
from fakecri.conformance.run_state import RunState

# The slow reader's connection: no BDP probing and a 64 KiB stream window, so what the
# transport can hold for a reader that stops is known. A backlog beyond four times that
# is one the runtime itself had to hold, drop or refuse: the reader really fell behind.
SLOW_WINDOW = 64 * 1024
SLOW_CHANNEL = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", SLOW_WINDOW)]
FALL_BEHIND_BYTES = 4 * SLOW_WINDOW
PROGRESS_EVERY_S = 2.0
# A burst call gets this long at most: one the runtime holds back longer, behind a reader
# that does not read, is blocked (and waiting the full call timeout only slows the run).
BURST_CALL_TIMEOUT_S = 10.0


class _GatedReader:
    """Reads an event stream on a thread only while `go` is set (a slow subscriber)."""

    def __init__(self, endpoint: str) -> None:
        self.channel = grpc.insecure_channel(parse_endpoint(endpoint).target, options=SLOW_CHANNEL)
        stub = pb_grpc.RuntimeServiceStub(self.channel)  # type: ignore[no-untyped-call,unused-ignore]  # generated
        self.stream = stub.GetContainerEvents(pb.GetEventsRequest())
        self.events: list[pb.ContainerEventResponse] = []
        self.error: grpc.RpcError | None = None
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
        except grpc.RpcError as exc:
            self.error = exc
        finally:
            self.done.set()

    def close(self) -> None:
        self.stream.cancel()
        self.channel.close()


def _wait(pred: Callable[[], bool], timeout: float, quiet_of: Callable[[], float] | None = None,
          quiet: float = 1.5) -> None:
    """Until `pred()`, `timeout`, or (with `quiet_of`, the monotonic time of the last
    progress) `quiet` seconds without progress."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not pred():
        if quiet_of is not None and time.monotonic() - quiet_of() > quiet:
            return
        time.sleep(0.02)


def burst_size(run: RunState, most: int) -> tuple[int, str]:
    """How many containers the burst makes: enough that the backlog outgrows what the
    transport holds (from the mean size of the events seen so far), within the time
    the runtime's measured call rate allows (`burst_seconds`), and at most `most`.
    Returns the size and how it was chosen."""
    opts = run.options
    per_event = run.event_bytes / run.event_count if run.event_count else 600.0
    needed = math.ceil(2 * FALL_BEHIND_BYTES / (4 * per_event))  # twice the bytes that prove falling behind
    per_container = sum(run.call_seconds(rpc) for rpc in ("CreateContainer", "StartContainer", "RemoveContainer"))
    affordable = int(opts.burst_seconds / per_container) if per_container > 0 else most
    size = max(1, min(most, needed, affordable))
    why = (f"{size} containers: {needed} make a backlog of {2 * FALL_BEHIND_BYTES // 1024} KiB at {per_event:.0f} B per"
           f" event, {affordable} fit in {opts.burst_seconds:g}s at {per_container * 1000:.0f} ms per container,"
           f" at most {most}")
    return size, why


def slow_subscriber_policy(run: RunState, most: int) -> None:
    """A subscriber stops reading while a burst of containers is created, started and
    removed; another keeps reading. See properties.SlowSubscriberPolicy."""
    prop = P.SlowSubscriberPolicy
    opts = run.options
    burst, why = burst_size(run, most)
    say = opts.progress or (lambda _text: None)
    say(f"slow subscriber during a burst of {why}")
    uid = str(uuid.uuid4())
    cfg = kubelet_calls.sandbox_config(name=f"burst-{uid[:8]}", namespace=NAMESPACE, uid=uid,
                                       labels={RUN_LABEL: run.run_id}, annotations={}, log_root=run.log_root)
    call_timeout = min(opts.call_timeout, BURST_CALL_TIMEOUT_S)
    clients = [CRIClient(opts.endpoint, timeout=t) for t in (opts.call_timeout, call_timeout)]
    fast_c, calls = clients
    fast = Subscriber("fast", frozenset())
    watcher = fast_c.watch_container_events(fast.on_event, on_error=fast.on_error)
    slow = _GatedReader(opts.endpoint)
    try:
        # Sync both on a sandbox whose events each must see; the slow one then stops reading.
        slow.go.set()
        sid = calls.run_pod_sandbox(cfg, opts.runtime_handler)
        _wait(lambda: any(e.container_id == sid for e in slow.events)
              and any(r.event.container_id == sid for r in fast.snapshot()), opts.settle_timeout,
              quiet_of=lambda: max(slow.last, fast.last_at), quiet=opts.settle_quiet)
        slow.go.clear()
        ids: list[str] = []
        started = last_said = time.monotonic()
        for i in range(burst):
            config = kubelet_calls.container_config(name=f"burst-{i}", attempt=0, image_ref=run.image_ref,
                                                    image=opts.image, command=["sleep", "3600"], pod=cfg,
                                                    labels={RUN_LABEL: run.run_id})
            run.make_log_dir(cfg, config)
            try:
                cid = calls.create_container(sid, config, cfg)
                ids.append(cid)
                calls.start_container(cid)
                calls.remove_container(cid)
            except CRIError as exc:
                run.exercised(prop.name)
                blocked = exc.code.name == "DEADLINE_EXCEEDED"
                what = (f"blocked: the runtime's calls stopped completing behind the reader that did not read (call"
                        f" {len(ids) + 1} of the burst, {exc.method}, got no answer in {call_timeout:g}s)"
                        if blocked else f"with one subscriber not reading, call {len(ids) + 1} of the burst failed")
                run.record(prop.name, f"{what}: {exc}",
                           [f"burst of {burst} CreateContainer/StartContainer/RemoveContainer"])
                return
            if time.monotonic() - last_said >= PROGRESS_EVERY_S:
                last_said = time.monotonic()
                rate = len(ids) / (last_said - started)
                say(f"burst: {len(ids)}/{burst} containers, {len(fast.snapshot())} events seen by the reading"
                    f" subscriber, {rate:.1f} containers/s")
        say(f"burst: {len(ids)}/{burst} containers made in {time.monotonic() - started:.1f}s")
        _judge_burst(run, fast, slow, ids, burst)
    finally:
        slow.close()
        watcher.stop()
        for c in clients:
            c.close()


def _judge_burst(run: RunState, fast: Subscriber, slow: _GatedReader, ids: list[str], burst: int) -> None:
    prop = P.SlowSubscriberPolicy
    opts = run.options
    owed = {(t, cid) for cid in ids for t in (pb.CONTAINER_CREATED_EVENT, pb.CONTAINER_STARTED_EVENT,
                                                pb.CONTAINER_STOPPED_EVENT, pb.CONTAINER_DELETED_EVENT)}
    _wait(lambda: owed <= fast.pairs(), opts.settle_timeout, quiet_of=lambda: fast.last_at, quiet=opts.settle_quiet)
    trace = [f"GetContainerEvents() x2 (one stops reading); RunPodSandbox; {burst} x CreateContainer, "
             "StartContainer, RemoveContainer"]
    got = owed & fast.pairs()
    if got != owed:
        run.exercised(prop.name)
        run.record(prop.name, f"the reading subscriber got {len(got)} of {len(owed)} burst events while another "
                              "did not read", trace)
        return
    wanted = set(ids)
    fast_events = [r.event for r in fast.snapshot() if r.event.container_id in wanted]
    read_before = sum(1 for e in slow.events if e.container_id in wanted)
    backlog = fast_events[read_before:]
    backlog_bytes = sum(e.ByteSize() for e in backlog)
    if backlog_bytes <= FALL_BEHIND_BYTES:
        run.note_skip(prop.name, f"the slow reader never fell behind: its backlog was {len(backlog)} events "
                                 f"({backlog_bytes // 1024} KiB), no more than the transport holds "
                                 f"({FALL_BEHIND_BYTES // 1024} KiB); a larger --burst or --burst-time makes one")
        return
    # Resume, and judge what arrives from now on: quiet time counts from the resume.
    resumed = time.monotonic()
    slow.go.set()
    _wait(lambda: slow.done.is_set() or sum(1 for e in slow.events if e.container_id in wanted) >= len(fast_events),
          opts.settle_timeout + 10.0, quiet_of=lambda: max(resumed, slow.last), quiet=opts.settle_quiet)
    run.exercised(prop.name)
    fast_seq = [(e.container_event_type, e.container_id) for e in fast_events]
    slow_seq = [(e.container_event_type, e.container_id) for e in list(slow.events) if e.container_id in wanted]
    it = iter(fast_seq)
    if not all(item in it for item in slow_seq):  # order-preserving subsequence
        bad = next((x for x in slow_seq if slow_seq.count(x) > 1), slow_seq[0] if slow_seq else None)
        what = f"{type_name(bad[0])} of burst container {bad[1][:12]}" if bad else "its events"
        run.record(prop.name, f"the slow subscriber's events are not a subsequence of the fast one's (at {what})",
                   trace)
        return
    behind = f"{len(backlog)} events ({backlog_bytes // 1024} KiB) behind at the resume"
    if slow.error is not None:
        policy = (f"closed: the runtime ended the slow stream ({slow.error.code().name}) after {len(slow_seq)} of"
                  f" {len(fast_seq)} burst events")
    elif len(slow_seq) == len(fast_seq):
        policy = (f"kept all {len(fast_seq)} burst events for it: buffered, or blocked its stream alone (the"
                  " reading subscriber got every event on time)")
    else:
        policy = (f"dropped {len(fast_seq) - len(slow_seq)} of {len(fast_seq)} burst events for it, delivering"
                  f" {len(slow_seq)} in order")
    run.pass_notes[prop.name] = (f"policy observed after the resume: {policy}; the slow reader was {behind}"
                                 f" (drop counters are not visible over CRI)")


def probe_events(run: RunState) -> str | None:
    """Open one event stream and watch it for `probe_wait` seconds. None when it stays open
    (or delivers); otherwise why there will be no events: UNIMPLEMENTED (events are
    optional in CRI), a clean close at once, or another error."""
    client = CRIClient(run.options.endpoint, timeout=run.options.call_timeout)
    ended: list[CRIError] = []
    got = threading.Event()

    def on_event(_: pb.ContainerEventResponse) -> None:
        got.set()

    watcher = client.watch_container_events(on_event, on_error=ended.append)
    try:
        deadline = time.monotonic() + run.options.probe_wait
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
