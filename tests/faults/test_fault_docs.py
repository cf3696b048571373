"""The examples in docs/faults.md are valid, and it documents every type and quirk."""
import re
from pathlib import Path

from fakecri.faults import (
    QUIRK_NAMES,
    RECIPE_NAMES,
    TYPE_NAMES,
    FaultPlan,
    load_faults_file,
    parse_error,
    parse_latency,
    parse_recipes,
)
from fakecri.faults.spec import parse_quirks

DOC = Path(__file__).resolve().parents[2] / "docs" / "faults.md"


def test_yaml_examples_load_and_add(tmp_path):
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 2
    for i, block in enumerate(blocks):
        path = tmp_path / f"example{i}.yaml"
        path.write_text(block)
        plan = FaultPlan(0, now_ns=lambda: 0)
        for fault in load_faults_file(path):
            assert plan.add(fault).name


def test_flag_examples_parse():
    text = DOC.read_text()
    for value in re.findall(r"^--latency '([^']+)'$", text, re.M):
        assert parse_latency(value)
    for value in re.findall(r"^--error '([^']+)'$", text, re.M):
        assert parse_error(value)
    for value in re.findall(r"^--quirks (\S+)$", text, re.M):
        assert parse_quirks(value)
    for value in re.findall(r"^--recipe (\S+)$", text, re.M):
        assert parse_recipes(value)


def test_every_type_and_quirk_is_documented():
    text = DOC.read_text()
    assert [t for t in TYPE_NAMES if f"`{t}`" not in text] == []
    assert [q for q in QUIRK_NAMES if f"`{q}`" not in text] == []
    assert [r for r in RECIPE_NAMES if f"`{r}`" not in text] == []
