"""The async API (ainvoke/astream) runs a sync node of a one-task superstep that was seen
to be quick on the event loop, as invoke does, and keeps a slow one on the worker threads."""
from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from typing_extensions import TypedDict

from engine import END, START, StateGraph


class S(TypedDict):
    n: int


def _loop(node: Any, steps: int) -> Any:
    g = StateGraph(S)
    g.add_node("step", node)
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: END if s["n"] >= steps else "step")
    return g.compile()


def _threads(sleep_s: float, steps: int) -> tuple[int, list[int], dict[str, Any]]:
    seen: list[int] = []

    def step(state: S) -> dict[str, int]:
        seen.append(threading.get_ident())
        if sleep_s:
            time.sleep(sleep_s)
        return {"n": state["n"] + 1}

    graph = _loop(step, steps)

    async def main() -> tuple[int, dict[str, Any]]:
        out = await graph.ainvoke({"n": 0})
        return threading.get_ident(), out

    loop_thread, out = asyncio.run(main())
    return loop_thread, seen, out


def test_a_quick_sync_node_moves_onto_the_loop_after_its_first_call() -> None:
    loop_thread, seen, out = _threads(0, 30)
    assert out == {"n": 30}
    assert seen[0] != loop_thread  # first seen on a worker
    assert seen.count(loop_thread) >= 20  # then run where invoke would run it


def test_a_slow_sync_node_stays_on_the_workers() -> None:
    loop_thread, seen, out = _threads(0.01, 4)
    assert out == {"n": 4}
    assert loop_thread not in seen


def test_astream_with_a_quick_node_streams_every_superstep() -> None:
    graph = _loop(lambda s: {"n": s["n"] + 1}, 25)

    async def main() -> list[Any]:
        return [c async for c in graph.astream({"n": 0}, stream_mode="values")]

    assert [c["n"] for c in asyncio.run(main())] == list(range(26))
