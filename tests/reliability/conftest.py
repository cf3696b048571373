"""Reliability suite settings.

Scale knobs (environment, so they work however pytest is started):
- FAKECRI_FUZZ_EXAMPLES: Hypothesis examples per RPC in the default run (default 12);
  the slow fuzz test uses FAKECRI_FUZZ_EXAMPLES_SLOW (default 300).
- FAKECRI_KILL_ITERATIONS: kill -9 rounds in the slow crash test (default 100).
- FAKECRI_SOAK_MINUTES: length of the soak test (default 5; it runs only with --run-slow).
"""
from __future__ import annotations

import os

from helpers.reliability import FIGURES, NOTES
from hypothesis import HealthCheck, settings

settings.register_profile(
    "reliability",
    max_examples=int(os.environ.get("FAKECRI_FUZZ_EXAMPLES", "12")),
    deadline=None,
    derandomize=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                           HealthCheck.function_scoped_fixture],
    database=None,
)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not FIGURES and not NOTES:
        return
    terminalreporter.section("fakecri reliability figures")
    for name in sorted(FIGURES):
        terminalreporter.write_line(f"{name}: {FIGURES[name]}")
    for name in sorted(NOTES):
        terminalreporter.write_line(f"{name}: {NOTES[name]}")
