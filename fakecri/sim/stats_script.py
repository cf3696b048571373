"""Scripted resource figures: what a test says a container uses, and when.

A container's figures come from its `fakecri.io/` annotations (from its start) and from
the control API's SetStats (from the moment of the call); each is a curve
(sim/curves.py). Figures nobody scripted keep the plausible default (sim/stats.py).

| figure | annotation | SetStats field | unit |
|---|---|---|---|
| CPU rate (the counter is its integral) | `fakecri.io/cpu` | `cpu` | cores: `250m`, `1.5` |
| memory working set | `fakecri.io/memory` | `memory` | bytes: `50Mi`, `1Gi` |
| memory usage (default: the working set) | `fakecri.io/memory-usage` | `memory_usage` | bytes |
| memory RSS (default: the working set) | `fakecri.io/memory-rss` | `memory_rss` | bytes |
| writable layer | `fakecri.io/disk` | `disk` | bytes |
| pressure (PSI), per resource and kind | `fakecri.io/psi` | `psi` | percent of time stalled |

`fakecri.io/psi` lists `RESOURCE.KIND=CURVE` entries separated by `;`, RESOURCE one of
cpu, memory, io and KIND some or full: `memory.some=40; memory.full=0->20 over 60s`.

A `StatsScript` is data: each figure's `Track` is the curves that hold it, each from
when it holds, so the figures stay pure functions of the record, the script and the time.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from fakecri.engine.errors import InvalidArgument
from fakecri.engine.records import Container
from fakecri.sim.curves import BYTES, CORES, NANO, PERCENT, Curve, Unit, parse_curve

PREFIX = "fakecri.io/"
UNITS: dict[str, Unit] = {"cpu": CORES, "memory": BYTES, "memory-usage": BYTES, "memory-rss": BYTES, "disk": BYTES}
PSI_RESOURCES = ("cpu", "memory", "io")
PSI_KINDS = ("some", "full")
PSI_TRACKS = tuple(f"psi:{r}.{k}" for r in PSI_RESOURCES for k in PSI_KINDS)
FIGURES = (*UNITS, "psi")  # what a script may set, as annotation keys (without the prefix) name them
KEYS = tuple(PREFIX + name for name in FIGURES)


@dataclass(frozen=True, slots=True)
class Track:
    """The curves of one figure: (since_ns, curve) in order; since None: from the container's
    start (an annotation), else from that moment (a SetStats call), each until the next."""

    pieces: tuple[tuple[int | None, Curve], ...]

    def _spans(self, started_at: int) -> list[tuple[int, Curve]]:
        return [(started_at if since is None else max(since, started_at), curve) for since, curve in self.pieces]

    def value(self, started_at: int, t_ns: int) -> int | None:
        """The figure at `t_ns` (absolute); None before any curve holds (the default applies)."""
        held = None
        for start, curve in self._spans(started_at):
            if start <= t_ns:
                held = (start, curve)
        return None if held is None else held[1].at(t_ns - held[0])

    def first_start(self, started_at: int) -> int:
        """When the first curve begins to hold."""
        return self._spans(started_at)[0][0]

    def integral(self, started_at: int, t_ns: int) -> Fraction:
        """The scripted part of the figure's integral from the first curve's start to `t_ns`."""
        spans = self._spans(started_at)
        total = Fraction(0)
        for i, (start, curve) in enumerate(spans):
            end = min(t_ns, spans[i + 1][0]) if i + 1 < len(spans) else t_ns
            if end > start:
                total += curve.integral(end - start)
        return total


@dataclass(frozen=True, slots=True)
class StatsScript:
    """The scripted figures of one container, by track name (`cpu`, `memory`, ... `psi:io.full`)."""

    tracks: Mapping[str, Track]

    def get(self, name: str) -> Track | None:
        return self.tracks.get(name)

    def with_curves(self, curves: Mapping[str, Curve], since_ns: int | None) -> StatsScript:
        """This script with `curves` holding from `since_ns` on (None: from the start)."""
        tracks = dict(self.tracks)
        for name, curve in curves.items():
            old = tracks.get(name)
            tracks[name] = Track((old.pieces if old else ()) + ((since_ns, curve),))
        return StatsScript(tracks)

    @property
    def has_psi(self) -> bool:
        return any(name.startswith("psi:") for name in self.tracks)


EMPTY = StatsScript({})


def parse_figures(values: Mapping[str, str], where: Callable[[str], str]) -> dict[str, Curve]:
    """Curves by track name from figure texts keyed as FIGURES names them; InvalidArgument
    that starts with `where(figure)` (the annotation or field) and says what is wrong."""
    curves: dict[str, Curve] = {}
    for name, text in values.items():
        try:
            if name == "psi":
                curves.update(_psi(text))
            else:
                curves[name] = parse_curve(text, UNITS[name])
        except ValueError as exc:
            raise InvalidArgument(f"{where(name)}: {exc}") from None
    return curves


def _psi(text: str) -> dict[str, Curve]:
    curves = {}
    for entry in text.split(";"):
        entry = entry.strip()
        if not entry:
            continue
        key, eq, curve = entry.partition("=")
        name = "psi:" + key.strip()
        if not eq or name not in PSI_TRACKS:
            raise ValueError(f"{entry!r} is not RESOURCE.KIND=CURVE with RESOURCE cpu, memory or io and KIND some "
                             "or full (e.g. 'memory.some=40; memory.full=0->20 over 60s')")
        curves[name] = parse_curve(curve, PERCENT)
    if not curves:
        raise ValueError("no pressure given (e.g. 'memory.some=40; io.full=5')")
    return curves


def script_from_settings(settings: Mapping[str, str]) -> StatsScript | None:
    """The script of a container's stats annotations (already merged with its pod's), None
    when it has none; InvalidArgument naming the annotation on a bad value."""
    values = {key[len(PREFIX):]: value for key, value in settings.items() if key in KEYS}
    if not values:
        return None
    return EMPTY.with_curves(parse_figures(values, lambda name: f"annotation {PREFIX}{name}"), None)


# ---------------------------------------------------------------- reading a track


def end_of(c: Container, now_ns: int) -> int:
    """The moment a container's figures stop moving: its exit, else now."""
    return c.finished_at if c.finished_at else now_ns


def scripted_total(track: Track, c: Container, now_ns: int, default_until: Callable[[int], int]) -> int:
    """A counter whose rate the track scripts (rate x ns / 1e9: CPU core-nanoseconds from nanocores):
    the default's counter until the first curve holds, the curves' integral after."""
    if not c.started_at:
        return 0
    end = max(c.started_at, end_of(c, now_ns))
    first = track.first_start(c.started_at)
    before = default_until(min(end, first)) if first > c.started_at else 0
    return int((before * NANO + track.integral(c.started_at, end)) // NANO)
