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
    with pytest.raises(ValueError, match="`n`: timeouts are only supported for async nodes"):
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


def test_timeouts_are_checked_where_they_are_declared():
    from engine import Send
    from engine.func import entrypoint, task

    for declare in (lambda: task(timeout=0), lambda: entrypoint(timeout=0), lambda: Send("n", {}, timeout=0),
                    lambda: StateGraph(S).add_node("n", quick, timeout=-1)):
        with pytest.raises(ValueError, match="greater than 0"):
            declare()
    with pytest.raises(ValueError, match="task `sync_task`: timeouts are only supported for async"):
        @task(timeout=TimeoutPolicy(idle_timeout=0.05))
        def sync_task(value):
            return value
    with pytest.raises(ValueError, match="entrypoint `sync_entry`: timeouts are only supported for async"):
        @entrypoint(timeout=1)
        def sync_entry(value):
            return value


def test_task_and_entrypoint_timeouts():
    from engine.func import entrypoint, task

    @task(timeout=TimeoutPolicy(idle_timeout=0.05))
    async def stuck_task(x):
        await asyncio.Event().wait()

    @task(timeout=30)
    async def echo(*, timeout: int):  # the task's own `timeout` argument is left alone
        return timeout

    @entrypoint()
    async def calls_stuck(x):
        return await stuck_task(x)

    @entrypoint()
    async def calls_echo(x):
        return await echo(timeout=x)

    @entrypoint(timeout=TimeoutPolicy(run_timeout=0.05))
    async def stuck_entry(x):
        await asyncio.Event().wait()

    with pytest.raises(NodeTimeoutError) as info:
        asyncio.run(calls_stuck.ainvoke(1))
    assert info.value.node == "stuck_task" and info.value.kind == "idle"
    assert asyncio.run(calls_echo.ainvoke(5)) == 5
    with pytest.raises(NodeTimeoutError) as info:
        asyncio.run(stuck_entry.ainvoke(1))
    assert info.value.node == "stuck_entry" and info.value.kind == "run"


def test_a_send_timeout_overrides_the_node_timeout_and_is_kept_in_the_checkpoint(tmp_path):
    from engine import Send, SqliteSaver

    g = StateGraph(S)
    g.add_node("n", never, timeout=TimeoutPolicy(idle_timeout=30))
    g.add_conditional_edges(START, lambda s: [Send("n", s, timeout=TimeoutPolicy(idle_timeout=0.05))])
    with pytest.raises(NodeTimeoutError) as info:
        asyncio.run(g.compile().ainvoke({"n": 1}))
    assert info.value.idle_timeout == 0.05
    # paused before the Send's task, then resumed by a graph reading the file anew
    path = tmp_path / "runs.sqlite"
    config = {"configurable": {"thread_id": "t"}}
    asyncio.run(g.compile(checkpointer=SqliteSaver(str(path)), interrupt_before=["n"]).ainvoke({"n": 1}, config))
    with pytest.raises(NodeTimeoutError) as info:
        asyncio.run(g.compile(checkpointer=SqliteSaver(str(path))).ainvoke(None, config))
    assert info.value.idle_timeout == 0.05
    assert repr(Send("n", 1)) == "Send(node='n', arg=1)" and Send("n", 1, timeout=2).timeout == TimeoutPolicy(
        run_timeout=2)


def test_chat_model_callbacks_count_as_progress():
    pytest.importorskip("langchain_core")
    from langchain_core.callbacks.manager import adispatch_custom_event
    from langchain_core.runnables import RunnableLambda

    async def chatty(state):
        for i in range(8):  # 8 x 0.05 s, well past the 0.2 s idle timeout, with an event each time
            await asyncio.sleep(0.05)
            await adispatch_custom_event("tick", i)
        return {"n": 8}

    async def silent(state):
        for _ in range(8):
            await asyncio.sleep(0.05)
        return {"n": 8}

    def node_of(fn):
        return RunnableLambda(fn).ainvoke  # raises its events under the node's config

    assert asyncio.run(graph_of(node_of(chatty), timeout=TimeoutPolicy(idle_timeout=0.2)).compile()
                       .ainvoke({"n": 0})) == {"n": 8}
    with pytest.raises(NodeTimeoutError):
        asyncio.run(graph_of(node_of(silent), timeout=TimeoutPolicy(idle_timeout=0.2)).compile().ainvoke({"n": 0}))
    # refresh_on="heartbeat": callback events are not progress
    with pytest.raises(NodeTimeoutError):
        asyncio.run(graph_of(node_of(chatty), timeout=TimeoutPolicy(idle_timeout=0.2, refresh_on="heartbeat"))
                    .compile().ainvoke({"n": 0}))
