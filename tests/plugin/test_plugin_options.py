"""Plugin options and ini keys: external endpoint, seed, log level, bad values."""
from __future__ import annotations

import textwrap

import pytest

from fakecri.server.process.app import FakeCRIServer

EXTERNAL_TESTS = """
    import pytest

    POD = {"metadata": {"name": "ext", "namespace": "ns", "uid": "u"}}

    def test_client_talks_to_the_external_runtime(cri_client, cri_endpoint):
        assert cri_endpoint == ENDPOINT
        cri_client.run_pod_sandbox(POD)
        assert [p.metadata.name for p in cri_client.list_pod_sandbox()] == ["ext"]

    def test_needs_the_fake(fakecri):
        pass

    def test_needs_extra_servers(make_fakecri):
        pass

    @pytest.mark.fakecri(faults=["--error ListImages=UNAVAILABLE"])
    def test_marked_needs_the_fake(cri_client):
        pass
"""


@pytest.fixture
def external():
    with FakeCRIServer(seed=5) as server:
        yield server


def _check_external_run(result, server):
    result.assert_outcomes(passed=1, skipped=3)
    result.stdout.fnmatch_lines([
        f"cri endpoint: {server.endpoint} (external runtime; tests that need fakecri are skipped)",
        f"*SKIP*needs fakecri, but --cri-endpoint points at an external runtime ({server.endpoint})*",
    ])
    names = server.call(lambda: [s.name for s in server.node.runtime.list_sandboxes()])
    assert names == ["ext"]


def test_cri_endpoint_option_points_at_an_external_runtime(pytester, external):
    pytester.makepyfile(f"ENDPOINT = {external.endpoint!r}\n" + textwrap.dedent(EXTERNAL_TESTS))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rs", "--cri-endpoint", external.endpoint)
    _check_external_run(result, external)


def test_cri_endpoint_ini_key(pytester, external):
    pytester.makeini(f"[pytest]\ncri_endpoint = {external.endpoint}\n")
    pytester.makepyfile(f"ENDPOINT = {external.endpoint!r}\n" + textwrap.dedent(EXTERNAL_TESTS))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rs")
    _check_external_run(result, external)


def test_seed_from_option_and_ini(pytester, monkeypatch):
    pytester.makeini("[pytest]\nfakecri_seed = 9\n")
    pytester.makepyfile(
        """
        import os

        def test_seed(fakecri):
            assert fakecri.seed == int(os.environ["EXPECTED_SEED"])
            assert fakecri.server_info()["seed"] == fakecri.seed
        """
    )
    monkeypatch.setenv("EXPECTED_SEED", "9")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["fakecri: endpoint unix://*, seed 9, log level off"])
    monkeypatch.setenv("EXPECTED_SEED", "42")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--fakecri-seed", "42")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["fakecri: endpoint unix://*, seed 42, log level off"])


def test_bad_seed_is_a_usage_error(pytester):
    pytester.makepyfile("def test_nothing(): pass\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--fakecri-seed", "many")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*fakecri seed 'many' (--fakecri-seed / fakecri_seed) is not an integer*"])


def test_log_level_logs_one_line_per_rpc_into_the_test_output(pytester):
    # A subprocess: configuring logging must not leak into this process.
    pytester.makeini("[pytest]\nfakecri_log_level = info\n")
    pytester.makepyfile(
        """
        def test_rpc_lines(cri_client, capsys):
            capsys.readouterr()
            cri_client.version()
            cri_client.list_pod_sandbox()
            err = capsys.readouterr().err
            assert "method=Version" in err and "method=ListPodSandbox" in err and "code=OK" in err
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=120)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["fakecri: endpoint unix://*, seed 0, log level info"])


def test_plugin_loads_without_grpc_or_the_server(pytester):
    pytester.makepyfile(
        """
        import sys

        def test_nothing_heavy_imported():
            heavy = [m for m in sys.modules if m.split(".")[0] in ("grpc", "google", "structlog")
                     or m.startswith("fakecri.")]
            assert heavy == ["fakecri.pytest_plugin"]
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest", timeout=120)
    result.assert_outcomes(passed=1)


def test_log_level_off_means_no_line_at_all(pytester):
    # The header says "log level off": no ready line, no rpc lines, no fault lines anywhere.
    pytester.makepyfile(
        """
        import pytest
        from fakecri.client import UnavailableError

        @pytest.mark.fakecri(faults=["--error Version=UNAVAILABLE"])
        def test_an_injected_error(cri_client, make_fakecri, capsys):
            with pytest.raises(UnavailableError):
                cri_client.version()
            make_fakecri(seed=3).restart(0)
            out, err = capsys.readouterr()
            assert out == "" and err == ""
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s", timeout=120)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["fakecri: endpoint unix://*, seed 0, log level off"])
    output = "\n".join(result.outlines + result.errlines)
    for word in ("fakecri ready", "fault", "rpc", "runtime restart"):
        assert word not in output.replace("fakecri: endpoint", ""), output
