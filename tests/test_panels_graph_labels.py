"""Every example graph is drawn so a person can read it: no label on another label, on a
node or across another edge, and a loop back never runs on top of the forward edge."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF

from studio.core import convert
from studio.core.layout import back_edges
from studio.core.loader import load_graph
from studio.panels import GraphPanel
from studio.panels.graph.items import EdgeItem, NodeItem
from studio.core.records import EdgeShape, GraphShape, NodeShape

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "resources" / "examples").glob("*.py"))


@pytest.fixture
def panel(qtbot):
    p = GraphPanel()
    qtbot.addWidget(p)
    p.resize(560, 560)
    p.show()
    yield p
    p.shutdown()


def _draw(qtbot, panel: GraphPanel, view: GraphShape) -> None:
    with qtbot.waitSignal(panel.layout_ready, timeout=30_000):
        panel.set_graph(view)


def _samples(edge: EdgeItem, n: int = 60) -> list[QPointF]:
    path = edge.path()
    return [path.pointAtPercent(i / (n - 1)) for i in range(n)]


def _labelled(panel: GraphPanel) -> list[EdgeItem]:
    return [e for e in panel.edge_items() if e.edge.label and e.edge.label_pos]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_labels_never_overlap_labels_nodes_or_other_edges(qtbot, panel, example: Path) -> None:
    loaded = load_graph(example)
    _draw(qtbot, panel, convert.graph_view(loaded.graph, example.stem))
    labelled = _labelled(panel)
    nodes = [panel.node_item(n) for n in panel.node_ids()]
    for i, edge in enumerate(labelled):
        plate = edge.label_rect()
        for other in labelled[i + 1:]:
            assert not plate.intersects(other.label_rect()), \
                f"{example.stem}: label {edge.edge.label!r} overlaps label {other.edge.label!r}"
        for node in nodes:
            if isinstance(node, NodeItem) and node.box.kind != "join":
                box = node.mapRectToScene(node._rect)
                assert not plate.intersects(box), f"{example.stem}: label {edge.edge.label!r} on node {node.node_id}"
        inner = plate.adjusted(2, 2, -2, -2)
        for other in panel.edge_items():
            if other is edge:
                continue
            crossing = [p for p in _samples(other) if inner.contains(p)]
            assert not crossing, (f"{example.stem}: edge {other.edge.source}→{other.edge.target} runs through "
                                  f"the label {edge.edge.label!r} of {edge.edge.source}→{edge.edge.target}")


def _gap(a: EdgeItem, b: EdgeItem) -> float:
    """How far apart two edges run at their middles."""
    pa, pb = a.path().pointAtPercent(0.5), b.path().pointAtPercent(0.5)
    return math.hypot(pa.x() - pb.x(), pa.y() - pb.y())


def test_bluetooth_retry_loop_bends_around_the_forward_edge(qtbot, panel) -> None:
    example = next(p for p in EXAMPLES if p.stem == "bluetooth")
    _draw(qtbot, panel, convert.graph_view(load_graph(example).graph, "bluetooth"))
    edges = {(e.edge.source, e.edge.target): e for e in panel.edge_items()}
    forward, back = edges[("scanning", "pairing")], edges[("pairing", "scanning")]
    assert _gap(forward, back) > 30, "the retry edge runs on top of scanning → pairing"
    plate = back.label_rect()
    assert not any(plate.adjusted(2, 2, -2, -2).contains(p) for p in _samples(forward))


def test_back_edges_are_found_from_start_in_edge_order() -> None:
    def n(i: str, kind: str = "node") -> NodeShape:
        return NodeShape(id=i, label=i, kind=kind)

    def e(s: str, t: str) -> EdgeShape:
        return EdgeShape(source=s, target=t, kind="edge")

    view = GraphShape(name="g", nodes=(n("__start__", "start"), n("a"), n("b"), n("c"), n("__end__", "end")),
                     edges=(e("__start__", "a"), e("a", "b"), e("b", "a"), e("b", "c"), e("c", "c"),
                            e("c", "a"), e("c", "__end__")))
    assert back_edges(view) == {2, 5}  # b → a and c → a; the self-loop c → c is not one
