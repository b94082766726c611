"""The timeline panel: every checkpoint of a thread as a tree of branches."""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import (QFont, QFontMetrics, QGuiApplication, QKeyEvent, QResizeEvent, QShowEvent)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from studio.core.records import TimelineRow
from studio.panels._common import MUTED, badge_font, title_label
from studio.panels._flow import FlowLayout
from .cells import Cell
from .heights import RowHeights
from .lanes import INDENT, StepDelegate, lane_x
from .model import ExpandedRole, IdRole, TimelineModel

__all__ = ["TimelinePanel"]

_INDENT = INDENT


class _Table(QTableView):
    """Left/Right fold and unfold a branch header; Home with older checkpoints not listed
    reads them all first."""

    def __init__(self, panel: TimelinePanel) -> None:
        super().__init__(panel)
        self.panel = panel

    def keyPressEvent(self, event: QKeyEvent) -> None:
        row = self.currentIndex().row()
        model = self.panel.model
        if event.key() == Qt.Key.Key_Home and self.panel.older_unlisted():
            self.panel.ask_older(everything=True)
            return
        if event.key() in (Qt.Key.Key_Left, Qt.Key.Key_Right) and model.is_header(row):
            expanded = bool(model.index(row, 0).data(ExpandedRole))
            if expanded == (event.key() == Qt.Key.Key_Left):
                model.toggle(row)
            return
        super().keyPressEvent(event)


_REWIND_TIP = "Make the selected checkpoint the head; the next step forks a new branch"
_FORK_TIP = "Edit the selected checkpoint's state as JSON and save it as a new branch"


