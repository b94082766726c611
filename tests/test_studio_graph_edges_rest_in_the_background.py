"""Issue 24: the graph's edges at rest are painted once into the canvas's cached background,
so a selection that changes the marks of a wide fan-out repaints the marks, never the
hundreds of edges crossing the strip it exposes. Counted (background paints, items that
paint, pixels), never timed. Also: the "why" caption goes when it stays empty."""
from __future__ import annotations

import pytest
from panel_support import fan_out, sample_graph
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from studio.core.records import EdgeShape, GraphMarks, GraphShape, WhyMarks
from studio.panels import GraphPanel
from studio.panels.graph import panel as panel_module

WIDE = 60


def _fan_out(width: int = WIDE) -> GraphShape:
    return fan_out(width, end=EdgeShape(source="join", target="__end__", kind="conditional", label="done"))


@pytest.fixture
def panel(qtbot):
    p = GraphPanel()
    qtbot.addWidget(p)
    p.resize(1000, 600)
    p.show()
    yield p
    p.shutdown()


def _draw(qtbot, panel: GraphPanel, view: GraphShape) -> None:
    with qtbot.waitSignal(panel.layout_ready, timeout=30_000):
        panel.set_graph(view)
    qtbot.waitUntil(lambda: panel.canvas.layer.enabled, timeout=5_000)  # fitted: the layer is on


def _image(panel: GraphPanel) -> QImage:
    """The canvas as the window paints it (its cached background included)."""
    return panel.canvas.viewport().grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)


def _differing(a: QImage, b: QImage, tolerance: int = 60) -> int:
    """Pixels (every other row and column) whose colour differs by more than `tolerance` in a
    channel: antialiasing may shade a stroke's pixels a little differently, never more."""
    assert a.size() == b.size()
    count = 0
    for y in range(0, a.height(), 2):
        for x in range(0, a.width(), 2):
            p, q = a.pixel(x, y), b.pixel(x, y)
            if p != q and max(abs((p >> s & 255) - (q >> s & 255)) for s in (0, 8, 16)) > tolerance:
                count += 1
    return count


def _marks(width: int, round_: int) -> GraphMarks:
    names = [f"w{i:03d}" for i in range(width)]
    if round_ % 2:
        return GraphMarks(next=frozenset(names), last_ran=frozenset({"plan"}), trail=("plan",))
    return GraphMarks(next=frozenset({"join"}), last_ran=frozenset(names), trail=tuple(names[:8]))


def test_selections_repaint_the_marks_and_never_the_resting_edges(qtbot, panel):
    _draw(qtbot, panel, _fan_out())
    layer, edges = panel.canvas.layer, panel.edge_items()
    assert len(layer.layered()) == len(edges) == 2 * WIDE + 2  # no subgraph frame to cross: all of them
    panel.canvas.viewport().repaint()
    builds, paints = layer.builds, layer.paints
    assert paints >= 1
    for round_ in range(6):  # marks that light 60 edges, then the other 60
        panel.set_marks(_marks(WIDE, round_))
        panel.canvas.viewport().repaint()
        active = [e for e in edges if e.active]
        assert len(active) == WIDE
        assert {id(e) for e in layer.lit} == {id(e) for e in active}, "a highlighted edge's stroke is drawn over"
        assert panel.highlights is not None and panel.highlights.shown() == WIDE
        assert not any(e.painted for e in edges), "no edge item paints: the background and the highlights do"
    assert (layer.builds, layer.paints) == (builds, paints), "no selection redrew the resting edges"


def test_the_background_draws_what_the_items_drew(qtbot, panel):
    _draw(qtbot, panel, _fan_out(30))
    panel.set_marks(GraphMarks(trail=("plan",)))  # nothing highlighted: every edge at rest
    assert not any(e.painted for e in panel.edge_items())
    layered = _image(panel)
    panel.canvas.layer.enable(False, set(panel.why.triggered))  # every edge paints its own item again
    panel.canvas.resetCachedContent()
    assert all(e.painted for e in panel.edge_items())
    items = _image(panel)
    blank = QImage(items.size(), items.format())
    blank.fill(Qt.GlobalColor.white)
    drawn = _differing(items, blank)
    assert drawn > 1000, "the graph was drawn"
    assert _differing(layered, items) <= drawn * 0.01, "the same picture, edge for edge"


def test_zoomed_in_every_edge_paints_its_item_and_fitted_the_background_has_them(qtbot, panel):
    _draw(qtbot, panel, _fan_out())
    layer = panel.canvas.layer
    panel.set_zoom(1.5)  # the graph no longer fits: scrolling must not stroke every long edge per strip
    assert not layer.enabled and all(e.painted for e in panel.edge_items())
    paints = layer.paints
    panel.canvas.viewport().repaint()
    assert layer.paints == paints, "no edge in the background while zoomed in"
    panel.fit()
    assert layer.enabled and not any(e.painted for e in panel.edge_items() if not e.active)


def test_an_edge_crossing_a_subgraph_frame_keeps_its_item(qtbot, panel):
    _draw(qtbot, panel, sample_graph())
    frames = [c.sceneBoundingRect() for c in panel.cluster_items().values()]
    assert frames
    layered = set(map(id, panel.canvas.layer.layered()))
    for edge in panel.edge_items():
        crosses = any(edge.sceneBoundingRect().intersects(f) for f in frames)
        assert (id(edge) in layered) is not crosses
        if crosses:
            assert edge.painted, "the frame's fill would hide a background stroke"


def test_the_caption_goes_when_it_stays_empty_and_stays_for_a_flicker(qtbot, panel, monkeypatch):
    _draw(qtbot, panel, _fan_out(10))
    caption = panel.caption
    panel.set_why(WhyMarks(step=1, together=("plan",), summary="1 task (plan) runs on the input"))
    assert caption.isVisible() and caption.text().startswith("1 task (plan)")
    panel.set_why(WhyMarks())  # nothing to explain now...
    panel.set_why(WhyMarks(step=2, together=("join",), summary="1 task (join) runs"))  # ...and again at once
    assert caption.isVisible() and not panel._caption_hide.isActive(), "a flicker of empty text keeps it"
    panel.set_why(WhyMarks())
    assert caption.isVisible() and panel._caption_hide.isActive()
    qtbot.waitUntil(lambda: caption.isHidden(), timeout=panel_module.CAPTION_HIDE_MS + 5_000)
    assert caption.full_text() == ""
    panel.set_why(WhyMarks(step=3, together=("join",), summary="1 task (join) runs"))
    assert caption.isVisible()
