"""The graph panel: layout off the UI thread, items, marks, clicks, zoom."""
from __future__ import annotations

import random
import time

import pytest
from panel_support import sample_graph, shot
from PySide6.QtCore import Qt

from studio.panels import GraphPanel
from studio.panels.graph.items import ClusterItem, NodeItem
from studio.core.records import EdgeShape, GraphMarks, GraphShape, NodeShape


@pytest.fixture
def panel(qtbot):
    p = GraphPanel()
    qtbot.addWidget(p)
    p.resize(640, 720)
    p.show()
    yield p
    p.shutdown()


def draw(qtbot, panel: GraphPanel, view: GraphShape) -> float:
    with qtbot.waitSignal(panel.layout_ready, timeout=30_000) as blocker:
        panel.set_graph(view)
    return blocker.args[0]


def click(qtbot, panel: GraphPanel, scene_x: float, scene_y: float) -> None:
    pos = panel.canvas.mapFromScene(scene_x, scene_y)
    qtbot.mouseClick(panel.canvas.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def test_graph_is_drawn_as_items_after_a_background_layout(qtbot, panel):
    panel.set_graph(sample_graph())
    assert panel.is_layout_pending()  # set_graph returned before the layout ran
    qtbot.waitUntil(lambda: not panel.is_layout_pending(), timeout=30_000)
    nodes = [i for i in panel.scene.items() if isinstance(i, NodeItem)]
    assert {n.node_id for n in nodes} >= {"__start__", "agent", "tools", "merge", "__end__", "sub:x"}
    assert isinstance(panel.node_item("sub"), ClusterItem)
    kinds = {e.kind for e in panel.edge_items()}
    assert {"edge", "conditional", "dynamic", "join"} <= kinds
    dashed = next(e for e in panel.edge_items() if e.kind == "conditional")
    assert dashed.pen().style() == Qt.PenStyle.CustomDashLine
    assert "nodes" in panel.status.text()
    shot(panel, "graph-plain")


def test_marks_colour_the_nodes(qtbot, panel):
    draw(qtbot, panel, sample_graph())
    panel.set_marks(GraphMarks(running=frozenset({"tools"}), next=frozenset({"a", "b"}), trail=("agent", "tools"),
                               breakpoints_before=frozenset({"merge"}), breakpoints_after=frozenset({"a"}),
                               selected="agent", failed=frozenset(), interrupted=frozenset({"sub"})))
    item = panel.node_item
    assert item("tools").marks.running and item("a").marks.next and item("b").marks.next
    assert item("merge").marks.break_before and item("a").marks.break_after
    assert item("agent").marks.selected and item("agent").marks.trail > 0
    assert item("sub").marks.interrupted
    active = [e for e in panel.edge_items() if e.active]
    assert {(e.edge.source, e.edge.target) for e in active} == {("tools", "a"), ("tools", "b")}
    assert panel._pulse.isActive()
    shot(panel, "graph-marks")
    panel.set_marks(GraphMarks(failed=frozenset({"b"})))
    assert item("b").marks.failed and not item("tools").marks.running and not panel._pulse.isActive()


def test_taken_routes_are_added_as_solid_edges(qtbot, panel):
    draw(qtbot, panel, sample_graph())
    before = len(panel.edge_items())
    panel.set_marks(GraphMarks(taken_edges=frozenset({("agent", "merge")})))
    taken = [e for e in panel.edge_items() if e.kind == "taken"]
    assert len(panel.edge_items()) == before + 1 and taken[0].edge.target == "merge"
    assert taken[0].pen().style() == Qt.PenStyle.SolidLine
    panel.set_marks(GraphMarks())
    assert len(panel.edge_items()) == before


def test_clicking_a_node_or_its_breakpoint_gutter_emits_intents(qtbot, panel):
    draw(qtbot, panel, sample_graph())
    agent = panel.node_item("agent")
    with qtbot.waitSignal(panel.node_clicked, timeout=2_000) as blocker:
        click(qtbot, panel, agent.box.x, agent.box.y)
    assert blocker.args == ["agent"]
    left = agent.dot_center("before")
    with qtbot.waitSignal(panel.breakpoint_toggled, timeout=2_000) as blocker:
        click(qtbot, panel, left.x(), left.y())
    assert blocker.args == ["agent", "before"]
    right = agent.dot_center("after")
    with qtbot.waitSignal(panel.breakpoint_toggled, timeout=2_000) as blocker:
        click(qtbot, panel, right.x(), right.y())
    assert blocker.args == ["agent", "after"]
    cluster = panel.node_item("sub")
    title = cluster.title_rect().center()
    with qtbot.waitSignal(panel.node_clicked, timeout=2_000) as blocker:
        click(qtbot, panel, title.x(), title.y())
    assert blocker.args == ["sub"]


def test_a_stale_layout_is_dropped(qtbot, panel):
    first = sample_graph()
    second = GraphShape(name="second", nodes=(NodeShape(id="only", label="only", kind="node"),), edges=())
    with qtbot.waitSignal(panel.layout_ready, timeout=30_000):
        panel.set_graph(first)
        panel.set_graph(second)  # before the first layout is back
    qtbot.wait(50)
    assert panel.node_ids() == ["only"] and panel.title.text() == "second"


def test_zoom_keys_and_fit(qtbot, panel):
    draw(qtbot, panel, sample_graph())
    fitted = panel.zoom()
    assert 0.05 <= fitted <= 1.25
    panel.canvas.setFocus()
    qtbot.keyClick(panel.canvas, Qt.Key.Key_Plus)
    assert panel.zoom() == pytest.approx(fitted * 1.25, rel=1e-3)
    qtbot.keyClick(panel.canvas, Qt.Key.Key_Minus)
    qtbot.keyClick(panel.canvas, Qt.Key.Key_Minus)
    assert panel.zoom() < fitted
    qtbot.keyClick(panel.canvas, Qt.Key.Key_F)
    assert panel.zoom() == pytest.approx(fitted, rel=1e-3)
    assert panel.zoom_label.text() == f"{fitted * 100:.0f}%"


def test_200_nodes_400_edges_lay_out_and_draw_in_bounded_time(qtbot, panel):
    rng = random.Random(7)
    nodes = tuple(NodeShape(id=f"n{i}", label=f"node_{i}", kind="node") for i in range(200))
    edges = tuple(EdgeShape(source=f"n{rng.randrange(200)}", target=f"n{rng.randrange(200)}",
                           kind="conditional" if i % 5 == 0 else "edge", label="go" if i % 5 == 0 else "")
                  for i in range(400))
    started = time.perf_counter()
    seconds = draw(qtbot, panel, GraphShape(name="big", nodes=nodes, edges=edges))
    panel.canvas.viewport().repaint()
    total = time.perf_counter() - started
    print(f"\n200/400 graph: drawn {seconds:.2f} s after set_graph (graphviz {panel.last_graphviz_seconds:.2f} s),"
          f" painted at {total:.2f} s")
    assert len(panel.node_ids()) == 200 and len(panel.edge_items()) == 400
    shot(panel, "graph-200")
