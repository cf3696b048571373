"""Hostile input on every RPC of RuntimeService, ImageService and the control API.

The methods come from the service descriptors, so an RPC added to the proto is fuzzed
without touching this file. Hypothesis fills each request field by field from its
descriptor: missing or empty submessages, empty/huge/odd strings, boundary and negative
numbers, NaN and infinities, raw unknown enum values, live ids, unknown ids, truncated
and ambiguous id prefixes, odd map keys (label selectors, annotations), absurd resources
and huge repeated fields. Raw undecodable bytes are sent too.

After every call: the answer is never UNKNOWN or INTERNAL, no handler raised
(`server.check()`), and the invariants of helpers.reliability.check_invariants hold through the API.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import threading

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import FieldDescriptor as FD
from helpers.reliability import FORBIDDEN, add, check_invariants, container_config, sandbox_config
from hypothesis import given, settings
from hypothesis import strategies as st

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.api.control.v1 import control_pb2_grpc
from fakecri.api.runtime.v1 import api_pb2 as pb
from fakecri.api.runtime.v1 import api_pb2_grpc
from fakecri.server.process.app import CONTROL_SERVICE, IMAGE_SERVICE, RUNTIME_SERVICE, FakeCRIServer

SERVICES = (RUNTIME_SERVICE, IMAGE_SERVICE, CONTROL_SERVICE)
METHODS = [(svc, m) for svc in SERVICES for m in svc.methods]
CALL_TIMEOUT = 15.0  # every call has a deadline: nothing here may wait forever
STREAM_READ_S = 0.15  # how long a long-lived stream is read before it is cancelled
SCRATCH = tempfile.mkdtemp(prefix="fc-fuzz-")
os.makedirs(os.path.join(SCRATCH, "logs", "a"), exist_ok=True)

WORDS = ["pod", "default", "app", "kube-system", "uid-1", "busybox", "nginx:latest", "sleep", "1", "runc", "main"]
ODD = ["", " ", "\t\n", "\x00", "a\x00b", "../..", "/", "*", "%s%n", "-1", "0", "a=b", "a,b!=c", "${HOME}", "'",
       '"', "\\", "é", "\u202e", "😀" * 8, "\ufeff", "fakecri.io/exit-code", "unix:///tmp/x", "sha256:", "@",
       "docker.io/library/", ":latest", "a" * 255, "A" * 4097]
PATH_FIELDS = {"location", "output_path", "checkpoint_path", "log_directory", "log_path", "path"}
ODD_KEYS = ["", "=", "a b", "\x00", "k" * 1000, "io.kubernetes.pod.name", "fakecri.io/exit-after",
            "fakecri.io/exit-code", "fakecri.io/log-every", "fakecri.io/stop-delay", "fakecri.io/probes", "ä", "a/b/c",
            "-", ".", "app"]
# Scripted start failures answer UNKNOWN on purpose (like a real runtime's start error); keep them out.
BANNED_KEYS = {"fakecri.io/fail-start"}


def _paths(field: str) -> list[str]:
    """Hostile paths that stay inside SCRATCH: the server runs as root and writes where it is told."""
    odd = ["", "\x00", "a\x00b"]
    inside = [os.path.join(SCRATCH, "logs"), os.path.join(SCRATCH, "logs", "a"),
              os.path.join(SCRATCH, "missing", "deeper"), os.path.join(SCRATCH, "x" * 300)]
    if field == "log_directory":
        return odd + inside
    if field == "log_path":  # joined to the sandbox's log_directory
        return odd + ["app/0.log", "../0.log", "../../0.log", "a\x00.log", "x" * 5000, "0.log", "."]
    return odd + inside + ["/", SCRATCH, os.path.join(SCRATCH, "cp.tar"), os.path.join(SCRATCH, "missing", "x.tar")]


class World:
    """The ids a request may name: live ones, removed ones, prefixes, made-up ones."""

    def __init__(self) -> None:
        self.sandboxes: list[str] = []
        self.containers: list[str] = []
        self.gone: list[str] = []

    def id_pool(self) -> list[str]:
        ids = self.sandboxes + self.containers
        pool = list(ids) + self.gone[-5:] + ["0" * 64, "f" * 64, "nonexistent", "0", "f" * 65]
        for i in ids[:6]:
            pool += [i[:1], i[:6], i[:12], i[:-1], i + "0", i.upper()]
        # An ambiguous prefix: the longest common prefix of two live ids.
        for a in ids[:8]:
            for b in ids[:8]:
                if a != b:
                    n = 0
                    while n < min(len(a), len(b)) and a[n] == b[n]:
                        n += 1
                    pool.append(a[:n])
        return pool


def pick(pool: list[str]):
    """An element of a pool that changes with the world. The draw's constraints stay the same
    whatever the pool's size, as Hypothesis requires of replayed choices."""
    return st.integers(0, 2**16).map(lambda i: pool[i % len(pool)])


