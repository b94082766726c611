"""durability="exit": checkpoints and pending writes held back until the run ends.

LangGraph's "exit" durability saves only the checkpoint the run ends on (done,
interrupted or failed), with the pending writes of its unfinished superstep. A Run with
that policy hands its saves here instead of to the store; `flush` writes the last one.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..checkpoint.base import Checkpoint, PendingWrite
    from .run import Run

__all__ = ["HeldSaves"]


class HeldSaves:
    """The latest unsaved checkpoint of a run, and the writes kept beside it."""

    __slots__ = ("last", "parent_id", "stored", "writes")

    def __init__(self) -> None:
        self.last: Checkpoint | None = None
        self.parent_id: str | None = None
        self.stored: set[str] = set()
        """Channel versions already in the store (those of the checkpoint the run began on)."""
        self.writes: list[PendingWrite] = []

    def hold(self, ckpt: Checkpoint) -> None:
        if self.last is None:
            self.parent_id = ckpt.parent_id
            self.stored = {v for v in ckpt.versions.values() if v != ckpt.id}
        self.last = ckpt
        self.writes = []  # writes of the superstep before belong to a checkpoint never saved

    def put_writes(self, writes: list[PendingWrite]) -> None:
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
