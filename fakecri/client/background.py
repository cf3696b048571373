"""What the client's threads have in common: started and stopped by hand, or run for
the length of a `with` block."""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TypeVar

_B = TypeVar("_B", bound="Background")


class Background(ABC):
    """Work that runs in the background from `start()` (which returns the object) until
    `stop()`. Subclasses write both."""

    @abstractmethod
    def start(self: _B) -> _B: ...

    @abstractmethod
    def stop(self) -> None: ...

    def __enter__(self: _B) -> _B:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
