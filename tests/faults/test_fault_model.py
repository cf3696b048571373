"""The Fault record, its dict form, and validation against the type registry."""
import pytest

from fakecri.faults import QUIRK_NAMES, TYPE_NAMES, Fault, FaultSpecError, validate
from fakecri.faults.model import FAULT_KEYS


def test_to_dict_has_the_proto_keys_and_round_trips():
    f = Fault(name="e", type="error", target="List*", stage="after", toxicity=0.25, count=3,
              attributes={"code": "INTERNAL"}, hits=2)
    d = f.to_dict()
    assert tuple(d) == FAULT_KEYS
    assert Fault.from_dict(d) == f


def test_from_dict_fills_defaults_and_reads_proto_json_forms():
    # MessageToDict writes int64 as strings and leaves out zero values.
    f = Fault.from_dict({"type": "latency", "count": "4", "attributes": {"delay": "1s"}})
    assert (f.stage, f.toxicity, f.count, f.hits, f.name) == ("before", 1.0, 4, 0, "")
    assert Fault.from_dict({"type": "drop_events", "toxicity": "5%"}).toxicity == pytest.approx(0.05)


def test_from_dict_turns_yaml_scalars_into_attribute_text():
    f = Fault.from_dict({"type": "restart", "attributes": {"wipe": True, "at": 3}})
    assert f.attributes == {"wipe": "true", "at": "3"}


@pytest.mark.parametrize("d, match", [
    ({"type": "error", "colour": "red"}, "unknown fault key"),
    ({"type": "error", "attributes": ["code"]}, "attributes must be a mapping"),
    ({"type": 3}, "type must be a string"),
    ({"type": "error", "count": "-1"}, "at least 0"),
    ("error", "must be a mapping"),
])
def test_from_dict_rejects(d, match):
    with pytest.raises(FaultSpecError, match=match):
        Fault.from_dict(d)


def test_validate_normalises_and_fills_defaults():
    normal, params = validate(Fault(type="error", stage="", toxicity=0.0))
    assert normal.stage == "before" and normal.toxicity == 1.0
    assert normal.attributes == {"code": "UNAVAILABLE", "message": ""}
    assert params == {"code": "UNAVAILABLE", "message": ""}


def test_every_type_validates_with_its_required_attributes():
    required = {
        "latency": {"delay": "1s"}, "delay_events": {"delay": "1s"}, "slow_pull": {"delay": "1s"},
        "quirk": {"name": QUIRK_NAMES[0]}, "condition": {"condition": "NetworkReady"},
        "recipe": {"name": "events-disabled"},
    }
    for type_name in TYPE_NAMES:
        normal, _ = validate(Fault(type=type_name, attributes=required.get(type_name, {})))
        assert normal.type == type_name


@pytest.mark.parametrize("fault, match", [
    (Fault(type="eror"), "unknown type 'eror' \\(did you mean error\\?\\)"),
    (Fault(type="error", toxicity=1.5), "toxicity 1.5 must be a probability"),
    (Fault(type="error", count=-2), "count -2"),
    (Fault(type="error", stage="during"), "stage 'during'"),
    (Fault(type="error", target="ListContainer"), "did you mean ListContainers"),
    (Fault(type="error", target="*Pods*"), "matches no CRI method"),
    (Fault(type="error", attributes={"cod": "INTERNAL"}), "unknown attribute\\(s\\) cod; error takes code, message"),
    (Fault(type="latency"), "attribute 'delay' is required"),
    (Fault(type="latency", attributes={"delay": "soon"}), "attribute 'delay': 'soon' is not a duration"),
    (Fault(type="drop_events", target="ListContainers"), "a target does not apply to drop_events"),
    (Fault(type="drop_events", stage="after"), "stage 'after' only applies to RPC faults"),
    (Fault(type="quirk", attributes={"name": "no-sandbox-deleted-events"}),
     "did you mean no-sandbox-deleted-event"),
    (Fault(type="quirk", toxicity=0.5, attributes={"name": "created-at-seconds"}), "toxicity does not apply"),
    (Fault(type="condition", count=2, attributes={"condition": "RuntimeReady"}), "count does not apply"),
    (Fault(type="condition", attributes={"condition": "DiskReady"}), "not one of RuntimeReady, NetworkReady"),
    (Fault(type="pull_error", attributes={"reason": "gone"}), "not_found, auth, rate_limited"),
    (Fault(type="cut_stream", attributes={"after": "-1"}), "at least 0"),
    (Fault(name="has space", type="hang"), "a name uses letters"),
])
def test_validate_rejects_with_a_message_naming_the_problem(fault, match):
    with pytest.raises(FaultSpecError, match=match):
        validate(fault)


def test_validate_names_the_fault_in_its_message():
    with pytest.raises(FaultSpecError, match="^fault 'slow' \\(latency\\): "):
        validate(Fault(name="slow", type="latency"))
