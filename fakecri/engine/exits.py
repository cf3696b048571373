"""Exit codes and the reasons a runtime reports with them, in one table.

containerd reports `Completed` for an exit code of 0, `Error` for any other code of a
process that ended or was killed, `OOMKilled` when the kernel's OOM killer ended it
(always with 137), and `StartError` (code 128) for a task that never started.
"""
from __future__ import annotations

EXIT_KILLED = 137  # 128 + SIGKILL
EXIT_START_ERROR = 128  # what containerd reports for a task that never started

COMPLETED = "Completed"
ERROR = "Error"
OOM_KILLED = "OOMKilled"
START_ERROR = "StartError"


def reason_for(exit_code: int, *, oom: bool = False) -> str:
    """The reason containerd reports with `exit_code`; `oom`: the OOM killer ended it."""
    if oom:
        return OOM_KILLED
    return COMPLETED if exit_code == 0 else ERROR
