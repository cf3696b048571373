"""Structured logging: readable lines on a terminal, one JSON object per line otherwise.

    configure_logging(fmt="auto", level="info")
    log = get_logger("fakecri.server")
    log.info("rpc", method="RunPodSandbox", code="OK", duration_ms=1.2)
"""
from __future__ import annotations

import errno
import logging
import os
import sys
from types import ModuleType
from typing import Any, TextIO


def _import_structlog() -> ModuleType:
    """structlog, imported with rich hidden unless something loaded rich already.

    structlog's dev module imports rich, when it is installed, to draw exceptions, and that
    is 40 ms of every `fakecri serve` start (a third of its budget). fakecri logs tracebacks
    as text and never asks structlog to draw one, so it does without; `fakecri watch` still
    imports rich for its live view."""
    if "structlog" in sys.modules or "rich" in sys.modules:
        import structlog as loaded

        return loaded
    sys.modules["rich"] = None  # type: ignore[assignment]  # `import rich` fails while this is here
    try:
        import structlog as loaded
    finally:
        del sys.modules["rich"]
    return loaded


structlog = _import_structlog()

FORMATS = ("auto", "console", "json")
LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}


def resolve_format(fmt: str, stream: TextIO) -> str:
    """`auto` becomes `console` on a TTY and `json` otherwise."""
    if fmt not in FORMATS:
        raise ValueError(f"log format {fmt!r} is not one of {', '.join(FORMATS)}")
    if fmt != "auto":
        return fmt
    isatty = getattr(stream, "isatty", None)
    return "console" if isatty is not None and isatty() else "json"


class SafeStream:
    """A text stream whose writes never raise, so a log line can never fail a call or a
    shutdown. When the reader is gone for good (EPIPE: the `tee` at the other end of a
    pipe exited), /dev/null takes the place of the descriptor,
    so what else writes there (Python at exit, grpc's own lines) drops silently too; any
    other write error (a full disk) loses that line only. `lost` counts the lines lost."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.gone = False
        self.lost = 0

    def _failed(self, exc: BaseException) -> None:
        if self.gone or getattr(exc, "errno", None) != errno.EPIPE:
            return  # a closed stream (pytest's capture between tests) or a full disk: this line only
        self.gone = True
        try:
            fd = self._stream.fileno()
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, fd)
            finally:
                os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass

    def write(self, text: str) -> int:
        if self.gone:
            self.lost += 1
            return len(text)
        try:
            return self._stream.write(text)
        except (OSError, ValueError) as exc:
            self.lost += 1
            self._failed(exc)
            return len(text)

    def flush(self) -> None:
        if self.gone:
            return
        try:
            self._stream.flush()
        except (OSError, ValueError) as exc:
            self._failed(exc)

    def isatty(self) -> bool:
        try:
            return self._stream.isatty()
        except (OSError, ValueError):
            return False


def configure_logging(fmt: str = "auto", level: str = "info", stream: TextIO | None = None) -> str:
    """Set up structlog for the whole process; returns the format chosen. Nothing written
    to the log stream can raise (see SafeStream)."""
    out: Any = SafeStream(stream if stream is not None else sys.stderr)
    chosen = resolve_format(fmt, out)
    levelno = LEVELS.get(level.lower()) if isinstance(level, str) else None
    if levelno is None:
        raise ValueError(f"log level {level!r} is not one of {', '.join(LEVELS)}")
    shared: list[Any] = [
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    if chosen == "json":
        renderer: Any = structlog.processors.JSONRenderer()
        tail: list[Any] = [structlog.processors.format_exc_info]
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=bool(getattr(out, "isatty", lambda: False)()))
        tail = []
    structlog.configure(
        processors=[structlog.contextvars.merge_contextvars, *shared, structlog.processors.StackInfoRenderer(),
                    *tail, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(levelno),
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *tail, renderer],
        foreign_pre_chain=[structlog.stdlib.add_logger_name, *shared],
    )
    _route_stdlib(out, levelno, formatter)
    global _announce
    _announce = (out, [*shared, *tail, renderer])
    return chosen


_announce: tuple[SafeStream, list[Any]] | None = None


def announce(event: str, **fields: Any) -> None:
    """Write one info line in the configured format whatever the level: the lines an operator
    waits for (ready, shutting down) must show even with --log-level error."""
    if _announce is None:
        structlog.get_logger().info(event, **fields)
        return
    out, processors = _announce
    rendered: Any = {"event": event, **fields}
    for proc in processors:
        rendered = proc(None, "info", rendered)
    out.write(rendered + "\n")
    out.flush()


_stdlib_handler: logging.Handler | None = None


def _route_stdlib(out: SafeStream, levelno: int, formatter: logging.Formatter) -> None:
    """Send standard-library logging (grpc, asyncio) to the same stream and level."""
    global _stdlib_handler
    root = logging.getLogger()
    if _stdlib_handler is not None:
        root.removeHandler(_stdlib_handler)
    _stdlib_handler = logging.StreamHandler(out)
    _stdlib_handler.setFormatter(formatter)
    _stdlib_handler.setLevel(levelno)
    root.addHandler(_stdlib_handler)
    root.setLevel(min(root.level or logging.WARNING, levelno))


def logger() -> Any:
    """A structlog logger with nothing bound (the node binds its name, in a farm)."""
    return structlog.get_logger()


def get_logger(name: str) -> Any:
    """A structlog logger whose lines carry `logger=name`."""
    return structlog.get_logger().bind(logger=name)
