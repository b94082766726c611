"""The graph's legend: what each edge style and node mark means, drawn with the real items.

Not a panel: an overlay the graph panel shows over its canvas (the "?" button, or
View ▸ Graph Legend). Each sample is painted by the same `EdgeItem` and `NodeItem` code
that draws the graph, so the legend can never drift from the drawing.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QStyleOptionGraphicsItem, QWidget

from studio.core.layout import EdgePath, NodeBox
from .items import EdgeItem, NodeItem, NodeMarks, label_font

__all__ = ["GraphLegend", "EDGE_ROWS", "NODE_ROWS"]

EDGE_ROWS: tuple[tuple[str, str, str], ...] = (
    ("edge", "edge", "always runs next"),
    ("conditional", "conditional", "a router picks (label: router: branch)"),
    ("dynamic", "dynamic", "router without a path map: anywhere"),
    ("join", "join", "waits for all its sources"),
    ("command", "command", "a Command(goto=…) destination"),
    ("taken", "taken", "a dynamic route seen at run time"),
    ("active", "edge", "from what just ran to what runs next"),
)
"""(name shown, EdgeItem kind, meaning)."""

NODE_ROWS: tuple[tuple[str, NodeMarks, str], ...] = (
    ("running", NodeMarks(running=True), "runs now (pulses)"),
    ("next", NodeMarks(next=True), "due in the next step"),
    ("trail", NodeMarks(trail=1.0), "ran recently (fades with age)"),
    ("breakpoint", NodeMarks(break_before=True, break_after=True), "red dot: before (left) / after (right)"),
    ("failed", NodeMarks(failed=True), "raised an error"),
    ("interrupted", NodeMarks(interrupted=True), "waits at interrupt()"),
    ("selected", NodeMarks(selected=True), "the node in the inspector"),
    ("tasks", NodeMarks(next=True, count="×3"), "several tasks (Send): ×3, then 2/3 ✓"),
    ("finished", NodeMarks(done=True), "its task finished; the step commits next"),
    ("run ended", NodeMarks(ended=True), "END lit: the run has finished"),
)

_ROW = 24.0
_MIN_ROW = 17.0
_PAD = 10.0
_SAMPLE_W = 62.0
_NAME_W = 78.0
_TEXT_W = 232.0


class GraphLegend(QWidget):
    """A small card listing edge styles and node marks; `closed` when its × is clicked."""

    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphLegend")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, False)
        self.setCursor(Qt.CursorShape.ArrowCursor)
        self.setToolTip("What the graph's edge styles and node marks mean (? toggles this)")
        self._row = _ROW
        self.resize(self.sizeHint())

    def fit_height(self, height: int) -> None:
        """Tighten the rows (down to 17 px) so that every row shows in `height` pixels
        (a 720-pixel-high window leaves the canvas about 400)."""
        rows = len(EDGE_ROWS) + len(NODE_ROWS)
        room = (height - _PAD * 2 - 2 * 20 - 6) / rows
        self._row = max(_MIN_ROW, min(_ROW, room))
        self.resize(self.sizeHint())
        self.update()

    def sizeHint(self) -> QSize:
        rows = len(EDGE_ROWS) + len(NODE_ROWS)
        height = _PAD * 2 + 2 * 20 + rows * self._row + 6
        return QSize(int(_PAD * 2 + _SAMPLE_W + _NAME_W + _TEXT_W), int(height))

    def _close_rect(self) -> QRectF:
        return QRectF(self.width() - 22, 6, 16, 16)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt's name)
        if self._close_rect().contains(event.position()):
            self.closed.emit()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor("#cbd2d9"), 1))
        painter.setBrush(QColor(255, 255, 255, 240))
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 8, 8)
        painter.setPen(QColor("#7b8794"))
        painter.drawText(self._close_rect(), Qt.AlignmentFlag.AlignCenter, "×")
        y = _PAD
        y = self._heading(painter, "Edges", y)
        for name, kind, meaning in EDGE_ROWS:
            self._edge_sample(painter, kind, active=name == "active", y=y)
            self._text(painter, name, meaning, y)
            y += self._row
        y = self._heading(painter, "Nodes", y + 6)
        for name, marks, meaning in NODE_ROWS:
            self._node_sample(painter, marks, y)
            self._text(painter, name, meaning, y)
            y += self._row
        painter.end()

    def _heading(self, painter: QPainter, text: str, y: float) -> float:
        font = label_font(-0.5)
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("#102a43"))
        painter.drawText(QRectF(_PAD, y, 200, 20), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                         text)
        return y + 20

    def _text(self, painter: QPainter, name: str, meaning: str, y: float) -> None:
        middle = int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        x = _PAD + _SAMPLE_W + 8
        font = label_font(-1)
        bold = QFont(font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(QColor("#1f2933"))
        painter.drawText(QRectF(x, y, _NAME_W, self._row), middle, name)
        painter.setFont(font)
        painter.setPen(QColor("#52606d"))
        painter.drawText(QRectF(x + _NAME_W, y, _TEXT_W - 12, self._row), middle, meaning)

    def _edge_sample(self, painter: QPainter, kind: str, *, active: bool, y: float) -> None:
        mid = y + self._row / 2
        start, end = (_PAD + 2, mid), (_PAD + _SAMPLE_W - 4, mid)
        base = (end[0] - 8, mid)
        c1, c2 = (start[0] + (base[0] - start[0]) / 3, mid), (start[0] + 2 * (base[0] - start[0]) / 3, mid)
        path = EdgePath(source="a", target="b", kind=kind, label="", points=(start, c1, c2, base),
                        arrow=None if kind == "join" else (base, end), label_pos=None, index=-1)
        item = EdgeItem(path, kind)
        item.set_active(active)
        item.paint(painter, QStyleOptionGraphicsItem(), None)
        if kind == "join":
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(item.pen().color())
            painter.drawEllipse(QPointF(*base), 4.0, 4.0)

    def _node_sample(self, painter: QPainter, marks: NodeMarks, y: float) -> None:
        box = NodeBox(id="n", label="", kind="end" if marks.ended else "node", x=_PAD + _SAMPLE_W / 2,
                      y=y + self._row / 2, w=40, h=16)
        item = NodeItem(box)
        item.set_marks(marks)
        painter.save()
        painter.translate(box.x, box.y)
        item.paint(painter, QStyleOptionGraphicsItem(), None)
        painter.restore()
