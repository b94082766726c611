"""Planning decisions: deferred nodes and cached tasks."""
import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extra_api import extra  # noqa: E402
from support import history, thread, updates  # noqa: E402


class S(TypedDict):
    log: Annotated[list, operator.add]


def _mk(n):
    return lambda s: {"log": [n]}


def _uneven(api, **compile_kw):
    """a fans out to b and c -> c2; both branches end in the deferred d."""
    g = api.StateGraph(S)
    for n in ("a", "b", "c", "c2"):
        g.add_node(n, _mk(n))
    g.add_node("d", _mk("d"), defer=True)
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    g.add_edge("b", "d")
    g.add_edge("c", "c2")
    g.add_edge("c2", "d")
    return g.compile(checkpointer=api.InMemorySaver(), **compile_kw)


def case_defer_runs_once_at_the_end(api, tmp):
    graph = _uneven(api)
    return [updates(graph, {"log": []}, thread()), history(graph, thread())]


def case_defer_with_interrupt_before(api, tmp):
    graph = _uneven(api, interrupt_before=["d"])
    first = graph.invoke({"log": []}, thread())
    paused = list(graph.get_state(thread()).next)
    return [first, paused, graph.invoke(None, thread())]


def case_defer_after_a_loop(api, tmp):
    g = api.StateGraph(S)
    g.add_node("loop", _mk("loop"))
    g.add_node("fin", _mk("fin"), defer=True)
    g.add_edge(api.START, "loop")
    g.add_edge(api.START, "fin")
    g.add_conditional_edges("loop", lambda s: "loop" if len(s["log"]) < 3 else api.END)
    return g.compile().invoke({"log": []})


def _cached_graph(api, calls, key_func=None):
    x = extra(api)

    class C(TypedDict):
        x: int
        log: Annotated[list, operator.add]

    def slow(s):
        calls.append(s["x"])
        return {"log": [s["x"] * 10]}

    g = api.StateGraph(C)
    policy = x.CachePolicy(key_func=key_func) if key_func else x.CachePolicy()
    g.add_node("slow", slow, cache_policy=policy)
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(api.START, "slow")
    g.add_edge("slow", "after")
    return g, x


def case_cache_policy_reuses_output(api, tmp):
    calls = []
    g, x = _cached_graph(api, calls)
    graph = g.compile(cache=x.InMemoryCache())
    out = [updates(graph, {"x": 1, "log": []}), updates(graph, {"x": 1, "log": []}),
           updates(graph, {"x": 2, "log": []}), list(calls)]
    graph.clear_cache()
    out += [graph.invoke({"x": 1, "log": []}), list(calls)]
    uncached = g.compile()
    uncached.invoke({"x": 5, "log": []})
    uncached.invoke({"x": 5, "log": []})
    return out + [calls]


def case_cache_key_func(api, tmp):
    calls = []
    g, x = _cached_graph(api, calls, key_func=lambda s: str(s["x"] % 2))
    graph = g.compile(cache=x.InMemoryCache())
    return [graph.invoke({"x": 1, "log": []}), graph.invoke({"x": 3, "log": []}), calls]


def case_cache_tasks_stream(api, tmp):
    calls = []
    g, x = _cached_graph(api, calls)
    graph = g.compile(cache=x.InMemoryCache())
    graph.invoke({"x": 1, "log": []})
    chunks = graph.stream({"x": 1, "log": []}, stream_mode=["tasks", "updates"])
    return [[m, {k: v for k, v in c.items() if k != "id"}] for m, c in chunks]


def case_defer_survives_update_state(api, tmp):
    graph = _uneven(api, interrupt_before=["d"])
    graph.invoke({"log": []}, thread())
    graph.update_state(thread(), {"log": ["edit"]})
    return [list(graph.get_state(thread()).next), graph.invoke(None, thread())]
