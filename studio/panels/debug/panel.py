"""The Debug panel: watches, conditional breakpoints, field history and history search.

Four tabs of one dock. Like every panel it shows records the window hands it and emits
intents; it evaluates nothing and reads no checkpoint (studio/window/debugging.py does).

Methods:
    set_nodes(names): the graph's nodes, for "only when this node writes it".
    set_watches(expressions, rows): the watch table, one row per checkpoint of the branch.
    set_conditions(descriptions): the conditional breakpoints, in order.
    set_changes(path, rows): field history.
    set_hits(rows, note) / add_hits(rows) / set_search_status(note, running, more): search
        results, replaced or appended as a running search finds them, and its progress.
    show_error(tab, text): a red line under that tab's input ("" clears it).
    set_current(checkpoint_id): tint the viewed checkpoint in every list.
Signals:
    watch_added(str), watch_removed(int), condition_added(kind, text, node, when),
    condition_removed(int), field_requested(str), search_requested(query, mode, scope)
    (scope "all" threads or "thread"), search_continued(), search_cancelled(),
    checkpoint_picked(str): a row was clicked (jump there); hit_picked(row): a search
    result was clicked (it may be in another thread).
Rows are (checkpoint id, cell texts, tooltip).
"""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from .rows import IdRole, TextRows

__all__ = ["DebugPanel"]

Row = tuple[str, Sequence[str], str]


def _table(model: TextRows, parent: QWidget) -> QTableView:
    view = QTableView(parent)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.verticalHeader().setVisible(False)
    view.horizontalHeader().setStretchLastSection(True)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return view


def _fit_columns(view: QTableView, widest: int = 280) -> None:
    """Columns as wide as their header and values, none wider than `widest` pixels."""
    view.resizeColumnsToContents()
    header = view.horizontalHeader()
    for col in range(header.count()):
        if header.sectionSize(col) > widest:
            header.resizeSection(col, widest)


def _compact(*boxes: QComboBox) -> None:
    """Combo boxes that may shrink (the dock shares the bottom row at 1280x720)."""
    for box in boxes:
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        box.setMinimumContentsLength(10)


def _error_label(parent: QWidget, name: str) -> QLabel:
    label = QLabel(parent, objectName=name)
    label.setStyleSheet("color: #b91c1c;")
    label.setWordWrap(True)
    label.hide()
    return label


