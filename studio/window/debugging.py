"""The Debug dock and menu of the window: watches, conditional breakpoints, field history,
history search, and Debug ▸ Replay from here… / Export thread….

Wiring only: the work is the session's (`studio.session.debugging.DebugTools`, reached as
`session.debugging`); this module places the dock, asks its dialogs, and connects the
panel's requests to the session's methods and the session's results to the panel.
Kept apart from main_window.py: the window builds one `DebugDock` and forgets it.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QVBoxLayout,
    QWidget,
)

from studio.panels.debug import DebugPanel

__all__ = ["DebugDock", "ReplayDialog", "RedactDialog"]

class ReplayDialog(QDialog):
    """Pick the nodes answered from the recording (the others re-run with the current code)."""

    def __init__(self, nodes: Sequence[str], where: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Replay from here")
        self.setObjectName("replayDialog")
        column = QVBoxLayout(self)
        column.addWidget(QLabel(f"Replay from {where} on a new branch.\nTick the nodes to answer from the "
                                "recording (no LLM or API call); the others run with the current code.", self))
        self.boxes: dict[str, QCheckBox] = {}
        for name in nodes:
            box = QCheckBox(name, self, objectName=f"replay-{name}")
            self.boxes[name] = box
            column.addWidget(box)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Replay")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)

    def chosen(self) -> list[str]:
        return [n for n, box in self.boxes.items() if box.isChecked()]


class RedactDialog(QDialog):
    """Export's options: keys whose values to redact, and whether only the viewed branch."""

    def __init__(self, branch_possible: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Redact keys")
        self.setObjectName("redactDialog")
        column = QVBoxLayout(self)
        column.addWidget(QLabel("Keys whose values to replace by <redacted> (comma-separated; empty: none):", self))
        self.keys = QLineEdit(self, objectName="redactKeys")
        column.addWidget(self.keys)
        self.only_branch = QCheckBox("Only the viewed branch (the checkpoint shown and its ancestors)", self,
                                     objectName="exportBranch")
        self.only_branch.setEnabled(branch_possible)
        column.addWidget(self.only_branch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)

    def redact(self) -> list[str]:
        return [k.strip() for k in self.keys.text().split(",") if k.strip()]


class DebugDock(QObject):
    """The Debug dock and menu of one window, wired to `session.debugging`."""

    def __init__(self, window: QMainWindow, session: Any, docks: Any, view_menu: Any) -> None:
        super().__init__(window)
        self.window = window
        self.session = session
        self.tools = tools = session.debugging
        self.docks = docks
        self.panel = p = DebugPanel(window)
        self.dock = QDockWidget("Debug", window)
        self.dock.setObjectName("dock-debug")
        self.dock.setWidget(self.panel)
        # hidden until asked for (Debug menu, View menu); the window's arrangement places it:
        # a tab beside Events on a wide window (room for before and after side by side), in
        # the left column's tabs on a compact one (its full height)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        window.tabifyDockWidget(docks.events, self.dock)
        self.dock.hide()
        docks.add_extra(self.dock, "events", "timeline")
        view_menu.addAction(self.dock.toggleViewAction())
        menu = window.menuBar().addMenu("&Debug")
        self.replay_action = QAction("Replay from here…", window, objectName="replayAction")
        self.replay_action.setToolTip("Re-run from the selected checkpoint, answering chosen nodes from the recording")
        self.replay_action.triggered.connect(self.ask_replay)
        self.export_action = QAction("Export thread…", window, objectName="exportAction")
        self.export_action.triggered.connect(self.ask_export)
        menu.addAction(self.replay_action)
        menu.addAction(self.export_action)
        menu.addSeparator()
        self.tab_actions: list[QAction] = []
        for title, tab in (("Watches", 0), ("Conditional breakpoints", 1), ("Field history", 2), ("Search", 3)):
            action = QAction(title, window)
            action.triggered.connect(lambda _=False, t=tab: self.show_tab(t))
            menu.addAction(action)
            self.tab_actions.append(action)
        # the panel's requests -> the session's tools
        p.watch_added.connect(tools.add_watch)
        p.watch_removed.connect(tools.remove_watch)
        p.condition_added.connect(tools.add_condition)
        p.condition_removed.connect(tools.remove_condition)
        p.field_requested.connect(tools.ask_field)
        p.search_requested.connect(tools.search)
        p.search_continued.connect(tools.continue_search)
        p.search_cancelled.connect(tools.cancel_search)
        p.hit_picked.connect(tools.pick_hit)
        p.checkpoint_picked.connect(session.select_checkpoint)
        # the session's results -> the panel
        tools.watchesChanged.connect(p.set_watches)
        tools.problem.connect(p.show_error)
        tools.conditionsChanged.connect(p.set_conditions)
        tools.fieldChanged.connect(p.set_changes)
        tools.hitsReset.connect(lambda note: p.set_hits([], note))
        tools.hitsAdded.connect(p.add_hits)
        tools.searchStatus.connect(lambda text, running, more: p.set_search_status(text, running=running, more=more))
        tools.viewedChanged.connect(p.set_current)
        session.viewChanged.connect(p.set_current)
        session.graphLoaded.connect(lambda *_: p.set_nodes(tools.node_names()))

    def show_tab(self, index: int) -> None:
        self.dock.show()
        self.dock.raise_()
        self.panel.tabs.setCurrentIndex(index)

    async def idle(self) -> None:
        """Wait until every read the tools started has ended (tests, screenshots)."""
        await self.tools.wait_idle()

    # -- dialogs -------------------------------------------------------------------------
    def ask_replay(self) -> None:
        s = self.session
        start = s.viewed_id or s.head_id
        if s.graph is None or start is None:
            s.message.emit("Replay needs the graph's code and a checkpoint: open the run with --graph FILE.py.")
            return
        dialog = ReplayDialog(self.tools.replay_nodes(), s.history.describe(start), self.window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        self.tools.replay(start, dialog.chosen())

    def ask_export(self) -> None:
        s = self.session
        if s.thread_id is None:
            return
        path, _ = QFileDialog.getSaveFileName(self.window, "Export thread", f"{s.thread_id}.sqlite",
                                              "Checkpoint files (*.sqlite)")
        if not path:
            return
        tip = s.viewed_id or s.head_id
        dialog = RedactDialog(tip is not None, self.window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        self.tools.export(path, dialog.redact(), branch=tip if dialog.only_branch.isChecked() else None)
