"""The sandbox annotations that say how forwarded ports answer, read and checked.

`fakecri.io/port-forward` sets the answer for every port of the pod and
`fakecri.io/port-forward.<PORT>` for one port; each value is `echo`, `refuse[:MESSAGE]` or
`http[:STATUS[:BODY]]`. RunPodSandbox refuses a value that does not read
(`check_port_forward_annotations`), so a forwarded connection never meets one.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from fakecri.engine.errors import InvalidArgument
from fakecri.server.streaming.backend import PortForwardBehaviour

PORT_FORWARD_ANNOTATION = "fakecri.io/port-forward"
FORMS = "echo, refuse[:MESSAGE] or http[:STATUS[:BODY]]"


def parse_port_forward_annotation(value: str, key: str = PORT_FORWARD_ANNOTATION) -> PortForwardBehaviour:
    """The behaviour a value asks for; InvalidArgument, naming `key`, if it is not one."""
    kind, _, rest = str(value).strip().partition(":")
    if kind == "echo" and not rest:
        return PortForwardBehaviour.echo()
    if kind == "refuse":
        return PortForwardBehaviour.refuse(rest or "connection refused")
    if kind == "http":
        status_text, _, body = rest.partition(":")
        status_text = status_text.strip() or "200"
        if not (re.fullmatch(r"[0-9]{3}", status_text) and 100 <= int(status_text) <= 599):
            raise InvalidArgument(f"annotation {key}: HTTP status {status_text[:20]!r} is not a number "
                                  "from 100 to 599")
        return PortForwardBehaviour.http(int(status_text), (body or "ok\n").encode("utf-8", "surrogateescape"))
    raise InvalidArgument(f"annotation {key}: {str(value)[:80]!r} is not {FORMS}")


def check_port_forward_annotation(value: str) -> None:
    """InvalidArgument if `value` is not a port-forward behaviour."""
    parse_port_forward_annotation(value)


def check_port_forward_annotations(annotations: Mapping[str, str]) -> None:
    """Check every port-forward annotation of a sandbox: the pod-wide one and the per-port
    ones, whose suffix must be a port from 1 to 65535."""
    for key, value in annotations.items():
        if key == PORT_FORWARD_ANNOTATION:
            parse_port_forward_annotation(value, key)
        elif key.startswith(PORT_FORWARD_ANNOTATION + "."):
            port = key[len(PORT_FORWARD_ANNOTATION) + 1:]
            if not (re.fullmatch(r"[0-9]{1,5}", port) and 0 < int(port) <= 0xFFFF):
                raise InvalidArgument(f"annotation {key[:80]}: {port[:20]!r} is not a port from 1 to 65535")
            parse_port_forward_annotation(value, key)
