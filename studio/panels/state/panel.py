"""The state panel: the values of one checkpoint as a lazy, searchable tree."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QTextBrowser,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from studio.core.valuefmt import as_message, is_message, pretty, role_kind
from studio.panels._common import (
    BADGE_COLOURS,
    MUTED,
    BadgeDelegate,
    DetailSplitter,
    FullTextRole,
    KindRole,
    escape,
    mono_font,
    title_label,
)
from .model import StateModel

__all__ = ["StatePanel", "conversation_html"]

_CONVERSATION_TAIL = 200
"""The detail pane renders at most this many messages (the latest)."""
_MAX_EXPANDED = 300


def conversation_html(messages: Sequence[Any], total: int | None = None) -> str:
    """Messages as a readable chat: a role badge, the content, the tool calls."""
    total = len(messages) if total is None else total
    parts = ['<table width="100%" cellspacing="0" cellpadding="4">']
    if total > len(messages):
        parts.append(f'<tr><td colspan="2" style="color:{MUTED}">… {total - len(messages):,} earlier messages '
                     f'not shown</td></tr>')
    for item in messages:
        if not is_message(item):
            parts.append(f'<tr><td></td><td style="color:{MUTED}">{escape(repr(item)[:500])}</td></tr>')
            continue
        m = as_message(item)
        bg, fg = BADGE_COLOURS[role_kind(m.role)]
        meta = " · ".join(x for x in (m.name, f"answers {m.tool_call_id}" if m.tool_call_id else "") if x)
        meta_html = f'<div style="color:{MUTED}">{escape(meta)}</div>' if meta else ""
        body = (f'<div style="white-space:pre-wrap">{escape(m.content)}</div>' if m.content
                else ("" if m.tool_calls else f'<div style="color:{MUTED}">(no text)</div>'))
        calls = "".join(
            f'<div style="font-family:monospace; color:#b45309">⚒ {escape(name)}({escape(_args(args))})</div>'
            for name, args in m.tool_calls
        )
        parts.append(
            f'<tr><td width="64" align="right" valign="top"><span style="background-color:{bg}; color:{fg}; '
            f'font-weight:bold">&nbsp;{escape(m.role)}&nbsp;</span></td>'
            f'<td valign="top" style="border-bottom:1px solid #e4e7eb">{meta_html}{body}{calls}</td></tr>'
        )
    parts.append("</table>")
    return "".join(parts)


def _args(args: Any) -> str:
    if isinstance(args, Mapping):
        return ", ".join(f"{k}={v!r}" for k, v in args.items())[:300]
    return repr(args)[:300]


class StatePanel(QWidget):
    """The current state as a lazy tree: key, value preview and type, with a search box.

    Methods:
        set_state(values, *, title="", read_only=True): show `values` (a mapping). Expanded
            rows and the selection survive a refresh. With read_only=False the
            "Fork…" (edit state and fork) button is enabled.
        clear(): show nothing.
        set_search(text): filter rows now (the search box does it as you type).
    Signals:
        edit_requested(): the "Fork…" (edit state and fork) button was pressed.

    Long strings show their first line (full text in the tooltip and the detail pane);
    lists of messages show role badges and open as a conversation in the detail pane.
    """

    edit_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = StateModel()
        self._expanded: set[tuple[str, ...]] = set()
        self._restoring = False

        self.title = title_label("State")
        self.edit_button = QPushButton("Fork…")  # short: a zoomed narrow dock keeps the filter beside it
        self.edit_button.setToolTip("Edit state and fork: open these values as JSON; saving makes a new "
                                    "checkpoint (a fork) (Ctrl+E)")
        self.edit_button.setEnabled(False)
        self.edit_button.clicked.connect(self._on_edit_clicked)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Filter keys and values…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._on_search_typed)
        self.matches = QLabel("")
        self.matches.setStyleSheet(f"color: {MUTED}")
        self._debounce = QTimer(self, singleShot=True, interval=200)
        self._debounce.timeout.connect(self._on_search_timeout)

        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a value's start and end; the whole on hover
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setItemDelegateForColumn(1, BadgeDelegate(self.tree))
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._on_context_menu)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 130)
        header.resizeSection(2, 90)
        self.tree.expanded.connect(self._on_expanded)
        self.tree.collapsed.connect(self._on_collapsed)
        self.tree.selectionModel().currentChanged.connect(self._on_current_changed)

        self.detail_path = QLabel("")
        self.detail_path.setStyleSheet(f"color: {MUTED}")
        self.detail_text = QPlainTextEdit()
        self.detail_text.setReadOnly(True)
        self.detail_text.setFont(mono_font())
        self.detail_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.detail_chat = QTextBrowser()
        self.detail_chat.setOpenLinks(False)
        self.detail = QStackedWidget()
        self.detail.addWidget(self.detail_text)
        self.detail.addWidget(self.detail_chat)
        detail_box = QWidget()
        detail_layout = QVBoxLayout(detail_box)
        detail_layout.setContentsMargins(0, 4, 0, 0)
        detail_layout.addWidget(self.detail_path)
        detail_layout.addWidget(self.detail)

        splitter = DetailSplitter(84)  # the detail pane stays small (folded on a short panel); drag it taller
        splitter.addWidget(self.tree)
        splitter.addWidget(detail_box)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 0)
        self.splitter = splitter

        # the title has the whole width (it names the step and whether it is read-only);
        # the edit button sits beside the filter, which gives way on a narrow dock
        search_row = QHBoxLayout()
        search_row.addWidget(self.search, 1)
        search_row.addWidget(self.matches)
        search_row.addWidget(self.edit_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addLayout(search_row)
        layout.addWidget(splitter, 1)

    # -- public ------------------------------------------------------------------------
    def set_state(self, values: Mapping[str, Any], *, title: str = "", read_only: bool = True,
                  notes: Mapping[str, str] | None = None) -> None:
        """`notes`: a word shown beside some keys' type (a key "not checkpointed")."""
        selected = self.model.path_of(self.tree.currentIndex()) if self.tree.currentIndex().isValid() else None
        self.title.setText(title or "State")
        self.edit_button.setEnabled(not read_only)
        self.model.set_values(values, notes)
        self._after_reset(selected)
        self.tree.executeDelayedItemsLayout()  # lay out now: the next paint is the only one

    def clear(self) -> None:
        self.set_state({}, title="State")

    def set_search(self, text: str) -> None:
        self.search.blockSignals(True)
        self.search.setText(text)
        self.search.blockSignals(False)
        self._on_search_timeout()

    # -- handlers -------------------------------------------------------------------------
    def _after_reset(self, selected: tuple[str, ...] | None) -> None:
        self._restoring = True
        try:
            if self.model.query():
                self._expand_matches()
            else:
                for path in sorted(self._expanded, key=len)[:_MAX_EXPANDED]:
                    index = self.model.find_path(path)
                    if index.isValid():
                        self.tree.expand(index)
        finally:
            self._restoring = False
        current = self.model.find_path(selected) if selected else QModelIndex()
        if current.isValid():
            self.tree.setCurrentIndex(current)
        else:
            self._show_detail(QModelIndex())
        self._update_matches()

    def _expand_matches(self) -> None:
        """Open the ancestors of matching rows (not the matching subtrees themselves)."""
        todo = [QModelIndex()]
        opened = 0
        while todo and opened < _MAX_EXPANDED:
            parent = todo.pop(0)
            for row in range(min(self.model.rowCount(parent), _MAX_EXPANDED)):
                index = self.model.index(row, 0, parent)
                if isinstance(self.model.row_of(index).filt, dict):
                    self.tree.expand(index)
                    opened += 1
                    todo.append(index)

    def _update_matches(self) -> None:
        if not self.model.query():
            self.matches.setText("")
            return
        n = self.model.matches
        text = "no match" if n == 0 else f"{n:,} match" + ("" if n == 1 else "es")
        if self.model.skipped:
            text += " (search stopped early: too many values)"
        self.matches.setText(text)

    def _on_search_typed(self, _text: str) -> None:
        self._debounce.start()

    def _on_search_timeout(self) -> None:
        selected = self.model.path_of(self.tree.currentIndex()) if self.tree.currentIndex().isValid() else None
        self.model.set_query(self.search.text())
        self._after_reset(selected)

    def _on_expanded(self, index: QModelIndex) -> None:
        if not self.model.query() and len(self._expanded) < 5_000:
            self._expanded.add(self.model.path_of(index))

    def _on_collapsed(self, index: QModelIndex) -> None:
        if not self._restoring and not self.model.query():
            self._expanded.discard(self.model.path_of(index))

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_detail(current)

    def _on_edit_clicked(self) -> None:
        self.edit_requested.emit()

    def _on_context_menu(self, pos: Any) -> None:
        index = self.tree.indexAt(pos)
        if not index.isValid():
            return
        menu = QMenu(self)
        copy = menu.addAction("Copy value")
        key = menu.addAction("Copy key path")
        chosen = menu.exec(self.tree.viewport().mapToGlobal(pos))
        if chosen is copy:
            QGuiApplication.clipboard().setText(pretty(self.model.row_of(index).value))
        elif chosen is key:
            QGuiApplication.clipboard().setText(" › ".join(self.model.path_of(index)))

    # -- detail pane ---------------------------------------------------------------------
    def _show_detail(self, index: QModelIndex) -> None:
        if not index.isValid():
            self.detail_path.setText("Select a row to see its full value.")
            self.detail_text.setPlainText("")
            self.detail.setCurrentWidget(self.detail_text)
            return
        row = self.model.row_of(index)
        self.detail_path.setText(" › ".join(row.label for row in _lineage(row)))
        kind = index.siblingAtColumn(0).data(KindRole)
        value = index.siblingAtColumn(0).data(FullTextRole)
        if kind == "chunk":
            items = value.values()
            if items and is_message(items[0]):
                self._show_chat(items)
            else:
                self._show_text(pretty(items))
        elif kind == "messages":
            self._show_chat(value)
        elif kind == "message":
            self._show_chat([value])
        else:
            self._show_text(pretty(value))

    def _show_text(self, text: str) -> None:
        self.detail_text.setPlainText(text)
        self.detail.setCurrentWidget(self.detail_text)

    def _show_chat(self, messages: Sequence[Any]) -> None:
        tail = list(messages[-_CONVERSATION_TAIL:])
        self.detail_chat.setHtml(conversation_html(tail, len(messages)))
        self.detail.setCurrentWidget(self.detail_chat)
        bar = self.detail_chat.verticalScrollBar()
        bar.setValue(bar.maximum())


def _lineage(row: Any) -> list[Any]:
    out = []
    while row is not None and row.parent is not None:
        out.append(row)
        row = row.parent
    return list(reversed(out))
