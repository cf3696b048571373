"""The suite's outputs: a one-line-per-property table, a JSON report, a JUnit XML file."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fakecri.conformance.runner import SuiteResult

MARK = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}


def table(result: SuiteResult, *, width: int = 110) -> str:
    """Plain text: a header, one line per property, then every failure's call sequence."""
    name_w = max(len(r.name) for r in result.results)
    lines = [
        f"fakecri conformance: {result.endpoint}  profile={result.profile}  examples={result.examples}  "
        f"seed={result.seed}  run={result.run_id}  {result.seconds:.1f}s",
        "",
        f"{'property':<{name_w}}  level   result  reason",
    ]
    for r in result.results:
        reason = r.reason if len(r.reason) <= width else r.reason[: width - 3] + "..."
        lines.append(f"{r.name:<{name_w}}  {r.level:<6}  {MARK[r.status]:<6}  {reason}")
    failed = [r for r in result.results if r.status == "fail"]
    for r in failed:
        kind = "minimal call sequence (shrunk by Hypothesis)" if r.shrunk else "call sequence"
        lines += ["", f"{r.name} ({r.level}) failed {r.violations}x: {r.reason}", f"  {kind}:"]
        lines += [f"    {i + 1:>3}. {call}" for i, call in enumerate(r.counterexample)]
    if result.leftovers:
        lines += ["", "cleanup could not remove:"] + [f"  {x}" for x in result.leftovers]
    counts = {s: sum(1 for r in result.results if r.status == s) for s in MARK}
    must_fail = len(result.must_failures)
    lines += ["", f"{counts['pass']} passed, {counts['fail']} failed ({must_fail} MUST), {counts['skip']} skipped"]
    return "\n".join(lines)


def to_json(result: SuiteResult) -> str:
    return json.dumps(result.as_dict(), indent=2, sort_keys=False)


def to_junit(result: SuiteResult) -> str:
    """One <testcase> per property in one <testsuite>; skips and failures as JUnit marks them."""
    suite = ET.Element("testsuite", {
        "name": "fakecri-conformance",
        "tests": str(len(result.results)),
        "failures": str(sum(1 for r in result.results if r.status == "fail")),
        "skipped": str(sum(1 for r in result.results if r.status == "skip")),
        "errors": "0",
        "time": f"{result.seconds:.3f}",
    })
    props = ET.SubElement(suite, "properties")
    for key, value in (("endpoint", result.endpoint), ("profile", result.profile), ("run_id", result.run_id),
                       ("seed", str(result.seed)), ("examples", str(result.examples))):
        ET.SubElement(props, "property", {"name": key, "value": value})
    for r in result.results:
        case = ET.SubElement(suite, "testcase", {"classname": f"fakecri.conformance.{r.level}", "name": r.name})
        if r.status == "fail":
            fail = ET.SubElement(case, "failure", {"message": r.reason})
            fail.text = "\n".join(r.counterexample)
        elif r.status == "skip":
            ET.SubElement(case, "skipped", {"message": r.reason})
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
