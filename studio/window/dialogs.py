"""Small dialogs of the window: the thread picker (the new-run dialog is new_run.py)."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from studio.core.records import ThreadSummary

__all__ = ["ThreadPicker", "ask_foreign_thread"]


class ThreadPicker(QDialog):
    """Pick one thread of the database (newest first)."""

    def __init__(self, threads: Sequence[ThreadSummary], current: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Threads in the database")
        self.list = QListWidget(objectName="threadList")
        font = QFont(self.list.font())
        self.list.setFont(font)
        self._threads = {t.thread_id: t for t in threads}
        others = False
        if current is not None and current not in self._threads:  # its first checkpoints are newer than the list
            self._threads[current] = ThreadSummary(thread_id=current, checkpoints=0, updated_at="")
            item = QListWidgetItem(f"{current}    (open now)")
            item.setData(256, current)
            self.list.addItem(item)
            self.list.setCurrentItem(item)
        for t in threads:  # the open graph's threads come first
            if t.foreign and not others:
                others = True
                header = QListWidgetItem("— other graphs' threads (open read-only) —")
                header.setFlags(Qt.ItemFlag.NoItemFlags)
                self.list.addItem(header)
            mark = f"    ⚠ another graph: {', '.join(t.foreign_nodes[:3])}" if t.foreign else ""
            item = QListWidgetItem(f"{t.thread_id}    {t.checkpoints} checkpoints · {t.updated_at[:19]}{mark}")
            item.setData(256, t.thread_id)
            if t.foreign:
                item.setToolTip(f"Run by another graph: {', '.join(t.foreign_nodes)} are not nodes of the open one")
            self.list.addItem(item)
            if t.thread_id == current:
                self.list.setCurrentItem(item)
        self.list.itemDoubleClicked.connect(lambda _item: self.accept())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self.resize(560, 380)

    @property
    def thread_id(self) -> str | None:
        item = self.list.currentItem()
        return item.data(256) if item is not None else None

    @property
    def chosen(self) -> ThreadSummary | None:
        return self._threads.get(self.thread_id or "")


def ask_foreign_thread(parent: QWidget, thread: ThreadSummary) -> str:
    """Another graph's thread was picked: "read-only" (post-mortem), "graph" (open its file) or ""."""
    box = QMessageBox(QMessageBox.Icon.Question, "Another graph's thread",
                      f"Thread {thread.thread_id} was run by another graph: "
                      f"{', '.join(thread.foreign_nodes[:6])} are not nodes of the open one, so this code "
                      "cannot go on with it.", parent=parent)
    box.setInformativeText("Open it read-only to look at its history, or open the graph file it was run with.")
    read_only = box.addButton("Open &read-only", QMessageBox.ButtonRole.AcceptRole)
    graph = box.addButton("Open its &graph file…", QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(read_only)
    box.exec()
    clicked = box.clickedButton()
    return "read-only" if clicked is read_only else "graph" if clicked is graph else ""
