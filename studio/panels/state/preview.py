"""The edit dialog's dry runs, off the UI thread: at most one at a time, bounded in time.

A dry run calls the graph's reducers and routers (user code: a router may call a model, a
node may never return), so it runs as a `studio.core.dryrun.DryRun` on a daemon worker
thread, never the UI thread. The UI polls for the result (no cross-thread signal to a
dialog that may be gone), drops results of earlier requests, and says so when one runs
past `TIMEOUT_S`. Only one dry run is in flight in the whole process (`SLOT`, shared with
edit-and-fork): while one hangs, the next request waits (the latest replaces any waiting
one), so a never-returning router cannot pile up threads.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from studio.core.dryrun import POLL_S, SLOT, TIMEOUT_S, DryRun

__all__ = ["PreviewRunner", "TIMEOUT_S"]


class PreviewRunner(QObject):
    """Runs the latest requested dry run; `ready(gen, result)` on the UI thread (a result
    or the exception it raised), `late(gen, label)` once when it runs past TIMEOUT_S."""

    ready = Signal(int, object)
    late = Signal(int, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._mine: DryRun | None = None
        self._waiting: DryRun | None = None
        self.latest = 0
        """The generation whose result is wanted; others are dropped."""
        self._asked = 0.0
        self._late_gen = 0
        self._poll = QTimer(self)
        self._poll.setInterval(int(POLL_S * 1000))
        self._poll.timeout.connect(self._check)

    def submit(self, work: Callable[[Callable[[str], None]], Any]) -> int:
        """Ask for a dry run (it replaces any that has not started); its generation."""
        self.latest += 1
        self._waiting = DryRun(self.latest, work)
        self._asked = time.monotonic()
        self._start_waiting()
        self._poll.start()
        return self.latest

    def forget(self) -> None:
        """Drop what is waiting and any result to come (e.g. nothing to preview now)."""
        self.latest += 1
        self._waiting = None

    def busy(self) -> bool:
        """A wanted result has not come yet."""
        for job in (self._mine, self._waiting):
            if job is not None and job.gen == self.latest:
                return True
        return False

    def stop(self) -> None:
        """Stop polling (the dialog closes); a hung worker keeps the process's slot until it ends."""
        self._poll.stop()
        self._waiting = None

    def _start_waiting(self) -> None:
        if self._waiting is not None and SLOT.start(self._waiting):
            self._mine, self._waiting = self._waiting, None

    def _check(self) -> None:
        job = self._mine
        if job is not None and job.done.is_set():
            self._mine = None
            if job.gen == self.latest:
                self.ready.emit(job.gen, job.result)
        self._start_waiting()
        running = SLOT.running()
        since = min(self._asked, running.started if running is not None else self._asked)
        if running is not None and self.busy() and self._late_gen != self.latest \
                and time.monotonic() - since > TIMEOUT_S:
            self._late_gen = self.latest
            self.late.emit(self.latest, running.label)
        if self._mine is None and self._waiting is None:
            self._poll.stop()
