"""RunPodSandbox / StopPodSandbox / RemovePodSandbox semantics, lookups, filters, IPs."""
from __future__ import annotations

import ipaddress

import pytest

from fakecri.engine.clock import SequentialIds
from fakecri.engine.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound, ResourceExhausted
from fakecri.engine.records import ContainerState, Limits, Resources, SandboxState
from fakecri.engine.runtime import Runtime
from fakecri.engine.specs import NODE, Namespaces, SandboxSpec

SPEC = SandboxSpec(dns_servers=("10.96.0.10",), sysctls=(("net/ipv4/ip_forward", "1"),), supplemental_groups=(7,))


def test_run_keeps_everything_and_is_ready(pods, runtime, clock):
    sb = pods.sandbox("web", labels={"app": "web"}, annotations={"a": "b"}, hostname="web-0", spec=SPEC)
    assert sb.state == SandboxState.READY
    assert (sb.name, sb.namespace, sb.labels, sb.annotations, sb.hostname) == (
        "web", "default", {"app": "web"}, {"a": "b"}, "web-0")
    assert sb.spec is SPEC and sb.created_at == clock.now_ns() and sb.container_ids == ()
    assert len(sb.id) == 64 and sb.ip == "10.88.0.2" and runtime.get_sandbox(sb.id) is sb


def test_a_pod_on_the_host_network_has_no_address_of_its_own(pods, runtime):
    host = pods.sandbox(spec=SandboxSpec(namespaces=Namespaces(network=NODE)))
    assert host.ip == ""
    assert pods.sandbox().ip == "10.88.0.2"  # none was taken
    runtime.remove_pod_sandbox(host.id)
    assert pods.sandbox().ip == "10.88.0.3"


@pytest.mark.parametrize("missing", ["name", "namespace", "uid"])
def test_metadata_is_required(runtime, missing):
    kw = {"name": "p", "namespace": "ns", "uid": "u"}
    kw[missing] = ""
    with pytest.raises(InvalidArgument, match=f"metadata.{missing} is required"):
        runtime.run_pod_sandbox(**kw)
    assert runtime.list_sandboxes() == []


def test_same_metadata_is_already_exists_but_next_attempt_is_fine(runtime):
    runtime.run_pod_sandbox(name="p", namespace="ns", uid="u", attempt=0)
    with pytest.raises(AlreadyExists, match="ns/p"):
        runtime.run_pod_sandbox(name="p", namespace="ns", uid="u", attempt=0)
    runtime.run_pod_sandbox(name="p", namespace="ns", uid="u", attempt=1)
    assert len(runtime.list_sandboxes()) == 2


def test_unknown_runtime_handler_is_not_found_and_names_it(runtime):
    with pytest.raises(NotFound, match="'kata'"):
        runtime.run_pod_sandbox(name="p", namespace="ns", uid="u", runtime_handler="kata")
    assert runtime.run_pod_sandbox(name="p", namespace="ns", uid="u", runtime_handler="runc").runtime_handler == "runc"


def test_pod_ips_skip_network_and_gateway_and_are_released(pods, runtime):
    a, b = pods.sandbox(), pods.sandbox()
    assert (a.ip, b.ip) == ("10.88.0.2", "10.88.0.3")
    runtime.remove_pod_sandbox(a.id)
    ips = {pods.sandbox().ip for _ in range(3)}
    assert b.ip not in ips and len(ips) == 3


def test_set_pod_cidr_applies_to_new_sandboxes(pods, runtime):
    old = pods.sandbox()
    runtime.set_pod_cidr("192.168.7.0/24")
    new = pods.sandbox()
    assert new.ip == "192.168.7.2" and old.ip == "10.88.0.2"
    assert ipaddress.ip_address(new.ip) in ipaddress.ip_network(runtime.pod_cidr)
    with pytest.raises(InvalidArgument, match="not-a-cidr"):
        runtime.set_pod_cidr("not-a-cidr")


