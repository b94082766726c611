"""A one-line label that shows what fits of its text, elided, and the whole text as its
tooltip: the status bar's thread and state never make a zoomed window wider than the screen."""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QStyleOption, QWidget

__all__ = ["ElidedLabel"]


class ElidedLabel(QLabel):
    """Its size hint is the whole text (at most `most` characters wide, when given); it may be
    as narrow as `least` characters, and then paints the text elided (in the middle for a
    thread's id, at the end otherwise)."""

    def __init__(self, parent: QWidget | None = None, *, mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
                 least: int = 8, most: int = 0, objectName: str = "") -> None:  # noqa: N803 (Qt's keyword)
        super().__init__(parent)
        self.most = most
        if objectName:
            self.setObjectName(objectName)
        self.mode = mode
        self.least = least
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().sizeHint()
        if self.most:
            hint.setWidth(min(hint.width(), self.fontMetrics().averageCharWidth() * self.most))
        return hint

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        metrics = self.fontMetrics()
        return QSize(min(metrics.averageCharWidth() * self.least, super().sizeHint().width()),
                     super().minimumSizeHint().height())

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        super().setText(text)
        self.setToolTip(text if text else "")

    def elided(self) -> str:
        """What is painted at the label's width."""
        margin = self.margin() * 2 + self.indent() if self.indent() > 0 else self.margin() * 2
        return self.fontMetrics().elidedText(self.text(), self.mode, max(self.contentsRect().width() - margin, 0))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        if self.fontMetrics().horizontalAdvance(self.text()) <= self.contentsRect().width():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawItemText(painter, self.contentsRect(), int(self.alignment()), option.palette,
                                  self.isEnabled(), self.elided(), self.foregroundRole())
