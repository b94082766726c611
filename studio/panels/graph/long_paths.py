"""Long edges stroked only where the view shows them.

Zoomed in on a 300-wide fan-out (a layout 28,000 points wide), each of the 600 edges and
300 glows runs from one end of the view far past the other, and Qt strokes a path whole
(antialiased, dashed) before clipping it to the strip it repaints: ~0.3 ms an edge, so a
scroll or a zoom step took 0.25-0.55 s. An edge whose bounding rectangle is longer than
`LONG` paints itself instead (`LongEdgeItem`, `LongPathItem`): when the exposed rectangle
holds it whole, Qt's own paint runs; otherwise only the part of its straight segments that
crosses the exposed rectangle (grown by the pen's width) is stroked, from where it enters to
where it leaves, with the dash pattern shifted by the length left out, so the pixels are the
same. A curved segment (a spline layout: graphs too small to need clipping) is kept whole.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QStyleOptionGraphicsItem, QWidget

from studio.core.layout import EdgePath
from .items import EdgeItem

__all__ = ["LONG", "QUICK", "PathClip", "LongEdgeItem", "LongPathItem", "make_edge", "path_item", "hairline",
           "stroke_part"]

LONG = 600.0
"""Scene units: an edge whose bounding rectangle is longer than this, either way, clips itself."""

Point = tuple[float, float]
_STRAIGHT = 0.25
"""A cubic whose control points lie this close to its chord (scene units) is a straight line."""


def _straight(p0: Point, p1: Point, p2: Point, p3: Point) -> bool:
    dx, dy = p3[0] - p0[0], p3[1] - p0[1]
    norm = math.hypot(dx, dy)
    if norm == 0.0:
        return p0 == p1 == p2
    for x, y in (p1, p2):
        if abs((x - p0[0]) * dy - (y - p0[1]) * dx) / norm > _STRAIGHT:
            return False
        t = ((x - p0[0]) * dx + (y - p0[1]) * dy) / (norm * norm)
        if not -1e-6 <= t <= 1 + 1e-6:
            return False
    return True


def _clip_line(x0: float, y0: float, x1: float, y1: float,
               left: float, top: float, right: float, bottom: float) -> tuple[float, float] | None:
    """Liang-Barsky: the parameters (t0, t1) of the part of the segment inside the box."""
    t0, t1 = 0.0, 1.0
    dx, dy = x1 - x0, y1 - y0
    for p, q in ((-dx, x0 - left), (dx, right - x0), (-dy, y0 - top), (dy, bottom - y0)):
        if p == 0.0:
            if q < 0.0:
                return None
            continue
        r = q / p
        if p < 0.0:
            if r > t1:
                return None
            t0 = max(t0, r)
        else:
            if r < t0:
                return None
            t1 = min(t1, r)
    return t0, t1


class PathClip:
    """One path's segments (a polyline or a cubic Bézier chain, as the layout gives them),
    ready to answer which part of it a rectangle shows."""

    def __init__(self, points: Sequence[Point]) -> None:
        self._segments: list[tuple[bool, tuple[Point, ...], float]] = []
        """(straight, its points (2, or 4 for a curve), the path's length before it)."""
        cubic = len(points) >= 4 and (len(points) - 1) % 3 == 0
        before = 0.0
        step = 3 if cubic else 1
        for i in range(0, len(points) - 1, step):
            seg = tuple(points[i:i + step + 1])
            if cubic and _straight(*seg):
                seg = (seg[0], seg[3])
            straight = len(seg) == 2
            self._segments.append((straight, seg, before))
            if straight:
                before += math.hypot(seg[1][0] - seg[0][0], seg[1][1] - seg[0][1])
            else:
                curve = QPainterPath(QPointF(*seg[0]))
                curve.cubicTo(QPointF(*seg[1]), QPointF(*seg[2]), QPointF(*seg[3]))
                before += curve.length()
        self.clips = 0
        """Times a part (not the whole) was asked for (tests read it)."""

    def visible(self, rect: QRectF) -> tuple[QPainterPath, float] | None:
        """The part of the path inside `rect` (from its first point inside to its last),
        and the path's length before that part; None when none of it is inside."""
        self.clips += 1
        left, top, right, bottom = rect.left(), rect.top(), rect.right(), rect.bottom()
        path: QPainterPath | None = None
        start = 0.0
        pending: list[tuple[bool, tuple[Point, ...]]] = []  # whole segments after the first visible one
        for straight, seg, before in self._segments:
            if straight:
                (x0, y0), (x1, y1) = seg
                span = _clip_line(x0, y0, x1, y1, left, top, right, bottom)
                if span is None:
                    if path is not None:
                        pending.append((True, seg))
                    continue
                t0, t1 = span
                a = QPointF(x0 + (x1 - x0) * t0, y0 + (y1 - y0) * t0)
                b = QPointF(x0 + (x1 - x0) * t1, y0 + (y1 - y0) * t1)
                if path is None:
                    path, start = QPainterPath(a), before + t0 * math.hypot(x1 - x0, y1 - y0)
                else:
                    _extend(path, pending)
                    path.lineTo(a)
                pending = []
                path.lineTo(b)
                if t1 < 1.0:
                    pending.append((True, (seg[1],)))  # the rest of it, if a later segment shows
            else:
                xs, ys = [p[0] for p in seg], [p[1] for p in seg]
                if max(xs) < left or min(xs) > right or max(ys) < top or min(ys) > bottom:
                    if path is not None:
                        pending.append((False, seg))
                    continue
                if path is None:
                    path, start = QPainterPath(QPointF(*seg[0])), before
                else:
                    _extend(path, pending)
                pending = []
                path.cubicTo(QPointF(*seg[1]), QPointF(*seg[2]), QPointF(*seg[3]))
        return (path, start) if path is not None else None


def _extend(path: QPainterPath, segments: list[tuple[bool, tuple[Point, ...]]]) -> None:
    """The whole segments between two visible parts (their ends joined as on the path)."""
    for straight, seg in segments:
        if straight:
            path.lineTo(QPointF(*seg[-1]))
        else:
            path.cubicTo(QPointF(*seg[1]), QPointF(*seg[2]), QPointF(*seg[3]))


QUICK = [False]
"""True while the canvas paints quick (refine.py): long items stroke hairlines."""


def hairline(pen: QPen) -> QPen:
    """`pen`'s colour in a cosmetic hairline: Qt's fast stroker (a quick paint, refine.py)."""
    thin = QPen(pen.color(), 0.0)
    thin.setCosmetic(True)
    return thin


def stroke_part(painter: QPainter, clip: PathClip, pen: QPen, area: QRectF, dashes: bool) -> None:
    """Stroke with `pen` the part of `clip`'s path inside `area` (the exposed rectangle grown
    by the stroke's reach); with `dashes`, shifted to fall where they fall on the whole path."""
    part = clip.visible(area)
    if part is None:
        return
    path, before = part
    if dashes and pen.style() != Qt.PenStyle.SolidLine and before > 0.0 and pen.widthF() > 0.0:
        pen = QPen(pen)
        pen.setDashOffset(pen.dashOffset() + before / pen.widthF())
    painter.setPen(pen)
    painter.drawPath(path)


class _Clipped(QGraphicsPathItem):
    """What the two long items share: their pen kept on the Python side (`pen()` makes a
    copy each call: 14 us, for each of ~850 items a strip) and the clipped paint."""

    stroke: QPen
    clip: PathClip

    _hairline: QPen | None = None

    def setPen(self, pen: QPen) -> None:  # noqa: N802 (Qt's name)
        super().setPen(pen)
        self.stroke = QPen(pen)
        self._grow = pen.widthF() + 2.0  # the stroke's half width and its round cap, with a margin
        self._hairline = None  # made when a quick paint first needs it (a selection restyles ~300)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if not self._paint_part(painter, option):
            super().paint(painter, option, widget)

    def _paint_part(self, painter: QPainter, option: QStyleOptionGraphicsItem) -> bool:
        """Stroke the part of the path in the exposed rectangle; False: paint it whole.
        In a quick paint (`QUICK`, refine.py) the whole path is an aliased hairline: Qt's
        cosmetic line drawer clips it for nothing, half the cost of a clipped antialiased part
        (the strips that follow repaint it at full quality)."""
        if QUICK[0]:
            if self._hairline is None:
                self._hairline = hairline(self.stroke)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            painter.setPen(self._hairline)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self.path())
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            return True
        grow = self._grow
        area = option.exposedRect.adjusted(-grow, -grow, grow, grow)
        if area.contains(self.boundingRect()):
            return False
        painter.setBrush(Qt.BrushStyle.NoBrush)
        stroke_part(painter, self.clip, self.stroke, area, True)
        return True


