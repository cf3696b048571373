"""A minimal kube-apiserver stand-in so the real kubectl can drive the streaming server.

It answers discovery and one pod GET; for pods/exec, pods/attach and pods/portforward it
asks the streaming server for a URL (as the kubelet does through CRI) and relays the
upgrade request and every byte after it to that URL, as the apiserver's proxy would.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
from urllib.parse import parse_qs, urlsplit

from fakecri.server.streaming import StreamingServer

RESOURCES = [
    {"name": "pods", "singularName": "pod", "namespaced": True, "kind": "Pod",
     "verbs": ["get", "list"], "shortNames": ["po"]},
    {"name": "pods/exec", "singularName": "", "namespaced": True, "kind": "PodExecOptions",
     "verbs": ["create", "get"]},
    {"name": "pods/attach", "singularName": "", "namespaced": True, "kind": "PodAttachOptions",
     "verbs": ["create", "get"]},
    {"name": "pods/portforward", "singularName": "", "namespaced": True,
     "kind": "PodPortForwardOptions", "verbs": ["create", "get"]},
]


def _flag(query: dict[str, list[str]], name: str) -> bool:
    return query.get(name, ["false"])[0] in ("true", "1")


class FakeApiServer:
    def __init__(self, streaming: StreamingServer, *, pod: str = "p1", container_id: str = "c1",
                 sandbox_id: str = "pod1") -> None:
        self.streaming = streaming
        self.pod, self.container_id, self.sandbox_id = pod, container_id, sandbox_id
        self.upgrades: list[str] = []  # the Upgrade header of each relayed request
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task] = set()

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _documents(self) -> dict[str, dict]:
        base = f"/api/v1/namespaces/default/pods/{self.pod}"
        return {
            "/api": {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []},
            "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": []},
            "/api/v1": {"kind": "APIResourceList", "groupVersion": "v1", "resources": RESOURCES},
            base: {"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": self.pod, "namespace": "default"},
                   "spec": {"containers": [{"name": "main", "image": "busybox"}]},
                   "status": {"phase": "Running"}},
        }

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            request_line, *header_lines = head.decode("latin-1").split("\r\n")
            method, target, _ = request_line.split(" ")
            parts = urlsplit(target)
            if parts.path.rsplit("/", 1)[-1] in ("exec", "attach", "portforward"):
                await self._relay(parts.path.rsplit("/", 1)[-1], parse_qs(parts.query), method,
                                  header_lines, reader, writer)
                return
            doc = self._documents().get(parts.path)
            if doc is None:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            else:
                body = json.dumps(doc).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n" % len(body) + body)
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _relay(self, kind: str, query: dict[str, list[str]], method: str,
                     header_lines: list[str], reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter) -> None:
        streams = dict(tty=_flag(query, "tty"), stdin=_flag(query, "stdin"),
                       stdout=_flag(query, "stdout"), stderr=_flag(query, "stderr"))
        if kind == "exec":
            url = self.streaming.prepare_exec(self.container_id, query["command"], **streams)
        elif kind == "attach":
            url = self.streaming.prepare_attach(self.container_id, **streams)
        else:
            url = self.streaming.prepare_port_forward(self.sandbox_id, [])
        self.upgrades += [h.split(":", 1)[1].strip() for h in header_lines
                          if h.lower().startswith("upgrade:")]
        target = urlsplit(url)
        ports = "&".join(f"port={p}" for p in query.get("ports", []))
        up_reader, up_writer = await asyncio.open_connection(target.hostname, target.port)
        up_writer.write(f"{method} {target.path}{'?' + ports if ports else ''} HTTP/1.1\r\n"
                        .encode() + "\r\n".join(header_lines).encode("latin-1"))
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))


async def _pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    try:
        while data := await src.read(64 * 1024):
            dst.write(data)
            await dst.drain()
    except ConnectionError:
        pass
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            dst.write_eof()
