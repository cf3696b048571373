"""`fakecri conformance`: the suite's command (fakecri.conformance), judging an in-process
fakecri when given no --endpoint."""
from __future__ import annotations

from fakecri.cli.group import main
from fakecri.conformance.command import InProcessRuntime, conformance_command


def _in_process_fakecri() -> InProcessRuntime:
    """The runtime `fakecri conformance` judges without --endpoint: an in-process
    fakecri on a fresh socket, quiet (no per-RPC log lines). SIGTERM then ends the run
    as Ctrl-C does, so the server is stopped and its socket directory removed."""
    import signal
    import threading

    from fakecri.server.process.app import FakeCRIServer

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    return FakeCRIServer(seed=0).start()


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


main.add_command(conformance_command(in_process_runtime=_in_process_fakecri))