class LongEdgeItem(EdgeItem, _Clipped):
    """An edge longer than `LONG`: strokes only what the exposed rectangle shows."""

    def __init__(self, edge: EdgePath, kind: str | None = None) -> None:
        self.clip = PathClip(edge.points)
        super().__init__(edge, kind)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)


class LongPathItem(_Clipped):
    """A plain path item (a glow under a long edge) that strokes only what is exposed."""

    def __init__(self, path: QPainterPath, points: Sequence[Point]) -> None:
        self.clip = PathClip(points)
        super().__init__(path)
        self.setPen(QPen())
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)


def _long(points: Sequence[Point]) -> bool:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return max(xs) - min(xs) > LONG or max(ys) - min(ys) > LONG


def make_edge(edge: EdgePath, kind: str | None = None) -> EdgeItem:
    """The item for a laid-out edge: a `LongEdgeItem` when it is long."""
    return LongEdgeItem(edge, kind) if len(edge.points) >= 2 and _long(edge.points) else EdgeItem(edge, kind)


def path_item(path: QPainterPath, points: Sequence[Point]) -> QGraphicsPathItem:
    """A path item for `path` (laid along `points`): a `LongPathItem` when it is long."""
    return LongPathItem(path, points) if len(points) >= 2 and _long(points) else QGraphicsPathItem(path)
