"""The Qt items of the graph canvas: node boxes, clusters, edges with arrowheads and labels.

Items only draw; the panel decides what they show (`NodeMarks`) and handles clicks.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QStaticText,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPolygonItem,
    QGraphicsSimpleTextItem,
    QGraphicsPathItem,
    QGraphicsSceneHoverEvent,
    QStyleOptionGraphicsItem,
    QWidget,
)

from studio.core.safe import total
from studio.core.layout import ClusterBox, EdgePath, NodeBox

__all__ = ["NodeMarks", "NodeItem", "LEGIBLE_PX", "ClusterItem", "EdgeItem", "EDGE_STYLES", "DOT_RADIUS", "label_font",
           "straight_edge", "label_size", "edge_label_sizes", "edge_pen"]

DOT_RADIUS = 5.0
LEGIBLE_PX = 6.0
"""Below this many pixels of height on screen a text is not drawn: a graph of 300 nodes
fitted in the window draws each node and badge as a plain box of its colour (much cheaper,
and all there is to see at that size)."""
"""Radius of a breakpoint dot; it sits on the middle of the box's left (before) or right (after) side."""

_TEXT = QColor("#1f2933")
_BORDER = QColor("#9aa5b1")
_FILL = QColor("#ffffff")
_RUNNING_FILL = QColor("#ffe8b0")
_RUNNING = QColor("#f59e0b")
_NEXT = QColor("#2563eb")
_TRAIL = QColor(20, 184, 166)  # teal, alpha set per age
_FAILED_FILL = QColor("#fee2e2")
_FAILED = QColor("#dc2626")
_INTERRUPTED_FILL = QColor("#ede9fe")
_INTERRUPTED = QColor("#7c3aed")
_SELECTED = QColor("#111827")
_BREAK = QColor("#dc2626")
_TERMINAL_FILL = QColor("#334e68")
_DONE = QColor("#16a34a")
_FOCUS = QColor("#f97316")
"""The keyboard's focus ring: orange, unlike every mark (blue next, amber running, dark selected)."""
"""A task that finished in the superstep under way (not committed yet); END once the run ended."""

# kind -> (colour, width, dash pattern or None)
EDGE_STYLES: dict[str, tuple[str, float, list[float] | None]] = {
    "edge": ("#52606d", 1.4, None),
    "conditional": ("#52606d", 1.4, [5.0, 3.0]),
    "command": ("#4f46e5", 1.4, [5.0, 3.0]),
    "dynamic": ("#7b8794", 1.3, [1.0, 3.0]),
    "join": ("#0f766e", 2.2, None),
    "taken": ("#0d9488", 2.0, None),
}


def label_font(delta: float = 0.0) -> QFont:
    font = QFont()
    size = font.pointSizeF() if font.pointSizeF() > 0 else 10.0
    font.setPointSizeF(max(7.0, size + delta))
    return font


def label_size(text: str) -> tuple[float, float]:
    """The size of an edge label's plate as drawn (text plus a small margin)."""
    metrics = QFontMetricsF(label_font(-1.5))
    return metrics.horizontalAdvance(text) + 8, metrics.height() + 2


def edge_label_sizes(view: object) -> dict[str, tuple[float, float]]:
    """Plate sizes of every edge label of a GraphShape, for the layout to keep room for."""
    labels = {e.label for e in getattr(view, "edges", ()) if e.label}
    # a little air around each plate, so neighbouring labels and edges do not touch it
    return {text: (w + 6, h + 4) for text, (w, h) in ((t, label_size(t)) for t in labels)}


@dataclass
class NodeMarks:
    """What one node shows right now (set by the panel from `GraphMarks`)."""

    running: bool = False
    next: bool = False
    trail: float = 0.0
    """0: not in the recent trail; up to 1 for the most recent step."""
    failed: bool = False
    interrupted: bool = False
    selected: bool = False
    break_before: bool = False
    break_after: bool = False
    count: str = ""
    """A badge: "×5" for five tasks (a Send fan-out), "2/5 ✓" once two have finished."""
    done: bool = False
    """Its task(s) of the superstep under way have finished."""
    ended: bool = False
    """END, once the run has finished."""


