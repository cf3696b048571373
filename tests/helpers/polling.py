"""The one loop behind the tests' waits: ask a condition again until it holds or time is up.
Each wait keeps its own defaults and its own way of failing; only the asking is shared."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def first_true(check: Callable[[], T], timeout: float, step: float) -> T | None:
    """`check()`'s first true answer, asked every `step` seconds until `timeout` seconds have
    passed (and once as they pass); None when it gave none."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            return None
        time.sleep(step)


async def await_true(check: Callable[[], object], timeout: float = 3.0, step: float = 0.01) -> None:
    """On the running event loop: return once `check()` holds; AssertionError after `timeout`
    seconds of the loop's clock."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not check():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(step)
