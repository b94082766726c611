"""Two states side by side: which keys were added, removed or changed, and how."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from studio.core.valuediff import KeyChange, diff_mappings
from studio.core.valuefmt import pretty, preview
from studio.panels._common import MUTED, BadgeDelegate, BadgeRole, FullTextRole, title_label, tree_with_detail
from .rows import change_rows, text_item, unbox, value_row

__all__ = ["CompareView", "CompareDialog"]

_COLUMNS = ("Key", "Status", "Difference")


class CompareView(QWidget):
    """The difference between two states, key by key.

    Methods:
        set_states(a, b, label_a="A", label_b="B"): compare two mappings.
        changes() -> list[KeyChange]: what is shown (from `studio.core.valuediff`).
    A "Show unchanged keys" box lists the keys that are the same too.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._changes: list[KeyChange] = []
        self._labels = ("A", "B")
        self.model = QStandardItemModel(0, len(_COLUMNS))
        self.model.setHorizontalHeaderLabels(list(_COLUMNS))
        self.title = title_label("Compare")
        self.show_same = QCheckBox("Show unchanged keys")
        self.show_same.toggled.connect(self._on_show_same_toggled)
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        badges = BadgeDelegate(self.tree)
        self.tree.setItemDelegateForColumn(1, badges)
        self.tree.setItemDelegateForColumn(2, badges)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(0, 160)
        header.resizeSection(1, 90)
        self.tree.selectionModel().currentChanged.connect(self._on_current_changed)
        self.detail, splitter = tree_with_detail(self.tree)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 1)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.show_same)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(splitter, 1)

    def set_states(self, a: Mapping[str, Any], b: Mapping[str, Any], label_a: str = "A", label_b: str = "B") -> None:
        self._labels = (label_a, label_b)
        self._changes = diff_mappings(a, b)
        n = sum(1 for c in self._changes if c.status != "same")
        count = f"{n} key differs" if n == 1 else f"{n} keys differ"
        if len(label_a) + len(label_b) <= 40:
            self.title.setText(f"{label_a} → {label_b} · {count}")
        else:  # whole descriptions: one line per side, never cut
            self.title.setText(f"A: {label_a}\nB: {label_b}\n{count}")
        self.title.setWordWrap(True)
        self._fill()

    def changes(self) -> list[KeyChange]:
        return list(self._changes)

    def _fill(self) -> None:
        self.model.removeRows(0, self.model.rowCount())
        n = len(_COLUMNS)
        label_a, label_b = self._labels
        for kc in self._changes:
            if kc.status == "same" and not self.show_same.isChecked():
                continue
            c = kc.change
            colour = MUTED if kc.status == "same" else None
            key = text_item(kc.key, bold=kc.status != "same", colour=colour, kind=kc.status)
            status = text_item(kc.status, kind=kc.status)
            status.setData("", Qt.ItemDataRole.DisplayRole)
            status.setData((kc.status, kc.status), BadgeRole)
            what = text_item(c.summary if kc.status != "same" else preview(c.before, 120), colour=colour,
                             tooltip=c.summary)
            self.model.appendRow([key, status, what])
            if kc.status in ("changed", "removed"):
                key.appendRow(value_row(label_a, c.before, n, label_colour=MUTED))
            if kc.status in ("changed", "added"):
                key.appendRow(value_row(label_b, c.after, n, label_colour=MUTED))
            for extra in change_rows(c, n):
                key.appendRow(extra)
            if kc.status == "changed" and key.rowCount() <= 12:
                self.tree.expand(key.index())

    def _on_show_same_toggled(self, _checked: bool) -> None:
        self._fill()

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        data = current.siblingAtColumn(2).data(FullTextRole) if current.isValid() else None
        if data is None and current.isValid():
            data = current.siblingAtColumn(0).data(FullTextRole)
        self.detail.setPlainText("" if data is None else pretty(unbox(data)))


class CompareDialog(QDialog):
    """A window around a `CompareView`.

    `CompareDialog(parent)` then `set_states(a, b, label_a, label_b)`; or
    `CompareDialog.for_record(record, parent)` with any object that has `left_values`,
    `right_values`, `left_id` and `right_id` (the session's compare record).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compare checkpoints")
        self.resize(760, 560)
        self.view = CompareView(self)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view, 1)
        layout.addWidget(buttons)

    def set_states(self, a: Mapping[str, Any], b: Mapping[str, Any], label_a: str = "A", label_b: str = "B") -> None:
        self.view.set_states(a, b, label_a, label_b)

    @classmethod
    def for_record(cls, record: Any, parent: QWidget | None = None) -> CompareDialog:
        dialog = cls(parent)
        left = getattr(record, "left_label", "") or _short(str(record.left_id))
        right = getattr(record, "right_label", "") or _short(str(record.right_id))
        dialog.set_states(record.left_values, record.right_values, left, right)
        dialog.setWindowTitle(f"Compare: {left}  →  {right}")
        return dialog


def _short(checkpoint_id: str) -> str:
    return checkpoint_id if len(checkpoint_id) <= 12 else f"…{checkpoint_id[-8:]}"
