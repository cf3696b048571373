"""What the client's threads have in common: started and stopped by hand, or run for
the length of a `with` block."""
from __future__ import annotations

from typing import TypeVar

_B = TypeVar("_B", bound="Background")


class Background:
    """Work that runs in the background from `start()` (which returns the object) until
    `stop()`. Subclasses write both."""

    def start(self: _B) -> _B:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self: _B) -> _B:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
