"""Node timeouts (TimeoutPolicy), set_node_defaults, and their interplay with retries."""
from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import TypedDict

import pytest

from engine import START, NodeTimeoutError, RetryPolicy, Runtime, StateGraph, TimeoutPolicy


class S(TypedDict):
    n: int


def graph_of(fn, **node_kw) -> StateGraph:
    g = StateGraph(S)
    g.add_node("n", fn, **node_kw)
    g.add_edge(START, "n")
    return g


async def never(state):
    await asyncio.Event().wait()  # nothing ever sets it
    return {"n": 1}


async def quick(state):
    return {"n": state["n"] + 1}


def test_run_timeout_raises_node_timeout_error():
    graph = graph_of(never, timeout=0.05).compile()
    with pytest.raises(NodeTimeoutError, match="Node 'n' exceeded its run timeout") as info:
        graph.invoke({"n": 0})
    assert info.value.kind == "run" and info.value.node == "n" and not isinstance(info.value, TimeoutError)


def test_timed_out_attempt_is_retried():
    calls = []

    async def second_time_lucky(state):
        calls.append(1)
        if len(calls) == 1:
            await asyncio.Event().wait()
        return {"n": len(calls)}

    graph = graph_of(second_time_lucky, timeout=TimeoutPolicy(run_timeout=timedelta(milliseconds=50)),
                     retry_policy=RetryPolicy(retry_on=NodeTimeoutError, initial_interval=0, jitter=False))
    assert graph.compile().invoke({"n": 0}) == {"n": 2}


def test_idle_timeout_and_heartbeat():
    async def silent(state, runtime: Runtime):
        await asyncio.Event().wait()

    with pytest.raises(NodeTimeoutError) as info:
        graph_of(silent, timeout=TimeoutPolicy(idle_timeout=0.05)).compile().invoke({"n": 0})
    assert info.value.kind == "idle"

    async def busy(state, runtime: Runtime):
        for _ in range(3):
            runtime.heartbeat()
            await asyncio.sleep(0)
        return {"n": 3}

    assert graph_of(busy, timeout=TimeoutPolicy(idle_timeout=30)).compile().invoke({"n": 0}) == {"n": 3}


def test_fast_node_is_untouched_by_its_timeout():
    assert graph_of(quick, timeout=30).compile().invoke({"n": 1}) == {"n": 2}


def test_sync_node_with_timeout_is_refused_at_compile():
    with pytest.raises(ValueError, match="`n`: a timeout needs an async node"):
        graph_of(lambda s: {}, timeout=1).compile()


@pytest.mark.parametrize("bad", [0, -1, "soon", True])
def test_bad_timeouts_are_refused(bad):
    with pytest.raises((ValueError, TypeError)):
        graph_of(quick, timeout=bad).compile()


def test_set_node_defaults_apply_unless_the_node_sets_its_own():
    calls = []

    async def flaky(state):
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionError("again")
        return {"n": len(calls)}

    g = StateGraph(S).set_node_defaults(retry_policy=RetryPolicy(initial_interval=0, jitter=False), timeout=30)
    g.add_node("n", flaky)
    g.add_edge(START, "n")
    assert g.compile().invoke({"n": 0}) == {"n": 3}
    g2 = StateGraph(S).set_node_defaults(timeout=0.05)
    g2.add_node("n", never)
    g2.add_edge(START, "n")
    with pytest.raises(NodeTimeoutError):
        g2.compile().invoke({"n": 0})
