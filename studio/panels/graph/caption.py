"""The "why" caption over the graph ("merge runs next because join: …").

Its height is reserved for two lines of its font, whatever the text says: a selection that
swaps a one-line caption for a two-line one used to resize the canvas below it, and Qt then
repainted the whole canvas (25-30 ms on a 300-wide graph). A text longer than two lines at
the caption's width is cut at a word with "…", and the whole text is the tooltip. Only a zoom
(a font change) changes the reserved height; a resize only re-cuts the text.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, QSize, Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget

__all__ = ["Caption", "LINES", "cut_to_lines"]

LINES = 2
"""The caption's reserved height, in lines of its font."""

_TALL = 1 << 20


def _lines_fit(metrics: QFontMetrics, width: int, text: str, lines: int) -> bool:
    box = metrics.boundingRect(QRect(0, 0, width, _TALL), int(Qt.TextFlag.TextWordWrap), text)
    return box.height() < (lines + 0.5) * metrics.lineSpacing()  # a line more is a whole line more


def cut_to_lines(metrics: QFontMetrics, width: int, text: str, lines: int = LINES) -> str:
    """`text` if it wraps to at most `lines` lines at `width`, else its longest start (cut at
    a space when one is near) followed by "…" that does."""
    if width <= 0 or not text or _lines_fit(metrics, width, text, lines):
        return text
    low, high = 0, len(text)  # the longest prefix that fits with the ellipsis: in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        if _lines_fit(metrics, width, text[:middle].rstrip() + "…", lines):
            low = middle
        else:
            high = middle
    start = text[:low]
    space = start.rfind(" ")
    if space > low * 0.7:  # a word's end, unless that throws away most of a long word
        start = start[:space]
    return start.rstrip(" ,;:") + "…"


class Caption(QLabel):
    """A word-wrapped label of a fixed two-line height; `show_text` sets what it says."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setObjectName("whyCaption")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.setContentsMargins(8, 0, 8, 0)
        self._full = ""
        self.hold()

    def full_text(self) -> str:
        """The whole text (what `text()` shows may be cut to two lines)."""
        return self._full

    def show_text(self, text: str) -> None:
        self._full = text
        self._cut()

    def reserved_height(self) -> int:
        margins = self.contentsMargins()
        metrics = self.fontMetrics()
        text = LINES * max(metrics.lineSpacing(), metrics.height())
        return text + margins.top() + margins.bottom() + 2

    def hold(self) -> None:
        """Reserve two lines of the current font (a no-op for Qt when the height is unchanged)."""
        height = self.reserved_height()
        if self.minimumHeight() != height or self.maximumHeight() != height:
            self.setFixedHeight(height)
        self._cut()

    def _cut(self) -> None:
        shown = cut_to_lines(self.fontMetrics(), self.contentsRect().width(), self._full)
        if shown != self.text():
            self.setText(shown)
        tip = self._full if shown != self._full else ""
        if tip != self.toolTip():
            self.setToolTip(tip)

    # -- sizes: always the reserved lines, so a layout never asks for more or less ------
    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        return self.reserved_height()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(super().sizeHint().width(), self.reserved_height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(super().minimumSizeHint().width(), self.reserved_height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._cut()

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() in _RESTYLED:  # a zoom, a theme, the style sheet's padding applied
            self.hold()
        return handled


_RESTYLED = (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.Polish, QEvent.Type.Show)
