"""One cause, many failures: which failing property explains others.

A runtime that drops events fails events-complete, and with it the properties that
compare what subscribers received (the fan-out, the relist's announcements, the
sandbox brackets). The report names the root once and lists what follows from it;
only roots and failures no root explains are shrunk.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Cause:
    root: str  # the property whose failure is the cause
    words: str  # the cause in a few words
    follows: tuple[str, ...]  # properties a failing root explains when they fail too
    profiles: tuple[str, ...] = ("current", "legacy-evented")  # the kubelet profiles where it explains them


CAUSES: tuple[Cause, ...] = (
    # A missing event leaves a subscriber's sequence shorter than the other's, a relist
    # transition unannounced, a sandbox STOPPED seemingly early, a container seemingly
    # gone from its pod's view, and the reading subscriber of the burst short.
    Cause("events-complete", "events are missing",
          ("subscribers-see-same-sequence", "no-missed-events", "sandbox-bracketing", "no-partial-pod-view",
           "slow-subscriber-policy")),
    # Shuffled or repeated events break every rule about what comes before what.
    Cause("event-order-per-container", "events arrive out of order or twice",
          ("subscribers-see-same-sequence", "sandbox-bracketing", "created-at-nanoseconds-monotonic")),
    # A runtime that keys containers by sandbox, name and attempt lets the duplicate
    # replace the original: the started container shows CREATED again.
    Cause("no-duplicate-live-containers", "a second container with the same name and attempt replaces the first",
          ("valid-calls-succeed",)),
    # Containers a removed sandbox leaves behind never get the relist's ContainerRemoved.
    Cause("sandbox-stop-remove-cascades", "stopping or removing a sandbox leaves its containers behind",
          ("relist-table",)),
    # The legacy Evented PLEG takes a PodSandboxStatus with a timestamp as the pod's whole
    # status (kubelet 1.26-1.32 GetPodStatus, before k/k#129990): a timestamp without
    # containers_statuses is a pod without containers, so its cache loses them, the
    # relist cannot put them back, and their exits never reach it (containerd#10740).
    Cause("status-timestamp-with-statuses",
          "PodSandboxStatus sets a timestamp without containers_statuses, which empties the pod in a kubelet that"
          " trusts the timestamp",
          ("relist-convergence", "no-lost-exits", "relist-table", "no-missed-events", "cache-monotonic"),
          profiles=("legacy-evented",)),
)


@dataclass
class Explained:
    cause: Cause
    followers: list[str]

    def summary(self) -> str:
        text = f"{self.cause.words} ({self.cause.root})"
        if self.followers:
            text += f"; these follow from it: {', '.join(self.followers)}"
        return text


def explain(failed: list[str], profile: str = "current") -> tuple[list[Explained], dict[str, str]]:
    """For the failing property names (in table order) under the kubelet `profile`: the
    causes found, and for each
    failure a root explains, that root. A property explained by one root is not
    counted again under a later one, and a root explained by an earlier root stays a
    follower of it."""
    failing = set(failed)
    explained: list[Explained] = []
    follower_of: dict[str, str] = {}
    for cause in CAUSES:
        if cause.root not in failing or cause.root in follower_of or profile not in cause.profiles:
            continue
        followers = [n for n in failed if n in cause.follows and n not in follower_of and n != cause.root
                     and not any(e.cause.root == n for e in explained)]
        for n in followers:
            follower_of[n] = cause.root
        explained.append(Explained(cause, followers))
    return explained, follower_of
