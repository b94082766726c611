"""The Store dock (long-term memory) and the window `retrograph open` shows for a store file.

Kept apart from main_window.py: the window builds one `StoreDock` and forgets it. The dock
reads the loaded graph's store through `studio.session.memory` when a graph loads and
after each step; `StoreWindow` browses a SQLite store file read-only.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget

from studio.core.longterm import LiveMemory, MemoryFile
from studio.panels.memory import StorePanel
from studio.session.memory import memory_of

__all__ = ["StoreDock", "StoreWindow"]


def _show(panel: StorePanel, source: LiveMemory | MemoryFile | None) -> None:
    if source is None:
        panel.clear()
        panel.source_label.setText("No store: this graph was compiled without store=...")
        return
    panel.set_source(source.describe(), source.namespaces, lambda ns, text: source.items(ns, text),
                     source.writes)


class StoreDock:
    """A "Store" dock tabbed with the window's reducer diffs, fed from the session."""

    def __init__(self, window: QMainWindow) -> None:
        self.window = window
        self.panel = StorePanel()
        self.dock = QDockWidget("Store", window)
        self.dock.setObjectName("dock-store")
        self.dock.setWidget(self.panel)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        docks = getattr(window, "docks", None)
        if docks is not None:  # every arrangement of the window puts it beside the diffs
            docks.add_extra(self.dock, "diff", "diff")
        self._place()
        self.dock.hide()  # until a graph with a store loads (View ▸ Store shows it any time)
        menus = getattr(window, "menus", {})
        if "View" in menus:
            menus["View"].addAction(self.dock.toggleViewAction())
        self.source: LiveMemory | None = None
        session = getattr(window, "session", None)
        if session is not None:
            session.graphLoaded.connect(lambda *_: self.reload())
            session.headChanged.connect(lambda *_: self.panel.refresh() if self.source else None)
        self.reload()

    def _place(self) -> None:
        """A tab beside the reducer diffs."""
        diff = getattr(getattr(self.window, "docks", None), "diff", None)
        if diff is not None and not self.dock.isFloating():
            self.window.tabifyDockWidget(diff, self.dock)
            diff.raise_()

    def reload(self) -> None:
        session = getattr(self.window, "session", None)
        self.source = memory_of(session.graph) if session is not None and session.graph is not None else None
        _show(self.panel, self.source)
        if self.source is not None and not self.dock.isVisible():  # shown for a graph that has a store
            self.dock.show()
            self.dock.raise_()


class StoreWindow(QMainWindow):
    """`retrograph open memory.db` on a store file: its namespaces and items, read-only."""

    def __init__(self, path: str | Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.source = MemoryFile(path)
        self.setWindowTitle(f"Retrograph Studio — {Path(path).name} (store, read-only)")
        self.setObjectName("retrographStoreWindow")
        self.panel = StorePanel()
        self.setCentralWidget(self.panel)
        _show(self.panel, self.source)
        self.panel.writes_table.parentWidget().hide()  # a file has no run whose writes to show

    def closeEvent(self, event: object) -> None:  # noqa: N802 (Qt's name)
        self.source.close()
        super().closeEvent(event)  # type: ignore[arg-type]
