"""Small pieces the panels share: colours, fonts, item roles and a badge delegate.

Not a panel: panels import this module, never each other. Colours are chosen to read
on a light background with or without `resources/style.qss`.
"""
from __future__ import annotations

import html
import math
from collections.abc import Mapping

from studio.core.safe import total
from PySide6.QtCore import QModelIndex, QObject, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontMetrics, QPainter, QPalette, QTextLayout, QTextOption
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
    "tree_with_detail",
    "DetailSplitter",
    "paint_badge",
    "badge_font",
    "metrics_of",
    "wrap_text",
    "line_height",
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
    "handoff": ("#e0f2f1", "#0f766e"),
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


class DetailSplitter(QSplitter):
    """A view over its detail pane: the pane gets `detail_height` px while the splitter is
    at least `fold_below` px tall, and folds away (0 px) on a shorter one, where each pixel
    is a row of the view (the full value is then in the rows' tooltips). Once the user
    drags the handle, the sizes are theirs."""

    def __init__(self, detail_height: int, fold_below: int = 330, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.detail_height, self.fold_below = detail_height, fold_below
        self.user_sized = False
        self.splitterMoved.connect(self._on_moved)
        self.setChildrenCollapsible(True)

    def _on_moved(self, *_: object) -> None:
        self.user_sized = True

    @property
    def folded(self) -> bool:
        return self.count() > 1 and self.sizes()[-1] == 0

    def resizeEvent(self, event: object) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)  # type: ignore[arg-type]
        if self.user_sized or self.count() < 2:
            return
        height = self.height()
        detail = self.detail_height if height >= self.fold_below else 0
        self.setSizes([max(height - detail, 0), detail])


def tree_with_detail(tree: QWidget, detail_height: int = 72) -> tuple[QPlainTextEdit, QSplitter]:
    """A read-only monospace pane under `tree` that shows the selected row's full value
    (folded away on a short panel: `DetailSplitter`)."""
    detail = QPlainTextEdit()
    detail.setReadOnly(True)
    detail.setFont(mono_font())
    detail.setPlaceholderText("Select a row to see its full value.")
    splitter = DetailSplitter(detail_height)
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


def badge_font(font: QFont) -> tuple[QFont, QFontMetrics]:
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
    small, metrics = badge_font(font)
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


_LINE_HEIGHTS: dict[str, int] = {}


def line_height(font: QFont) -> int:
    """The height of one line of laid-out text in `font`: what the style gives each line
    of a wrapped cell (QTextLayout rounds up: it can be a pixel more than lineSpacing)."""
    key = font.key()
    hit = _LINE_HEIGHTS.get(key)
    if hit is None:
        layout = QTextLayout("Xg", font)
        layout.beginLayout()
        line = layout.createLine()
        line.setLineWidth(1000)
        layout.endLayout()
        hit = _LINE_HEIGHTS[key] = max(metrics_of(font).lineSpacing(), int(math.ceil(line.height())))
    return hit


_WRAPPED: dict[tuple[str, str, int, int, int], tuple[str, ...]] = {}
_WRAP_PAD = 3
"""Space above and below the lines of a wrapped cell."""


def wrap_text(text: str, font: QFont, width: int, first: int | None = None, max_lines: int = 5) -> tuple[str, ...]:
    """`text` broken into lines no wider than `width` px (the first line `first` px, when a
    badge takes the start of it): at spaces, or inside a word too long for any line, so
    no name is ever cut. A first word that does not fit beside the badge starts on the
    second line (the first is then ""); a name too long for any line breaks after "_" or
    ".", else anywhere. Past `max_lines` the last line ends in "…": a
    hostile 300-node superstep must not make a row taller than the screen. Results are
    kept, since views paint the same cells often."""
    text = text[:4000]
    first = width if first is None else min(first, width)
    key = (text, font.key(), width, first, max_lines)
    hit = _WRAPPED.get(key)
    if hit is not None:
        return hit
    metrics = metrics_of(font)
    if width <= 0 or ("\n" not in text and metrics.horizontalAdvance(text) <= first):
        lines: tuple[str, ...] = (text,)
    else:
        found: list[str] = []
        word = text.split(None, 1)[0] if text.strip() else text
        if metrics.horizontalAdvance(word) > first and first < width:
            found.append("")  # the first word goes under the badge rather than being split
            first = width
        # a name too long for a line breaks after "_", "." or "-" before it breaks anywhere
        shown = " ".join(_breakable(word, metrics, width) for word in text.replace("\n", "\u2028").split(" "))
        layout = QTextLayout(shown, font)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(option)
        layout.beginLayout()
        while len(found) <= max_lines:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(first if not found else width)
            found.append(shown[line.textStart():line.textStart() + line.textLength()].replace("\u200b", "").rstrip())
        layout.endLayout()
        if len(found) > max_lines:
            rest = " ".join(found[max_lines - 1:])
            found = found[:max_lines - 1] + [metrics.elidedText(rest, Qt.TextElideMode.ElideRight, width)]
        lines = tuple(found) or ("",)
    if len(_WRAPPED) > 4096:
        _WRAPPED.clear()
    _WRAPPED[key] = lines
    return lines


