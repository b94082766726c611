"""get_graph()'s LangGraph surface: draw_mermaid() text (with and without styles),
to_json(), with path_map labels, Literal hints, Command destinations, waiting edges,
fan-out from START, a loop with no way out, and a subgraph expanded with xray."""
import operator
from typing import Annotated, Literal, TypedDict


class S(TypedDict):
    log: Annotated[list, operator.add]


def noop(s):
    return {}


def route(s) -> Literal["b", "c"]:
    return "b"


def _graphs(api):
    def cmd(s) -> api.Command[Literal["c", "__end__"]]:
        return api.Command(goto="c")

    out = {}
    g = api.StateGraph(S)
    g.add_node("human", noop)
    g.add_node("agent", noop)
    g.add_edge(api.START, "human")
    g.add_edge("human", "agent")
    g.add_edge("agent", "human")
    out["loop"] = g
    g = api.StateGraph(S)
    for n in "abc":
        g.add_node(n, noop)
    g.add_edge(api.START, "a")
    g.add_conditional_edges("a", lambda s: "x", {"x": "b", "y": "c", "z": api.END})
    g.add_edge("b", api.END)
    out["path_map"] = g
    g = api.StateGraph(S)
    for n in "abcd":
        g.add_node(n, noop)
    g.add_edge(api.START, "a")
    g.add_conditional_edges("a", route)
    g.add_edge(["b", "c"], "d")
    out["literal_join"] = g
    g = api.StateGraph(S)
    g.add_node("a", cmd)
    g.add_node("c", noop)
    g.add_edge(api.START, "a")
    out["command"] = g
    g = api.StateGraph(S)
    g.add_node("a", noop)
    g.add_node("b", noop)
    g.add_edge(api.START, "a")
    g.add_edge(api.START, "b")
    g.add_edge("a", "b")
    out["fan"] = g
    return out


def case_mermaid_and_json(api, tmp):
    out = {}
    for name, g in _graphs(api).items():
        drawn = g.compile().get_graph()
        out[name] = {"plain": drawn.draw_mermaid(with_styles=False), "styled": drawn.draw_mermaid(),
                     "json": drawn.to_json()}
    return out


def case_subgraph_with_xray(api, tmp):
    inner = api.StateGraph(S)
    inner.add_node("i1", noop)
    inner.add_node("i2", noop)
    inner.add_edge(api.START, "i1")
    inner.add_edge("i1", "i2")
    g = api.StateGraph(S)
    g.add_node("a", noop)
    g.add_node("sub", inner.compile())
    g.add_edge(api.START, "a")
    g.add_edge("a", "sub")
    g.add_edge("sub", api.END)
    g = g.compile()
    return {"flat": g.get_graph().draw_mermaid(), "xray": g.get_graph(xray=True).draw_mermaid(),
            "json": g.get_graph().to_json()}


def bare_literal(s) -> Literal["a1"]:  # a state update, not a destination
    return {}


def case_deferred_node_and_bare_literal_hint(api, tmp):
    g = api.StateGraph(S)
    for n in ("rw", "a1", "r1", "r2", "z"):
        g.add_node(n, noop)
    g.add_node("qa", noop, defer=True)
    g.add_node("lit", bare_literal)
    g.add_edge(api.START, "rw")
    for src, dst in (("rw", "r1"), ("r1", "a1"), ("rw", "r2"), ("rw", "z"), ("r1", "qa"), ("r2", "qa"), ("z", "lit")):
        g.add_edge(src, dst)
    return g.compile().get_graph().draw_mermaid(with_styles=False)