def strings(field: FD, world: World):
    name = field.name
    if name in PATH_FIELDS:
        return st.sampled_from(_paths(name))
    generic = st.one_of(
        st.sampled_from(ODD), st.sampled_from(WORDS), st.text(max_size=24),
        st.integers(1000, 200_000).map(lambda n: "x" * n),
    )
    if name.endswith("_id") or name in ("id", "container_ids", "pod_sandbox_id"):
        pool = world.id_pool()
        return st.one_of(pick(pool), pick(pool), generic)
    if name == "image":
        return st.one_of(st.sampled_from(["busybox", "nginx:latest", "docker.io/library/busybox:latest", "pause",
                                          "nope/none:1", "busybox@sha256:" + "0" * 64, "registry.k8s.io/pause:3.9"]),
                         generic)
    return generic


INT_RANGES = {
    FD.CPPTYPE_INT32: (-(2**31), 2**31 - 1),
    FD.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
    FD.CPPTYPE_UINT32: (0, 2**32 - 1),
    FD.CPPTYPE_UINT64: (0, 2**64 - 1),
}


def scalar(field: FD, world: World):
    ct = field.cpp_type
    if ct in INT_RANGES:
        lo, hi = INT_RANGES[ct]
        edges = [v for v in (0, 1, -1, 2, 30, 137, 1 << 20, 1 << 40, lo, hi, hi - 1, lo + 1) if lo <= v <= hi]
        return st.one_of(st.sampled_from(edges), st.integers(lo, hi))
    if ct in (FD.CPPTYPE_DOUBLE, FD.CPPTYPE_FLOAT):
        odd = st.sampled_from([0.0, -0.0, -1.0, 0.5, 1e-300, 1e308, -1e308, float("nan"), float("inf"), float("-inf")])
        width = 32 if ct == FD.CPPTYPE_FLOAT else 64
        return st.one_of(odd, st.floats(width=width))
    if ct == FD.CPPTYPE_BOOL:
        return st.booleans()
    if ct == FD.CPPTYPE_ENUM:
        # Raw ints: known values and unknown ones (proto3 enums are open).
        return st.one_of(st.sampled_from([v.number for v in field.enum_type.values]),
                         st.integers(-3, 12), st.sampled_from([2**31 - 1, -(2**31)]))
    if field.type == FD.TYPE_BYTES:
        return st.one_of(st.binary(max_size=64), st.just(b"\xff" * 100_000), st.just(b""))
    return strings(field, world)


def fill(data, msg, world: World, depth: int = 0) -> None:
    """Set a random subset of `msg`'s fields to hostile values."""
    p_set = 0.5 if depth == 0 else 0.3
    for field in msg.DESCRIPTOR.fields:
        if depth > 4 or not data.draw(st.floats(0, 1)) < p_set:
            continue
        is_repeated = field.is_repeated
        mt = field.message_type
        if is_repeated and mt is not None and mt.GetOptions().map_entry:
            target = getattr(msg, field.name)
            key_f, val_f = mt.fields_by_name["key"], mt.fields_by_name["value"]
            n = data.draw(st.sampled_from([0, 1, 2, 3, 2000]))
            for k in range(n):
                key = data.draw(st.one_of(st.sampled_from(ODD_KEYS), scalar(key_f, world))) if n < 100 else f"k{k}"
                if key in BANNED_KEYS:
                    continue
                if val_f.message_type is not None:
                    fill(data, target[key], world, depth + 1)
                else:
                    target[key] = data.draw(scalar(val_f, world)) if n < 100 else "v"
            continue
        if is_repeated:
            target = getattr(msg, field.name)
            huge = data.draw(st.floats(0, 1)) < 0.08
            if mt is not None:
                for _ in range(300 if huge else data.draw(st.integers(0, 3))):
                    item = target.add()
                    if not huge:
                        fill(data, item, world, depth + 1)
            elif huge and field.cpp_type == FD.CPPTYPE_STRING and field.type != FD.TYPE_BYTES:
                target.extend([data.draw(pick(WORDS + world.id_pool()[:3]))] * 20_000)
            else:
                target.extend(data.draw(st.lists(scalar(field, world), max_size=3)))
            continue
        if mt is not None:
            sub = getattr(msg, field.name)
            sub.SetInParent()
            fill(data, sub, world, depth + 1)
            continue
        setattr(msg, field.name, data.draw(scalar(field, world)))


