"""What a checkpoint is, and the interface every checkpoint store implements.

A checkpoint is the state of a thread after one superstep: the channel values, which
checkpoint last changed each channel (its *version*), the join barriers' progress, the
plan of the next superstep, and where it sits in the thread's tree (its parent).
Writes of tasks that finished in a superstep that has not committed yet are kept beside
the checkpoint the superstep started from, as *pending writes*, so that a crash or an
interrupt never re-runs a task whose result was already saved.

Stores: `InMemorySaver` (memory.py) and `SqliteSaver` (sqlite.py). One contract test
suite runs against both.
"""
from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .langgraph_api import LangGraphSaverAPI

__all__ = [
    "Checkpoint",
    "CheckpointHeader",
    "PlannedTask",
    "PendingWrite",
    "ThreadInfo",
    "BaseCheckpointSaver",
    "new_checkpoint_id",
    "now_iso",
    "ROUTE",
    "SEND",
    "INTERRUPT",
    "ERROR",
    "RESUME",
    "DONE",
]

# Channels of pending writes that are not state keys.
ROUTE = "__route__"  # value: a node name the task's edges/router/Command triggered
SEND = "__send__"  # value: a Send the task emitted
INTERRUPT = "__interrupt__"  # value: an Interrupt the task raised
ERROR = "__error__"  # value: {"type": ..., "message": ..., "traceback": ...}
RESUME = "__resume__"  # value: list of resume values handed to the task, in order
DONE = "__done__"  # value: None; a task that finished with no writes and no routes


@dataclass(frozen=True, kw_only=True)
class PlannedTask:
    """One task of a planned superstep: which node runs, and why it was triggered."""

    id: str
    name: str
    trigger: str
    """Why it runs: "start", "edge:a" (a plain edge from a), "join:a+b", "branch:a"
    (a's router), "command:a" (a's Command goto), "send:a" (a Send emitted by a)."""
    is_send: bool = False
    arg: Any = None
    """The Send's argument, the node's input instead of the state (only when is_send)."""


@dataclass(frozen=True, kw_only=True)
class PendingWrite:
    """A write of a task that finished in a superstep that has not committed yet."""

    task_id: str
    task_name: str
    channel: str
    value: Any


@dataclass(frozen=True, kw_only=True)
class Checkpoint:
    """The state of a thread after one superstep."""

    id: str
    thread_id: str
    parent_id: str | None
    step: int
    source: str
    """"input" (the run's input saved), "loop" (a superstep), "update" (update_state),
    "fork" (a copy of an older checkpoint that a replay starts from)."""
    created_at: str
    values: Mapping[str, Any]
    """State channel values; a channel with no value yet is absent."""
    versions: Mapping[str, str]
    """Channel -> id of the checkpoint that last changed it."""
    barriers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Join barrier name -> the sources that arrived so far."""
    tasks: tuple[PlannedTask, ...] = ()
    """The next superstep's plan; empty when the run is finished."""
    nodes_ran: tuple[str, ...] = ()
    """The nodes whose writes made this checkpoint (for update_state's default as_node)."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """Free-form, JSON-like: user metadata, run id, the diff summary..."""

    @property
    def next(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tasks)


@dataclass(frozen=True, kw_only=True)
class CheckpointHeader:
    """A checkpoint without its values: what a timeline of 100,000 rows needs."""

    id: str
    thread_id: str
    parent_id: str | None
    step: int
    source: str
    created_at: str
    next: tuple[str, ...]
    nodes_ran: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class ThreadInfo:
    thread_id: str
    checkpoints: int
    latest_id: str
    updated_at: str


_PROCESS_TAG = os.urandom(3).hex()
_last_ms = 0
_seq = 0


def new_checkpoint_id() -> str:
    """A unique id that sorts in creation order: milliseconds, a sequence within the
    millisecond, and a per-process tag (so two processes writing one file never clash).

    Module-level so a test can patch it to make histories comparable.
    """
    global _last_ms, _seq
    ms = time.time_ns() // 1_000_000
    if ms <= _last_ms:
        ms = _last_ms
        _seq += 1
    else:
        _last_ms, _seq = ms, 0
    return f"{ms:012x}-{_seq:06x}-{_PROCESS_TAG}"


_iso_second = -1
_iso_prefix = ""


def now_iso() -> str:
    """The current time as ISO 8601 UTC (microseconds); module-level so tests can patch it.

    Formats the date part once per second: it is called on every superstep."""
    global _iso_second, _iso_prefix
    now_us = time.time_ns() // 1000
    second, micros = divmod(now_us, 1_000_000)
    if second != _iso_second:
        _iso_second = second
        _iso_prefix = datetime.fromtimestamp(second, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{_iso_prefix}.{micros:06d}+00:00"


def new_task_id(checkpoint_id: str, index: int, name: str) -> str:
    """Deterministic: the same plan of the same checkpoint yields the same task ids."""
    return f"{checkpoint_id}/{index}"


class BaseCheckpointSaver(LangGraphSaverAPI, ABC):
    """A checkpoint store. Methods are synchronous and cheap per call (they touch only
    what changed), so the run calls them inline; the studio calls the listing methods
    off its UI thread. LangGraph's forms of the same methods (a config first) and their
    async twins come from LangGraphSaverAPI."""

    @abstractmethod
    def put(
        self,
        checkpoint: Checkpoint,
        *,
        appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None,
    ) -> None:
        """Store `checkpoint` atomically (one transaction) and drop the pending writes of
        its parent, which it supersedes.

        Channels whose version equals `checkpoint.id` changed in this checkpoint and must
        be stored; the others are already stored under their version. `appended[ch] =
        (base_version, items)` says that the new value of `ch` is the value stored under
        `base_version` plus `items` (a list append), so a store may keep only the items.
        """

    @abstractmethod
    def put_writes(self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite]) -> None:
        """Durably keep writes of a task that finished in the superstep after `checkpoint_id`."""

    @abstractmethod
    def get(self, thread_id: str, checkpoint_id: str | None = None) -> Checkpoint | None:
        """One checkpoint, or the thread's latest when `checkpoint_id` is None."""

    @abstractmethod
    def pending_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        """The pending writes kept beside `checkpoint_id`, in the order they were put."""

    @abstractmethod
    def list(
        self, thread_id: str, *, before: str | None = None, limit: int | None = None
    ) -> Iterator[Checkpoint]:
        """The thread's checkpoints newest first (lazily), optionally older than `before`."""

    @abstractmethod
    def list_headers(
        self, thread_id: str, *, before: str | None = None, limit: int | None = None
    ) -> Iterator[CheckpointHeader]:
        """Like list() without values: cheap enough for a timeline of 100,000 rows."""

    @abstractmethod
    def threads(self) -> list[ThreadInfo]:
        """Every thread in the store, most recently updated first."""

    @abstractmethod
    def delete_thread(self, thread_id: str) -> None: ...

    def close(self) -> None:
        """Release files and connections; the default has none."""

    def __enter__(self) -> BaseCheckpointSaver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
