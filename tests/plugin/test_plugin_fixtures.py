"""The pytest plugin in an isolated pytester project: fixtures, reset between tests, marker."""
from __future__ import annotations

import pytest

HEADER = "-p no:cacheprovider"


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess(HEADER, "-v", *args)


def test_fixtures_and_reset_between_tests(pytester):
    pytester.makepyfile(
        """
        POD = {"metadata": {"name": "p", "namespace": "ns", "uid": "u"}}

        def test_first_leaves_a_mess(fakecri, cri_client, cri_endpoint):
            assert cri_endpoint == fakecri.endpoint and cri_endpoint.startswith("unix:///tmp/")
            assert len(cri_endpoint) < 108
            cri_client.run_pod_sandbox(POD)
            fakecri.add_fault({"type": "error", "target": "ListImages", "attributes": {"code": "UNAVAILABLE"}})
            assert [f["target"] for f in fakecri.list_faults()] == ["ListImages"]
            assert len(cri_client.list_pod_sandbox()) == 1

        def test_second_sees_a_clean_server(fakecri, cri_client):
            assert cri_client.list_pod_sandbox() == []
            assert fakecri.list_faults() == []
            assert cri_client.list_images() == []
            assert [c["method"] for c in fakecri.call_log()] == ["ListPodSandbox", "ListImages"]

        def test_handle_shows_the_server(fakecri):
            assert fakecri.server.node is not None and fakecri.seed == 0
            assert repr(fakecri).startswith("<FakeCRI unix:///tmp/")
        """
    )
    result = run(pytester)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["fakecri: endpoint unix:///tmp/fakecri-*/cri.sock, seed 0, log level off"])


def test_one_server_per_session_and_make_fakecri(pytester):
    pytester.makepyfile(
        """
        seen = []
        POD = {"metadata": {"name": "p", "namespace": "ns", "uid": "u"}}

        def test_a(fakecri):
            seen.append(fakecri.server)

        def test_b(fakecri):
            seen.append(fakecri.server)
            assert seen[0] is seen[1]

        def test_extra_servers_are_independent(fakecri, make_fakecri, cri_client):
            other = make_fakecri(seed=3, fake_clock=True)
            assert other.endpoint != fakecri.endpoint and other.seed == 3
            with other.client() as c:
                c.run_pod_sandbox(POD)
                assert len(c.list_pod_sandbox()) == 1
            assert cri_client.list_pod_sandbox() == []
            assert other.advance_clock(5) > 0
            seen.append(other)

        def test_extra_servers_are_stopped_after_their_test():
            assert seen[-1].server.node is not None and not seen[-1].server.running
        """
    )
    run(pytester).assert_outcomes(passed=4)


def test_marker_faults_quirks_and_seed(pytester):
    pytester.makepyfile(
        """
        import pytest
        from fakecri.client.errors import UnavailableError, NotFoundError
        from fakecri.faults.model import Fault

        POD = {"metadata": {"name": "p", "namespace": "ns", "uid": "u"}}

        @pytest.mark.fakecri(
            faults=[
                "--error RunPodSandbox=UNAVAILABLE",
                {"name": "slow-list", "type": "latency", "target": "ListContainers",
                 "attributes": {"delay": "1ms"}},
                Fault(name="no-images", type="error", target="ImageStatus", attributes={"code": "NOT_FOUND"}),
            ],
            quirks=["stopped-before-started"],
        )
        def test_marked(fakecri, cri_client):
            types = sorted((f["type"], f["target"]) for f in fakecri.list_faults())
            assert ("error", "RunPodSandbox") in types and ("latency", "ListContainers") in types
            assert ("error", "ImageStatus") in types
            assert any(f["type"] == "quirk" for f in fakecri.list_faults())
            with pytest.raises(UnavailableError):
                cri_client.run_pod_sandbox(POD)
            with pytest.raises(NotFoundError):
                cri_client.image_status("busybox")

        def test_unmarked_after_marked(fakecri, cri_client):
            assert fakecri.list_faults() == []
            cri_client.run_pod_sandbox(POD)

        @pytest.mark.fakecri(seed=11)
        def test_own_seed_gets_its_own_server(fakecri, cri_client, cri_endpoint):
            assert fakecri.seed == 11 and cri_endpoint == fakecri.endpoint
            assert cri_client.list_pod_sandbox() == []

        @pytest.mark.fakecri(seed=11)
        def test_same_seed_same_ids(fakecri, cri_client):
            # A fresh server per seeded test: the first sandbox id is the same every time.
            sid = cri_client.run_pod_sandbox(POD)
            with open("ids.txt", "a") as f:
                f.write(sid + "\\n")

        @pytest.mark.fakecri(seed=11)
        def test_same_seed_same_ids_again(fakecri, cri_client):
            sid = cri_client.run_pod_sandbox(POD)
            assert open("ids.txt").read().split() == [sid]

        @pytest.mark.fakecri(faults=["--bogus 1"])
        def test_bad_fault_spec(fakecri):
            pass

        @pytest.mark.fakecri(faults=[{"type": "latency", "attributes": {"latency": "1ms"}}])
        def test_fault_the_server_refuses(fakecri):
            pass
        """
    )
    result = run(pytester)
    result.assert_outcomes(passed=5, errors=2)
    result.stdout.fnmatch_lines([
        "*fakecri fault '--bogus 1': write it as a serve flag*",
        "*@pytest.mark.fakecri: {'type': 'latency'*was refused: *unknown attribute(s) latency*",
    ])


