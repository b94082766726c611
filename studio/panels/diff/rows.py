"""Item rows that spell out a `valuediff.Change` (shared by the diff and compare views).

Not a panel: a helper both panels import. Lists and dicts show at most `SHOWN` added,
removed and changed entries each, then "… and N more", so a big value stays readable.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtGui import QBrush, QColor, QStandardItem

from studio.core.valuediff import Change, fold_count
from studio.core.valuefmt import as_message, is_message, preview, role_kind
from studio.panels._common import ADDED, CHANGED, MUTED, REMOVED, BadgeRole, FullTextRole, KindRole

__all__ = ["SHOWN", "change_rows", "text_item", "value_row", "note_row", "unbox"]

SHOWN = 50


def text_item(text: str, *, value: Any = None, colour: str | None = None, background: str | None = None,
              bold: bool = False, tooltip: str = "", kind: str = "") -> QStandardItem:
    item = QStandardItem(text)
    item.setEditable(False)
    if value is not None:
        item.setData(value, FullTextRole)
    if colour:
        item.setForeground(QBrush(QColor(colour)))
    if background:
        item.setBackground(QBrush(QColor(background)))
    if bold:
        font = item.font()
        font.setBold(True)
        item.setFont(font)
    if tooltip:
        item.setToolTip(tooltip)
    if kind:
        item.setData(kind, KindRole)
    return item


def note_row(text: str, columns: int, *, background: str | None = None, kind: str = "") -> list[QStandardItem]:
    """A row that only says something ("… and 12 more")."""
    row = [text_item(text, background=background, colour=MUTED, kind=kind)]
    return row + [text_item("", background=background) for _ in range(columns - 1)]


def value_row(label: str, value: Any, columns: int, *, background: str | None = None,
              kind: str = "", label_colour: str | None = None) -> list[QStandardItem]:
    """[label, "", …, preview] with the full value kept for the detail pane."""
    text = preview(value, 200)
    row = [text_item(label, value=_Boxed(value), background=background, kind=kind, colour=label_colour)]
    row += [text_item("", background=background) for _ in range(columns - 2)]
    last = text_item(text, value=_Boxed(value), background=background, tooltip=preview(value, 600), kind=kind)
    if is_message(value):
        role = as_message(value).role
        last.setData((role, role_kind(role)), BadgeRole)
    row.append(last)
    return row


class _Boxed:
    """Wraps a value stored in an item, so Qt keeps the Python object as is."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def unbox(data: Any) -> Any:
    return data.value if isinstance(data, _Boxed) else data


def change_rows(change: Change, columns: int) -> list[list[QStandardItem]]:
    """Rows listing what was added, removed and changed inside a list or dict."""
    rows: list[list[QStandardItem]] = []
    if change.kind not in ("list", "dict"):
        return rows

    def label(key: Any) -> str:
        return f"[{key}]" if change.kind == "list" else str(key)

    for index, item in change.added[:SHOWN]:
        rows.append(value_row(f"+ {label(index)}", item, columns, background=ADDED, kind="added"))
    more = fold_count(change.added, SHOWN)
    if more:
        rows.append(note_row(f"+ {more}", columns, background=ADDED, kind="added"))
    for index, item in change.removed[:SHOWN]:
        rows.append(value_row(f"− {label(index)}", item, columns, background=REMOVED, kind="removed"))
    more = fold_count(change.removed, SHOWN)
    if more:
        rows.append(note_row(f"− {more}", columns, background=REMOVED, kind="removed"))
    for index, old, new in change.changed[:SHOWN]:
        text = f"{preview(old, 80)} → {preview(new, 80)}"
        row = [text_item(f"~ {label(index)}", value=_Boxed(new), background=CHANGED, kind="changed")]
        row += [text_item("", background=CHANGED) for _ in range(columns - 2)]
        row.append(text_item(text, value=_Boxed(new), background=CHANGED, kind="changed",
                             tooltip=f"before: {preview(old, 400)}\nafter: {preview(new, 400)}"))
        rows.append(row)
    more = fold_count(change.changed, SHOWN)
    if more:
        rows.append(note_row(f"~ {more}", columns, background=CHANGED, kind="changed"))
    return rows
