"""The lazy item model behind the state panel.

A row is created only when the view asks for it, and a container's children only when it
is expanded, so a state with 10,000 messages costs a handful of rows to show. Containers
with more than `CHUNK_AT` children are split into index ranges ("[0…99]", "[100…199]"…)
the way debuggers page big arrays. A search keeps matching rows and their ancestors; a
row whose key or value matches keeps its whole subtree.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from studio.core.safe import total
from studio.core.valuefmt import (
    as_message,
    children_of,
    has_children,
    is_message,
    is_message_list,
    preview,
    role_kind,
    search_text,
    type_label,
)
from studio.panels._common import MUTED, BadgeRole, FullTextRole, KindRole

__all__ = ["StateModel", "CHUNK_AT", "SEARCH_BUDGET"]

CHUNK_AT = 200
"""Containers with more children than this are shown as index ranges."""
SEARCH_BUDGET = 300_000
"""At most this many values are looked at per search (the rest is reported as skipped)."""

_COLUMNS = ("Key", "Value", "Type")
_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_DISPLAY = Qt.ItemDataRole.DisplayRole
_TOOLTIP = Qt.ItemDataRole.ToolTipRole
_FOREGROUND = Qt.ItemDataRole.ForegroundRole
_GREY = QColor(MUTED)
_TOOLTIP_CHARS = 4_000
Index = QModelIndex | QPersistentModelIndex


def _chunk_size(n: int) -> int:
    size = 100
    while math.ceil(n / size) > CHUNK_AT:
        size *= 10
    return size


class _Row:
    """One tree row; its children are built on first use and cached."""

    __slots__ = ("label", "value", "parent", "row", "filt", "chunk", "_entries", "_lo", "_hi", "_rows",
                 "_kids", "_count")

    def __init__(self, label: str, value: Any, parent: _Row | None, row: int, *, filt: Any = None,
                 chunk: tuple[Sequence[tuple[str, Any]], int, int] | None = None) -> None:
        self.label = label
        self.value = value
        self.parent = parent
        self.row = row
        self.filt = filt
        """None: every child; a dict {entry index: sub-filter or True}: only those."""
        self.chunk = chunk is not None
        self._entries, self._lo, self._hi = chunk if chunk is not None else (None, 0, 0)
        self._rows: list[int] | None = None
        self._kids: dict[int, _Row] = {}
        self._count: int | None = None

    def entries(self) -> Sequence[tuple[str, Any]]:
        if self._entries is None:
            self._entries = children_of(self.value) if has_children(self.value) else ()
            self._lo, self._hi = 0, len(self._entries)
        return self._entries

    def expandable(self) -> bool:
        if self.filt is not None:
            return bool(self.filt)
        return self.chunk or has_children(self.value)

    def count(self) -> int:
        if self._count is None:
            entries = self.entries()
            if isinstance(self.filt, dict):
                self._rows = sorted(self.filt)
                self._count = len(self._rows)
            else:
                n = self._hi - self._lo
                self._count = math.ceil(n / _chunk_size(n)) if n > CHUNK_AT else n
            del entries  # built for its side effect (the range of a plain row)
        return self._count

    def child(self, row: int) -> _Row:
        kid = self._kids.get(row)
        if kid is not None:
            return kid
        entries = self.entries()
        n = self.count()
        if self._rows is not None:
            i = self._rows[row]
            label, value = entries[i]
            sub = self.filt[i]
            kid = _Row(label, value, self, row, filt=None if sub is True else sub)
        elif self._hi - self._lo > CHUNK_AT:
            size = _chunk_size(self._hi - self._lo)
            a = self._lo + row * size
            b = min(self._hi, a + size)
            last = "…last" if row == n - 1 else ""
            kid = _Row(f"[{a}…{b - 1}]", _ChunkValue(entries, a, b, last), self, row, chunk=(entries, a, b))
        else:
            label, value = entries[self._lo + row]
            kid = _Row(label, value, self, row)
        self._kids[row] = kid
        return kid

    def find(self, label: str) -> _Row | None:
        """The child with `label` (a chunk saved as "…last" finds the current last chunk)."""
        n = self.count()
        if label == "…last":
            kid = self.child(n - 1) if n else None
            return kid if kid is not None and kid.chunk else None
        if self._rows is None and self._hi - self._lo <= CHUNK_AT and label.startswith("[") \
                and label[1:-1].isdigit() and isinstance(self.value, (list, tuple)):
            i = int(label[1:-1]) - self._lo
            return self.child(i) if 0 <= i < n else None
        for row in range(min(n, 1_000)):
            if self.child(row).label == label:
                return self.child(row)
        return None

    def path(self) -> tuple[str, ...]:
        out = []
        node: _Row | None = self
        while node is not None and node.parent is not None:
            out.append(node.save_label())
            node = node.parent
        return tuple(reversed(out))

    def save_label(self) -> str:
        if self.chunk and isinstance(self.value, _ChunkValue) and self.value.last:
            return "…last"
        return self.label


class _ChunkValue:
    """What a range row stands for: a slice of its parent's children."""

    __slots__ = ("entries", "lo", "hi", "last")

    def __init__(self, entries: Sequence[tuple[str, Any]], lo: int, hi: int, last: str) -> None:
        self.entries, self.lo, self.hi, self.last = entries, lo, hi, last

    def values(self) -> list[Any]:
        return [self.entries[i][1] for i in range(self.lo, self.hi)]


