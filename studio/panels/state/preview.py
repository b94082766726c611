"""The edit dialog's dry runs, off the UI thread: at most one at a time, bounded in time.

A dry run calls the graph's reducers and routers (user code: a router may call a model, a
node may never return), so it runs on a daemon worker thread, never the UI thread. The
UI polls for the result (no cross-thread signal to a dialog that may be gone), drops
results of earlier requests, and says so when one runs past `TIMEOUT_S`. Only one dry
run is in flight in the whole process: while one hangs, the next request waits (the
latest replaces any waiting one), so a never-returning router cannot pile up threads.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

__all__ = ["PreviewRunner", "TIMEOUT_S"]

TIMEOUT_S = 2.0
"""After this long without a result the dialog says the preview is unavailable."""
_POLL_MS = 25


class _Job:
    """One dry run: `work(report)` on a worker thread; `report(label)` says what runs now."""

    def __init__(self, gen: int, work: Callable[[Callable[[str], None]], Any]) -> None:
        self.gen = gen
        self.work = work
        self.label = "the dry run"
        self.result: Any = None
        self.started = 0.0
        self.done = threading.Event()

    def run(self) -> None:
        try:
            self.result = self.work(self._report)
        except BaseException as exc:  # noqa: BLE001 - user code: shown as the preview's error
            self.result = exc
        finally:
            self.done.set()

    def _report(self, label: str) -> None:
        self.label = label  # one attribute store: read by the UI thread as is


_in_flight: _Job | None = None
"""The process's one running dry run (None or done: a new one may start)."""


class PreviewRunner(QObject):
    """Runs the latest requested dry run; `ready(gen, result)` on the UI thread (a result
    or the exception it raised), `late(gen, label)` once when it runs past TIMEOUT_S."""

    ready = Signal(int, object)
    late = Signal(int, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._mine: _Job | None = None
        self._waiting: _Job | None = None
        self.latest = 0
        """The generation whose result is wanted; others are dropped."""
        self._asked = 0.0
        self._late_gen = 0
        self._poll = QTimer(self)
        self._poll.setInterval(_POLL_MS)
        self._poll.timeout.connect(self._check)

    def submit(self, work: Callable[[Callable[[str], None]], Any]) -> int:
        """Ask for a dry run (it replaces any that has not started); its generation."""
        self.latest += 1
        self._waiting = _Job(self.latest, work)
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
        global _in_flight
        if self._waiting is None or (_in_flight is not None and not _in_flight.done.is_set()):
            return
        job, self._waiting = self._waiting, None
        job.started = time.monotonic()
        _in_flight = self._mine = job
        threading.Thread(target=job.run, name="retrograph-edit-preview", daemon=True).start()

    def _check(self) -> None:
        job = self._mine
        if job is not None and job.done.is_set():
            self._mine = None
            if job.gen == self.latest:
                self.ready.emit(job.gen, job.result)
        self._start_waiting()
        running = _in_flight if _in_flight is not None and not _in_flight.done.is_set() else None
        since = min(self._asked, running.started if running is not None else self._asked)
        if running is not None and self.busy() and self._late_gen != self.latest \
                and time.monotonic() - since > TIMEOUT_S:
            self._late_gen = self.latest
            self.late.emit(self.latest, running.label)
        if self._mine is None and self._waiting is None:
            self._poll.stop()