class NodeItem(QGraphicsItem):
    """A node box (rounded), a START/END pill, an "any node" marker or a join point."""

    def __init__(self, box: NodeBox) -> None:
        super().__init__()
        self.box = box
        self.marks = NodeMarks()
        self.pulse = 0.0
        self._hover = False
        self.focus_ring = False
        self._contrast = False
        self._rect = QRectF(-box.w / 2, -box.h / 2, box.w, box.h)
        # room for the count badge, the breakpoint dots and the focus ring (made once: Qt asks
        # for it thousands of times a selection in a 300-wide graph)
        self._bounds = self._rect.adjusted(-DOT_RADIUS - 8, -12, DOT_RADIUS + 12, 9)
        self._labels: dict[tuple[bool, str], tuple[QFont, QStaticText, QPointF]] = {}
        self.setPos(box.x, box.y)
        self.setZValue(2)
        # kept as a small pixmap: a repaint of a strip crossing 300 nodes blits the unchanged
        # ones instead of calling paint() for each (a change calls update(), which redraws it)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptHoverEvents(box.kind not in ("join",))
        if box.kind != "join":
            self.setToolTip(f"{box.id}\nClick: inspect · dots at left/right: break before/after · "
                            "right-click: more")

    @property
    def node_id(self) -> str:
        return self.box.id

    def breakable(self) -> bool:
        return self.box.kind in ("node", "subgraph")

    def box_rect(self) -> QRectF:
        """The box itself, in item coordinates (no dots, no badge)."""
        return QRectF(self._rect)

    def set_focus_ring(self, on: bool, high_contrast: bool = False) -> None:
        if (on, high_contrast) != (self.focus_ring, self._contrast):
            self.focus_ring, self._contrast = on, high_contrast
            self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds  # never changed in place (shape() and Qt copy it)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self.boundingRect())
        return path

    def set_marks(self, marks: NodeMarks) -> None:
        if marks != self.marks:
            self.marks = marks
            self.update()

    def hit_part(self, scene_pos: QPointF) -> str:
        """"before" or "after" over a breakpoint dot's gutter, else "node"."""
        if not self.breakable():
            return "node"
        p = self.mapFromScene(scene_pos)
        r = self._rect
        for where, x in (("before", r.left()), ("after", r.right())):
            if math.hypot(p.x() - x, p.y()) <= DOT_RADIUS + 4:
                return where
        return "node"

    def dot_center(self, where: str) -> QPointF:
        x = self._rect.left() if where == "before" else self._rect.right()
        return self.mapToScene(QPointF(x, 0.0))

    def hoverEnterEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        self._hover = True
        self.update()

    def hoverLeaveEvent(self, event: QGraphicsSceneHoverEvent) -> None:
        self._hover = False
        self.update()

    @total(None)
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        kind = self.box.kind
        if kind == "join":
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(EDGE_STYLES["join"][0]))
            painter.drawEllipse(QPointF(0, 0), 4.5, 4.5)
            return
        m = self.marks
        r = self._rect
        radius = r.height() / 2 if kind in ("start", "end", "any") else 8.0
        fill, border, width, text = self._colours()
        if option.levelOfDetailFromTransform(painter.worldTransform()) * r.height() < LEGIBLE_PX:
            painter.fillRect(r, fill)  # too small to read: the box in its colours, no text, no dots
            if border is not _BORDER:
                painter.setPen(QPen(border, 0))  # a cosmetic (one pixel) outline: the mark
                painter.drawRect(r)
            return
        if m.selected:
            halo = QPen(_SELECTED, 2.0)
            painter.setPen(halo)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(r.adjusted(-4, -4, 4, 4), radius + 3, radius + 3)
        if self.focus_ring:
            paint_focus_ring(painter, r.adjusted(-7, -7, 7, 7), radius + 6, self._contrast)
        pen = QPen(border, width)
        if kind == "any":
            pen.setStyle(Qt.PenStyle.DashLine)
            fill = QColor("#f5f7fa")
            text = QColor("#52606d")
        painter.setPen(pen)
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(r, radius, radius)
        font, label, at = self._label(kind in ("start", "end") or m.running or m.selected)
        painter.setFont(font)
        painter.setPen(text)
        painter.drawStaticText(at, label)
        if m.done and kind == "node":
            painter.setPen(QPen(_DONE, 1.6))
            painter.setFont(label_font(-1))
            painter.drawText(r.adjusted(6, 0, 0, 0), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), "✓")
        if m.count:
            self._paint_badge(painter, m.count, _DONE if m.done else _NEXT)
        if self.breakable():
            self._paint_dots(painter)

    def _colours(self) -> tuple[QColor, QColor, float, QColor]:
        """(fill, border, border width, text colour) for the node's marks."""
        m, kind = self.marks, self.box.kind
        fill, border, width = _FILL, _BORDER, 1.2
        text = _TEXT
        if kind in ("start", "end"):
            fill, border, text = _TERMINAL_FILL, _TERMINAL_FILL, QColor("#ffffff")
        if m.trail > 0:
            tint = QColor(_TRAIL)
            tint.setAlphaF(0.10 + 0.30 * m.trail)
            fill = _blend(fill, tint)
        if m.next:
            border, width = _NEXT, 2.6
        if m.interrupted:
            fill, border, width = _INTERRUPTED_FILL, _INTERRUPTED, 2.6
        if m.failed:
            fill, border, width = _FAILED_FILL, _FAILED, 2.6
        if m.running:
            fill, border = _RUNNING_FILL, _RUNNING
            width = 2.0 + 2.0 * (0.5 + 0.5 * math.sin(self.pulse * 2 * math.pi))
        if m.done and not (m.running or m.failed or m.interrupted):
            border, width = _DONE, 2.6
        if m.ended and kind == "end":
            fill, border, width = _DONE, _DONE, 2.6
        if m.running or m.failed or m.interrupted or m.trail > 0:
            text = _TEXT
        return fill, border, width, text

    def _label(self, bold: bool) -> tuple[QFont, QStaticText, QPointF]:
        """The name's font, its text laid out once (elided to the box) and where it goes:
        kept until the default font changes (a zoom), since a 300-node repaint draws every
        name again and laying one out costs more than drawing it."""
        key = (bold, QFont().key())
        got = self._labels.get(key)
        if got is None:
            font = label_font(-1 if self.box.kind in ("start", "end", "any") else 0)
            font.setBold(bold)
            metrics = QFontMetricsF(font)
            r = self._rect
            elided = metrics.elidedText(self.box.label, Qt.TextElideMode.ElideRight, r.width() - 14)
            label = QStaticText(elided)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.prepare(QTransform(), font)
            width = metrics.horizontalAdvance(elided)
            at = QPointF(r.center().x() - width / 2, r.center().y() - metrics.height() / 2)
            got = self._labels[key] = (font, label, at)
        return got

    def _paint_badge(self, painter: QPainter, text: str, colour: QColor) -> None:
        """A small pill on the top right corner: how many tasks (and how many finished)."""
        font = label_font(-2)
        font.setBold(True)
        metrics = QFontMetricsF(font)
        w, h = metrics.horizontalAdvance(text) + 10, metrics.height() + 2
        pill = QRectF(self._rect.right() - w + 6, self._rect.top() - h / 2 - 2, w, h)
        painter.setPen(QPen(QColor("#ffffff"), 1.2))
        painter.setBrush(colour)
        painter.drawRoundedRect(pill, h / 2, h / 2)
        painter.setFont(font)
        painter.setPen(QColor("#ffffff"))
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_dots(self, painter: QPainter) -> None:
        for where, on in (("before", self.marks.break_before), ("after", self.marks.break_after)):
            x = self._rect.left() if where == "before" else self._rect.right()
            centre = QPointF(x, 0.0)
            if on:
                painter.setPen(QPen(QColor("#ffffff"), 1.5))
                painter.setBrush(_BREAK)
                painter.drawEllipse(centre, DOT_RADIUS, DOT_RADIUS)
            elif self._hover:
                painter.setPen(QPen(QColor("#e5989b"), 1.2))
                painter.setBrush(QColor("#ffffff"))
                painter.drawEllipse(centre, DOT_RADIUS - 0.5, DOT_RADIUS - 0.5)


