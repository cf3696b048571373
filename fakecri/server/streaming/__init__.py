"""The streaming server behind CRI Exec, Attach and PortForward (WebSocket and SPDY/3.1)."""
from fakecri.server.streaming.backend import PortForwardBehaviour, StreamingBackend
from fakecri.server.streaming.server import StreamingServer

__all__ = ["PortForwardBehaviour", "StreamingBackend", "StreamingServer"]
