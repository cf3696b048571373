"""Figures over time, as test authors write them: a value, a ramp, or steps.

    100m                      a value, held (here 0.1 of a core)
    0->200Mi over 60s         from 0 at the start to 200Mi 60 s later, in a straight line; then held
    steps 10Mi@0s,100Mi@30s   10Mi from the start, 100Mi from 30 s on (0 before the first step)

Times count from the curve's origin (a container's start, or the moment a control call
set it). Quantities are written as Kubernetes writes them: bytes with `Ki Mi Gi Ti Pi`
(powers of 1024) or `k M G T P` (powers of 1000), CPU in cores (`1.5`) or millicores
(`250m`), pressure in percent of time stalled (`12.5` or `12.5%`). `Curve.at` is the
value at a moment and `Curve.integral` its exact integral up to one, so a counter derived
from a rate (CPU seconds from cores, stall time from a percentage) grows exactly as the
rate says and never goes back.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from fakecri.engine.durations import parse_duration_ns

NANO = 1_000_000_000
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50}
_DECIMAL = {"k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15}
_QUANTITY = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z%]*)")
_RAMP = re.compile(r"(?P<a>[^\s>-][^>]*?)\s*->\s*(?P<b>.+?)\s+over\s+(?P<d>\S+)")
MAX_BYTES = 2**62  # 4 EiB
MAX_CORES = 100_000


@dataclass(frozen=True, slots=True)
class Unit:
    """How a kind of figure is written: its name in messages, its examples, its bound."""

    name: str
    examples: str
    maximum: int  # in the unit's own integer scale

    def parse(self, text: str) -> int:
        """The integer value of one quantity (bytes, nanocores, or parts per million of time)."""
        m = _QUANTITY.fullmatch(text.strip())
        if m is None:
            raise ValueError(f"{text.strip()!r} is not {self.name} (examples: {self.examples})")
        number, suffix = Fraction(m.group(1)), m.group(2)
        scale = self._scale(suffix)
        if scale is None:
            raise ValueError(f"{text.strip()!r}: unknown unit {suffix!r} for {self.name} (examples: {self.examples})")
        value = round(number * scale)
        if value > self.maximum:
            raise ValueError(f"{text.strip()!r} is more than {self.name} can be")
        return value

    def _scale(self, suffix: str) -> int | None:
        if self.name == "bytes":
            return 1 if suffix in ("", "B") else _BINARY.get(suffix) or _DECIMAL.get(suffix)
        if self.name == "cores":
            return {"": NANO, "m": NANO // 1000, "u": 1000, "n": 1}.get(suffix)
        return 10_000 if suffix in ("", "%") else None  # percent -> ppm


BYTES = Unit("bytes", "50Mi, 1.5Gi, 200M, 1048576", MAX_BYTES)
CORES = Unit("cores", "250m, 0.5, 2", MAX_CORES * NANO)
PERCENT = Unit("percent", "12.5, 40%", 1_000_000)


@dataclass(frozen=True, slots=True)
class Curve:
    """(offset_ns, value) points from the origin: linear between them (`steps` False) or
    holding each value until the next point; before the first point, 0 (steps) or the first
    value; after the last, the last value."""

    points: tuple[tuple[int, int], ...]
    steps: bool = False

    def at(self, t_ns: int) -> int:
        pts = self.points
        if t_ns < pts[0][0]:
            return 0 if self.steps else pts[0][1]
        for (t0, v0), (t1, v1) in zip(pts, pts[1:], strict=False):
            if t_ns < t1:
                return v0 if self.steps else v0 + (v1 - v0) * (t_ns - t0) // (t1 - t0)
        return pts[-1][1]

    def integral(self, t_ns: int) -> Fraction:
        """The exact integral of the curve from offset 0 to `t_ns` (value x nanoseconds)."""
        if t_ns <= 0:
            return Fraction(0)
        pts = self.points
        total = Fraction(0)
        if not self.steps:  # before the first point it holds the first value (steps: 0)
            total += pts[0][1] * min(t_ns, pts[0][0])
        for (t0, v0), (t1, v1) in zip(pts, pts[1:], strict=False):
            if t_ns <= t0:
                return total
            span = min(t_ns, t1) - t0
            total += v0 * span if self.steps else v0 * span + Fraction((v1 - v0) * span * span, 2 * (t1 - t0))
        last_t, last_v = pts[-1]
        if t_ns > last_t:
            total += last_v * (t_ns - last_t)
        return total


def parse_curve(text: str, unit: Unit) -> Curve:
    """A curve in the grammar above; ValueError saying what is wrong."""
    s = " ".join(text.split())
    if not s:
        raise ValueError(f"'' is not a value or a curve of {unit.name} (examples: {unit.examples})")
    if s.startswith("steps"):
        body = s[len("steps"):].strip()
        if not body:
            raise ValueError("steps needs VALUE@TIME pairs, e.g. 'steps 10Mi@0s,100Mi@30s'")
        points: list[tuple[int, int]] = []
        for part in body.split(","):
            value, at, when = part.strip().partition("@")
            if not at:
                raise ValueError(f"step {part.strip()!r} is not VALUE@TIME (e.g. 100Mi@30s)")
            t = parse_duration_ns(when)
            if points and t is not None and t <= points[-1][0]:
                raise ValueError(f"step {part.strip()!r}: the times must increase")
            points.append((t or 0, unit.parse(value)))
        return Curve(tuple(points), steps=True)
    m = _RAMP.fullmatch(s)
    if m is not None:
        duration = parse_duration_ns(m.group("d")) or 0
        if duration <= 0:
            raise ValueError(f"{s!r}: the ramp's duration must be above zero")
        return Curve(((0, unit.parse(m.group("a"))), (duration, unit.parse(m.group("b")))))
    if "->" in s or " over" in s:
        raise ValueError(f"{s!r} is not a ramp 'FROM->TO over DURATION' (e.g. 0->200Mi over 60s)")
    return Curve(((0, unit.parse(s)),))
