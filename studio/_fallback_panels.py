"""Plain-text stand-ins used only while `studio.panels` is not importable (development)."""
from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QPlainTextEdit, QVBoxLayout, QWidget

__all__ = ["GraphPanel", "StatePanel", "DiffPanel", "TimelinePanel", "EventsPanel", "InspectorPanel",
           "InterruptPanel", "StateEditorDialog", "CompareDialog"]


class _Text(QPlainTextEdit):
    def __init__(self) -> None:
        super().__init__()
        self.setReadOnly(True)


class GraphPanel(_Text):
    nodeSelected = Signal(object)
    breakpointToggled = Signal(str, str)

    def set_graph(self, view: Any) -> None:
        self.setPlainText("\n".join(f"{e.source} -> {e.target} [{e.kind}]" for e in view.edges))

    def set_marks(self, marks: Any) -> None:
        self.appendPlainText(f"marks: next={sorted(marks.next)} running={sorted(marks.running)}")

    def is_layout_pending(self) -> bool:
        return False


class StatePanel(_Text):
    def set_state(self, values: Any) -> None:
        self.setPlainText(repr(values))


class DiffPanel(_Text):
    def set_diff(self, diff: Any) -> None:
        self.setPlainText("" if diff is None else "\n".join(repr(r) for r in diff.rows))


class TimelinePanel(_Text):
    checkpointSelected = Signal(object)
    rewindRequested = Signal(str)
    editRequested = Signal(str)
    compareRequested = Signal(str, str)

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[Any] = []

    def set_rows(self, rows: Any) -> None:
        self.rows = list(rows)
        self.setPlainText("\n".join(repr(r) for r in rows))

    def add_row(self, row: Any) -> None:
        self.rows.append(row)
        self.appendPlainText(repr(row))

    def set_head(self, _id: Any) -> None: ...

    def set_current(self, _id: Any) -> None: ...

    def selected_ids(self) -> tuple[str, ...]:
        return ()


class EventsPanel(_Text):
    checkpointSelected = Signal(object)

    def add_event(self, row: Any) -> None:
        self.appendPlainText(row.text)


class InspectorPanel(_Text):
    def set_details(self, details: Any) -> None:
        self.setPlainText(details.source)


class InterruptPanel(_Text):
    resumeRequested = Signal(object, object)

    def set_interrupts(self, views: Any) -> None:
        self.setPlainText("\n".join(repr(v) for v in views))


class StateEditorDialog(QDialog):
    def __init__(self, values: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = QPlainTextEdit(json.dumps(values, default=repr))
        QVBoxLayout(self).addWidget(self.editor)

    def values(self) -> Any:
        return json.loads(self.editor.toPlainText())


class CompareDialog(QDialog):
    def __init__(self, view: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        text = QPlainTextEdit(repr(view.diff))
        QVBoxLayout(self).addWidget(text)
