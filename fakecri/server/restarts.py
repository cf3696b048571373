"""A simulated restart of the runtime daemon: streams dropped, calls refused for a while.

A restart comes from the control API (RestartRuntime), from a `restart` fault on an RPC
(see call_wrapper), or from a restart fault added with no trigger point, which happens
as soon as it is added.
"""
from __future__ import annotations

import asyncio

from fakecri.server.state import ServerState


async def restart(st: ServerState, downtime_s: float, wipe: bool) -> None:
    """Close every event stream and answer UNAVAILABLE for `downtime_s`; `wipe` forgets
    sandboxes and containers, as a runtime that lost its state would."""
    st.count("restarts")
    st.bus.close_all("UNAVAILABLE", "the runtime is restarting")
    loop = asyncio.get_running_loop()
    st.down_until = loop.time() + downtime_s
    if wipe:
        st.runtime.wipe()
        st.ports.close_all()
    st.log.warning("runtime restart", downtime_s=downtime_s, wipe=wipe)
    if st.on_availability is not None:
        await st.on_availability(False)
        loop.call_later(downtime_s, _maybe_back_up, st)


def _maybe_back_up(st: ServerState) -> None:
    """End of a restart's downtime (unless a later restart extended it): serving again."""
    if st.on_availability is not None and asyncio.get_running_loop().time() >= st.down_until:
        asyncio.ensure_future(st.on_availability(True))


async def apply_pending_restart(st: ServerState) -> None:
    """A restart fault with no trigger point happens as soon as it is added."""
    action = st.plan.take_restart()
    if action is not None:
        await restart(st, action.downtime_s, action.wipe)
