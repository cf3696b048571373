"""The suite's verdicts (one PropertyResult per property, gathered in a SuiteResult)
and their outputs: a one-line-per-property table, a JSON report, a JUnit XML file."""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

from fakecri.conformance.properties import MUST

PASS, FAIL, SKIP = "pass", "fail", "skip"
MARK = {PASS: "PASS", FAIL: "FAIL", SKIP: "SKIP"}


@dataclass
class PropertyResult:
    name: str
    level: str
    item: str
    source: str
    proof: str
    status: str = PASS
    reason: str = ""
    violations: int = 0
    counterexample: list[str] = field(default_factory=list)
    shrunk: bool = False
    partly_shrunk: bool = False  # shrinking began but stopped at the shrink budget
    exercises: int = 0  # how often the property was actually checked
    follows_from: str = ""  # the failing property whose cause explains this failure
    basis: str = ""  # what the property rests on: the CRI's words (MUST) or a kubelet's code (SHOULD)

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("name", "level", "item", "status", "reason", "violations",
                                               "counterexample", "shrunk", "partly_shrunk", "exercises", "follows_from",
                                               "source", "proof", "basis")}


@dataclass
class SuiteResult:
    endpoint: str
    profile: str
    run_id: str
    seed: int | None
    examples: int
    seconds: float
    results: list[PropertyResult]
    leftovers: list[str] = field(default_factory=list)
    causes: list[str] = field(default_factory=list)  # "events are missing (events-complete); these follow ..."
    # `examples` counts every example run to its end; of those, `random_examples` are the
    # ones Hypothesis counts towards --max-examples, one is the scripted example (if run),
    # and `cut_short` ran out of choices and were discarded by Hypothesis.
    random_examples: int = 0
    scripted: bool = False
    cut_short: int = 0

    def examples_text(self) -> str:
        """The examples judged, as one count and its parts ("23 (1 scripted + 20 random + 2
        more Hypothesis cut short)"): the same count the verdicts say they held over."""
        parts = (["1 scripted"] if self.scripted else []) + [f"{self.random_examples} random"]
        if self.cut_short:
            parts.append(f"{self.cut_short} more Hypothesis cut short")
        return f"{self.examples} ({' + '.join(parts)})"

    @property
    def must_failures(self) -> list[PropertyResult]:
        return [r for r in self.results if r.status == FAIL and r.level == MUST]

    def failed(self, strict: bool = False) -> bool:
        return any(r.status == FAIL and (strict or r.level == MUST) for r in self.results)

    def by_name(self, name: str) -> PropertyResult:
        return next(r for r in self.results if r.name == name)

    def table(self) -> str:
        return table(self)

    def as_dict(self) -> dict[str, Any]:
        return {"endpoint": self.endpoint, "profile": self.profile, "run_id": self.run_id, "seed": self.seed,
                "examples": self.examples, "random_examples": self.random_examples, "scripted": self.scripted,
                "cut_short": self.cut_short, "seconds": round(self.seconds, 2), "leftovers": self.leftovers,
                "causes": self.causes,
                "properties": [r.as_dict() for r in self.results]}


READ_ONLY = ("List", "Stream", "ContainerStatus", "PodSandboxStatus", "ImageStatus", "Version", "Status")


def relevant_calls(calls: list[str], message: str) -> list[str]:
    """The calls a failure needs: the sync sentinels, read-only calls (lists, streams,
    statuses) the message does not name, and clean-up calls on objects the message
    does not name are left out."""
    out = []
    for call in calls:
        rpc = call.split("(", 1)[0]
        if "# sync" in call:
            continue
        if rpc.startswith(READ_ONLY) and rpc not in message:
            continue
        if call.endswith("# cleanup"):
            target = re.match(r"\w+\(([^,)]+)", call)
            if target is None or not re.search(rf"(?<![\w-]){re.escape(target.group(1))}(?![\w-])", message):
                continue
        out.append(call)
    return out


def table(result: SuiteResult) -> str:
    """Plain text: a header, one line per property (reasons in full), the causes, then
    every failure's call sequence."""
    name_w = max(len(r.name) for r in result.results)
    lines = [
        f"fakecri conformance: {result.endpoint}  profile={result.profile}  examples={result.examples_text()}  "
        f"seed={result.seed}  run={result.run_id}  {result.seconds:.1f}s",
        "",
        f"{'property':<{name_w}}  level   result  reason",
    ]
    for r in result.results:
        lines.append(f"{r.name:<{name_w}}  {r.level:<6}  {MARK[r.status]:<6}  {r.reason}")
    if result.causes:
        lines += ["", "causes:"] + [f"  {c}" for c in result.causes]
    failed = [r for r in result.results if r.status == "fail"]
    for r in failed:
        kind = "minimal call sequence (shrunk by Hypothesis)" if r.shrunk else \
            "call sequence (partly shrunk: the shrink budget ran out)" if r.partly_shrunk else "call sequence"
        after = f" (follows from {r.follows_from})" if r.follows_from else ""
        lines += ["", f"{r.name} ({r.level}) failed {r.violations}x{after}: {r.reason}",
                  f"  {kind}, without the sync, read-only and clean-up calls the failure does not name:"]
        lines += [f"    {i + 1:>3}. {call}" for i, call in enumerate(r.counterexample)]
    if result.leftovers:
        lines += ["", "cleanup could not remove:"] + [f"  {x}" for x in result.leftovers]
    counts = {s: sum(1 for r in result.results if r.status == s) for s in MARK}
    must_fail = len(result.must_failures)
    lines += ["", f"{counts['pass']} passed, {counts['fail']} failed ({must_fail} MUST), {counts['skip']} skipped"]
    return "\n".join(lines)


def to_json(result: SuiteResult) -> str:
    return json.dumps(result.as_dict(), indent=2, sort_keys=False)


def to_json_lines(result: SuiteResult, *, strict: bool = False) -> list[str]:
    """One JSON object per property verdict (`"kind": "verdict"`), then a summary
    (`"kind": "summary"`), one per line: what `fakecri conformance --json` prints."""
    lines = [json.dumps({"kind": "verdict", **r.as_dict()}) for r in result.results]
    counts = {s: sum(1 for r in result.results if r.status == s) for s in MARK}
    summary = {k: v for k, v in result.as_dict().items() if k != "properties"}
    summary.update(kind="summary", passed=counts[PASS], failed_count=counts[FAIL], skipped=counts[SKIP],
                   must_failed=len(result.must_failures), failed=result.failed(strict))
    lines.append(json.dumps(summary))
    return lines


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
