"""What a checkpoint is: its records (`Checkpoint`, its header, the planned tasks, the
pending writes) and the channels of pending writes that are not state keys.

Plain frozen dataclasses with no dependency on any store, so the stores, the runtime and
the LangGraph-shaped API (langgraph_api.py) all import them without a cycle.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ..fast_init import fast_frozen_init

__all__ = [
    "Checkpoint", "CheckpointHeader", "CheckpointSource", "as_source", "PlannedTask", "PendingWrite", "ThreadInfo",
    "ROUTE", "SEND", "INTERRUPT", "ERROR", "RESUME", "DONE", "HANDLED",
]

# Channels of pending writes that are not state keys.
ROUTE = "__route__"  # value: a node name the task's edges/router/Command triggered
SEND = "__send__"  # value: a Send the task emitted
INTERRUPT = "__interrupt__"  # value: an Interrupt the task raised
ERROR = "__error__"  # value: {"type": ..., "message": ..., "traceback": ...}
RESUME = "__resume__"  # value: list of resume values handed to the task, in order
DONE = "__done__"  # value: None; a task that finished with no writes and no routes
HANDLED = "__handled__"  # value: the error handler node that took the task's error (with its ERROR)


@fast_frozen_init
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
    timeout: Any = None
    """The Send's own TimeoutPolicy, used instead of the node's (None: the node's)."""


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class PendingWrite:
    """A write of a task that finished in a superstep that has not committed yet."""

    task_id: str
    task_name: str
    channel: str
    value: Any

CheckpointSource = Literal["input", "loop", "update", "fork", ""]
"""What made a checkpoint: "input" (the run's input saved), "loop" (a superstep),
"update" (update_state), "fork" (a copy of an older checkpoint that a run or replay
starts from); "" when not known (a LangGraph store's checkpoint whose metadata names none)."""

_SOURCES: frozenset[str] = frozenset(get_args(CheckpointSource))


def as_source(value: object) -> CheckpointSource:
    """`value` (a source read from a foreign store or a LangGraph-form put) as a
    `CheckpointSource`; "" for anything else (the raw value stays in the metadata)."""
    return value if isinstance(value, str) and value in _SOURCES else ""  # type: ignore[return-value]


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class Checkpoint:
    """The state of a thread after one superstep."""

    id: str
    thread_id: str
    parent_id: str | None
    step: int
    source: CheckpointSource
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


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class CheckpointHeader:
    """A checkpoint without its values: what a timeline of 100,000 rows needs."""

    id: str
    thread_id: str
    parent_id: str | None
    step: int
    source: CheckpointSource
    created_at: str
    next: tuple[str, ...]
    nodes_ran: tuple[str, ...]
    owner_id: str | None = None
    """A subgraph's checkpoint: the parent graph's checkpoint whose superstep ran it, when
    the store records it (LangGraph's `metadata["parents"]`); None otherwise (Retrograph's
    own namespaces name it in their task ids)."""


@dataclass(frozen=True, kw_only=True)
class ThreadInfo:
    thread_id: str
    checkpoints: int
    latest_id: str
    updated_at: str
