"""The edges' resting look, painted into the canvas's cached background.

A selection in a 300-wide post-mortem repaints a strip of the canvas that every one of the
600 edges crosses, and Qt strokes each crossing edge's whole path for it: that stroking
was most of the repaint. So the edges at rest (not highlighted, not glowing) are drawn
once, one path per edge style, into the view's background, which Qt keeps in a pixmap
until the zoom, the size or the edges' styles change (`CacheBackground`). Their items
stay on the scene, with their tooltips, hit areas and pens as before, but paint nothing
(`ItemHasNoContents`); a highlighted or glowing one is `lit`, and the panel's `Highlights`
item draws its highlighted stroke over the resting one (wider, so it covers it).

Edges that cross a subgraph's frame are left to their items: the frame's fill would hide
a background stroke under it. The layer is on only while the whole graph fits in the view
(`enabled`): zoomed in on a 300-wide fan-out, each long edge crossing the view would be
stroked whole for every strip the scrolling exposes, where the scene skips the items that
the view does not show.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPolygonF

from .items import EdgeItem, edge_pen

__all__ = ["EdgeLayer"]


class EdgeLayer:
    """The resting strokes of one scene's edges (see the module docstring)."""

    def __init__(self) -> None:
        self._edges: list[EdgeItem] = []
        """The edges whose resting stroke is in the background."""
        self._kinds: list[str] = []
        """Each layered edge's kind when the paths were built (a change rebuilds them)."""
        self._groups: list[tuple[QPen, QColor, list[tuple[QRectF, QPainterPath, QPolygonF | None]]]] = []
        """(pen, arrowhead colour, [(scene bounds, line, arrowhead)]) per edge kind."""
        self.builds = 0
        """Times the paths were (re)built: once per layout, again when an edge's kind changes."""
        self.paints = 0
        """Times the background was painted (Qt repaints it only when its cache is invalid)."""
        self.enabled = True
        """Off: every edge paints its own item and the background has none."""
        self.lit: list[EdgeItem] = []
        """Layered edges highlighted or glowing: their strokes are drawn over the resting ones
        by the panel's `Highlights` (none while the layer is off)."""

    def clear(self) -> None:
        """The scene was cleared: its edges are gone."""
        self._edges, self._kinds, self._groups, self.lit = [], [], [], []

    def layered(self) -> list[EdgeItem]:
        return list(self._edges)

    def build(self, edges: Sequence[EdgeItem], frames: Iterable[QRectF]) -> None:
        """Take `edges` (those not crossing any of the `frames`, scene rectangles) into
        the background."""
        frames = list(frames)
        self._edges = [e for e in edges
                       if not any(e.sceneBoundingRect().intersects(f) for f in frames)]
        self._rebuild()

    def _rebuild(self) -> None:
        self._kinds = [e.kind for e in self._edges]
        by_kind: dict[str, list[tuple[QRectF, QPainterPath, QPolygonF | None]]] = {}
        for edge in self._edges:
            # pen width and arrowhead included: the rectangle a stroke can touch
            bounds = edge.sceneBoundingRect().adjusted(-6, -6, 6, 6)
            by_kind.setdefault(edge.kind, []).append((bounds, edge.path(), edge.arrow_polygon()))
        self._groups = [(*edge_pen(kind, False), strokes) for kind, strokes in by_kind.items()]
        self.builds += 1

    def sync(self, glowing: set[tuple[str, str]]) -> bool:
        """After the marks or the why marks changed: while the layer is on, no layered edge
        paints its item, and the highlighted or glowing ones are `lit` (highlights.py draws
        their strokes over the glows); off, every edge paints its own item. True when an
        edge's kind changed, so the background must be painted again (the caller resets
        the cache)."""
        changed = [e.kind for e in self._edges] != self._kinds
        if changed:
            self._rebuild()
        on = self.enabled
        lit = []
        for edge in self._edges:
            if on and (edge.active or (edge.edge.source, edge.edge.target) in glowing):
                lit.append(edge)
            if edge.painted is on:
                edge.set_painted(not on)
        self.lit = lit
        return changed

    def enable(self, on: bool, glowing: set[tuple[str, str]]) -> bool:
        """Turn the layer on or off (see `enabled`); True when the background changes."""
        if on == self.enabled:
            return False
        self.enabled = on
        self.sync(glowing)
        return bool(self._edges)

    def paint(self, painter: QPainter, rect: QRectF) -> None:
        """Draw the resting strokes that cross `rect` (the canvas's drawBackground), one
        path at a time: a single path of all 600 edges took Qt's rasteriser far longer
        than its parts (one huge outline to fill) and would be stroked whole for a strip."""
        if not self._groups or not self.enabled:
            return
        self.paints += 1
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setClipRect(rect, Qt.ClipOperation.IntersectClip)
        no_pen = QPen(Qt.PenStyle.NoPen)
        for pen, colour, strokes in self._groups:
            for bounds, path, arrow in strokes:
                if not bounds.intersects(rect):
                    continue
                painter.setPen(pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawPath(path)
                if arrow is not None:
                    painter.setPen(no_pen)
                    painter.setBrush(colour)
                    painter.drawPolygon(arrow)
        painter.restore()