def template(method: str, world: World):
    """A valid request to start from, so fuzzing also reaches the deep paths."""
    sid = world.sandboxes[0] if world.sandboxes else ""
    if method == "RunPodSandbox":
        return pb.RunPodSandboxRequest(config=sandbox_config("fz", log_directory=os.path.join(SCRATCH, "logs")))
    if method == "CreateContainer":
        return pb.CreateContainerRequest(pod_sandbox_id=sid, config=container_config("c", command=["sleep", "5"]),
                                         sandbox_config=sandbox_config("fz"))
    if method == "UpdateContainerResources" and world.containers:
        return pb.UpdateContainerResourcesRequest(container_id=world.containers[0],
                                                  linux=pb.LinuxContainerResources(cpu_shares=2))
    if method == "ExecSync" and world.containers:
        return pb.ExecSyncRequest(container_id=world.containers[0], cmd=["echo", "hi"], timeout=1)
    if method == "PullImage":
        return pb.PullImageRequest(image=pb.ImageSpec(image="busybox"))
    return None


# ---------------------------------------------------------------- the server and its world


@pytest.fixture(scope="module")
def fuzz_server():
    server = FakeCRIServer(seed=99, fake_clock=True, max_sandboxes=80, max_containers=160, max_images=60)
    server.start()
    yield server
    server.stop()


class Harness:
    def __init__(self, server: FakeCRIServer) -> None:
        self.server = server
        self.channel = grpc.insecure_channel(server.endpoint, options=[
            ("grpc.max_receive_message_length", 64 << 20), ("grpc.max_send_message_length", 64 << 20)])
        self.rt = api_pb2_grpc.RuntimeServiceStub(self.channel)
        self.img = api_pb2_grpc.ImageServiceStub(self.channel)
        self.ctl = control_pb2_grpc.ControlStub(self.channel)
        self.world = World()

    def seed_world(self) -> None:
        """A few pods in every state: READY and NOTREADY sandboxes; CREATED, RUNNING and EXITED containers."""
        self.server.reset()
        rt, t = self.rt, CALL_TIMEOUT
        self.img.PullImage(pb.PullImageRequest(image=pb.ImageSpec(image="busybox")), timeout=t)
        for i in range(3):
            cfg = sandbox_config(f"p{i}", log_directory=os.path.join(SCRATCH, "logs", f"p{i}"))
            sid = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg), timeout=t).pod_sandbox_id
            cids = []
            for j, cmd in enumerate((["sleep", "1000"], ["nginx"], ["true"])):
                cids.append(rt.CreateContainer(pb.CreateContainerRequest(
                    pod_sandbox_id=sid, config=container_config(f"c{j}", command=cmd), sandbox_config=cfg),
                    timeout=t).container_id)
            rt.StartContainer(pb.StartContainerRequest(container_id=cids[0]), timeout=t)
            rt.StartContainer(pb.StartContainerRequest(container_id=cids[2]), timeout=t)
            if i == 2:
                rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=sid), timeout=t)
        self.refresh()

    def refresh(self) -> None:
        w = self.world
        before = set(w.sandboxes + w.containers)
        w.sandboxes = [s.id for s in self.rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=CALL_TIMEOUT).items]
        w.containers = [c.id for c in self.rt.ListContainers(pb.ListContainersRequest(),
                                                             timeout=CALL_TIMEOUT).containers]
        w.gone = (w.gone + sorted(before - set(w.sandboxes + w.containers)))[-20:]

    def ensure_world(self) -> None:
        if len(self.world.sandboxes) < 2 or len(self.world.sandboxes) > 40 or len(self.world.containers) < 2:
            self.seed_world()

    def invoke(self, svc, m, request) -> grpc.StatusCode:
        path = f"/{svc.full_name}/{m.name}"
        ser = request if isinstance(request, bytes) else request.SerializeToString()
        add("requests tried")
        add(f"requests tried ({svc.name})")
        try:
            if m.server_streaming:
                call = self.channel.unary_stream(path, request_serializer=None, response_deserializer=None)(
                    ser, timeout=CALL_TIMEOUT)
                timer = threading.Timer(STREAM_READ_S, call.cancel) if m.name == "GetContainerEvents" else None
                if timer:
                    timer.start()
                try:
                    for n, _ in enumerate(call):
                        if n >= 3:
                            call.cancel()
                            break
                finally:
                    if timer:
                        timer.cancel()
                return grpc.StatusCode.OK
            self.channel.unary_unary(path, request_serializer=None, response_deserializer=None)(ser,
                                                                                                timeout=CALL_TIMEOUT)
            return grpc.StatusCode.OK
        except grpc.RpcError as exc:
            code = exc.code()
            assert code not in FORBIDDEN, f"{m.name} answered {code.name}: {exc.details()}\nrequest: {request!r:.2000}"
            return code

    def after(self, svc) -> None:
        if svc is CONTROL_SERVICE:
            # Undo what a fuzzed control call may have switched on (faults, a long restart window).
            self.ctl.ResetFaults(cpb.ResetFaultsRequest(), timeout=CALL_TIMEOUT)
            self.ctl.RestartRuntime(cpb.RestartRuntimeRequest(downtime_seconds=0), timeout=CALL_TIMEOUT)
        self.server.check()
        counts = check_invariants(self.rt)
        add("invariant objects checked", counts["sandboxes"] + counts["containers"])
        self.refresh()


