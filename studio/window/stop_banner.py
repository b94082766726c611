"""The "stopped because" banner above the graph: why the run stopped, and the keys to go on.

It shows a `StopReport` (studio.core.records): "Paused on breakpoint before `tools`",
"Paused on condition `len(messages) >= 4`" with its value, "Waiting at interrupt in
`review`" with the question, an error, a pause, the end. Each key is a button too (the
same window action the key triggers). It goes when the run moves again.
"""
from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLayout, QLayoutItem, QPushButton, QSizePolicy, \
    QVBoxLayout, QWidget

from studio.core.records import StopReport

__all__ = ["StopBanner"]


class _Flow(QLayout):
    """The key buttons left to right, wrapped onto more lines when the graph's column is
    narrow: the banner never widens the column (nor squeezes the docks beside it)."""

    def __init__(self, spacing: int = 4) -> None:
        super().__init__()
        self._items: list[QLayoutItem] = []
        self.setSpacing(spacing)
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 (Qt's name)
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 (Qt's name)
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 (Qt's name)
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 (Qt's name)
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        width = sum(i.sizeHint().width() + self.spacing() for i in self._items)
        return QSize(width, max((i.sizeHint().height() for i in self._items), default=0))

    def minimumSize(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(max((i.minimumSize().width() for i in self._items), default=0),
                     max((i.minimumSize().height() for i in self._items), default=0))

    def _place(self, rect: QRect, *, move: bool) -> int:
        x, y, line = rect.x(), rect.y(), 0
        for item in self._items:
            hint = item.sizeHint()
            if x > rect.x() and x + hint.width() > rect.right() + 1:
                x, y, line = rect.x(), y + line + self.spacing(), 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self.spacing()
            line = max(line, hint.height())
        return y + line - rect.y()


class StopBanner(QFrame):
    """Hidden until `show_stop()` gets a report; `keyRequested(action name)` from its buttons."""

    keyRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("stopBanner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.report: StopReport | None = None
        self.title = QLabel(objectName="stopTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = QLabel(objectName="stopDetail")
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.keys = _Flow()
        self.buttons: list[QPushButton] = []
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        close = QPushButton("×", objectName="stopClose")
        close.setToolTip("Hide this banner (it comes back at the next stop)")
        close.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        close.clicked.connect(self.hide)
        head.addWidget(close)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 4, 10, 4)
        layout.setSpacing(2)
        layout.addLayout(head)
        layout.addWidget(self.detail)
        layout.addLayout(self.keys)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Maximum)
        self.hide()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        """No wider than it must be (the graph's column decides its width, never the banner),
        as tall as its wrapped keys need at the width it has."""
        width = self.minimumSizeHint().width()
        return QSize(width, self.heightForWidth(max(self.width(), width)))

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        layout = self.layout()
        return layout.totalHeightForWidth(width) if layout is not None else super().heightForWidth(width)

    def show_stop(self, report: StopReport | None) -> None:
        self.report = report
        if report is None:
            self.hide()
            return
        self.setProperty("kind", report.kind)
        self.style().unpolish(self)
        self.style().polish(self)
        self.title.setText(report.title)
        self.detail.setText(report.detail)
        self.detail.setVisible(bool(report.detail))
        for button in self.buttons:
            self.keys.removeWidget(button)
            button.deleteLater()
        self.buttons = []
        for name, label in report.keys:
            button = QPushButton(label, objectName="stopKey")
            button.setProperty("action", name)
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # the keys are the way; a click stays possible
            button.clicked.connect(lambda _=False, n=name: self.keyRequested.emit(n))
            self.keys.addWidget(button)
            self.buttons.append(button)
        self.show()

    def text(self) -> str:
        """What the banner says, as one string (title, detail, keys)."""
        if self.report is None or not self.isVisible():
            return ""
        keys = " · ".join(label for _, label in self.report.keys)
        return "\n".join(t for t in (self.report.title, self.report.detail, keys) if t)
