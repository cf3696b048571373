"""fakecri.control_calls declares each call of the control API once; the proto, the servicer,
ControlClient, FakeCRI and `fakecri ctl` all agree with it."""
from __future__ import annotations

import inspect

import pytest
from click.testing import CliRunner

from fakecri.api.control.v1 import control_pb2 as cpb
from fakecri.cli import main
from fakecri.control_calls import BY_COMMAND, CONTROL_CALLS, ControlCalls
from fakecri.control_client import ControlClient
from fakecri.server.cri.control_service import ControlService
from fakecri.testing import FakeCRI

SERVICE = cpb.DESCRIPTOR.services_by_name["Control"]
FARM_COMMANDS = {"nodes", "add-node", "remove-node"}  # the Farm service's, not Control's


def test_the_table_lists_exactly_the_protos_rpcs_in_its_order():
    assert [c.rpc for c in CONTROL_CALLS] == [m.name for m in SERVICE.methods]


def test_names_are_unique():
    for attr in ("rpc", "method", "command"):
        names = [getattr(c, attr) for c in CONTROL_CALLS]
        assert len(names) == len(set(names)), attr


def test_the_servicer_serves_exactly_the_rpcs():
    served = {name for name, fn in vars(ControlService).items() if name[:1].isupper() and callable(fn)}
    assert served == {c.rpc for c in CONTROL_CALLS}
    for c in CONTROL_CALLS:
        assert inspect.iscoroutinefunction(getattr(ControlService, c.rpc)), c.rpc


@pytest.mark.parametrize("call", CONTROL_CALLS, ids=lambda c: c.rpc)
def test_each_client_method_fills_exactly_its_requests_fields(call):
    method = getattr(ControlClient, call.method)
    assert inspect.getdoc(method) == call.help
    keywords = [p for p in inspect.signature(method).parameters if p != "self"]
    method_desc = SERVICE.methods_by_name[call.rpc]
    request = method_desc.input_type
    assert request.name == f"{call.rpc}Request", "ControlClient._call builds the request by this name"
    assert sorted(call.fields.get(k, k) for k in keywords) == sorted(f.name for f in request.fields)
    assert set(call.fields) <= set(keywords), "a renamed keyword the method does not take"


def test_the_shared_methods_are_the_fixture_calls_and_fakecri_has_them_all():
    shared = {name for name, fn in vars(ControlCalls).items() if callable(fn) and not name.startswith("_")}
    assert shared == {c.method for c in CONTROL_CALLS if c.fixture} | {"oom_kill", "send"}
    assert issubclass(FakeCRI, ControlCalls) and issubclass(ControlClient, ControlCalls)
    for c in CONTROL_CALLS:
        if not c.fixture:  # the client's own; FakeCRI has one of its own by that name (flag strings; the server)
            assert c.method in vars(ControlClient) and c.method in vars(FakeCRI), c.method


def test_ctl_has_one_command_per_call_with_its_help():
    from fakecri.cli.control import ctl

    assert set(ctl.commands) - FARM_COMMANDS == set(BY_COMMAND)
    for name, call in BY_COMMAND.items():
        assert ctl.commands[name].help.startswith(call.help), name
        result = CliRunner().invoke(main, ["ctl", name, "--help"])
        assert result.exit_code == 0 and " ".join(call.help.split()[:4]) in " ".join(result.output.split())


def test_the_plugin_page_lists_every_shared_call():
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "pytest-plugin.md").read_text(encoding="utf-8")
    row = next(line for line in page.splitlines() if line.startswith("| `fakecri` |"))
    shared = {c.method for c in CONTROL_CALLS if c.fixture} | {"oom_kill"}
    assert [m for m in sorted(shared) if f"`{m}`" not in row] == []
