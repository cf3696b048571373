"""Injected identity: 64 lowercase hex characters, like containerd's ids."""
from __future__ import annotations

import random
from typing import Any, Protocol


class IdSource(Protocol):
    def new_id(self) -> str: ...


class RandomIds:
    """Random 256-bit ids; a seed makes the sequence reproducible."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def new_id(self) -> str:
        return f"{self._rng.getrandbits(256):064x}"

    def state(self) -> list[Any]:
        """Where the sequence is, as JSON-able data (for the state file)."""
        version, internal, gauss = self._rng.getstate()
        return [version, list(internal), gauss]

    def ahead(self, n: int) -> list[Any]:
        """Where the sequence will be after `n` more ids, as `state()` says it (this one does not move)."""
        rng = random.Random()
        rng.setstate(self._rng.getstate())
        for _ in range(n):
            rng.getrandbits(256)
        version, internal, gauss = rng.getstate()
        return [version, list(internal), gauss]

    def set_state(self, state: Any) -> None:
        """Continue the sequence from a `state()`; ValueError when it is not one."""
        try:
            version, internal, gauss = state
            self._rng.setstate((version, tuple(internal), gauss))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not an id sequence state: {exc}") from None


class SequentialIds:
    """Readable ids for tests: a prefix byte pattern plus a counter, still 64 hex."""

    def __init__(self, start: int = 1) -> None:
        self._next = start

    def new_id(self) -> str:
        n = self._next
        self._next += 1
        return f"{n:064x}"
