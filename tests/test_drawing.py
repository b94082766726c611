"""get_graph(): the structure (node and edge kinds), DOT, Mermaid, PNG/SVG and layout."""
from __future__ import annotations

import operator
import random
import subprocess
import sys
from typing import Annotated, Literal, TypedDict

import pytest

import engine
from engine import END, START, Command, StateGraph
from engine.graph.drawing import DrawableGraph, any_marker, layout


class S(TypedDict, total=False):
    x: int
    log: Annotated[list[str], operator.add]


def noop(state: S) -> dict:
    return {}


def graph_with(*nodes: str) -> StateGraph:
    builder = StateGraph(S)
    for name in nodes:
        builder.add_node(name, noop)
    return builder


def kinds(g: DrawableGraph) -> dict[tuple[str, str], tuple[str, str | None]]:
    return {(u, v): (d["kind"], d["label"]) for u, v, d in g.nx.edges(data=True)}


def route_to_b(state: S) -> Literal["b", "__end__"]:
    return "b"


def anywhere(state: S) -> str:
    return "b"


# -- structure ----------------------------------------------------------------------
def test_plain_edges_and_node_kinds() -> None:
    b = graph_with("a", "b")
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", END)
    g = b.compile().get_graph()
    assert list(g.nx.nodes) == [START, "a", "b", END]
    assert {n: d["kind"] for n, d in g.nx.nodes(data=True)} == {START: "start", "a": "node", "b": "node", END: "end"}
    assert kinds(g) == {(START, "a"): ("edge", None), ("a", "b"): ("edge", None), ("b", END): ("edge", None)}
    assert not any(d["conditional"] for _, _, d in g.nx.edges(data=True))


def test_waiting_edge_is_a_join_from_each_source() -> None:
    b = graph_with("a", "b", "merge")
    b.add_edge(START, "a")
    b.add_edge(START, "b")
    b.add_edge(["a", "b"], "merge")
    g = b.compile().get_graph()
    assert kinds(g)[("a", "merge")] == ("join", None)
    assert kinds(g)[("b", "merge")] == ("join", None)
    assert END not in g.nx, "END appears only when something leads to it"


def test_path_map_gives_one_labelled_conditional_edge_per_target() -> None:
    b = graph_with("a", "b", "c")
    b.add_edge(START, "a")
    b.add_conditional_edges("a", anywhere, {"go_b": "b", "go_c": "c", "stop": END})
    g = b.compile().get_graph()
    assert kinds(g) == {
        (START, "a"): ("edge", None),
        ("a", "b"): ("conditional", "go_b"),
        ("a", "c"): ("conditional", "go_c"),
        ("a", END): ("conditional", "stop"),
    }
    assert all(g.nx.edges["a", t]["conditional"] for t in ("b", "c", END))


def test_path_map_list_is_labelled_with_the_router_name() -> None:
    b = graph_with("a", "b", "c")
    b.add_edge(START, "a")
    b.add_conditional_edges("a", anywhere, ["b", "c"])
    g = b.compile().get_graph()
    assert kinds(g)[("a", "b")] == ("conditional", "anywhere")
    assert kinds(g)[("a", "c")] == ("conditional", "anywhere")


def test_two_keys_to_one_target_share_the_edge() -> None:
    b = graph_with("a", "b")
    b.add_edge(START, "a")
    b.add_conditional_edges("a", anywhere, {"yes": "b", "retry": "b", "no": END})
    assert kinds(b.compile().get_graph())[("a", "b")] == ("conditional", "yes, retry")


def test_literal_return_hint_gives_its_targets() -> None:
    b = graph_with("a", "b")
    b.add_edge(START, "a")
    b.add_conditional_edges("a", route_to_b)
    g = b.compile().get_graph()
    assert kinds(g)[("a", "b")] == ("conditional", "route_to_b")
    assert kinds(g)[("a", END)] == ("conditional", "route_to_b")


def test_router_without_map_or_hint_is_dynamic_never_an_edge_to_end() -> None:
    b = graph_with("a", "b")
    b.add_edge(START, "a")
    b.add_conditional_edges("a", anywhere)
    g = b.compile().get_graph()
    marker = any_marker("a")
    assert kinds(g) == {(START, "a"): ("edge", None), ("a", marker): ("dynamic", "anywhere")}
    assert END not in g.nx, "no edge to END may be invented for a dynamic router"
    assert g.nx.nodes[marker] == {"kind": "any", "label": "any node", "source": "a"}
    assert g.nx.edges["a", marker]["conditional"] is True


