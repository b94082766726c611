"""The interrupts panel: what a paused node asked, and the value to resume it with."""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
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

from studio.core.hitl import allowed_for_all, decision_text, hitl_actions
from studio.core.jsontext import loads
from studio.core.valuefmt import ELLIPSIS, pretty
from studio.core.records import InterruptInfo
from ._common import MUTED, escape, mono_font, title_label

__all__ = ["InterruptPanel", "parse_json"]

_PLACEHOLDER = 'e.g.  true   "yes"   {"approved": true, "note": "ok"}'


def parse_json(text: str) -> tuple[Any, str]:
    """(value, "") for valid JSON, or (None, a message naming the line and column)."""
    if not text.strip():
        return None, "Enter a JSON value to resume with."
    try:
        return loads(text), ""
    except json.JSONDecodeError as exc:
        return None, f"Line {exc.lineno}, column {exc.colno}: {exc.msg}"
    except ValueError as exc:  # JsonTextError: too deep, too many digits
        return None, f"The JSON cannot be taken: {exc}"


class _Card(QFrame):
    """One pending interrupt: what it asks (wrapped, pretty-printed) and a resume editor."""

    def __init__(self, view: InterruptInfo, on_change: Any) -> None:
        super().__init__()
        self.view = view
        self.setObjectName("interruptCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        short_id = view.interrupt_id[:8] + (ELLIPSIS if len(view.interrupt_id) > 8 else "")
        head = QLabel(f'<b>{escape(view.node)}</b> asks '
                      f'<span style="color:{MUTED}">· interrupt {escape(short_id)}</span>')
        head.setTextFormat(Qt.TextFormat.RichText)
        head.setWordWrap(True)  # a narrow dock: the card never gets wider than the panel
        head.setToolTip(f"interrupt id {view.interrupt_id}")
        self.question = QLabel("", self)  # a parent first: shown alone it would flash as its own window
        self.question.setWordWrap(True)
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.question.setObjectName("interruptQuestion")
        self.value = QLabel("", self)  # a label grows with its wrapped text: no inner scrollbar
        self.value.setObjectName("interruptValue")
        self.value.setTextFormat(Qt.TextFormat.PlainText)
        self.value.setWordWrap(True)
        self.value.setFont(mono_font())
        self.value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.value.setToolTip("The value passed to interrupt() (its question is above)")
        question, rest = _split_question(view.value)
        self.actions = hitl_actions(view.value)
        if self.actions:  # langchain's human-in-the-loop request: the calls, and decision buttons
            calls = "; ".join(f"{a.name}({short_args(a.args)})" for a in self.actions)
            question = f"Review {len(self.actions)} tool call{'s' * (len(self.actions) > 1)}: {calls}"
        self.question.setText(question)
        self.question.setVisible(bool(question))
        if rest is not _NOTHING:
            self.value.setText(pretty(rest, max_chars=4_000))
        self.value.setVisible(rest is not _NOTHING)
        self.editor = QPlainTextEdit()
        self.editor.setFont(mono_font())
        self.editor.setPlaceholderText(_PLACEHOLDER)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.editor.setMinimumHeight(int(self.editor.fontMetrics().lineSpacing() * 3) + 14)
        self.editor.setMaximumHeight(100)  # room for the question and the error beside it in a small dock
        self.editor.setTabChangesFocus(True)
        self.editor.textChanged.connect(on_change)
        self.error = QLabel("")
        self.error.setObjectName("inlineError")
        self.error.setStyleSheet("color: #b91c1c")
        self.error.setWordWrap(True)
        resume_label = QLabel("Resume with (JSON):")
        resume_label.setStyleSheet(f"color: {MUTED}")
        self.details = QLabel("Value passed to interrupt():", self)
        self.details.setStyleSheet(f"color: {MUTED}")
        self.details.setVisible(rest is not _NOTHING)
        # the editor and its error come right after the question, before the value (which
        # may be long), so they stay in view without scrolling
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(head)
        layout.addWidget(self.question)
        self.decision_buttons: dict[str, QPushButton] = {}
        if self.actions:
            row = QHBoxLayout()
            row.addWidget(QLabel("Decide:"))
            for kind, label, tip in _DECISION_BUTTONS:
                button = QPushButton(label)
                button.setObjectName(f"decision_{kind}")
                allowed = allowed_for_all(self.actions, kind)
                button.setEnabled(allowed)
                button.setToolTip(tip if allowed else f"{label}: not allowed for these tool calls")
                button.clicked.connect(lambda _=False, k=kind: self.decide(k))
                self.decision_buttons[kind] = button
                row.addWidget(button)
            row.addStretch(1)
            layout.addLayout(row)
        layout.addWidget(resume_label)
        layout.addWidget(self.editor)
        layout.addWidget(self.error)
        layout.addWidget(self.details)
        layout.addWidget(self.value)

    def parsed(self) -> tuple[Any, str]:
        return parse_json(self.editor.toPlainText())

    def decide(self, kind: str) -> None:
        """Fill the resume editor with the decision `kind` for every tool call (an edit's
        arguments and a reject's message are then the person's to change)."""
        self.editor.setPlainText(decision_text(self.actions, kind))
        if kind != "approve":
            self.editor.setFocus()

    def show_error(self, message: str, typed: bool) -> None:
        self.error.setText(message if typed else "")
        self.error.setVisible(bool(message) and typed)


_NOTHING = object()

_DECISION_BUTTONS = (
    ("approve", "Approve", "Run the tool calls as they are (then Resume)"),
    ("edit", "Edit arguments", "Fill in the calls' arguments to change before they run (then Resume)"),
    ("reject", "Reject", "Refuse the calls with a message the model is given (then Resume)"),
)


def short_args(args: Any, limit: int = 80) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in args.items()) if isinstance(args, Mapping) else repr(args)
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