def _breakable(word: str, metrics: QFontMetrics, width: int) -> str:
    """A word too wide for a line, with a zero-width break after each "_", ".", "-", "/"."""
    if metrics.horizontalAdvance(word) <= width:
        return word
    for mark in "_.-/":
        word = word.replace(mark, mark + "\u200b")
    return word


class BadgeDelegate(QStyledItemDelegate):
    """Paints `BadgeRole` (text, kind) as a pill, then the cell's display text after it.

    With `wrap=True` a text too long for its cell is broken over several lines instead of
    ending in "…"; `sizeHint` then answers the height those lines need for the width in
    `option.rect` (the view decides which rows to ask: see the timeline panel)."""

    def __init__(self, parent: QObject | None = None, *, wrap: bool = False) -> None:
        super().__init__(parent)
        self.wrap = wrap

    def badge_of(self, index: QModelIndex) -> object:
        """The cell's `BadgeRole` (a subclass may know it without asking the model)."""
        return index.data(BadgeRole)

    @total(None)
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        badge = self.badge_of(index)
        if not badge and not self.wrap:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text = opt.text
        lines = self.lines(opt, index, badge)
        style = opt.widget.style() if opt.widget else None
        if not badge:  # the style draws the lines as any cell's text (padding, colours, selection)
            if len(lines) > 1:
                opt.text = "\u2028".join(lines)  # Qt's line separator: a break the style keeps
                opt.features |= QStyleOptionViewItem.ViewItemFeature.WrapText
            if style is not None:
                style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
            return
        opt.text = ""
        if style is not None:  # background, selection, focus
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        metrics = metrics_of(opt.font)
        step = line_height(opt.font)
        rect = QRectF(opt.rect.adjusted(4, 0, -4, 0))
        band = QRectF(rect) if len(lines) == 1 else QRectF(rect.left(), rect.top() + _WRAP_PAD, rect.width(), step)
        indent = paint_badge(painter, band, str(badge[0]), str(badge[1]), opt.font) + 6
        if not text:
            return
        painter.save()
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        fg = index.data(Qt.ItemDataRole.ForegroundRole)
        painter.setPen(opt.palette.color(role) if selected or fg is None else fg.color()
                       if hasattr(fg, "color") else QColor(fg))
        painter.setFont(opt.font)
        if len(lines) == 1:
            text_rect = rect.adjusted(indent, 0, 0, 0)
            elided = metrics.elidedText(text, opt.textElideMode, int(text_rect.width()))
            painter.drawText(text_rect, _LEFT_MIDDLE, elided)
        else:  # the first line after the badge, the next ones under it from the left
            for n, line in enumerate(lines):
                shift = indent if n == 0 else 0.0
                painter.drawText(QRectF(rect.left() + shift, rect.top() + _WRAP_PAD + n * step,
                                        rect.width() - shift, step), _LEFT_MIDDLE, line)
        painter.restore()

    def lines(self, opt: QStyleOptionViewItem, index: QModelIndex, badge: object = None) -> tuple[str, ...]:
        """The lines `paint` draws a cell's text in, for `opt` made by `initStyleOption`
        (one line unless `wrap` and too long for `opt.rect`'s width)."""
        text = opt.text
        if not self.wrap or not text:
            return (text,)
        if badge:
            _small, metrics = badge_font(opt.font)
            room = max(opt.rect.width() - 8, 20)
            return wrap_text(text, opt.font, room, max(room - metrics.horizontalAdvance(str(badge[0])) - 18, 0))  # type: ignore[index]
        # what the style puts around a cell's text (its margins, a style sheet's padding)
        chrome = super().sizeHint(opt, index).width() - metrics_of(opt.font).horizontalAdvance(text)
        return wrap_text(text, opt.font, max(opt.rect.width() - max(chrome, 0) - 2, 20))

    @total(QSize())
    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        badge = self.badge_of(index)
        if badge:
            size = QSize(size.width() + 40, max(size.height(), 22))
        if self.wrap and option.rect.width() > 0:
            opt = QStyleOptionViewItem(option)
            self.initStyleOption(opt, index)
            lines = self.lines(opt, index, badge)
            if len(lines) > 1:
                step = line_height(opt.font)
                wanted = len(lines) * step + 2 * _WRAP_PAD if badge else size.height() + (len(lines) - 1) * step
                size.setHeight(max(size.height(), wanted))
        return size
