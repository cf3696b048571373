"""Settings: TOML/YAML/JSON files, FAKECRI_* variables, precedence and errors."""
import json

import click
import pytest
from click.testing import CliRunner

from fakecri.settings import SettingsError, env_name, key_for_flag, load_settings, schema_from_click

KNOWN = {"seed", "drop_events", "latency", "socket", "fake_clock", "faults_file"}
LISTS = {"latency"}
ALIASES = {"faults": "faults_file"}


def load(path, env=None):
    return load_settings(str(path) if path else None, env or {}, KNOWN, list_keys=LISTS, aliases=ALIASES)


def test_key_and_env_names_follow_the_flag():
    assert key_for_flag("--drop-events") == "drop_events"
    assert env_name("drop_events") == "FAKECRI_DROP_EVENTS"


def test_toml_file(tmp_path):
    f = tmp_path / "fakecri.toml"
    f.write_text('seed = 7\ndrop-events = "5%"\nlatency = ["ListContainers=200ms", "Version=1ms"]\nfake_clock = true\n')
    assert load(f) == {"seed": 7, "drop_events": "5%", "latency": ["ListContainers=200ms", "Version=1ms"],
                       "fake_clock": True}


def test_yaml_and_json_files(tmp_path):
    y = tmp_path / "fakecri.yaml"
    y.write_text("seed: 3\nlatency: Version=1ms\nfaults: /etc/faults.yaml\nsocket: null\n")
    assert load(y) == {"seed": 3, "latency": ["Version=1ms"], "faults_file": "/etc/faults.yaml"}
    j = tmp_path / "fakecri.json"
    j.write_text(json.dumps({"seed": 4}))
    assert load(j) == {"seed": 4}


def test_environment_overrides_file_and_splits_lists(tmp_path):
    f = tmp_path / "fakecri.toml"
    f.write_text('seed = 7\ndrop_events = "5%"\n')
    env = {"FAKECRI_SEED": "9", "FAKECRI_LATENCY": "A=1ms, B=2ms,", "FAKECRI_ENDPOINT": "x", "HOME": "/root",
           "FAKECRI_SOCKET": ""}
    assert load(f, env) == {"seed": "9", "drop_events": "5%", "latency": ["A=1ms", "B=2ms"]}


def test_fakecri_config_variable_names_the_file(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("seed: 11\n")
    assert load(None, {"FAKECRI_CONFIG": str(f)}) == {"seed": 11}
    assert load(None, {}) == {}


@pytest.mark.parametrize(
    "name, text, fragment",
    [
        ("c.toml", "colour = 'red'\n", "unknown key 'colour'"),
        ("c.toml", "seed = [1, 2]\n", "key 'seed' takes one value"),
        ("c.toml", "[socket]\npath = 1\n", "key 'socket' must be"),
        ("c.toml", "latency = [{a = 1}]\n", "key 'latency' must be a list of plain values"),
        ("c.toml", "seed = \n", "not valid TOML"),
        ("c.yaml", "seed: [1\n", "not valid YAML"),
        ("c.yaml", "- 1\n- 2\n", "top level"),
        ("c.json", "{", "not valid JSON"),
        ("c.ini", "seed=1", "use a .toml"),
    ],
)
def test_bad_files_name_file_and_key(tmp_path, name, text, fragment):
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(SettingsError) as exc:
        load(f)
    assert str(f) in str(exc.value) and fragment in str(exc.value)


def test_missing_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(SettingsError, match="nope.toml"):
        load(tmp_path / "nope.toml")


@click.command()
@click.option("--config")
@click.option("--seed", type=int, default=0)
@click.option("--drop-events")
@click.option("--latency", multiple=True)
@click.option("--faults", "faults_file")
@click.option("--fake-clock", is_flag=True)
def demo(config, **kwargs):
    click.echo(json.dumps(kwargs, sort_keys=True))


def run_demo(tmp_path, args, env):
    f = tmp_path / "fakecri.yaml"
    f.write_text("seed: 1\ndrop_events: 1%\nlatency: [A=1ms]\nfaults: f.yaml\nfake_clock: true\n")
    default_map = load_settings(str(f), env, **schema_from_click(demo))
    result = CliRunner().invoke(demo, args, default_map=default_map)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_schema_from_click_reads_lists_and_aliases():
    schema = schema_from_click(demo)
    assert schema["known_keys"] == {"seed", "drop_events", "latency", "faults_file", "fake_clock"}
    assert schema["list_keys"] == {"latency"} and schema["aliases"] == {"faults": "faults_file"}


def test_precedence_flags_then_env_then_file_through_click(tmp_path):
    out = run_demo(tmp_path, [], {})
    assert out == {"seed": 1, "drop_events": "1%", "latency": ["A=1ms"], "faults_file": "f.yaml", "fake_clock": True}
    out = run_demo(tmp_path, [], {"FAKECRI_SEED": "2", "FAKECRI_LATENCY": "B=2ms,C=3ms", "FAKECRI_FAKE_CLOCK": "false"})
    assert out["seed"] == 2 and out["latency"] == ["B=2ms", "C=3ms"] and out["fake_clock"] is False
    out = run_demo(tmp_path, ["--seed", "3", "--latency", "D=4ms"], {"FAKECRI_SEED": "2"})
    assert out["seed"] == 3 and out["latency"] == ["D=4ms"] and out["drop_events"] == "1%"
