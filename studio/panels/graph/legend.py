"""The graph's legend: what each edge style and node mark means, drawn with the real items.

Not a panel: a compact card the graph panel shows in the bottom left corner of its canvas
(the "?" button, or View ▸ Graph Legend, F1): names and samples only, in a few columns, the
meaning of each in its tooltip, so that it covers only a corner of the graph. Each sample is painted by the same `EdgeItem` and `NodeItem` code
that draws the graph, so the legend can never drift from the drawing.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QHelpEvent, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QStyleOptionGraphicsItem, QToolTip, QWidget

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

_ROW = 17.0
_MIN_ROW = 14.0
_PAD = 6.0
_HEAD = 14.0
_SAMPLE_W = 28.0
_GAP = 4.0
_COLUMNS = (2, 3, 4, 5, 6)


class GraphLegend(QWidget):
    """A small card in a corner of the graph: each edge style and node mark drawn with its
    name, in a grid of a few columns (`fit_to` picks the count for the room); what each one
    means is its tooltip. `closed` when its × is clicked."""

    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("graphLegend")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, False)
        self.setCursor(Qt.CursorShape.ArrowCursor)
        self.setMouseTracking(True)
        self.setToolTip("What the graph's edge styles and node marks mean (? or F1 toggles this)")
        self._row = _ROW
        self._columns = 3
        font = label_font(-1.5)
        font.setBold(True)
        self._name_w = max(QFontMetricsF(font).horizontalAdvance(name) for name, *_ in EDGE_ROWS + NODE_ROWS) + 4
        self.resize(self.sizeHint())

    @property
    def columns(self) -> int:
        return self._columns

    def _cell_w(self) -> float:
        return _SAMPLE_W + _GAP + self._name_w

    def _size(self, columns: int, row: float) -> QSize:
        lines = -(-len(EDGE_ROWS) // columns) + -(-len(NODE_ROWS) // columns)
        return QSize(int(_PAD * 2 + columns * self._cell_w()), int(_PAD * 2 + 2 * _HEAD + lines * row))

    def fit_to(self, width: int, height: int) -> None:
        """The grid whose card reaches least far into a `width` x `height` canvas (the most
        compact corner); rows tighten down to 14 px when even that does not fit."""
        def reach(columns: int, row: float) -> float:
            size = self._size(columns, row)
            return max(size.width() / max(width, 1), size.height() / max(height, 1))

        row = _ROW
        best = min(_COLUMNS, key=lambda c: reach(c, row))
        while reach(best, row) > 1.0 and row > _MIN_ROW:
            row -= 1.0
            best = min(_COLUMNS, key=lambda c: reach(c, row))
        self._columns, self._row = best, row
        self.resize(self.sizeHint())
        self.update()

    def fit_height(self, height: int) -> None:
        """Fit a canvas `height` pixels high (and as wide as the card is now)."""
        self.fit_to(max(self.width(), 1), height)

    def sizeHint(self) -> QSize:
        return self._size(self._columns, self._row)

    def _cells(self) -> list[tuple[QRectF, str, str, object, bool]]:
        """(rectangle, name, meaning, edge kind or node marks, is an edge) of every entry."""
        out: list[tuple[QRectF, str, str, object, bool]] = []
        y = _PAD + _HEAD
        for rows, edge in ((EDGE_ROWS, True), (NODE_ROWS, False)):
            for i, (name, what, meaning) in enumerate(rows):
                column, line = i % self._columns, i // self._columns
                rect = QRectF(_PAD + column * self._cell_w(), y + line * self._row, self._cell_w(), self._row)
                out.append((rect, name, meaning, what, edge))
            y += -(-len(rows) // self._columns) * self._row + _HEAD
        return out

    def meaning_at(self, x: float, y: float) -> str:
        """What the entry under (x, y) means ("" between entries)."""
        for rect, name, meaning, _what, _edge in self._cells():
            if rect.contains(QPointF(x, y)):
                return f"{name}: {meaning}"
        return ""

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            text = self.meaning_at(event.position().x(), event.position().y()) if hasattr(event, "position") \
                else self.meaning_at(event.pos().x(), event.pos().y())
            if text:
                QToolTip.showText(event.globalPos(), text, self)
                return True
        return super().event(event)

    def _close_rect(self) -> QRectF:
        return QRectF(self.width() - 18, 3, 14, 14)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 (Qt's name)
        if self._close_rect().contains(event.position()):
            self.closed.emit()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor("#cbd2d9"), 1))
        painter.setBrush(QColor(255, 255, 255, 235))
        painter.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6)
        painter.setPen(QColor("#7b8794"))
        painter.drawText(self._close_rect(), Qt.AlignmentFlag.AlignCenter, "×")
        cells = self._cells()
        self._heading(painter, "Edges (hover one: what it means)", cells[0][0].top() - _HEAD)
        self._heading(painter, "Nodes", cells[len(EDGE_ROWS)][0].top() - _HEAD)
        for rect, name, _meaning, what, edge in cells:
            if edge:
                self._edge_sample(painter, str(what), active=name == "active", x=rect.left(), y=rect.top())
            else:
                self._node_sample(painter, what, rect.left(), rect.top())  # type: ignore[arg-type]
            self._text(painter, name, rect)
        painter.end()

    def _heading(self, painter: QPainter, text: str, y: float) -> None:
        font = label_font(-2.0)
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("#486581"))
        painter.drawText(QRectF(_PAD, y, self.width() - _PAD * 2 - 18, _HEAD),
                         int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)

    def _text(self, painter: QPainter, name: str, cell: QRectF) -> None:
        font = label_font(-1.5)
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("#1f2933"))
        painter.drawText(QRectF(cell.left() + _SAMPLE_W + _GAP, cell.top(), self._name_w, self._row),
                         int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), name)

    def _edge_sample(self, painter: QPainter, kind: str, *, active: bool, x: float, y: float) -> None:
        mid = y + self._row / 2
        start, end = (x + 2, mid), (x + _SAMPLE_W - 2, mid)
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

    def _node_sample(self, painter: QPainter, marks: NodeMarks, x: float, y: float) -> None:
        box = NodeBox(id="n", label="", kind="end" if marks.ended else "node", x=x + _SAMPLE_W / 2,
                      y=y + self._row / 2, w=_SAMPLE_W - 4, h=self._row - 5)
        item = NodeItem(box)
        item.set_marks(marks)
        painter.save()
        painter.translate(box.x, box.y)
        item.paint(painter, QStyleOptionGraphicsItem(), None)
        painter.restore()
