"""Long histories: a thread of N supersteps in a SQLite file, then reading it back.

Two threads are built by streaming the graph (`stream_mode="updates"`, one chunk per
superstep, timestamps between chunks give each step's cost):

- *note*: each step replaces a 200-character string (flat state), on both sides;
- *append*: each step appends a 200-character string to an `operator.add` list, engine
  only (LangGraph stores the whole list at every step: gigabytes at 10,000 steps).

Then, through a freshly opened saver (as a debugger opening the file would):
`get_state()` of the first, middle and last checkpoint; the first 100 of the history
(`list_headers` / LangGraph's `saver.list`, and `get_state_history`); and the cost of
the last steps against that of the early ones.
"""
from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable
from typing import Any

import orjson

from .graphs import ENGINE, Backend, log_graph, note_graph, remove_db, texts
from .harness import Context, Row, Target, alternate, median_of

__all__ = ["NAME", "run"]

NAME = "history"

_POSITIONS = ("first", "middle", "last")


class _Thread:
    """A thread built in its own file; `graph` reopened on a fresh saver after the build."""

    def __init__(self, ctx: Context, backend: Backend, kind: str, steps: int) -> None:
        self.backend, self.kind, self.steps = backend, kind, steps
        self.path = ctx.new_db(f"history-{kind}-{backend.name}")
        self.config: dict[str, Any] = {"recursion_limit": steps + 10, "configurable": {"thread_id": kind}}
        saver = backend.sqlite_saver(self.path)
        try:
            graph, first = self._graph(saver)
            stamps = [time.perf_counter()]
            for _chunk in graph.stream(first, self.config, stream_mode="updates"):
                stamps.append(time.perf_counter())
        finally:
            backend.close_saver(saver)
        self.step_seconds = [b - a for a, b in zip(stamps, stamps[1:])]
        self.saver = backend.sqlite_saver(self.path)
        self.graph, _ = self._graph(self.saver)
        newest_first = [s.config["configurable"]["checkpoint_id"] for s in self.graph.get_state_history(self.config)]
        if len(newest_first) < steps:
            raise AssertionError(f"{backend.name}: {len(newest_first)} checkpoints for {steps} steps")
        # "first" is the oldest checkpoint holding state: the one before it (step -1) only
        # records the input, on both sides.
        self.ids = {"first": newest_first[-2], "middle": newest_first[len(newest_first) // 2],
                    "last": newest_first[0]}
        self.count = len(newest_first)

    def _graph(self, saver: Any) -> tuple[Any, dict[str, Any]]:
        if self.kind == "note":
            return note_graph(self.backend, self.steps, saver), {"n": 0, "note": ""}
        return log_graph(self.backend, texts(self.steps), saver), {"log": []}

    def close(self) -> None:
        self.backend.close_saver(self.saver)
        remove_db(self.path)

    # -- what is measured -----------------------------------------------------------------
    def load(self, position: str) -> Callable[[], float]:
        config = {"configurable": {"thread_id": self.kind, "checkpoint_id": self.ids[position]}}

        def once() -> float:
            start = time.perf_counter()
            snapshot = self.graph.get_state(config)
            seconds = time.perf_counter() - start
            if not snapshot.values:
                raise AssertionError(f"{self.backend.name}: checkpoint {position} loaded empty")
            return seconds

        return once

    def decode_floor(self, position: str) -> Callable[[], float]:
        """Decoding the checkpoint's values from one JSON blob (orjson): what loading it
        costs at the very least, wherever it sits."""
        config = {"configurable": {"thread_id": self.kind, "checkpoint_id": self.ids[position]}}
        blob = orjson.dumps(dict(self.graph.get_state(config).values))

        def once() -> float:
            start = time.perf_counter()
            orjson.loads(blob)
            return time.perf_counter() - start

        return once

    def first_100(self, how: str) -> Callable[[], float]:
        def once() -> float:
            start = time.perf_counter()
            if how == "state_history":
                got = list(itertools.islice(self.graph.get_state_history(self.config), 100))
            elif self.backend is ENGINE:
                got = list(self.saver.list_headers(self.kind, limit=100))
            else:
                got = list(self.saver.list(self.config, limit=100))
            seconds = time.perf_counter() - start
            if len(got) != min(100, self.count):
                raise AssertionError(f"{self.backend.name}: listed {len(got)} of the first 100")
            return seconds

        return once

    def step_ratio(self) -> tuple[float, float, float]:
        """(late / early, early µs, late µs): the mean cost of a step among the last tenth
        of the steps against that of the first tenth (from the 10th step). Means, not
        medians: a cost paid every few hundred steps (SQLite's WAL checkpoint) counts."""
        window = max(20, self.steps // 10)
        early = statistics.fmean(self.step_seconds[10:10 + window])
        late = statistics.fmean(self.step_seconds[-window:])
        return late / early, early * 1e6, late * 1e6


def _thread_rows(ctx: Context, threads: dict[str, _Thread], label: str, key: str) -> list[Row]:
    runs = ctx.profile.history_loads
    engine = threads["engine"]
    has_lg = "langgraph" in threads
    rows = []
    for position in _POSITIONS:
        medians = alternate({name: t.load(position) for name, t in threads.items()}, runs=runs, warmup=2)
        floor = median_of(engine.decode_floor(position), runs=runs)
        rows.append(Row(
            key=f"{key}.load_{position}", workload=f"get_state, {position} checkpoint of {label}", unit="ms",
            engine=medians["engine"] * 1e3, langgraph=medians["langgraph"] * 1e3 if has_lg else None,
            floor=floor * 1e3, target=Target(kind="max", limit=5.0),
            note="floor: orjson.loads of the checkpoint's values as one blob" if position == "last" else "",
        ))
    if key == "history":
        for how, what, note in (
            ("headers", "list_headers(limit=100)", "LangGraph: saver.list(config, limit=100), its cheapest listing"),
            ("state_history", "get_state_history, first 100", "lazy: islice(graph.get_state_history(config), 100)"),
        ):
            medians = alternate({name: t.first_100(how) for name, t in threads.items()}, runs=runs, warmup=1)
            rows.append(Row(
                key=f"history.{how}", workload=f"{what} of {label}", unit="ms", engine=medians["engine"] * 1e3,
                langgraph=medians["langgraph"] * 1e3 if has_lg else None, target=Target(kind="max", limit=20.0),
                note=note,
            ))
    ratio, early, late = engine.step_ratio()
    lg_ratio = threads["langgraph"].step_ratio()[0] if has_lg else None
    rows.append(Row(
        key=f"{key}.step_growth", workload=f"step cost, last tenth / first tenth of {label}", unit="×",
        engine=ratio, langgraph=lg_ratio, floor=1.0, target=Target(kind="max", limit=1.5),
        note=f"engine: {early:.0f} µs per step early, {late:.0f} µs late (mean, timed between streamed chunks)",
        comparable=False,
    ))
    return rows


def run(ctx: Context) -> list[Row]:
    steps = ctx.profile.history_steps
    rows: list[Row] = []
    for kind, key, label, backends in (
        ("note", "history", f"a {steps:,}-step thread", [ENGINE, ctx.langgraph]),
        ("append", "history_append", f"a {steps:,}-step append-only thread", [ENGINE]),
    ):
        if not ctx.wants(f"{key}."):
            continue
        threads: dict[str, _Thread] = {}
        try:
            for backend in backends:
                if backend is None:
                    continue
                ctx.progress(f"history: building the {kind} thread, {steps:,} steps on {backend.name}")
                threads[backend.name] = _Thread(ctx, backend, kind, steps)
            ctx.progress(f"history: reading the {kind} thread")
            found = _thread_rows(ctx, threads, label, key)
        finally:
            for thread in threads.values():
                thread.close()
        if kind == "append":
            for row in found:
                row.note = (row.note + "; " if row.note else "") + "engine only: LangGraph stores the whole list per step"
        rows += found
    return rows
