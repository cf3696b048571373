"""The flag grammar and faults files."""
import json

import pytest

from fakecri.faults import (
    Fault,
    FaultSpecError,
    load_faults_file,
    parse_drop_events,
    parse_error,
    parse_latency,
    parse_quirks,
)


def test_drop_events_percent_and_fraction():
    assert parse_drop_events("5%") == Fault(type="drop_events", toxicity=0.05)
    assert parse_drop_events("0.05").toxicity == pytest.approx(0.05)


@pytest.mark.parametrize("text, match", [("0%", "drops nothing"), ("5", "write 5%"), ("x", "not a probability")])
def test_drop_events_rejects(text, match):
    with pytest.raises(FaultSpecError, match=match):
        parse_drop_events(text)


def test_latency_with_jitter_in_both_spellings():
    a, = parse_latency("ListContainers=200ms±50ms")
    b, = parse_latency("ListContainers=200ms+-50ms")
    assert a == b
    assert (a.type, a.target, a.stage, a.attributes) == (
        "latency", "ListContainers", "before", {"delay": "200ms", "jitter": "50ms"})


def test_latency_items_globs_stage_percent_and_count():
    faults = parse_latency("*Sandbox*/after=1s@50%#3, Status=10ms")
    assert [(f.target, f.stage, f.toxicity, f.count, f.attributes) for f in faults] == [
        ("*Sandbox*", "after", 0.5, 3, {"delay": "1s"}),
        ("Status", "before", 1.0, 0, {"delay": "10ms"}),
    ]


def test_latency_without_a_target_applies_to_every_method():
    f, = parse_latency("300ms")
    assert f.target == "*"


@pytest.mark.parametrize("text, match", [
    ("ListContainers=200", "needs a unit"),
    ("ListContainers=fast", "not a duration"),
    ("ListContainers=1s±2s±3s", "DELAY or DELAY±JITTER"),
    ("ListContainers=1s:why", "no ':message'"),
    ("ListContainer=1s", "did you mean ListContainers"),
    ("=1s", "use '\\*' for every method"),
    ("ListContainers=1s,,Status=1s", "empty"),
    ("", "empty value"),
    ("ListContainers/later=1s", "stage 'later'"),
])
def test_latency_rejects(text, match):
    with pytest.raises(FaultSpecError, match=match):
        parse_latency(text)


def test_error_full_form():
    f, = parse_error("RunPodSandbox=UNAVAILABLE@10%")
    assert (f.type, f.target, f.stage, f.toxicity, f.count, f.attributes) == (
        "error", "RunPodSandbox", "before", 0.1, 0, {"code": "UNAVAILABLE"})
    g, = parse_error("CreateContainer/after=internal#2@25%:disk full")
    assert (g.stage, g.toxicity, g.count, g.attributes) == (
        "after", 0.25, 2, {"code": "INTERNAL", "message": "disk full"})


def test_error_messages_may_hold_commas_and_items_still_split():
    faults = parse_error("RunPodSandbox=UNAVAILABLE:busy, try later,Status=14")
    assert [f.attributes for f in faults] == [
        {"code": "UNAVAILABLE", "message": "busy, try later"}, {"code": "UNAVAILABLE"}]


@pytest.mark.parametrize("text, match", [
    ("RunPodSandbox", "expected TARGET=CODE"),
    ("RunPodSandbox=OK", "cannot answer OK"),
    ("RunPodSandbox=UNAVAILBLE", "did you mean UNAVAILABLE"),
    ("RunPodSandbox=UNAVAILABLE@0%", "never fire"),
    ("RunPodSandbox=UNAVAILABLE@5%@6%", "given twice"),
    ("RunPodSandbox=UNAVAILABLE#0", "at least 1"),
    ("RunPodSandbox=UNAVAILABLE@150%", "more than 100%"),
    ("RunPodSandbox=", "nothing after '='"),
])
def test_error_rejects(text, match):
    with pytest.raises(FaultSpecError, match=match):
        parse_error(text)


