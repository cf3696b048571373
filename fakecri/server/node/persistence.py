"""The --state-file: sandboxes, containers, images, the pod CIDR and the id sequence kept
across a restart.

Guarantee: the snapshot is written (temp file in the same directory, fsync, rename,
fsync of the directory) at the commit point of the RPC that changed something, before
the reply goes out and before its events are published. So every operation a client saw
acknowledged is in the file, and a kill -9 at any moment leaves the last complete snapshot.
Calls that changed nothing skip the write (the engine's change counter says so).

A write that fails (a full disk, a file system gone read-only) undoes the change: the
runtime is put back to what the file holds (`roll_back`), so memory never runs ahead of
the disk, and the node answers the call UNAVAILABLE. The id sequence is kept ID_RESERVE ids
ahead of use: the file holds where the sequence will be after that many more, so a
restart never hands out an id drawn before it, not even one drawn for a change undone.

A file that is not a fakecri state file, or is damaged anywhere, stops start-up with a
message saying so, and is left untouched: the whole file is checked before any of it is
used. A lock file beside it keeps two servers apart. A state file that is a symlink stays
one: the file written, and the lock taken, are its target's.
"""
from __future__ import annotations

import json
import os
import time
from typing import Any

from fakecri.engine import errors
from fakecri.engine.clock import Clock, FakeClock, IdSource, RandomIds
from fakecri.engine.runtime import Runtime
from fakecri.server.codec import encode
from fakecri.server.exceptions import StateFileError, StateFilePathError, StateWriteError
from fakecri.server.host.lock_file import LockFile

FORMAT = "fakecri-state"
VERSION = 2
MAX_DEPTH = 64  # JSON nested deeper than this is not a state file (and would exhaust the stack)
ID_RESERVE = 1000  # ids the file keeps the sequence ahead of the ids handed out


