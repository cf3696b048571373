"""What lives across the examples of one run: the run label, the violations found,
which properties were exercised and how often, and what every subscriber has received."""
from __future__ import annotations

import shutil
import tempfile
import uuid
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.client import CRIClient
from fakecri.conformance.expectations import Subscriber
from fakecri.conformance.options import Options
from fakecri.conformance.properties import NAMES, PLEG_PROPERTIES


class RunState:
    """One run's record. `focus` names the property a shrinking run is after: while it
    is set, only that property's violations are kept (as the focused counterexample)."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.run_id = uuid.uuid4().hex[:12]
        self.client = CRIClient(options.endpoint, timeout=options.call_timeout)
        self.selected = list(options.properties or NAMES)
        self.focus: str | None = None
        self.violations: dict[str, list[tuple[str, list[str]]]] = {}
        self.exercises: Counter[str] = Counter()  # per property: events checked, answers judged, ...
        self.skip_notes: dict[str, str] = {}
        self.pass_notes: dict[str, str] = {}
        self.notes: dict[str, list[str]] = {}  # per property: what its verdict adds, whatever it is
        # Per property: objects it left out, by id (what its verdict says about them).
        self.left_out: dict[str, dict[str, str]] = {}
        self.seen: set[tuple[int, str]] = set()
        self.examples = 0
        self.last_calls: list[str] = []
        self.focus_calls: list[str] | None = None
        self.focus_message = ""
        self.events_unavailable: str | None = None  # why the runtime delivers no events, if it does not
        self.events_delivered = 0
        # Per property: the index of the first random example it failed in (the scripted
        # example, run first, is not one Hypothesis can replay or shrink).
        self.first_failure: dict[str, int] = {}
        self.focus_deadline: float | None = None  # monotonic time a focused run must stop by
        # What the run saw, for the verdicts: "pods" and "containers" the suite created,
        # "events" about them delivered to a judged subscriber ("container_events" of
        # those about containers), "exits" observed. A property whose `needs` name a
        # count that stayed 0 saw nothing it judges: it is skipped, not passed.
        self.seen_counts: Counter[str] = Counter()
        self.create_refusals: list[str] = []  # CreateContainer errors, first ones kept
        # The runtime's measured pace and event size (they size the slow-subscriber burst).
        self._call_time: dict[str, float] = {}
        self._call_count: Counter[str] = Counter()
        self.event_bytes = 0
        self.event_count = 0
        # The image as the runtime names it once present (ImageStatus id or PullImage ref),
        # sent as ImageSpec.image beside the user_specified_image, as the kubelet does.
        self.image_ref = options.image
        # Where pod log directories go (kubelet: /var/log/pods); None when not sent.
        self.log_root = _log_root(options)
        self._own_log_root = options.log_root is None and self.log_root is not None

    def enabled(self, name: str) -> bool:
        return name in self.selected

    def wants_pleg(self) -> bool:
        return any(n in PLEG_PROPERTIES for n in self.selected)

    def baseline(self, extra: Iterable[Subscriber] = ()) -> frozenset[tuple[int, str]]:
        pairs = set(self.seen)
        for sub in extra:
            pairs |= sub.pairs()
        return frozenset(pairs)

    def record(self, name: str, message: str, calls: list[str]) -> None:
        if self.focus is not None:
            if name == self.focus:
                self.focus_calls, self.focus_message = calls, message
            return
        self.violations.setdefault(name, []).append((message, calls))
        random_index = self.examples - (1 if self.options.scripted else 0)
        if random_index >= 0:
            self.first_failure.setdefault(name, random_index)

    def exercised(self, name: str, n: int = 1) -> None:
        if self.focus is None:
            self.exercises[name] += n

    def remark(self, name: str, ident: str, text: str) -> None:
        """Property `name` left object `ident` (written `text`) out of its judgement."""
        if self.focus is None:
            self.left_out.setdefault(name, {})[ident] = text

    def saw(self, what: str, n: int = 1) -> None:
        """Count one more object or event the run saw (see `seen_counts`)."""
        if self.focus is None:
            self.seen_counts[what] += n

    def timed(self, rpc: str, seconds: float) -> None:
        """One call of `rpc` took `seconds`."""
        self._call_time[rpc] = self._call_time.get(rpc, 0.0) + seconds
        self._call_count[rpc] += 1

    def call_seconds(self, rpc: str) -> float:
        """The mean time one `rpc` took so far (0.0 when none was made)."""
        n = self._call_count[rpc]
        return self._call_time.get(rpc, 0.0) / n if n else 0.0

    def refused_create(self, error: str) -> None:
        if self.focus is None and len(self.create_refusals) < 3:
            self.create_refusals.append(error)

    def example_tag(self) -> str:
        """How the example about to run prefixes its object names ("s" for the scripted
        one, "e3" for the third random one; "f" in a focused, shrinking run), so names
        stay unique across the examples of a run."""
        if self.focus is not None:
            return "f"
        index = self.random_index()
        return "s" if index == 0 else f"e{index}"

    def add_note(self, name: str, text: str) -> None:
        if self.focus is None and text not in self.notes.setdefault(name, []):
            self.notes[name].append(text)

    def note_skip(self, name: str, reason: str) -> None:
        self.skip_notes.setdefault(name, reason)

    def random_index(self) -> int:
        """The number of the example now running among the random ones (0: the scripted one)."""
        return self.examples + 1 - (1 if self.options.scripted else 0)

    def example_done(self, subs: Iterable[Subscriber], calls: list[str]) -> None:
        self.last_calls = list(calls)
        subs = list(subs)
        for sub in subs:
            self.seen |= sub.pairs()  # a later subscriber, focused runs' too, must not get these again
        if self.focus is not None:
            return  # a focused run replays examples already counted
        index = self.random_index()
        self.examples += 1
        self.events_delivered += sum(len(sub.received) for sub in subs)
        if self.options.progress is not None:
            failing = sorted(self.violations)
            said = f"; failing so far: {', '.join(failing)}" if failing else ""
            asked = self.options.max_examples
            which = ("scripted example" if index == 0 else f"example {index}/{asked}" if index <= asked
                     else f"example {index} (an extra one: Hypothesis replaces the examples it cuts short)")
            self.options.progress(f"{which}: {len(calls)} calls{said}")

    def make_log_dir(self, pod: pb.PodSandboxConfig, container: pb.ContainerConfig) -> None:
        """Make the container's log directory before CreateContainer, as the kubelet does
        (kuberuntime_container.go generateContainerConfig: MkdirAll of the log dir)."""
        if pod.log_directory:
            Path(pod.log_directory, container.log_path).parent.mkdir(parents=True, exist_ok=True)

    def close(self) -> None:
        self.client.close()
        if self._own_log_root and self.log_root is not None:
            shutil.rmtree(self.log_root, ignore_errors=True)


def _log_root(options: Options) -> str | None:
    """The log root asked for ("" : none), else a fresh temporary one when the runtime
    is on this host (a unix socket), else none: a remote runtime's files are not ours
    to make."""
    if options.log_root is not None:
        return options.log_root or None
    if not options.endpoint.startswith("unix://"):
        return None
    return tempfile.mkdtemp(prefix="fakecri-conformance-logs-")

