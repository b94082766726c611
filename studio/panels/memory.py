"""The Store panel: long-term memory (LangGraph's `Store`) beside the run's state.

Namespaces on the left, the chosen namespace's items on the right (key, value, updated,
expires: its TTL), a search box filtering them, and below the writes the run's nodes made
(node, task, put/delete, namespace, key, value). Plain data in (`studio.core.longterm`
records) through callables, so the panel reads a page only when a namespace is chosen.

Methods: `set_source(describe, namespaces, items, writes)`, `refresh()`, `clear()`.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.longterm import MemoryRow, MemoryWrite

from ._common import title_label

__all__ = ["StorePanel"]

Namespaces = Callable[[], Sequence[tuple[str, ...]]]
Items = Callable[[tuple[str, ...], str], Sequence[MemoryRow]]
Writes = Callable[[], Sequence[MemoryWrite]]


def _table(headers: list[str], name: str) -> QTableWidget:
    table = QTableWidget(0, len(headers), objectName=name)
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    table.horizontalHeader().setStretchLastSection(True)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return table


def _fill(table: QTableWidget, rows: Sequence[Sequence[str]]) -> None:
    table.setRowCount(len(rows))
    for r, cells in enumerate(rows):
        for c, text in enumerate(cells):
            cell = QTableWidgetItem(text if len(text) <= 400 else text[:399] + "…")
            cell.setToolTip(text[:2000])
            table.setItem(r, c, cell)
    table.resizeColumnsToContents()
    for c in range(table.columnCount() - 1):
        table.setColumnWidth(c, min(table.columnWidth(c), 260))


class StorePanel(QWidget):
    """Namespaces, their items (searchable, TTL shown), and the run's store writes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._namespaces: Namespaces = lambda: ()
        self._items: Items = lambda ns, text: ()
        self._writes: Writes = lambda: ()
        self.source_label = QLabel("No store: compile the graph with store=..., or open a store file",
                                   objectName="storeSource")
        self.source_label.setToolTip("Where the items come from")
        self.search = QLineEdit(objectName="storeSearch")
        self.search.setPlaceholderText("Search keys and values of the namespace…")
        self.search.textChanged.connect(self._show_items)
        self.namespace_list = QListWidget(objectName="storeNamespaces")
        self.namespace_list.currentItemChanged.connect(lambda *_: self._show_items())
        self.items_table = _table(["key", "value", "updated", "expires"], "storeItems")
        self.writes_table = _table(["step", "node", "op", "namespace", "key", "value"], "storeWrites")
        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(self.namespace_list)
        right = QWidget()
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.search)
        column.addWidget(self.items_table, 1)
        top.addWidget(right)
        top.setSizes([160, 440])
        top.setStretchFactor(0, 1)
        top.setStretchFactor(1, 4)
        writes = QWidget()
        wcol = QVBoxLayout(writes)
        wcol.setContentsMargins(0, 0, 0, 0)
        wcol.addWidget(title_label("Writes by the run's nodes"))
        wcol.addWidget(self.writes_table, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(writes)
        split.setSizes([300, 200])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.source_label)
        layout.addWidget(split, 1)

    def set_source(self, describe: str, namespaces: Namespaces, items: Items, writes: Writes) -> None:
        self.source_label.setText(describe)
        self._namespaces, self._items, self._writes = namespaces, items, writes
        self.refresh()

    def clear(self) -> None:
        self.set_source("No store", lambda: (), lambda ns, text: (), lambda: ())

    def refresh(self) -> None:
        """Read the namespaces and the writes again, keeping the chosen namespace."""
        current = self._current()
        self.namespace_list.blockSignals(True)
        self.namespace_list.clear()
        for ns in self._namespaces():
            entry = QListWidgetItem(" / ".join(ns))
            entry.setData(Qt.ItemDataRole.UserRole, ns)
            self.namespace_list.addItem(entry)
            if ns == current:
                self.namespace_list.setCurrentItem(entry)
        if self.namespace_list.currentItem() is None and self.namespace_list.count():
            self.namespace_list.setCurrentRow(0)
        self.namespace_list.blockSignals(False)
        self._show_items()
        _fill(self.writes_table, [("" if w.step is None else str(w.step), w.node, w.kind,
                                   " / ".join(w.namespace), w.key, w.value)
                                  for w in self._writes()])

    def _current(self) -> tuple[str, ...] | None:
        entry = self.namespace_list.currentItem()
        return tuple(entry.data(Qt.ItemDataRole.UserRole)) if entry is not None else None

    def _show_items(self) -> None:
        ns = self._current()
        rows = self._items(ns, self.search.text()) if ns is not None else ()
        _fill(self.items_table, [(r.key, r.value, r.updated_at, r.expires_at or "never") for r in rows])
