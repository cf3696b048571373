"""Container output into CRI log files.

The CRI log format is one entry per line: `<RFC3339Nano UTC> <stdout|stderr> <tag> <text>`.
A line longer than containerd's default limit (16 KiB) is cut into entries tagged P
(partial) with the last one tagged F (full), as containerd writes them. Output that does not
end its line yet (`cat` of a file without a final newline, then `echo`; `echo -n a; echo b`)
waits for the rest of its line, as containerd reads a container's stream line by line: a
buffer that fills (16 KiB without a newline) goes out as a P entry, and what is left when the
container's streams end is one last P entry (so the kubelet's FallbackToLogsOnError reads
`DONE`, not `DONE\n`).
"""
from __future__ import annotations

import os
from datetime import UTC, datetime

from fakecri.server.host.host import HostRoot


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

    def __init__(self, base: str | os.PathLike[str] = ".", host_root: HostRoot | None = None) -> None:
        self.base = os.fspath(base)
        self.host_root = host_root if host_root is not None else HostRoot()
        self.errors = 0
        self.last_error = ""
        self._partial: dict[tuple[str, str], tuple[str, int]] = {}  # (path, stream) -> (unended text, its time)
        self._made: set[str] = set()  # directories made already (a pod's containers share one)

    def _parent_made(self, path: str) -> None:
        """Make the directory of `path` unless it was made already (a pod's containers share one)."""
        parent = os.path.dirname(path)
        if parent and parent not in self._made:
            try:
                os.mkdir(parent)  # the usual case: the kubelet's container directory under an existing pod's
            except FileExistsError:
                pass
            except FileNotFoundError:
                os.makedirs(parent, exist_ok=True)
            if len(self._made) > 10_000:
                self._made.clear()
            self._made.add(parent)

    def _append(self, path: str, data: str) -> None:
        why = self.host_root.why_not_log(path) if self.host_root.confined else None  # unconfined: any path
        if why is not None:  # a path from before --host-root was given (a restored state file)
            self.errors += 1
            self.last_error = f"log path {path!r} {why}"
            return
        path = os.path.join(self.base, path)
        try:
            parent = os.path.dirname(path)
            self._parent_made(path)
            # Bytes that are not UTF-8 come as surrogate escapes (a command echoing binary input)
            # and go back to the file as the bytes they were.
            try:
                f = open(path, "a", encoding="utf-8", errors="surrogateescape")
            except FileNotFoundError:  # its directory went away (log rotation, a cleanup): make it again
                self._made.discard(parent)
                os.makedirs(parent, exist_ok=True)
                f = open(path, "a", encoding="utf-8", errors="surrogateescape")
            with f:
                f.write(data)
        except (OSError, ValueError) as exc:
            self.errors += 1
            self.last_error = str(exc)

    def create(self, path: str) -> None:
        """Create the (empty) log file a starting container writes to, mode 0640 as containerd does."""
        if not path:
            return
        path = os.path.join(self.base, path)
        try:
            self._parent_made(path)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o640)
            except FileNotFoundError:  # its directory went away since it was made: make it again
                self._made.discard(os.path.dirname(path))
                self._parent_made(path)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o640)
            os.close(fd)
        except OSError as exc:
            self.errors += 1
            self.last_error = str(exc)

    def reopen(self, path: str) -> None:
        """Make sure the file exists again (after the kubelet rotated it away)."""
        self.create(path)

    def write(self, path: str, stream: str, text: str, ts_ns: int) -> None:
        """Whole lines are written as they come; the text after the last newline waits for the rest
        of its line, or for `flush`."""
        if not path or not text:
            return
        key = (path, stream)
        if key in self._partial:
            text = self._partial.pop(key)[0] + text
        head, newline, tail = text.rpartition("\n")
        out = "".join(format_entry(stream, line, ts_ns) for line in head.split("\n")) if newline else ""
        data = tail.encode("utf-8", "surrogateescape")
        if len(data) > MAX_LOG_LINE:  # containerd's buffer filled without a newline: out as P entries
            stamp = rfc3339_nano(ts_ns)
            full = len(data) - (len(data) % MAX_LOG_LINE or MAX_LOG_LINE)
            out += "".join(f"{stamp} {stream} P {data[at:at + MAX_LOG_LINE].decode('utf-8', 'surrogateescape')}\n"
                           for at in range(0, full, MAX_LOG_LINE))
            tail = data[full:].decode("utf-8", "surrogateescape")
        if tail:
            self._partial[key] = (tail, ts_ns)
        if out:
            self._append(path, out)

    def flush(self, path: str) -> None:
        """The container's streams ended: text still waiting for its newline is written as one
        last partial entry (P), as containerd writes what is left at the end of a stream."""
        for key in [k for k in self._partial if k[0] == path]:
            text, ts_ns = self._partial.pop(key)
            self._append(path, f"{rfc3339_nano(ts_ns)} {key[1]} P {text}\n")
