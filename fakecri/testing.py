"""FakeCRI: a running fakecri with its endpoint and control API at hand.

What the pytest plugin's `fakecri` and `make_fakecri` fixtures hand out; usable
without pytest too: `FakeCRI.start(seed=7)` ... `.stop()`.
"""
from __future__ import annotations

import re
from typing import Any


class FakeCRI:
    """A running fakecri: the server, its endpoint and its control API.

    Control calls not defined here (exit_container, oom_kill, set_condition, restart,
    advance_clock, call_log, fault_log, list_faults, remove_fault, server_info, ...)
    go to the ControlClient in `.control`.
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        self._control: Any = None

    @classmethod
    def start(cls, **config: Any) -> FakeCRI:
        """Start a FakeCRIServer (ServerConfig fields as keywords) on a background thread."""
        from fakecri.server.app import FakeCRIServer

        return cls(FakeCRIServer(**config).start())

    @property
    def endpoint(self) -> str:
        return self.server.endpoint

    @property
    def state(self) -> Any:
        return self.server.state

    @property
    def seed(self) -> int:
        return self.server.config.seed

    @property
    def control(self) -> Any:
        if self._control is None:
            from fakecri.control_client import ControlClient

            self._control = ControlClient(self.server.control_endpoint)
        return self._control

    def add_fault(self, fault: Any) -> list[dict[str, Any]]:
        """Add faults given as a dict, a Fault, or a flag string; returns them as stored."""
        return [self.control.add_fault(f) for f in faults_from_spec(fault)]

    def add_quirks(self, *names: str) -> list[dict[str, Any]]:
        return self.add_fault(f"--quirks {','.join(names)}")

    def reset(self) -> None:
        """Forget state, faults, clock, call log and counters."""
        self.server.reset()

    def client(self, **kwargs: Any) -> Any:
        """A new CRIClient on this server (close it when done)."""
        from fakecri.client.sync_client import CRIClient

        return CRIClient(self.endpoint, **kwargs)

    def check(self) -> None:
        """Raise if a handler raised inside the server since the last reset."""
        self.server.check()

    def stop(self) -> None:
        if self._control is not None:
            self._control.close()
            self._control = None
        self.server.stop()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.control, name)

    def __repr__(self) -> str:
        return f"<FakeCRI {self.endpoint} seed={self.seed}>"

    def __enter__(self) -> FakeCRI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def faults_from_spec(spec: Any) -> list[Any]:
    """One marker/fixture fault item -> Fault objects. Accepts a Fault, a dict with the
    control proto's keys, or a serve flag such as '--latency ListContainers=200ms'."""
    from fakecri.fault_flags import STRING_FLAGS, parse_fault_flag
    from fakecri.faults.model import Fault, FaultSpecError

    if isinstance(spec, Fault):
        return [spec]
    if isinstance(spec, dict):
        return [Fault.from_dict(spec)]
    if isinstance(spec, str):
        match = re.fullmatch(r"(--[a-z-]+)(?:=|\s+)(.+)", spec.strip(), re.S)
        flag, value = match.groups() if match else ("", "")
        if flag not in STRING_FLAGS or not value.strip():
            raise FaultSpecError(
                f"fakecri fault {spec!r}: write it as a serve flag, one of "
                + ", ".join(f"'{f} VALUE'" for f in STRING_FLAGS)
            )
        return parse_fault_flag(flag, value.strip())
    raise FaultSpecError(f"fakecri fault {spec!r}: give a dict, a Fault or a flag string")
