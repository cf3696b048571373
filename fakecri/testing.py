"""FakeCRI: a running fakecri with its endpoint and control API at hand.

What the pytest plugin's `fakecri` and `make_fakecri` fixtures hand out; usable
without pytest too: `FakeCRI.start(seed=7)` ... `.stop()`.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from fakecri.control_calls import ControlCalls

if TYPE_CHECKING:
    from fakecri.control_client import ControlClient

class FakeCRI(ControlCalls):
    """A running fakecri: the server, its endpoint and its control API.

    The control API's calls are methods here (ControlCalls': faults, scripted exits and stats,
    conditions, restarts, the clock, logs); `.control` is the ControlClient they go through.
    """

    def __init__(self, server: Any) -> None:
        self.server = server
        self._control: ControlClient | None = None

    @classmethod
    def start(cls, **config: Any) -> FakeCRI:
        """Start a FakeCRIServer (ServerConfig fields as keywords) on a background thread."""
        from fakecri.server.process.app import FakeCRIServer

        return cls(FakeCRIServer(**config).start())

    @property
    def endpoint(self) -> str:
        return str(self.server.endpoint)

    @property
    def node(self) -> Any:
        """The server's Node (runtime, simulation, faults...): touch it only through `server.call`."""
        return self.server.node

    @property
    def seed(self) -> int:
        return int(self.server.config.seed)

    @property
    def control(self) -> ControlClient:
        if self._control is None:
            from fakecri.control_client import ControlClient

            self._control = ControlClient(self.server.control_endpoint)
        return self._control

    def add_fault(self, fault: Any) -> list[dict[str, Any]]:
        """Add faults given as a dict, a Fault, or a flag string; returns them as stored."""
        return [self.control.add_fault(f) for f in faults_from_spec(fault)]

    def add_quirks(self, *names: str) -> list[dict[str, Any]]:
        """Switch on real runtimes' quirks by name (see docs/faults.md); returns them as stored."""
        return self.add_fault(f"--quirks {','.join(names)}")

    def send(self, method: str, **values: Any) -> Any:
        """Make a control call through `.control` (see ControlCalls.send)."""
        return self.control.send(method, **values)

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
        """Stop the server and close the control connection."""
        if self._control is not None:
            self._control.close()
            self._control = None
        self.server.stop()

    def __repr__(self) -> str:
        return f"<FakeCRI {self.endpoint} seed={self.seed}>"

    def __enter__(self) -> FakeCRI:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def faults_from_spec(spec: Any) -> list[Any]:
    """One marker/fixture fault item -> Fault objects. Accepts a Fault, a dict with the
    control proto's keys, or a serve flag such as '--latency ListContainers=200ms'."""
    from fakecri.faults.flags import STRING_FLAGS, parse_fault_flag
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
