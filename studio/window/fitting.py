"""Docks that fit a zoomed window into its screen: when a presentation zoom makes the
panels' minimum sizes add up to more than the screen (300% on a 1280x720 projector), the
default arrangement tightens, a step at a time, until the window fits:

1. the wide arrangement becomes the compact one (the side columns are tabs, no bottom row);
2. the state and the diffs become tabs of the right column instead of two panels one over
   the other (the window's height);
3. the state and the diffs join the left column's tabs (the window's width, or its height
   still: a wider graph column wraps the stop banner's keys onto fewer lines): two columns,
   the tabs and the graph;
4. the "stopped because" banner keeps its title and keys, its detail goes into the title's
   tooltip.

Back at a zoom that fits, a default layout is arranged again as it was. A layout someone
arranged by hand is only ever tightened, never rearranged.
"""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMainWindow

from .docks import Docks, arrange, whole_tab_names

__all__ = ["room_for", "fits", "tighten", "widen_timeline"]


def room_for(window: QMainWindow) -> QSize | None:
    """The size the window must fit in: its `fit_area` when one was given (a --screenshot
    of a chosen size), else the size it had before a zoom grew its text (`zoom_room`),
    else its screen's available area less the window manager's frame (or the window's own
    size, when someone made it larger than that)."""
    for given in (getattr(window, "fit_area", None), getattr(window, "zoom_room", None)):
        if isinstance(given, QSize) and not given.isEmpty():
            return given
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        return None
    area = screen.availableGeometry()
    frame = window.frameGeometry()
    extra_w, extra_h = max(frame.width() - window.width(), 0), max(frame.height() - window.height(), 0)
    room = QSize(area.width() - extra_w, area.height() - extra_h).expandedTo(window.size())
    return room if not room.isEmpty() else None


def fits(window: QMainWindow) -> bool:
    room = room_for(window)
    if room is None:
        return True
    least = window.minimumSizeHint()
    return least.width() <= room.width() and least.height() <= room.height()


def tighten(window: QMainWindow, docks: Docks) -> list[str]:
    """Tighten the arrangement until the window fits (see the module's steps); the steps
    taken, in order ("compact", "right tabs", "two columns")."""
    taken: list[str] = []
    room = room_for(window)
    if room is None:
        return taken
    if not fits(window) and docks.arrangement == "wide":
        arrange(window, docks, "compact")
        docks.arrangement = "compact"
        taken.append("compact")
    if window.minimumSizeHint().height() > room.height() and docks.diff not in window.tabifiedDockWidgets(docks.state):
        window.tabifyDockWidget(docks.state, docks.diff)
        docks.state.raise_()
        taken.append("right tabs")
    if not fits(window):  # too wide, or still too tall: a wider graph column wraps its banner less
        for dock in (docks.state, docks.diff):
            window.tabifyDockWidget(docks.timeline, dock)
        docks.timeline.raise_()
        window.resizeDocks([docks.timeline], [int(room.width() * 0.4)], Qt.Orientation.Horizontal)
        taken.append("two columns")
    banner = getattr(window, "stop_banner", None)
    if not fits(window) and banner is not None and hasattr(banner, "set_compact"):
        banner.set_compact(True)  # still too tall: the banner's detail goes into its title's tooltip
        taken.append("short banner")
    docks.tightened = docks.tightened + tuple(taken)
    if taken:
        whole_tab_names(window)
    return taken


TIMELINE_SHARE, TIMELINE_MOST = 0.28, 0.4
"""The compact timeline column's share of the window at 100%, and at most when zoomed."""


def widen_timeline(window: QMainWindow, docks: Docks, zoom: float) -> None:
    """A default layout after a zoom: the timeline's column grows with the square root of
    the zoom (up to 40% of the window), so its header stays on a line and the node names
    keep a dozen characters a line; the graph and the right column give the room."""
    dock = docks.timeline
    if dock.isFloating() or not dock.isVisible() or zoom <= 1.0:
        return
    want = max(dock.sizeHint().width(), int(window.width() * min(TIMELINE_SHARE * zoom ** 0.5, TIMELINE_MOST)))
    if want > dock.width():
        window.resizeDocks([dock], [min(want, int(window.width() * TIMELINE_MOST))], Qt.Orientation.Horizontal)
