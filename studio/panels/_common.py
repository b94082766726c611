"""Small pieces the panels share: colours, fonts, item roles and a badge delegate.

Not a panel: panels import this module, never each other. Colours are chosen to read
on a light background with or without `resources/style.qss`.
"""
from __future__ import annotations

import html
from collections.abc import Mapping

from studio.core.safe import total
from PySide6.QtCore import QModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import (
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QWidget,
)

__all__ = [
    "BadgeRole",
    "FullTextRole",
    "KindRole",
    "BADGE_COLOURS",
    "ROLE_COLOURS",
    "ADDED",
    "REMOVED",
    "CHANGED",
    "MUTED",
    "BadgeDelegate",
    "mono_font",
    "colour",
    "tool_button",
    "title_label",
    "paint_badge",
    "metrics_of",
    "escape",
]

BadgeRole = Qt.ItemDataRole.UserRole + 1
"""(text, kind) of a pill drawn before the cell's text."""
FullTextRole = Qt.ItemDataRole.UserRole + 2
"""The full value of a cell, for a detail pane."""
KindRole = Qt.ItemDataRole.UserRole + 3
"""A short word that classifies the row ("error", "added", "head", …)."""

# (background, text) of a badge, by kind.
BADGE_COLOURS: Mapping[str, tuple[str, str]] = {
    # checkpoint sources
    "input": ("#e0ecff", "#1d4ed8"),
    "loop": ("#e3f5e9", "#15803d"),
    "update": ("#fff1dc", "#b45309"),
    "fork": ("#f1e8ff", "#7e22ce"),
    # events
    "start": ("#e8eef6", "#334e68"),
    "finish": ("#e3f5e9", "#15803d"),
    "error": ("#fde2e2", "#b91c1c"),
    "interrupt": ("#f1e8ff", "#7e22ce"),
    "commit": ("#e0ecff", "#1d4ed8"),
    "run": ("#eef0f3", "#3e4c59"),
    "custom": ("#fff1dc", "#b45309"),
    # message roles
    "user": ("#e0ecff", "#1d4ed8"),
    "ai": ("#e3f5e9", "#15803d"),
    "tool": ("#fff1dc", "#b45309"),
    "system": ("#eef0f3", "#3e4c59"),
    "other": ("#eef0f3", "#3e4c59"),
    # diff statuses
    "added": ("#dcfce7", "#166534"),
    "removed": ("#fee2e2", "#991b1b"),
    "changed": ("#fef3c7", "#92400e"),
    "same": ("#eef0f3", "#52606d"),
    "dropped": ("#eef0f3", "#7b8794"),
}
ROLE_COLOURS = {k: BADGE_COLOURS[k] for k in ("user", "ai", "tool", "system", "other")}

_LEFT_MIDDLE = int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft)

ADDED = "#dcfce7"
REMOVED = "#fee2e2"
CHANGED = "#fef3c7"
MUTED = "#7b8794"


def colour(name: str) -> QColor:
    return QColor(name)


def mono_font(point_delta: int = 0) -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    if point_delta and font.pointSize() > 0:
        font.setPointSize(font.pointSize() + point_delta)
    return font


def escape(text: str) -> str:
    return html.escape(text, quote=False)


def tree_with_detail(tree: QWidget) -> tuple[QPlainTextEdit, QSplitter]:
    """A read-only monospace pane under `tree` that shows the selected row's full value."""
    detail = QPlainTextEdit()
    detail.setReadOnly(True)
    detail.setFont(mono_font())
    detail.setPlaceholderText("Select a row to see its full value.")
    splitter = QSplitter(Qt.Orientation.Vertical)
    splitter.addWidget(tree)
    splitter.addWidget(detail)
    return detail, splitter


def tool_button(text: str, tip: str, parent: QWidget | None = None) -> QToolButton:
    button = QToolButton(parent)
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    return button


def title_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    label = QLabel(text, parent)
    label.setObjectName("panelTitle")
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    # a longer title ("State · step 3 (viewing, read-only)") wraps: it never widens its
    # dock nor gets cut
    label.setWordWrap(True)
    label.setMinimumWidth(60)
    return label


_BADGE_FONTS: dict[str, tuple[QFont, QFontMetrics]] = {}
_BADGE_WIDTHS: dict[tuple[str, str], int] = {}
_BADGE_QCOLOURS: dict[str, tuple[QColor, QColor]] = {}


_METRICS: dict[str, QFontMetrics] = {}


def metrics_of(font: QFont) -> QFontMetrics:
    """QFontMetrics of `font`, made once per font (delegates paint every visible cell)."""
    key = font.key()
    metrics = _METRICS.get(key)
    if metrics is None:
        metrics = _METRICS[key] = QFontMetrics(font)
    return metrics


def _badge_font(font: QFont) -> tuple[QFont, QFontMetrics]:
    """The badge's small bold font for a cell font (made once per font: views paint often)."""
    key = font.key()
    hit = _BADGE_FONTS.get(key)
    if hit is None:
        small = QFont(font)
        if small.pointSizeF() > 0:
            small.setPointSizeF(max(7.0, small.pointSizeF() - 1))
        small.setBold(True)
        hit = _BADGE_FONTS[key] = (small, QFontMetrics(small))
    return hit


def paint_badge(painter: QPainter, rect: QRectF, text: str, kind: str, font: QFont) -> float:
    """Draw a rounded pill at the left of `rect`, vertically centred; returns its width."""
    colours = _BADGE_QCOLOURS.get(kind)
    if colours is None:
        bg, fg = BADGE_COLOURS.get(kind, BADGE_COLOURS["other"])
        colours = _BADGE_QCOLOURS[kind] = (QColor(bg), QColor(fg))
    small, metrics = _badge_font(font)
    width = _BADGE_WIDTHS.get((small.key(), text))
    if width is None:
        width = _BADGE_WIDTHS[(small.key(), text)] = metrics.horizontalAdvance(text) + 12
    height = min(rect.height() - 4, metrics.height() + 4)
    pill = QRectF(rect.left(), rect.top() + (rect.height() - height) / 2, width, height)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colours[0])
    painter.drawRoundedRect(pill, height / 2, height / 2)
    painter.setPen(colours[1])
    painter.setFont(small)
    painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)
    painter.restore()
    return width


class BadgeDelegate(QStyledItemDelegate):
    """Paints `BadgeRole` (text, kind) as a pill, then the cell's display text after it."""

    @total(None)
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        badge = index.data(BadgeRole)
        if not badge:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text = opt.text
        opt.text = ""
        style = opt.widget.style() if opt.widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        rect = QRectF(opt.rect.adjusted(4, 0, -4, 0))
        width = paint_badge(painter, rect, str(badge[0]), str(badge[1]), opt.font)
        if text:
            painter.save()
            selected = bool(opt.state & QStyle.StateFlag.State_Selected)
            role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
            fg = index.data(Qt.ItemDataRole.ForegroundRole)
            painter.setPen(opt.palette.color(role) if selected or fg is None else fg.color()
                           if hasattr(fg, "color") else QColor(fg))
            painter.setFont(opt.font)
            text_rect = rect.adjusted(width + 6, 0, 0, 0)
            elided = metrics_of(opt.font).elidedText(text, Qt.TextElideMode.ElideRight, int(text_rect.width()))
            painter.drawText(text_rect, _LEFT_MIDDLE, elided)
            painter.restore()

    @total(QSize())
    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        return QSize(size.width() + 40, max(size.height(), 22)) if index.data(BadgeRole) else size