def test_exhausted_cidr_is_resource_exhausted(pods, runtime):
    runtime.set_pod_cidr("10.0.0.0/30")  # .0 network, .1 gateway, .2 the only pod, .3 broadcast
    pods.sandbox()
    with pytest.raises(ResourceExhausted, match="10.0.0.0/30"):
        pods.sandbox()


def test_ipv6_cidr(pods, runtime):
    runtime.set_pod_cidr("fd00:10::/64")
    assert pods.sandbox().ip == "fd00:10::2"


def test_stop_kills_running_containers_leaves_created_and_is_idempotent(pods, runtime, events):
    sb = pods.sandbox()
    run = pods.running(sb, "run")
    created = pods.container(sb, "created")
    runtime.stop_pod_sandbox(sb.id)
    assert sb.state == SandboxState.READY  # the record handed out stays as it was
    assert runtime.get_sandbox(sb.id).state == SandboxState.NOTREADY
    run = runtime.get_container(run.id)
    assert (run.state, run.exit_code, run.reason) == (ContainerState.EXITED, 137, "Error")
    assert runtime.get_container(created.id) is created and created.state == ContainerState.CREATED
    events()
    changes = runtime.changes
    runtime.stop_pod_sandbox(sb.id)
    runtime.stop_pod_sandbox("f" * 64)
    assert events() == [] and runtime.changes == changes


def test_remove_removes_containers_and_is_idempotent(pods, runtime):
    sb = pods.sandbox()
    pods.running(sb, "a")
    pods.container(sb, "b")
    runtime.remove_pod_sandbox(sb.id)
    assert runtime.list_sandboxes() == [] and runtime.list_containers() == []
    runtime.remove_pod_sandbox(sb.id)
    with pytest.raises(NotFound, match=sb.id):
        runtime.get_sandbox(sb.id)


def test_create_container_needs_ready_sandbox(pods, runtime):
    sb = pods.sandbox()
    runtime.stop_pod_sandbox(sb.id)
    with pytest.raises(FailedPrecondition, match=f"sandbox {sb.id}: it is NOTREADY"):
        pods.container(sb)
    with pytest.raises(NotFound):
        runtime.create_container("e" * 64, name="x", image="busybox")


class ListedIds:
    def __init__(self, *ids):
        self.ids = list(ids)

    def new_id(self):
        return self.ids.pop(0)


def test_lookup_by_unique_prefix_ambiguous_and_empty(clock):
    rt = Runtime(clock, ListedIds("ab" + "0" * 62, "ac" + "0" * 62, "ad" + "0" * 62))
    a = rt.run_pod_sandbox(name="a", namespace="n", uid="1")
    b = rt.run_pod_sandbox(name="b", namespace="n", uid="2")
    assert rt.get_sandbox("ab") is a and rt.get_sandbox("ac0") is b
    with pytest.raises(InvalidArgument, match="ambiguous"):
        rt.get_sandbox("a")
    with pytest.raises(InvalidArgument, match="empty"):
        rt.get_sandbox("")
    with pytest.raises(InvalidArgument, match="empty"):
        rt.stop_pod_sandbox("")
    with pytest.raises(NotFound):
        rt.get_sandbox("1")
    assert rt.list_sandboxes(id="ac") == [b] and rt.list_sandboxes(id="a") == []
    rt.stop_pod_sandbox("ab")
    assert rt.get_sandbox(a.id).state == SandboxState.NOTREADY
    assert rt.run_pod_sandbox(name="d", namespace="n", uid="3").id == "ad" + "0" * 62


