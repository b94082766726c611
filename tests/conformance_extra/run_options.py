"""Run options of invoke/stream: default stream mode, invoke(stream_mode=), version="v2",
durability, strict keywords (LangGraph
ignores unknown keywords of stream() and add_node(); Retrograph raises TypeError, a
documented difference, so only compile()'s case is here), retry policy lists, the tasks stream's payloads."""
import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extra_api import extra  # noqa: E402
from support import history, thread  # noqa: E402


class S(TypedDict):
    log: Annotated[list, operator.add]


def _chain(api, ask=False, fail=False):
    def b(s):
        if fail:
            raise ValueError("boom")
        return {"log": [api.interrupt("ok?") if ask else "b"]}

    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", b)
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    return g


def case_default_stream_mode_is_updates(api, tmp):
    return list(_chain(api).compile().stream({"log": []}))


def case_invoke_stream_mode_updates(api, tmp):
    return _chain(api).compile().invoke({"log": []}, stream_mode="updates")


def case_invoke_stream_modes_list(api, tmp):
    return _chain(api).compile().invoke({"log": []}, stream_mode=["updates", "values"])


def case_stream_v2_parts(api, tmp):
    graph = _chain(api, ask=True).compile(checkpointer=api.InMemorySaver())
    return list(graph.stream({"log": []}, thread(), stream_mode=["values", "updates"], version="v2"))


def case_stream_v2_single_mode(api, tmp):
    graph = _chain(api).compile()
    return list(graph.stream({"log": []}, stream_mode="values", version="v2"))


def case_invoke_v2_graph_output(api, tmp):
    x = extra(api)
    graph = _chain(api, ask=True).compile(checkpointer=api.InMemorySaver())
    out = graph.invoke({"log": []}, thread(), version="v2")
    resumed = graph.invoke(api.Command(resume="yes"), thread(), version="v2")
    return [isinstance(out, x.GraphOutput), out.value, [i.value for i in out.interrupts],
            resumed.value, list(resumed.interrupts)]


def case_durability_exit_saves_the_end(api, tmp):
    graph = _chain(api).compile(checkpointer=api.InMemorySaver())
    graph.invoke({"log": []}, thread(), durability="exit")
    return history(graph, thread())


def case_durability_exit_failure_and_resume(api, tmp):
    graph = _chain(api, ask=True).compile(checkpointer=api.InMemorySaver())
    first = graph.invoke({"log": []}, thread(), durability="exit")
    after_pause = history(graph, thread())
    graph.invoke(api.Command(resume="y"), thread(), durability="exit")
    failing = _chain(api, fail=True).compile(checkpointer=api.InMemorySaver())
    try:
        failing.invoke({"log": []}, thread("f"), durability="exit")
    except ValueError:
        pass
    failed = failing.get_state(thread("f"))
    return [first, after_pause, history(graph, thread()), failed.values, list(failed.next),
            [t.error for t in failed.tasks]]


def case_durability_sync_and_async_save_each_step(api, tmp):
    out = []
    for d in ("sync", "async"):
        graph = _chain(api).compile(checkpointer=api.InMemorySaver())
        graph.invoke({"log": []}, thread(d), durability=d)
        out.append(history(graph, thread(d)))
    return out


def case_unknown_keyword_compile(api, tmp):
    return _chain(api).compile(interupt_before=["b"])


def case_retry_policy_list_first_match(api, tmp):
    x = extra(api)
    calls = []

    def flaky(s):
        calls.append(len(calls))
        if len(calls) < 3:
            raise KeyError("again")
        return {"log": ["ok"]}

    g = api.StateGraph(S)
    g.add_node("a", flaky, retry_policy=[
        x.RetryPolicy(retry_on=ValueError, max_attempts=1, initial_interval=0.001, jitter=False),
        x.RetryPolicy(retry_on=KeyError, max_attempts=5, initial_interval=0.001, jitter=False),
    ])
    g.add_edge(api.START, "a")
    return [g.compile().invoke({"log": []}), len(calls)]


def case_retry_policy_list_gives_up(api, tmp):
    x = extra(api)
    calls = []

    def bad(s):
        calls.append(1)
        raise ValueError("never")

    g = api.StateGraph(S)
    g.add_node("a", bad, retry_policy=[
        x.RetryPolicy(retry_on=ValueError, max_attempts=2, initial_interval=0.001, jitter=False)])
    g.add_edge(api.START, "a")
    try:
        g.compile().invoke({"log": []})
    except ValueError:
        pass
    return len(calls)


def _strip_ids(chunk):
    mode, data = chunk
    return [mode, {k: v for k, v in data.items() if k != "id"}]


def case_tasks_stream_payloads(api, tmp):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_node("j", lambda s: {"log": ["j"]})
    g.add_node("w", lambda n: {"log": [n]})
    g.add_edge(api.START, "a")
    g.add_edge(api.START, "b")
    g.add_edge(["a", "b"], "j")
    g.add_conditional_edges("j", lambda s: [api.Send("w", 1)])
    chunks = [_strip_ids(c) for c in g.compile().stream({"log": []}, stream_mode=["tasks", "custom"])]
    return sorted(chunks, key=repr)


def case_drain_stops_between_supersteps(api, tmp):
    x = extra(api)
    control = x.RunControl()

    def a(state):
        control.request_drain("sigterm")
        return {"log": ["a"]}

    g = api.StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    graph = g.compile(checkpointer=api.InMemorySaver())
    out = []
    try:
        graph.invoke({"log": []}, thread(), durability="exit", control=control)
    except x.GraphDrained as exc:
        out.append(exc.reason)
    out.append(list(graph.get_state(thread()).next))
    out.append(graph.invoke(None, thread()))
    last = x.RunControl()
    single = api.StateGraph(S)
    single.add_node("a", lambda s: last.request_drain() or {"log": ["only"]})
    single.add_edge(api.START, "a")
    out.append([single.compile().invoke({"log": []}, control=last), last.drain_requested])
    return out


def case_v2_dataclass_state_is_typed(api, tmp):
    from dataclasses import dataclass, field

    @dataclass
    class D:
        value: str
        items: Annotated[list, operator.add] = field(default_factory=list)

    g = api.StateGraph(D)
    g.add_node("a", lambda s: {"value": s.value + "_a", "items": ["a"]})
    g.add_edge(api.START, "a")
    graph = g.compile(checkpointer=api.InMemorySaver())
    out = graph.invoke({"value": "x", "items": []}, thread("1"), version="v2")
    parts = graph.stream({"value": "x", "items": []}, thread("2"), stream_mode=["values", "checkpoints"], version="v2")
    shapes = [[p["type"], type(p["data"] if p["type"] == "values" else p["data"]["values"]).__name__] for p in parts]
    return [type(out.value).__name__, out.value, shapes]
