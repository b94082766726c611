"""The node inspector: a node's source code, its edges, and what it last read and returned."""
from __future__ import annotations

import os

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from studio.core.valuefmt import pretty, pretty_preview, preview
from studio.core.records import UNSET, NodeDetails
from studio.panels._common import MUTED, escape, mono_font, title_label, tool_button
from .highlight import PythonHighlighter

__all__ = ["InspectorPanel", "ValuePane", "PREVIEW_ITEMS"]

PREVIEW_ITEMS = 20
"""The I/O panes show at most this many items of a list (the latest messages) at first."""
SHOW_ALL_CHARS = 4_000_000
""""Show all" shows every item, up to this many characters."""


class ValuePane(QWidget):
    """A value as folded text (bounded work, whatever its size) with a "Show all" button.

    Methods:
        set_value(value): show a preview (UNSET: the placeholder); show_all(): the full text.
    """

    def __init__(self, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._value: Any = UNSET
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(mono_font())
        self.text.setPlaceholderText(placeholder)
        self.note = QLabel("")
        self.note.setStyleSheet(f"color: {MUTED}")
        self.note.setWordWrap(True)
        self.show_all_button = tool_button("Show all", "Render the whole value (may take a moment for a big state)")
        self.show_all_button.clicked.connect(self._on_show_all_clicked)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.note, 1)
        bar.addWidget(self.show_all_button)
        self._bar = QWidget()
        self._bar.setLayout(bar)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self._bar)
        layout.addWidget(self.text, 1)
        self._bar.hide()

    def set_value(self, value: Any) -> None:
        if value is self._value:
            return  # the same object: already on screen
        self._value = value
        if value is UNSET:
            self.text.setPlainText("")
            self._bar.hide()
            return
        text, cut = pretty_preview(value, items=PREVIEW_ITEMS)
        self.text.setPlainText(text)
        self.note.setText(f"Folded: lists show {PREVIEW_ITEMS} items (a conversation its latest messages)."
                          if cut else "")
        self._bar.setVisible(cut)

    def toPlainText(self) -> str:  # noqa: N802 (reads like the QPlainTextEdit it wraps)
        return self.text.toPlainText()

    def is_folded(self) -> bool:
        return not self._bar.isHidden()

    def show_all(self) -> None:
        if self._value is not UNSET:
            self.text.setPlainText(pretty(self._value, max_chars=SHOW_ALL_CHARS, items=SHOW_ALL_CHARS))
            self._bar.hide()

    def _on_show_all_clicked(self) -> None:
        self.show_all()


class InspectorPanel(QWidget):
    """What a node is: its function's source (highlighted), file:line, edges, last I/O.

    Methods:
        set_node(details: NodeDetails | None): show a node (None: a hint to click one).
            `set_details` is the same method.
    Signals:
        open_in_editor(str, int): the file:line link was clicked (path, line).
    """

    open_in_editor = Signal(str, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._details: NodeDetails | None = None
        self._source_text: str | None = None
        self.title = title_label("Node inspector")
        self.location = QLabel("")
        self.location.setTextFormat(Qt.TextFormat.RichText)
        self.location.setOpenExternalLinks(False)
        self.location.linkActivated.connect(self._on_link)
        for label in (self.title, self.location):  # a long path never widens the dock
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.edges = QLabel("")
        self.edges.setTextFormat(Qt.TextFormat.RichText)
        self.edges.setWordWrap(True)
        self.source = QPlainTextEdit()
        self.source.setReadOnly(True)
        self.source.setFont(mono_font())
        self.source.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.highlighter = PythonHighlighter(self.source.document())
        self.last_input = ValuePane("The node has not run yet.")
        self.last_output = ValuePane("The node has not returned yet.")
        self.io = QTabWidget()
        self.io.addTab(self.last_input, "Last input")
        self.io.addTab(self.last_output, "Last output")
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.source)
        splitter.addWidget(self.io)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addWidget(self.location)
        layout.addWidget(self.edges)
        layout.addWidget(splitter, 1)
        self.set_node(None)

    def set_node(self, details: NodeDetails | None) -> None:
        self._details = details
        if details is None:
            self.title.setText("Node inspector")
            self.location.setText(f'<span style="color:{MUTED}">Click a node in the graph to inspect it.</span>')
            self.edges.setText("")
            self._set_source("")
            self.last_input.set_value(UNSET)
            self.last_output.set_value(UNSET)
            return
        self.title.setText(details.name)
        if details.file:
            where = f"{details.file}:{details.line}" if details.line else details.file
            short = os.path.basename(details.file) + (f":{details.line}" if details.line else "")
            self.location.setText(f'<a href="open">{escape(short)}</a> '
                                  f'<span style="color:{MUTED}">{escape(os.path.dirname(details.file))}</span>')
            self.location.setToolTip(f"Open {where} in your editor")
        else:
            self.location.setText(f'<span style="color:{MUTED}">no source file</span>')
            self.location.setToolTip("")
        self.edges.setText(self._edges_html(details))
        self._set_source(details.source or "# source not available")
        self.last_input.set_value(details.last_input)
        self.last_output.set_value(details.last_output)

    set_details = set_node

    def _set_source(self, text: str) -> None:
        if text != self._source_text:  # re-highlighting the same code on every step is waste
            self._source_text = text
            self.source.setPlainText(text)

    @staticmethod
    def _edges_html(d: NodeDetails) -> str:
        def names(items: tuple[str, ...]) -> str:
            if not items:
                return f'<span style="color:{MUTED}">none</span>'
            return ", ".join(f"<b>{escape(n)}</b>" for n in items)

        arrow = " &nbsp;→&nbsp; "
        lines = [f"from {names(d.incoming)}{arrow}<i>{escape(d.name)}</i>{arrow}to {names(d.outgoing)}"]
        for key, value in d.extra.items():
            shown = value if isinstance(value, str) else preview(value, 120)
            lines.append(f'<span style="color:{MUTED}">{escape(str(key))}:</span> {escape(shown)}')
        return "<br>".join(lines)

    def _on_link(self, _link: str) -> None:
        d = self._details
        if d is not None and d.file:
            self.open_in_editor.emit(d.file, int(d.line or 1))
