"""Scripts drawn from the grammar (grammar.py) give in a fakecri container what they give the
real busybox. A modest derandomized run in the default suite; `--run-slow` runs many more
(scripts/shell_match.py measures the match rate over thousands)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from .compare import Case
from .grammar import scripts

_SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)


def _judge(judge, script: str) -> None:
    outcome = judge.judge(Case("generated", "generated", script))
    assert outcome.match, outcome.describe(width=2000)


# No shrinking in the default suite: the first mismatching script is shown as drawn, so a red run
# stays about as short as a green one (the slow variant shrinks).
@settings(max_examples=150, phases=[Phase.explicit, Phase.reuse, Phase.generate], **_SETTINGS)
@given(script=scripts())
def test_generated_scripts_do_what_busybox_does(judge, script):
    _judge(judge, script)


@pytest.mark.slow
@settings(max_examples=2000, **_SETTINGS)
@given(script=scripts())
def test_many_generated_scripts_do_what_busybox_does(judge, script):
    _judge(judge, script)
