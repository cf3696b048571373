"""What the SPDY and WebSocket handlers do with the tasks of a finished session."""
from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def cancel_tasks(*tasks: asyncio.Task[Any] | None) -> None:
    """Cancel the tasks still running (None and finished ones are skipped) and wait for
    each to end; what they raise on the way out is theirs to swallow."""
    live = [t for t in tasks if t is not None and not t.done()]
    for task in live:
        task.cancel()
    for task in live:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
