"""The node inspector: a node's source code, its edges, and what it last read and returned."""
from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..valuefmt import pretty, preview
from ..viewmodel import UNSET, NodeDetails
from ._common import MUTED, escape, mono_font, title_label
from .highlight import PythonHighlighter

__all__ = ["InspectorPanel"]


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
        self.title = title_label("Node inspector")
        self.location = QLabel("")
        self.location.setTextFormat(Qt.TextFormat.RichText)
        self.location.setOpenExternalLinks(False)
        self.location.linkActivated.connect(self._on_link)
        self.edges = QLabel("")
        self.edges.setTextFormat(Qt.TextFormat.RichText)
        self.edges.setWordWrap(True)
        self.source = QPlainTextEdit()
        self.source.setReadOnly(True)
        self.source.setFont(mono_font())
        self.source.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.highlighter = PythonHighlighter(self.source.document())
        self.last_input = self._text_pane("The node has not run yet.")
        self.last_output = self._text_pane("The node has not returned yet.")
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

    @staticmethod
    def _text_pane(placeholder: str) -> QPlainTextEdit:
        pane = QPlainTextEdit()
        pane.setReadOnly(True)
        pane.setFont(mono_font())
        pane.setPlaceholderText(placeholder)
        return pane

    def set_node(self, details: NodeDetails | None) -> None:
        self._details = details
        if details is None:
            self.title.setText("Node inspector")
            self.location.setText(f'<span style="color:{MUTED}">Click a node in the graph to inspect it.</span>')
            self.edges.setText("")
            self.source.setPlainText("")
            self.last_input.setPlainText("")
            self.last_output.setPlainText("")
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
        self.source.setPlainText(details.source or "# source not available")
        self.last_input.setPlainText("" if details.last_input is UNSET else pretty(details.last_input))
        self.last_output.setPlainText("" if details.last_output is UNSET else pretty(details.last_output))

    set_details = set_node

    @staticmethod
    def _edges_html(d: NodeDetails) -> str:
        def names(items: tuple[str, ...]) -> str:
            if not items:
                return f'<span style="color:{MUTED}">none</span>'
            return ", ".join(f"<b>{escape(n)}</b>" for n in items)

        arrow = " &nbsp;→&nbsp; "
        lines = [f"from {names(d.incoming)}{arrow}<i>{escape(d.name)}</i>{arrow}to {names(d.outgoing)}"]
        for key, value in d.extra.items():
            lines.append(f'<span style="color:{MUTED}">{escape(str(key))}:</span> {escape(preview(value, 120))}')
        return "<br>".join(lines)

    def _on_link(self, _link: str) -> None:
        d = self._details
        if d is not None and d.file:
            self.open_in_editor.emit(d.file, int(d.line or 1))
