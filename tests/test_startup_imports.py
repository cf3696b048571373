"""What `fakecri serve` imports before its socket answers: the modules a server needs only
for some requests (YAML files, rich output, HTTP form uploads and dates, /metrics, the
streaming protocols, the conformance suite) wait for their first use. Each costs
milliseconds of every start, and a farm or a test session starts many."""
from __future__ import annotations

import subprocess
import sys

LATER = ("yaml", "rich", "email.parser", "email.utils", "prometheus_client", "hypothesis",
         "fakecri.conformance", "fakecri.server.streaming.spdy", "fakecri.server.streaming.websocket")


def test_serving_imports_nothing_it_needs_only_later():
    code = ("import sys\n"
            "import fakecri.cli.group, fakecri.cli.serving, fakecri.server.process.app, fakecri.server.process.farm\n"
            f"print(' '.join(m for m in {LATER!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == []
