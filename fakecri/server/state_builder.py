"""Build a server's state from its ServerConfig, and build it again on a control Reset.

The parts refer to each other: the runtime reports events to the encoder, the encoder
reads the runtime in force and publishes on the bus, and a fault that fires is counted
in the state. This module makes them in that order and wires them together, so the
state itself (state.py) only holds them.
"""
from __future__ import annotations

import asyncio
import hashlib
import os
from typing import Any

from fakecri.engine.clock import Clock, FakeClock, SystemClock
from fakecri.engine.ids import IdSource, RandomIds
from fakecri.engine.images import Catalog, ImageStore
from fakecri.engine.limits import Limits
from fakecri.engine.runtime import Runtime
from fakecri.faults.plan import FaultPlan
from fakecri.server.config import ServerConfig
from fakecri.server.events.encoder import EventEncoder
from fakecri.server.ports import PortListeners
from fakecri.server.state import ServerState


# Drawn once per process: mixed into the id stream so that a restarted fakecri never hands out
# the ids of an earlier one (a kubelet that lived through the restart still holds those).
BOOT_NONCE = os.urandom(16).hex()


def id_source(config: ServerConfig, boot_nonce: str = BOOT_NONCE) -> RandomIds:
    """Ids from the seed: the same sequence on every start with `deterministic_ids`, otherwise
    the same only within one process (one boot)."""
    if config.deterministic_ids:
        return RandomIds(config.seed)
    mixed = hashlib.sha256(f"{config.seed}/{boot_nonce}".encode()).digest()
    return RandomIds(int.from_bytes(mixed, "big"))


def build_state(config: ServerConfig, *, clock: Clock | None = None, ids: IdSource | None = None) -> ServerState:
    clock = clock or (FakeClock() if config.fake_clock else SystemClock())
    catalog = Catalog.from_file(config.image_catalog) if config.image_catalog else None
    st = ServerState(config, clock, ids or id_source(config), catalog=catalog)
    st.plan = _new_plan(st)
    st.statuses.content_of = lambda c: st.runtime.content_of(c)
    st.ports = PortListeners(lambda: st.runtime, st.count)
    st.events = EventEncoder(st.plan, st.statuses, lambda: st.runtime, st.publish)
    st.images = new_images(st)
    st.runtime = new_runtime(st)
    return st


def _new_plan(st: ServerState) -> FaultPlan:
    def fired(record: Any) -> None:
        st.count(f"fault:{record.fault}")
        st.log.info("fault", fault=record.fault, type=record.type, hit=record.hit)

    plan = FaultPlan(st.config.seed, on_fire=fired, now_ns=st.clock.now_ns)
    for fault in st.config.faults:
        plan.add(fault)
    return plan


def runtime_options(st: ServerState) -> dict[str, Any]:
    """The keywords every Runtime of this server is made with (new or restored)."""
    cfg = st.config
    return dict(
        on_event=lambda ev: on_runtime_event(st, ev),
        log_sink=st.log_sink,
        pod_cidr=cfg.pod_cidr,
        runtime_handlers=cfg.runtime_handlers,
        limits=Limits(max_sandboxes=cfg.max_sandboxes, max_containers=cfg.max_containers),
        outbox_limit=0,  # events leave through on_event; nothing drains the outbox
        image_content=(st.catalog or Catalog()).content_of_reference,
    )


def on_runtime_event(st: ServerState, ev) -> None:
    """Every event of the runtime: to the event streams, and to the web servers' listeners."""
    st.events.on_event(ev)
    st.ports.on_event(ev)


def new_runtime(st: ServerState) -> Runtime:
    return Runtime(st.clock, st.ids, **runtime_options(st))


def new_images(st: ServerState) -> ImageStore:
    return ImageStore(st.clock, st.catalog, max_images=st.config.max_images)


def reset_state(st: ServerState) -> None:
    """Forget everything a test may have changed: state, faults, clock, logs, counters."""
    st.bus.reset()
    st.plan.reset()
    st.plan.clear_log()
    for fault in st.config.faults:
        st.plan.add(fault)
    if isinstance(st.clock, FakeClock):
        st.clock._now = st.initial_clock_ns
    st.images = new_images(st)
    st.ports.close_all()
    st.runtime = new_runtime(st)
    st.counters.clear()
    st.call_log.clear()
    st.server_errors.clear()
    st.down_until = 0.0
    if st.on_availability is not None:
        asyncio.ensure_future(st.on_availability(True))
    st.reschedule()
