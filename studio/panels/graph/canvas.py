"""The graph panel's canvas: a QGraphicsView that zooms with the wheel (or +/-), pans by
dragging, fits on F, hands clicks and context menus to its panel, and the keyboard's node
keys to the panel's focus (arrows, Tab / Shift+Tab; see `focus.py`)."""
from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QContextMenuEvent, QFocusEvent, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QWheelEvent
from PySide6.QtWidgets import QGraphicsView

from .edge_layer import EdgeLayer
from .focus import NodeFocus
from .items import NodeItem
from .long_paths import QUICK, LongEdgeItem, LongPathItem
from .refine import Refiner

__all__ = ["GraphCanvas", "CanvasHost"]


class CanvasHost(Protocol):
    """What the canvas needs of its panel (a protocol: the panel imports the canvas)."""

    focus: NodeFocus

    def zoom_by(self, factor: float) -> None: ...
    def set_zoom(self, scale: float) -> None: ...
    def fit(self, auto: bool = False) -> None: ...
    def stop_auto_fit(self) -> None: ...
    def item_at(self, pos: QPointF) -> Any: ...
    def show_hover(self, node: str | None) -> None: ...
    def canvas_clicked(self, pos: QPointF) -> None: ...
    def context_menu_at(self, pos: QPointF, global_pos: QPoint) -> None: ...


class GraphCanvas(QGraphicsView):
    """Zoom with the wheel (or +/-), pan by dragging, F to fit; clicks go to the panel."""

    def __init__(self, panel: CanvasHost) -> None:
        super().__init__(panel)  # type: ignore[call-overload]
        self.panel = panel
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        # one rectangle around what changed: a selection in a 300-wide graph changes ~900 marks,
        # whose many small rectangles (Smart mode) made every path drawn clip to a big region
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.BoundingRectViewportUpdate)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._press: QPoint | None = None
        # the edges at rest are drawn into the background, which Qt keeps in a pixmap until the
        # zoom, the size or their styles change: a repaint blits them (see edge_layer.py)
        self.layer = EdgeLayer()
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        # the viewport paints every pixel itself (drawBackground fills it): the window's style
        # sheet turns its auto-fill off, and a viewport that is not opaque is repainted whole
        # on every scroll step instead of moved with only the exposed strip drawn
        self.viewport().setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self.refiner = Refiner(self)

    def zoomed(self) -> None:
        """The zoom changed: with many long items in view, a quick picture first (refine.py)."""
        if self.layer.enabled:
            return  # the whole graph fits: its edges rest in the cached background
        self.refiner.start(self._long_items(self.viewport().rect()), self.viewport().width(),
                           self._repaint_strip, self._long_items)

    def _long_items(self, rect: QRect) -> int:
        """The visible long items (long_paths.py) whose bounds cross `rect` of the viewport."""
        return sum(1 for item in self.items(rect)
                   if isinstance(item, (LongEdgeItem, LongPathItem)) and item.isVisible())

    def _repaint_strip(self, rect: QRect) -> None:
        self.viewport().repaint(rect)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        refiner = self.refiner
        refiner.quick = QUICK[0] = refiner.painting(event.region())
        try:
            super().paintEvent(event)
        finally:
            refiner.quick = QUICK[0] = False

    def scrollContentsBy(self, dx: int, dy: int) -> None:  # noqa: N802 (Qt's name)
        super().scrollContentsBy(dx, dy)
        self.refiner.scrolled(dx, dy)

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802 (Qt's name)
        viewport = self.viewport()
        painter.fillRect(rect, viewport.palette().color(viewport.backgroundRole()))  # what auto-fill drew
        super().drawBackground(painter, rect)
        self.layer.paint(painter, rect)

    def wheelEvent(self, event: QWheelEvent) -> None:
        delta = event.angleDelta().y()
        if delta:
            self.panel.zoom_by(1.0015 ** delta)
            event.accept()

    def event(self, event: QEvent) -> bool:
        # Tab / Shift+Tab walk the nodes before they leave the canvas (no keyboard trap)
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent) \
                and event.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab) \
                and not event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            forward = event.key() == Qt.Key.Key_Tab and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier
            if self.panel.focus.step(forward):
                event.accept()
                return True
        return super().event(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        keyboard = event.reason() in (Qt.FocusReason.TabFocusReason, Qt.FocusReason.BacktabFocusReason,
                                      Qt.FocusReason.ShortcutFocusReason, Qt.FocusReason.OtherFocusReason)
        self.panel.focus.focus_in(keyboard)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.panel.focus.refresh()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if self.panel.focus.handle_key(event):
            event.accept()
        elif key == Qt.Key.Key_F:
            self.panel.fit()
        elif key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.panel.zoom_by(1.25)
        elif key in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore):
            self.panel.zoom_by(0.8)
        elif key == Qt.Key.Key_0:
            self.panel.set_zoom(1.0)
        else:
            super().keyPressEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press = event.position().toPoint() if event.button() == Qt.MouseButton.LeftButton else None
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        press, self._press = self._press, None
        if press is None or event.button() != Qt.MouseButton.LeftButton:
            return
        if (event.position().toPoint() - press).manhattanLength() <= 4:
            self.panel.canvas_clicked(self.mapToScene(event.position().toPoint()))
        else:
            self.panel.stop_auto_fit()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        super().mouseMoveEvent(event)
        item = self.panel.item_at(self.mapToScene(event.position().toPoint()))
        self.panel.show_hover(item.node_id if isinstance(item, NodeItem) else None)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        self.panel.context_menu_at(self.mapToScene(event.pos()), event.globalPos())
