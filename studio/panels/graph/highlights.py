"""The glows under triggering edges and the highlighted edges' strokes, painted by one item.

Selecting a checkpoint of a 300-wide post-mortem lights 300 glows and 300 edges, and Qt
paints each item on its own: a style option, a painter state, a transform and, for a long
one, a Python `paint` call per item, ~30 us each even where the stroke itself is a few
pixels (the graph fitted in the window). That was ~20 ms of every repaint of the strip a
selection changes, twice a selection (its marks, then its explanation). So the glows and,
while the canvas's background holds the resting edges (edge_layer.py), the highlighted
strokes are drawn by one `Highlights` item in one `paint`, each stroke culled by its own
bounds against the exposed rectangle and, when long, cut to the part it shows
(`long_paths.stroke_part`). The glow and edge items stay on the scene for their tooltips and
hit areas, painting nothing (`ItemHasNoContents`).

`show` takes the strokes wanted now and repaints only the rectangles of the strokes that
came or went (`touched` counts them: a selection repaints what changed).
"""
from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem, QStyleOptionGraphicsItem, QWidget

from studio.core.safe import total
from .items import EdgeItem, edge_pen
from .long_paths import QUICK, PathClip, hairline, stroke_part

__all__ = ["Highlights", "Stroke"]

_MADE_MAX = 5000
"""Strokes kept for reuse, at most (a graph's glows and edges, each in its two looks)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Stroke:
    """One path to stroke: a glow, or an edge's highlighted line with its arrowhead."""

    path: QPainterPath
    pen: QPen
    hairline: QPen
    extent: QRectF
    """The path's own bounding rectangle (scene coordinates)."""
    reach: float
    """How far past the path its stroke can touch: half its width and a round cap, with a margin."""
    bounds: QRectF
    """Every pixel the stroke (and its arrowhead) can touch, in scene coordinates."""
    clip: PathClip | None
    """A long path's segments (cut to what is exposed); None: always stroked whole."""
    arrow: QPolygonF | None = None
    fill: QColor | None = None


def _stroke(path: QPainterPath, pen: QPen, clip: PathClip | None, arrow: QPolygonF | None = None,
            fill: QColor | None = None) -> Stroke:
    extent = path.boundingRect()
    reach = pen.widthF() + 2.0
    bounds = extent.adjusted(-reach, -reach, reach, reach)
    if arrow is not None:
        bounds = bounds.united(arrow.boundingRect().adjusted(-2, -2, 2, 2))
    return Stroke(path=path, pen=pen, hairline=hairline(pen), extent=extent, reach=reach, bounds=bounds,
                  clip=clip, arrow=arrow, fill=fill)


def glow_stroke(item: QGraphicsPathItem) -> Stroke:
    """A glow item's stroke (its path and pen, cut to what is shown when it is long)."""
    return _stroke(item.path(), QPen(item.pen()), getattr(item, "clip", None))


def edge_stroke(edge: EdgeItem) -> Stroke:
    """An edge's stroke in its current look (kind, highlighted or not), with its arrowhead."""
    pen, colour = edge_pen(edge.kind, edge.active)
    return _stroke(edge.path(), pen, getattr(edge, "clip", None), edge.arrow_polygon(), colour)


class Highlights(QGraphicsItem):
    """The glows and highlighted edges of one layout (see the module docstring)."""

    def __init__(self, bounds: QRectF) -> None:
        super().__init__()
        self._bounds = QRectF(bounds)
        self._shown: dict[Hashable, Stroke] = {}
        self._made: dict[Hashable, Stroke] = {}
        self.touched = 0
        """Strokes that came or went, each repainting its own rectangle (tests read it)."""
        self.strokes = 0
        """Strokes drawn by `paint` so far (tests read it)."""
        self.setZValue(-1)  # the glows' place: over the subgraph frames, under the edges and nodes
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        return QPainterPath()  # never hit: hovers, clicks and tooltips go to the items under it

    def shown(self) -> int:
        return len(self._shown)

    def show_strokes(self, glows: Sequence[QGraphicsPathItem], edges: Sequence[EdgeItem]) -> None:
        """Draw these glows, then these edges' highlighted strokes (and nothing else)."""
        made = self._made
        if len(made) > _MADE_MAX:
            made.clear()
        wanted: dict[Hashable, Stroke] = {}
        for glow in glows:
            key: Hashable = ("glow", glow)  # the item itself: its id is never reused while cached
            got = made.get(key)
            if got is None:
                got = made[key] = glow_stroke(glow)
            wanted[key] = got
        for edge in edges:
            key = ("edge", edge, edge.kind, edge.active)
            got = made.get(key)
            if got is None:
                got = made[key] = edge_stroke(edge)
            wanted[key] = got
        shown = self._shown
        for key, got in shown.items():
            if key not in wanted:
                self.update(got.bounds)
                self.touched += 1
        for key, got in wanted.items():
            if key not in shown:
                self.update(got.bounds)
                self.touched += 1
        self._shown = wanted

    def long_in(self, rect: QRectF) -> int:
        """The long strokes crossing `rect` (what a zoom step's repaint costs, refine.py)."""
        return sum(1 for s in self._shown.values() if s.clip is not None and s.bounds.intersects(rect))

    @total(None)
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        exposed = option.exposedRect
        device = painter.device()
        inverse, invertible = painter.worldTransform().inverted()
        if device is not None and invertible:  # a render() exposes the whole item: cut to what it draws on
            exposed = exposed.intersected(inverse.mapRect(QRectF(0, 0, device.width(), device.height())))
        quick = QUICK[0]
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        no_pen = Qt.PenStyle.NoPen
        drawn = 0
        for s in self._shown.values():
            if not s.bounds.intersects(exposed):
                continue
            painter.setBrush(Qt.BrushStyle.NoBrush)
            pen, reach = s.hairline if quick else s.pen, s.reach
            area = exposed.adjusted(-reach, -reach, reach, reach)
            if s.clip is None or (not quick and area.contains(s.extent)):
                painter.setPen(pen)
                painter.drawPath(s.path)
            else:
                stroke_part(painter, s.clip, pen, area, not quick)
            if s.arrow is not None and s.fill is not None:
                painter.setPen(no_pen)
                painter.setBrush(s.fill)
                painter.drawPolygon(s.arrow)
            drawn += 1
        self.strokes += drawn
