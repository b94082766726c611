"""Placing the panels: the graph in the centre (under the banners), the rest in docks, in
one of two arrangements chosen by the window's size:

- **wide** (at least `WIDE` = 1400x900): the inspector and interrupts on the left, state and
  diffs on the right, both full height; timeline and events in a row under the graph.
- **compact** (smaller, e.g. a 1280x720 laptop or projector, 1000x600): no bottom row, whose
  few pixels of height would show one or two rows; two full-height columns instead: on the
  left, tabs of timeline, events, inspector and interrupts (and Debug, Superstep, Lesson
  when shown), each with the column's full height; on the right, state over diffs.

The window is never larger than its screen's available area. The layout is saved with
QSettings per screen-size class (a layout made on a laptop is not restored on a big monitor)
and restored when the window opens; View ▸ Reset Layout arranges the default of the
current size again.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabBar, QTabWidget, QVBoxLayout, QWidget

__all__ = ["Docks", "build_docks", "apply_default_sizes", "save_layout", "restore_layout", "fit_to_screen",
           "initial_size", "size_class", "screen_class", "whole_tab_names", "LAYOUT_VERSION", "WIDE"]

LAYOUT_VERSION = 6
"""Bump when the set of docks or their arrangement changes, so an old saved layout is ignored."""
WIDE = QSize(1400, 900)
"""From this size (both ways) the window gets the wide arrangement; below it, the compact one."""
DEFAULT = QSize(1600, 1000)
"""The window's size on a wide screen when no layout was saved."""


@dataclass
class Docks:
    state: QDockWidget
    diff: QDockWidget
    timeline: QDockWidget
    events: QDockWidget
    inspector: QDockWidget
    interrupts: QDockWidget
    extras: list[tuple[QDockWidget, str, str]] = field(default_factory=list)
    """Docks made by others (Debug, Superstep, Lesson; hidden until asked for), each with
    the name of the dock it is a tab beside in the wide and in the compact arrangement."""
    default_state: QByteArray | None = None
    arrangement: str = ""
    """"wide" or "compact": the arrangement last made by `apply_default_sizes`."""
    tightened: tuple[str, ...] = ()
    """The steps `studio.window.fitting.tighten` took since the default was arranged
    (a zoom that made the window larger than its screen)."""

    def all(self) -> list[QDockWidget]:
        return [self.state, self.diff, self.timeline, self.events, self.inspector, self.interrupts]

    def add_extra(self, dock: QDockWidget, wide: str, compact: str) -> None:
        """Arrange `dock` as a tab beside the dock named `wide` (e.g. "events") or `compact`."""
        self.extras.append((dock, wide, compact))


def size_class(width: int, height: int) -> str:
    """"wide" from `WIDE` both ways, else "compact"."""
    return "wide" if width >= WIDE.width() and height >= WIDE.height() else "compact"


def _area(window: QWidget) -> tuple[int, int] | None:
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return None
    area = screen.availableGeometry()
    return (area.width(), area.height()) if area.width() > 0 and area.height() > 0 else None


def screen_class(window: QWidget) -> str:
    """The size class of the screen the window is on (what a saved layout is kept under)."""
    area = _area(window)
    return size_class(*area) if area is not None else "wide"


MAXIMIZE_BELOW = QSize(2000, 1250)
"""A screen smaller than this (a laptop, a projector, a 1920x1080 monitor) gets a maximized
window; a bigger one a window of `DEFAULT` size."""


def initial_size(window: QMainWindow) -> tuple[QSize, bool]:
    """(size, maximize) for a window without a saved layout: the whole available area of a
    screen up to `MAXIMIZE_BELOW` (maximized, so a window manager's title bar and panels
    are counted and the status bar stays on screen); 1600x1000 on a bigger one."""
    area = _area(window)
    if area is None:
        return DEFAULT, False
    if area[0] >= MAXIMIZE_BELOW.width() and area[1] >= MAXIMIZE_BELOW.height():
        return DEFAULT, False
    return QSize(*area), True


