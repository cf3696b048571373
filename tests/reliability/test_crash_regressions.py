"""The test process itself must not crash: what made CI die with SIGSEGV, pinned."""
from __future__ import annotations

import gc
import logging
import os
import shutil
import tempfile

import pytest

from fakecri.server.process.app import FakeCRIServer, StartupError


class _KeepRecords(logging.Handler):
    """Keeps every record, as pytest's log capture does for a test's report."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.mark.parametrize("cython_level", ["as fakecri sets it", "DEBUG"])
def test_a_refused_start_leaves_no_log_record_pointing_at_a_freed_server(cython_level):
    """grpc.aio logs a server deallocated without a stop at DEBUG with the server object as an
    argument; a kept record then points at freed memory and a later garbage collection
    segfaults. fakecri refuses a bad socket path before it creates any grpc server, and keeps
    grpc's Cython logger at INFO. Each protection is checked on its own."""
    cython_log = logging.getLogger("grpc._cython.cygrpc")
    root = logging.getLogger()
    saved = (cython_log.level, root.level)
    keep = _KeepRecords()
    root.addHandler(keep)
    root.setLevel(logging.DEBUG)
    if cython_level == "DEBUG":
        cython_log.setLevel(logging.DEBUG)
    d = tempfile.mkdtemp(prefix="fc-", dir="/tmp")
    try:
        path = os.path.join(d, "file.sock")
        with open(path, "w") as f:
            f.write("not a socket")
        for _ in range(3):
            with pytest.raises(StartupError):
                FakeCRIServer(socket=path).start()
        gc.collect()
        dealloc = [r for r in keep.records if "__dealloc__" in str(r.msg)]
        assert dealloc == [], [r.msg for r in dealloc]
    finally:
        root.removeHandler(keep)
        cython_log.setLevel(saved[0])
        root.setLevel(saved[1])
        shutil.rmtree(d)
