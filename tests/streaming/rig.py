"""A real core Runtime behind the streaming backend, for the transport tests.

Containers get the ids the tests name ("c1"), run real commands through the shell
interpreter on the system clock, and take input the way attach gives it.
"""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from fakecri.engine.clock import SystemClock
from fakecri.engine.records import Container, Sandbox
from fakecri.engine.specs import ContainerSpec
from fakecri.server.config import ServerConfig
from fakecri.server.node.node import Node
from fakecri.server.streaming.annotations import PORT_FORWARD_ANNOTATION
from fakecri.server.streaming.runtime_backend import RuntimeStreamingBackend

IMAGE = "busybox:latest"


class NamedIds:
    """Ids the test asks for; random 64-hex ones otherwise."""

    def __init__(self) -> None:
        self.wanted: list[str] = []
        self._rng = random.Random(7)

    def new_id(self) -> str:
        return self.wanted.pop(0) if self.wanted else f"{self._rng.getrandbits(256):064x}"


class Rig:
    """A real Node (engine, simulation, commit point) with no gRPC around it."""

    def __init__(self) -> None:
        self.ids = NamedIds()
        self.node = Node(ServerConfig(socket="unused.sock", quiet=True), clock=SystemClock(), ids=self.ids)
        self.runtime = self.node.runtime
        self.runtime.images.pull(IMAGE)
        self.counters = self.node.counters
        self.backend = RuntimeStreamingBackend(self.node)
        self._pod: Sandbox | None = None

    # --- test set-up
    def add_sandbox(self, sid: str, annotations: Mapping[str, str] | None = None) -> Sandbox:
        self.ids.wanted.append(sid)
        with self.node.changing():
            return self.runtime.run_pod_sandbox(name=sid, namespace="test", uid=sid, annotations=annotations or {})

    def add_container(self, cid: str, command: Sequence[str] = ("sleep", "infinity"), *, running: bool = True,
                      stdin: bool = False, stdin_once: bool = False) -> Container:
        if self._pod is None:
            self._pod = self.add_sandbox("pod-of-" + cid)
        self.ids.wanted.append(cid)
        spec = ContainerSpec(stdin=stdin, stdin_once=stdin_once)
        with self.node.changing():
            c = self.runtime.create_container(self._pod.id, name=cid, image=IMAGE, command=tuple(command), spec=spec)
            if running:
                self.runtime.start_container(c.id)
        return self.runtime.get_container(c.id)

    def feed(self, cid: str, data: bytes | None) -> None:
        """What the container's command reads, as if typed on an attached terminal."""
        c = self.runtime.check_exec(cid)
        self.node.apply(self.node.sim.feed_input(c, data, self.node.now_ns()))  # applied and committed

    def stop(self, cid: str) -> None:
        with self.node.changing():
            self.runtime.stop_container(cid)


def port_annotations(default: str = "", **ports: str) -> dict[str, str]:
    """Sandbox annotations for how forwarded ports answer: port_80="http:200:hi" and the like."""
    out = {f"{PORT_FORWARD_ANNOTATION}.{name.removeprefix('port_')}": v for name, v in ports.items()}
    if default:
        out[PORT_FORWARD_ANNOTATION] = default
    return out
