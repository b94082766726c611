"""The explanation records: why each task of a superstep runs, what it wrote, how the
reducers merge it. Plain frozen data, shared by `retrograph run --explain` and the studio.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "ReasonKind",
    "Reason",
    "TaskReason",
    "JoinWait",
    "SendBatch",
    "PendingWrite",
    "Conflict",
    "KeyMerge",
    "Superstep",
]

ReasonKind = Literal["input", "edge", "branch", "command", "join", "send", "update", "resume", "deferred", "other"]


@dataclass(frozen=True, kw_only=True)
class Reason:
    """One cause of a task: the edge, branch, join, Send or Command that triggered it."""

    kind: ReasonKind
    source: str = ""
    """The node whose finish triggered it ("" for the input and an update)."""
    sources: tuple[str, ...] = ()
    """For a join: every node it waited for."""
    label: str = ""
    """For a branch: the router's answer (path_map key) that led here, when it differs
    from the node's name."""
    text: str = ""
    """The reason in words: "edge search_web → rank_web"."""


@dataclass(frozen=True, kw_only=True)
class TaskReason:
    """One task of a superstep and why it runs."""

    task_id: str
    node: str
    reasons: tuple[Reason, ...]
    send_index: int = 0
    """For a Send task: its place among the Sends to the same node (1-based), else 0."""
    send_count: int = 0
    arg: Any = None
    """A Send's argument (what the task gets instead of the state)."""
    sentence: str = ""
    """One sentence: why this node runs next."""


@dataclass(frozen=True, kw_only=True)
class JoinWait:
    """A waiting edge (add_edge([a, b], c)) that has not fired yet."""

    target: str
    sources: tuple[str, ...]
    arrived: tuple[str, ...]
    missing: tuple[str, ...]
    sentence: str = ""


@dataclass(frozen=True, kw_only=True)
class SendBatch:
    """The Send tasks of a superstep that go to one node."""

    node: str
    count: int
    senders: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class PendingWrite:
    """A write of a task that finished: kept aside until its superstep commits."""

    node: str
    task_id: str
    key: str
    value: Any
    reducer: str
    how: str
    """The reducer's one-line explanation."""


@dataclass(frozen=True, kw_only=True)
class Conflict:
    """Writes the commit cannot merge (or merges in a way that loses one)."""

    key: str
    nodes: tuple[str, ...]
    text: str


@dataclass(frozen=True, kw_only=True)
class KeyMerge:
    """How one key's writes were merged by its reducer in a commit."""

    key: str
    reducer: str
    how: str
    writers: tuple[str, ...]
    """The writing nodes, in the order the reducer applied their writes (repeats kept)."""
    before: Any
    after: Any
    changed: bool = True
    """False when the reducer returned the very same value (an identity check, kept cheap)."""


@dataclass(frozen=True, kw_only=True)
class Superstep:
    """One superstep explained: the tasks that run together on one snapshot, and why;
    the joins still waiting; the writes kept aside so far; once committed, the merges."""

    step: int
    """The step number of the checkpoint this superstep will make."""
    snapshot_id: str
    """The checkpoint every task of this superstep reads (the same snapshot for all)."""
    tasks: tuple[TaskReason, ...]
    waiting: tuple[JoinWait, ...] = ()
    deferred: tuple[str, ...] = ()
    """Deferred nodes (defer=True) triggered and waiting until nothing else runs."""
    sends: tuple[SendBatch, ...] = ()
    finished: tuple[str, ...] = ()
    """Ids of the tasks that finished (their writes are `pending` until the commit)."""
    pending: tuple[PendingWrite, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    merges: tuple[KeyMerge, ...] = ()
    """Filled when the superstep committed."""
    committed_id: str = ""
    """The checkpoint the commit made ("" until then)."""

    def task_for(self, node: str) -> TaskReason | None:
        return next((t for t in self.tasks if t.node == node), None)

    def nodes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t.node for t in self.tasks))