def test_langgraph_draws_the_dynamic_router_as_an_edge_to_end() -> None:
    """The bug we do not copy, pinned so the comparison stays honest."""
    lg = pytest.importorskip("langgraph.graph")
    b = lg.StateGraph(S)
    b.add_node("a", noop)
    b.add_node("b", noop)
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", anywhere)
    assert ("a", "__end__") in {(e.source, e.target) for e in b.compile().get_graph().edges}


def test_conditional_entry_point_without_map_is_dynamic_from_start() -> None:
    b = graph_with("a")
    b.set_conditional_entry_point(anywhere)
    g = b.compile().get_graph()
    assert kinds(g) == {(START, any_marker(START)): ("dynamic", "anywhere")}


def test_command_destinations_are_command_edges() -> None:
    b = graph_with("a", "b")
    b.add_node("decide", noop, destinations=("a", "b", END))
    b.add_edge(START, "decide")
    g = b.compile().get_graph()
    assert {k: v for k, v in kinds(g).items() if k[0] == "decide"} == {
        ("decide", "a"): ("command", None), ("decide", "b"): ("command", None), ("decide", END): ("command", None),
    }
    assert g.nx.edges["decide", "a"]["conditional"] is True


def goto_somewhere(state: S) -> Command:
    return Command(goto="a")


def test_node_hinted_to_return_a_bare_command_is_dynamic() -> None:
    b = graph_with("a")
    b.add_node("decide", goto_somewhere)
    b.add_edge(START, "decide")
    g = b.compile().get_graph()
    assert kinds(g)[("decide", any_marker("decide"))] == ("dynamic", "Command")
    assert END not in g.nx


def test_a_plain_edge_wins_over_a_conditional_one_to_the_same_node() -> None:
    b = graph_with("a", "b")
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_conditional_edges("a", anywhere, {"x": "b", "y": END})
    g = b.compile().get_graph()
    assert kinds(g)[("a", "b")] == ("edge", None)
    assert g.nx.edges["a", "b"]["conditional"] is False
    assert kinds(g)[("a", END)] == ("conditional", "y")


def test_add_taken_route_shows_where_a_dynamic_router_went() -> None:
    b = graph_with("a", "b")
    b.add_edge(START, "a")
    b.add_conditional_edges("a", anywhere)
    g = b.compile().get_graph()
    assert g.add_taken_route("a", "b") is True
    assert g.add_taken_route("a", "b") is False
    assert g.nx.edges["a", "b"] == {"kind": "dynamic", "label": None, "conditional": True, "taken": True}
    assert g.add_taken_route("b", END) is True and g.nx.nodes[END]["kind"] == "end"
    assert "taken" in g.to_dot()
    with pytest.raises(ValueError, match="`a` -> `nope`"):
        g.add_taken_route("a", "nope")


def inner_graph():
    b = graph_with("fetch", "extract")
    b.add_edge(START, "fetch")
    b.add_edge("fetch", "extract")
    b.add_edge("extract", END)
    return b.compile(name="research")


def outer_graph():
    b = graph_with("plan", "write")
    b.add_node("research", inner_graph())
    b.add_edge(START, "plan")
    b.add_edge("plan", "research")
    b.add_edge("research", "write")
    b.add_edge("write", END)
    return b.compile()


def test_subgraph_is_one_node_without_xray() -> None:
    g = outer_graph().get_graph()
    assert g.nx.nodes["research"]["kind"] == "subgraph"
    assert "subgraph_nodes" not in g.nx.nodes["research"]
    assert not any(":" in n for n in g.nx)


def test_xray_expands_subgraphs_into_prefixed_children() -> None:
    g = outer_graph().get_graph(xray=True)
    research = g.nx.nodes["research"]
    assert research["subgraph_nodes"] == (
        "research:__start__", "research:fetch", "research:extract", "research:__end__"
    )
    assert g.nx.nodes["research:fetch"]["parent"] == "research"
    assert kinds(g)[("research:fetch", "research:extract")] == ("edge", None)
    assert kinds(g)[("plan", "research")] == ("edge", None)
    dot = g.to_dot()
    assert 'subgraph "cluster_research"' in dot
    assert '"plan" -> "research:__start__"' in dot and 'lhead="cluster_research"' in dot
    assert "subgraph research" in g.draw_mermaid()