def _dock(window: QMainWindow, title: str, name: str, widget: QWidget) -> QDockWidget:
    dock = QDockWidget(title, window)
    dock.setObjectName(name)
    dock.setWidget(widget)
    dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                     | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                     | QDockWidget.DockWidgetFeature.DockWidgetClosable)
    return dock


def build_docks(window: QMainWindow, *, banner: QWidget, graph: QWidget, state: QWidget, diff: QWidget,
                timeline: QWidget, events: QWidget, inspector: QWidget, interrupts: QWidget,
                stop_banner: QWidget | None = None) -> Docks:
    """The central column (the "stopped because" banner and the error banner over the
    graph) and the docks, in the wide arrangement (`apply_default_sizes` arranges them for
    the shown window's size)."""
    centre = QWidget()
    column = QVBoxLayout(centre)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    if stop_banner is not None:
        column.addWidget(stop_banner)
    column.addWidget(banner)
    column.addWidget(graph, 1)
    window.setCentralWidget(centre)
    docks = Docks(
        state=_dock(window, "State", "dock-state", state),
        diff=_dock(window, "Reducer diffs", "dock-diff", diff),
        timeline=_dock(window, "Timeline", "dock-timeline", timeline),
        events=_dock(window, "Events", "dock-events", events),
        inspector=_dock(window, "Inspector", "dock-inspector", inspector),  # the panel says "Node inspector"
        interrupts=_dock(window, "Interrupts", "dock-interrupts", interrupts),
    )
    arrange(window, docks, "wide")
    return docks


def arrange(window: QMainWindow, docks: Docks, kind: str) -> None:
    """Put every dock where the `kind` arrangement has it (docked, shown; Debug stays hidden
    unless it was shown)."""
    area, vertical = Qt.DockWidgetArea, Qt.Orientation.Vertical
    for dock in docks.all():
        dock.setFloating(False)
    for extra, _wide, _compact in docks.extras:
        extra.setFloating(False)
    window.addDockWidget(area.RightDockWidgetArea, docks.state)
    window.addDockWidget(area.RightDockWidgetArea, docks.diff)
    window.splitDockWidget(docks.state, docks.diff, vertical)
    if kind == "wide":
        window.addDockWidget(area.BottomDockWidgetArea, docks.timeline)
        window.addDockWidget(area.BottomDockWidgetArea, docks.events)
        window.splitDockWidget(docks.timeline, docks.events, Qt.Orientation.Horizontal)
        window.addDockWidget(area.LeftDockWidgetArea, docks.inspector)
        window.addDockWidget(area.LeftDockWidgetArea, docks.interrupts)
        window.splitDockWidget(docks.inspector, docks.interrupts, vertical)
    else:
        window.addDockWidget(area.LeftDockWidgetArea, docks.timeline)
        for dock in (docks.events, docks.inspector, docks.interrupts):
            window.addDockWidget(area.LeftDockWidgetArea, dock)
            window.tabifyDockWidget(docks.timeline, dock)
    for extra, wide, compact in docks.extras:
        beside: QDockWidget = getattr(docks, wide if kind == "wide" else compact)
        shown = extra.isVisible()
        window.addDockWidget(window.dockWidgetArea(beside), extra)
        window.tabifyDockWidget(beside, extra)
        extra.setVisible(shown)
    # tabs of a column read best on top, as the tabs of an editor do
    window.setTabPosition(area.LeftDockWidgetArea, QTabWidget.TabPosition.North)
    window.setTabPosition(area.RightDockWidgetArea, QTabWidget.TabPosition.North)
    window.setCorner(Qt.Corner.BottomLeftCorner, area.LeftDockWidgetArea)
    window.setCorner(Qt.Corner.BottomRightCorner, area.RightDockWidgetArea)
    for dock in docks.all():
        dock.show()
    if kind == "compact":
        docks.timeline.raise_()
    whole_tab_names(window)


