"""User code the studio calls outside a run (an edit's routers and reducers), off the
UI thread, one call at a time in the whole process (Qt-free).

A router may call a model, or never return. Python cannot kill a thread, so such a call
runs on a daemon worker thread as a `DryRun`: whoever asked polls it (never blocks on it),
may say what runs now (`label`) once it runs past `TIMEOUT_S`, and may abandon it (its
result is dropped when it comes). Only one runs in the process (`SLOT`): while one hangs,
the next waits for the slot, so a never-returning router cannot pile up threads. The edit
dialog's previews (studio.panels.state.preview) and edit-and-fork (studio.session.travel)
both go through here.
"""
from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["DryRun", "DryRunSlot", "SLOT", "TIMEOUT_S", "POLL_S", "run_in_slot"]

TIMEOUT_S = 2.0
"""After this long without a result, the asker says what is still running."""
POLL_S = 0.025


class DryRun:
    """One call: `work(report)` on a worker thread; `report(label)` says what runs now."""

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
        except BaseException as exc:  # noqa: BLE001 - user code: the asker shows the error
            self.result = exc
        finally:
            self.done.set()

    def _report(self, label: str) -> None:
        self.label = label  # one attribute store: read by the asker's thread as is


class DryRunSlot:
    """The process's one running DryRun."""

    def __init__(self) -> None:
        self._in_flight: DryRun | None = None

    def running(self) -> DryRun | None:
        job = self._in_flight
        return job if job is not None and not job.done.is_set() else None

    def start(self, job: DryRun) -> bool:
        """Start `job` on a daemon thread if the slot is free; False if another runs."""
        if self.running() is not None:
            return False
        job.started = time.monotonic()
        self._in_flight = job
        threading.Thread(target=job.run, name="retrograph-edit-preview", daemon=True).start()
        return True


SLOT = DryRunSlot()


async def run_in_slot(work: Callable[[Callable[[str], None]], Any],
                      on_late: Callable[[str, float], None] | None = None) -> Any:
    """Await `work(report)` run as a DryRun in `SLOT` (after any other in it), polling from
    the event loop. Once it has run (or waited for the slot) past TIMEOUT_S, `on_late(label,
    seconds)` says what is still running, then again each second. Cancelling the awaiting
    task abandons it: the thread runs on until the user code returns, and its result is
    dropped. Returns the result, or raises what `work` raised."""
    job = DryRun(0, work)
    asked = time.monotonic()
    tell = TIMEOUT_S
    while not (job.started or SLOT.start(job)) or not job.done.is_set():
        waited = time.monotonic() - asked
        if on_late is not None and waited > tell:
            tell = waited + 1.0
            other = SLOT.running() if not job.started else None
            on_late(other.label if other is not None else job.label, waited)
        await asyncio.sleep(POLL_S)
    if isinstance(job.result, BaseException):
        raise job.result
    return job.result
