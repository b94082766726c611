"""Node error handlers: the handler runs in the failing node's superstep and the run goes on."""
from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from engine import START, Command, InMemorySaver, NodeError, StateGraph, TaskFailed, TaskFinished


class S(TypedDict):
    log: Annotated[list, operator.add]


def bad(state):
    raise ValueError("boom")


def handler(state, error: NodeError):
    return {"log": [f"{error.node}:{type(error.error).__name__}"]}


def test_handler_replaces_the_failed_node_and_its_edges():
    g = StateGraph(S)
    g.add_node("bad", bad, error_handler=handler)
    g.add_node("ok", lambda s: {"log": ["ok"]})
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(START, "bad")
    g.add_edge(START, "ok")
    g.add_edge("bad", "after")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    events = [c for m, c in graph.stream({"log": []}, cfg, stream_mode=["events", "updates"]) if m == "events"]
    assert graph.get_state(cfg).values == {"log": ["bad:ValueError", "ok"]}
    failed = [e.name for e in events if isinstance(e, TaskFailed)]
    finished = [e.name for e in events if isinstance(e, TaskFinished) and e.name != "__start__"]
    assert failed == ["bad"] and sorted(finished) == ["__error_handler__bad", "ok"]


def test_handler_named_error_parameter_and_command_goto():
    def route(state, error):
        assert isinstance(error, NodeError) and str(error.error) == "boom"
        return Command(update={"log": ["cmd"]}, goto="z")

    g = StateGraph(S)
    g.add_node("bad", bad, error_handler=route)
    g.add_node("z", lambda s: {"log": ["z"]})
    g.add_edge(START, "bad")
    assert g.compile().invoke({"log": []}) == {"log": ["cmd", "z"]}


def test_async_node_and_async_handler():
    async def abad(state):
        raise ConnectionError("down")

    async def ahandler(state, error: NodeError):
        return {"log": ["async " + error.node]}

    g = StateGraph(S)
    g.add_node("n", abad, error_handler=ahandler)
    g.add_edge(START, "n")
    assert asyncio.run(g.compile().ainvoke({"log": []})) == {"log": ["async n"]}


