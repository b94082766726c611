"""`Send` fan-out: one router sends N tasks to a worker node, a join node sums them.

Three supersteps (the input, N workers, the join), no checkpointer. The figure is the
milliseconds of one `invoke()`; the floor calls the same worker N times and the join once.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from .graphs import ENGINE, Backend, fan_graph, fan_parts
from .harness import Context, Row, Target, alternate, median_of, timed

__all__ = ["NAME", "run"]

NAME = "send"


def _side(backend: Backend, tasks: int) -> Callable[[], float]:
    expected = sum(i * 2 for i in range(tasks))

    def once() -> float:
        graph = fan_graph(backend, tasks)
        seconds, out = timed(lambda: graph.invoke({"items": []}))
        if out.get("total") != expected or len(out.get("items", ())) != tasks:
            raise AssertionError(f"{backend.name}: the join saw {len(out.get('items', ()))} of {tasks} results")
        return seconds

    return once


def _floor(tasks: int) -> float:
    fan_out, work, join = fan_parts(tasks)

    def send(node: str, arg: dict) -> tuple[str, dict]:
        return node, arg

    start = time.perf_counter()
    state: dict = {"items": []}
    for _node, arg in fan_out(send)(state):  # type: ignore[arg-type]
        state["items"] = state["items"] + work(arg)["items"]
    state.update(join(state))  # type: ignore[arg-type]
    return time.perf_counter() - start


def run(ctx: Context) -> list[Row]:
    p = ctx.profile
    tasks = p.send_tasks
    ctx.progress(f"send: {tasks} tasks")
    backends = [ENGINE] + ([ctx.langgraph] if ctx.langgraph else [])
    sides = {b.name: _side(b, tasks) for b in backends}
    medians = alternate(sides, runs=max(p.runs, 5), warmup=2)
    floor_ms = median_of(lambda: _floor(tasks), runs=max(p.runs, 5)) * 1e3
    return [Row(
        key="send.fanout", workload=f"Send fan-out and join ({tasks:,} tasks)", unit="ms",
        engine=medians["engine"] * 1e3,
        langgraph=medians["langgraph"] * 1e3 if "langgraph" in medians else None,
        floor=floor_ms, target=Target(kind="ratio", limit=0.2),
        note="sync worker node: both sides run the tasks on a thread pool",
    )]
