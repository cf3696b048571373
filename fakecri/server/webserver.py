"""The web server a container of a web-server image runs: what it answers over HTTP.

One response per request, then the connection closes: `/` and `/index.html` give the
image's welcome page, anything else a 404, as the image's server words them. The
`server` name comes from the image content (`http_ports` say where it listens). A host
port and a forwarded port (streaming/portforward.py) answer through the same `answer`.
"""
from __future__ import annotations

import asyncio
from http import HTTPStatus

MAX_HEAD = 64 * 1024
READ_TIMEOUT_S = 30.0  # a client that sends no request head in this time is dropped

NGINX_PAGE = b"""<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>Served by fakecri for a container of an nginx image; no nginx runs.</p>
</body>
</html>
"""
HTTPD_PAGE = b"<html><body><h1>It works!</h1></body></html>\n"


def response(server: str, method: str, path: str) -> bytes:
    """The whole HTTP/1.1 response of `server` ("nginx" or "httpd") to one request."""
    page, banner = (HTTPD_PAGE, "Apache/2.4.39 (Unix)") if server == "httpd" else (NGINX_PAGE, "nginx/1.14.2")
    path = path.split("?", 1)[0]
    if path in ("/", "/index.html"):
        status, body = 200, page
    else:
        status = 404
        body = (b"<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head><title>404 Not Found</title></head>"
                b"<body><h1>Not Found</h1></body></html>\n" if server == "httpd" else
                b"<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1>"
                b"</center>\r\n<hr><center>nginx/1.14.2</center>\r\n</body>\r\n</html>\r\n")
    head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nServer: {banner}\r\n"
            f"Content-Type: text/html\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n")
    return head.encode("latin-1") + (b"" if method == "HEAD" else body)


def request_line(head: bytes) -> tuple[str, str]:
    """(method, path) of a request head; ("", "") when it is not HTTP."""
    words = head.split(b"\r\n", 1)[0].decode("latin-1").split()
    return (words[0], words[1]) if len(words) >= 2 else ("", "")


def answer(server: str, head: bytes) -> bytes:
    """The response to one request head: what a host port and a forwarded port both send."""
    method, path = request_line(head)
    if not method:
        return b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    return response(server, method, path)


async def serve(server: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Answer one connection, bounded in time and size."""
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_TIMEOUT_S)
        writer.write(answer(server, head))
        await asyncio.wait_for(writer.drain(), READ_TIMEOUT_S)
    except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        pass
    finally:
        writer.close()