def test_server_error_fails_the_test_with_its_traceback(pytester):
    pytester.makepyfile(
        """
        import pytest
        from fakecri.client.errors import CRIError

        def explode(*args, **kwargs):
            raise ZeroDivisionError("boom inside the server")

        def test_handler_raises(fakecri, cri_client):
            runtime = fakecri.node.runtime
            fakecri.server.call(lambda: setattr(runtime, "list_sandboxes", explode))
            try:
                with pytest.raises(CRIError):
                    cri_client.list_pod_sandbox()
            finally:
                fakecri.server.call(lambda: delattr(runtime, "list_sandboxes"))

        def test_next_test_is_clean(fakecri, cri_client):
            assert cri_client.list_pod_sandbox() == []
        """
    )
    result = run(pytester)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "*fakecri raised inside a handler during this test:*",
        "*ZeroDivisionError: boom inside the server*",
    ])
    assert "test_handler_raises FAILED" in result.stdout.str()


def test_fakecri_handle_without_pytest():
    from fakecri.faults.model import FaultSpecError
    from fakecri.testing import FakeCRI

    with FakeCRI.start(seed=4) as node:
        assert node.add_fault("--latency=ListImages=1ms")[0]["type"] == "latency"
        assert [f["type"] for f in node.add_quirks("stopped-before-started")] == ["quirk"]
        with node.client() as c:
            assert c.list_images() == []
        assert node.server_info()["seed"] == 4
        with pytest.raises(FaultSpecError, match="give a dict, a Fault or a flag string"):
            node.add_fault(42)
        with pytest.raises(AttributeError):
            _ = node._missing
    assert not node.server.running


def test_every_control_call_is_a_documented_method_of_the_handle():
    import inspect

    from fakecri.control_client import ControlClient
    from fakecri.testing import FakeCRI

    # Inherited methods count: both have the shared ones of fakecri.control_calls.ControlCalls.
    calls = {name for name, _ in inspect.getmembers(ControlClient, inspect.isfunction)
             if not name.startswith("_")} - {"close"}
    assert {"exit_container", "set_stats", "advance_clock", "add_fault", "reset"} <= calls
    for name in sorted(calls):
        method = getattr(FakeCRI, name, None)
        assert inspect.isfunction(method), f"FakeCRI.{name} is not a method"
        assert (method.__doc__ or "").strip(), f"FakeCRI.{name} has no docstring"
        ours = list(inspect.signature(method).parameters)[1:]
        theirs = list(inspect.signature(getattr(ControlClient, name)).parameters)[1:]
        assert ours == theirs, name


def test_control_methods_act_on_the_server():
    from fakecri.client.errors import UnavailableError
    from fakecri.testing import FakeCRI

    pod = {"metadata": {"name": "m", "namespace": "default", "uid": "u-m"}}
    with FakeCRI.start(seed=5, fake_clock=True) as node, node.client() as c:
        sid = c.run_pod_sandbox(pod)
        c.pull_image("busybox")
        cid = c.create_container(sid, {"metadata": {"name": "app"}, "image": {"image": "busybox"},
                                       "command": ["sleep", "60"]}, pod)
        c.start_container(cid)
        node.oom_kill(cid)
        status = c.container_status(cid).status
        assert (status.exit_code, status.reason) == (137, "OOMKilled")
        node.set_condition("NetworkReady", False, reason="CNIBroken")
        assert [f["type"] for f in node.list_faults()] == ["condition"]
        node.reset_faults()
        assert node.list_faults() == [] and node.advance_clock(1) > 0
        node.restart(0.5)
        with pytest.raises(UnavailableError):
            c.version()
        assert any(r["method"] == "StartContainer" for r in node.call_log())
        assert node.server_info()["counters"]["restarts"] == 1
