"""A small, total table model of text rows, each carrying a checkpoint id (the debugging
panels' lists: watch values, field changes, search hits)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from studio.core.safe import total

__all__ = ["TextRows", "IdRole"]

IdRole = Qt.ItemDataRole.UserRole + 40
Index = QModelIndex | QPersistentModelIndex


class TextRows(QAbstractTableModel):
    """Rows of cell texts; `ids[i]` is row i's checkpoint; `current` is tinted."""

    def __init__(self, columns: Sequence[str]) -> None:
        super().__init__()
        self.columns = list(columns)
        self.cells: list[tuple[str, ...]] = []
        self.ids: list[str] = []
        self.tips: list[str] = []
        self.current: str | None = None

    def set_rows(self, columns: Sequence[str], rows: Sequence[tuple[str, Sequence[str], str]]) -> None:
        """`rows`: (checkpoint id, cell texts, tooltip)."""
        self.beginResetModel()
        self.columns = list(columns)
        self.ids = [r[0] for r in rows]
        self.cells = [tuple(r[1]) for r in rows]
        self.tips = [r[2] for r in rows]
        self.endResetModel()

    def append_rows(self, rows: Sequence[tuple[str, Sequence[str], str]]) -> None:
        """Add rows at the end (a running search's new matches), without a reset."""
        if not rows:
            return
        start = len(self.cells)
        self.beginInsertRows(QModelIndex(), start, start + len(rows) - 1)
        self.ids.extend(r[0] for r in rows)
        self.cells.extend(tuple(r[1]) for r in rows)
        self.tips.extend(r[2] for r in rows)
        self.endInsertRows()

    def set_current(self, checkpoint_id: str | None) -> None:
        self.current = checkpoint_id
        if self.cells:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.cells) - 1, len(self.columns) - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.cells)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole \
                and 0 <= section < len(self.columns):
            return self.columns[section]
        return None

    @total(None)
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= len(self.cells):
            return None
        row, col = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            cells = self.cells[row]
            return cells[col] if col < len(cells) else ""
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tips[row] or None
        if role == IdRole:
            return self.ids[row]
        if role == Qt.ItemDataRole.BackgroundRole and self.ids[row] == self.current:
            return QColor("#eef4ff")
        return None
