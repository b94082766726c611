"""Where the graph's badges go so that they never cover text: a collision pass over the
scene's occupied rectangles (node boxes, edge labels, subgraph titles and the badges placed
before), trying a badge's preferred spot first and then nearby ones.

Rectangles are kept in a grid of buckets, so a check looks only at its neighbourhood (a
300-task superstep places its 300 badges without comparing every pair).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from PySide6.QtCore import QPointF, QRectF

__all__ = ["FreeSpace", "candidates", "GAP"]

GAP = 2.0
"""Air kept between a badge and whatever it is placed next to."""
_CELL = 64.0
_RINGS = 10
"""How far from its preferred spot a badge may go, in steps of its own height."""


class FreeSpace:
    """The occupied rectangles of one scene; `place` finds the first free candidate."""

    def __init__(self, taken: Iterable[QRectF] = (), *, base: FreeSpace | None = None) -> None:
        """`base`: rectangles taken already and shared (the layout's text), never changed here."""
        self._cells: dict[tuple[int, int], list[QRectF]] = {}
        self._base = base._cells if base is not None else {}
        for rect in taken:
            self.take(rect)

    def _keys(self, rect: QRectF) -> Iterator[tuple[int, int]]:
        for cx in range(int(rect.left() // _CELL), int(rect.right() // _CELL) + 1):
            for cy in range(int(rect.top() // _CELL), int(rect.bottom() // _CELL) + 1):
                yield cx, cy

    def take(self, rect: QRectF) -> None:
        if rect.isEmpty():
            return
        for key in self._keys(rect):
            self._cells.setdefault(key, []).append(rect)

    def free(self, rect: QRectF) -> bool:
        """Nothing taken meets `rect` grown by `GAP`."""
        wide = rect.adjusted(-GAP, -GAP, GAP, GAP)
        for key in self._keys(wide):
            for other in self._cells.get(key, ()):
                if other.intersects(wide):
                    return False
            for other in self._base.get(key, ()):
                if other.intersects(wide):
                    return False
        return True

    def place(self, rect: QRectF, offsets: Iterable[QPointF], within: QRectF | None = None) -> QPointF:
        """The first offset that moves `rect` onto free space inside `within` (taken from
        then on); else the first free one outside it; with none free, the first one
        (nearest to where it wants to be)."""
        first: QPointF | None = None
        outside: QPointF | None = None
        for offset in offsets:
            first = offset if first is None else first
            moved = rect.translated(offset)
            if not self.free(moved):
                continue
            if within is None or within.contains(moved):
                self.take(moved)
                return offset
            outside = offset if outside is None else outside
        chosen = outside if outside is not None else first if first is not None else QPointF()
        self.take(rect.translated(chosen))
        return chosen


def candidates(rect: QRectF, *, prefer: Iterable[QPointF] = ()) -> Iterator[QPointF]:
    """Offsets for a badge of `rect`'s size: the `prefer`red ones, none, then rings around
    the spot (up, down, sideways), nearest first."""
    yield from prefer
    yield QPointF()
    step_y, step_x = rect.height() + GAP * 2, min(max(rect.width() / 4, 12.0), 40.0)
    for ring in range(1, _RINGS + 1):
        for dx, dy in ((0, -ring), (0, ring), (ring, 0), (-ring, 0), (ring, -ring), (-ring, -ring),
                       (ring, ring), (-ring, ring)):
            yield QPointF(dx * step_x, dy * step_y)