def test_defaults_apply_to_nodes_without_their_own_handler():
    own = []
    g = StateGraph(S).set_node_defaults(error_handler=handler)
    g.add_node("a", bad)
    g.add_node("b", bad, error_handler=lambda s, error: own.append(error.node) or {"log": ["own"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    assert g.compile().invoke({"log": []}) == {"log": ["a:ValueError"]}  # a's handler has no edges
    g2 = StateGraph(S).set_node_defaults(error_handler=handler)
    g2.add_node("b", bad, error_handler=lambda s, error: own.append(error.node) or {"log": ["own"]})
    g2.add_edge(START, "b")
    assert g2.compile().invoke({"log": []}) == {"log": ["own"]} and own == ["b"]


def test_a_failing_handler_fails_the_run():
    def worse(state):
        raise KeyError("again")

    g = StateGraph(S)
    g.add_node("n", bad, error_handler=worse)
    g.add_edge(START, "n")
    with pytest.raises(KeyError, match="again"):
        g.compile().invoke({"log": []})


def test_stepping_shows_the_handler_as_a_task_of_the_same_superstep():
    g = StateGraph(S)
    g.add_node("n", bad, error_handler=handler)
    g.add_edge(START, "n")

    async def drive():
        run = g.compile().new_run({"log": []})
        await run.start()
        await run.run_pending()
        run.commit()  # __start__
        await run.run_task()  # n fails
        names = [t.name for t in run.pending]
        await run.run_task()  # the handler
        run.commit()
        return names, run.status, run.values

    assert asyncio.run(drive()) == (["__error_handler__n"], "done", {"log": ["n:ValueError"]})


def test_default_handler_may_take_the_config_after_the_error():
    seen = {}

    def with_config(state, error: NodeError, config):
        seen["thread"] = config["configurable"]["thread_id"]
        return {"log": ["handled"]}

    def keyword_config(state, *, config):
        return {"log": [config["configurable"]["thread_id"]]}

    g = StateGraph(S).set_node_defaults(error_handler=with_config)
    g.add_node("bad", bad)
    g.add_node("kw", keyword_config)
    g.add_edge(START, "bad")
    g.add_edge(START, "kw")
    out = g.compile(checkpointer=InMemorySaver()).invoke({"log": []}, {"configurable": {"thread_id": "t1"}})
    assert sorted(out["log"]) == ["handled", "t1"] and seen == {"thread": "t1"}


def test_a_node_named_like_the_default_handler_is_refused():
    g = StateGraph(S).set_node_defaults(error_handler=handler)
    g.add_node("__default_error_handler__", lambda s: {})
    g.add_edge(START, "__default_error_handler__")
    with pytest.raises(ValueError, match="`__default_error_handler__` collides with the default error handler"):
        g.compile()


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_handler_starts_while_a_sibling_still_runs(kind):
    import threading

    handler_ran = threading.Event()

    def handle(state, error: NodeError):
        handler_ran.set()
        return {"log": ["handled"]}

    def slow(state):  # finishes only once the handler of its failed sibling has started
        return {"log": [f"saw handler: {handler_ran.wait(5)}"]}

    async def aslow(state):
        for _ in range(500):
            if handler_ran.is_set():
                break
            await asyncio.sleep(0.01)
        return {"log": [f"saw handler: {handler_ran.is_set()}"]}

    async def abad(state):
        raise ValueError("boom")

    g = StateGraph(S)
    g.add_node("bad", bad if kind == "sync" else abad, error_handler=handle)
    g.add_node("slow", slow if kind == "sync" else aslow)
    g.add_edge(START, "bad")
    g.add_edge(START, "slow")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out = graph.invoke({"log": []}, cfg) if kind == "sync" else asyncio.run(graph.ainvoke({"log": []}, cfg))
    assert sorted(out["log"]) == ["handled", "saw handler: True"]
    assert graph.get_state(cfg).next == ()


def test_handlers_that_crash_run_again_on_resume_not_their_nodes():
    calls: list[str] = []
    crash = [True]

    def node(name):
        def fail(state):
            calls.append(name)
            raise RuntimeError(f"{name} failed")
        return fail

    def handle(state, error: NodeError):
        calls.append(f"handler {error.node}")
        if crash[0]:
            raise RuntimeError("handler crash")
        return {"log": [f"recovered {error.node}"]}

    g = StateGraph(S)
    g.add_node("a", node("a"), error_handler=handle)
    g.add_node("b", node("b"), error_handler=handle)
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    with pytest.raises(RuntimeError, match="handler crash"):
        graph.invoke({"log": []}, cfg)
    assert sorted(calls) == ["a", "b", "handler a", "handler b"]  # both handlers ran
    crash[0] = False
    calls.clear()
    out = graph.invoke(None, cfg)
    assert sorted(calls) == ["handler a", "handler b"]
    assert sorted(out["log"]) == ["recovered a", "recovered b"]


def test_breakpoints_may_name_an_error_handler():
    def route(state, error: NodeError):
        return Command(update={"log": ["handled"]}, goto="z")

    g = StateGraph(S)
    g.add_node("bad", bad, error_handler=route)
    g.add_node("z", lambda s: {"log": ["z"]})
    g.add_edge(START, "bad")
    cfg = {"configurable": {"thread_id": "t"}}
    # before: the handler runs within its node's superstep, so there is no pause before it
    before = g.compile(checkpointer=InMemorySaver(), interrupt_before=["__error_handler__bad"])
    assert before.invoke({"log": []}, cfg) == {"log": ["handled", "z"]}
    # after: the run stops once the handler's superstep is saved, with `z` next
    after = g.compile(checkpointer=InMemorySaver(), interrupt_after=["__error_handler__bad"])
    assert list(after.stream({"log": []}, cfg, stream_mode="updates"))[-1] == {"__interrupt__": ()}
    assert after.get_state(cfg).next == ("z",)
    assert after.invoke(None, cfg) == {"log": ["handled", "z"]}
    # only a handler that exists may be named
    with pytest.raises(ValueError, match="__error_handler__z"):
        g.compile(interrupt_before=["__error_handler__z"])
    defaults = StateGraph(S).set_node_defaults(error_handler=handler)
    defaults.add_node("bad", bad)
    defaults.add_edge(START, "bad")
    assert defaults.compile(interrupt_after=["__default_error_handler__"]).invoke({"log": []}) == {
        "log": ["bad:ValueError"]}