class TimelinePanel(QWidget):
    """Every checkpoint of the thread as a tree: forks, replays and edits are branches.

    Methods:
        set_rows(rows: Iterable[TimelineRow]): show a thread's checkpoints (any order).
        append_rows(rows) / add_row(row): add new checkpoints (a live run); a child of a
            checkpoint that already has one opens a new branch.
        extend_rows(rows): the same thread with older checkpoints read (the rows on screen,
            the selection and the markers stay where they are).
        set_older(n): how many older checkpoints are not listed yet (0: none, -1: some).
        set_head(checkpoint_id): bold row with a "head" badge (the thread's head).
        set_current(checkpoint_id): tint the checkpoint being viewed.
        mark_recorded({checkpoint_id: nodes}): "node (rec)" where a recorded replay answered nodes.
        select(checkpoint_id): select and scroll to it (no signal is emitted).
        selected_ids() -> tuple[str, ...]: the selected checkpoints, oldest first.
        rows() -> list[TimelineRow].
    Signals:
        checkpoint_selected(str): the user picked a checkpoint (click or keyboard).
        older_requested(bool): the user scrolled to the top while older checkpoints are not
            listed (False: the next page), or pressed Home (True: all of them).
        rewind_requested(str): "Rewind here" (button, context menu).
        fork_edit_requested(str): "Edit state and fork…".
        compare_requested(str, str): two selected checkpoints (Ctrl+click), "Compare".
    Columns: step, source (input / loop / update / fork badge), nodes run, time.
    """

    checkpoint_selected = Signal(str)
    older_requested = Signal(bool)
    rewind_requested = Signal(str)
    fork_edit_requested = Signal(str)
    compare_requested = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = TimelineModel()
        self._quiet = False
        self._writable = True
        self._shape = (0, False)
        self._older = 0
        """Older checkpoints of the thread not listed yet (-1: some, how many unknown)."""
        self._asked = False
        """An older page was asked for and has not come yet."""
        self._to_top = False
        """Home asked for all of them: go to the first row when they come."""
        """(deepest branch, any subgraph rows): the column widths follow it."""

        self.table = _Table(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setItemDelegateForColumn(0, StepDelegate(self.table))
        self.table.setItemDelegateForColumn(1, Cell(self.table))
        # the nodes (and a branch header's text) wrap: a row that needs more lines is taller
        self.table.setItemDelegateForColumn(2, Cell(self.table, wrap=True))
        self.table.setItemDelegateForColumn(3, Cell(self.table))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)  # a record: nothing to edit
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._on_context_menu)
        vertical = self.table.verticalHeader()
        vertical.setVisible(False)
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultSectionSize(24)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self._size_columns()
        self.heights = RowHeights(self.table, self.model, wrapped=(2,))
        for signal in (self.model.rowsInserted, self.model.rowsRemoved, self.model.modelReset):
            signal.connect(self._on_rows_changed)
        self.table.clicked.connect(self._on_clicked)
        self.table.selectionModel().currentRowChanged.connect(self._on_current_row_changed)
        self.table.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.table.verticalScrollBar().valueChanged.connect(self._on_scrolled)

        self.title = title_label("Timeline")
        self.count = QLabel("")
        self.count.setStyleSheet(f"color: {MUTED}")
        self.rewind_button = QPushButton("Rewind")
        self.rewind_button.setToolTip(_REWIND_TIP)
        self.fork_button = QPushButton("Fork…")
        self.fork_button.setToolTip(_FORK_TIP)
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip("Select two checkpoints (Ctrl+click) to see how their states differ")
        for button in (self.rewind_button, self.fork_button, self.compare_button):
            button.setObjectName("compactButton")
        self.rewind_button.clicked.connect(self._on_rewind_clicked)
        self.fork_button.clicked.connect(self._on_fork_clicked)
        self.compare_button.clicked.connect(self._on_compare_clicked)
        bar = FlowLayout(spacing=6)  # the buttons wrap under the title when the dock is narrow (a zoom)
        bar.addWidget(self.title)
        bar.addWidget(self.count)
        for button in (self.rewind_button, self.fork_button, self.compare_button):
            bar.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(bar)
        layout.addWidget(self.table, 1)
        self._update_buttons()

    # -- data in ------------------------------------------------------------------------
    def set_rows(self, rows: Iterable[TimelineRow]) -> None:
        """Show a thread's rows (another thread: how many older ones it has follows, `set_older`)."""
        self._older, self._asked, self._to_top = 0, False, False
        self._quiet = True
        try:
            self.model.set_rows(rows)
            self._after_change()
            row = self.model.row_of(self.model.head)
            if row >= 0:
                self.table.scrollTo(self.model.index(row, 0), QAbstractItemView.ScrollHint.PositionAtCenter)
            else:
                self.table.scrollToBottom()
        finally:
            self._quiet = False

    def extend_rows(self, rows: Iterable[TimelineRow]) -> None:
        """Show `rows`, the listed ones and an older page, keeping the view where it was."""
        view = self.table
        top = self.model.checkpoint_at(view.rowAt(0))
        picked = self.selected_ids()
        self._quiet = True
        try:
            self.model.set_rows(rows)
            self._after_change()
            chosen = view.selectionModel()
            for cid in picked:
                row = self.model.row_of(cid)
                if row >= 0:
                    chosen.select(self.model.index(row, 0), QItemSelectionModel.SelectionFlag.Select
                                  | QItemSelectionModel.SelectionFlag.Rows)
            current = self.model.row_of(picked[-1] if picked else self.model.current)
            if current >= 0:
                chosen.setCurrentIndex(self.model.index(current, 0), QItemSelectionModel.SelectionFlag.NoUpdate)
            if self._to_top:
                self._to_top = False
                view.scrollToTop()
                chosen.setCurrentIndex(self.model.index(0, 0), QItemSelectionModel.SelectionFlag.NoUpdate)
            elif top is not None and self.model.row_of(top.id) >= 0:
                view.scrollTo(self.model.index(self.model.row_of(top.id), 0), QAbstractItemView.ScrollHint.PositionAtTop)
        finally:
            self._quiet = False
            self._asked = False

    def set_older(self, n: int) -> None:
        """Older checkpoints not listed yet: 0 (the whole history is), n, or -1 (some)."""
        self._older = n
        self._asked = self._asked and bool(n)
        self._after_change()

    def older_unlisted(self) -> int:
        return self._older

    def ask_older(self, everything: bool = False) -> None:
        """Ask for the next older page (`everything`: all of them), once until it comes."""
        if not self._older or (self._asked and not everything):
            return
        self._asked = True
        self._to_top = self._to_top or everything
        self.older_requested.emit(everything)

    def _on_scrolled(self, value: int) -> None:
        if self._older and not self._quiet and value <= self.table.verticalScrollBar().minimum() \
                and self.model.rowCount() and self.isVisible():
            self.ask_older()

    def append_rows(self, rows: Iterable[TimelineRow]) -> None:
        bar = self.table.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 2
        self.model.append_rows(rows)
        self._after_change()
        if at_bottom:
            self.table.scrollToBottom()
        self.heights.fit()  # the new row's height now, not one frame later

    def add_row(self, row: TimelineRow) -> None:
        self.append_rows([row])

    def set_head(self, checkpoint_id: str | None) -> None:
        self.model.set_marker("head", checkpoint_id)
        if checkpoint_id is not None:
            row = self.model.reveal(checkpoint_id)
            if row >= 0:
                self.table.scrollTo(self.model.index(row, 0))

    def mark_recorded(self, marks: Mapping[str, Iterable[str]]) -> None:
        """Show which nodes of these checkpoints a recorded replay answered from records."""
        self.model.mark_recorded(marks)

    def set_current(self, checkpoint_id: str | None) -> None:
        self.model.set_marker("current", checkpoint_id)

    def select(self, checkpoint_id: str) -> None:
        row = self.model.reveal(checkpoint_id)
        if row < 0:
            return
        self._quiet = True
        try:
            index = self.model.index(row, 0)
            chosen = self.table.selectionModel()
            # a row the user added to the selection (Ctrl/Shift+click) keeps the others
            # selected: two chosen checkpoints are what Compare needs
            flags = (QItemSelectionModel.SelectionFlag.NoUpdate if chosen.isRowSelected(row, QModelIndex())
                     else QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
            chosen.setCurrentIndex(index, flags)
            self.table.scrollTo(index)
        finally:
            self._quiet = False

    def selected_ids(self) -> tuple[str, ...]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return tuple(cp.id for cp in (self.model.checkpoint_at(r) for r in rows) if cp is not None)

    def rows(self) -> list[TimelineRow]:
        return self.model.rows()

    def _size_columns(self) -> None:
        """Step as wide as its numbers and the branches' indentation, source and time as
        their contents; the nodes take the rest. Again when the font or the depth changes."""
        header = self.table.horizontalHeader()
        cell = self.table.fontMetrics()
        bold = QFont(self.table.font())
        bold.setBold(True)
        title = QFontMetrics(bold)
        pad = 16
        depth = self.model.max_depth()
        step = max(title.horizontalAdvance("Step"), cell.horizontalAdvance("9999")) + pad
        step += lane_x(depth) + 9 if depth else 4  # the branch lines' lanes
        header.resizeSection(0, step)
        # the widest source badge ("subgraph" only when there are such rows) and its margins:
        # what is left goes to the nodes
        _small, badge = badge_font(self.table.font())
        widest = badge.horizontalAdvance("subgraph" if self.model.has_subgraphs() else "update")
        header.resizeSection(1, max(title.horizontalAdvance("Source") + pad, widest + 22))
        self._time_width = title.horizontalAdvance("00:00:00") + pad  # the head's row is bold
        header.resizeSection(3, self._time_width)
        self._fit_time_column()

    def _fit_time_column(self) -> None:
        """The Time column gives way on a narrow (zoomed) panel, so the nodes keep about a
        dozen characters a line instead of wrapping a few letters to a line."""
        header = self.table.horizontalHeader()
        others = header.sectionSize(0) + header.sectionSize(1) + getattr(self, "_time_width", 0)
        room = self.table.viewport().width() - others
        hide = room < self.table.fontMetrics().horizontalAdvance("search_web, s")
        if hide != self.table.isColumnHidden(3):
            self.table.setColumnHidden(3, hide)
            if hasattr(self, "heights"):
                self.heights.forget()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._fit_time_column()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._size_columns()
            if hasattr(self, "heights"):
                self.heights.forget()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        self._size_columns()

    # -- handlers -------------------------------------------------------------------------
    def _after_change(self) -> None:
        shape = (self.model.max_depth(), self.model.has_subgraphs())
        if shape != self._shape:
            self._shape = shape
            self._size_columns()
        n = len(self.model.rows())
        text = f"{n:,} checkpoint" + ("" if n == 1 else "s")
        if self._older:
            more = f"{self._older:,} older" if self._older > 0 else "older ones"
            text += f" · {more} not listed: scroll up or press Home"
        self.count.setText(text)
        self._update_buttons()

    def _on_rows_changed(self, *_: object) -> None:
        """A branch header's text runs over the nodes and time columns (it says more than a row)."""
        self.table.clearSpans()
        for row in self.model.header_rows():
            self.table.setSpan(row, 2, 1, 2)

    def _current_id(self) -> str | None:
        """The current row's checkpoint when it can be rewound to or forked (not a subgraph's)."""
        cp = self.model.checkpoint_at(self.table.currentIndex().row())
        return cp.id if cp is not None and not cp.namespace else None

    def set_writable(self, writable: bool) -> None:
        """False for a read-only history (post-mortem, a read-only store): no Rewind, no Fork."""
        if writable != self._writable:
            self._writable = writable
            why = "" if writable else " (read-only: nothing can run from here)"
            self.rewind_button.setToolTip(_REWIND_TIP + why)
            self.fork_button.setToolTip(_FORK_TIP + why)
            self._update_buttons()

    def _update_buttons(self) -> None:
        has = self._current_id() is not None and self._writable
        self.rewind_button.setEnabled(has)
        self.fork_button.setEnabled(has)
        self.compare_button.setEnabled(len(self.selected_ids()) == 2)

    def _on_clicked(self, index: QModelIndex) -> None:
        if self.model.is_header(index.row()):
            self.model.toggle(index.row())

    def _on_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._update_buttons()
        cid = current.data(IdRole) if current.isValid() else None
        if cid and not self._quiet:
            self.checkpoint_selected.emit(cid)

    def _on_selection_changed(self, *_: object) -> None:
        self._update_buttons()

    def _on_rewind_clicked(self) -> None:
        cid = self._current_id()
        if cid:
            self.rewind_requested.emit(cid)

    def _on_fork_clicked(self) -> None:
        cid = self._current_id()
        if cid:
            self.fork_edit_requested.emit(cid)

    def _on_compare_clicked(self) -> None:
        picked = self.selected_ids()
        if len(picked) == 2:
            self.compare_requested.emit(picked[0], picked[1])

    def _on_context_menu(self, pos: QPoint) -> None:
        cp = self.model.checkpoint_at(self.table.indexAt(pos).row())
        if cp is None or cp.namespace:  # a subgraph's checkpoint is read-only
            return
        menu = QMenu(self)
        menu.addAction("Rewind here", lambda: self.rewind_requested.emit(cp.id)).setEnabled(self._writable)
        menu.addAction("Edit state and fork…", lambda: self.fork_edit_requested.emit(cp.id)).setEnabled(self._writable)
        menu.addSeparator()
        head = self.model.head
        compare_head = menu.addAction("Compare with head", lambda: self.compare_requested.emit(cp.id, head or ""))
        compare_head.setEnabled(bool(head) and head != cp.id)
        picked = self.selected_ids()
        both = menu.addAction("Compare the two selected", lambda: self.compare_requested.emit(*picked[:2]))
        both.setEnabled(len(picked) == 2)
        menu.addSeparator()
        menu.addAction("Copy checkpoint id", lambda: QGuiApplication.clipboard().setText(cp.id))
        menu.exec(self.table.viewport().mapToGlobal(pos))

