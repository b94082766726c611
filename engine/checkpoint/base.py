"""What a checkpoint is, and the interface every checkpoint store implements.

A checkpoint is the state of a thread after one superstep: the channel values, which
checkpoint last changed each channel (its *version*), the join barriers' progress, the
plan of the next superstep, and where it sits in the thread's tree (its parent).
Writes of tasks that ran in the superstep after a checkpoint are kept beside it, as
*pending writes*: so that a crash or an interrupt never re-runs a task whose result was
already saved, and, once the superstep commits, as the record of what its tasks did
(results, errors, interrupts and the answers they got), which history shows.

Stores: `InMemorySaver` (memory.py) and `SqliteSaver` (sqlite.py). One contract test
suite runs against both. The records live in data.py and the ids and clock in ids.py;
they are re-exported here.
"""
from __future__ import annotations

import builtins
from abc import ABC
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, Generic

from typing_extensions import Self, TypeVar

from .data import (
    DONE,
    ERROR,
    HANDLED,
    INTERRUPT,
    RESUME,
    ROUTE,
    SEND,
    Checkpoint,
    CheckpointHeader,
    CheckpointSource,
    PendingWrite,
    PlannedTask,
    ThreadInfo,
)
from .ids import NS_SEP, uuid6, new_checkpoint_id, new_task_id, now_iso, ns_thread_key, split_thread_key
from .delta_history import DeltaChannelHistory, DeltaHistoryAPI
from .langgraph_api import LangGraphSaverAPI

__all__ = [
    "Checkpoint",
    "CheckpointHeader",
    "CheckpointSource",
    "PlannedTask",
    "PendingWrite",
    "ThreadInfo",
    "BaseCheckpointSaver",
    "DeltaChannelHistory",
    "first_child",
    "head_by_calls",
    "keeps_own_methods",
    "read_head",
    "read_state",
    "state_by_calls",
    "scan_first_child",
    "uuid6",
    "new_checkpoint_id",
    "new_task_id",
    "now_iso",
    "ROUTE",
    "SEND",
    "INTERRUPT",
    "ERROR",
    "HANDLED",
    "RESUME",
    "DONE",
    "NS_SEP",
    "ns_thread_key",
    "split_thread_key",
]

def scan_first_child(saver: Any, thread_id: str, checkpoint_id: str) -> str | None:
    """`first_child` by reading the thread's headers newest first down to the checkpoint
    (a child is always put after its parent): for a store without a by-parent lookup."""
    first = None
    for header in saver.list_headers(thread_id):
        if header.id == checkpoint_id:
            break
        if header.parent_id == checkpoint_id:
            first = header.id
    return first


def first_child(saver: Any, thread_id: str, checkpoint_id: str) -> str | None:
    """`saver.first_child(...)`, or a scan of its headers for a reader that has none."""
    lookup = getattr(saver, "first_child", None)
    if lookup is None:
        return scan_first_child(saver, thread_id, checkpoint_id)
    return lookup(thread_id, checkpoint_id)  # type: ignore[no-any-return]


def read_state(saver: Any, thread_id: str, checkpoint_id: str) -> tuple[Any, Any, builtins.list[Any]]:
    """What `get_state` of an older checkpoint reads: the checkpoint (or None), its first
    child (or None) and its pending writes; `saver.load_state(...)` when the store reads
    them in one go (PostgreSQL: one statement), else three or four calls."""
    together = getattr(saver, "load_state", None)
    if together is not None:
        return together(thread_id, checkpoint_id)  # type: ignore[no-any-return]
    return state_by_calls(saver, thread_id, checkpoint_id)


def state_by_calls(saver: Any, thread_id: str, checkpoint_id: str) -> tuple[Any, Any, builtins.list[Any]]:
    """`read_state` by the saver's own calls: `load`, `first_child` (or a scan of the
    headers), `load` of the child, `pending_writes`."""
    ckpt = saver.load(thread_id, checkpoint_id)
    if ckpt is None:
        return None, None, []
    first = first_child(saver, thread_id, ckpt.id)
    child = saver.load(thread_id, first) if first is not None else None
    return ckpt, child, saver.pending_writes(thread_id, ckpt.id)


def read_head(saver: Any, thread_id: str) -> tuple[Any, builtins.list[Any]]:
    """What `get_state` of a thread's head reads: its newest checkpoint (or None) and that
    checkpoint's pending writes; `saver.load_head(...)` when the store reads both in one
    snapshot (SQLite: one statement), else two calls."""
    together = getattr(saver, "load_head", None)
    if together is not None:
        return together(thread_id)  # type: ignore[no-any-return]
    return head_by_calls(saver, thread_id)


def head_by_calls(saver: Any, thread_id: str) -> tuple[Any, builtins.list[Any]]:
    """`read_head` by the saver's own calls: `load` of the newest, its `pending_writes`."""
    ckpt = saver.load(thread_id, None)
    return ckpt, saver.pending_writes(thread_id, ckpt.id) if ckpt is not None else []


_MIXER_OF: dict[tuple[type, type], type] = {}
"""(a store's class, a mixin of its reads) -> the class that mixes it in, found once."""


