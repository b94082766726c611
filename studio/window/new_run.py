"""The new-run dialog (Ctrl+N): the run's Input, Context and Config as JSON, and its durability.

It starts from the texts the session gives (the file's `example_input` / `example_context`,
else the schemas' fields) and asks the session to check them on Start, so a problem shows
under the boxes, naming the box, and nothing typed is lost.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from studio.core.runsettings import RunSettings, RunTexts

__all__ = ["NewRunDialog"]

Check = Callable[[RunTexts], tuple[Any, RunSettings | None, str | None]]

_DURABILITY = (("default (the graph's)", ""), ("sync: saved before the next step", "sync"),
               ("async: saved while the next step runs", "async"), ("exit: saved when the run stops", "exit"))


def _editor(name: str, text: str) -> QPlainTextEdit:
    editor = QPlainTextEdit(objectName=name)
    editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    editor.setPlainText(text)
    editor.setTabChangesFocus(True)  # Tab goes to the next box, as in any form
    return editor


class NewRunDialog(QDialog):
    """Type a new run's input, context and config; Start checks them, Cancel keeps nothing."""

    def __init__(self, texts: RunTexts, check: Check, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New run")
        self._check = check
        self._hint = texts.context_hint
        self.value: Any = None
        self.settings: RunSettings | None = None
        self.editor = _editor("inputEditor", texts.input)
        self.context_editor = _editor("contextEditor", texts.context)
        self.config_editor = _editor("configEditor", texts.config)
        self.durability = QComboBox(objectName="durability")
        for label, value in _DURABILITY:
            self.durability.addItem(label, value)
        self.durability.setCurrentIndex(max(0, self.durability.findData(texts.durability)))
        self.problem = QLabel(objectName="inputProblem")
        self.problem.setWordWrap(True)
        self.problem.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.start_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.start_button.setText("Start")
        buttons.accepted.connect(self._on_accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("&Input: the state keys the run starts with (JSON object)", buddy=self.editor))
        layout.addWidget(self.editor, 3)
        what = f" — {texts.context_hint}" if texts.context_hint else " (optional: this graph has no context_schema)"
        context_label = QLabel(f"&Context: runtime.context of every node{what}", buddy=self.context_editor)
        context_label.setWordWrap(True)
        layout.addWidget(context_label)
        layout.addWidget(self.context_editor, 2)
        layout.addWidget(QLabel("Con&fig: recursion_limit, tags, metadata, configurable, run_name, max_concurrency",
                                buddy=self.config_editor))
        layout.addWidget(self.config_editor, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("&Durability:", buddy=self.durability))
        row.addWidget(self.durability, 1)
        layout.addLayout(row)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.resize(560, 520)

    @property
    def text(self) -> str:
        """The Input box's text."""
        return self.editor.toPlainText()

    def texts(self) -> RunTexts:
        """Everything typed, to start from next time."""
        return RunTexts(input=self.editor.toPlainText(), context=self.context_editor.toPlainText(),
                        config=self.config_editor.toPlainText(), durability=str(self.durability.currentData() or ""),
                        context_hint=self._hint)

    def _on_accept(self) -> None:
        value, settings, problem = self._check(self.texts())
        if problem or settings is None:
            self.problem.setText(problem or "These settings cannot start a run.")
            self.problem.show()
            return
        self.value, self.settings = value, settings
        self.accept()
