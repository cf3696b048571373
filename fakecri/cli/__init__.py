"""The `fakecri` command: serve, ctl, watch, conformance, health, version, quirks.

`group.py` holds the command group and its one-line errors, `values.py` the option values
the commands share, and one module each the commands: `serving.py` (serve), `observe.py`
(watch, health, version), `control.py` (ctl), `catalog.py` (quirks). The conformance command comes from
fakecri.conformance; it loads the suite only when it runs.
"""
from __future__ import annotations

from fakecri.cli import catalog, control, observe, serving  # noqa: F401  (each registers its commands)
from fakecri.cli.group import main
from fakecri.cli.serving import serve
from fakecri.conformance.command import conformance_command

__all__ = ["main", "serve"]


def _in_process_fakecri():  # type: ignore[no-untyped-def]
    """The runtime `fakecri conformance` judges without --endpoint: an in-process
    fakecri on a fresh socket, quiet (no per-RPC log lines)."""
    import logging

    import structlog

    from fakecri.server.app import FakeCRIServer

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    server = FakeCRIServer(seed=0).start()
    server.node.log_rpcs = False
    return server


main.add_command(conformance_command(in_process_runtime=_in_process_fakecri))
