"""Concurrency: many client threads run random pod lifecycles while event subscribers listen.

Faults are off. Afterwards every subscriber saw every transition exactly once, in a legal
order, all subscribers saw the same sequence, replaying the events gives the state a fresh
list shows, and the run ended within its bound (no deadlock).
"""
from __future__ import annotations

import os
import random
import threading
import time

import grpc
from helpers.reliability import (
    CREATED,
    DELETED,
    FORBIDDEN,
    Subscriber,
    add,
    check_invariants,
    container_config,
    legal_order_problems,
    listed_state,
    replay,
    sandbox_config,
    wait_until,
)

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import FakeCRIServer

THREADS = int(os.environ.get("FAKECRI_STRESS_THREADS", "8"))
RUN_S = float(os.environ.get("FAKECRI_STRESS_SECONDS", "6"))
SUBSCRIBERS = 4
COMMANDS = (["sleep", "1000"], ["nginx"], ["true"], ["sleep", "0.2"], ["sh", "-c", "echo hi; exit 3"])
# Each thread owns its pods, so every call must succeed: any error fails the run.


class Worker(threading.Thread):
    def __init__(self, endpoint: str, index: int, until: float) -> None:
        super().__init__(daemon=True, name=f"worker-{index}")
        self.channel = grpc.insecure_channel(endpoint)
        self.rt = api_pb2_grpc.RuntimeServiceStub(self.channel)
        self.img = api_pb2_grpc.ImageServiceStub(self.channel)
        self.rng = random.Random(1000 + index)
        self.index = index
        self.until = until
        self.ops = 0
        self.created: set[str] = set()
        self.removed: set[str] = set()
        self.failure: BaseException | None = None

    def call(self, fn, req):
        self.ops += 1
        return fn(req, timeout=30)

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # reported by the test
            self.failure = exc
        finally:
            self.channel.close()

    def _run(self) -> None:
        rng, rt = self.rng, self.rt
        self.call(self.img.PullImage, pb.PullImageRequest(image=pb.ImageSpec(image="busybox")))
        n = 0
        while time.monotonic() < self.until:
            n += 1
            cfg = sandbox_config(f"w{self.index}-{n}")
            sid = self.call(rt.RunPodSandbox, pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
            self.created.add(sid)
            cids = []
            for j in range(rng.randint(1, 3)):
                cid = self.call(rt.CreateContainer, pb.CreateContainerRequest(
                    pod_sandbox_id=sid, config=container_config(f"c{j}", command=rng.choice(COMMANDS)),
                    sandbox_config=cfg)).container_id
                self.created.add(cid)
                cids.append(cid)
                if rng.random() < 0.8:
                    self.call(rt.StartContainer, pb.StartContainerRequest(container_id=cid))
            for cid in cids:
                r = rng.random()
                if r < 0.3:
                    self.call(rt.StopContainer, pb.StopContainerRequest(container_id=cid, timeout=0))
                elif r < 0.5:
                    self.call(rt.RemoveContainer, pb.RemoveContainerRequest(container_id=cid))
                    self.removed.add(cid)
                elif r < 0.6:
                    self.call(rt.ContainerStatus, pb.ContainerStatusRequest(container_id=cid))
            self.call(rt.ListContainers, pb.ListContainersRequest(filter=pb.ContainerFilter(pod_sandbox_id=sid)))
            r = rng.random()
            if r < 0.25:
                self.call(rt.StopPodSandbox, pb.StopPodSandboxRequest(pod_sandbox_id=sid))
            elif r < 0.85:
                if rng.random() < 0.5:
                    self.call(rt.StopPodSandbox, pb.StopPodSandboxRequest(pod_sandbox_id=sid))
                self.call(rt.RemovePodSandbox, pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
                self.removed.add(sid)
                self.removed.update(cids)


def test_threads_and_subscribers_see_every_transition_once_in_order():
    with FakeCRIServer(seed=5, subscriber_buffer=100_000) as server:
        subs = [Subscriber(server.endpoint) for _ in range(SUBSCRIBERS)]
        try:
            assert wait_until(lambda: server.call(lambda: len(server.node.bus.subscribers)) == SUBSCRIBERS)
            started = time.monotonic()
            workers = [Worker(server.endpoint, i, started + RUN_S) for i in range(THREADS)]
            for w in workers:
                w.start()
            bound = RUN_S + 90  # generous: two shared cores, other suites running
            for w in workers:
                w.join(max(0.0, started + bound - time.monotonic()))
            hung = [w.name for w in workers if w.is_alive()]
            assert not hung, f"threads still running {bound}s after a {RUN_S}s run: {hung} (deadlock?)"
            failures = [w.failure for w in workers if w.failure is not None]
            for f in failures:
                if isinstance(f, grpc.RpcError):
                    assert f.code() not in FORBIDDEN, f"{f.code().name}: {f.details()}"
            assert not failures, failures

            # Let scripted exits (sleep 0.2) happen, then wait until every subscriber caught up.
            rt = api_pb2_grpc.RuntimeServiceStub(grpc.insecure_channel(server.endpoint))
            def no_exit_soon() -> bool:
                st = server.node
                due = st.runtime.next_deadline_ns()
                return due is None or due > st.clock.now_ns() + 60 * 10**9  # only the `sleep 1000`s are left

            assert wait_until(lambda: server.call(no_exit_soon), timeout=30)

            def emitted() -> int:
                return server.call(lambda: server.node.counters["events_emitted"])

            assert wait_until(lambda: all(len(s.events) == emitted() for s in subs), timeout=60), (
                f"emitted {emitted()}, subscribers saw {[len(s.events) for s in subs]}")
            time.sleep(0.3)
            total = emitted()
            assert all(len(s.events) == total for s in subs)
            assert all(s.error is None for s in subs), [s.error for s in subs]

            # Everyone saw the same sequence, and it is legal.
            first = [e.SerializeToString() for e in subs[0].events]
            for s in subs[1:]:
                assert [e.SerializeToString() for e in s.events] == first
            problems = legal_order_problems(subs[0].events)
            assert not problems, problems[:20]

            # Every object a client created has its CREATED; everything it removed its DELETED.
            seen = {(e.container_id, e.container_event_type) for e in subs[0].events}
            created = set().union(*(w.created for w in workers))
            removed = set().union(*(w.removed for w in workers))
            assert all((i, CREATED) in seen for i in created)
            assert all((i, DELETED) in seen for i in removed)

            # Replaying the events gives what a fresh list shows.
            for s in subs:
                assert replay(s.events) == listed_state(rt)
            check_invariants(rt)
            server.check()

            ops = sum(w.ops for w in workers)
            add("concurrency: client threads", THREADS)
            add("concurrency: operations", ops)
            add("concurrency: events checked (all subscribers)", total * len(subs))
            add("concurrency: objects created", len(created))
            assert ops > THREADS * 10, "the run did too little to prove anything"
        finally:
            for s in subs:
                s.close()
