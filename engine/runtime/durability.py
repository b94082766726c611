"""How a run hands its saves to the store under durability="exit" and "async".

- "sync" (and no durability given): the Run calls the store inline; a superstep's save
  has returned before the next superstep starts. No object here.
- "exit" (`HeldSaves`): LangGraph's "exit" durability saves only the checkpoint the run
  ends on (done, interrupted or failed), with the pending writes of its unfinished
  superstep; `flush` writes the last one.
- "async" (`BackgroundSaves`): saves go, in order, to a queue that a writer thread
  drains while the run goes on with the next supersteps. When the writer falls behind
  (a store's round trip longer than a superstep), it hands the saves waiting in the queue
  to the store together: a store that can (`engine_save_many`, PostgreSQL) writes them
  in one transaction, any other one by one. Every checkpoint is still stored, in order.
  The queue is bounded (the run waits when it is full), and the end of the run waits for
  it to drain: when invoke() or stream() returns, everything is stored. A save that
  failed stops the writer (nothing after it is stored) and raises its error at the run's
  next save or at its end, so the run fails with it instead of losing it.

Both answer `save(run, ckpt, appended)`, `put_writes(run, writes)`, `flush(run)` (the run
ends: store what is held or in flight) and `settle()` (wait for what is in flight only).
"""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..checkpoint.jobs import Appended, PutJob, SaveJob, WritesJob, save_each
from .workers import WorkerPool

if TYPE_CHECKING:
    from ..checkpoint.base import Checkpoint, PendingWrite
    from .protocols import RunHandle

__all__ = ["HeldSaves", "BackgroundSaves", "saves_for", "store_jobs", "MAX_QUEUED", "MAX_BATCH"]

class HeldSaves:
    """durability="exit": the latest unsaved checkpoint of a run, and the writes kept beside it."""

    __slots__ = ("last", "parent_id", "stored", "writes")

    def __init__(self) -> None:
        self.last: Checkpoint | None = None
        self.parent_id: str | None = None
        self.stored: set[str] = set()
        """Channel versions already in the store (those of the checkpoint the run began on)."""
        self.writes: list[PendingWrite] = []

    def save(self, run: RunHandle, ckpt: Checkpoint, appended: Appended = None) -> None:
        if self.last is None:
            self.parent_id = ckpt.parent_id
            self.stored = {v for v in ckpt.versions.values() if v != ckpt.id}
        self.last = ckpt
        self.writes = []  # writes of the superstep before belong to a checkpoint never saved

    def put_writes(self, run: RunHandle, writes: list[PendingWrite]) -> None:
        self.writes.extend(writes)

    def flush(self, run: RunHandle) -> None:
        """Save the last held checkpoint (as the child of the last saved one) and its writes."""
        last, writes = self.last, self.writes
        if last is None or run.saver is None:
            return
        self.last, self.writes = None, []
        stored = self.stored
        versions = {k: (v if v in stored else last.id) for k, v in last.versions.items()}
        run.saver.save(replace(last, versions=versions, parent_id=self.parent_id))
        if writes:
            run.saver.save_writes(last.thread_id, last.id, writes)

    def settle(self) -> None:
        """Nothing is in flight: held saves are written by `flush` only."""


_WRITERS = WorkerPool("engine-save", keep=4)
"""The writer threads shared by every async run (daemon threads, as the node workers;
a run drains its queue on one of them and waits for it before it ends)."""

_make = tuple.__new__
"""A job made as a plain tuple is (the generated `__new__` of a NamedTuple costs a call more per save)."""

MAX_QUEUED = 64
"""Saves an async run may have waiting for the writer; the next one waits for room (this
bounds the memory held and how far the store lags behind the run)."""
MAX_BATCH = 32
"""Saves handed to the store together, at most."""


def store_jobs(saver: Any, jobs: Sequence[SaveJob]) -> None:
    """Store queued saves in order (`PutJob`, `WritesJob`). A store with `engine_save_many` takes them all
    (one transaction where it can); otherwise one call each. Raises at the first that fails;
    those before it are stored, none after it."""
    many = getattr(saver, "engine_save_many", None)
    if many is not None and len(jobs) > 1:
        many(jobs)
        return
    save_each(saver, jobs)


class BackgroundSaves:
    """durability="async": the run's saves, queued in order for a writer thread that
    stores them (together when it falls behind); waited for at the end of the run, and a
    failed save's error raised at the next save or there."""

    __slots__ = ("_saver", "_jobs", "_cond", "_draining", "_error")

    def __init__(self, saver: Any) -> None:
        self._saver = saver
        self._jobs: deque[SaveJob] = deque()
        self._cond = threading.Condition(threading.Lock())
        self._draining = False
        """A writer is storing this run's queue (it stops when the queue is empty)."""
        self._error: BaseException | None = None

    def save(self, run: RunHandle, ckpt: Checkpoint, appended: Appended = None) -> None:
        self._queue(_make(PutJob, (ckpt, appended)))

    def put_writes(self, run: RunHandle, writes: list[PendingWrite]) -> None:
        assert run.checkpoint is not None
        self._queue(_make(WritesJob, (run.store_key, run.checkpoint.id, writes)))

    def _queue(self, job: SaveJob) -> None:
        cond = self._cond
        with cond:
            while self._error is None and len(self._jobs) >= MAX_QUEUED:
                cond.wait()
            error, self._error = self._error, None
            if error is None:
                self._jobs.append(job)
                start, self._draining = not self._draining, True
        if error is not None:
            raise error
        if start:
            _WRITERS.submit(self._drain)

    def _drain(self) -> None:
        """On a writer thread: store the queue's saves until it is empty or one fails."""
        cond, jobs = self._cond, self._jobs
        while True:
            with cond:
                if not jobs:
                    self._draining = False
                    cond.notify_all()
                    return
                batch = [jobs.popleft() for _ in range(min(len(jobs), MAX_BATCH))]
                cond.notify_all()  # room in the queue
            try:
                store_jobs(self._saver, batch)
            except BaseException as exc:  # noqa: BLE001 - raised on the run's thread
                with cond:
                    self._error = exc
                    jobs.clear()  # nothing after a failed save is stored
                    self._draining = False
                    cond.notify_all()
                return
            del batch

    def flush(self, run: RunHandle) -> None:
        self.settle()

    def settle(self) -> None:
        """Wait until every queued save is stored; raise the error of one that failed."""
        cond = self._cond
        with cond:
            while self._draining:
                cond.wait()
            error, self._error = self._error, None
        if error is not None:
            raise error


def saves_for(durability: str | None, saver: Any) -> HeldSaves | BackgroundSaves | None:
    """What a run with `durability` hands its saves to (None: the store, inline)."""
    if saver is None:
        return None
    if durability == "exit":
        return HeldSaves()
    if durability == "async":
        return BackgroundSaves(saver)
    return None
