"""Cancellation and concurrency of a superstep's tasks: a failing sibling, a consumer that
stops reading, the graph's step_timeout, config["max_concurrency"], a node that raises
CancelledError itself. Nodes that must be stopped wait on an event nobody sets, so every
test is decided by the engine, never by a race; `asyncio.wait_for` only guards against a hang."""
from __future__ import annotations

import asyncio
import operator
import threading
from contextlib import aclosing
from typing import Annotated, TypedDict

import pytest

from engine import (
    END,
    START,
    Command,
    InMemorySaver,
    NodeCancelledError,
    Send,
    StateGraph,
    interrupt,
)

GUARD = 10  # seconds; only reached when the engine hangs


class S(TypedDict):
    log: Annotated[list, operator.add]


class Stuck:
    """An async node that never returns by itself and records its cancellation."""

    def __init__(self) -> None:
        self.started = False
        self.cancelled = False

    async def __call__(self, state: S) -> dict:
        self.started = True
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return {"log": ["never"]}


def fan(**nodes) -> StateGraph:
    g = StateGraph(S)
    for name, fn in nodes.items():
        g.add_node(name, fn)
        g.add_edge(START, name)
    return g


async def quick(state: S) -> dict:
    return {"log": ["quick"]}


def test_an_error_cancels_the_siblings_still_running():
    stuck = Stuck()

    async def bad(state):
        raise ValueError("I am bad")

    graph = fan(stuck=stuck, bad=bad).compile()
    with pytest.raises(ValueError, match="I am bad"):
        asyncio.run(asyncio.wait_for(graph.ainvoke({"log": []}), GUARD))
    assert stuck.started and stuck.cancelled


def test_an_interrupt_cancels_nothing():
    async def slowish(state):
        for _ in range(5):
            await asyncio.sleep(0)
        return {"log": ["slowish"]}

    async def ask(state):
        return {"log": [interrupt("why?")]}

    graph = fan(slowish=slowish, ask=ask).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    out = asyncio.run(graph.ainvoke({"log": []}, config))
    assert out["log"] == ["slowish"] and out["__interrupt__"][0].value == "why?"
    # continued without an answer, the task asks again; the finished sibling is not re-run
    chunks = asyncio.run(_collect(graph.astream(None, config, stream_mode="updates")))
    assert chunks[0] == {"slowish": {"log": ["slowish"]}, "__metadata__": {"cached": True}}
    assert [c["__interrupt__"][0].value for c in chunks[1:]] == ["why?"]
    out = asyncio.run(graph.ainvoke(None, config, debug=False, stream_mode="values", output_keys=["log"]))
    assert out["__interrupt__"][0].value == "why?"
    assert sorted(asyncio.run(graph.ainvoke(Command(resume="because"), config))["log"]) == ["because", "slowish"]


async def _collect(agen):
    return [c async for c in agen]


def test_a_consumer_that_stops_cancels_the_running_nodes():
    stuck, later = Stuck(), Stuck()
    g = fan(quick=quick, stuck=stuck)
    g.add_node("later", later)
    g.add_edge("quick", "later")
    graph = g.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}

    async def first_chunk():
        async with aclosing(graph.astream({"log": []}, config)) as stream:
            async for chunk in stream:
                return chunk  # the quick node's update, while `stuck` still runs

    assert asyncio.run(asyncio.wait_for(first_chunk(), GUARD)) == {"quick": {"log": ["quick"]}}
    assert stuck.cancelled and not later.started
    state = graph.get_state(config)  # quick's write is kept; stuck runs again next time
    assert state.values == {"log": ["quick"]} and state.next == ("stuck",)


def test_step_timeout_cancels_the_superstep_and_raises():
    stuck = Stuck()
    graph = fan(quick=quick, stuck=stuck).compile()
    graph.step_timeout = 0.05
    seen = []

    async def consume():
        async for chunk in graph.astream({"log": []}):
            seen.append(chunk)

    with pytest.raises(TimeoutError):
        asyncio.run(asyncio.wait_for(consume(), GUARD))
    assert seen == [{"quick": {"log": ["quick"]}}] and stuck.cancelled


def test_step_timeout_bounds_a_sync_node_that_never_returns():
    release = threading.Event()

    def blocked(state):
        release.wait()
        return {"log": ["late"]}

    g = StateGraph(S)
    g.add_node("blocked", blocked)
    g.add_edge(START, "blocked")
    graph = g.compile()
    graph.step_timeout = 0.05
    try:
        with pytest.raises(TimeoutError):
            graph.invoke({"log": []})
    finally:
        release.set()  # let the abandoned worker thread end


def test_max_concurrency_bounds_a_fan_out():
    running = {"now": 0, "most": 0}

    async def work(item):
        running["now"] += 1
        running["most"] = max(running["most"], running["now"])
        for _ in range(3):
            await asyncio.sleep(0)
        running["now"] -= 1
        return {"log": [item]}

    g = StateGraph(S)
    g.add_node("work", work)
    g.add_conditional_edges(START, lambda s: [Send("work", i) for i in range(20)])
    graph = g.compile()
    assert sorted(asyncio.run(graph.ainvoke({"log": []}))["log"]) == list(range(20))
    assert running["most"] == 20
    running["most"] = 0
    out = asyncio.run(graph.ainvoke({"log": []}, {"max_concurrency": 3}))
    assert sorted(out["log"]) == list(range(20)) and running["most"] == 3


def test_max_concurrency_bounds_sync_nodes_too():
    lock = threading.Lock()
    running = {"now": 0, "most": 0}
    gate = threading.Barrier(2, timeout=GUARD)

    def work(item):
        with lock:
            running["now"] += 1
            running["most"] = max(running["most"], running["now"])
        if item < 2:
            gate.wait()  # the first two meet: two run at once
        with lock:
            running["now"] -= 1
        return {"log": [item]}

    g = StateGraph(S)
    g.add_node("work", work)
    g.add_conditional_edges(START, lambda s: [Send("work", i) for i in range(8)])
    out = g.compile().invoke({"log": []}, {"max_concurrency": 2})
    assert sorted(out["log"]) == list(range(8)) and running["most"] == 2


def test_a_node_raising_cancelled_error_itself_fails_the_run():
    async def boom(state):
        raise asyncio.CancelledError("from the node's own body")

    graph = fan(quick=quick, boom=boom).compile()
    with pytest.raises(NodeCancelledError) as info:
        asyncio.run(graph.ainvoke({"log": []}))
    assert info.value.node == "boom"


def test_cancelling_invoke_from_outside_stays_a_cancellation():
    stuck = Stuck()
    graph = fan(stuck=stuck).compile()

    async def main():
        task = asyncio.ensure_future(graph.ainvoke({"log": []}))
        while not stuck.started:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(asyncio.wait_for(main(), GUARD))
    assert stuck.cancelled


def test_stream_events_consumer_that_stops_cancels_the_node():
    pytest.importorskip("langchain_core")
    stuck = Stuck()
    g = StateGraph(S)
    g.add_node("quick", quick)
    g.add_node("stuck", stuck)
    g.add_edge(START, "quick")
    g.add_edge("quick", "stuck")
    g.add_edge("stuck", END)
    graph = g.compile()

    async def main():
        async with aclosing(graph.astream_events({"log": []}, version="v2")) as events:
            async for event in events:
                if event["event"] == "on_chain_stream" and not event["parent_ids"]:
                    while not stuck.started:
                        await asyncio.sleep(0)
                    return event["data"]["chunk"]

    assert asyncio.run(asyncio.wait_for(main(), GUARD)) == {"quick": {"log": ["quick"]}}
    assert stuck.cancelled
