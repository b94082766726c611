"""Measuring: profiles (sizes), result rows, and side-by-side timing.

Every timed figure is a median over several runs in which the engine and LangGraph
alternate (and swap who goes first each round), so a burst of load on a shared machine
hits both sides alike. A measured callable does its own setup and returns the seconds
of the part it measures, so building graphs or opening files never counts.
"""
from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "PROFILES",
    "Context",
    "Profile",
    "Row",
    "Target",
    "alternate",
    "median_of",
    "timed",
]

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Profile:
    """The sizes and repeat counts of one mode of the suite."""

    name: str
    runs: int
    """Timed runs per side (the median is reported)."""
    loop_steps: int
    send_tasks: int
    storage_steps: int
    history_steps: int
    history_loads: int
    """Repeats of each checkpoint load / history listing."""
    studio_nodes: int
    studio_edges: int
    studio_messages: int
    studio_checkpoints: int
    studio_repeats: int

    @property
    def is_smoke(self) -> bool:
        return self.name == "smoke"


PROFILES: dict[str, Profile] = {
    "smoke": Profile(
        name="smoke", runs=2, loop_steps=50, send_tasks=20, storage_steps=20, history_steps=300,
        history_loads=3, studio_nodes=20, studio_edges=40, studio_messages=200,
        studio_checkpoints=500, studio_repeats=2,
    ),
    "standard": Profile(
        name="standard", runs=3, loop_steps=2000, send_tasks=500, storage_steps=500, history_steps=10_000,
        history_loads=15, studio_nodes=200, studio_edges=400, studio_messages=10_000,
        studio_checkpoints=100_000, studio_repeats=5,
    ),
    "full": Profile(
        name="full", runs=7, loop_steps=2000, send_tasks=500, storage_steps=500, history_steps=10_000,
        history_loads=31, studio_nodes=200, studio_edges=400, studio_messages=10_000,
        studio_checkpoints=100_000, studio_repeats=11,
    ),
}


@dataclass(frozen=True, kw_only=True)
class Target:
    """What a row must show: `kind` is "ratio" (engine / LangGraph) or "max" (the
    engine's own value), with `limit` in the row's unit (or as a ratio)."""

    kind: str
    limit: float

    def text(self, unit: str) -> str:
        if self.kind == "ratio" or unit == "×":
            return f"≤ {self.limit:g}×"
        return f"≤ {self.limit:g} {unit}".rstrip()

    def met(self, engine: float | None, ratio: float | None) -> bool | None:
        """True/False, or None when the figure it needs is missing."""
        value = ratio if self.kind == "ratio" else engine
        if value is None:
            return None
        return value <= self.limit


@dataclass(kw_only=True)
class Row:
    """One line of the results table."""

    key: str
    """Short id, e.g. `superstep.sqlite` (what `--only` and the JSON use)."""
    workload: str
    """What the table shows, sizes included."""
    unit: str
    engine: float | None = None
    langgraph: float | None = None
    floor: float | None = None
    target: Target | None = None
    note: str = ""
    comparable: bool = True
    """False when engine / LangGraph means nothing (each side's own ratio is shown)."""
    status: str = ""
    """Set for rows that were not measured: "pending", "skipped", "error"."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ratio(self) -> float | None:
        if not self.comparable or self.engine is None or not self.langgraph:
            return None
        return self.engine / self.langgraph

    def verdict(self) -> str:
        if self.status:
            return self.status
        if self.target is None:
            return "info"
        met = self.target.met(self.engine, self.ratio)
        if met is None:
            return "no ref"
        return "met" if met else "MISSED"

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key, "workload": self.workload, "unit": self.unit, "engine": self.engine,
            "langgraph": self.langgraph, "ratio": self.ratio, "floor": self.floor,
            "target": self.target.text(self.unit) if self.target else None,
            "verdict": self.verdict(), "note": self.note, **({"extra": self.extra} if self.extra else {}),
        }


def timed(fn: Callable[[], T]) -> tuple[float, T]:
    """Seconds that `fn()` takes, and what it returned. A full collection runs first
    (untimed), so garbage the other side left behind is not collected on this side's
    clock; the collector stays on while timing, since collecting what a runtime
    allocates is part of its cost."""
    gc.collect()
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def alternate(
    sides: Mapping[str, Callable[[], float]], *, runs: int, warmup: int = 1
) -> dict[str, float]:
    """Median seconds per side. Each callable returns the seconds it measured; sides run
    in turn, the first side changing every round. `warmup` untimed rounds come first."""
    names = list(sides)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(warmup):
        for name in names:
            sides[name]()
    for i in range(runs):
        order = names if i % 2 == 0 else names[::-1]
        for name in order:
            samples[name].append(sides[name]())
    return {name: statistics.median(values) for name, values in samples.items()}


def median_of(fn: Callable[[], float], *, runs: int, warmup: int = 1) -> float:
    """Median of `fn()` (which returns the seconds it measured) over `runs` runs."""
    return alternate({"only": fn}, runs=runs, warmup=warmup)["only"]


@dataclass(kw_only=True)
class Context:
    """What every workload gets: the sizes, the LangGraph backend (None when it is not
    installed), a scratch folder and a way to say what it is doing."""

    profile: Profile
    langgraph: Any
    workdir: Path
    progress: Callable[[str], None] = lambda _text: None
    studio_python: str = ""
    """The interpreter of the studio's child processes (empty: this one)."""
    only: tuple[str, ...] = ()
    """`--only` tokens: workload names or row-key prefixes (empty: everything)."""
    _files: int = 0

    def wants(self, key: str) -> bool:
        """Whether rows under `key` (a row key or a prefix of some) were asked for."""
        return not self.only or any(key.startswith(t) or t.startswith(key) for t in self.only)

    def new_db(self, stem: str) -> str:
        """A path for a new SQLite file in the scratch folder (never reused)."""
        self._files += 1
        return str(self.workdir / f"{stem}-{self._files}.sqlite")
