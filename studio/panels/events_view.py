"""The events panel: node starts and finishes, commits, interrupts and errors, as they came."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..viewmodel import EventRow
from ._common import MUTED, BadgeDelegate, BadgeRole, KindRole, mono_font, title_label

__all__ = ["EventsPanel", "EventsModel", "format_duration"]

_COLUMNS = ("Event", "Step", "Node", "What happened", "Took")
Index = QModelIndex | QPersistentModelIndex


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 0.001:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    if seconds < 120:
        return f"{seconds:.2f} s"
    return f"{seconds / 60:.1f} min"


class EventsModel(QAbstractTableModel):
    """A list of EventRow; rows are appended, never rebuilt."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[EventRow] = []

    def append(self, rows: Iterable[EventRow]) -> None:
        rows = list(rows)
        if not rows:
            return
        start = len(self.events)
        self.beginInsertRows(QModelIndex(), start, start + len(rows) - 1)
        self.events += rows
        self.endInsertRows()

    def clear(self) -> None:
        self.beginResetModel()
        self.events = []
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.events)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        e = self.events[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return ("", str(e.step), e.node, e.text.partition("\n")[0], format_duration(e.duration_s))[col]
        if role == BadgeRole and col == 0:
            return e.kind, e.kind
        if role == KindRole:
            return e.kind
        if role == Qt.ItemDataRole.ForegroundRole:
            if e.kind == "error" and col in (2, 3):
                return QColor("#b91c1c")
            if col in (1, 4):
                return QColor(MUTED)
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (1, 4):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = e.text
            if e.checkpoint_id:
                tip += f"\ncheckpoint {e.checkpoint_id} (click to view it)"
            if e.traceback:
                tip += "\n(traceback below)"
            return tip
        return None


class EventsPanel(QWidget):
    """Node starts and finishes with durations, commits, interrupts and errors.

    Methods:
        append(rows: Iterable[EventRow]) / add_event(row): add events at the bottom (the
            view follows new rows while it is scrolled to the bottom).
        clear(): forget every event.
    Signals:
        checkpoint_selected(str): an event that has a checkpoint id was clicked.

    Selecting an error shows its traceback (and any event its full text) in the pane below.
    """

    checkpoint_selected = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = EventsModel()
        self._errors = 0
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(True)
        self.table.setItemDelegateForColumn(0, BadgeDelegate(self.table))
        vertical = self.table.verticalHeader()
        vertical.setVisible(False)
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultSectionSize(24)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(30)
        header.resizeSection(0, 72)
        header.resizeSection(1, 40)
        header.resizeSection(2, 84)
        header.resizeSection(4, 64)
        self.table.clicked.connect(self._on_clicked)
        self.table.selectionModel().currentRowChanged.connect(self._on_current_row_changed)

        self.title = title_label("Events")
        self.errors = QLabel("")
        self.errors.setStyleSheet("color: #b91c1c")
        clear = QPushButton("Clear")
        clear.setToolTip("Forget the events listed so far")
        clear.clicked.connect(self.clear)
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setFont(mono_font())
        self.detail.setPlaceholderText("Select an event; an error shows its traceback here.")
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        bar = QHBoxLayout()
        bar.addWidget(self.title)
        bar.addWidget(self.errors, 1)
        bar.addWidget(clear)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
        layout.addWidget(splitter, 1)

    def append(self, rows: Iterable[EventRow]) -> None:
        bar = self.table.verticalScrollBar()
        follow = bar.value() >= bar.maximum() - 2
        rows = list(rows)
        self.model.append(rows)
        self._errors += sum(1 for e in rows if e.kind == "error")
        self._show_errors()
        if follow:
            self.table.scrollToBottom()

    def add_event(self, row: EventRow) -> None:
        self.append([row])

    def clear(self) -> None:
        self.model.clear()
        self.detail.clear()
        self._errors = 0
        self._show_errors()

    def _show_errors(self) -> None:
        n = self._errors
        self.errors.setText(f"{n} error{'s' if n != 1 else ''}" if n else "")

    def _event_at(self, index: QModelIndex) -> EventRow | None:
        return self.model.events[index.row()] if index.isValid() else None

    def _on_clicked(self, index: QModelIndex) -> None:
        event = self._event_at(index)
        if event is not None and event.checkpoint_id:
            self.checkpoint_selected.emit(event.checkpoint_id)

    def _on_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        event = self._event_at(current)
        if event is None:
            self.detail.clear()
            return
        lines = [f"{event.kind} · step {event.step} · {event.node or '—'}", event.text]
        if event.duration_s is not None:
            lines.append(f"took {format_duration(event.duration_s)}")
        if event.checkpoint_id:
            lines.append(f"checkpoint {event.checkpoint_id}")
        if event.traceback:
            lines += ["", event.traceback.rstrip()]
        self.detail.setPlainText("\n".join(lines))