def whole_tab_names(window: QMainWindow) -> None:
    """The docks' tabs keep their whole names and scroll when they do not fit (a zoomed or
    narrow column cut them to "T… E… I…")."""
    for bar in window.findChildren(QTabBar):
        if isinstance(bar.parentWidget(), QMainWindow) or bar.parent() is window:
            bar.setElideMode(Qt.TextElideMode.ElideNone)
            bar.setUsesScrollButtons(True)


LEFT, RIGHT, BOTTOM = 0.20, 0.26, 0.37
"""Wide: shares of the window of the left column (inspector, interrupts) and the right one
(state, diffs), both full height, and of the bottom row (timeline, events) under the graph,
which keeps the rest: over half the width."""
COMPACT_LEFT, COMPACT_RIGHT = 0.28, 0.30
"""Compact: the left column (timeline, events, inspector, interrupts as tabs) and the right
one (state over diffs); the graph keeps over 40% of the width."""


def apply_default_sizes(window: QMainWindow, docks: Docks) -> None:
    """Arrange the docks for the shown window's size class and give each its share (call
    once the window has its size); the result is what Reset Layout restores."""
    width, height = max(window.width(), 640), max(window.height(), 480)
    kind = size_class(window.width(), window.height())
    arrange(window, docks, kind)
    docks.arrangement = kind
    horizontal, vertical = Qt.Orientation.Horizontal, Qt.Orientation.Vertical
    if kind == "compact":
        left, right = int(width * COMPACT_LEFT), int(width * COMPACT_RIGHT)
        window.resizeDocks([docks.timeline, docks.state], [left, right], horizontal)
        window.resizeDocks([docks.state, docks.diff], [height // 2, height // 2], vertical)
    else:
        left, right = int(width * LEFT), int(width * RIGHT)
        window.resizeDocks([docks.inspector, docks.state], [left, right], horizontal)
        window.resizeDocks([docks.state, docks.diff], [int(height * 0.45), int(height * 0.55)], vertical)
        window.resizeDocks([docks.inspector, docks.interrupts], [int(height * 0.6), int(height * 0.4)], vertical)
        window.resizeDocks([docks.timeline], [int(height * BOTTOM)], vertical)
        centre = width - left - right  # the bottom row runs under the graph only
        window.resizeDocks([docks.timeline, docks.events], [int(centre * 0.48), centre - int(centre * 0.48)],
                           horizontal)
    docks.tightened = ()
    docks.default_state = window.saveState(LAYOUT_VERSION)


def _keys(window: QWidget) -> tuple[str, str]:
    kind = screen_class(window)
    return f"window/{kind}/geometry", f"window/{kind}/state"


def save_layout(window: QMainWindow, settings: QSettings) -> None:
    """Keep the geometry and dock layout under the screen's size class."""
    geometry_key, state_key = _keys(window)
    settings.setValue(geometry_key, window.saveGeometry())
    settings.setValue(state_key, window.saveState(LAYOUT_VERSION))
    settings.sync()


def restore_layout(window: QMainWindow, settings: QSettings) -> bool:
    """True when a layout saved on a screen of this size class was applied."""
    geometry_key, state_key = _keys(window)
    geometry, state = settings.value(geometry_key), settings.value(state_key)
    restored = False
    if isinstance(geometry, QByteArray) and not geometry.isEmpty():
        restored = window.restoreGeometry(geometry)
    if isinstance(state, QByteArray) and not state.isEmpty():
        restored = window.restoreState(state, LAYOUT_VERSION) or restored
    return restored


def fit_to_screen(window: QMainWindow) -> None:
    """Keep the window inside the screen's available area, its frame (the window manager's
    title bar) counted once it is known (a 1600x1000 default, or a geometry saved on a bigger
    monitor, would put panels and the status bar off screen)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None or (window.isVisible() and (window.isMaximized() or window.isFullScreen())):
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
    x = min(max(frame.x(), area.left()), area.right() - width - extra_w + 1)
    y = min(max(frame.y(), area.top()), area.bottom() - height - extra_h + 1)
    if (x, y) != (frame.x(), frame.y()):
        window.move(x, y)
