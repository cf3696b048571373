"""Run the real critest against a fakecri and read its ginkgo JSON report."""
from __future__ import annotations

import json
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

# The specs that need nothing but the CRI API (no real processes, networking or kernel
# features behind it). Each must pass against fakecri; the regex is ginkgo's focus.
API_LEVEL_FOCUS = (
    r"Runtime info|Idempotence|basic operations on PodSandbox|Image Manager|Image Consistency|"
    r"Image Identifier Consistency|should support (creating|starting|stopping|removing (created|running|stopped)) "
    r"container \[|preserving container attributes|container stats|stats for|RunAsGroup is set without RunAsUser|"
    r"UserNamespaces .*should fail|reject a recursive readonly mount|fail with an unloaded apparmor_profile|reopen"
)


@dataclass(frozen=True)
class SpecResult:
    name: str
    state: str  # passed, failed, skipped, pending, timedout, interrupted...
    message: str
    seconds: float


@dataclass
class CritestRun:
    returncode: int
    specs: list[SpecResult]
    output: str

    def by_state(self, state: str) -> list[SpecResult]:
        return [s for s in self.specs if s.state == state]

    def counts(self) -> Counter:
        return Counter(s.state for s in self.specs)

    def table(self) -> str:
        """A Markdown table: one row per spec with its state and, when it did not pass, why."""
        rows = ["| spec | result | reason |", "|---|---|---|"]
        for s in sorted(self.specs, key=lambda s: (s.state != "failed", s.state, s.name)):
            reason = " ".join(s.message.split())[:220].replace("|", "\\|")
            rows.append(f"| {s.name.replace('|', chr(92) + '|')} | {s.state} | {reason} |")
        return "\n".join(rows)


def run_critest(binary: Path, socket: str, report: Path, *, focus: str | None = None,
                timeout: float = 300, spec_timeout: str = "2m") -> CritestRun:
    """Run critest on `socket` (the CRI and image endpoint) under a hard `timeout`."""
    endpoint = "unix://" + socket
    args = [str(binary), "--runtime-endpoint", endpoint, "--image-endpoint", endpoint,
            f"--ginkgo.timeout={spec_timeout}", "--ginkgo.no-color", f"--ginkgo.json-report={report}"]
    if focus:
        args.append(f"--ginkgo.focus={focus}")
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=report.parent)
    specs = []
    for suite in json.loads(report.read_text()):
        for spec in suite.get("SpecReports") or []:
            if spec.get("LeafNodeType") != "It":
                continue
            name = " ".join([*spec.get("ContainerHierarchyTexts", []), spec.get("LeafNodeText", "")])
            failure = spec.get("Failure") or {}
            specs.append(SpecResult(name, spec["State"], failure.get("Message", ""), spec.get("RunTime", 0) / 1e9))
    return CritestRun(done.returncode, specs, done.stdout + done.stderr)
