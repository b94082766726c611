"""Placing the panels: the graph in the centre (under the error banner), the rest in docks.

The layout is saved with QSettings when the window closes and restored when it opens;
"Reset Layout" goes back to the default arrangement made here.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QVBoxLayout, QWidget

__all__ = ["Docks", "build_docks", "apply_default_sizes", "save_layout", "restore_layout", "fit_to_screen", "LAYOUT_VERSION"]

LAYOUT_VERSION = 5
"""Bump when the set of docks changes, so an old saved layout is ignored."""


@dataclass
class Docks:
    state: QDockWidget
    diff: QDockWidget
    timeline: QDockWidget
    events: QDockWidget
    inspector: QDockWidget
    interrupts: QDockWidget
    default_state: QByteArray | None = None

    def all(self) -> list[QDockWidget]:
        return [self.state, self.diff, self.timeline, self.events, self.inspector, self.interrupts]


def _dock(window: QMainWindow, title: str, name: str, widget: QWidget) -> QDockWidget:
    dock = QDockWidget(title, window)
    dock.setObjectName(name)
    dock.setWidget(widget)
    dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                     | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                     | QDockWidget.DockWidgetFeature.DockWidgetClosable)
    return dock


def build_docks(window: QMainWindow, *, banner: QWidget, graph: QWidget, state: QWidget, diff: QWidget,
                timeline: QWidget, events: QWidget, inspector: QWidget, interrupts: QWidget) -> Docks:
    """Graph centre; state and diffs on the right; timeline and events at the bottom;
    inspector and interrupts on the left."""
    centre = QWidget()
    column = QVBoxLayout(centre)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    column.addWidget(banner)
    column.addWidget(graph, 1)
    window.setCentralWidget(centre)
    docks = Docks(
        state=_dock(window, "State", "dock-state", state),
        diff=_dock(window, "Reducer diffs", "dock-diff", diff),
        timeline=_dock(window, "Timeline", "dock-timeline", timeline),
        events=_dock(window, "Events", "dock-events", events),
        inspector=_dock(window, "Node inspector", "dock-inspector", inspector),
        interrupts=_dock(window, "Interrupts", "dock-interrupts", interrupts),
    )
    area = Qt.DockWidgetArea
    window.addDockWidget(area.RightDockWidgetArea, docks.state)
    window.addDockWidget(area.RightDockWidgetArea, docks.diff)
    window.splitDockWidget(docks.state, docks.diff, Qt.Orientation.Vertical)
    window.addDockWidget(area.BottomDockWidgetArea, docks.timeline)
    window.addDockWidget(area.BottomDockWidgetArea, docks.events)
    window.splitDockWidget(docks.timeline, docks.events, Qt.Orientation.Horizontal)
    window.addDockWidget(area.LeftDockWidgetArea, docks.inspector)
    window.addDockWidget(area.LeftDockWidgetArea, docks.interrupts)
    window.splitDockWidget(docks.inspector, docks.interrupts, Qt.Orientation.Vertical)
    window.setCorner(Qt.Corner.BottomLeftCorner, area.LeftDockWidgetArea)
    window.setCorner(Qt.Corner.BottomRightCorner, area.RightDockWidgetArea)
    return docks


LEFT, RIGHT, BOTTOM = 0.20, 0.26, 0.28
"""Default shares of the window: left column (inspector, interrupts) and right column (state,
diffs), both full height; bottom row (timeline, events) under the graph, which keeps the
rest: over half the width."""


def apply_default_sizes(window: QMainWindow, docks: Docks) -> None:
    """Give each dock area a sensible share of the shown window (call once it has its size)."""
    width, height = max(window.width(), 800), max(window.height(), 600)
    orientation = Qt.Orientation
    left, right = int(width * LEFT), int(width * RIGHT)
    window.resizeDocks([docks.inspector, docks.state], [left, right], orientation.Horizontal)
    window.resizeDocks([docks.state, docks.diff], [int(height * 0.45), int(height * 0.55)], orientation.Vertical)
    window.resizeDocks([docks.inspector, docks.interrupts], [int(height * 0.6), int(height * 0.4)],
                       orientation.Vertical)
    window.resizeDocks([docks.timeline], [int(height * BOTTOM)], orientation.Vertical)
    centre = width - left - right  # the bottom row runs under the graph only
    window.resizeDocks([docks.timeline, docks.events], [int(centre * 0.48), centre - int(centre * 0.48)],
                       orientation.Horizontal)
    docks.default_state = window.saveState(LAYOUT_VERSION)


def save_layout(window: QMainWindow, settings: QSettings) -> None:
    settings.setValue("window/geometry", window.saveGeometry())
    settings.setValue("window/state", window.saveState(LAYOUT_VERSION))
    settings.sync()


def restore_layout(window: QMainWindow, settings: QSettings) -> bool:
    """True when a saved layout was applied."""
    geometry = settings.value("window/geometry")
    state = settings.value("window/state")
    restored = False
    if isinstance(geometry, QByteArray) and not geometry.isEmpty():
        restored = window.restoreGeometry(geometry)
    if isinstance(state, QByteArray) and not state.isEmpty():
        restored = window.restoreState(state, LAYOUT_VERSION) or restored
    return restored


def fit_to_screen(window: QMainWindow) -> None:
    """Keep the window inside the screen's available area (a 1600x1000 default, or a
    geometry saved on a bigger monitor, would put panels and buttons off screen)."""
    from PySide6.QtGui import QGuiApplication

    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return
    area = screen.availableGeometry()
    if area.width() <= 0 or area.height() <= 0:
        return
    frame = window.frameGeometry()
    extra_w, extra_h = max(frame.width() - window.width(), 0), max(frame.height() - window.height(), 0)
    width = min(window.width(), area.width() - extra_w)
    height = min(window.height(), area.height() - extra_h)
    if (width, height) != (window.width(), window.height()):
        window.resize(width, height)
    x = min(max(window.x(), area.left()), area.right() - width - extra_w + 1)
    y = min(max(window.y(), area.top()), area.bottom() - height - extra_h + 1)
    if (x, y) != (window.x(), window.y()):
        window.move(x, y)
