"""get_graph() of nested subgraphs as LangGraph draws them: one Mermaid block per
subgraph level, nested; breakpoints in node metadata; a function node that invokes a
graph expanded by xray."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from engine import END, START, StateGraph


class S(TypedDict):
    log: Annotated[list, operator.add]


def _node(name: str):
    def node(state: S) -> dict:
        return {"log": [name]}
    return node


def _loop(prefix: str, inner=None) -> StateGraph:
    g = StateGraph(S)
    g.add_node(f"{prefix}_one", _node(f"{prefix}_one"))
    g.add_node(f"{prefix}_two", inner if inner is not None else _node(f"{prefix}_two"))
    g.add_edge(START, f"{prefix}_one")
    g.add_edge(f"{prefix}_two", f"{prefix}_one")
    g.add_conditional_edges(f"{prefix}_one", lambda s: "1", {"0": f"{prefix}_two", "1": END})
    return g


def _blocks(text: str) -> dict[str, tuple[int, int]]:
    """Each `subgraph NAME` block's (first, last) line numbers."""
    stack: list[tuple[str, int]] = []
    found: dict[str, tuple[int, int]] = {}
    for i, line in enumerate(text.splitlines()):
        if line.startswith("\tsubgraph "):
            stack.append((line.split(" ", 1)[1], i))
        elif line == "\tend":
            name, start = stack.pop()
            found[name] = (start, i)
    assert not stack
    return found


def test_xray_nests_a_mermaid_block_per_subgraph_level():
    top = _loop("gp", _loop("p", _loop("c").compile()).compile()).compile()
    text = top.get_graph(xray=True).draw_mermaid()
    lines = text.splitlines()
    blocks = _blocks(text)
    assert set(blocks) == {"gp_two", "p_two"}  # named after the subgraph node, not its path
    (outer_start, outer_end), (inner_start, inner_end) = blocks["gp_two"], blocks["p_two"]
    assert outer_start < inner_start < inner_end < outer_end
    # an edge between two nodes of the middle graph is drawn in its block, not at the top
    edge = "\tgp_two\\3ap_one -. &nbsp;0&nbsp; .-> gp_two\\3ap_two\\3a__start__;"
    assert outer_start < lines.index(edge) < inner_start
    inner_edge = "\tgp_two\\3ap_two\\3ac_two --> gp_two\\3ap_two\\3ac_one;"
    assert inner_start < lines.index(inner_edge) < inner_end
    assert not _blocks(top.get_graph(xray=False).draw_mermaid())


def test_breakpoints_show_in_node_metadata_and_labels():
    g = StateGraph(S)
    for name in ("a", "b", "c"):
        g.add_node(name, _node(name), metadata={"team": "x"} if name == "a" else None)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    drawn = g.compile(interrupt_before=["a", "b"], interrupt_after=["b"]).get_graph()
    assert drawn.nodes["a"].metadata == {"team": "x", "__interrupt": "before"}
    assert drawn.nodes["b"].metadata == {"__interrupt": "before,after"}
    assert drawn.nodes["c"].metadata is None
    text = drawn.draw_mermaid()
    assert "\tb(b<hr/><small><em>__interrupt = before,after</em></small>)" in text
    assert "\ta(a<hr/><small><em>team = x\n__interrupt = before</em></small>)" in text
    every = g.compile(interrupt_before="*").get_graph()
    assert every.nodes["b"].metadata is None and every.nodes["a"].metadata == {"team": "x"}


def test_xray_expands_a_function_node_that_invokes_a_graph():
    sub = StateGraph(S)
    sub.add_node("first", _node("first"))
    sub.add_node("second", _node("second"))
    sub.add_edge(START, "first")
    sub.add_edge("first", "second")
    sub = sub.compile(interrupt_before=["second"])

    def wrapped(state: S) -> dict:
        return sub.invoke(state)

    g = StateGraph(S)
    g.add_node("pre", _node("pre"))
    g.add_node("wrapped", wrapped)
    g.add_edge(START, "pre")
    g.add_edge("pre", "wrapped")
    app = g.compile()
    text = app.get_graph(xray=1).draw_mermaid()
    assert "\tpre --> wrapped\\3afirst;" in text and "\twrapped\\3asecond --> __end__;" in text
    assert "\twrapped\\3asecond(second<hr/><small><em>__interrupt = before</em></small>)" in text
    assert "\twrapped(wrapped)" in app.get_graph().draw_mermaid()


def test_edges_list_what_langgraph_lists_and_keep_their_kind():
    from engine import Command

    def child(state: S) -> Command:
        return Command(goto="c", graph=Command.PARENT)

    sub = StateGraph(S)
    sub.add_node("child_node", child)
    sub.add_edge(START, "child_node")
    sub = sub.compile()
    g = StateGraph(S)
    g.add_node("child", sub, destinations={"b": "to b", "c": "to c"})
    g.add_node("b", _node("b"))
    g.add_node("c", _node("c"))
    g.add_edge(START, "child")
    app = g.compile()
    assert app.invoke({"log": []}) == {"log": ["c"]}
    edges = app.get_graph().edges
    # plain 4-tuples (source, target, data, conditional), as LangChain's Edge
    assert edges == [(START, "child", None, False), ("child", "b", "to b", True), ("child", "c", "to c", True),
                     ("b", END, None, False), ("c", END, None, False)]
    assert [e.kind for e in edges] == ["edge", "command", "command", "edge", "edge"]
    assert edges[1].source == "child" and edges[1].data == "to b" and edges[1].conditional


def test_a_deferred_node_is_drawn_after_the_last_step_before_it():
    g = StateGraph(S)
    for name in ("split", "left", "left_more", "right"):
        g.add_node(name, _node(name))
    g.add_node("last", _node("last"), defer=True)
    g.add_edge(START, "split")
    g.add_edge("split", "left")
    g.add_edge("split", "right")
    g.add_edge("left", "left_more")
    g.add_edge(["left", "right"], "last")
    drawn = g.compile().get_graph()
    edges = {(e.source, e.target): e.conditional for e in drawn.edges}
    # `last` runs once `left_more` (the only node of the step before) is done: drawn as a
    # possible next step of it, not `left_more` -> END
    assert edges[("left_more", "last")] is True
    assert ("left_more", END) not in edges and edges[("last", END)] is False
    assert edges[("left", "last")] is False and edges[("right", "last")] is False
    assert drawn.nodes["last"].metadata == {"defer": True}
    assert "\tlast(last<hr/><small><em>defer = True</em></small>)" in drawn.draw_mermaid()