def paint_focus_ring(painter: QPainter, rect: QRectF, radius: float, high_contrast: bool) -> None:
    """A thick ring with a white edge inside, visible on any fill; black and thicker in
    the high-contrast theme."""
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(QColor("#ffffff"), 5.0 if high_contrast else 4.0))
    painter.drawRoundedRect(rect, radius, radius)
    pen = QPen(QColor("#000000") if high_contrast else _FOCUS, 3.5 if high_contrast else 2.5)
    painter.setPen(pen)
    painter.drawRoundedRect(rect, radius, radius)


def _blend(base: QColor, over: QColor) -> QColor:
    a = over.alphaF()
    return QColor.fromRgbF(base.redF() * (1 - a) + over.redF() * a, base.greenF() * (1 - a) + over.greenF() * a,
                           base.blueF() * (1 - a) + over.blueF() * a)


class ClusterItem(QGraphicsItem):
    """A subgraph's frame with its name; it takes the subgraph node's marks."""

    def __init__(self, box: ClusterBox) -> None:
        super().__init__()
        self.box = box
        self.marks = NodeMarks()
        self._rect = QRectF(box.x, box.y, box.w, box.h)
        self.focus_ring = False
        self._contrast = False
        self.setZValue(-2)
        self.setToolTip(f"subgraph {box.id}\nClick its title: inspect")

    @property
    def node_id(self) -> str:
        return self.box.id

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-4, -4, 4, 4)

    def title_rect(self) -> QRectF:
        return QRectF(self._rect.left(), self._rect.top(), self._rect.width(), 22)

    def frame_rect(self) -> QRectF:
        """The subgraph's frame, its name included (item coordinates)."""
        return QRectF(self._rect)

    def set_focus_ring(self, on: bool, high_contrast: bool = False) -> None:
        if (on, high_contrast) != (self.focus_ring, self._contrast):
            self.focus_ring, self._contrast = on, high_contrast
            self.update()

    def set_marks(self, marks: NodeMarks) -> None:
        if marks != self.marks:
            self.marks = marks
            self.update()

    @total(None)
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        m = self.marks
        border, width = QColor("#bcccdc"), 1.2
        if m.next:
            border, width = _NEXT, 2.4
        if m.interrupted:
            border, width = _INTERRUPTED, 2.4
        if m.failed:
            border, width = _FAILED, 2.4
        if m.running:
            border, width = _RUNNING, 2.6
        if m.selected:
            width += 1.0
        fill = QColor("#f5f8fc")
        if m.trail > 0:
            tint = QColor(_TRAIL)
            tint.setAlphaF(0.06 + 0.14 * m.trail)
            fill = _blend(fill, tint)
        painter.setPen(QPen(border, width))
        painter.setBrush(fill)
        painter.drawRoundedRect(self._rect, 10, 10)
        if self.focus_ring:
            paint_focus_ring(painter, self.title_rect().adjusted(2, 2, -2, 2), 8, self._contrast)
        font = label_font(-1)
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QColor("#486581"))
        title = self.title_rect().adjusted(10, 2, -8, 0)
        painter.drawText(title, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), self.box.label)
        used = QFontMetricsF(font).horizontalAdvance(self.box.label)
        tag_font = label_font(-2.5)
        if used + QFontMetricsF(tag_font).horizontalAdvance("subgraph") + 12 <= title.width():
            painter.setFont(tag_font)  # the kind tag only where it fits beside the name
            painter.setPen(QColor("#9aa5b1"))
            painter.drawText(title, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), "subgraph")


