"""The smaller rough edges a newcomer met: a misspelt config key or FAKECRI_ variable
is named with what it resembles; `conformance --list` reads cleanly; every error class
of the client is importable from fakecri.client."""
from __future__ import annotations

import inspect

import pytest
from click.testing import CliRunner

import fakecri.client as client
from fakecri.cli import main
from fakecri.client import errors


def test_an_unknown_config_key_suggests_the_nearest(tmp_path):
    cfg = tmp_path / "f.yaml"
    cfg.write_text("drop_event: 5%\n")
    result = CliRunner().invoke(main, ["serve", "--config", str(cfg)])
    assert result.exit_code == 2
    assert f"config file {cfg}: unknown key 'drop_event' (did you mean drop_events?)" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("words", [["health", "--timeout", "0.2"], ["serve", "--socket", "/proc/nope/x.sock"]])
def test_a_misspelt_fakecri_variable_is_named_in_one_warning_line(words):
    result = CliRunner().invoke(main, words, env={"FAKECRI_SEEED": "7", "FAKECRI_K8S_BIN": "/opt/k8s"})
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == ["warning: FAKECRI_SEEED is not a fakecri setting (did you mean FAKECRI_SEED?); it is ignored"]


def test_conformance_list_has_one_space_between_words():
    from fakecri.conformance.properties import ALL

    result = CliRunner().invoke(main, ["conformance", "--list"])
    assert result.exit_code == 0
    for prop in ALL:
        summary = prop.summary()
        assert "  " not in summary and summary in result.output, prop.name


def test_every_client_error_class_is_exported():
    classes = {name for name, obj in inspect.getmembers(errors, inspect.isclass)
               if issubclass(obj, Exception) and obj.__module__ == errors.__name__}
    assert {"PermissionDeniedError", "InternalError", "UnauthenticatedError", "CancelledError"} <= classes
    assert classes <= set(client.__all__)
    assert all(getattr(client, name) is getattr(errors, name) for name in classes)
