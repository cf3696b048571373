"""Single-use, expiring tokens that stand for a prepared streaming request."""
from __future__ import annotations

import secrets
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from fakecri.engine.errors import ResourceExhausted

T = TypeVar("T")


class TokenCache(Generic[T]):
    """Maps fresh random tokens to requests. `consume` hands a request out at most once.

    Time comes from `now` (seconds, monotonic); an entry older than `ttl_s` is gone.
    At most `max_entries` live tokens, whose requests weigh at most `max_bytes` together
    (`weight` says what one weighs): beyond either, `insert` raises ResourceExhausted.
    """

    def __init__(self, ttl_s: float, now: Callable[[], float], *, max_entries: int = 1000,
                 token_bytes: int = 12, max_bytes: int | None = None,
                 weight: Callable[[T], int] = lambda _: 0) -> None:
        self._ttl = ttl_s
        self._now = now
        self._max = max_entries
        self._max_bytes = max_bytes
        self._weight = weight
        self._nbytes = token_bytes
        self._entries: OrderedDict[str, tuple[float, T]] = OrderedDict()
        self.bytes = 0  # what the live entries weigh

    def __len__(self) -> int:
        self._expire()
        return len(self._entries)

    def _expire(self) -> None:
        now = self._now()
        while self._entries:
            token, (deadline, _) = next(iter(self._entries.items()))
            if deadline > now:
                break
            self._forget(token)

    def _forget(self, token: str) -> tuple[float, T] | None:
        entry = self._entries.pop(token, None)
        if entry is not None:
            self.bytes -= self._weight(entry[1])
        return entry

    def insert(self, request: T) -> str:
        self._expire()
        if len(self._entries) >= self._max:
            raise ResourceExhausted(
                f"too many streaming requests in flight (limit {self._max}); retry later")
        weight = self._weight(request)
        if self._max_bytes is not None and self.bytes + weight > self._max_bytes:
            raise ResourceExhausted(
                f"streaming requests in flight hold too much (limit {self._max_bytes} bytes); "
                "redeem or let expire the URLs already handed out, then retry")
        token = secrets.token_urlsafe(self._nbytes)
        while token in self._entries:
            token = secrets.token_urlsafe(self._nbytes)
        self._entries[token] = (self._now() + self._ttl, request)
        self.bytes += weight
        return token

    def consume(self, token: str) -> T | None:
        """The request for `token`, removing it; None if unknown, used or expired."""
        entry = self._forget(token)
        if entry is None:
            return None
        deadline, request = entry
        return request if deadline > self._now() else None
