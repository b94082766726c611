"""Small dialogs of the window: the JSON input of a new run and the thread picker."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from studio.core.jsontext import parse_json_input
from studio.core.records import ThreadSummary

__all__ = ["InputDialog", "ThreadPicker", "input_text_for"]


def input_text_for(value: Any) -> str:
    """A value as the editable JSON text the dialog starts from."""
    if value is None:
        return "{}"
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        return repr(value)


class InputDialog(QDialog):
    """Type a new run's input as JSON; invalid JSON shows why and keeps the text."""

    def __init__(self, text: str, parent: QWidget | None = None, *, title: str = "New run") -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.value: Any = None
        self.editor = QPlainTextEdit(objectName="inputEditor")
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setPlainText(text)
        self.problem = QLabel(objectName="inputProblem")
        self.problem.setWordWrap(True)
        self.problem.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start")
        buttons.accepted.connect(self._on_accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("The input of the new run, as JSON (a dict of state keys):"))
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.resize(520, 360)

    @property
    def text(self) -> str:
        return self.editor.toPlainText()

    def _on_accept(self) -> None:
        value, problem = parse_json_input(self.text)
        if problem is None and not isinstance(value, dict):
            problem = "The input must be a JSON object (a dict of state keys), e.g. {\"question\": \"hi\"}."
        if problem:
            self.problem.setText(problem)
            self.problem.show()
            return
        self.value = value
        self.accept()


class ThreadPicker(QDialog):
    """Pick one thread of the database (newest first)."""

    def __init__(self, threads: Sequence[ThreadSummary], current: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Threads in the database")
        self.list = QListWidget(objectName="threadList")
        font = QFont(self.list.font())
        self.list.setFont(font)
        for t in threads:
            item = QListWidgetItem(f"{t.thread_id}    {t.checkpoints} checkpoints · {t.updated_at[:19]}")
            item.setData(256, t.thread_id)
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
