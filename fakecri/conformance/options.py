"""What a run of the suite is asked to do: the endpoint, the image, how many examples
of how many steps, the kubelet profile, the time limits."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fakecri.conformance.profiles import PROFILES
from fakecri.conformance.properties import BY_NAME, NAMES


@dataclass
class Options:
    endpoint: str
    image: str = "busybox"
    profile: str = "current"
    max_examples: int = 20
    steps: int = 10
    seed: int | None = None
    properties: list[str] | None = None  # None: all
    shrink: bool = True
    shrink_time: float = 20.0  # seconds of shrinking per kind of failure at most
    shrink_budget: float = 40.0  # seconds all focused (shrinking) runs together may take
    pull: bool = True  # pull the image when ImageStatus does not show it
    call_timeout: float = 30.0
    sync_timeout: float = 3.0
    settle_timeout: float = 10.0
    settle_quiet: float = 1.5  # ...or until no event arrived for this long
    margin: float = 5.0  # added to a relist period before a convergence check fails
    # The profile's relist period and cache tick are multiplied by this: below 1 the PLEG relists
    # more often and each convergence bound shrinks with it (a test's runs wait less; a real
    # kubelet's pace is 1).
    relist_scale: float = 1.0
    scripted: bool = True
    # How long the first event stream is watched for an answer that says there will be no events
    # (UNIMPLEMENTED, a close at once); a stream still open then counts as one that works.
    probe_wait: float = 1.0
    slow_burst: int = 300  # containers in the slow-subscriber burst at most (4 events each)
    burst_seconds: float = 20.0  # the burst's size is cut to what the runtime's measured pace makes in this time
    runtime_handler: str = ""  # RunPodSandboxRequest.runtime_handler (kubelet: the RuntimeClass's handler)
    # Where pod log directories are made (kubelet: /var/log/pods). None: a temporary
    # directory when the runtime is on this host (unix socket), none otherwise; "": none.
    log_root: str | None = None
    progress: Callable[[str], None] | None = None  # phases and finished examples, one line each
    on_call: Callable[[int, str], None] | None = None  # (random example number, 0 = scripted; the call)

    def validate(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"profile {self.profile!r} is not one of {', '.join(PROFILES)}")
        for name in self.properties or []:
            if name not in BY_NAME:
                raise ValueError(f"no property named {name!r}; known: {', '.join(NAMES)}")
        if self.max_examples < 1 or self.steps < 1:
            raise ValueError("max_examples and steps must be at least 1")
        if not self.relist_scale > 0:
            raise ValueError("relist_scale must be above 0")
