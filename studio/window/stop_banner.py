"""The "stopped because" banner above the graph: why the run stopped, and the keys to go on.

It shows a `StopReport` (studio.core.records): "Paused on breakpoint before `tools`",
"Paused on condition `len(messages) >= 4`" with its value, "Waiting at interrupt in
`review`" with the question, an error, a pause, the end. Each key is a button too (the
same window action the key triggers). It goes when the run moves again.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QSizePolicy, QVBoxLayout, \
    QWidget

from studio.panels._flow import FlowLayout

from studio.core.records import StopReport

__all__ = ["StopBanner", "STEP_COMMANDS", "STEP_HOLD_MS", "hold_banner_timer"]

STEP_COMMANDS = frozenset({"step", "step into", "step out", "step superstep"})
"""The session's commands during which the banner of the stop they start from stays up."""
STEP_HOLD_MS = 400
"""How long a step keeps that banner, at most (a slow node: the run is moving, it goes)."""


def hold_banner_timer(window: QWidget, hide: Callable[[], None]) -> QTimer:
    """The window's one timer that calls `hide` for a held banner (see MainWindow._on_stop)."""
    timer = window.findChild(QTimer, "stopBannerHold")
    if timer is None:
        timer = QTimer(window, singleShot=True, interval=STEP_HOLD_MS, objectName="stopBannerHold")
        timer.timeout.connect(hide)
    return timer


class StopBanner(QFrame):
    """Hidden until `show_stop()` gets a report; `keyRequested(action name)` from its buttons."""

    keyRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("stopBanner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.report: StopReport | None = None
        self.compact = False
        """Only the title and the keys (the detail is the title's tooltip): a zoomed window
        on a short screen (`studio.window.fitting`)."""
        self.title = QLabel(objectName="stopTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail = QLabel(objectName="stopDetail")
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.trace = QPlainTextEdit(objectName="stopTrace")  # an error's traceback, behind Details
        self.trace.setReadOnly(True)
        self.trace.setMaximumHeight(160)
        self.trace.hide()
        self.details = QPushButton("Details", objectName="stopKey")
        self.details.setCheckable(True)
        self.details.setToolTip("The traceback")
        self.details.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.details.toggled.connect(self._on_details)
        self.keys = FlowLayout()  # the key buttons wrap: the banner never widens the graph's column
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
        layout.addWidget(self.trace)
        self.keys.addWidget(self.details)
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

    def _on_details(self, shown: bool) -> None:
        self.trace.setVisible(shown)
        if shown:  # its end in view: the node's own line and the exception (the engine's frames come first)
            bar = self.trace.verticalScrollBar()
            QTimer.singleShot(0, lambda: bar.setValue(bar.maximum()))
        self._hold()

    def set_compact(self, on: bool) -> None:
        self.compact = on
        self._show_detail()
        self._hold()

    def _show_detail(self) -> None:
        detail = self.report.detail if self.report is not None else ""
        self.detail.setVisible(bool(detail) and not self.compact)
        self.title.setToolTip(detail if self.compact else "")

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._hold()

    def _hold(self) -> None:
        """As tall as its wrapped lines and keys at its width: a short (zoomed) window
        squeezed it to cut lines; the graph below gives way."""
        layout = self.layout()
        if layout is not None:
            layout.invalidate()  # a row shown or hidden since (Details): measured afresh
        self.setMinimumHeight(self.heightForWidth(self.width()))

    def show_stop(self, report: StopReport | None) -> None:
        if report is not None and report == self.report and self.isVisible():
            return  # the same stop again (F10 after F10): nothing to lay out or repaint
        before, self.report = self.report, report
        if report is None:
            self.hide()
            return
        if self.property("kind") != report.kind:
            self.setProperty("kind", report.kind)
            self.style().unpolish(self)
            self.style().polish(self)
        self.title.setText(report.title)
        self.detail.setText(report.detail)
        self._show_detail()
        self.details.setChecked(False)
        self.details.setVisible(bool(report.trace))
        self.trace.setPlainText(report.trace)
        if before is None or before.keys != report.keys or not self.buttons:
            self._make_keys(report)
        self.show()
        self._hold()

    def _make_keys(self, report: StopReport) -> None:
        """A button per key (made again only when the keys change: F10 after F10 keeps them)."""
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

    def text(self) -> str:
        """What the banner says, as one string (title, detail, keys)."""
        if self.report is None or not self.isVisible():
            return ""
        keys = " · ".join(label for _, label in self.report.keys)
        return "\n".join(t for t in (self.report.title, self.report.detail, keys) if t)
