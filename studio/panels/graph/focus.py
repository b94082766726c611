"""The keyboard cursor of the graph panel: which node has the focus ring, and the keys that
move it (arrows, Tab / Shift+Tab, Home / End) or act on it (Enter inspects, the Menu key
opens its context menu).

Moving the cursor selects the node, as a list view's current row is its selection: F9,
Shift+F9, Ctrl+F10 and the inspector follow the node under the ring, and the caption
above the graph says why it runs next (or not yet), as hovering it would.
"""
from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QGraphicsView

from .items import ClusterItem, NodeItem
from .keys import Point, nearest_in_direction, reading_order

__all__ = ["NodeFocus", "FocusHost"]


class FocusHost(Protocol):
    """What the focus needs of its panel (the graph panel; a protocol, so no import cycle)."""

    canvas: QGraphicsView
    node_clicked: Any

    def node_ids(self) -> list[str]: ...
    def node_item(self, node_id: str) -> NodeItem | ClusterItem | None: ...
    def cluster_items(self) -> dict[str, ClusterItem]: ...
    def selected_node(self) -> str | None: ...
    def upcoming_nodes(self) -> frozenset[str]: ...
    def show_hover(self, node: str | None) -> None: ...
    def open_context_menu(self, node: str | None, global_pos: QPoint) -> None: ...

_ARROWS = {Qt.Key.Key_Left: "left", Qt.Key.Key_Right: "right", Qt.Key.Key_Up: "up", Qt.Key.Key_Down: "down"}


class NodeFocus:
    """The node under the keyboard's focus ring in one graph panel."""

    def __init__(self, panel: FocusHost) -> None:
        self.panel = panel
        self.node: str | None = None
        self.high_contrast = False

    # -- geometry -------------------------------------------------------------------------
    def _items(self) -> dict[str, NodeItem | ClusterItem]:
        found: dict[str, NodeItem | ClusterItem] = {}
        for node_id in self.panel.node_ids():
            item = self.panel.node_item(node_id)
            if isinstance(item, NodeItem) and item.box.kind != "join":
                found[node_id] = item
        for node_id, cluster in self.panel.cluster_items().items():
            found.setdefault(node_id, cluster)
        return found

    def centres(self) -> dict[str, Point]:
        out: dict[str, Point] = {}
        for node_id, item in self._items().items():
            rect = item.title_rect() if isinstance(item, ClusterItem) else item.mapRectToScene(item.box_rect())
            out[node_id] = (rect.center().x(), rect.center().y())
        return out

    # -- moving -----------------------------------------------------------------------------
    def move_to(self, node: str | None, *, select: bool = True) -> None:
        """Put the ring on `node` (None: nowhere), scroll it into view, and select it."""
        items = self._items()
        if node is not None and node not in items:
            node = None
        self.node = node
        self.refresh()
        if node is None:
            return
        item = items[node]
        rect = item.title_rect() if isinstance(item, ClusterItem) else item.sceneBoundingRect()
        self.panel.canvas.ensureVisible(rect, 24, 24)
        self.panel.show_hover(node)
        if select:
            self.panel.node_clicked.emit(node)

    def refresh(self) -> None:
        """Draw the ring on the cursor's node, and only while the canvas has the focus."""
        shown = self.node if self.panel.canvas.hasFocus() else None
        for node_id, item in self._items().items():
            item.set_focus_ring(node_id == shown, self.high_contrast)

    def _start(self) -> str | None:
        """Where the cursor starts: the selected node, else the first (in reading order) of
        the nodes that run next (after a stop or a resume: what F9 would then toggle), else
        the first node (START)."""
        centres = self.centres()
        selected = self.panel.selected_node()
        if selected in centres:
            return selected
        order = reading_order(centres)
        upcoming = self.panel.upcoming_nodes()
        return next((n for n in order if n in upcoming), order[0] if order else None)

    def step(self, forward: bool) -> bool:
        """Tab / Shift+Tab: the next node in reading order; False past the last (or before
        the first), so the key moves the focus out of the canvas instead of trapping it."""
        order = reading_order(self.centres())
        if not order:
            return False
        if self.node not in order:
            self.move_to(order[0] if forward else order[-1])
            return True
        index = order.index(self.node) + (1 if forward else -1)  # type: ignore[arg-type]
        if not 0 <= index < len(order):
            return False
        self.move_to(order[index])
        return True

    def arrow(self, direction: str) -> None:
        if self.node is None or self.node not in self.centres():
            self.move_to(self._start())
            return
        target = nearest_in_direction(self.centres(), self.node, direction)
        if target is not None:
            self.move_to(target)

    # -- keys -------------------------------------------------------------------------------
    def handle_key(self, event: QKeyEvent) -> bool:
        """Act on a key pressed in the canvas; True when it was one of ours."""
        key, mods = event.key(), event.modifiers()
        if mods & (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier):
            return False
        if key in _ARROWS:
            self.arrow(_ARROWS[key])
        elif key in (Qt.Key.Key_Home, Qt.Key.Key_End):
            order = reading_order(self.centres())
            if order:
                self.move_to(order[0] if key == Qt.Key.Key_Home else order[-1])
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            if self.node is None:
                self.move_to(self._start())
            else:
                self.panel.node_clicked.emit(self.node)
        elif key == Qt.Key.Key_Menu and self.node is not None:
            item = self._items()[self.node]
            at = item.sceneBoundingRect().center()
            view_pos = self.panel.canvas.mapFromScene(QPointF(at))
            self.panel.open_context_menu(self.node, self.panel.canvas.viewport().mapToGlobal(view_pos))
        elif key == Qt.Key.Key_Escape and self.node is not None:
            self.panel.show_hover(None)
            return False
        else:
            return False
        return True

    def focus_in(self, by_keyboard: bool) -> None:
        """The canvas got the focus: the ring comes back; from the keyboard (Tab, a
        shortcut) with no node under it yet, it starts on the selected node, else on the
        next to run, else on the first."""
        if by_keyboard and (self.node is None or self.node not in self.centres()):
            self.move_to(self._start())
        self.refresh()
