"""The async API per superstep: `ainvoke` / `astream` of the one-node loop against the
engine's own `invoke` of the same loop, measured interleaved in one run (issue 24 target
2: at most 1.3x), with no checkpointer, InMemorySaver and SqliteSaver."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from .graphs import ENGINE, loop_graph, remove_db
from .harness import Context, Row, Target, alternate, timed

__all__ = ["NAME", "run"]

NAME = "async_api"

_SAVERS = {"none": "no checkpointer", "memory": "InMemorySaver", "sqlite": "SqliteSaver"}


def _side(ctx: Context, saver_kind: str, steps: int, how: str) -> Callable[[], float]:
    """One timed call (`invoke`, `ainvoke` or `astream`) of the loop; returns its seconds."""

    def once() -> float:
        saver: Any = None
        path = None
        if saver_kind == "memory":
            saver = ENGINE.memory_saver()
        elif saver_kind == "sqlite":
            path = ctx.new_db(f"async-{how}")
            saver = ENGINE.sqlite_saver(path)
        graph = loop_graph(ENGINE, steps, saver)
        config: dict[str, Any] = {"recursion_limit": steps + 10}
        if saver is not None:
            config["configurable"] = {"thread_id": "loop"}

        async def streamed() -> Any:
            chunks = [chunk async for chunk in graph.astream({"n": 0}, config, stream_mode="values")]
            return chunks[-1]

        try:
            if how == "invoke":
                seconds, out = timed(lambda: graph.invoke({"n": 0}, config))
            elif how == "ainvoke":
                seconds, out = timed(lambda: asyncio.run(graph.ainvoke({"n": 0}, config)))
            else:
                seconds, out = timed(lambda: asyncio.run(streamed()))
        finally:
            if saver is not None:
                ENGINE.close_saver(saver)
            if path is not None:
                remove_db(path)
        if out.get("n") != steps:
            raise AssertionError(f"{how}: the loop ended at n={out.get('n')}, not {steps}")
        return seconds

    return once


def run(ctx: Context) -> list[Row]:
    p = ctx.profile
    steps = p.loop_steps
    rows = []
    for kind, label in _SAVERS.items():
        if not ctx.wants(f"async_api.{kind}"):
            continue
        ctx.progress(f"async API: {label}")
        sides = {how: _side(ctx, kind, steps, how) for how in ("invoke", "ainvoke", "astream")}
        for side in sides.values():  # imports, caches, the worker threads: off the clock
            _side(ctx, kind, max(10, steps // 10), "invoke")()
            side()
        medians = alternate(sides, runs=p.runs, warmup=0)
        invoke_us = medians["invoke"] / steps * 1e6
        for how in ("ainvoke", "astream"):
            rows.append(Row(
                key=f"async_api.{how}.{kind}", workload=f"{how} ÷ invoke per superstep, {label} ({steps:,} steps)",
                unit="×", engine=medians[how] / medians["invoke"], comparable=False,
                target=Target(kind="max", limit=1.3),
                note=f"engine invoke {invoke_us:.1f} µs/step, {how} {medians[how] / steps * 1e6:.1f} µs/step, "
                     "interleaved in one run",
            ))
    return rows
