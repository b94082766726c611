"""The plain data that the session hands to the panels and the window: every record, here.

Panels never see the engine, the Run or the checkpointer: they receive these frozen
records (and plain Python values inside them) and emit intents as Qt signals. Keeping
the contract here lets the panels and the session be written and tested apart.

Naming: a record is named for what it holds, never "View" (views are widgets). `*Row` is
one line of a list panel (timeline, events, diff); `*Shape` is what the graph panel
draws; the rest are nouns (`GraphMarks`, `StepDiff`, `NodeDetails`, `InterruptInfo`,
`SessionStatus`, `ErrorReport`, `ThreadSummary`, `Comparison`, `WhyMarks`).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

NodeKind = Literal["start", "end", "node", "subgraph", "any"]
"""`any`: the marker a dynamic route (a router without a path map) is drawn to."""
EdgeKind = Literal["edge", "conditional", "dynamic", "join", "command", "taken"]
CheckpointSource = Literal["input", "loop", "update", "fork"]
EventKind = Literal["start", "finish", "error", "interrupt", "commit", "run", "custom", "input", "loop", "update",
                    "fork", "handoff"]
ErrorKind = Literal["load", "node", "input", "command", "database", "recorded", "waiting"]
Status = Literal["no graph", "loading", "ready", "running", "paused", "interrupted", "failed", "done", "stopped",
                 "read-only", "inside"]

__all__ = [
    "NodeKind",
    "EdgeKind",
    "CheckpointSource",
    "EventKind",
    "ErrorKind",
    "StopKind",
    "StopReport",
    "Status",
    "NodeShape",
    "EdgeShape",
    "GraphShape",
    "GraphMarks",
    "DiffWrite",
    "DiffRow",
    "StepDiff",
    "TimelineRow",
    "namespace_owner",
    "EventRow",
    "InterruptInfo",
    "NodeDetails",
    "SessionStatus",
    "ErrorReport",
    "ThreadSummary",
    "Comparison",
    "UNSET",
    "PendingRow",
    "MergeRow",
    "WhyMarks",
    "NOTHING_NEXT",
]


class _Unset:
    """Shown for a key that had no value (before its first write)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unset>"


UNSET = _Unset()


@dataclass(frozen=True, kw_only=True)
class NodeShape:
    id: str
    label: str
    kind: NodeKind
    subgraph_nodes: tuple[str, ...] = ()
    """For a subgraph node: the inner node names (drawn as a cluster)."""


@dataclass(frozen=True, kw_only=True)
class EdgeShape:
    source: str
    target: str
    kind: EdgeKind
    """"edge" (plain), "conditional" (a router with known targets), "dynamic" (a router
    that may go anywhere: drawn once to a cloud-ish marker), "join" (part of a waiting
    edge), "command" (a Command goto destination), "taken" (a dynamic route seen at run time)."""
    label: str = ""


@dataclass(frozen=True, kw_only=True)
class GraphShape:
    name: str
    nodes: tuple[NodeShape, ...]
    edges: tuple[EdgeShape, ...]


@dataclass(frozen=True, kw_only=True)
class GraphMarks:
    """Live decorations on the graph; every field is a set of node names."""

    running: frozenset[str] = frozenset()
    next: frozenset[str] = frozenset()
    trail: tuple[str, ...] = ()
    """Nodes of the recent supersteps, oldest first (drawn fading)."""
    last_ran: frozenset[str] = frozenset()
    """Nodes of the latest superstep only: active edges start there, never older."""
    breakpoints_before: frozenset[str] = frozenset()
    breakpoints_after: frozenset[str] = frozenset()
    failed: frozenset[str] = frozenset()
    interrupted: frozenset[str] = frozenset()
    selected: str | None = None
    taken_edges: frozenset[tuple[str, str]] = frozenset()
    """Routes seen at run time for routers without a path map (added as dynamic edges)."""
    tasks: tuple[tuple[str, int, int], ...] = ()
    """(node, finished, total) for the superstep under way where a node has several tasks
    (a `Send` fan-out) or some have finished: the graph shows "×5" or "2/5 ✓"."""
    ended: bool = False
    """The run has finished: END is lit."""


