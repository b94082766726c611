"""Nested subgraphs at run time: the debug stream of a subgraph's checkpoints, the pause
at a subgraph's own breakpoint as the streams report it, durability inherited by
subgraphs, the saver's `list` across namespaces, and a graph streamed inside a node."""
import operator
from typing import Annotated, TypedDict

from normalize import norm
from support import thread


class S(TypedDict):
    log: Annotated[list, operator.add]


def _names(ns):
    """A namespace (tuple or "a:id|b:id" string) without its task ids (they are random)."""
    if isinstance(ns, str):
        ns = ns.split("|") if ns else ()
    return [segment.split(":")[0] for segment in ns]


def _node(name):
    def node(state):
        return {"log": [name]}
    return node


def _chain(api, names, **compile_kw):
    g = api.StateGraph(S)
    for name, fn in names:
        g.add_node(name, fn)
    g.add_edge(api.START, names[0][0])
    for (a, _), (b, _) in zip(names, names[1:]):
        g.add_edge(a, b)
    return g.compile(**compile_kw)


def _nested(api, saver=None, inner_kw=None):
    """top: one -> mid (one -> low (x -> y))."""
    low = _chain(api, [("x", _node("x")), ("y", _node("y"))], **(inner_kw or {}))
    mid = _chain(api, [("m1", _node("m1")), ("low", low)])
    return _chain(api, [("t1", _node("t1")), ("mid", mid)], checkpointer=saver or api.InMemorySaver())


def _checkpoint_events(events):
    out = []
    for ns, event in events:
        if event["type"] != "checkpoint":
            continue
        p = event["payload"]
        out.append({
            "ns": _names(ns), "step": p["metadata"]["step"], "next": p["next"],
            "has_parent": p["parent_config"] is not None,
            "task_state": [None if t["state"] is None else _names(t["state"]["configurable"]["checkpoint_ns"])
                           for t in p["tasks"]],
        })
    return out


def case_debug_stream_subgraph_checkpoints_name_the_subgraph_task_state(api, tmp):
    g = _nested(api)
    events = list(g.stream({"log": []}, thread(), stream_mode="debug", subgraphs=True))
    flat = [e for e in g.stream({"log": []}, thread("flat"), stream_mode="debug")]
    states = [t["state"] for e in flat if e["type"] == "checkpoint" for t in e["payload"]["tasks"]]
    return {"events": _checkpoint_events(events),
            "flat_states": [None if s is None else _names(s["configurable"]["checkpoint_ns"]) for s in states]}


def case_exit_durability_saves_no_subgraph_checkpoint(api, tmp):
    saver = api.InMemorySaver()
    g = _nested(api, saver)
    events = list(g.stream({"log": []}, thread(), stream_mode="debug", subgraphs=True, durability="exit"))
    saved = [_names(c.config["configurable"]["checkpoint_ns"]) for c in saver.list(thread())]
    return {"events": _checkpoint_events(events), "saved": saved}


def case_saver_list_without_namespace_lists_every_namespace(api, tmp):
    saver = api.InMemorySaver()
    g = _nested(api, saver)
    g.invoke({"log": []}, thread())
    every = [_names(c.config["configurable"]["checkpoint_ns"]) for c in saver.list(thread())]
    top = [_names(c.config["configurable"]["checkpoint_ns"])
           for c in saver.list({"configurable": {"thread_id": "t", "checkpoint_ns": ""}})]
    return {"every": sorted(every), "count": len(every), "top": top}


def case_subgraph_breakpoint_reported_once_by_the_top_graph(api, tmp):
    g = _nested(api, inner_kw={"interrupt_before": ["y"]})
    upd = [(_names(ns), norm(c)) for ns, c in g.stream({"log": []}, thread("u"), subgraphs=True)]
    vals = [(_names(ns), norm(c)) for ns, c in g.stream({"log": []}, thread("v"), stream_mode="values",
                                                         subgraphs=True)]
    tasks = [(_names(ns), c["name"], "result" in c) for ns, c in g.stream({"log": []}, thread("k"),
                                                                          stream_mode="tasks", subgraphs=True)]
    flat = [norm(c) for c in g.stream({"log": []}, thread("f"))]
    resumed = [(_names(ns), norm(c)) for ns, c in g.stream(None, thread("u"), subgraphs=True)]
    return {"updates": upd, "values": vals, "tasks": tasks, "flat": flat, "resumed": resumed}


