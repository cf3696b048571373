"""A small Hypothesis state machine doing CRI lifecycle calls through raw stubs.

Stands in for the conformance suite (fakecri.conformance) in the throughput benchmark:
it drives run/create/start/stop/remove/list/status with a model check after each step.
"""
from __future__ import annotations

import time

import grpc
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc as pb_grpc

IMAGE = "registry.k8s.io/pause:3.9"


CTX: dict = {}  # the stub and counters of the current run (the machine class is built once)


def call(fn_name: str, req):
    CTX["counts"]["calls"] += 1
    return getattr(CTX["rt"], fn_name)(req, timeout=30)


def run_machine(target: str, examples: int, steps: int) -> tuple[int, int, float]:
    """Run the machine; returns (steps, RPCs, seconds)."""
    channel = grpc.insecure_channel(target)
    CTX["rt"] = pb_grpc.RuntimeServiceStub(channel)
    CTX.setdefault("counts", {"pods": 0})
    CTX["counts"].update(steps=0, calls=0)
    pb_grpc.ImageServiceStub(channel).PullImage(pb.PullImageRequest(image=pb.ImageSpec(image=IMAGE)))
    counts = CTX["counts"]
    t0 = time.perf_counter()
    run_state_machine_as_test(Lifecycle, settings=settings(max_examples=examples, stateful_step_count=steps,
                                                           deadline=None, database=None, derandomize=True,
                                                           phases=[Phase.generate],
                                                           suppress_health_check=list(HealthCheck)))
    secs = time.perf_counter() - t0
    channel.close()
    return counts["steps"], counts["calls"], secs


class Lifecycle(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.pods: dict[str, str] = {}  # sid -> READY/NOTREADY
        self.containers: dict[str, tuple[str, int]] = {}  # cid -> (sid, state)

    def teardown(self) -> None:
        for sid in list(self.pods):
            call("RemovePodSandbox", pb.RemovePodSandboxRequest(pod_sandbox_id=sid))

    @rule()
    def run_pod(self) -> None:
        CTX["counts"]["steps"] += 1
        CTX["counts"]["pods"] += 1
        n = CTX["counts"]["pods"]
        cfg = pb.PodSandboxConfig(metadata=pb.PodSandboxMetadata(name=f"p{n}", namespace="conf", uid=f"u{n}"))
        sid = call("RunPodSandbox", pb.RunPodSandboxRequest(config=cfg)).pod_sandbox_id
        self.pods[sid] = "READY"

    @precondition(lambda self: any(s == "READY" for s in self.pods.values()))
    @rule(data=st.data())
    def create_and_start(self, data) -> None:
        CTX["counts"]["steps"] += 1
        sid = data.draw(st.sampled_from([s for s, v in self.pods.items() if v == "READY"]))
        cfg = pb.ContainerConfig(metadata=pb.ContainerMetadata(name=f"c{CTX['counts']['steps']}"),
                                 image=pb.ImageSpec(image=IMAGE), command=["pause"])
        cid = call("CreateContainer", pb.CreateContainerRequest(pod_sandbox_id=sid, config=cfg)).container_id
        call("StartContainer", pb.StartContainerRequest(container_id=cid))
        self.containers[cid] = (sid, pb.CONTAINER_RUNNING)

    @precondition(lambda self: self.containers)
    @rule(data=st.data())
    def stop_container(self, data) -> None:
        CTX["counts"]["steps"] += 1
        cid = data.draw(st.sampled_from(list(self.containers)))
        call("StopContainer", pb.StopContainerRequest(container_id=cid, timeout=0))
        sid, _ = self.containers[cid]
        self.containers[cid] = (sid, pb.CONTAINER_EXITED)

    @precondition(lambda self: self.pods)
    @rule(data=st.data())
    def stop_pod(self, data) -> None:
        CTX["counts"]["steps"] += 1
        sid = data.draw(st.sampled_from(list(self.pods)))
        call("StopPodSandbox", pb.StopPodSandboxRequest(pod_sandbox_id=sid))
        self.pods[sid] = "NOTREADY"
        for cid, (s, _) in self.containers.items():
            if s == sid:
                self.containers[cid] = (s, pb.CONTAINER_EXITED)

    @precondition(lambda self: self.pods)
    @rule(data=st.data())
    def remove_pod(self, data) -> None:
        CTX["counts"]["steps"] += 1
        sid = data.draw(st.sampled_from(list(self.pods)))
        call("RemovePodSandbox", pb.RemovePodSandboxRequest(pod_sandbox_id=sid))
        del self.pods[sid]
        self.containers = {c: v for c, v in self.containers.items() if v[0] != sid}

    @invariant()
    def listing_matches_model(self) -> None:
        got = call("ListContainers", pb.ListContainersRequest()).containers
        assert {c.id: c.state for c in got} == {c: s for c, (_, s) in self.containers.items()}
        sbs = call("ListPodSandbox", pb.ListPodSandboxRequest()).items
        assert {s.id for s in sbs} == set(self.pods)