@dataclass(frozen=True, kw_only=True)
class DiffWrite:
    node: str
    value: Any


@dataclass(frozen=True, kw_only=True)
class DiffRow:
    """One state key in one superstep: before ⊕ writes → after."""

    key: str
    reducer: str
    before: Any
    writes: tuple[DiffWrite, ...]
    after: Any
    dropped: bool = False
    """A key a node returned that the schema does not have (dropped, as LangGraph does)."""


@dataclass(frozen=True, kw_only=True)
class StepDiff:
    step: int
    checkpoint_id: str
    rows: tuple[DiffRow, ...]


def namespace_owner(namespace: str) -> str | None:
    """The parent checkpoint that planned the task a subgraph namespace ("node:task_id|...")
    belongs to: task ids read "checkpoint_id/index". None for "" or a foreign form."""
    if not namespace:
        return None
    task = namespace.split("|", 1)[0].partition(":")[2]
    return task.rpartition("/")[0] or None


@dataclass(frozen=True, kw_only=True)
class TimelineRow:
    id: str
    parent_id: str | None
    step: int
    source: CheckpointSource
    nodes: tuple[str, ...]
    """Nodes whose writes made this checkpoint."""
    next: tuple[str, ...]
    created_at: str
    namespace: str = ""
    """A subgraph's checkpoint namespace ("node:task_id|..."); "" for the thread's own
    checkpoints. A subgraph row is shown under the parent checkpoint that planned it."""
    owner: str | None = None
    """A subgraph row's parent checkpoint as its store recorded it (LangGraph's stores,
    whose task ids do not name it); None when the namespace names it."""

    @property
    def owner_id(self) -> str | None:
        """For a subgraph row: the parent checkpoint whose superstep ran the subgraph (as
        the store recorded it, or from its task id "checkpoint_id/index"); None for the
        thread's own rows."""
        if not self.namespace:
            return None
        return self.owner or namespace_owner(self.namespace)

    @property
    def path(self) -> str:
        """The subgraph's node path in words ("team › write"); "" for the thread's own rows."""
        return " › ".join(seg.partition(":")[0] for seg in self.namespace.split("|")) if self.namespace else ""


@dataclass(frozen=True, kw_only=True)
class EventRow:
    kind: EventKind
    """"start", "finish", "error", "interrupt", "commit", "run", "custom"; or, for an
    event read back from the history, the checkpoint's source ("input", "loop", …)."""
    step: int
    node: str
    text: str
    duration_s: float | None = None
    checkpoint_id: str | None = None
    traceback: str = ""
    at: str = ""
    """Wall-clock time (HH:MM:SS) the event happened, or the checkpoint was saved."""


@dataclass(frozen=True, kw_only=True)
class InterruptInfo:
    interrupt_id: str
    node: str
    value: Any


@dataclass(frozen=True, kw_only=True)
class NodeDetails:
    name: str
    source: str
    file: str | None = None
    line: int | None = None
    incoming: tuple[str, ...] = ()
    outgoing: tuple[str, ...] = ()
    last_input: Any = UNSET
    last_output: Any = UNSET
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class SessionStatus:
    """What the status bar shows and which controls are enabled."""

    thread_id: str | None
    step: int | None
    status: str
    """A `Status` as the status bar says it ("inside NODE" while stepping into a subgraph)."""
    busy: bool = False
    can_step: bool = False
    viewing: str | None = None
    """The checkpoint being viewed when it is not the head (read-only view)."""
    head_id: str | None = None
    graph_name: str = ""
    db_path: str = ""
    next_nodes: tuple[str, ...] = ()
    engine_note: str = ""
    """Said when the graph file's `langgraph` imports run on Retrograph's engine."""