def case_exit_durability_subgraph_interrupt_saves_its_last_checkpoint(api, tmp):
    saver = api.InMemorySaver()
    g = _nested(api, saver, inner_kw={"interrupt_before": ["y"]})
    g.invoke({"log": []}, thread(), durability="exit")
    first = sorted(_names(c.config["configurable"]["checkpoint_ns"]) for c in saver.list(thread()))
    out = g.invoke(None, thread(), durability="exit")
    after = sorted(_names(c.config["configurable"]["checkpoint_ns"]) for c in saver.list(thread()))
    return {"first": first, "out": norm(out), "after": after}


def case_graph_streamed_inside_a_node(api, tmp):
    inner = _chain(api, [("x", _node("x")), ("y", _node("y"))])
    seen = {}

    def outer_node(state, config):
        seen["plain"] = [norm(c) for c in inner.stream({"log": []}, config)]
        seen["pairs"] = [norm(c) for c in inner.stream({"log": []}, config, stream_mode=["updates"])]
        seen["values"] = [norm(c) for c in inner.stream({"log": []}, config, stream_mode="values")]
        return {"log": ["outer"]}

    g = _chain(api, [("outer", outer_node)])
    out = g.invoke({"log": []})
    return {"out": norm(out), **seen}


def case_stream_mode_given_as_a_list_yields_pairs(api, tmp):
    g = _chain(api, [("x", _node("x"))])
    return {
        "list": [norm(c) for c in g.stream({"log": []}, stream_mode=["updates"])],
        "str": [norm(c) for c in g.stream({"log": []}, stream_mode="updates")],
        "invoke_list": norm(g.invoke({"log": []}, stream_mode=["values"])),
    }


def case_exit_durability_stateful_subgraph_keeps_its_state(api, tmp):
    inner = _chain(api, [("x", _node("x"))], checkpointer=True)
    g = api.StateGraph(S)
    g.add_node("sub", inner)
    g.add_edge(api.START, "sub")
    g = g.compile(checkpointer=api.InMemorySaver())
    first = g.invoke({"log": []}, thread(), durability="exit")
    second = g.invoke({"log": ["again"]}, thread(), durability="exit")
    return {"first": norm(first), "second": norm(second)}


def case_debug_stream_of_a_resume_or_fork_starts_with_its_checkpoint(api, tmp):
    def ask(state):
        return {"log": [api.interrupt("q")]}

    g = _chain(api, [("a", _node("a")), ("ask", ask)], checkpointer=api.InMemorySaver(), interrupt_before=["a"])
    ids: dict = {}

    def nid(config):
        return None if config is None else ids.setdefault(config["configurable"]["checkpoint_id"], len(ids))

    def events(inp, config):
        out = []
        for e in g.stream(inp, config, stream_mode="debug"):
            if e["type"] == "checkpoint":
                p = e["payload"]
                out.append(["checkpoint", e["step"], nid(p["config"]), nid(p["parent_config"]),
                            p["metadata"]["source"], p["next"], norm(p["values"])])
            else:
                out.append([e["type"], e["payload"]["name"]])
        return out

    first = events({"log": []}, thread())
    go_on = events(None, thread())
    resumed = events(api.Command(resume="R"), thread())
    old = list(g.get_state_history(thread()))[-2].config
    forked = events(None, old)
    return {"first": first, "go_on": go_on, "resumed": resumed, "forked": forked}


def case_graph_streamed_inside_a_node_with_subgraphs_names_full_paths(api, tmp):
    low = _chain(api, [("x", _node("x"))])
    mid = _chain(api, [("low", low)])
    seen = []

    def outer(state, config):
        for ns, chunk in mid.stream({"log": []}, config, subgraphs=True, stream_mode="updates"):
            seen.append([_names(ns), norm(chunk)])
        return {"log": ["outer"]}

    out = _chain(api, [("p", outer)]).invoke({"log": []})
    return {"out": norm(out), "seen": seen}


def case_debug_input_checkpoint_of_a_later_run_names_its_parent(api, tmp):
    g = _chain(api, [("a", _node("a"))], checkpointer=api.InMemorySaver())
    low = _chain(api, [("x", _node("x"))], checkpointer=True)
    stateful = _chain(api, [("low", low)], checkpointer=api.InMemorySaver())
    out = {}
    for name, graph in (("plain", g), ("stateful_subgraph", stateful)):
        runs = []
        for _ in range(2):
            runs.append([(_names(ns), e["payload"]["metadata"]["step"], e["payload"]["parent_config"] is not None)
                         for ns, e in graph.stream({"log": []}, thread(name), stream_mode="debug", subgraphs=True)
                         if e["type"] == "checkpoint"])
        out[name] = runs
    return out
