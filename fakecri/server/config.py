"""Everything `fakecri serve` can be told, as one dataclass shared by the CLI and the plugin."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SUBSCRIBER_POLICIES = ("close", "drop", "block")
CGROUP_DRIVERS = ("systemd", "cgroupfs")


@dataclass
class ServerConfig:
    # Where to listen. `socket` is a unix socket path; `listen` an optional "host:port" on TCP.
    socket: str | None = None
    listen: str | None = None
    socket_mode: int = 0o660
    # The control service: on the CRI socket by default, on its own socket, or off.
    control_socket: str | None = None
    control_socket_mode: int = 0o600
    no_control: bool = False
    # Determinism.
    seed: int = 0
    fake_clock: bool = False
    # Faults (fakecri.faults.model.Fault objects) in force from the start.
    faults: list[Any] = field(default_factory=list)
    # Event stream subscribers.
    subscriber_policy: str = "close"
    subscriber_buffer: int = 1000
    # Runtime facts.
    cgroup_driver: str = "systemd"
    runtime_handlers: tuple[str, ...] = ("", "runc")
    pod_cidr: str = "10.88.0.0/16"
    image_catalog: str | None = None
    # Limits (None: unlimited).
    max_sandboxes: int | None = None
    max_containers: int | None = None
    max_images: int | None = None
    max_subscribers: int | None = 64
    max_message_bytes: int = 16 * 1024 * 1024
    # Side services.
    streaming_addr: str = "127.0.0.1:0"
    metrics_addr: str | None = None
    state_file: str | None = None
    # Directory fakecri owns; the filesystem mountpoints it reports are made under it.
    # None: /var/lib/fakecri when it can be created, else a directory under the temp dir.
    state_root: str | None = None
    # Keep the last N calls and fired faults for the control API.
    call_log_size: int = 10_000

    def validate(self) -> None:
        if not self.socket and not self.listen:
            raise ValueError("give a unix socket path (--socket) or a TCP address (--listen)")
        if self.subscriber_policy not in SUBSCRIBER_POLICIES:
            raise ValueError(
                f"subscriber policy {self.subscriber_policy!r} is not one of {', '.join(SUBSCRIBER_POLICIES)}"
            )
        if self.cgroup_driver not in CGROUP_DRIVERS:
            raise ValueError(f"cgroup driver {self.cgroup_driver!r} is not one of {', '.join(CGROUP_DRIVERS)}")
        if self.subscriber_buffer < 1:
            raise ValueError("the subscriber buffer must hold at least one event")
