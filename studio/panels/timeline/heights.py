"""Row heights of the timeline fitted to wrapped text, measured lazily.

Most rows take one line and keep the table's fixed default height: that is what lets a
100,000-checkpoint thread open and scroll fast (Qt asks no size hint per row). A row whose
nodes ("search_db, search_docs, search_web") or branch header need more lines than one
gets a taller row, and only rows on screen are measured: after a scroll, a resize, a fold
or a new checkpoint, each row in view is asked once for the height it wants, and the
answer is kept by what the row shows (a checkpoint or a branch header), so a live run's
next checkpoint costs one measurement, not one per row. A row out of view keeps its
height until it is seen again; the table scrolls by rows, so a row that grows above the
view never moves what is on screen.
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QModelIndex, QObject, QRect, QTimer
from PySide6.QtWidgets import QAbstractItemView, QStyleOptionViewItem, QTableView

from studio.core.safe import total
from .model import TimelineModel

__all__ = ["RowHeights"]


class RowHeights(QObject):
    """Keeps the heights of the rows in view of `table` fitted to their `wrapped` columns.

    Methods:
        fit(): measure the rows in view now (otherwise done soon after each change).
        forget(): drop every kept measurement (the font or a column's width changed).
    Attributes:
        measured (int): how many cells were measured so far (each is one size hint).
    """

    def __init__(self, table: QTableView, model: TimelineModel, wrapped: Sequence[int]) -> None:
        super().__init__(table)
        self.table = table
        self.model = model
        self.wrapped = tuple(wrapped)
        self.measured = 0
        self._wanted: dict[int, int] = {}
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.fit)
        table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerItem)
        table.verticalScrollBar().valueChanged.connect(self._schedule)
        table.horizontalHeader().sectionResized.connect(self._on_column_resized)
        table.viewport().installEventFilter(self)
        model.rowsInserted.connect(self._schedule)
        model.rowsRemoved.connect(self._schedule)
        model.layoutChanged.connect(self._schedule)
        model.modelReset.connect(self.forget)
        model.dataChanged.connect(self._on_data_changed)

    def forget(self, *_: object) -> None:
        self._wanted.clear()
        self._schedule()

    def pending(self) -> bool:
        """Whether a fit is scheduled (tests wait for it to be done)."""
        return self._timer.isActive()

    @total(None)
    def fit(self) -> None:
        """Give each row in view the height its wrapped text needs (the default when one
        line does): O(rows on screen), never O(rows)."""
        self._timer.stop()
        table, header = self.table, self.table.verticalHeader()
        n = self.model.rowCount()
        if n == 0:
            return
        bar = table.verticalScrollBar()
        at_bottom = bar.maximum() > 0 and bar.value() >= bar.maximum()
        row = max(0, header.logicalIndexAt(0))
        y = header.sectionViewportPosition(row)
        bottom = table.viewport().height()
        changed = False
        while row < n and y < bottom:
            want = self._height(row)
            if header.sectionSize(row) != want:
                header.resizeSection(row, want)
                changed = True
            y += want
            row += 1
        if changed:
            table.updateGeometries()
            if at_bottom:
                table.scrollToBottom()

    def _height(self, row: int) -> int:
        entry = self.model.entry_at(row)
        if entry is None:
            return self.table.verticalHeader().defaultSectionSize()
        hit = self._wanted.get(entry)
        if hit is None:
            hit = self._wanted[entry] = self._measure(row)
        return hit

    def _measure(self, row: int) -> int:
        table = self.table
        height = table.verticalHeader().defaultSectionSize()
        for col in self.wrapped:
            span = max(1, table.columnSpan(row, col))
            width = sum(table.columnWidth(c) for c in range(col, col + span))
            option = QStyleOptionViewItem()
            option.initFrom(table)
            option.font = table.font()
            option.rect = QRect(0, 0, width, height)
            option.widget = table
            index = self.model.index(row, col)
            self.measured += 1
            hint = table.itemDelegateForColumn(col).sizeHint(option, index)
            height = max(height, hint.height())
        return height

    def _schedule(self, *_: object) -> None:
        self._timer.start()

    def _on_column_resized(self, column: int, _old: int, _new: int) -> None:
        if column in self.wrapped or column - 1 in self.wrapped:  # a header spans the next column
            self.forget()

    def _on_data_changed(self, top: QModelIndex, bottom: QModelIndex, *_: object) -> None:
        """The head moved (bold, a badge) or recorded marks changed a text: measure again."""
        if bottom.row() - top.row() > 64:
            self._wanted.clear()
        else:
            for row in range(top.row(), bottom.row() + 1):
                entry = self.model.entry_at(row)
                if entry is not None:
                    self._wanted.pop(entry, None)
        self._schedule()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Resize:
            self._schedule()  # taller: more rows in view
        return False
