"""The timeline's cells: each delegate fills its style option from the row's `Look`.

`QStyledItemDelegate.initStyleOption` asks the model for the font, alignment, colours,
check state, icon, text and background of a cell, one role at a time; in this Python model
that is most of what a repaint of the timeline costs. `LookOptions.initStyleOption`
fills the same fields from the row's `Look` (one lookup per cell: see roles.py), and is
what Qt's own paint and size-hint code call too, since the method is virtual.
"""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex
from PySide6.QtGui import QBrush, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

from studio.core.safe import total
from studio.panels._common import BadgeDelegate

__all__ = ["LookOptions", "Cell", "unfocused"]

_HAS_DISPLAY = QStyleOptionViewItem.ViewItemFeature.HasDisplay
_TEXT = QPalette.ColorRole.Text
_NO_BRUSH = QBrush()


def unfocused(option: QStyleOptionViewItem) -> QStyleOptionViewItem:
    """`option` without the focus frame: a clicked cell of a read-only table is drawn as
    part of its selected row, not boxed as if it were being edited."""
    opt = QStyleOptionViewItem(option)
    opt.state &= ~QStyle.StateFlag.State_HasFocus
    return opt


class LookOptions:
    """A delegate mixin: `initStyleOption` from the timeline model's `look(row)`, field for
    field what Qt's own makes of the model's answers (FontRole resolved against the
    view's font, ForegroundRole as the palette's text brush, DisplayRole as the text,
    BackgroundRole as the background brush; the model answers no alignment, check
    state or icon)."""

    @total(None)
    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:  # noqa: N802 (Qt's name)
        look_of = getattr(index.model(), "look", None)
        if look_of is None:  # not the timeline's model: Qt's own way
            super().initStyleOption(option, index)  # type: ignore[misc]
            return
        look, col = look_of(index.row()), index.column()
        option.index = index
        font = look.fonts[col]
        if font is not None:
            option.font = font.resolve(option.font)
            option.fontMetrics = QFontMetrics(option.font)
        foreground = look.foregrounds[col]
        if foreground is not None:
            palette = QPalette(option.palette)
            palette.setBrush(_TEXT, QBrush(foreground))
            option.palette = palette
        text = look.texts[col]
        if text is not None:
            option.features |= _HAS_DISPLAY
            option.text = str(text)
        background = look.backgrounds[col]
        option.backgroundBrush = QBrush(background) if background is not None else _NO_BRUSH
        option.styleObject = None


class Cell(LookOptions, BadgeDelegate):
    """A cell of the timeline: a badge or text, never a focus frame."""

    def badge_of(self, index: QModelIndex) -> Any:
        look_of = getattr(index.model(), "look", None)
        return look_of(index.row()).badges[index.column()] if look_of is not None else super().badge_of(index)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        super().paint(painter, unfocused(option), index)