def keeps_own_methods(obj: Any, mixin: type, names: Sequence[str]) -> bool:
    """Whether `obj`'s class takes each of `names` from the class that mixes `mixin` in
    (the store's own class): False when a subclass overrides one, so that a store's
    one-statement read is used only where it reads what the store's own methods would."""
    cls = type(obj)
    owner = _MIXER_OF.get((cls, mixin))
    if owner is None:
        owner = _MIXER_OF[cls, mixin] = next(c for c in cls.__mro__ if mixin in c.__bases__)
    return all(getattr(cls, name) is getattr(owner, name) for name in names)


# The type of channel versions (LangGraph's savers are generic in it); every saver here uses str.
V = TypeVar("V", int, float, str, default=str)


class BaseCheckpointSaver(LangGraphSaverAPI, DeltaHistoryAPI, ABC, Generic[V]):
    """A checkpoint store, in the engine's own words: `save`, `save_writes`, `load`,
    `pending_writes`, `history`, `list_headers`, `threads`, `delete_thread` (and the
    async twins `asave`, `asave_writes`, `aload`, `ahistory`). Methods are synchronous
    and cheap per call (they touch only what changed), so the run calls them inline; the
    studio calls the listing methods off its UI thread.

    LangGraph's methods of the same store (`put`, `put_writes`, `get_tuple`, `get`,
    `list`, their async twins) are ordinary methods of LangGraphSaverAPI that translate
    onto this protocol; a subclass may override them (routing.py).

    As LangGraph's base class, it can be made as it is (`super().__init__(serde=...)` from
    a saver written for LangGraph): a protocol method the subclass lacks raises
    NotImplementedError naming it when called, not TypeError when the saver is made."""

    def __init__(self, *, serde: Any = None) -> None:
        if serde is None:
            from .serde import Serializer

            serde = Serializer()
        self.serde = serde

    def _missing(self, method: str) -> NotImplementedError:
        return NotImplementedError(
            f"{type(self).__name__} does not implement `{method}`: a checkpoint store subclassing "
            f"BaseCheckpointSaver defines it (or LangGraph's put/put_writes/get_tuple/list, which the run "
            "then calls instead)")

    def save(
        self,
        checkpoint: Checkpoint,
        *,
        appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None,
    ) -> None:
        """Store `checkpoint` atomically (one transaction). The pending writes of its
        parent stay: they are the record of the superstep that made it.

        Channels whose version equals `checkpoint.id` changed in this checkpoint and must
        be stored; the others are already stored under their version. `appended[ch] =
        (base_version, items)` says that the new value of `ch` is the value stored under
        `base_version` plus `items` (a list append), so a store may keep only the items.
        """
        raise self._missing("save")

    def save_writes(self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite]) -> None:
        """Durably keep writes of a task that finished in the superstep after `checkpoint_id`."""
        raise self._missing("save_writes")

    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Checkpoint | None:
        """One checkpoint, or the thread's latest when `checkpoint_id` is None."""
        raise self._missing("load")

    def pending_writes(self, thread_id: str, checkpoint_id: str) -> builtins.list[PendingWrite]:
        """The pending writes kept beside `checkpoint_id`, in the order they were put."""
        raise self._missing("pending_writes")

    def history(
        self, thread_id: str, *, before: str | None = None, limit: int | None = None
    ) -> Iterator[Checkpoint]:
        """The thread's checkpoints newest first (lazily), optionally older than `before`."""
        raise self._missing("history")

    def list_headers(
        self, thread_id: str, *, before: str | None = None, limit: int | None = None
    ) -> Iterator[CheckpointHeader]:
        """Like history() without values: cheap enough for a timeline of 100,000 rows."""
        raise self._missing("list_headers")

    def threads(self) -> builtins.list[ThreadInfo]:
        """Every thread in the store, most recently updated first."""
        raise self._missing("threads")

    def delete_thread(self, thread_id: str) -> None:
        """Forget the thread, its subgraphs' namespaces included."""
        raise self._missing("delete_thread")

    # -- async twins (inline: every method is cheap; a store with slow I/O overrides them) --
    async def asave(self, checkpoint: Checkpoint, *,
                    appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None) -> None:
        self.save(checkpoint, appended=appended)

    async def asave_writes(self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite]) -> None:
        self.save_writes(thread_id, checkpoint_id, writes)

    async def aload(self, thread_id: str, checkpoint_id: str | None = None) -> Checkpoint | None:
        return self.load(thread_id, checkpoint_id)

    async def ahistory(self, thread_id: str, *, before: str | None = None,
                       limit: int | None = None) -> AsyncIterator[Checkpoint]:
        for found in self.history(thread_id, before=before, limit=limit):
            yield found

    def first_child(self, thread_id: str, checkpoint_id: str) -> str | None:
        """The id of the oldest checkpoint of `thread_id` whose parent is `checkpoint_id`
        (the one that checkpoint's own superstep made; later children are forks and
        updates), or None. The stores answer from an index in a bounded number of reads;
        this default, for a store without one, scans the thread's headers."""
        return scan_first_child(self, thread_id, checkpoint_id)

    def namespaces(self, thread_id: str) -> Sequence[str]:
        """The subgraph checkpoint namespaces stored for `thread_id` (not ""), in the order
        they were first written. Stores that keep no subgraph history return []."""
        return []

    def close(self) -> None:
        """Release files and connections; the default has none."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
