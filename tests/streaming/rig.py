"""A real core Runtime behind the streaming backend, for the transport tests.

Containers get the ids the tests name ("c1"), run real commands through the shell
interpreter on the system clock, and take input the way attach gives it.
"""
from __future__ import annotations

import asyncio
import random
from collections import Counter
from typing import Mapping, Sequence

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.engine.clock import SystemClock
from fakecri.engine.records import Container, Image, Sandbox
from fakecri.engine.runtime import Runtime
from fakecri.server.streaming.runtime_backend import PORT_FORWARD_ANNOTATION, RuntimeStreamingBackend

IMAGE = Image(id="sha256:" + "ab" * 32, repo_tags=["busybox:latest"], repo_digests=[], size=1)


class NamedIds:
    """Ids the test asks for; random 64-hex ones otherwise."""

    def __init__(self) -> None:
        self.wanted: list[str] = []
        self._rng = random.Random(7)

    def new_id(self) -> str:
        return self.wanted.pop(0) if self.wanted else f"{self._rng.getrandbits(256):064x}"


class Rig:
    def __init__(self) -> None:
        self.ids = NamedIds()
        self.runtime = Runtime(SystemClock(), self.ids)
        self.counters: Counter[str] = Counter()
        self.backend = RuntimeStreamingBackend(self)
        self._timer: asyncio.TimerHandle | None = None
        self._pod: Sandbox | None = None

    # --- what the backend asks of its host
    def count(self, name: str, n: int = 1) -> None:
        self.counters[name] += n

    async def wait(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    def tick(self) -> None:
        self.runtime.tick()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        due = self.runtime.next_deadline_ns()
        if due is not None:
            delay = max(0.0, (due - self.runtime.clock.now_ns()) / 1e9)
            self._timer = asyncio.get_running_loop().call_later(delay, self.tick)

    # --- test set-up
    def add_sandbox(self, sid: str, annotations: Mapping[str, str] | None = None) -> Sandbox:
        self.ids.wanted.append(sid)
        return self.runtime.run_pod_sandbox(name=sid, namespace="test", uid=sid, annotations=annotations or {})

    def add_container(self, cid: str, command: Sequence[str] = ("sleep", "infinity"), *, running: bool = True,
                      stdin: bool = False, stdin_once: bool = False) -> Container:
        if self._pod is None:
            self._pod = self.add_sandbox("pod-of-" + cid)
        self.ids.wanted.append(cid)
        spec = pb.ContainerConfig(stdin=stdin, stdin_once=stdin_once).SerializeToString()
        c = self.runtime.create_container(self._pod.id, name=cid, image=IMAGE, command=tuple(command), spec=spec)
        if running:
            self.runtime.start_container(c.id)
        return c

    def feed(self, cid: str, data: bytes | None) -> None:
        """What the container's command reads, as if typed on an attached terminal."""
        self.runtime.feed_input(cid, data)

    def stop(self, cid: str) -> None:
        self.runtime.stop_container(cid)


def port_annotations(default: str = "", **ports: str) -> dict[str, str]:
    """Sandbox annotations for how forwarded ports answer: port_80="http:200:hi" and the like."""
    out = {f"{PORT_FORWARD_ANNOTATION}.{name.removeprefix('port_')}": v for name, v in ports.items()}
    if default:
        out[PORT_FORWARD_ANNOTATION] = default
    return out