@dataclass(frozen=True, kw_only=True)
class ErrorReport:
    """One error shown in the window's banner: what went wrong, where, and what to do."""

    kind: ErrorKind
    """"load" (import, syntax, no graph), "node" (a node raised), "input" (bad JSON),
    "command" (a command was refused or failed), "database", "recorded" (an error saved in
    a run opened without its code), "waiting" (a command waits for user code that has not
    returned, e.g. a fork's router: the banner offers to abandon it)."""
    title: str
    message: str
    detail: str = ""
    node: str | None = None
    hint: str = ""
    exception: str = ""
    """The exception's type name ("ValueError") when a node raised."""


StopKind = Literal["breakpoint", "condition", "target", "interrupt", "error", "paused", "done", "inside", "stepped",
                   "stopped"]


@dataclass(frozen=True, kw_only=True)
class StopReport:
    """Why the run stopped, as the banner above the graph says it: a `title` ("Paused on
    breakpoint before `tools`"), a `detail` (the condition's value, the interrupt's question,
    the error), and the `keys` to go on: (action name, its label with the key), e.g.
    ("continue_", "Continue (F5)")."""

    kind: StopKind
    title: str
    detail: str = ""
    nodes: tuple[str, ...] = ()
    keys: tuple[tuple[str, str], ...] = ()
    trace: str = ""
    """An error's traceback (the banner's Details)."""


@dataclass(frozen=True, kw_only=True)
class ThreadSummary:
    thread_id: str
    checkpoints: int
    updated_at: str
    foreign_nodes: tuple[str, ...] = ()
    """Nodes its latest checkpoint names that the open graph lacks: another graph's thread."""

    @property
    def foreign(self) -> bool:
        return bool(self.foreign_nodes)


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """Two checkpoints side by side: `diff` goes from `left` to `right`."""

    left_id: str
    right_id: str
    left_values: dict[str, Any]
    right_values: dict[str, Any]
    diff: object
    left_label: str = ""
    """What the left side is, in words: step, nodes, branch and time (see `History.describe`)."""
    right_label: str = ""


NOTHING_NEXT = "Nothing runs next: the run is finished or has not started."


@dataclass(frozen=True, kw_only=True)
class PendingRow:
    """A write kept aside until the commit, and the reducer that will merge it."""

    node: str
    key: str
    value: Any
    reducer: str
    how: str


@dataclass(frozen=True, kw_only=True)
class MergeRow:
    """How the last commit merged one key."""

    key: str
    writers: tuple[str, ...]
    how: str
    before: Any
    after: Any


@dataclass(frozen=True, kw_only=True)
class WhyMarks:
    """Everything the "why" marks need, for one superstep (the next one, or the one in
    progress). Empty (`WhyMarks()`) when there is nothing to explain."""

    step: int | None = None
    snapshot_step: int | None = None
    together: tuple[str, ...] = ()
    """The nodes of the superstep: they run together and read the same snapshot."""
    triggers: tuple[tuple[str, str, str], ...] = ()
    """(source, target, label) of each edge, route or goto that triggered a task."""
    badges: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Node -> short badges: "Send ×3", "waits for b, c (1/3)", "goto", "deferred"."""
    waiting: Mapping[str, str] = field(default_factory=dict)
    """Join targets that wait -> the sentence."""
    hover: Mapping[str, str] = field(default_factory=dict)
    """Node -> one sentence: why it runs next, or why not yet."""
    finished: frozenset[str] = frozenset()
    """Nodes whose task finished in this superstep (their writes are pending)."""
    pending: tuple[PendingRow, ...] = ()
    conflicts: tuple[str, ...] = ()
    merged: tuple[MergeRow, ...] = ()
    """The last commit's merges (shown after a commit, before the next task runs)."""
    merged_step: int | None = None
    reducers: Mapping[str, str] = field(default_factory=dict)
    """State key -> its reducer's one-line explanation."""
    viewing: bool = False
    """Read back from an older checkpoint (the scrubber, the timeline), not the live run."""
    summary: str = NOTHING_NEXT
    """One sentence on the superstep: its tasks, and the state they read."""
