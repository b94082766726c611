"""A fan-out of plain sync nodes seen to be quick runs on the loop's thread, as a quick lone
node does (no thread hand-off per task); a slow node stays on the worker threads, and a
quick node that turns slow hands the rest of its batch back to them."""
from __future__ import annotations

import asyncio
import operator
import threading
import time
from typing import Annotated, Any

from typing_extensions import TypedDict

from engine import END, START, Send, StateGraph


class S(TypedDict):
    round: int
    total: Annotated[int, operator.add]


def _rounds(work: Any, rounds: int, width: int = 10) -> Any:
    g = StateGraph(S)
    g.add_node("plan", lambda s: {"round": s["round"] + 1})
    g.add_node("work", work)
    g.add_node("join", lambda s: {})
    g.add_edge(START, "plan")
    g.add_conditional_edges("plan", lambda s: [Send("work", {"i": i, "round": s["round"]}) for i in range(width)],
                            ["work"])
    g.add_edge("work", "join")
    g.add_conditional_edges("join", lambda s: "plan" if s["round"] < rounds else END, ["plan", END])
    return g.compile()


def _seen(slow_s: float, rounds: int, *, slow_at: tuple[int, int] | None = None,
          use_async: bool = False) -> tuple[int, list[tuple[int, int, int]], dict[str, Any]]:
    """(the loop's thread, (round, i, thread) of each work call, the output)."""
    seen: list[tuple[int, int, int]] = []
    loop_thread: list[int] = []

    def work(arg: dict) -> dict:
        seen.append((arg["round"], arg["i"], threading.get_ident()))
        if slow_s or (arg["round"], arg["i"]) == slow_at:
            time.sleep(slow_s or 0.05)
        return {"total": arg["i"]}

    graph = _rounds(work, rounds)
    config = {"recursion_limit": 3 * rounds + 10}

    async def main() -> dict[str, Any]:
        loop_thread.append(threading.get_ident())
        return await graph.ainvoke({"round": 0, "total": 0}, config)

    if use_async:
        out = asyncio.run(main())
    else:
        out = graph.invoke({"round": 0, "total": 0}, config)
        loop_thread.append(threading.main_thread().ident or 0)  # invoke's loop runs on the caller's thread
    return loop_thread[0], seen, out


def test_a_quick_fan_out_runs_on_the_loop_after_its_first_batch() -> None:
    loop_thread, seen, out = _seen(0, 8)
    assert out == {"round": 8, "total": 8 * 45}
    assert all(t != loop_thread for r, _, t in seen if r == 1)  # first seen on the workers
    on_loop = sum(1 for r, _, t in seen if r > 1 and t == loop_thread)
    assert on_loop >= 35  # of 70: then run where invoke runs a lone node


def test_a_quick_fan_out_of_the_async_api_runs_on_its_loop_too() -> None:
    loop_thread, seen, out = _seen(0, 8, use_async=True)
    assert out == {"round": 8, "total": 8 * 45}
    assert sum(1 for r, _, t in seen if r > 1 and t == loop_thread) >= 35


def test_a_slow_fan_out_stays_on_the_workers() -> None:
    loop_thread, seen, out = _seen(0.005, 3)
    assert out == {"round": 3, "total": 3 * 45}
    assert all(t != loop_thread for _, _, t in seen)
    assert len({t for _, _, t in seen}) > 1  # side by side, as before


def test_a_quick_node_that_turns_slow_hands_the_rest_of_its_batch_to_the_workers() -> None:
    loop_thread, seen, out = _seen(0, 4, slow_at=(3, 2))
    assert out == {"round": 4, "total": 4 * 45}
    third = [(i, t) for r, i, t in seen if r == 3]
    slow_index = [i for i, _ in third].index(2)
    assert third[slow_index][1] == loop_thread  # it ran on the loop, and was slow there:
    assert all(t != loop_thread for _, t in third[slow_index + 1:])  # the rest went to the workers
    assert all(t != loop_thread for r, _, t in seen if r == 4)  # and so does the next batch
