"""The reducer-diff panel: what one superstep did to each state key."""
from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QResizeEvent, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from studio.core.explain import reducer_note
from studio.core.valuediff import diff_values
from studio.core.valuefmt import pretty
from studio.core.records import UNSET, DiffRow, StepDiff
from studio.panels._common import (
    MUTED,
    BadgeDelegate,
    BadgeRole,
    FullTextRole,
    escape,
    title_label,
    tree_with_detail,
)
from .rows import change_rows, text_item, unbox, value_row

__all__ = ["DiffPanel"]

_COLUMNS = ("Key", "Reducer", "Change")
_EXPAND_ROWS = 400
"""Keys are opened up front while the total of their detail rows stays under this."""


class DiffPanel(QWidget):
    """For the superstep just committed: per key, before ⊕ each write → after.

    Methods:
        set_diff(diff: StepDiff | None): show a step's rows (None: nothing committed yet).
    Signals: none (read-only).

    Each key row shows its reducer and a summary of the change ("+3 items", "'a' → 'b'");
    open it for the value before, each write with the node that made it (in the order the
    reducer applied them), the value after, and the items added (green), removed (red) or
    changed (amber). Keys a node returned that the schema lacks are greyed as dropped.
    Selecting a row shows its full value below.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = QStandardItemModel(0, len(_COLUMNS))
        self.model.setHorizontalHeaderLabels(list(_COLUMNS))
        self.title = title_label("Reducer diffs")
        self.placeholder = QLabel("No superstep committed yet.")
        self.placeholder.setStyleSheet(f"color: {MUTED}")
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a value's start and end; the whole on hover
        self.tree.setAlternatingRowColors(False)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree.setItemDelegateForColumn(2, BadgeDelegate(self.tree))
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(0, 120)
        header.resizeSection(1, 100)
        self.tree.selectionModel().currentChanged.connect(self._on_current_changed)
        self.detail, splitter = tree_with_detail(self.tree)  # small, folded on a short panel; drag it taller
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 0)
        self.splitter = splitter
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addWidget(self.placeholder)
        layout.addWidget(splitter, 1)
        self.reducers = QLabel("")
        self.reducers.setObjectName("reducerNotes")
        self.reducers.setWordWrap(True)
        self.reducers.setTextFormat(Qt.TextFormat.RichText)
        self.reducers.setToolTip("How each key's reducer merged this step's writes")
        self.reducers.hide()
        layout.addWidget(self.reducers)

    _diff: StepDiff | None = None
    notes: dict[str, str] = {}
    """State key -> its reducer's one-line explanation (`set_reducer_notes`)."""

    def set_reducer_notes(self, notes: dict[str, str]) -> None:
        """The reducers' one-line explanations (a custom reducer's docstring); a key without
        one is explained from its reducer's name."""
        if dict(notes) != self.notes:
            self.notes = dict(notes)
            self._show_reducers(self._diff)

    def reducer_line(self, row: DiffRow) -> str:
        return self.notes.get(row.key) or reducer_note(row.reducer)

    def set_diff(self, diff: StepDiff | None) -> None:
        self.model.removeRows(0, self.model.rowCount())
        self.detail.clear()
        self._diff = diff
        self._show_reducers(diff)
        if diff is None:
            self.title.setText("Reducer diffs")
            self.placeholder.setText("No superstep committed yet.")
            self.placeholder.show()
            return
        changed = sum(1 for r in diff.rows if not r.dropped)
        self.title.setText(f"Step {diff.step} · {changed} key{'s' if changed != 1 else ''} written")
        self.placeholder.setVisible(not diff.rows)
        self.placeholder.setText("This step wrote no keys.")
        budget = _EXPAND_ROWS
        for row in diff.rows:
            key_item = self._add_key(row)
            if key_item.rowCount() <= budget:
                budget -= key_item.rowCount()
                self.tree.expand(key_item.index())
        self._fit_columns()
        self.tree.executeDelayedItemsLayout()  # lay out now: the next paint is the only one

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if self.model.rowCount():
            self._fit_columns()

    def _fit_columns(self) -> None:
        """Room for the key names ("⊕ node" rows too) and the whole reducer names (never
        "add_mess…"), as far as the change keeps 90 pixels for its badge and summary."""
        header = self.tree.header()
        width = self.tree.viewport().width()
        wanted = [max(self.tree.sizeHintForColumn(c), header.sectionSizeHint(c)) + 8 for c in (0, 1)]
        reducer = max(60, min(wanted[1], int(width * 0.4)))
        key = max(60, min(wanted[0], int(width * 0.45), width - reducer - 90))
        header.resizeSection(0, key)
        header.resizeSection(1, reducer)

    def reducer_lines(self) -> list[str]:
        """The explanation lines under the tree, as plain text (one per key written)."""
        return [line for line in self.reducers.property("lines") or []]

    def _show_reducers(self, diff: StepDiff | None) -> None:
        rows = [r for r in diff.rows if not r.dropped] if diff is not None else []
        lines = [f"{r.key}: {self.reducer_line(r)}" for r in rows]
        self.reducers.setProperty("lines", lines)
        # keys merged the same way share one line ("n, f0, f1 · last value: …"), so the
        # notes take a line or two, not one per key, under the table
        by_note: dict[str, list[str]] = {}
        for r in rows:
            by_note.setdefault(self.reducer_line(r), []).append(r.key)
        html = "<br>".join(f"<b>{escape(', '.join(keys))}</b> · {escape(note)}" for note, keys in by_note.items())
        self.reducers.setText(html)
        self.reducers.setToolTip("How each key's reducer merged this step's writes:\n" + "\n".join(lines))
        self.reducers.setVisible(bool(rows))

    def _add_key(self, row: DiffRow):  # -> QStandardItem
        n = len(_COLUMNS)
        if row.dropped:
            key = text_item(row.key, colour=MUTED, bold=True, tooltip="dropped: not in the schema", kind="dropped")
            summary = text_item("not in the schema", colour=MUTED, kind="dropped")
            summary.setData(("dropped", "dropped"), BadgeRole)
            self.model.appendRow([key, text_item("—", colour=MUTED), summary])
            for write in row.writes:
                key.appendRow(value_row(f"⊕ {write.node}", write.value, n, label_colour=MUTED))
            return key
        change = diff_values(row.before, row.after)
        status = {"same": "same", "new": "added", "gone": "removed"}.get(change.kind, "changed")
        key = text_item(row.key, bold=True, kind=status)
        summary = text_item(change.summary, kind=status, tooltip=change.summary)
        summary.setData((status, status), BadgeRole)
        line = self.reducer_line(row)
        self.model.appendRow([key, text_item(row.reducer, colour=MUTED, tooltip=line), summary])
        if row.before is UNSET:
            key.appendRow([text_item("before", colour=MUTED), text_item(""), text_item("(no value yet)", colour=MUTED)])
        else:
            key.appendRow(value_row("before", row.before, n, label_colour=MUTED))
        for write in row.writes:
            key.appendRow(value_row(f"⊕ {write.node}", write.value, n))
        key.appendRow(value_row("→ after", row.after, n))
        for extra in change_rows(change, n):
            key.appendRow(extra)
        return key

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        data = current.siblingAtColumn(2).data(FullTextRole) if current.isValid() else None
        if data is None and current.isValid():
            data = current.siblingAtColumn(0).data(FullTextRole)
        self.detail.setPlainText("" if data is None else pretty(unbox(data)))
