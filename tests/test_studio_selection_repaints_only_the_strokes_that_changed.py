"""Issue 24: a selection lights glows and highlighted edges, and the canvas repaints only the
strokes that came or went, all of them drawn by one item (`Highlights`), not by one item
paint each. Counted (strokes touched, items painting, pixels), never timed."""
from __future__ import annotations

import pytest
from panel_support import fan_out
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QGraphicsItem

from studio.core.records import GraphMarks, GraphShape, WhyMarks
from studio.panels import GraphPanel


def _why(width: int, skip: int = -1) -> WhyMarks:
    """The superstep of the fan-out: plan triggered every worker (but `skip`)."""
    names = [f"w{i:03d}" for i in range(width) if i != skip]
    return WhyMarks(step=2, together=tuple(names), triggers=tuple(("plan", n, "") for n in names))


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
    qtbot.waitUntil(lambda: panel.canvas.layer.enabled, timeout=5_000)  # fitted: the edge layer is on


def _image(panel: GraphPanel) -> QImage:
    return panel.canvas.viewport().grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)


def _amber(image: QImage) -> int:
    """Pixels tinted by a glow (amber: much more red than blue)."""
    count = 0
    for y in range(image.height()):
        for x in range(image.width()):
            p = image.pixel(x, y)
            if (p >> 16 & 255) - (p & 255) > 40:
                count += 1
    return count


@pytest.mark.parametrize("width", [40, 120])
def test_a_selection_touches_the_strokes_that_changed_whatever_the_width(qtbot, panel, width):
    _draw(qtbot, panel, fan_out(width))
    lit = panel.highlights
    assert lit is not None
    panel.set_why(_why(width))
    assert len(panel.why.glows) == width
    assert lit.shown() == 2 * width  # each glow, then its edge's stroke over it
    touched = lit.touched
    panel.set_why(_why(width, skip=7))  # one worker fewer: its glow and its edge's stroke go
    assert lit.touched - touched == 2
    touched = lit.touched
    panel.set_why(_why(width, skip=7))  # the same again: nothing to repaint
    assert lit.touched == touched
    panel.set_why(_why(width))
    assert lit.touched - touched == 2


def test_glows_and_highlighted_edges_are_drawn_by_one_item(qtbot, panel):
    _draw(qtbot, panel, fan_out(60))
    before = _amber(_image(panel))
    panel.set_why(_why(60))
    glowing = _amber(_image(panel))
    assert glowing > before + 500, "the glows are on screen"
    panel.set_marks(GraphMarks(next=frozenset(f"w{i:03d}" for i in range(60)), last_ran=frozenset({"plan"})))
    lit = panel.highlights
    assert lit is not None
    no_contents = QGraphicsItem.GraphicsItemFlag.ItemHasNoContents
    assert all(g.flags() & no_contents for g in panel.why.glows), "a glow item paints nothing"
    assert not any(e.painted for e in panel.edge_items()), "nor does an edge item, highlighted or not"
    assert all(g.toolTip() for g in panel.why.glows)  # but each keeps its tooltip
    strokes = lit.strokes
    image = _image(panel)
    assert lit.strokes - strokes == 120, "one paint drew the 60 glows and the 60 highlighted edges"
    assert _amber(image) > before + 100, "under the highlighted strokes, the glows' edges show"
    panel.set_zoom(1.5)  # zoomed in: the edges paint their own items again, the glows stay the Highlights'
    assert all(e.painted for e in panel.edge_items()) and lit.shown() == 60
    panel.fit()
    assert lit.shown() == 120 and not any(e.painted for e in panel.edge_items())


def test_a_new_layout_brings_its_own_highlights(qtbot, panel):
    _draw(qtbot, panel, fan_out(10))
    panel.set_why(_why(10))
    first = panel.highlights
    _draw(qtbot, panel, fan_out(12))
    assert panel.highlights is not None and panel.highlights is not first
    assert panel.highlights.scene() is panel.scene
    panel.set_why(_why(12))
    assert panel.highlights.shown() == 24
    assert panel.canvas.viewport().grab().toImage().pixelColor(0, 0) != Qt.GlobalColor.transparent