def write_atomic(path: str, data: bytes) -> None:
    """Replace `path` with `data` so that a crash leaves either the old or the new file."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, f".{os.path.basename(path)}.tmp-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _depth(text: str) -> int:
    """How deep the brackets of a JSON text nest (strings skipped), without parsing it."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def read_state_doc(path: str) -> dict[str, Any] | None:
    """The parsed file, None if it does not exist; StateFileError if it is not ours or damaged."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateFilePathError(f"state file {path}: cannot read it: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
        if _depth(text) > MAX_DEPTH:
            raise ValueError(f"it nests deeper than {MAX_DEPTH} levels")
        doc = json.loads(text)
    except (UnicodeDecodeError, ValueError) as exc:
        raise StateFileError(
            f"state file {path} is damaged (not valid JSON: {exc}); it was left untouched. "
            "Move it away to start with an empty runtime."
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise StateFileError(
            f"state file {path} is not a fakecri state file (no \"format\": \"{FORMAT}\"); "
            "refusing to overwrite it. Point --state-file at another path."
        )
    if doc.get("version") != VERSION:
        raise StateFileError(
            f"state file {path} has version {doc.get('version')!r}; this fakecri reads version {VERSION}. "
            "It was left untouched."
        )
    return doc


def _check_wire(runtime: Runtime) -> None:
    """ValueError naming the record if one cannot be put on the wire (an attempt or exit code
    past what its protobuf field holds, say): refused at start, never INTERNAL on each call later."""
    for sb in runtime.list_sandboxes():
        try:
            encode.sandbox_item(sb)
            encode.sandbox_status(sb)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"sandbox {sb.id}: {exc}") from None
    for c in runtime.list_containers():
        try:
            encode.container_item(c)
            encode.container_status(c)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"container {c.id}: {exc}") from None


class StateFile:
    """Owns the state file of one node: loads it at start, writes it after changes."""

    def __init__(self, runtime: Runtime, clock: Clock, ids: IdSource, path: str, log: Any) -> None:
        self.runtime = runtime
        self.clock = clock
        self.ids = ids
        self.path = path
        # Where the file really is: a symlinked state file is written through to its target (the
        # link stays a link), and the lock is taken beside the target, so a second server cannot
        # get in through another name for the same file.
        self.target = os.path.realpath(path)
        self.log = log
        self.writes = 0
        self._lock = LockFile(self.target + ".lock")
        self._written: int | None = None  # the engine's change count the file holds
        self._written_at: int | None = None  # the clock's time the file holds

    def encode(self) -> bytes:
        doc: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "written_at_ns": time.time_ns(),
            "runtime": self.runtime.snapshot(),
        }
        if isinstance(self.ids, RandomIds):
            doc["ids"] = self.ids.ahead(ID_RESERVE)
        return json.dumps(doc, separators=(",", ":")).encode("utf-8")

    def restore(self, doc: dict[str, Any]) -> None:
        """Put the file's state into the runtime; StateFileError if any of it is bad (the id
        sequence and the clock are set only once all of it has been read)."""
        runtime_doc = doc.get("runtime")
        try:
            if "ids" in doc:
                RandomIds().set_state(doc["ids"])  # checked before anything is used
            self.runtime.restore(runtime_doc if isinstance(runtime_doc, dict) else {})
            _check_wire(self.runtime)
        except (errors.CoreError, ValueError) as exc:
            raise StateFileError(f"state file {self.path} is damaged ({exc}); it was left untouched") from None
        if "ids" in doc and isinstance(self.ids, RandomIds):
            self.ids.set_state(doc["ids"])
        if isinstance(self.clock, FakeClock) and isinstance(runtime_doc, dict):
            self.clock.set(runtime_doc.get("saved_at_ns", 0))  # a fake clock goes on from where it was

    def open(self) -> StateFile:
        self._take_lock()
        try:
            self._remove_stale_temp_files()
            doc = read_state_doc(self.path)
            if doc is not None:
                self.restore(doc)
                counts = self.runtime.counts()
                self.log.info("state restored", path=self.path, sandboxes=counts["sandboxes"],
                              containers=counts["containers"], images=len(self.runtime.images))
            self.write()  # proves the directory is writable before any call is accepted
        except StateWriteError as exc:
            self._lock.release()
            raise StateFilePathError(exc.strerror or str(exc)) from None
        except BaseException:
            self._lock.release()
            raise
        return self

    def _remove_stale_temp_files(self) -> None:
        """Temp files of writers killed mid-write (we hold the lock, so none is live)."""
        directory = os.path.dirname(self.target)
        prefix = f".{os.path.basename(self.target)}.tmp-"
        for name in os.listdir(directory):
            if name.startswith(prefix):
                try:
                    os.unlink(os.path.join(directory, name))
                except OSError:
                    pass

    def write_if_changed(self) -> None:
        """Write when the engine changed, or a fake clock moved (its time is state too: a restart
        goes on from it; a real clock moves on its own, and the downtime counts)."""
        if self.runtime.changes != self._written or (self.clock.is_fake and self.clock.now_ns() != self._written_at):
            self.write()

    def write(self) -> None:
        mark, at = self.runtime.changes, self.clock.now_ns()
        try:
            write_atomic(self.target, self.encode())
        except OSError as exc:
            # The change must not be acknowledged: the node undoes it and the call fails with this.
            self.log.error("state file write failed", path=self.path, error=str(exc))
            raise StateWriteError(exc.errno or 0, f"state file {self.path} cannot be written "
                                                  f"({exc.strerror or exc})") from None
        self._written, self._written_at = mark, at
        self.writes += 1

    def roll_back(self) -> None:
        """Put the runtime back to what the file holds (after a write failed); the clock and the
        id sequence go on. StateFileError if the file cannot be read back."""
        doc = read_state_doc(self.target)
        runtime_doc = doc.get("runtime") if doc is not None else None
        try:
            self.runtime.restore(runtime_doc if isinstance(runtime_doc, dict) else {})
        except (errors.CoreError, ValueError) as exc:
            raise StateFileError(f"state file {self.path} cannot be read back ({exc})") from None
        self._written, self._written_at = self.runtime.changes, self.clock.now_ns()

    async def stop(self) -> None:
        """`close`, for an owner that stops its services with `await`."""
        self.close()

    def close(self) -> None:
        """Write the last state (timer-driven exits since the last call) and let go of the lock."""
        if not self._lock.held:
            return
        try:
            self.write_if_changed()
        except StateWriteError:
            pass  # logged; the file holds the last state that could be written
        finally:
            self._lock.release()

    def _take_lock(self) -> None:
        lock_path = self._lock.path
        directory = os.path.dirname(self.target)
        if not os.path.isdir(directory):
            raise StateFilePathError(f"state file {self.path}: the directory {directory} does not exist")
        try:
            locked = self._lock.acquire()
        except OSError as exc:
            raise StateFilePathError(f"state file {self.path}: cannot create {lock_path}: {exc.strerror}") from None
        if not locked:
            raise StateFileError(f"state file {self.path} is in use by another fakecri (lock {lock_path} is held)")