def test_nodes_and_edges_read_like_langgraphs() -> None:
    b = graph_with("a", "b")
    b.add_edge(START, "a")
    b.add_conditional_edges("a", anywhere, {"go": "b", "stop": END})
    g = b.compile().get_graph()
    assert list(g.nodes) == [START, "a", "b", END]
    assert g.nodes["a"].id == "a" and g.nodes["a"].name == "a" and g.nodes["a"].data is noop
    assert g.nodes[START].name == START
    edge = next(e for e in g.edges if e.target == "b")
    assert (edge.source, edge.target, edge.conditional, edge.data) == ("a", "b", True, "go")
    assert g.first_node() == "a"


def test_edges_match_langgraph_for_plain_and_conditional_graphs() -> None:
    lg = pytest.importorskip("langgraph.graph")

    def build(module):
        b = module.StateGraph(S)
        for name in ("a", "b", "c", "d"):
            b.add_node(name, noop)
        b.add_edge(module.START, "a")
        b.add_conditional_edges("a", anywhere, {"left": "b", "right": "c"})
        b.add_edge("b", "d")
        b.add_edge("c", "d")
        b.add_conditional_edges("d", route_to_b)
        return b.compile().get_graph()

    ours = {(e.source, e.target, e.conditional) for e in build(engine).edges}
    theirs = {(e.source, e.target, e.conditional) for e in build(lg).edges}
    assert ours == theirs


# -- renderers ------------------------------------------------------------------------
def sample() -> DrawableGraph:
    b = graph_with("a", "b", "c", "end", "tools")
    b.add_node("decide", noop, destinations=("a",))
    b.add_edge(START, "a")
    b.add_conditional_edges("a", anywhere, {"go": "b", "stop": END})
    b.add_conditional_edges("b", anywhere)
    b.add_edge(["a", "b"], "c")
    b.add_edge("c", "decide")
    b.add_edge("c", "end")
    b.add_edge("end", "tools")
    return b.compile(name="sample").get_graph()


def test_dot_parses_back_with_the_styles_of_each_kind() -> None:
    pgv = pytest.importorskip("pygraphviz")
    g = sample()
    agraph = pgv.AGraph(string=g.to_dot())
    assert set(agraph.nodes()) == set(g.nx.nodes)
    assert agraph.number_of_edges() == g.nx.number_of_edges()
    conditional = agraph.get_edge("a", "b").attr
    assert conditional["style"] == "dashed" and conditional["label"].strip() == "go"
    dynamic = agraph.get_edge("b", any_marker("b")).attr
    assert dynamic["style"] == "dotted" and dynamic["label"].strip() == "anywhere"
    assert agraph.get_edge("a", "c").attr["style"] == "bold"
    assert agraph.get_edge("decide", "a").attr["class"] == "edge-command"
    assert agraph.get_edge(START, "a").attr["style"] in (None, "")
    assert agraph.get_node(END).attr["label"] == "END"


def test_dot_quotes_awkward_names() -> None:
    pgv = pytest.importorskip("pygraphviz")
    b = graph_with('say "hi"', "back\\slash")
    b.add_edge(START, 'say "hi"')
    b.add_edge('say "hi"', "back\\slash")
    agraph = pgv.AGraph(string=b.compile().get_graph().to_dot())
    assert {'say "hi"', "back\\slash"} <= set(agraph.nodes())


def test_mermaid_has_a_line_per_node_and_edge() -> None:
    text = sample().to_mermaid()
    lines = [line.strip() for line in text.splitlines()]
    assert lines[0] == "flowchart TD"
    for expected in [
        '__start__(["START"]):::startNode',
        '__end__(["END"]):::endNode',
        'a["a"]',
        'end_["end"]',  # `end` is a Mermaid keyword: its id gets an underscore
        'b_any{{"any node"}}:::anyNode',
        "__start__ --> a",
        'a -.->|"go"| b',
        'a -.->|"stop"| __end__',
        'b -.->|"anywhere"| b_any',
        "a ==> c",
        "b ==> c",
        "decide -.-> a",
        "c --> end_",
        "end_ --> tools",
    ]:
        assert expected in lines, expected
    assert sum("-->" in line or "-.->" in line or "==>" in line for line in lines) == sample().nx.number_of_edges()