class EdgeItem(QGraphicsPathItem):
    """An edge: a Bézier path, an arrowhead, and its label (on a small white plate).

    Every part is a plain Qt item (the line this path item, the arrowhead and the label's
    plate and text its children), painted by Qt itself with no Python call: a repaint of
    a strip of a 300-wide fan-out repaints hundreds of edges that cross it, so an edge's
    paint must cost next to nothing. Its style changes only when it is made active or
    its kind changes (`restyled` counts those)."""

    restyled = 0
    """Edges whose look changed (each one repaint), since the process started (tests read it)."""

    def __init__(self, edge: EdgePath, kind: str | None = None) -> None:
        super().__init__()
        self.edge = edge
        self.kind = kind or edge.kind
        self.active = False
        self.painted = True
        """False while the canvas's background draws its resting line (edge_layer.py)."""
        self.setZValue(0)
        path = QPainterPath(QPointF(*edge.points[0]))
        pts = edge.points
        if len(pts) >= 4 and (len(pts) - 1) % 3 == 0:
            for i in range(1, len(pts) - 2, 3):
                path.cubicTo(QPointF(*pts[i]), QPointF(*pts[i + 1]), QPointF(*pts[i + 2]))
        else:
            for p in pts[1:]:
                path.lineTo(QPointF(*p))
        self.setPath(path)
        self._arrow = _arrowhead(edge.arrow) if edge.arrow else None
        self._head: QGraphicsPolygonItem | None = None
        if self._arrow is not None:
            self._head = QGraphicsPolygonItem(self._arrow, self)
            self._head.setPen(QPen(Qt.PenStyle.NoPen))
        self._text: QGraphicsSimpleTextItem | None = None
        if edge.label and edge.label_pos:
            rect = self.label_rect()
            plate = QPainterPath()
            plate.addRoundedRect(rect, 4, 4)
            back = QGraphicsPathItem(plate, self)
            back.setPen(QPen(Qt.PenStyle.NoPen))
            back.setBrush(QColor(255, 255, 255, 230))
            self._text = QGraphicsSimpleTextItem(edge.label, self)
            self._text.setFont(label_font(-1.5))
            room = self._text.boundingRect()
            self._text.setPos(rect.center().x() - room.width() / 2, rect.center().y() - room.height() / 2)
        self._apply_pen(first=True)
        tip = (f"{edge.source} → {edge.target}: {edge.label} ({self.kind})" if edge.label
               else f"{edge.source} → {edge.target} ({self.kind})")
        for item in (self, *self.childItems()):
            item.setToolTip(tip)

    def arrow_polygon(self) -> QPolygonF | None:
        """The arrowhead, in scene coordinates (the edge item sits at the origin)."""
        return QPolygonF(self._arrow) if self._arrow is not None else None

    def set_painted(self, on: bool) -> None:
        """Whether the item paints its line and arrowhead (see edge_layer.py: at rest, the
        canvas's background has them); its label, tooltip and hit area stay either way."""
        if on == self.painted:
            return
        self.painted = on
        for item in (self, self._head):
            if item is not None:
                item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, not on)
                item.update()

    def set_active(self, active: bool) -> None:
        """Highlight an edge that leads from what just ran to what runs next."""
        if active != self.active:
            self.active = active
            self._apply_pen()

    def set_kind(self, kind: str) -> None:
        if kind != self.kind:
            self.kind = kind
            self._apply_pen()

    def _apply_pen(self, first: bool = False) -> None:
        pen, colour = edge_pen(self.kind, self.active)
        self.setPen(pen)  # Qt repaints the item
        if self._head is not None:
            self._head.setBrush(colour)
        if self._text is not None:
            self._text.setBrush(_LABEL_ACTIVE if self.active else _LABEL)
        if not first:
            EdgeItem.restyled += 1

    def label_rect(self) -> QRectF:
        """The label's plate, in scene coordinates."""
        w, h = label_size(self.edge.label)
        x, y = self.edge.label_pos or (0.0, 0.0)
        return QRectF(x - w / 2, y - h / 2, w, h)


