"""`invoke()` is a sync call, also when it is made inside a running event loop (an async
test, a notebook cell, a node of another graph): as in LangGraph, its sync nodes run on the
caller's thread as plain sync code, with no event loop in sight (so `asyncio.run()` works
inside them and a blocking call in them is not a call made on someone's loop), and the
caller's loop is back, untouched, when invoke returns or raises."""
import asyncio
import threading
from typing import TypedDict

import pytest

from engine import END, START, RetryPolicy, StateGraph


class State(TypedDict, total=False):
    seen: list[str]


def _probe(state: State) -> State:
    try:
        asyncio.get_running_loop()
        loop = "running"
    except RuntimeError:
        loop = "none"

    async def inner() -> str:
        return "ran"

    return {"seen": [loop, asyncio.run(inner()), str(threading.get_ident())]}


def _graph(node=_probe, **node_kwargs):
    builder = StateGraph(State)
    builder.add_node("probe", node, **node_kwargs)
    builder.add_edge(START, "probe")
    builder.add_edge("probe", END)
    return builder.compile()


def test_a_sync_node_under_invoke_sees_no_event_loop_and_can_run_one():
    out = _graph().invoke({"seen": []})
    assert out["seen"][:2] == ["none", "ran"]
    assert out["seen"][2] == str(threading.get_ident())  # the caller's thread


def test_invoke_inside_a_running_loop_runs_on_the_callers_thread_and_gives_the_loop_back():
    async def caller() -> tuple[list[str], bool, str]:
        outer = asyncio.get_running_loop()
        out = _graph().invoke({"seen": []})
        return out["seen"], asyncio.get_running_loop() is outer, str(threading.get_ident())

    seen, same_loop, thread = asyncio.run(caller())
    assert seen == ["none", "ran", thread]
    assert same_loop


def test_the_callers_loop_is_given_back_when_invoke_raises():
    def boom(state: State) -> State:
        raise ValueError("node failed")

    async def caller() -> bool:
        outer = asyncio.get_running_loop()
        with pytest.raises(ValueError, match="node failed"):
            _graph(boom).invoke({"seen": []})
        return asyncio.get_running_loop() is outer

    assert asyncio.run(caller())


def test_a_retried_sync_node_waits_between_attempts_as_sync_code():
    attempts: list[str] = []

    def flaky(state: State) -> State:
        try:
            asyncio.get_running_loop()
            attempts.append("running")
        except RuntimeError:
            attempts.append("none")
        if len(attempts) < 3:
            raise ConnectionError("try again")
        return {"seen": attempts}

    policy = RetryPolicy(initial_interval=0.001, max_attempts=3, jitter=False,
                         retry_on=ConnectionError)
    out = _graph(flaky, retry_policy=policy).invoke({"seen": []})
    assert out["seen"] == ["none", "none", "none"]


def test_a_graph_invoked_inside_a_sync_node_streams_its_updates_to_the_parent():
    child = _graph()

    def parent_node(state: State) -> State:
        return {"seen": child.invoke({"seen": []})["seen"][:2]}

    parent = _graph(parent_node)
    chunks = list(parent.stream({"seen": []}, stream_mode="updates", subgraphs=True))
    assert chunks[-1] == ((), {"probe": {"seen": ["none", "ran"]}})
    assert any(ns and update == {"probe": {"seen": update["probe"]["seen"]}} for ns, update in chunks[:-1])