@pytest.fixture(scope="module")
def harness(fuzz_server):
    h = Harness(fuzz_server)
    h.seed_world()
    yield h
    h.channel.close()
    shutil.rmtree(SCRATCH, ignore_errors=True)


reached: set[str] = set()


def _fuzz_one(harness: Harness, svc, m, data) -> None:
    reached.add(m.full_name)
    harness.ensure_world()
    cls = message_factory.GetMessageClass(m.input_type)
    start = template(m.name, harness.world) if data.draw(st.floats(0, 1)) < 0.4 else None
    req = cls() if start is None else start
    fill(data, req, harness.world)
    code = harness.invoke(svc, m, req)
    add(f"answers {code.name}")
    harness.after(svc)


@pytest.mark.parametrize("svc,m", METHODS, ids=[f"{s.name}.{m.name}" for s, m in METHODS])
def test_hostile_requests(harness, svc, m):
    harness.seed_world()  # a fresh world (and a clean error list) for each RPC

    @settings(settings.get_profile("reliability"))
    @given(st.data())
    def run(data):
        _fuzz_one(harness, svc, m, data)

    run()


@pytest.mark.parametrize("svc,m", METHODS, ids=[f"{s.name}.{m.name}" for s, m in METHODS])
def test_undecodable_bytes(harness, svc, m):
    """Bytes that are no valid message (bad UTF-8, truncated varints) answer INVALID_ARGUMENT."""
    cls = message_factory.GetMessageClass(m.input_type)
    string_fields = [f for f in cls.DESCRIPTOR.fields if f.type == FD.TYPE_STRING and not f.is_repeated]
    payloads = [b"\xff\xff\xff\xff", b"\x0a\x05ab"]  # corrupt wire format; a length running past the end
    for f in string_fields[:3]:
        payloads.append(bytes([(f.number << 3) | 2, 2, 0xFF, 0xFE]))  # field `f` with bad UTF-8
    for payload in payloads:
        code = harness.invoke(svc, m, payload)
        assert code in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.CANCELLED), (m.name, payload, code)
    harness.after(svc)


@pytest.mark.slow
def test_hostile_requests_long(harness):
    """The same fuzz with FAKECRI_FUZZ_EXAMPLES_SLOW examples (default 300), methods drawn at random."""
    @settings(settings.get_profile("reliability"), max_examples=int(os.environ.get("FAKECRI_FUZZ_EXAMPLES_SLOW",
                                                                                   "300")))
    @given(st.data())
    def run(data):
        svc, m = data.draw(st.sampled_from(METHODS))
        _fuzz_one(harness, svc, m, data)

    reached.clear()
    run()
    harness.server.check()
    examples = int(os.environ.get("FAKECRI_FUZZ_EXAMPLES_SLOW", "300"))
    if examples >= 10 * len(METHODS):
        assert reached == {m.full_name for _, m in METHODS}, "a long run should reach every RPC"
