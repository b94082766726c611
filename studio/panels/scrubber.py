"""The history scrubber: a slider over the checkpoints of one branch. Moving it asks to
view that checkpoint (read-only: graph marks, state, diff); nothing runs."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QWidget

from studio.panels._common import tool_button

__all__ = ["Scrubber"]


class Scrubber(QWidget):
    """Methods:
        set_track(ids, label, current): the branch's checkpoints (oldest first), a function
            saying what one is in words, and the one on screen (the slider moves there
            without asking); move_to(id): the one on screen changed (same branch).
        position() -> int; at_end() -> bool; step_by(n) -> bool: move n checkpoints (asks).
    Signals:
        checkpoint_picked(str): the user moved to this checkpoint.
    """

    checkpoint_picked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ids: list[str] = []
        self.label_of: Callable[[str], str] = str
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
        self._index: dict[str, int] = {}
        self.set_track([], str, None)

    def set_track(self, ids: Sequence[str], label: Callable[[str], str], current: str | None) -> None:
        self.ids, self.label_of = ids if isinstance(ids, list) else list(ids), label
        self._index = {cid: i for i, cid in enumerate(self.ids)}
        self._quiet = True
        try:
            self.slider.setRange(0, max(0, len(self.ids) - 1))
        finally:
            self._quiet = False
        self.slider.setEnabled(len(self.ids) > 1)
        self.move_to(current)

    def move_to(self, current: str | None) -> None:
        """Put the handle on `current` (the end of the branch when it is not on it); nothing is asked."""
        if len(self._index) != len(self.ids):  # the same branch grew at its tip
            for i in range(len(self._index), len(self.ids)):
                self._index[self.ids[i]] = i
            self.slider.setRange(0, max(0, len(self.ids) - 1))
            self.slider.setEnabled(len(self.ids) > 1)
        self._quiet = True
        try:
            self.slider.setValue(self._index.get(current, len(self.ids) - 1) if current is not None else
                                 max(0, len(self.ids) - 1))
        finally:
            self._quiet = False
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
        try:
            said = self.label_of(self.ids[i]) if i < len(self.ids) else ""
        except Exception:  # noqa: BLE001 - a label never breaks the slider
            said = ""
        self.label.setText(f"{i + 1}/{len(self.ids)} · {said}")

    def _on_moved(self, value: int) -> None:
        self._show_label()
        if not self._quiet and 0 <= value < len(self.ids):
            self.checkpoint_picked.emit(self.ids[value])
