"""Per-superstep overhead: a loop of one trivial node, without a checkpointer, with the
in-memory one, and with SQLite committing every superstep.

Each timed run builds a fresh graph and saver (a fresh file for SQLite), then times one
`invoke()` of the whole loop; the figure is microseconds per superstep. The floor is a
plain Python loop calling the same node and router and merging the update into a dict.
"""
from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from typing import Any

import orjson

from .graphs import END, ENGINE, Backend, loop_graph, loop_parts, remove_db
from .harness import Context, Row, Target, alternate, median_of, timed

__all__ = ["NAME", "run"]

NAME = "superstep"

_SAVERS = {
    "none": "no checkpointer",
    "memory": "InMemorySaver",
    "sqlite": "SqliteSaver",
}
_NOTES = {
    "sqlite": "LangGraph: SqliteSaver(sqlite3.connect(path, check_same_thread=False)), its default "
              "durability; both sides start from an empty file each run",
}


def _side(ctx: Context, backend: Backend, saver_kind: str, steps: int) -> Callable[[], float]:
    """One timed invoke of the `steps`-long loop; returns its seconds."""

    def once() -> float:
        saver: Any = None
        path = None
        if saver_kind == "memory":
            saver = backend.memory_saver()
        elif saver_kind == "sqlite":
            path = ctx.new_db(f"loop-{backend.name}")
            saver = backend.sqlite_saver(path)
        graph = loop_graph(backend, steps, saver)
        config: dict[str, Any] = {"recursion_limit": steps + 10}
        if saver is not None:
            config["configurable"] = {"thread_id": "loop"}
        try:
            seconds, out = timed(lambda: graph.invoke({"n": 0}, config))
        finally:
            if saver is not None:
                backend.close_saver(saver)
            if path is not None:
                remove_db(path)
        if out.get("n") != steps:
            raise AssertionError(f"{backend.name}: the loop ended at n={out.get('n')}, not {steps}")
        return seconds

    return once


def _floor(steps: int) -> float:
    """Seconds of a plain loop over the same node and router."""
    step, again = loop_parts(steps)
    start = time.perf_counter()
    state: dict[str, Any] = {"n": 0}
    while True:
        state = {**state, **step(state)}  # type: ignore[arg-type]
        if again(state) == END:  # type: ignore[arg-type]
            break
    return time.perf_counter() - start


def _bare_inserts(ctx: Context, steps: int) -> Callable[[], float]:
    """The SqliteSaver floor: the same loop with one INSERT of the state (orjson) and one
    commit per superstep, in a WAL file with synchronous=NORMAL as the saver opens it."""
    step, again = loop_parts(steps)

    def once() -> float:
        path = ctx.new_db("bare-inserts")
        conn = sqlite3.connect(path)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("CREATE TABLE steps (thread TEXT, step INTEGER, state BLOB, PRIMARY KEY (thread, step))")
            conn.commit()
            start = time.perf_counter()
            state: dict[str, Any] = {"n": 0}
            i = 0
            while True:
                state = {**state, **step(state)}  # type: ignore[arg-type]
                i += 1
                conn.execute("INSERT INTO steps VALUES (?, ?, ?)", ("loop", i, orjson.dumps(state)))
                conn.commit()
                if again(state) == END:  # type: ignore[arg-type]
                    break
            return time.perf_counter() - start
        finally:
            conn.close()
            remove_db(path)

    return once


def run(ctx: Context) -> list[Row]:
    p = ctx.profile
    steps = p.loop_steps
    floor_us = median_of(lambda: _floor(steps), runs=max(p.runs, 5)) / steps * 1e6
    rows = []
    for kind, label in _SAVERS.items():
        if not ctx.wants(f"superstep.{kind}"):
            continue
        ctx.progress(f"superstep: {label}")
        backends = [ENGINE] + ([ctx.langgraph] if ctx.langgraph else [])
        warm = max(10, steps // 10)
        for backend in backends:  # imports, caches, the thread pool: off the clock
            _side(ctx, backend, kind, warm)()
        sides = {b.name: _side(ctx, b, kind, steps) for b in backends}
        if kind == "sqlite":
            sides["bare"] = _bare_inserts(ctx, steps)
        medians = alternate(sides, runs=p.runs, warmup=0)
        rows.append(Row(
            key=f"superstep.{kind}", workload=f"superstep, {label} ({steps:,} steps)", unit="µs/step",
            engine=medians["engine"] / steps * 1e6,
            langgraph=medians["langgraph"] / steps * 1e6 if "langgraph" in medians else None,
            floor=floor_us, target=Target(kind="ratio", limit=0.05), note=_NOTES.get(kind, ""),
        ))
        if "bare" in medians:
            rows.append(Row(
                key="superstep.sqlite_vs_inserts",
                workload=f"superstep, SqliteSaver / a bare one-INSERT-per-step loop ({steps:,} steps)",
                unit="×", engine=medians["engine"] / medians["bare"], floor=1.0, comparable=False,
                target=Target(kind="max", limit=2.0),
                note=f"bare loop: {medians['bare'] / steps * 1e6:.1f} µs/step (sqlite3, WAL, synchronous=NORMAL, "
                     "one INSERT of the orjson state and one commit a step), timed in the same rounds",
            ))
    return rows
