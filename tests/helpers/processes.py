"""Ending a process a test started: SIGTERM, as an operator would, then SIGKILL if it lingers."""
from __future__ import annotations

import signal
import subprocess


def end(proc: subprocess.Popen, timeout: float = 30) -> None:
    """SIGTERM `proc` (if it still runs), and SIGKILL it when it has not ended within `timeout`
    seconds; returns once it has ended."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
