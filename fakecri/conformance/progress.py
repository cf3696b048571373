"""How `fakecri conformance` shows a long run while it runs.

`LineProgress` writes one line per phase and per finished example (stderr, for logs and
CI). `TerminalProgress` does the same on a terminal and keeps a live line under them
with the elapsed time, the example being run and the CRI call being made (rich).
Both take what `Options.progress` and `Options.on_call` hand them.
"""
from __future__ import annotations

import sys
import time
from typing import IO, Any


class LineProgress:
    """`[  12.3s] text` lines on `file` (stderr by default)."""

    def __init__(self, file: IO[str] | None = None) -> None:
        self.file = file or sys.stderr
        self.started = time.monotonic()

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def phase(self, text: str) -> None:
        self.file.write(f"[{time.monotonic() - self.started:6.1f}s] {text}\n")
        self.file.flush()

    def call(self, example: int, text: str) -> None:
        pass


class TerminalProgress(LineProgress):
    """The lines of LineProgress, and under them a live line: elapsed time, `example i/n`
    and the call in flight. `total` is the number of random examples asked for."""

    def __init__(self, file: IO[str] | None = None, *, total: int | None = None, **console: Any) -> None:
        from rich.console import Console

        super().__init__(file)
        self.total = total
        self.console = Console(file=self.file, stderr=file is None, **console)
        self.current = "starting"
        self.example = 0
        self.last_call = ""
        self._live: Any = None

    def __enter__(self) -> TerminalProgress:
        from rich.live import Live

        self._live = Live(self._render(), console=self.console, refresh_per_second=8, transient=True,
                          get_renderable=self._render)
        self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)
            self._live = None

    def phase(self, text: str) -> None:
        if not text.startswith(("example ", "scripted example:")):
            self.current = text  # a phase of its own (shrinking, the burst), not a finished example
        self.console.print(f"[dim][{time.monotonic() - self.started:6.1f}s][/] {text}", highlight=False)

    def call(self, example: int, text: str) -> None:
        self.example, self.last_call = example, text

    def _render(self) -> Any:
        from rich.text import Text

        elapsed = time.monotonic() - self.started
        if self.current.startswith(("shrinking", "slow subscriber", "not shrinking")):
            where = self.current
        elif self.example == 0:
            where = "scripted example"
        elif self.total:
            shown = min(self.example, self.total)
            done = "#" * (20 * (shown - 1) // self.total)
            where = f"random examples [{done:<20}] {shown}/{self.total}"
        else:
            where = f"example {self.example}"
        line = Text(f"[{elapsed:6.1f}s] ", style="dim")
        line.append(where, style="bold")
        if self.last_call:
            line.append("  > " + self.last_call[:200], style="cyan")
        return line
