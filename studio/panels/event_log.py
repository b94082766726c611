"""The events panel: node starts and finishes, commits, interrupts and errors, as they came."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QEvent, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QResizeEvent, QShowEvent
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

from studio.core.safe import total
from studio.core.records import EventRow
from ._common import MUTED, BadgeDelegate, BadgeRole, KindRole, mono_font, title_label

__all__ = ["EventsPanel", "EventsModel", "format_duration", "COLUMNS"]

COLUMNS = ("Step", "Node", "What happened", "Took", "Time")
STEP, NODE, TEXT, TOOK, TIME = range(len(COLUMNS))
Index = QModelIndex | QPersistentModelIndex
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_RED = QColor("#b91c1c")
_GREY = QColor(MUTED)
_DISPLAY = Qt.ItemDataRole.DisplayRole
MIN_TEXT = 200
"""Pixels the "What happened" column keeps before the node and time columns give way."""
_ANSWERED = frozenset(int(r) for r in (
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.TextAlignmentRole,
    Qt.ItemDataRole.ToolTipRole, BadgeRole, KindRole))


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 0.001:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 0.1:
        return f"{seconds * 1e3:.1f} ms"
    if seconds < 1:
        return f"{seconds * 1e3:.0f} ms"
    if seconds < 120:
        return f"{seconds:.2f} s"
    return f"{seconds / 60:.1f} min"


def _cells(e: EventRow) -> tuple[str, ...]:
    step = "" if e.step is None else str(e.step)
    text = e.text.partition("\n")[0]
    if e.node and text.startswith(e.node + " "):
        text = text[len(e.node) + 1:]  # "tools wrote messages": the node has its own column
    return (step, e.node, text, format_duration(e.duration_s), e.at)


class EventsModel(QAbstractTableModel):
    """A list of EventRow; rows are appended, never rebuilt. The event's kind is a badge
    in front of its text; cells are worked out once per row (views repaint often)."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[EventRow] = []
        self._cells: dict[int, tuple[str, ...]] = {}

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
        self._cells = {}
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.events)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = _DISPLAY) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == _DISPLAY:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.TextAlignmentRole and section in (STEP, TOOK):
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole:
            return ("The superstep", "The node (a subgraph's nodes as parent › child)",
                    "What happened; an error's traceback shows below when selected",
                    "How long the node ran", "When it happened")[section]
        return None

    @total(None)
    def data(self, index: Index, role: int = _DISPLAY) -> Any:
        if role not in _ANSWERED or not index.isValid():
            return None  # most roles a view asks for (icons, fonts, check states…) have no answer here
        row, col = index.row(), index.column()
        if role == _DISPLAY:
            cells = self._cells.get(row)
            if cells is None:
                cells = self._cells[row] = _cells(self.events[row])
            return cells[col]
        e = self.events[row]
        if role == BadgeRole:
            return (e.kind, e.kind) if col == TEXT else None
        if role == KindRole:
            return e.kind
        if role == Qt.ItemDataRole.ForegroundRole:
            if e.kind == "error" and col in (NODE, TEXT):
                return _RED
            return _GREY if col in (STEP, TOOK, TIME) else None
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (STEP, TOOK):
            return _RIGHT
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
        self.table.setItemDelegateForColumn(TEXT, BadgeDelegate(self.table))
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        vertical = self.table.verticalHeader()
        vertical.setVisible(False)
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultSectionSize(24)
        self._size_columns()
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
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 0)
        splitter.setSizes([10_000, 64])  # the detail pane stays small; drag it taller
        bar = QHBoxLayout()
        bar.addWidget(self.title)
        bar.addWidget(self.errors, 1)
        bar.addWidget(clear)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
        layout.addWidget(splitter, 1)

    def _size_columns(self) -> None:
        """Step and durations narrow and right-aligned, the node as wide as its names
        (within bounds), the text takes the rest; every header fits its (bold) title.
        Worked out again when the style sheet changes the font."""
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(24)
        cell = self.table.fontMetrics()
        bold = QFont(self.table.font())
        bold.setBold(True)
        title = QFontMetrics(bold)
        pad = 16

        def fits(name: str, *texts: str) -> int:
            return max([title.horizontalAdvance(name) + pad] + [cell.horizontalAdvance(t) + pad for t in texts])

        widths = {STEP: fits("Step", "999"), NODE: fits("Node", "summarize"), TOOK: fits("Took", "99.9 ms"),
                  TIME: fits("Time", "00:00:00")}
        for col, width in widths.items():
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(col, width)
        header.setSectionResizeMode(TEXT, QHeaderView.ResizeMode.Stretch)
        self._node_width = self._node_min = widths[NODE]
        self._node_max = fits("Node", "a_long_node_name")
        self._fit_node_column(self.model.events)
        self._fit_width()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._size_columns()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self._size_columns()  # the window's style sheet is applied by now

    def _fit_node_column(self, rows: list[EventRow]) -> None:
        """Widen the node column to the longest new name (bounded; never shrinks on its own)."""
        names = {e.node for e in rows[-500:] if e.node}
        if not names:
            return
        fm = self.table.fontMetrics()
        wanted = min(self._node_max, max(fm.horizontalAdvance(n) for n in names) + 16)
        if wanted > self._node_width:
            self._node_width = wanted
            self._fit_width()

    def _fit_width(self) -> None:
        """Keep the text readable in a narrow dock: the node column gives way first, then
        the time column hides (the time stays in the tooltip and the detail pane)."""
        header = self.table.horizontalHeader()
        room = self.table.viewport().width()
        fixed = sum(header.sectionSize(c) for c in (STEP, TOOK))
        node = max(min(self._node_width, room - fixed - header.sectionSize(TIME) - MIN_TEXT), self._node_min)
        if header.sectionSize(NODE) != node:
            header.resizeSection(NODE, node)
        self.table.setColumnHidden(TIME, room - fixed - node - header.sectionSize(TIME) < MIN_TEXT)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_width()

    def append(self, rows: Iterable[EventRow]) -> None:
        bar = self.table.verticalScrollBar()
        follow = bar.value() >= bar.maximum() - 2
        rows = list(rows)
        self.model.append(rows)
        self._fit_node_column(rows)
        self._errors += sum(1 for e in rows if e.kind == "error")
        self._show_errors()
        if not self.table.currentIndex().isValid():  # an error's traceback shows without a click
            errors = [i for i, e in enumerate(rows) if e.kind == "error" and e.traceback]
            if errors:
                self.table.setCurrentIndex(self.model.index(self.model.rowCount() - len(rows) + errors[-1], TEXT))
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
        when = f" · at {event.at}" if event.at else ""
        lines = [f"{event.kind} · step {event.step} · {event.node or '—'}{when}", event.text]
        if event.duration_s is not None:
            lines.append(f"took {format_duration(event.duration_s)}")
        if event.checkpoint_id:
            lines.append(f"checkpoint {event.checkpoint_id}")
        if event.traceback:
            lines += ["", event.traceback.rstrip()]
        self.detail.setPlainText("\n".join(lines))
