"""The --state-file: sandboxes, containers, images and the pod CIDR kept across a restart.

Guarantee: the snapshot is written (temp file in the same directory, fsync, rename,
fsync of the directory) in the RPC handler's `finally`, before the reply goes out. So
every operation a client saw acknowledged is in the file, and a kill -9 at any moment
leaves the last complete snapshot. Calls that changed nothing skip the write.

A file that is not a fakecri state file, or is damaged, stops start-up with a message
saying so, and is left untouched. A lock file beside it keeps two servers apart.
"""
from __future__ import annotations

import json
import os
import time
from typing import Any

from fakecri.engine import errors
from fakecri.engine.ids import RandomIds
from fakecri.engine.images import ImageStore
from fakecri.engine.runtime import Runtime
from fakecri.server.exceptions import StateFileError, StateFilePathError, StateWriteError
from fakecri.server.lock_file import LockFile
from fakecri.server.state import ServerState
from fakecri.server.state_builder import runtime_options

FORMAT = "fakecri-state"
VERSION = 1


class _FreshIds:
    """Wraps an id source so a restored runtime never hands out an id it already holds."""

    def __init__(self, inner: Any, runtime: Runtime) -> None:
        self.inner = inner
        self.runtime = runtime

    def new_id(self) -> str:
        while True:
            new = self.inner.new_id()
            if new not in self.runtime._sandboxes and new not in self.runtime._containers:
                return new


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


def encode_state(state: ServerState) -> bytes:
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "written_at_ns": time.time_ns(),
        "runtime": state.runtime.to_dict(),
        "images": state.images.to_dict(),
    }
    rng = getattr(state.ids, "_rng", None)
    if isinstance(state.ids, RandomIds) and rng is not None:
        version, internal, gauss = rng.getstate()
        doc["ids"] = {"random_state": [version, list(internal), gauss]}
    return json.dumps(doc, separators=(",", ":")).encode("utf-8")


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
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
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


def restore_into(state: ServerState, doc: dict[str, Any], path: str) -> None:
    """Replace the state's runtime and images with the snapshot's."""
    cfg = state.config
    try:
        runtime = Runtime.from_dict(doc["runtime"], state.clock, state.ids, **runtime_options(state))
        images = ImageStore.from_dict(doc["images"], state.clock, state.catalog, cfg.max_images)
        ids_doc = doc.get("ids") or {}
        if "random_state" in ids_doc and isinstance(state.ids, RandomIds):
            version, internal, gauss = ids_doc["random_state"]
            state.ids._rng.setstate((version, tuple(internal), gauss))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, errors.CoreError) as exc:
        raise StateFileError(f"state file {path} is damaged ({type(exc).__name__}: {exc}); it was left untouched") from None
    runtime.ids = _FreshIds(state.ids, runtime)
    state.ports.close_all()
    state.runtime = runtime
    state.images = images


class StateFile:
    """Owns the state file of one server: loads it at start, writes it after changes."""

    def __init__(self, state: ServerState, path: str) -> None:
        self.state = state
        self.path = path
        self.writes = 0
        self._lock = LockFile(path + ".lock")
        self._last: tuple | None = None

    def open(self) -> StateFile:
        self._take_lock()
        try:
            self._remove_stale_temp_files()
            doc = read_state_doc(self.path)
            if doc is not None:
                restore_into(self.state, doc, self.path)
                self.state.tick()  # fire what fell due while fakecri was down, re-arm the rest
                self.state.log.info(
                    "state restored", path=self.path, sandboxes=len(self.state.runtime.list_sandboxes()),
                    containers=len(self.state.runtime.list_containers()), images=len(self.state.images.list()))
            self.write()  # proves the directory is writable before any call is accepted
        except StateWriteError as exc:
            self._lock.release()
            raise StateFilePathError(str(exc)) from None
        except BaseException:
            self._lock.release()
            raise
        self.state.persist = self.write_if_changed
        return self

    def _remove_stale_temp_files(self) -> None:
        """Temp files of writers killed mid-write (we hold the lock, so none is live)."""
        directory = os.path.dirname(os.path.abspath(self.path))
        prefix = f".{os.path.basename(self.path)}.tmp-"
        for name in os.listdir(directory):
            if name.startswith(prefix):
                try:
                    os.unlink(os.path.join(directory, name))
                except OSError:
                    pass

    def fingerprint(self) -> tuple:
        """Changes whenever a record, the image set or the pod CIDR changes (cheap: no serializing)."""
        rt, images = self.state.runtime, self.state.images
        revs = sum(s.rev for s in rt._sandboxes.values()) + sum(c.rev for c in rt._containers.values())
        tags = tuple((i.id, len(i.repo_tags), len(i.repo_digests)) for i in images._images.values())
        return (id(rt), id(images), len(rt._sandboxes), len(rt._containers), revs, rt.pod_cidr, tags)

    def write_if_changed(self) -> None:
        if self.fingerprint() != self._last:
            self.write()

    def write(self) -> None:
        mark = self.fingerprint()
        try:
            write_atomic(self.path, encode_state(self.state))
        except OSError as exc:
            # The call that changed the state must not be acknowledged: its handler fails with this.
            message = f"state file {self.path}: cannot write it ({exc.strerror or exc}); the last change is not saved"
            self.state.log.error("state file write failed", path=self.path, error=str(exc))
            raise StateWriteError(message) from None
        self._last = mark
        self.writes += 1

    async def stop(self) -> None:
        """Write the last state (timer-driven exits since the last call) and let go of the lock."""
        if not self._lock.held:
            return
        try:
            self.write_if_changed()
        finally:
            self._lock.release()

    def _take_lock(self) -> None:
        lock_path = self._lock.path
        directory = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(directory):
            raise StateFilePathError(f"state file {self.path}: the directory {directory} does not exist")
        try:
            locked = self._lock.acquire()
        except OSError as exc:
            raise StateFilePathError(f"state file {self.path}: cannot create {lock_path}: {exc.strerror}") from None
        if not locked:
            raise StateFileError(f"state file {self.path} is in use by another fakecri (lock {lock_path} is held)")


def open_state_file(state: ServerState) -> StateFile:
    """Load (or create) the configured state file and hook it to every RPC."""
    assert state.config.state_file, "no state_file configured"
    return StateFile(state, state.config.state_file).open()
