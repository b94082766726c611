"""The history scrubber: a slider over the checkpoints of one branch. Moving it asks to
view that checkpoint (read-only: graph marks, state, diff); nothing runs."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QWidget

from studio.panels._common import tool_button

__all__ = ["Scrubber"]


class Scrubber(QWidget):
    """Methods:
        set_track(ids, labels, current): the branch's checkpoints (oldest first), what each
            is in words, and the one on screen (the slider moves there without asking).
        position() -> int; at_end() -> bool; step_by(n) -> bool: move n checkpoints (asks).
    Signals:
        checkpoint_picked(str): the user moved to this checkpoint.
    """

    checkpoint_picked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ids: list[str] = []
        self.labels: list[str] = []
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("scrubber")
        self.slider.setMinimumWidth(160)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setPageStep(1)
        self.slider.setToolTip("History scrubber: replay the view along this branch (nothing runs)")
        self.slider.valueChanged.connect(self._on_moved)
        self.label = QLabel("")
        self.label.setObjectName("scrubberLabel")
        self.label.setMinimumWidth(self.label.fontMetrics().horizontalAdvance("step 00 · 00/00 · nodes ..."))
        back = tool_button("◀", "Previous checkpoint on this branch")
        back.clicked.connect(lambda: self.step_by(-1))
        forward = tool_button("▶", "Next checkpoint on this branch")
        forward.clicked.connect(lambda: self.step_by(1))
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 0, 4, 0)
        row.addWidget(QLabel("History:"))
        row.addWidget(back)
        row.addWidget(self.slider, 1)
        row.addWidget(forward)
        row.addWidget(self.label)
        self._quiet = False
        self.set_track([], [], None)

    def set_track(self, ids: Sequence[str], labels: Sequence[str], current: str | None) -> None:
        self.ids, self.labels = list(ids), list(labels)
        self._quiet = True
        try:
            self.slider.setRange(0, max(0, len(self.ids) - 1))
            if current in self.ids:
                self.slider.setValue(self.ids.index(current))
            elif self.ids:
                self.slider.setValue(len(self.ids) - 1)
        finally:
            self._quiet = False
        self.slider.setEnabled(len(self.ids) > 1)
        self._show_label()

    def position(self) -> int:
        return self.slider.value()

    def at_end(self) -> bool:
        return not self.ids or self.slider.value() >= len(self.ids) - 1

    def step_by(self, n: int) -> bool:
        target = self.slider.value() + n
        if not self.ids or not 0 <= target < len(self.ids):
            return False
        self.slider.setValue(target)
        return True

    def _show_label(self) -> None:
        i = self.slider.value()
        if not self.ids:
            self.label.setText("no checkpoints yet")
            return
        self.label.setText(f"{i + 1}/{len(self.ids)} · {self.labels[i] if i < len(self.labels) else ''}")

    def _on_moved(self, value: int) -> None:
        self._show_label()
        if not self._quiet and 0 <= value < len(self.ids):
            self.checkpoint_picked.emit(self.ids[value])
