"""How a run hands its saves to the store under durability="exit" and "async".

- "sync" (and no durability given): the Run calls the store inline; a superstep's save
  has returned before the next superstep starts. No object here.
- "exit" (`HeldSaves`): LangGraph's "exit" durability saves only the checkpoint the run
  ends on (done, interrupted or failed), with the pending writes of its unfinished
  superstep; `flush` writes the last one.
- "async" (`BackgroundSaves`): each save runs on a writer thread while the run goes on
  with the next superstep. The next save waits for it first (so saves keep their order
  and at most one is in flight), and so does the end of the run: when invoke() or
  stream() returns, everything is stored. A save that failed raises its error at that
  next wait, so the run fails with it instead of losing it.

Both answer `save(run, ckpt, appended)`, `put_writes(run, writes)`, `flush(run)` (the run
ends: store what is held or in flight) and `settle()` (wait for what is in flight only).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from .workers import WorkerPool

if TYPE_CHECKING:
    from ..checkpoint.base import Checkpoint, PendingWrite
    from .run import Run

__all__ = ["HeldSaves", "BackgroundSaves", "saves_for"]

Appended = Mapping[str, tuple[str, Sequence[Any]]] | None


class HeldSaves:
    """durability="exit": the latest unsaved checkpoint of a run, and the writes kept beside it."""

    __slots__ = ("last", "parent_id", "stored", "writes")

    def __init__(self) -> None:
        self.last: Checkpoint | None = None
        self.parent_id: str | None = None
        self.stored: set[str] = set()
        """Channel versions already in the store (those of the checkpoint the run began on)."""
        self.writes: list[PendingWrite] = []

    def save(self, run: Run, ckpt: Checkpoint, appended: Appended = None) -> None:
        if self.last is None:
            self.parent_id = ckpt.parent_id
            self.stored = {v for v in ckpt.versions.values() if v != ckpt.id}
        self.last = ckpt
        self.writes = []  # writes of the superstep before belong to a checkpoint never saved

    def put_writes(self, run: Run, writes: list[PendingWrite]) -> None:
        self.writes.extend(writes)

    def flush(self, run: Run) -> None:
        """Save the last held checkpoint (as the child of the last saved one) and its writes."""
        last, writes = self.last, self.writes
        if last is None or run.saver is None:
            return
        self.last, self.writes = None, []
        stored = self.stored
        versions = {k: (v if v in stored else last.id) for k, v in last.versions.items()}
        run.saver.put(replace(last, versions=versions, parent_id=self.parent_id))
        if writes:
            run.saver.put_writes(last.thread_id, last.id, writes)

    def settle(self) -> None:
        """Nothing is in flight: held saves are written by `flush` only."""


_WRITERS = WorkerPool("engine-save", keep=4)
"""The writer threads shared by every async run (daemon threads, as the node workers;
each run has at most one save in flight and waits for it before it ends)."""


class BackgroundSaves:
    """durability="async": one save in flight on a writer thread, waited for before the
    next save and at the end of the run; its error is raised there."""

    __slots__ = ("_inflight",)

    def __init__(self) -> None:
        self._inflight: Future[None] | None = None

    def save(self, run: Run, ckpt: Checkpoint, appended: Appended = None) -> None:
        assert run.saver is not None
        self.settle()
        self._inflight = _WRITERS.submit(partial(run.saver.put, ckpt, appended=appended))

    def put_writes(self, run: Run, writes: list[PendingWrite]) -> None:
        assert run.saver is not None and run.checkpoint is not None
        self.settle()
        self._inflight = _WRITERS.submit(run.saver.put_writes, run.store_key, run.checkpoint.id, writes)

    def flush(self, run: Run) -> None:
        self.settle()

    def settle(self) -> None:
        """Wait for the save in flight; raise its error, if it failed."""
        done, self._inflight = self._inflight, None
        if done is not None:
            done.result()


def saves_for(durability: str | None, saver: Any) -> HeldSaves | BackgroundSaves | None:
    """What a run with `durability` hands its saves to (None: the store, inline)."""
    if saver is None:
        return None
    if durability == "exit":
        return HeldSaves()
    if durability == "async":
        return BackgroundSaves()
    return None
