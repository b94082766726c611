"""One DOT builder (issue 11): only `engine.graph.dot` writes DOT or runs graphviz; the
engine's exports and the studio's canvas both describe their graph to it."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

from engine.graph.dot import DotCluster, DotEdge, DotGraph, DotNode, Html, dot_text, laid_out
from engine.graph.render import to_dot

ROOT = Path(__file__).resolve().parents[1]
BUILDER = "engine/graph/dot.py"
_RUNS_GRAPHVIZ = re.compile(r"\bAGraph\s*\(|\.layout\(\s*prog\s*=|\.draw\([^)]*prog\s*=")


def _strings(tree: ast.AST) -> list[str]:
    """Every string literal, with an f-string's literal parts joined."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            out.append("".join(v.value for v in node.values if isinstance(v, ast.Constant)))
    return out


def dot_builders() -> dict[str, list[str]]:
    """Modules of engine/ and studio/ that build a pygraphviz graph, run dot, or write DOT text."""
    found: dict[str, list[str]] = {}
    for path in sorted([*ROOT.glob("engine/**/*.py"), *ROOT.glob("studio/**/*.py")]):
        source = path.read_text(encoding="utf-8")
        code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))
        reasons = [m.group(0) for m in _RUNS_GRAPHVIZ.finditer(code)]
        reasons += [s[:20] for s in _strings(ast.parse(source)) if re.match(r"\s*(strict\s+)?digraph\b", s)]
        if reasons:
            found[path.relative_to(ROOT).as_posix()] = reasons
    return found


def test_only_one_module_builds_dot_or_runs_graphviz():
    assert set(dot_builders()) == {BUILDER}, (
        f"DOT is built or graphviz run outside {BUILDER}: {dot_builders()}; describe the graph as a "
        "DotGraph and call engine.graph.dot instead")


def test_the_guard_sees_a_second_builder(tmp_path):
    tree = ast.parse('def f(pygraphviz):\n    g = pygraphviz.AGraph(directed=True)\n    return f"digraph {g} {{"\n')
    assert any(re.match(r"digraph\b", s) for s in _strings(tree))
    assert _RUNS_GRAPHVIZ.search("g = pygraphviz.AGraph(directed=True)")
    assert _RUNS_GRAPHVIZ.search("g.layout(prog='dot')")


def test_the_builder_writes_clusters_html_labels_and_keys_and_lays_them_out():
    graph = DotGraph(name='odd "name"', graph={"rankdir": "TB"}, node={"shape": "box"}, body=(
        DotNode(id="a", attrs={"label": 'say "hi"\\n'}),
        DotNode(id="b"),
        DotCluster(name="cluster_0", attrs={"label": "inner"}, body=("b",)),
        DotEdge(tail="a", head="b", attrs={"key": "k1", "id": "e0", "label": Html("<B>x</B>")}),
    ))
    text = dot_text(graph)
    assert text.startswith('digraph "odd \\"name\\"" {') and "label=<<B>x</B>>" in text
    g = laid_out(graph)
    assert g.get_node("a").attr["label"] == 'say "hi"\\\\n'
    (cluster,) = g.subgraphs()
    assert cluster.name == "cluster_0" and cluster.graph_attr["bb"] and list(cluster.nodes()) == ["b"]
    (edge,) = g.edges()
    assert edge.attr["id"] == "e0" and edge.attr["pos"]


def test_the_engine_export_goes_through_the_builder():
    g = nx.DiGraph()
    g.add_node("__start__", kind="start", label="START")
    g.add_node("x", kind="node", label="x")
    g.add_edge("__start__", "x", kind="edge")
    assert to_dot(g, "demo").startswith('digraph "demo" {')
