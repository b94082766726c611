"""The interrupts panel: what a paused node asked, and the value to resume it with."""
from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from ..valuefmt import pretty
from ..viewmodel import InterruptView
from ._common import MUTED, escape, mono_font, title_label

__all__ = ["InterruptPanel", "parse_json"]

_PLACEHOLDER = 'JSON, e.g. true · "yes" · {"approved": true, "note": "ok"}'


def parse_json(text: str) -> tuple[Any, str]:
    """(value, "") for valid JSON, or (None, a message naming the line and column)."""
    if not text.strip():
        return None, "Enter a JSON value to resume with."
    try:
        return json.loads(text), ""
    except json.JSONDecodeError as exc:
        return None, f"Line {exc.lineno}, column {exc.colno}: {exc.msg}"


class _Card(QFrame):
    """One pending interrupt: its value and an editor for the resume value."""

    def __init__(self, view: InterruptView, on_change: Any) -> None:
        super().__init__()
        self.view = view
        self.setObjectName("interruptCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        head = QLabel(f'<b>{escape(view.node)}</b> <span style="color:{MUTED}">asks · '
                      f'{escape(view.interrupt_id)}</span>')
        head.setTextFormat(Qt.TextFormat.RichText)
        value = QPlainTextEdit(pretty(view.value))
        value.setReadOnly(True)
        value.setFont(mono_font())
        value.setMaximumHeight(110)
        self.editor = QPlainTextEdit()
        self.editor.setFont(mono_font())
        self.editor.setPlaceholderText(_PLACEHOLDER)
        self.editor.setMaximumHeight(90)
        self.editor.setTabChangesFocus(True)
        self.editor.textChanged.connect(on_change)
        self.error = QLabel("")
        self.error.setObjectName("inlineError")
        self.error.setStyleSheet("color: #b91c1c")
        self.error.setWordWrap(True)
        resume_label = QLabel("Resume with:")
        resume_label.setStyleSheet(f"color: {MUTED}")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(head)
        layout.addWidget(value)
        layout.addWidget(resume_label)
        layout.addWidget(self.editor)
        layout.addWidget(self.error)

    def parsed(self) -> tuple[Any, str]:
        return parse_json(self.editor.toPlainText())

    def show_error(self, message: str, typed: bool) -> None:
        self.error.setText(message if typed else "")
        self.error.setVisible(bool(message) and typed)


class InterruptPanel(QWidget):
    """Pending interrupts: each value (as JSON) and a JSON editor for the resume value.

    Methods:
        set_interrupts(views: Iterable[InterruptView]): show them (empty: nothing pending).
        set_resume_text(interrupt_id, text): fill an editor (the same as typing).
    Signals:
        resume_requested(object): a dict {interrupt_id: parsed resume value}, sent by the
            Resume button (enabled only when every editor holds valid JSON).

    Invalid JSON is reported under its editor as you type (line and column), never raised.
    """

    resume_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._cards: list[_Card] = []
        self.title = title_label("Interrupts")
        self.empty = QLabel("No pending interrupts. When a node calls interrupt(value), "
                            "its question appears here.")
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet(f"color: {MUTED}")
        self.resume_button = QPushButton("Resume")
        self.resume_button.setObjectName("primaryButton")
        self.resume_button.setToolTip("Resume the run with these values")
        self.resume_button.clicked.connect(self._on_resume_clicked)
        self._list = QWidget()
        self._list_layout = QVBoxLayout(self._list)
        self._list_layout.setContentsMargins(0, 0, 0, 0)
        self._list_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self._list)
        bar = QHBoxLayout()
        bar.addWidget(self.title, 1)
        bar.addWidget(self.resume_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
        layout.addWidget(self.empty)
        layout.addWidget(scroll, 1)
        self.set_interrupts([])

    def set_interrupts(self, views: Iterable[InterruptView]) -> None:
        views = list(views)
        kept = {c.view.interrupt_id: c.editor.toPlainText() for c in self._cards}
        for card in self._cards:
            card.setParent(None)
            card.deleteLater()
        self._cards = []
        for view in views:
            card = _Card(view, self._on_text_changed)
            if view.interrupt_id in kept:
                card.editor.setPlainText(kept[view.interrupt_id])
            self._list_layout.insertWidget(self._list_layout.count() - 1, card)
            self._cards.append(card)
        self.empty.setVisible(not views)
        self.title.setText(f"Interrupts · {len(views)} pending" if views else "Interrupts")
        self._validate()

    def set_resume_text(self, interrupt_id: str, text: str) -> None:
        for card in self._cards:
            if card.view.interrupt_id == interrupt_id:
                card.editor.setPlainText(text)

    def cards(self) -> list[Any]:
        return list(self._cards)

    def _validate(self) -> bool:
        ok = bool(self._cards)
        for card in self._cards:
            _, error = card.parsed()
            card.show_error(error, typed=bool(card.editor.toPlainText()))
            ok = ok and not error
        self.resume_button.setEnabled(ok)
        self.resume_button.setVisible(bool(self._cards))
        return ok

    def _on_text_changed(self) -> None:
        self._validate()

    def _on_resume_clicked(self) -> None:
        if not self._validate():
            return
        self.resume_requested.emit({card.view.interrupt_id: card.parsed()[0] for card in self._cards})