class StateModel(QAbstractItemModel):
    """Key / value preview / type of a state mapping, built lazily (see module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._values: Mapping[str, Any] = {}
        self._notes: Mapping[str, str] = {}
        self._root = _Row("", {}, None, 0)
        self._query = ""
        self.matches = 0
        self.skipped = False

    # -- data in -----------------------------------------------------------------------
    def set_values(self, values: Mapping[str, Any], notes: Mapping[str, str] | None = None) -> None:
        """`notes`: a word on some top-level keys (a key "not checkpointed"), shown with its type."""
        self.beginResetModel()
        self._values = values
        self._notes = notes or {}
        self._root = self._make_root()
        self.endResetModel()

    def set_query(self, query: str) -> None:
        self.beginResetModel()
        self._query = query.strip().lower()
        self._root = self._make_root()
        self.endResetModel()

    def values(self) -> Mapping[str, Any]:
        return self._values

    def query(self) -> str:
        return self._query

    def _make_root(self) -> _Row:
        self.matches, self.skipped = 0, False
        if not self._query:
            return _Row("", dict(self._values), None, 0)
        budget = [SEARCH_BUDGET]
        filt = self._search(dict(self._values), budget, 0)
        self.skipped = budget[0] <= 0
        return _Row("", dict(self._values), None, 0, filt=filt or {})

    def _search(self, value: Any, budget: list[int], depth: int) -> dict[int, Any] | None:
        """{child index: True (it matches) or a sub-filter} for the children that match."""
        if depth > 30 or not has_children(value):
            return None
        kept: dict[int, Any] = {}
        q = self._query
        entries = children_of(value)
        for i in range(len(entries)):
            if budget[0] <= 0:
                break
            budget[0] -= 1
            label, child = entries[i]
            text = search_text(child)
            if q in label.lower() or (text is not None and q in text.lower()):
                kept[i] = True
                self.matches += 1
                continue
            sub = self._search(child, budget, depth + 1) if text is None else None
            if sub:
                kept[i] = sub
        return kept or None

    # -- navigation --------------------------------------------------------------------
    def row_of(self, index: Index) -> _Row:
        return index.internalPointer() if index.isValid() else self._root

    def index_of(self, row: _Row, column: int = 0) -> QModelIndex:
        return QModelIndex() if row.parent is None else self.createIndex(row.row, column, row)

    def find_path(self, path: Sequence[str]) -> QModelIndex:
        """The index at a path of row labels (from `path_of`), or an invalid index."""
        node = self._root
        for label in path:
            found = node.find(label)
            if found is None:
                return QModelIndex()
            node = found
        return self.index_of(node)

    def path_of(self, index: Index) -> tuple[str, ...]:
        return self.row_of(index).path()

    # -- QAbstractItemModel --------------------------------------------------------------
    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:
        node = self.row_of(parent)
        if row < 0 or column < 0 or column >= len(_COLUMNS) or row >= node.count():
            return QModelIndex()
        return self.createIndex(row, column, node.child(row))

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        up = index.internalPointer().parent
        if up is None or up.parent is None:
            return QModelIndex()
        return self.createIndex(up.row, 0, up)

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        if parent.column() > 0:
            return 0
        return self.row_of(parent).count()

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return len(_COLUMNS)

    def hasChildren(self, parent: Index = QModelIndex()) -> bool:
        if parent.column() > 0:
            return False
        return self.row_of(parent).expandable() if parent.isValid() else self._root.count() > 0

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _COLUMNS[section]
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        return _FLAGS

    @total(None)
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node: _Row = index.internalPointer()
        col = index.column()
        value = node.value
        if role == _DISPLAY:
            return self._display(node, col)
        if role == BadgeRole and col == 1 and not node.chunk and is_message(value):
            m = as_message(value)
            return m.role, role_kind(m.role)
        if role == _TOOLTIP:
            return self._tooltip(node, col)
        if role == _FOREGROUND and (col == 2 or node.chunk):
            return _GREY
        if role == FullTextRole:
            return value
        if role == KindRole:
            if node.chunk:
                return "chunk"
            return "messages" if is_message_list(value) else "message" if is_message(value) else "value"
        return None

    def _display(self, node: _Row, col: int) -> str:
        """A row's text: its key, its value's preview, its type (and note); a chunk of a
        long list says how many items it holds and where it starts."""
        if col == 0:
            return node.label
        value = node.value
        if node.chunk:
            n = value.hi - value.lo
            if col == 2:
                return f"{n:,} item" + ("" if n == 1 else "s")
            return f"from {preview(value.entries[value.lo][1], 100)}"
        if col == 1:
            return preview(value, 160)
        note = self._notes.get(node.label) if node.parent is self._root else None
        return f"{type_label(value)} · {note}" if note else type_label(value)

    def _tooltip(self, node: _Row, col: int) -> str | None:
        """A key's note (type column), or a value's longer text (value column)."""
        if col == 2 and node.parent is self._root and node.label in self._notes:
            return f"`{node.label}`: {self._notes[node.label]}"
        if col == 1 and not node.chunk:
            value = node.value
            if isinstance(value, str):
                return value[:_TOOLTIP_CHARS] + ("…" if len(value) > _TOOLTIP_CHARS else "")
            return preview(value, 400)
        return None
