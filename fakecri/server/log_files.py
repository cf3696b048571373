"""Container output into CRI log files.

The CRI log format is one entry per line: `<RFC3339Nano UTC> <stdout|stderr> <tag> <text>`.
A line longer than containerd's default limit (16 KiB) is cut into entries tagged P
(partial) with the last one tagged F (full), and text the container's stream ends with
without a newline is one last P entry, as containerd writes them.
"""
from __future__ import annotations

import os
from datetime import UTC, datetime


def rfc3339_nano(ts_ns: int) -> str:
    """UTC time as Go's RFC3339Nano prints it (trailing zeros of the fraction dropped)."""
    secs, frac = divmod(ts_ns, 1_000_000_000)
    base = datetime.fromtimestamp(secs, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    if frac:
        return f"{base}.{frac:09d}".rstrip("0") + "Z"
    return base + "Z"


def split_lines(text: str) -> list[str]:
    """The log lines in `text`: one per newline, a final newline does not start a new one."""
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


MAX_LOG_LINE = 16 * 1024  # bytes per entry: containerd's default max_container_log_line_size


def format_entry(stream: str, line: str, ts_ns: int) -> str:
    """The entries of one line: F alone, or P entries of MAX_LOG_LINE bytes then the F rest."""
    stamp = rfc3339_nano(ts_ns)
    data = line.encode("utf-8", "surrogateescape")
    if len(data) <= MAX_LOG_LINE:
        return f"{stamp} {stream} F {line}\n"
    cuts = range(0, len(data), MAX_LOG_LINE)
    last = cuts[-1]
    return "".join(
        f"{stamp} {stream} {'F' if at == last else 'P'} "
        f"{data[at:at + MAX_LOG_LINE].decode('utf-8', 'surrogateescape')}\n"
        for at in cuts
    )


class LogFiles:
    """Appends CRI-format entries to real files, creating parent directories. Never raises:
    a file that cannot be written is counted (`errors`, `last_error`) and skipped.

    A relative path (a container whose sandbox has no log directory) is taken from `base`,
    as containerd takes it from its working directory; the status still shows it relative."""

    def __init__(self, base: str | os.PathLike[str] = ".") -> None:
        self.base = os.fspath(base)
        self.errors = 0
        self.last_error = ""
        self._pending: dict[tuple[str, str], str] = {}  # (path, stream) -> the start of a line
        self._pending_at: dict[tuple[str, str], int] = {}

    def _append(self, path: str, data: str) -> None:
        path = os.path.join(self.base, path)
        try:
            parent = os.path.dirname(path)
            if parent:
                os.makedirs(parent, exist_ok=True)
            # Bytes that are not UTF-8 come as surrogate escapes (a command echoing binary input)
            # and go back to the file as the bytes they were.
            with open(path, "a", encoding="utf-8", errors="surrogateescape") as f:
                f.write(data)
        except (OSError, ValueError) as exc:
            self.errors += 1
            self.last_error = str(exc)

    def create(self, path: str) -> None:
        if path:
            self._append(path, "")

    def reopen(self, path: str) -> None:
        """Make sure the file exists again (after the kubelet rotated it away)."""
        self.create(path)

    def write(self, path: str, stream: str, text: str, ts_ns: int) -> None:
        """Whole lines are written as they come; the text after the last newline waits for the rest
        of its line (containerd reads the container's stream line by line), or for `close`."""
        if not path:
            return
        key = (path, stream)
        text = self._pending.pop(key, "") + text
        head, newline, tail = text.rpartition("\n")
        out = "".join(format_entry(stream, line, ts_ns) for line in head.split("\n")) if newline else ""
        while len(tail.encode("utf-8", "surrogateescape")) > MAX_LOG_LINE:  # a full buffer goes out as P
            data = tail.encode("utf-8", "surrogateescape")
            out += f"{rfc3339_nano(ts_ns)} {stream} P {data[:MAX_LOG_LINE].decode('utf-8', 'surrogateescape')}\n"
            tail = data[MAX_LOG_LINE:].decode("utf-8", "surrogateescape")
        if tail:
            self._pending[key] = tail
            self._pending_at[key] = ts_ns
        if out:
            self._append(path, out)

    def close(self, path: str, ts_ns: int | None = None) -> None:
        """The container's streams ended: a line still waiting for its newline is written as a
        partial entry (P), as containerd writes what is left at the end of a stream."""
        for stream in ("stdout", "stderr"):
            tail = self._pending.pop((path, stream), "")
            at = self._pending_at.pop((path, stream), 0)
            if tail:
                self._append(path, f"{rfc3339_nano(at if ts_ns is None else ts_ns)} {stream} P {tail}\n")
