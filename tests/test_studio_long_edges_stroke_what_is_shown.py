"""Issue 24: zoomed in on a wide fan-out, an edge thousands of points long strokes only the
part the view shows (Qt stroked each whole before clipping it: 0.3 ms an edge, 0.2-0.5 s a
repaint), with the same pixels; and the canvas's viewport is opaque, so a drag moves the
picture and paints only the strip it exposes (the window's style sheet had turned the
viewport's auto-fill off, which made every scroll step repaint the whole canvas). Counted
(parts clipped, painted rectangles, pixels), never timed."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView

from studio.core.layout import EdgePath
from studio.core.records import EdgeShape, GraphShape, NodeShape
from studio.panels import GraphPanel
from studio.panels.graph.items import EdgeItem
from studio.panels.graph.long_paths import LongEdgeItem, PathClip, make_edge
from studio.window.main_window import STYLE_SHEET


def _edge(points, kind: str = "conditional") -> EdgePath:
    return EdgePath(source="a", target="b", kind=kind, label="", points=tuple(points), arrow=None,
                    label_pos=None, index=0)


def test_only_the_part_inside_the_rectangle_is_kept():
    clip = PathClip([(0.0, 0.0), (10_000.0, 100.0)])
    path, before = clip.visible(QRectF(4_000, -50, 500, 200))
    box = path.boundingRect()
    assert 3_999 <= box.left() <= 4_001 and 4_499 <= box.right() <= 4_501
    assert abs(before - 4_000 * (1 + 1e-4) ** 0.5) < 1.0, "the length left out, for the dashes"
    assert clip.visible(QRectF(4_000, 500, 500, 200)) is None, "nothing of it there"
    # a straight cubic (dot's straight edges) is a line; a polyline keeps its middle part
    cubic = PathClip([(0.0, 0.0), (1_000.0, 0.0), (2_000.0, 0.0), (3_000.0, 0.0)])
    assert cubic.visible(QRectF(1_000, -1, 10, 2))[0].boundingRect().width() <= 11
    poly = PathClip([(0.0, 0.0), (1_000.0, 0.0), (1_000.0, 1_000.0), (2_000.0, 1_000.0), (2_000.0, 2_000.0)])
    path, before = poly.visible(QRectF(900, 400, 200, 200))  # 5 points: a polyline (4 would be a cubic)
    assert path.boundingRect().height() <= 201 and before == 1_000 + 400
    # a real curve is kept whole from where its control points reach the rectangle
    curve = PathClip([(0.0, 0.0), (0.0, 3_000.0), (3_000.0, -3_000.0), (3_000.0, 0.0)])
    assert curve.visible(QRectF(1_000, -10, 10, 20))[0].elementCount() == 4


def _render(item: EdgeItem, zoom: float, centre: tuple[float, float]) -> QImage:
    scene = QGraphicsScene()
    scene.addItem(item)
    scene.setSceneRect(QRectF(-100, -100, 12_200, 400))
    view = QGraphicsView(scene)
    view.setRenderHints(QPainter.RenderHint.Antialiasing)
    view.resize(400, 300)
    view.scale(zoom, zoom)
    view.centerOn(*centre)
    view.setBackgroundBrush(QColor("white"))
    view.show()
    # the viewport's own paint event (view.render() would hand each item its whole rectangle)
    image = view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)
    view.setScene(None)
    return image


def test_a_long_dashed_edge_zoomed_in_looks_the_same_and_is_clipped(qtbot):
    points = [(0.0, 0.0), (4_000.0, 60.0), (8_000.0, 120.0), (12_000.0, 200.0)]  # a bent cubic: kept whole
    straight = [(0.0, 0.0), (12_000.0, 200.0)]
    clips = []
    for pts in (straight, points):
        long_item = make_edge(_edge(pts))
        assert isinstance(long_item, LongEdgeItem)
        plain = EdgeItem(_edge(pts))
        a = _render(long_item, 2.0, (6_137.0, 102.0))
        b = _render(plain, 2.0, (6_137.0, 102.0))
        drawn = differ = 0
        for y in range(a.height()):
            for x in range(a.width()):
                p, q = a.pixel(x, y), b.pixel(x, y)
                drawn += q != 0xFFFFFFFF
                differ += p != q and max(abs((p >> s & 255) - (q >> s & 255)) for s in (0, 8, 16)) > 60
        assert drawn > 200, "the dashes are on screen"
        assert differ <= drawn // 100, f"{differ} of {drawn} drawn pixels differ"
        clips.append(long_item.clip.clips)
    assert clips[0] >= 1 and clips[1] >= 1, "painted in part, the view showing a little of each"
    assert not isinstance(make_edge(_edge([(0.0, 0.0), (300.0, 200.0)])), LongEdgeItem), "a short edge is Qt's"


class _Rects(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.rects = []

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Paint:
            self.rects.append(event.rect())
        return False


def test_a_drag_in_the_styled_window_paints_only_the_strip_it_exposes(qtbot):
    panel = GraphPanel()
    qtbot.addWidget(panel)
    panel.setStyleSheet(STYLE_SHEET.read_text(encoding="utf-8"))  # as the window styles it
    panel.resize(900, 500)
    panel.show()
    names = [f"w{i:02d}" for i in range(40)]
    view = GraphShape(name="fan", nodes=(NodeShape(id="plan", kind="node", label="plan"),
                                         *(NodeShape(id=n, kind="node", label=n) for n in names)),
                      edges=tuple(EdgeShape(source="plan", target=n, kind="edge", label="") for n in names))
    with qtbot.waitSignal(panel.layout_ready, timeout=30_000):
        panel.set_graph(view)
    panel.set_zoom(1.0)
    panel.canvas.centerOn(panel.node_item("plan"))
    qtbot.wait(50)
    rects = _Rects()
    viewport = panel.canvas.viewport()
    viewport.installEventFilter(rects)
    bar = panel.canvas.horizontalScrollBar()
    for _ in range(3):
        bar.setValue(bar.value() + 40)
        qtbot.waitUntil(lambda: bool(rects.rects), timeout=5_000)
        qtbot.wait(20)
    assert rects.rects and all(r.width() <= 60 for r in rects.rects), \
        f"a drag of 40 px repainted {[r.width() for r in rects.rects]} px wide, of {viewport.width()}"
    assert viewport.testAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
    panel.shutdown()
