"""graphviz dot layout of a GraphShape (Qt-free): boxes, edges, joins, clusters, fast mode."""
from __future__ import annotations

import random

from panel_support import E, N, sample_graph

from studio.core.layout import JOIN_PREFIX, layout_graph
from studio.core.records import GraphShape


def test_nodes_get_boxes_top_to_bottom_and_edges_get_splines():
    layout = layout_graph(sample_graph())
    boxes = layout.nodes
    assert boxes["__start__"].y < boxes["agent"].y < boxes["tools"].y < boxes["merge"].y < boxes["__end__"].y
    assert "sub" not in boxes  # a subgraph with members is a cluster, not a box
    (cluster,) = layout.clusters
    assert cluster.id == "sub"
    inner = boxes["sub:x"]
    assert cluster.x < inner.x < cluster.x + cluster.w and cluster.y < inner.y < cluster.y + cluster.h
    conditional = next(e for e in layout.edges if e.label == "tools")
    assert conditional.kind == "conditional" and conditional.label_pos is not None
    assert len(conditional.points) >= 4 and conditional.arrow is not None
    assert not layout.fast


def test_a_waiting_edge_meets_at_one_join_point():
    layout = layout_graph(sample_graph())
    join = JOIN_PREFIX + "merge"
    assert layout.nodes[join].kind == "join"
    into = [e for e in layout.edges if e.target == join]
    assert sorted(e.source for e in into) == ["a", "b"] and all(e.arrow is None for e in into)
    (out,) = [e for e in layout.edges if e.source == join]
    assert out.target == "merge" and out.arrow is not None


def test_big_graphs_use_the_fast_mode_and_stay_quick():
    rng = random.Random(3)
    nodes = tuple(N(f"n{i}") for i in range(200))
    edges = tuple(E(f"n{rng.randrange(200)}", f"n{rng.randrange(200)}", "conditional" if i % 5 == 0 else "edge",
                    "x" if i % 5 == 0 else "") for i in range(400))
    layout = layout_graph(GraphShape(name="big", nodes=nodes, edges=edges))
    print(f"\n200 nodes / 400 edges: graphviz {layout.seconds:.2f} s (fast={layout.fast})")
    assert layout.fast and len(layout.nodes) == 200 and len(layout.edges) == 400


def test_an_empty_graph_lays_out_to_nothing():
    layout = layout_graph(GraphShape(name="empty", nodes=(), edges=()))
    assert layout.nodes == {} and layout.edges == ()


def test_fast_mode_with_subgraph_clusters_does_not_crash_graphviz():
    """A big graph with subgraphs (fast mode and clusters) once killed the process inside
    graphviz ("double free or corruption"): laid out in a child process, so a crash
    fails this test instead of ending the test run."""
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    code = textwrap.dedent('''
        import sys
        sys.path.insert(0, "tests")
        from panel_support import E, N, sample_graph
        from studio.core.layout import layout_graph
        from studio.core.records import GraphShape
        small = layout_graph(sample_graph(), fast=True)
        assert small.fast and [c.id for c in small.clusters] == ["sub"], small.clusters
        members = tuple(f"inner:w{i}" for i in range(300))
        nodes = (N("__start__", "start", "START"), N("inner", "subgraph", subgraph_nodes=members),
                 *(N(m, label=m.split(":")[1]) for m in members), N("after"), N("__end__", "end", "END"))
        edges = (E("__start__", "inner"), *(E(f"inner:w{i}", f"inner:w{i + 1}") for i in range(0, 298, 2)),
                 E("inner", "after"), E("after", "__end__"))
        wide = layout_graph(GraphShape(name="wide", nodes=nodes, edges=edges))
        assert wide.fast and len(wide.nodes) >= 300 and [c.id for c in wide.clusters] == ["inner"]
        print("laid out")
    ''')
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "laid out" in done.stdout, done.stderr[-2000:]
