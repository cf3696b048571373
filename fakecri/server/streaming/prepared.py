"""The requests a CRI call prepares and a token later redeems."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExecRequest:
    container_id: str
    cmd: tuple[str, ...]
    tty: bool = False
    stdin: bool = False
    stdout: bool = True
    stderr: bool = True


@dataclass(frozen=True)
class AttachRequest:
    container_id: str
    tty: bool = False
    stdin: bool = False
    stdout: bool = True
    stderr: bool = True


@dataclass(frozen=True)
class PortForwardRequest:
    pod_sandbox_id: str
    ports: tuple[int, ...] = ()


Prepared = ExecRequest | AttachRequest | PortForwardRequest
