"""Issue 24: zoomed in on a wide fan-out, a zoom step paints its many long edges as hairlines
at once (whole, aliased: no edge clipped), then repaints the canvas a strip per turn of the
event loop at full quality, each strip as narrow as the long items crossing it ask (their
count times its width bounded); once the last strip is in, the picture is the one a full
repaint draws. Counted (quick paints, clips, strips, items crossing, pixels), never timed."""
from __future__ import annotations

import pytest
from panel_support import fan_out
from PySide6.QtGui import QImage

from studio.panels import GraphPanel
from studio.panels.graph.long_paths import LongEdgeItem
from studio.panels.graph.refine import MIN_STRIP, STRIP_WORK

WIDE = 120


@pytest.fixture
def panel(qtbot):
    p = GraphPanel()
    qtbot.addWidget(p)
    p.resize(900, 600)
    p.show()
    with qtbot.waitSignal(p.layout_ready, timeout=30_000):
        p.set_graph(fan_out(WIDE))
    yield p
    p.shutdown()


def _image(panel: GraphPanel) -> QImage:
    return panel.canvas.viewport().grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)


def _differing(a: QImage, b: QImage) -> int:
    count = 0
    for y in range(0, a.height(), 2):
        for x in range(0, a.width(), 2):
            p, q = a.pixel(x, y), b.pixel(x, y)
            if p != q and max(abs((p >> s & 255) - (q >> s & 255)) for s in (0, 8, 16)) > 60:
                count += 1
    return count


def test_a_zoom_step_paints_quick_then_strip_by_strip_until_whole(qtbot, panel):
    panel.set_zoom(1.0)
    panel.canvas.centerOn(panel.node_item("plan"))
    qtbot.waitUntil(panel.picture_whole, timeout=10_000)
    refiner = panel.canvas.refiner
    quick, refined = refiner.quick_paints, refiner.refined
    panel.zoom_by(1.2)
    assert not panel.picture_whole()  # > QUICK_ITEMS long edges in view: quick first
    clips = [item.clip for item in panel.canvas.scene().items() if isinstance(item, LongEdgeItem)]
    before = sum(c.clips for c in clips)
    panel.canvas.viewport().repaint()
    assert refiner.quick_paints == quick + 1
    assert sum(c.clips for c in clips) == before, "a quick paint strokes each long edge whole, unclipped"
    qtbot.waitUntil(panel.picture_whole, timeout=10_000)
    strips = refiner.refined - refined
    width = panel.canvas.viewport().width()
    assert 4 <= strips <= width // MIN_STRIP + 1, strips  # a strip per turn of the loop, not one long paint
    assert len(refiner.strips) == strips and sum(w for w, _ in refiner.strips) >= width
    most = max(n for _, n in refiner.strips)
    assert most * refiner.strip_width > STRIP_WORK  # at the widest, the busiest strip would be too much
    for w, n in refiner.strips:  # so each strip is as narrow as its work asks
        assert w * n <= STRIP_WORK or w == MIN_STRIP, (w, n)
    assert min(w for w, _ in refiner.strips) < refiner.strip_width < max(w for w, _ in refiner.strips) + 1
    refined_picture = _image(panel)
    panel.canvas.viewport().repaint()  # the full-quality repaint, in one go
    assert refiner.quick_paints == quick + 1 and panel.picture_whole()
    assert _differing(refined_picture, _image(panel)) == 0, "the strips make the very picture"


def test_with_few_long_edges_a_zoom_step_paints_at_once(qtbot, panel):
    refiner = panel.canvas.refiner
    with qtbot.waitSignal(panel.layout_ready, timeout=30_000):
        panel.set_graph(fan_out(6))  # a few short edges
    panel.set_zoom(2.0)
    panel.zoom_by(1.1)
    panel.canvas.viewport().repaint()
    assert panel.picture_whole() and refiner.quick_paints == 0