class DebugPanel(QWidget):
    """Watches · Breakpoints · Field history · Search (see the module docstring)."""

    watch_added = Signal(str)
    watch_removed = Signal(int)
    condition_added = Signal(str, str, str, str)
    condition_removed = Signal(int)
    field_requested = Signal(str)
    search_requested = Signal(str, str, str)
    search_continued = Signal()
    search_cancelled = Signal()
    hit_picked = Signal(int)
    checkpoint_picked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tabs = QTabWidget(self, objectName="debugTabs")
        # every tab's title in view in a narrow dock: shortened a little rather than scrolled away
        self.tabs.setElideMode(Qt.TextElideMode.ElideRight)
        self.tabs.setUsesScrollButtons(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self.errors: dict[str, QLabel] = {}
        self._build_watches()
        self._build_breakpoints()
        self._build_history()
        self._build_search()
        # an explicit minimum below the tabs' own: the dock shares the bottom row with the
        # timeline and events, and must not widen the window (it fits an 800-pixel screen)
        # nor squeeze the graph or the side docks
        self.setMinimumSize(100, 120)

    # -- construction ------------------------------------------------------------------
    def _tab(self, title: str, key: str) -> tuple[QWidget, QVBoxLayout]:
        page = QWidget(self)
        column = QVBoxLayout(page)
        column.setContentsMargins(4, 4, 4, 4)
        self.tabs.addTab(page, title)
        self.errors[key] = _error_label(page, f"{key}Error")
        return page, column

    def _pickable(self, model: TextRows, page: QWidget) -> QTableView:
        view = _table(model, page)
        view.clicked.connect(self._on_row_clicked)
        view.activated.connect(self._on_row_clicked)
        return view

    def _build_watches(self) -> None:
        page, column = self._tab("Watches", "watch")
        row = QHBoxLayout()
        self.watch_edit = QLineEdit(page, objectName="watchEdit")
        self.watch_edit.setPlaceholderText("an expression over the state, e.g. len(messages) or route == 'search'")
        self.watch_edit.returnPressed.connect(self._on_add_watch)
        add = QPushButton("Add watch", page, objectName="addWatch")
        add.clicked.connect(self._on_add_watch)
        self.remove_watch = QPushButton("Remove last", page, objectName="removeWatch")
        self.remove_watch.clicked.connect(lambda: self.watch_removed.emit(-1))
        row.addWidget(self.watch_edit, 1)
        row.addWidget(add)
        row.addWidget(self.remove_watch)
        column.addLayout(row)
        column.addWidget(self.errors["watch"])
        self.watch_model = TextRows(["step", "ran"])
        self.watch_view = self._pickable(self.watch_model, page)
        column.addWidget(self.watch_view, 1)

    def _build_breakpoints(self) -> None:
        page, column = self._tab("Breakpoints", "condition")
        row = QHBoxLayout()
        self.condition_kind = QComboBox(page, objectName="conditionKind")
        self.condition_kind.addItem("when true", "expression")
        self.condition_kind.addItem("on change", "change")
        self.condition_edit = QLineEdit(page, objectName="conditionEdit")
        self.condition_edit.setPlaceholderText("len(messages) > 4   ·   or a key/path: plan.steps")
        self.condition_edit.returnPressed.connect(self._on_add_condition)
        self.condition_node = QComboBox(page, objectName="conditionNode")
        self.condition_node.addItem("any node", "")
        self.condition_when = QComboBox(page, objectName="conditionWhen")
        self.condition_when.addItem("after step", "after")
        self.condition_when.addItem("before step", "before")
        add = QPushButton("Add", page, objectName="addCondition")
        add.clicked.connect(self._on_add_condition)
        _compact(self.condition_kind, self.condition_node, self.condition_when)
        row.addWidget(self.condition_kind)
        row.addWidget(self.condition_edit, 1)
        column.addLayout(row)
        second = QHBoxLayout()
        second.addWidget(QLabel("stop", page))
        second.addWidget(self.condition_node)
        second.addWidget(self.condition_when)
        second.addStretch(1)
        second.addWidget(add)
        column.addLayout(second)
        column.addWidget(self.errors["condition"])
        self.condition_list = QListWidget(page, objectName="conditionList")
        column.addWidget(self.condition_list, 1)
        remove = QPushButton("Remove selected", page, objectName="removeCondition")
        remove.clicked.connect(self._on_remove_condition)
        column.addWidget(remove)
        hint = QLabel("Continue (F5) stops where a condition becomes true or the value changes.", page)
        hint.setStyleSheet("color: #52606d;")
        hint.setWordWrap(True)
        column.addWidget(hint)

    def _build_history(self) -> None:
        page, column = self._tab("Field history", "field")
        row = QHBoxLayout()
        self.field_edit = QLineEdit(page, objectName="fieldEdit")
        self.field_edit.setPlaceholderText("a key or path: messages[3].content, plan.steps, route")
        self.field_edit.returnPressed.connect(self._on_field)
        ask = QPushButton("Who changed this?", page, objectName="askField")
        ask.clicked.connect(self._on_field)
        row.addWidget(self.field_edit, 1)
        row.addWidget(ask)
        column.addLayout(row)
        column.addWidget(self.errors["field"])
        self.field_title = QLabel("", page, objectName="fieldTitle")
        column.addWidget(self.field_title)
        self.field_model = TextRows(["step", "source", "written by", "before", "after"])
        self.field_view = self._pickable(self.field_model, page)
        column.addWidget(self.field_view, 1)

    def _build_search(self) -> None:
        page, column = self._tab("Search", "search")
        row = QHBoxLayout()
        self.search_mode = QComboBox(page, objectName="searchMode")
        self.search_mode.addItem("text", "text")
        self.search_mode.addItem("expression", "expression")
        self.search_scope = QComboBox(page, objectName="searchScope")
        self.search_scope.addItem("all threads", "all")
        self.search_scope.addItem("this thread", "thread")
        self.search_edit = QLineEdit(page, objectName="searchEdit")
        self.search_edit.setPlaceholderText("text in the state, or an expression: every branch is searched")
        self.search_edit.returnPressed.connect(self._on_search)
        go = QPushButton("Search", page, objectName="runSearch")
        go.clicked.connect(self._on_search)
        _compact(self.search_mode, self.search_scope)
        # the query has the first row to itself (with the two boxes beside it, a dock a
        # quarter of a 1280-pixel window wide left it a few characters); mode and scope
        # have the row under it
        row.addWidget(self.search_edit, 1)
        row.addWidget(go)
        column.addLayout(row)
        column.addWidget(self.errors["search"])
        options = QHBoxLayout()
        self.search_note = QLabel("", page, objectName="searchNote")
        self.search_note.setWordWrap(True)
        self.search_note.hide()  # shown with a search's progress: no empty line before
        self.search_more = QPushButton("Continue", page, objectName="searchMore")
        self.search_more.setToolTip("Search on for the next matches")
        self.search_more.clicked.connect(self.search_continued.emit)
        self.search_stop = QPushButton("Cancel", page, objectName="searchStop")
        self.search_stop.clicked.connect(self.search_cancelled.emit)
        self.search_more.hide()
        self.search_stop.hide()
        options.addWidget(self.search_mode)
        options.addWidget(self.search_scope)
        options.addStretch(1)
        options.addWidget(self.search_more)
        options.addWidget(self.search_stop)
        column.addLayout(options)
        column.addWidget(self.search_note)
        self.search_model = TextRows(["thread", "step", "source", "ran", "match"])
        self.search_view = _table(self.search_model, page)
        self.search_view.clicked.connect(self._on_hit_clicked)
        self.search_view.activated.connect(self._on_hit_clicked)
        column.addWidget(self.search_view, 1)

    # -- intents -----------------------------------------------------------------------
    def _on_add_watch(self) -> None:
        text = self.watch_edit.text().strip()
        if text:
            self.watch_added.emit(text)

    def _on_add_condition(self) -> None:
        self.condition_added.emit(str(self.condition_kind.currentData()), self.condition_edit.text().strip(),
                                  str(self.condition_node.currentData()), str(self.condition_when.currentData()))

    def _on_remove_condition(self) -> None:
        row = self.condition_list.currentRow()
        if row >= 0:
            self.condition_removed.emit(row)

    def _on_field(self) -> None:
        self.field_requested.emit(self.field_edit.text().strip())

    def _on_search(self) -> None:
        self.search_requested.emit(self.search_edit.text().strip(), str(self.search_mode.currentData()),
                                   str(self.search_scope.currentData()))

    def _on_hit_clicked(self, index: QModelIndex) -> None:
        if index.isValid():
            self.hit_picked.emit(index.row())

    def _on_row_clicked(self, index: QModelIndex) -> None:
        cid = index.data(IdRole)
        if cid:
            self.checkpoint_picked.emit(str(cid))

    # -- what the window shows -----------------------------------------------------------
    def set_nodes(self, names: Sequence[str]) -> None:
        keep = self.condition_node.currentData()
        self.condition_node.clear()
        self.condition_node.addItem("any node", "")
        for name in names:
            self.condition_node.addItem(f"node {name}", name)
        at = self.condition_node.findData(keep)
        self.condition_node.setCurrentIndex(max(at, 0))

    def set_watches(self, expressions: Sequence[str], rows: Sequence[Row]) -> None:
        self.watch_model.set_rows(["step", "ran", *expressions], rows)
        _fit_columns(self.watch_view)
        self.remove_watch.setEnabled(bool(expressions))
        if expressions:
            self.watch_edit.clear()

    def set_conditions(self, descriptions: Sequence[str]) -> None:
        self.condition_list.clear()
        self.condition_list.addItems(list(descriptions))
        if descriptions:
            self.condition_edit.clear()

    def set_changes(self, title: str, rows: Sequence[Row]) -> None:
        self.field_title.setText(title)
        self.field_model.set_rows(self.field_model.columns, rows)
        _fit_columns(self.field_view, widest=200)

    def set_hits(self, rows: Sequence[Row], note: str) -> None:
        self.search_note.setText(note)
        self.search_note.setVisible(bool(note))
        self.search_model.set_rows(self.search_model.columns, rows)
        _fit_columns(self.search_view, widest=200)

    def add_hits(self, rows: Sequence[Row]) -> None:
        """Append matches as a running search finds them."""
        first = not self.search_model.cells
        self.search_model.append_rows(rows)
        if first and rows:
            _fit_columns(self.search_view, widest=200)

    def set_search_status(self, note: str, *, running: bool, more: bool) -> None:
        """The progress line; Cancel while a search runs, Continue when it paused with more to search."""
        self.search_note.setText(note)
        self.search_note.setVisible(bool(note))
        self.search_stop.setVisible(running)
        self.search_more.setVisible(more and not running)

    def show_error(self, tab: str, text: str) -> None:
        label = self.errors[tab]
        label.setText(text)
        label.setVisible(bool(text))

    def set_current(self, checkpoint_id: str | None) -> None:
        for model in (self.watch_model, self.field_model, self.search_model):
            model.set_current(checkpoint_id)