_PENS: dict[tuple[str, bool], tuple[QPen, QColor]] = {}
_LABEL, _LABEL_ACTIVE = QColor("#3e4c59"), QColor("#1d4ed8")


def edge_pen(kind: str, active: bool) -> tuple[QPen, QColor]:
    """An edge's pen and colour for its kind, highlighted or not (made once each: a
    selection restyles up to 600 edges of a 300-wide graph)."""
    got = _PENS.get((kind, active))
    if got is None:
        colour, width, dashes = EDGE_STYLES.get(kind, EDGE_STYLES["edge"])
        if active:
            colour, width = "#2563eb", width + 1.0
        pen = QPen(QColor(colour), width)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        if dashes:
            pen.setDashPattern(dashes)
        got = _PENS[(kind, active)] = (pen, QColor(colour))
    return got


def _arrowhead(arrow: tuple[tuple[float, float], tuple[float, float]], size: float = 9.0) -> QPolygonF:
    (bx, by), (tx, ty) = arrow
    angle = math.atan2(ty - by, tx - bx)
    back = QPointF(tx - size * math.cos(angle), ty - size * math.sin(angle))
    spread = size * 0.45
    left = QPointF(back.x() + spread * math.sin(angle), back.y() - spread * math.cos(angle))
    right = QPointF(back.x() - spread * math.sin(angle), back.y() + spread * math.cos(angle))
    return QPolygonF([QPointF(tx, ty), left, right])


def straight_edge(source: NodeItem, target: NodeItem, kind: str = "taken") -> EdgeItem:
    """An edge drawn without a layout: a line between the two boxes' borders."""
    a, b = source.box, target.box
    start = _clip(a, (b.x, b.y))
    end = _clip(b, (a.x, a.y))
    dx, dy = end[0] - start[0], end[1] - start[1]
    base = (end[0] - 0.1 * dx, end[1] - 0.1 * dy)
    path = EdgePath(source=a.id, target=b.id, kind=kind, label="", points=(start, base), arrow=(base, end),
                    label_pos=None, index=-1)
    return EdgeItem(path, kind)


def _clip(box: NodeBox, toward: tuple[float, float]) -> tuple[float, float]:
    """Where the line from the box's centre toward a point leaves the box."""
    dx, dy = toward[0] - box.x, toward[1] - box.y
    if dx == 0 and dy == 0:
        return box.x, box.y
    scale = min(box.w / 2 / abs(dx) if dx else math.inf, box.h / 2 / abs(dy) if dy else math.inf)
    return box.x + dx * scale, box.y + dy * scale
