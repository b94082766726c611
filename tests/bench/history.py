"""Long histories: a thread of N supersteps in a SQLite file, then reading it back.

Two kinds of thread, each in its own file (and a 10-step thread in a file of its own):

- *note*: each step replaces a 200-character string (flat state), on both sides;
- *append*: each step appends a 200-character string to an `operator.add` list, engine
  only (LangGraph stores the whole list at every step: gigabytes at 10,000 steps).

Then, through a freshly opened saver (as a debugger opening the file would):
`get_state()` of the first, middle and last checkpoint; the first 100 of the history
(`list_headers` / LangGraph's `saver.list`, and `get_state_history`); and the cost of a
step after N steps against one after 10: both threads are continued (a new `stop`) in
turns, so the machine's load hits both alike. Each thread is alone in its file: a step of a
thread that newer threads follow in one file writes more B-tree pages (its row goes inside
the table, not at its end), whatever its length; that is where a thread sits, not how long
it is.
"""
from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

import orjson

from .graphs import ENGINE, Backend, growing_log_graph, note_graph, remove_db
from .harness import Context, Row, Target, alternate, median_of

__all__ = ["NAME", "run", "step_growth"]

NAME = "history"

_POSITIONS = ("first", "middle", "last")


class _Thread:
    """A thread of `steps` supersteps built in its own file, and a 10-step thread in a file
    of its own beside it; `graph` (and `short_graph`) reopened on fresh savers after the
    build. Each thread alone in its file: a thread's new rows then go at the end of its
    file's tables, whatever its length (continuing a thread that newer threads follow in
    one file writes a B-tree page or two more a step, on both sides: not history length)."""

    def __init__(self, ctx: Context, backend: Backend, kind: str, steps: int) -> None:
        self.backend, self.kind, self.steps = backend, kind, steps
        self.path = ctx.new_db(f"history-{kind}-{backend.name}")
        self.short_path = ctx.new_db(f"history-{kind}-short-{backend.name}")
        self.config: dict[str, Any] = {"configurable": {"thread_id": kind}}
        self.done = {kind: steps, "short": 10}
        for path, thread_id in ((self.path, kind), (self.short_path, "short")):
            saver = backend.sqlite_saver(path)
            try:
                stop = self.done[thread_id]
                self._graph(saver).invoke(self._first_input(stop),
                                          {"recursion_limit": stop + 10, "configurable": {"thread_id": thread_id}})
            finally:
                backend.close_saver(saver)
        self.saver = backend.sqlite_saver(self.path)
        self.graph = self._graph(self.saver)
        self.short_saver = backend.sqlite_saver(self.short_path)
        self.short_graph = self._graph(self.short_saver)
        newest_first = [s.config["configurable"]["checkpoint_id"] for s in self.graph.get_state_history(self.config)]
        if len(newest_first) < steps:
            raise AssertionError(f"{backend.name}: {len(newest_first)} checkpoints for {steps} steps")
        # "first" is the oldest checkpoint holding state: the one before it (step -1) only
        # records the input, on both sides.
        self.ids = {"first": newest_first[-2], "middle": newest_first[len(newest_first) // 2],
                    "last": newest_first[0]}
        self.count = len(newest_first)

    def _graph(self, saver: Any) -> Any:
        return (note_graph if self.kind == "note" else growing_log_graph)(self.backend, saver)

    def _first_input(self, stop: int) -> dict[str, Any]:
        if self.kind == "note":
            return {"n": 0, "note": "", "stop": stop}
        return {"log": [], "stop": stop}

    def close(self) -> None:
        self.backend.close_saver(self.saver)
        self.backend.close_saver(self.short_saver)
        remove_db(self.path)
        remove_db(self.short_path)

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

    def step_growth(self, runs: int) -> tuple[float, float, float]:
        """(long / short, short µs, long µs): a step of the long thread against a step of
        the 10-step thread, continued in turns."""
        return step_growth((self.graph, self.kind), (self.short_graph, "short"), self.done, runs=runs,
                           count=max(10, min(50, self.steps // 20)))


def _go_on(graph: Any, thread_id: str, done: dict[str, int], count: int) -> Callable[[], float]:
    """Seconds per step of `count` more supersteps on a thread (one run raising `stop`),
    timed between the first and the last streamed superstep: loading the thread when
    the run starts is not a step."""

    def once() -> float:
        done[thread_id] += count
        config = {"recursion_limit": count + 10, "configurable": {"thread_id": thread_id}}
        stamps = [time.perf_counter() for _ in graph.stream({"stop": done[thread_id]}, config, stream_mode="updates")]
        if len(stamps) < count:
            raise AssertionError(f"thread {thread_id!r}: {len(stamps)} supersteps streamed, {count} expected")
        return (stamps[-1] - stamps[0]) / (len(stamps) - 1)

    return once


def step_growth(long: tuple[Any, str], short: tuple[Any, str], done: dict[str, int], *, runs: int, count: int,
                ) -> tuple[float, float, float]:
    """(long / short, short µs, long µs): a step of the long thread against a step of the
    short one (each a (graph, thread id)), both continued by `count` steps in turns; `done`
    holds each thread's `stop` so far (raised as they go on)."""
    medians = alternate({"short": _go_on(*short, done, count), "long": _go_on(*long, done, count)},
                        runs=runs, warmup=1)
    return medians["long"] / medians["short"], medians["short"] * 1e6, medians["long"] * 1e6


def _thread_rows(ctx: Context, threads: dict[str, _Thread], label: str, key: str) -> list[Row]:
    runs = ctx.profile.history_loads
    engine = threads["engine"]
    has_lg = "langgraph" in threads
    # issue 24: any checkpoint at most 1× LangGraph at 10k; the append-only thread has no
    # LangGraph side (it stores the whole list per step), so it keeps the project's 5 ms
    load_target = Target(kind="ratio", limit=1.0) if key == "history" else Target(kind="max", limit=5.0)
    rows = []
    for position in _POSITIONS:
        medians = alternate({name: t.load(position) for name, t in threads.items()}, runs=runs, warmup=2)
        floor = median_of(engine.decode_floor(position), runs=runs)
        rows.append(Row(
            key=f"{key}.load_{position}", workload=f"get_state, {position} checkpoint of {label}", unit="ms",
            engine=medians["engine"] * 1e3, langgraph=medians["langgraph"] * 1e3 if has_lg else None,
            floor=floor * 1e3, target=load_target,
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
    growth = {name: t.step_growth(max(ctx.profile.runs, 5)) for name, t in threads.items()}
    ratio, short, long = growth["engine"]
    # issue 24: step cost flat in history length (≤ 1.1×); the append-only thread's state
    # grows by an item a step (its reducer copies the list), the project's 1.5× for it
    flat = 1.1 if key == "history" else 1.5
    rows.append(Row(
        key=f"{key}.step_growth", workload=f"step cost after {engine.steps:,} steps / after 10, {label}",
        unit="×", engine=ratio, langgraph=growth["langgraph"][0] if has_lg else None, floor=1.0,
        target=Target(kind="max", limit=flat), comparable=False,
        note=f"engine: {long:.0f} µs vs {short:.0f} µs per step; both threads continued in turns, each in its own file",
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
