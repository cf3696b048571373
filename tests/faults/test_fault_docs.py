"""The examples in docs/faults.md are valid, and its tables list exactly the registry's types, quirks,
recipes and flags."""
import re
from pathlib import Path

import pytest

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
from fakecri.faults.flags import FAULT_FLAGS
from fakecri.faults.ftype import CALL, EVENT, PULL, RESTART
from fakecri.faults.registry import ALL, TYPES
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


# ---- the page's tables list exactly the registry (fakecri.faults.registry), in its order ----


def _section(title_start: str) -> str:
    """The text of the `###` section whose title starts with `title_start`."""
    text = DOC.read_text()
    match = re.search(rf"^### {re.escape(title_start)}.*?$(.*?)(?=^##)", text, re.S | re.M)
    assert match, f"docs/faults.md lost its section {title_start!r}"
    return match.group(1)


def _rows(section: str) -> dict[str, str]:
    """First-column name (in backquotes) -> the whole row, for each row of the section's table."""
    rows = re.findall(r"^\| `([^`]+)` \|(.*)$", section, re.M)
    return dict(rows)


@pytest.mark.parametrize("title, families", [
    ("RPC faults", (CALL, RESTART)), ("Event faults", (EVENT,)), ("Image faults", (PULL,)),
])
def test_each_type_table_lists_exactly_its_family(title, families):
    rows = _rows(_section(title))
    assert list(rows) == [t.name for t in ALL if t.kind in families]
    for name, row in rows.items():
        cell = row.split("|")[0]
        listed = set(re.findall(r"`(\w+)`", cell)) & set(TYPES[name].attributes)
        assert listed == set(TYPES[name].attributes), f"{name}: the attributes column leaves out " \
            f"{sorted(set(TYPES[name].attributes) - listed)}"


def test_the_one_type_sections_name_the_rest():
    tabled = {name for title in ("RPC faults", "Event faults", "Image faults") for name in _rows(_section(title))}
    headed = set(re.findall(r"^### .*type `(\w+)`", DOC.read_text(), re.M))
    assert sorted(tabled | headed) == sorted(TYPE_NAMES)
    assert not tabled & headed


def test_the_quirk_and_recipe_tables_list_exactly_the_registry():
    assert list(_rows(_section("Quirks"))) == list(QUIRK_NAMES)
    assert list(_rows(_section("Recipes"))) == list(RECIPE_NAMES)


def _references(cell: str) -> list[str]:
    """`owner/repo#N, #M` -> the full references, a bare `#M` taking the repository before it."""
    out, repo = [], ""
    for full, number in re.findall(r"([\w.-]+/[\w.-]+)?#(\d+)", cell):
        repo = full or repo
        out.append(f"{repo}#{number}")
    return out


def test_each_recipe_row_names_its_faults_and_references():
    from fakecri.faults.kinds.quirk import QUIRK
    from fakecri.faults.recipes import RECIPES

    for name, row in _rows(_section("Recipes")).items():
        faults_cell, references_cell = row.split("|")[:2]
        named = set(re.findall(r"`([^`]+)`", faults_cell))
        made_of = {f.attributes["name"] if f.type == QUIRK.name else f.type for f in RECIPES[name].faults}
        assert made_of <= named, f"{name}: the faults column leaves out {sorted(made_of - named)}"
        assert _references(references_cell) == list(RECIPES[name].reference), name


def test_the_bug_lab_names_every_recipe_and_no_other():
    text = (DOC.parent / "bug-lab.md").read_text()
    assert [r for r in RECIPE_NAMES if f"`{r}`" not in text and f"--recipe {r}" not in text] == []
    asked = set(re.findall(r"--recipe ([a-z0-9][\w.-]*[a-z0-9])", text))
    assert asked - set(RECIPE_NAMES) == set()


def test_the_flag_summary_lists_exactly_the_serve_flags():
    block = re.search(r"## Command-line flags.*?```\n(.*?)```", DOC.read_text(), re.S)
    assert block
    listed = [line.split()[0] for line in block.group(1).splitlines() if line.strip()]
    assert sorted(listed) == sorted(f.flag for f in FAULT_FLAGS)


def test_every_serve_flag_is_a_types_own_or_the_file():
    from fakecri.faults.spec import FILE_FLAG

    owned = [t.flag for t in ALL if t.flag is not None]
    assert sorted(f.flag for f in FAULT_FLAGS) == sorted([*(f.flag for f in owned), FILE_FLAG.flag])


def test_the_defaults_the_type_tables_give_are_the_registrys():
    checked = 0
    for title in ("RPC faults", "Event faults", "Image faults"):
        for name, row in _rows(_section(title)).items():
            for attr, quoted, number in re.findall(r"`(\w+)` \(default (?:`([^`]*)`|(\d+)\b)", row):
                assert TYPES[name].attributes[attr].default == (quoted or number), f"{name}.{attr}"
                checked += 1
    assert checked >= 8
