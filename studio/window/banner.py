"""The error banner above the graph: what went wrong, where, and what to do next."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from studio.core.records import ErrorReport

__all__ = ["ErrorBanner"]


class ErrorBanner(QFrame):
    """Hidden until `show_error()`; the details (a traceback) fold out on demand."""

    reloadRequested = Signal()
    abandonRequested = Signal()
    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.error: ErrorReport | None = None
        self.title = QLabel(objectName="errorTitle")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text = QLabel(objectName="errorText")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hint = QLabel(objectName="errorHint")
        self.hint.setWordWrap(True)
        self.details = QPlainTextEdit(objectName="errorDetails")
        self.details.setReadOnly(True)
        self.details.setMaximumHeight(160)
        self.details.hide()
        self.toggle = QPushButton("Details")
        self.toggle.setCheckable(True)
        self.toggle.toggled.connect(self._on_toggle_details)
        self.reload = QPushButton("Reload (Ctrl+R)")
        self.reload.clicked.connect(self.reloadRequested)
        self.abandon = QPushButton("Abandon")
        self.abandon.setToolTip("Give up waiting (Shift+F5): the code goes on in its thread until it returns, "
                                "and its result is dropped")
        self.abandon.clicked.connect(self.abandonRequested)
        close = QPushButton("Dismiss")
        close.clicked.connect(self._on_dismiss)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        for button in (self.toggle, self.reload, self.abandon, close):
            head.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addLayout(head)
        layout.addWidget(self.text)
        layout.addWidget(self.hint)
        layout.addWidget(self.details)
        self.hide()

    def show_error(self, error: ErrorReport | None) -> None:
        self.error = error
        if error is None:
            self.hide()
            return
        self.setProperty("kind", error.kind)
        self.style().unpolish(self)
        self.style().polish(self)
        self.title.setText(error.title)
        self.text.setText(error.message)
        self.hint.setText(error.hint)
        self.hint.setVisible(bool(error.hint))
        self.details.setPlainText(error.detail)
        self.toggle.setVisible(bool(error.detail))
        self.toggle.setChecked(False)
        self.reload.setVisible(error.kind in ("load", "node"))
        self.abandon.setVisible(error.kind == "waiting")
        self.show()

    def _on_toggle_details(self, shown: bool) -> None:
        self.details.setVisible(shown)

    def _on_dismiss(self) -> None:
        self.hide()
        self.dismissed.emit()
