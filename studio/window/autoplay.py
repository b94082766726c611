"""Autoplay: the run (or, while viewing the history, the scrubber) advances by itself at
a chosen speed, node by node or superstep by superstep, until paused, at the end, at an
interrupt, at a breakpoint or on an error. Each tick is an ordinary step command (F10 or
Shift+F10): the same Run moves as by hand."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

__all__ = ["Autoplay", "MODES", "STOP_STATUSES"]

MODES = ("node", "superstep")
STOP_STATUSES = frozenset({"done", "interrupted", "failed", "stopped", "read-only"})
"""A step that ends in one of these stops autoplay (the run needs the user)."""


class Autoplay(QObject):
    """Plays the session: `play()`, `pause()`, `toggle()`, `set_speed(steps_per_second)`,
    `set_mode("node" | "superstep")`. `playingChanged(bool)` says when it starts or stops;
    `stopped(str)` says why it stopped by itself."""

    playingChanged = Signal(bool)
    stopped = Signal(str)

    def __init__(self, session: Any, scrub: Callable[[], bool] | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.scrub = scrub
        """Called instead of a step while the scrubber is before the end of its branch:
        moves it one checkpoint on; False when it cannot."""
        self.mode = "node"
        self.speed = 1.0
        self.playing = False
        self.replaying = False
        """Started while viewing the history: it moves the scrubber and never runs."""
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._tick)
        self._set_interval()
        session.commandFinished.connect(self._on_finished)

    def set_speed(self, steps_per_second: float) -> None:
        if not 0.05 <= steps_per_second <= 50:
            raise ValueError(f"autoplay speed {steps_per_second!r}: use 0.05 to 50 steps per second")
        self.speed = float(steps_per_second)
        self._set_interval()

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"autoplay mode {mode!r}: use one of {', '.join(MODES)}")
        self.mode = mode

    def _set_interval(self) -> None:
        self.timer.setInterval(max(20, int(1000 / self.speed)))

    def play(self) -> None:
        if self.playing:
            return
        self.playing = True
        self.replaying = self.session.viewed_id is not None and self.scrub is not None
        self.timer.start()
        self.playingChanged.emit(True)
        self._tick()

    def pause(self, reason: str = "") -> None:
        if not self.playing:
            return
        self.playing = False
        self.timer.stop()
        self.playingChanged.emit(False)
        if reason:
            self.stopped.emit(reason)

    def toggle(self) -> None:
        self.pause() if self.playing else self.play()

    def _tick(self) -> None:
        s = self.session
        if not self.playing or s.busy:
            return
        if self.replaying and self.scrub is not None:
            if not self.scrub():
                self.pause("Autoplay: the end of this branch of the history.")
            return
        if s.read_only:
            self.pause("Autoplay: read-only; nothing can run here.")
            return
        status = s.status_view().status
        if status in ("done", "interrupted", "failed"):
            self.pause(f"Autoplay stopped: the run is {status}.")
            return
        started = s.step() if self.mode == "node" else s.step_superstep()
        if not started:
            self.pause("Autoplay stopped: the step was refused.")

    def _on_finished(self, _name: str, result: Any) -> None:
        if not self.playing:
            return
        reason = getattr(result, "reason", None)
        if isinstance(result, Exception):
            self.pause(f"Autoplay stopped: {result}")
        elif reason in ("breakpoint", "interrupted", "failed", "done"):
            self.pause(f"Autoplay stopped: {reason}.")
        elif self.session.status_view().status in STOP_STATUSES:
            self.pause(f"Autoplay stopped: the run is {self.session.status_view().status}.")
