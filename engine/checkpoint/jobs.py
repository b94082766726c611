"""The saves a durability="async" run queues for its writer thread, read by name by the
writer (`engine.runtime.durability.store_jobs`) and by a store that takes them together
(`PostgresSaver.engine_save_many`). Plain named tuples: as cheap to make as the tuples
they replace, one per save."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

if TYPE_CHECKING:
    from .data import Checkpoint, PendingWrite

__all__ = ["PutJob", "WritesJob", "SaveJob", "Appended", "save_each"]

Appended: TypeAlias = "Mapping[str, tuple[str, Sequence[Any]]] | None"
"""Channel -> (the version it grew from, the items appended): lets a store save a list's tail."""


class PutJob(NamedTuple):
    """Store a checkpoint (`saver.save(checkpoint, appended=appended)`)."""

    checkpoint: Checkpoint
    appended: Appended


class WritesJob(NamedTuple):
    """Store pending writes beside a checkpoint (`saver.save_writes(thread_key, checkpoint_id, writes)`)."""

    thread_key: str
    checkpoint_id: str
    writes: Sequence[PendingWrite]


SaveJob: TypeAlias = "PutJob | WritesJob"


def save_each(saver: Any, jobs: Sequence[SaveJob]) -> None:
    """Store `jobs` in order, one `save` or `save_writes` call each (a subclass's own
    override included). Raises at the first that fails; those before it are stored."""
    for job in jobs:
        if type(job) is PutJob:
            saver.save(job.checkpoint, appended=job.appended)
        else:
            assert type(job) is WritesJob
            saver.save_writes(job.thread_key, job.checkpoint_id, job.writes)
