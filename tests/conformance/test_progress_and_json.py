"""`fakecri conformance` says what it does: the header counts the examples asked for,
a terminal shows a live line with the current call, `--json` streams one record per
verdict to stdout for CI."""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys

from fakecri.conformance import Options, run_suite
from fakecri.conformance.progress import TerminalProgress
from fakecri.server.process.app import FakeCRIServer

FAKECRI = [sys.executable, "-m", "fakecri.cli"]
QUICK = ["--steps", "2", "--no-shrink", "--property", "valid-calls-succeed", "--property", "event-order-per-container"]
ONE = ["valid-calls-succeed"]
PROBE = 0.2  # the in-process runs' streams work: any probe of them finds them open


def test_the_header_counts_the_examples_asked_for_and_says_what_else_ran():
    with FakeCRIServer() as server:
        result = run_suite(Options(endpoint=server.endpoint, max_examples=3, steps=3, shrink=False, properties=ONE,
                                   probe_wait=PROBE))
    assert result.random_examples == 3 and result.scripted
    header = result.table().splitlines()[0]
    total = 3 + 1 + result.cut_short
    assert result.examples == total
    cut = f" + {result.cut_short} more Hypothesis cut short" if result.cut_short else ""
    assert f"examples={total} (1 scripted + 3 random{cut})  " in header, header
    # The verdicts count the same examples the header does.
    assert f"held over {total} examples" in result.by_name("valid-calls-succeed").reason


def test_json_streams_one_record_per_verdict_and_a_summary():
    done = subprocess.run([*FAKECRI, "conformance", "--max-examples", "1", *QUICK, "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    verdicts = [r for r in records if r["kind"] == "verdict"]
    assert [v["name"] for v in verdicts] == ["valid-calls-succeed", "event-order-per-container"]
    assert all(v["status"] in ("pass", "fail", "skip") and v["level"] in ("MUST", "SHOULD") for v in verdicts)
    assert records[-1]["kind"] == "summary" and records[-1]["random_examples"] == 1
    assert records[-1]["failed"] is False and "passed" in records[-1]


def test_a_terminal_shows_the_example_and_the_call_being_made():
    out = io.StringIO()
    progress = TerminalProgress(file=out, total=2, force_terminal=True, width=120)
    with FakeCRIServer() as server:
        with progress:
            run_suite(Options(endpoint=server.endpoint, max_examples=2, steps=2, shrink=False, properties=ONE,
                              probe_wait=PROBE, progress=progress.phase, on_call=progress.call))
    text = out.getvalue()
    assert "random examples" in text and "RunPodSandbox(" in text
    assert re.search(r"\b[12]/2\b", text), text[-2000:]


def test_without_a_terminal_each_example_gets_a_line():
    done = subprocess.run([*FAKECRI, "conformance", "--max-examples", "2", *QUICK], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.search(r"example 1/2: \d+ calls", done.stderr) and re.search(r"example 2/2: \d+ calls", done.stderr), \
        done.stderr
