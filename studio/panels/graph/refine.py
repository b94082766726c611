"""A zoom step on a dense zoomed-in graph: a quick picture at once, the full one in strips.

Zoomed in to 100% on a 300-wide fan-out, ~850 long edges and glows cross the view, and
Qt's raster engine spends ~0.25 ms antialiasing each 850-pixel stroke (0.7 ms a 7-pixel
glow): a zoom step repainted the whole canvas in one 200 ms paint. So after a zoom, when
the view holds at least `QUICK_ITEMS` long items, the canvas paints them as hairlines at
once (Qt's cosmetic stroker: a few microseconds each), then repaints the canvas a vertical
strip per turn of the event loop at full quality (each strip strokes only its part of each
edge); the picture is whole again when the last strip is in (`Refiner.whole`). A paint
asked for meanwhile (a hover, a mark) paints quick and joins the strips to redo.

A strip's cost is mostly per long item it crosses (each paints itself: ~15-20 us of Python
and Qt per item, plus the pixels of its part), and on a fan-out ~570 edges cross every strip
on one side of the view while hardly any cross the other. So each strip is sized by its work:
the long items crossing it (counted from the scene's index) times its width is kept within
`STRIP_WORK`, down to `MIN_STRIP` pixels; a strip where few cross stays wide (`strips` lists
each strip's width and items crossing; tests read it).
"""
from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QObject, QRect, QTimer
from PySide6.QtGui import QRegion

__all__ = ["Refiner", "QUICK_ITEMS", "STRIP_ITEMS", "STRIP_WORK", "MIN_STRIP"]

QUICK_ITEMS = 64
"""Long items in view from which a zoom step paints quick first."""
STRIP_ITEMS = 48
"""About this many long items' worth of work a strip: the widest strip is the view's width
divided by long items / this (4 to 24 strips)."""
STRIP_WORK = 24_000
"""Long items crossing a strip times its width (pixels) a strip is kept within."""
MIN_STRIP = 16
"""The narrowest strip (pixels): below it, a strip's per-item cost is all that is left."""


class Refiner(QObject):
    """The canvas's quick-then-strips state (see the module docstring)."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.quick = False
        """True while a paint strokes long items as hairlines."""
        self.rough: QRegion | None = None
        """The viewport area painted quick and not yet at full quality (None: all whole)."""
        self.strip_width = 0
        self.refined = 0
        """Strips repainted at full quality (tests read it)."""
        self.quick_paints = 0
        """Paints made quick (tests read it)."""
        self.strips: list[tuple[int, int]] = []
        """(width, long items crossing it) of each strip repainted since the last `start`."""
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(self._next)
        self._repaint: Callable[[QRect], None] | None = None
        self._crossing: Callable[[QRect], int] = lambda rect: 0
        self._refining = False
        """True while a strip repaints at full quality (its paint is not quick)."""

    def whole(self) -> bool:
        """Every part of the canvas painted at full quality (no strip left to redo)."""
        return self.rough is None

    def start(self, long_items: int, width: int, repaint: Callable[[QRect], None],
              crossing: Callable[[QRect], int] | None = None) -> bool:
        """A zoom changed the picture: paint quick now (True) when the view holds enough
        long items; `repaint(rect)` repaints a strip of the viewport synchronously and
        `crossing(rect)` counts the long items a strip of it crosses (None: none counted)."""
        if long_items < QUICK_ITEMS or width <= 0:
            return False
        strips = max(4, min(24, long_items // STRIP_ITEMS))
        self.strip_width = math.ceil(width / strips)
        self.rough = QRegion()
        self.strips = []
        self._repaint = repaint
        if crossing is not None:
            self._crossing = crossing
        return True

    def _strip(self, box: QRect) -> QRect:
        """The next strip at the left of `box`: as wide as its work allows (`STRIP_WORK`)."""
        width = min(self.strip_width, box.width())
        crossing = self._crossing(QRect(box.left(), box.top(), width, box.height()))
        if crossing * width > STRIP_WORK:
            width = min(width, max(MIN_STRIP, STRIP_WORK // crossing))
        self.strips.append((width, crossing))
        return QRect(box.left(), box.top(), width, box.height())

    def painting(self, region: QRegion) -> bool:
        """Before a paint of `region`: True when it is to be quick (it joins the rough area)."""
        if self.rough is None or self._refining:
            return False
        self.rough = self.rough.united(region)
        self.quick_paints += 1
        self._timer.start()
        return True

    def scrolled(self, dx: int, dy: int) -> None:
        """The picture moved by (dx, dy) pixels: so did the area still to redo."""
        if self.rough is not None:
            self.rough.translate(dx, dy)

    def _next(self) -> None:
        rough = self.rough
        if rough is None:
            return
        if rough.isEmpty():
            self.rough = None
            return
        box = rough.boundingRect()
        strip = self._strip(box)
        self.rough = rough.subtracted(QRegion(strip))
        self._refining = True
        try:
            if self._repaint is not None:
                self._repaint(strip)
        finally:
            self._refining = False
        self.refined += 1
        if self.rough.isEmpty():
            self.rough = None
        else:
            self._timer.start()