def test_png_and_svg_are_real_images(tmp_path) -> None:
    g = sample()
    png = g.draw_png()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 1000
    svg = g.draw_svg()
    assert "<svg" in svg and "any node" in svg
    out = tmp_path / "graph.png"
    assert g.draw_png(str(out)) == out.read_bytes()


def test_drawing_does_not_import_graphviz_until_it_renders() -> None:
    code = (
        "import sys\n"
        "from engine import StateGraph, START\n"
        "from typing import TypedDict\n"
        "class S(TypedDict):\n    x: int\n"
        "b = StateGraph(S); b.add_node('a', lambda s: {}); b.add_edge(START, 'a')\n"
        "g = b.compile().get_graph(); g.to_dot(); g.draw_mermaid()\n"
        "assert 'pygraphviz' not in sys.modules, 'imported too early'\n"
        "g.draw_svg()\n"
        "assert 'pygraphviz' in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# -- layout ---------------------------------------------------------------------------
def test_layout_gives_boxes_splines_and_label_positions() -> None:
    g = sample()
    lay = g.layout()
    assert set(lay.nodes) == set(g.nx.nodes)
    assert set(lay.edges) == set(g.nx.edges)
    start, a = lay.nodes[START], lay.nodes["a"]
    assert start.y < a.y, "top-left origin: START is above its successor"
    for node in lay.nodes.values():
        left, top, width, height = node.rect
        assert 0 <= left and left + width <= lay.width + 0.5
        assert 0 <= top and top + height <= lay.height + 0.5
    edge = lay.edges[("a", "b")]
    assert len(edge.points) >= 4 and len(edge.points) % 3 == 1
    assert edge.arrow_tip is not None and edge.label == "go" and edge.label_pos is not None
    assert lay.edges[(START, "a")].label_pos is None


def test_layout_of_an_xray_subgraph_is_a_cluster_around_its_nodes() -> None:
    lay = outer_graph().get_graph(xray=True).layout()
    box = lay.nodes["research"]
    assert box.cluster
    for child in ("research:fetch", "research:extract"):
        node = lay.nodes[child]
        assert box.x - box.width / 2 <= node.x <= box.x + box.width / 2
        assert box.y - box.height / 2 <= node.y <= box.y + box.height / 2
    assert len(lay.edges[("plan", "research")].points) >= 4


def big_graph(nodes: int = 200, edges: int = 400, seed: int = 7) -> DrawableGraph:
    """An agent-like graph: a long pipeline with conditional jumps forward and loops back."""
    rnd = random.Random(seed)
    b = StateGraph(S)
    for i in range(nodes):
        b.add_node(f"step_{i}", noop)
    b.add_edge(START, "step_0")
    count = 1
    for i in range(nodes - 1):
        b.add_edge(f"step_{i}", f"step_{i + 1}")
        count += 1
    seen: set[tuple[int, int]] = set()
    while count < edges - 1:
        i = rnd.randrange(nodes)
        j = min(nodes - 1, max(0, i + rnd.randint(-8, 8)))
        if j in (i, i + 1) or (i, j) in seen:
            continue
        seen.add((i, j))
        b.add_conditional_edges(f"step_{i}", anywhere, {f"to_{j}": f"step_{j}"})
        count += 1
    b.add_edge(f"step_{nodes - 1}", END)
    return b.compile().get_graph()


def test_layout_of_200_nodes_and_400_edges_is_complete() -> None:
    g = big_graph()
    assert (g.nx.number_of_nodes(), g.nx.number_of_edges()) == (202, 400)
    lay = layout(g.nx)  # its time is the benchmark's studio.graph row, not a test's
    assert set(lay.nodes) == set(g.nx.nodes)
    assert set(lay.edges) == set(g.nx.edges)
    assert all(len(e.points) >= 4 for e in lay.edges.values())
    assert all(e.label_pos is not None for e in lay.edges.values() if e.label)
