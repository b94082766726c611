"""get_graph()'s LangGraph surface: draw_mermaid() text as LangGraph writes it, to_json(),
and Retrograph's own Mermaid beside it (to_mermaid)."""
from __future__ import annotations

import operator
from typing import Annotated, Literal, TypedDict

from engine import END, START, Command, StateGraph


class S(TypedDict):
    log: Annotated[list, operator.add]


def noop(s):
    return {}


def _loop():
    g = StateGraph(S)
    g.add_node("human", noop)
    g.add_node("agent", noop)
    g.add_edge(START, "human")
    g.add_edge("human", "agent")
    g.add_edge("agent", "human")
    return g.compile()


def test_mermaid_without_styles_lists_the_edges_langgraph_finds():
    # a loop with no way out gets a conditional edge to END from the last node LangGraph's dry run reaches
    assert _loop().get_graph().draw_mermaid(with_styles=False) == (
        "graph TD;\n\t__start__ --> human;\n\tagent --> human;\n\thuman --> agent;\n\tagent -.-> __end__;\n")


def test_mermaid_with_styles_has_the_front_matter_nodes_and_classes():
    text = _loop().get_graph().draw_mermaid()
    assert text.startswith("---\nconfig:\n  flowchart:\n    curve: linear\n---\ngraph TD;\n")
    assert "\t__start__([<p>__start__</p>]):::first\n\thuman(human)\n" in text
    assert "\t__end__([<p>__end__</p>]):::last\n" in text
    assert text.endswith("\tclassDef first fill-opacity:0\n\tclassDef last fill:#bfb6fc\n")


def test_labels_literal_hints_destinations_and_termini():
    def route(s) -> Literal["b", "c"]:
        return "b"

    def cmd(s) -> Command[Literal["d", "__end__"]]:
        return Command(goto="d")

    g = StateGraph(S)
    for n in ("a", "b", "c"):
        g.add_node(n, noop)
    g.add_node("x", cmd)
    g.add_node("d", noop)
    g.add_edge(START, "a")
    g.add_conditional_edges("a", route)
    g.add_conditional_edges("b", lambda s: "go", {"go": "x", "stop": END})
    lines = g.compile().get_graph().draw_mermaid(with_styles=False).splitlines()
    assert lines[1:] == ["\t__start__ --> a;", "\ta -.-> b;", "\ta -.-> c;", "\tb -. &nbsp;stop&nbsp; .-> __end__;",
                         "\tb -. &nbsp;go&nbsp; .-> x;", "\tx -.-> __end__;", "\tx -.-> d;", "\tc --> __end__;",
                         "\td --> __end__;"]


def test_to_json_has_langgraphs_records():
    data = _loop().get_graph().to_json()
    assert [n["id"] for n in data["nodes"]] == [START, "human", "agent", END]
    assert data["nodes"][1] == {"id": "human", "type": "runnable",
                                "data": {"id": ["langgraph", "_internal", "_runnable", "RunnableCallable"],
                                         "name": "human"}}
    assert data["edges"][-1] == {"source": "agent", "target": END, "conditional": True}


def test_xray_puts_a_subgraph_inside_a_mermaid_subgraph_block():
    inner = StateGraph(S)
    inner.add_node("i1", noop)
    inner.add_node("i2", noop)
    inner.add_edge(START, "i1")
    inner.add_edge("i1", "i2")
    g = StateGraph(S)
    g.add_node("a", noop)
    g.add_node("sub", inner.compile())
    g.add_edge(START, "a")
    g.add_edge("a", "sub")
    text = g.compile().get_graph(xray=True).draw_mermaid()
    assert "\ta --> sub\\3ai1;\n\tsub\\3ai2 --> __end__;\n\tsubgraph sub\n\tsub\\3ai1(i1)\n" in text


def test_a_router_that_may_go_anywhere_is_not_drawn_as_an_edge_to_end():
    g = StateGraph(S)
    g.add_node("a", noop)
    g.add_node("b", noop)
    g.add_edge(START, "a")
    g.add_conditional_edges("a", lambda s: "b")  # README: Retrograph's deliberate difference
    drawn = g.compile().get_graph()
    assert drawn.draw_mermaid(with_styles=False) == "graph TD;\n\t__start__ --> a;\n"
    assert "any node" in drawn.to_mermaid()  # Retrograph's own flowchart shows where it may go


def test_a_node_hinted_with_a_bare_literal_has_no_command_edges():
    def update(s) -> Literal["a"]:  # returns a state update: the hint names no destination
        return {"log": ["x"]}

    g = StateGraph(S)
    g.add_node("x", update)
    g.add_node("a", noop)
    g.add_edge(START, "x")
    lines = g.compile().get_graph().draw_mermaid(with_styles=False).splitlines()
    assert lines[1:] == ["\t__start__ --> x;", "\tx --> __end__;"]


def test_a_deferred_node_is_drawn_reachable_from_the_step_before_it_runs():
    g = StateGraph(S)
    for n in ("rw", "a1", "r1", "r2", "z"):
        g.add_node(n, noop)
    g.add_node("qa", noop, defer=True)
    g.add_edge(START, "rw")
    for src, dst in (("rw", "r1"), ("r1", "a1"), ("rw", "r2"), ("rw", "z"), ("r1", "qa"), ("r2", "qa")):
        g.add_edge(src, dst)
    lines = g.compile().get_graph().draw_mermaid(with_styles=False).splitlines()
    # qa runs after a1's step, which none of its edges come from: a1 -.-> qa, as LangGraph draws it
    assert lines[1:] == ["\t__start__ --> rw;", "\ta1 -.-> qa;", "\tr1 --> a1;", "\tr1 --> qa;", "\tr2 --> qa;",
                         "\trw --> r1;", "\trw --> r2;", "\trw --> z;", "\tqa --> __end__;", "\tz --> __end__;"]
