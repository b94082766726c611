"""get_graph() as LangGraph draws nested subgraphs: Mermaid blocks nested per level, a
node's breakpoints in its metadata, and a function that invokes a graph expanded by xray."""
import operator
from typing import Annotated, TypedDict

from normalize import norm


class S(TypedDict):
    log: Annotated[list, operator.add]


def _node(name):
    def node(state):
        return {"log": [name]}
    return node


def _loop(api, prefix, inner=None):
    """prefix_one -(0)-> prefix_two (a node or `inner`) -> prefix_one; prefix_one -(1)-> END."""
    g = api.StateGraph(S)
    g.add_node(f"{prefix}_one", _node(f"{prefix}_one"))
    g.add_node(f"{prefix}_two", inner if inner is not None else _node(f"{prefix}_two"))
    g.add_edge(api.START, f"{prefix}_one")
    g.add_edge(f"{prefix}_two", f"{prefix}_one")
    g.add_conditional_edges(f"{prefix}_one", lambda s: "1", {"0": f"{prefix}_two", "1": api.END})
    return g


def case_xray_mermaid_nests_a_block_per_subgraph_level(api, tmp):
    child = _loop(api, "c").compile()
    parent = _loop(api, "p", child).compile()
    top = _loop(api, "gp", parent).compile()
    return {"xray": top.get_graph(xray=True).draw_mermaid(),
            "xray1": top.get_graph(xray=1).draw_mermaid(),
            "plain": top.get_graph().draw_mermaid(with_styles=False)}


def case_breakpoints_show_in_node_metadata(api, tmp):
    g = api.StateGraph(S)
    g.add_node("a", _node("a"), metadata={"team": "x"})
    g.add_node("b", _node("b"))
    g.add_node("c", _node("c"))
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    app = g.compile(interrupt_before=["a", "b"], interrupt_after=["b"])
    every = g.compile(interrupt_before="*")
    return {"mermaid": app.get_graph().draw_mermaid(),
            "metadata": {k: n.metadata for k, n in app.get_graph().nodes.items() if k not in ("__start__", "__end__")},
            "star": {k: n.metadata for k, n in every.get_graph().nodes.items() if k not in ("__start__", "__end__")}}


def case_xray_expands_a_function_that_invokes_a_graph(api, tmp):
    sub = api.StateGraph(S)
    sub.add_node("first", _node("first"))
    sub.add_node("second", _node("second"))
    sub.add_edge(api.START, "first")
    sub.add_edge("first", "second")
    sub = sub.compile(interrupt_before=["second"])

    def calls_sub(state):
        return sub.invoke(state)

    g = api.StateGraph(S)
    g.add_node("pre", _node("pre"))
    g.add_node("wrapped", calls_sub)
    g.add_edge(api.START, "pre")
    g.add_edge("pre", "wrapped")
    app = g.compile()
    return {"xray": app.get_graph(xray=1).draw_mermaid(), "plain": app.get_graph().draw_mermaid()}


def case_edges_of_a_subgraph_node_with_destinations(api, tmp):
    def child(state):
        return api.Command(goto="c", graph=api.Command.PARENT)

    sub = api.StateGraph(S)
    sub.add_node("child_node", child)
    sub.add_edge(api.START, "child_node")
    sub = sub.compile()
    out = {}
    for label, dests in (("tuple", ("b", "c")), ("dict", {"b": "to b", "c": "to c"})):
        g = api.StateGraph(S)
        g.add_node("child", sub, destinations=dests)
        g.add_node("b", _node("b"))
        g.add_node("c", _node("c"))
        g.add_edge(api.START, "child")
        app = g.compile()
        out[label] = {"run": app.invoke({"log": []}),
                      "edges": [[e.source, e.target, e.data, e.conditional] for e in app.get_graph().edges]}
    return out


def case_deferred_node_drawn_after_the_last_step(api, tmp):
    out = {}
    for waiting in (True, False):
        g = api.StateGraph(S)
        for name in ("split", "left", "left_more", "right"):
            g.add_node(name, _node(name))
        g.add_node("last", _node("last"), defer=True)
        g.add_edge(api.START, "split")
        g.add_edge("split", "left")
        g.add_edge("split", "right")
        g.add_edge("left", "left_more")
        if waiting:
            g.add_edge(["left", "right"], "last")
        else:
            g.add_edge("left", "last")
            g.add_edge("right", "last")
        app = g.compile()
        drawn = app.get_graph()
        out["waiting" if waiting else "plain"] = {
            "mermaid": drawn.draw_mermaid(),
            "json": drawn.to_json(),
            "run": norm(app.invoke({"log": []})),
        }
    return out