def test_list_filters_are_anded(pods, runtime):
    a = pods.sandbox(labels={"app": "x", "tier": "web"})
    b = pods.sandbox(labels={"app": "x"})
    runtime.stop_pod_sandbox(b.id)
    b = runtime.get_sandbox(b.id)
    assert runtime.list_sandboxes() == [a, b]
    assert runtime.list_sandboxes(label_selector={"app": "x"}) == [a, b]
    assert runtime.list_sandboxes(label_selector={"app": "x", "tier": "web"}) == [a]
    assert runtime.list_sandboxes(label_selector={"app": "y"}) == []
    assert runtime.list_sandboxes(state=SandboxState.NOTREADY) == [b]
    assert runtime.list_sandboxes(id=a.id, state=SandboxState.NOTREADY) == []
    assert runtime.list_sandboxes(id=b.id) == [b]
    assert runtime.list_sandboxes(id="0" * 10) == []  # ambiguous prefix: no match, no error
    assert runtime.list_sandboxes(id="f" * 64) == []


def test_update_sandbox_resources_all_or_nothing(pods, runtime):
    sb = pods.sandbox(resources=Resources(cpu_shares=512))
    changes = runtime.changes
    with pytest.raises(InvalidArgument, match=f"sandbox {sb.id}"):
        runtime.update_pod_sandbox_resources(sb.id, overhead=Resources(cpu_shares=100),
                                             resources=Resources(oom_score_adj=5000))
    assert runtime.get_sandbox(sb.id) is sb and runtime.changes == changes
    assert sb.overhead is None and sb.resources.cpu_shares == 512
    runtime.update_pod_sandbox_resources(sb.id, overhead=Resources(cpu_shares=100), resources=Resources(cpu_shares=2))
    new = runtime.get_sandbox(sb.id)
    assert new.overhead.cpu_shares == 100 and new.resources.cpu_shares == 2 and runtime.changes > changes
    assert new is not sb and sb.resources.cpu_shares == 512
    runtime.update_pod_sandbox_resources(sb.id, overhead=Resources(cpu_shares=3))  # None: keep the other
    assert runtime.get_sandbox(sb.id).resources.cpu_shares == 2


def test_sandbox_limit(clock):
    rt = Runtime(clock, SequentialIds(), limits=Limits(max_sandboxes=1))
    rt.run_pod_sandbox(name="a", namespace="n", uid="1")
    with pytest.raises(ResourceExhausted, match="limit 1"):
        rt.run_pod_sandbox(name="b", namespace="n", uid="2")


def test_a_change_replaces_the_record_and_counts(pods, runtime):
    sb = pods.sandbox()
    changes = runtime.changes
    runtime.stop_pod_sandbox(sb.id)
    new = runtime.get_sandbox(sb.id)
    assert new is not sb and runtime.changes > changes
    assert (new.id, new.ip, new.created_at, new.labels) == (sb.id, sb.ip, sb.created_at, sb.labels)
    with pytest.raises(AttributeError):
        new.state = SandboxState.READY  # frozen
    changes = runtime.changes
    runtime.set_pod_cidr("10.9.0.0/16")
    assert runtime.changes > changes


def test_wipe_forgets_everything_silently(pods, runtime, events):
    sb = pods.sandbox()
    pods.running(sb)
    events()
    changes = runtime.changes
    runtime.wipe()
    assert runtime.changes > changes
    assert runtime.list_sandboxes() == [] and runtime.list_containers() == [] and events() == []
    assert runtime.next_deadline_ns() is None
    assert runtime.counts() == {"sandboxes": 0, "containers": 0, "running": 0, "timers": 0}
    # The same metadata can be used again.
    assert runtime.run_pod_sandbox(name=sb.name, namespace=sb.namespace, uid=sb.uid).state == SandboxState.READY


def test_reset_goes_back_to_how_it_was_made(pods, runtime, events):
    runtime.set_pod_cidr("10.5.0.0/24")
    pods.running(pods.sandbox())
    runtime.wipe()
    assert runtime.images.status("busybox") is not None and runtime.pod_cidr == "10.5.0.0/24"  # a wipe keeps them
    pods.running(pods.sandbox())
    events()
    runtime.reset()
    assert runtime.images.list() == [] and runtime.pod_cidr == "10.88.0.0/16" and events() == []
    assert runtime.counts() == {"sandboxes": 0, "containers": 0, "running": 0, "timers": 0}
