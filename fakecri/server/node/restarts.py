"""A simulated restart of the runtime daemon: streams dropped, calls refused for a while.

A restart comes from the control API (RestartRuntime), from a `restart` fault on an RPC
(see call_wrapper), or from a restart fault added with no trigger point, which happens
as soon as it is added.
"""
from __future__ import annotations

import asyncio

from fakecri.server.node.node import Node


async def restart(node: Node, downtime_s: float, wipe: bool) -> None:
    """Close every event stream and answer UNAVAILABLE for `downtime_s`; `wipe` forgets
    sandboxes and containers, as a runtime that lost its state would."""
    node.count("restarts")
    node.bus.close_all("UNAVAILABLE", "the runtime is restarting")
    loop = asyncio.get_running_loop()
    node.down_until = loop.time() + downtime_s
    if wipe:
        node.wipe()
    node.log.warning("runtime restart", downtime_s=downtime_s, wipe=wipe)
    if node.on_availability is not None:
        await node.on_availability(False)
        loop.call_later(downtime_s, _maybe_back_up, node)


def _maybe_back_up(node: Node) -> None:
    """End of a restart's downtime (unless a later restart extended it): serving again."""
    if node.on_availability is not None and asyncio.get_running_loop().time() >= node.down_until:
        asyncio.ensure_future(node.on_availability(True))


async def apply_pending_restart(node: Node) -> None:
    """A restart fault with no trigger point happens as soon as it is added."""
    action = node.plan.take_restart()
    if action is not None:
        await restart(node, action.downtime_s, action.wipe)