def test_quirks():
    faults = parse_quirks("created-at-seconds, resize-not-applied,created-at-seconds")
    assert [f.attributes["name"] for f in faults] == ["created-at-seconds", "resize-not-applied"]
    assert {f.type for f in faults} == {"quirk"}
    with pytest.raises(FaultSpecError, match="did you mean stopped-before-started"):
        parse_quirks("stoped-before-started")


def test_yaml_file(tmp_path):
    path = tmp_path / "faults.yaml"
    path.write_text(
        "- name: flaky-list\n  type: error\n  target: List*\n  toxicity: 10%\n"
        "  attributes: {code: UNAVAILABLE}\n"
        "- type: restart\n  target: CreateContainer\n  attributes: {at: 3, wipe: true}\n"
    )
    faults = load_faults_file(path)
    assert faults[0] == Fault(name="flaky-list", type="error", target="List*", toxicity=0.1,
                              attributes={"code": "UNAVAILABLE"})
    assert faults[1].attributes == {"at": "3", "wipe": "true"}


def test_json_file_with_a_faults_key(tmp_path):
    path = tmp_path / "faults.json"
    path.write_text(json.dumps({"faults": [Fault(type="hang", target="Status").to_dict()]}))
    assert load_faults_file(path) == [Fault(type="hang", target="Status")]


def test_file_of_unknown_suffix_is_read_as_json_or_yaml(tmp_path):
    path = tmp_path / "faults.conf"
    path.write_text("- type: drop_events\n  toxicity: 0.5\n")
    assert load_faults_file(path)[0].toxicity == 0.5


@pytest.mark.parametrize("name, text, match", [
    ("a.json", "[{", "not valid JSON"),
    ("a.yaml", "- {type: [", "not valid YAML"),
    ("a.yaml", "type: error", "expected a list of faults"),
    ("a.yaml", "- type: error\n- type: latency", "fault #2: fault \\(latency\\): attribute 'delay' is required"),
    ("a.yaml", "- {name: x, type: hang}\n- {name: x, type: hang}", "name 'x' is used twice"),
])
def test_bad_files(tmp_path, name, text, match):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(FaultSpecError, match=match):
        load_faults_file(path)


def test_missing_file(tmp_path):
    with pytest.raises(FaultSpecError, match="cannot read it"):
        load_faults_file(tmp_path / "nope.yaml")


def test_faults_from_collects_every_flag_in_the_registry_order(tmp_path):
    from fakecri.faults.flags import faults_from

    path = tmp_path / "f.json"
    path.write_text(json.dumps([{"type": "hang", "target": "Status"}]))
    faults = faults_from({"drop_events": "5%", "latency": ["Status=1s", "Version=2s"],
                          "error": ["RunPodSandbox=UNAVAILABLE"], "quirks": "created-at-seconds", "faults": str(path)})
    assert [f.type for f in faults] == ["drop_events", "latency", "latency", "error", "hang", "quirk"]
    with pytest.raises(FaultSpecError) as exc:
        faults_from({"latency": ["Status=soon"]})
    assert exc.value.flag == "--latency"


def test_file_toxicity_zero_is_refused_rather_than_read_as_always(tmp_path):
    path = tmp_path / "f.yaml"
    path.write_text("- type: drop_events\n  toxicity: 0\n")
    with pytest.raises(FaultSpecError, match="toxicity 0 would mean 'always'"):
        load_faults_file(path)


def test_the_flag_registry_gives_help_keys_and_strings_for_every_flag():
    from fakecri.faults.flags import FAULT_FLAGS, STRING_FLAGS, epilog

    assert [f.flag for f in FAULT_FLAGS] == ["--drop-events", "--latency", "--error", "--faults", "--quirks",
                                             "--recipe"]
    assert [f.key for f in FAULT_FLAGS] == ["drop_events", "latency", "error", "faults", "quirks", "recipe"]
    assert "--faults" not in STRING_FLAGS  # a file name means little in a marker
    assert "created-at-seconds" in FAULT_FLAGS[-2].help
    assert "events-disabled" in FAULT_FLAGS[-1].help
    assert all(f.flag in epilog() for f in FAULT_FLAGS)