def _split_question(value: Any) -> tuple[str, Any]:
    """A text question shown as prose, and the rest of the value (shown as JSON):
    a plain string is all question; a dict's "question" (or "message", "prompt") key is."""
    if isinstance(value, str):
        return value, _NOTHING
    if isinstance(value, Mapping):
        for key in ("question", "message", "prompt"):
            if isinstance(value.get(key), str):
                rest = {k: v for k, v in value.items() if k != key}
                return value[key], rest if rest else _NOTHING
    return "", value


class InterruptPanel(QWidget):
    """Pending interrupts: each value (as JSON) and a JSON editor for the resume value.

    Methods:
        set_interrupts(views: Iterable[InterruptInfo]): show them (empty: nothing pending).
        set_resume_text(interrupt_id, text): fill an editor (the same as typing).
        set_read_only(reason): "" lets the user resume; any other text disables Resume
            (and the editors) and says why in its tooltip and under the title.
    Signals:
        resume_requested(object): a dict {interrupt_id: parsed resume value}, sent by the
            Resume button (enabled only when every editor holds valid JSON).

    Invalid JSON is reported under its editor as you type (line and column), never raised.
    """

    resume_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._cards: list[_Card] = []
        self._read_only = ""
        self.title = title_label("Interrupts")
        self.why = QLabel("")
        self.why.setWordWrap(True)
        self.why.setStyleSheet(f"color: {MUTED}")
        self.why.hide()
        self.empty = QLabel("No pending interrupts. When a node calls interrupt(value), "
                            "its question appears here.")
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet(f"color: {MUTED}")
        self.resume_button = QPushButton("Resume")
        self.resume_button.setObjectName("primaryButton")
        self.resume_button.setToolTip("Resume the run with these values")
        self.resume_button.clicked.connect(self._on_resume_clicked)
        resume_key = QShortcut(QKeySequence("Ctrl+Return"), self)  # from an editor: Resume without the mouse
        resume_key.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        resume_key.activated.connect(self._on_resume_clicked)
        self.resume_button.setToolTip("Resume the run with these values (Ctrl+Return)")
        self._list = QWidget()
        self._list_layout = QVBoxLayout(self._list)
        self._list_layout.setContentsMargins(0, 0, 0, 0)
        self._list_layout.addStretch(1)
        self._pinned = False
        self.scroll = scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # a scroll bar that comes and goes changes the width under cards laid out for the
        # other width, and cuts their right edge: keep it
        scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self._list)
        scroll.viewport().installEventFilter(self)
        scroll.verticalScrollBar().actionTriggered.connect(self._unpin)  # the user scrolls: leave it
        bar = QHBoxLayout()
        bar.addWidget(self.title, 1)
        bar.addWidget(self.resume_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
        layout.addWidget(self.why)
        layout.addWidget(self.empty)
        layout.addWidget(scroll, 1)
        self.set_interrupts([])

    def set_interrupts(self, views: Iterable[InterruptInfo]) -> None:
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
            card.editor.setReadOnly(bool(self._read_only))
            self._list_layout.insertWidget(self._list_layout.count() - 1, card)
            self._cards.append(card)
        self.empty.setVisible(not views)
        self.title.setText(f"Interrupts · {len(views)} pending" if views else "Interrupts")
        self._validate()
        if self._cards and set(kept) != {v.interrupt_id for v in views}:
            self._pinned = True  # new questions: keep the first editor in view as the panel resizes
            QTimer.singleShot(0, self.show_first_editor)  # once the new cards are laid out

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.Resize and self._pinned and watched is self.scroll.viewport():
            QTimer.singleShot(0, self.show_first_editor)
        return False

    def _unpin(self, *_: Any) -> None:
        self._pinned = False

    def show_first_editor(self) -> None:
        """Scroll the first pending interrupt's editor and error into view."""
        if self._cards:
            card = self._cards[0]
            self.scroll.verticalScrollBar().setValue(0)  # the question first, then as little scrolling as can be
            self.scroll.ensureWidgetVisible(card.error if card.error.isVisible() else card.editor, 0, 10)

    def set_resume_text(self, interrupt_id: str, text: str) -> None:
        for card in self._cards:
            if card.view.interrupt_id == interrupt_id:
                card.editor.setPlainText(text)

    def set_read_only(self, reason: str) -> None:
        self._read_only = reason
        for card in self._cards:
            card.editor.setReadOnly(bool(reason))
        self._validate()

    def cards(self) -> list[Any]:
        return list(self._cards)

    def _validate(self) -> bool:
        empty: list[str] = []
        wrong: list[str] = []
        for card in self._cards:
            _, error = card.parsed()
            shown = card.error.isVisible()
            card.show_error(error, typed=bool(card.editor.toPlainText()))
            if card.error.isVisibleTo(card) and not shown and card.editor.hasFocus():
                # the error just appeared under the editor being typed in: keep it in view
                QTimer.singleShot(0, lambda c=card: self.scroll.ensureWidgetVisible(c.error, 0, 6))
            if error:
                (wrong if card.editor.toPlainText().strip() else empty).append(card.view.node)
        reason = self._read_only
        if not reason and wrong:
            reason = f"Resume waits for valid JSON: see the error under {', '.join(dict.fromkeys(wrong))}."
        elif not reason and empty:
            reason = (f"Type the value to resume {', '.join(dict.fromkeys(empty))} with (JSON, e.g. true or "
                      '"yes"), then Resume.')
        ok = bool(self._cards) and not reason
        self.resume_button.setEnabled(ok)
        self.resume_button.setVisible(bool(self._cards))
        self.resume_button.setToolTip(reason or "Resume the run with these values (Ctrl+Return)")
        self.why.setText(reason)  # why Resume is disabled, always in view above the cards
        self.why.setVisible(bool(reason and self._cards))
        return ok

    def first_editor(self) -> QPlainTextEdit | None:
        """The first pending interrupt's resume editor (None when nothing is pending)."""
        return self._cards[0].editor if self._cards else None

    def _on_text_changed(self) -> None:
        self._pinned = False
        self._validate()

    def _on_resume_clicked(self) -> None:
        if not self._validate():
            return
        self.resume_requested.emit({card.view.interrupt_id: card.parsed()[0] for card in self._cards})
