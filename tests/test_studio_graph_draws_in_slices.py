"""Issue 24: drawing a big graph never blocks the UI thread in one long callback. The
layout runs on a worker; its ~1,000 items are made a slice per turn of the event loop
(`drawing.py`), the canvas repaints once, when all of them are in, and marks set meanwhile
are applied then. Counted (slices, items per slice, paints), never timed."""
from __future__ import annotations

import itertools
import math

import pytest
from PySide6.QtCore import QEvent, QObject

from studio.core.records import EdgeShape, GraphMarks, GraphShape, NodeShape
from studio.panels import GraphPanel
from studio.panels.graph.drawing import DRAW_SLICE
from studio.panels.graph.items import NodeItem


def _big(nodes: int = 200, prefix: str = "n") -> GraphShape:
    """A chain of `nodes` with skips, about two edges a node (like the benchmark's graph)."""
    names = [f"{prefix}{i:03d}" for i in range(nodes)]
    shapes = (NodeShape(id="__start__", kind="start", label="START"),
              *(NodeShape(id=n, kind="node", label=n) for n in names), NodeShape(id="__end__", kind="end", label="END"))
    pairs = [("__start__", names[0]), (names[-1], "__end__"), *itertools.pairwise(names)]
    pairs += [(names[i], names[i + 3]) for i in range(0, nodes - 3, 2)]
    return GraphShape(name="big", nodes=shapes,
                      edges=tuple(EdgeShape(source=s, target=t, kind="edge", label="") for s, t in pairs))


class _Paints(QObject):
    """The canvas's paint events, each noted with whether a drawing was under way."""

    def __init__(self, panel: GraphPanel) -> None:
        super().__init__()
        self.panel = panel
        self.during: list[bool] = []
        panel.canvas.viewport().installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Paint:
            self.during.append(self.panel._drawing is not None)
        return False


@pytest.fixture
def panel(qtbot):
    p = GraphPanel()
    qtbot.addWidget(p)
    p.resize(1200, 800)
    p.show()
    yield p
    p.shutdown()


def test_a_200_node_graph_is_made_in_slices_and_painted_once_it_is_all_in(qtbot, panel):
    view = _big()
    paints = _Paints(panel)
    with qtbot.waitSignal(panel.layout_ready, timeout=60_000):
        panel.set_graph(view)
    drawing = panel.last_drawing
    assert drawing is not None
    items = len(drawing.nodes) + len(drawing.edges) + len(drawing.clusters)
    assert len(panel.node_ids()) == len(view.nodes) and items > 3 * DRAW_SLICE
    assert drawing.slices == math.ceil(items / DRAW_SLICE), "one slice of items per turn of the loop"
    assert drawing.largest == DRAW_SLICE
    qtbot.waitUntil(lambda: paints.during and not paints.during[-1], timeout=5_000)
    assert not any(paints.during), "the canvas never painted a half-made drawing"
    assert not panel.is_layout_pending()
    laid = drawing.layout.nodes
    for node_id in ("n000", "n100", "n199"):  # where the layout put them
        item = panel.node_item(node_id)
        assert isinstance(item, NodeItem) and (item.pos().x(), item.pos().y()) == (laid[node_id].x, laid[node_id].y)


def test_marks_set_while_it_is_drawn_are_applied_when_it_is_in(qtbot, panel):
    panel.set_graph(_big())
    qtbot.waitUntil(lambda: panel._drawing is not None and panel._drawing.slices >= 1, timeout=60_000)
    assert panel.is_layout_pending(), "still drawing: the window waits"
    with qtbot.waitSignal(panel.layout_ready, timeout=60_000):
        panel.set_marks(GraphMarks(next=frozenset({"n150"}), running=frozenset({"n010"})))
    item = panel.node_item("n150")
    assert item is not None and item.marks.next and panel.node_item("n010").marks.running


def test_a_graph_set_while_another_is_drawn_replaces_it_whole(qtbot, panel):
    panel.set_graph(_big(prefix="a"))
    qtbot.waitUntil(lambda: panel._drawing is not None and panel._drawing.slices >= 1, timeout=60_000)
    with qtbot.waitSignal(panel.layout_ready, timeout=60_000):
        panel.set_graph(_big(120, prefix="b"))
    assert all(n.startswith("b") or n.startswith("__") for n in panel.node_ids())
    scene_nodes = [i for i in panel.scene.items() if isinstance(i, NodeItem)]
    assert len(scene_nodes) == 122, "nothing of the first graph's half-made drawing is left"
    assert panel.canvas.viewport().updatesEnabled()


def test_no_cyclic_collection_runs_while_a_slice_is_made(qtbot, panel, monkeypatch):
    """A full pass of the collector over a studio's heap was a 30-50 ms stall in the middle
    of a slice; the items made live as long as the layout, so none runs while they are made."""
    import gc

    from studio.panels.graph import drawing

    inside, collected = [False], []

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start" and inside[0]:
            collected.append(info["generation"])

    real = drawing.Drawing.step

    def step(self) -> bool:
        inside[0] = True
        try:
            return real(self)
        finally:
            inside[0] = False

    monkeypatch.setattr(drawing.Drawing, "step", step)
    gc.callbacks.append(on_gc)
    try:
        with qtbot.waitSignal(panel.layout_ready, timeout=30_000):
            panel.set_graph(_big(200))
    finally:
        gc.callbacks.remove(on_gc)
    assert panel.last_drawing is not None and panel.last_drawing.slices >= 5
    assert collected == [], "the collector ran while items were made"
    assert gc.isenabled()
