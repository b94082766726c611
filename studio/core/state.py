"""What the debugger knows, in one Qt-free object that every session collaborator shares.

`studio.session.Session` (Qt signals + the command guard) owns one `SessionState`; its
collaborators (loading, time travel, events -> records, the presenter) read and change
it. It lives in `studio.core` because it holds no Qt object and imports no Qt, so what it
says about the session (its marks, its status) can be worked out and tested without a
display.
"""
from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine import START, RunEvent

from .driver import RunDriver
from .history import History
from .loader import LoadedGraph
from .records import ErrorReport, GraphMarks, GraphShape, NodeDetails, SessionStatus, Status
from .store import CheckpointReader, db_target, store_label, store_read_only

__all__ = ["SessionState", "SubgraphFocus", "TRAIL", "task_counts"]

TRAIL = 8
"""How many recently run nodes the graph marks as the trail."""


@dataclass
class SubgraphFocus:
    """What the panels show while stepping into a subgraph node."""

    node: str
    graph: GraphShape
    running: set[str] = field(default_factory=set)
    next: tuple[str, ...] = ()
    trail: list[str] = field(default_factory=list)
    failed: set[str] = field(default_factory=set)
    last_ran: frozenset[str] = frozenset()

    def marks(self) -> GraphMarks:
        return GraphMarks(running=frozenset(self.running), next=frozenset(self.next),
                          trail=tuple(self.trail), failed=frozenset(self.failed), last_ran=self.last_ran)


def task_counts(planned: list[str] | tuple[str, ...], finished: list[str] | tuple[str, ...]
                ) -> tuple[tuple[str, int, int], ...]:
    """(node, finished, total) for nodes with several tasks or finished ones."""
    total = Counter(n for n in planned if n != START)
    done = Counter(n for n in finished if n in total)
    return tuple((n, done[n], k) for n, k in total.items() if k > 1 or done[n])


def ran_nodes(nodes: tuple[str, ...] | list[str]) -> list[str]:
    """The nodes a step ran, without the hidden entry task."""
    return [n for n in nodes if n != START]


@dataclass
class SessionState:
    """The session's state: the graph, the store, the thread, the run's marks, the view."""

    db_path: Path | str
    """A SQLite file's path, or a postgresql:// URL."""
    driver: RunDriver
    saver: Any = None
    browse: bool = False
    """The store was opened to browse (whatever it holds, LangGraph's too, read-only),
    not to run on (Retrograph's saver)."""
    reader: CheckpointReader | None = None
    loaded: LoadedGraph | None = None
    spec: str | None = None
    graph: Any = None
    graph_view: GraphShape | None = None
    """The graph as drawn now: `base_view` plus routes taken at run time."""
    base_view: GraphShape | None = None
    """The graph as compiled."""
    observed: GraphShape | None = None
    """Without the code: the graph as the thread's history shows it."""
    nx: Any = None
    known_edges: set[tuple[str, str]] = field(default_factory=set)
    thread_id: str | None = None
    history: History = field(default_factory=History)
    viewed_id: str | None = None
    """The checkpoint viewed read-only; None when the head is shown live."""
    selected_node: str | None = None
    error: ErrorReport | None = None
    status: Status = "no graph"
    running: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    taken: set[tuple[str, str]] = field(default_factory=set)
    trail: list[str] = field(default_factory=list)
    last_ran: frozenset[str] = frozenset()
    """The nodes of the latest committed superstep (where active edges start)."""
    dropped: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)
    diffs: dict[str, Any] = field(default_factory=dict)
    last_io: dict[str, dict[str, Any]] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)
    focus: SubgraphFocus | None = None
    """Set while stepping into a subgraph node."""
    static_details: dict[str, NodeDetails] = field(default_factory=dict)
    pending_events: bool = False
    """The next head shown adds its saved errors and interrupts to the events."""
    reload_pending: bool = False
    closed: bool = False
    command: asyncio.Task[Any] | None = None
    """The stepping command in flight (one at a time)."""
    command_name: str = ""

    @classmethod
    def new(cls, db_path: str | Path, listener: Callable[[RunEvent], None]) -> SessionState:
        """A state whose driver reports the Run's events to `listener`."""
        holder: list[SessionState] = []
        driver = RunDriver(listener, latest_id=lambda: holder[0].history.latest_id,
                           head_finished=lambda: holder[0].head_finished())
        state = cls(db_path=db_target(db_path), driver=driver)
        holder.append(state)
        return state

    # -- derived -----------------------------------------------------------------------
    @property
    def store_read_only(self) -> bool:
        """The store is LangGraph's, opened read-only: nothing can run on it."""
        return store_read_only(self.saver)

    @property
    def store_label(self) -> str:
        """Which store the window reads, in words."""
        return store_label(self.saver) if self.saver is not None else str(self.db_path)

    @property
    def read_only(self) -> bool:
        return self.graph is None or self.store_read_only

    @property
    def busy(self) -> bool:
        return self.command is not None and not self.command.done()

    @property
    def head_id(self) -> str | None:
        return self.driver.head_id or self.history.latest_id

    @property
    def breakpoints(self) -> tuple[frozenset[str], frozenset[str]]:
        return frozenset(self.driver.before), frozenset(self.driver.after)

    def head_finished(self) -> bool:
        row = self.history.get(self.head_id)
        return row is not None and not row.next

    def step(self) -> int | None:
        row = self.history.get(self.viewed_id or self.head_id)
        return row.step if row is not None else None

    def next_nodes(self) -> tuple[str, ...]:
        """What runs next: from the checkpoint on screen when an older one is viewed, else
        the run's pending tasks (or the head's)."""
        if self.viewed_id is not None and self.viewed_id != self.head_id:
            viewed = self.history.get(self.viewed_id)
            return viewed.next if viewed is not None else ()
        run = self.driver.run
        if run is not None and run.status == "ready":
            return tuple(dict.fromkeys(t.name for t in run.pending))
        row = self.history.get(self.head_id)
        return row.next if row is not None else ()

    def add_trail(self, nodes: tuple[str, ...] | list[str]) -> None:
        self.trail = (self.trail + ran_nodes(nodes))[-TRAIL:]
        self.last_ran = frozenset(ran_nodes(nodes))

    def marks(self) -> GraphMarks:
        """The graph's marks at the head (running, next, trail, breakpoints...)."""
        before, after = self.breakpoints
        interrupted = frozenset(p.node for p in self.driver.interrupts)
        return GraphMarks(
            running=frozenset(self.running), next=frozenset(self.next_nodes()) - interrupted,
            trail=tuple(self.trail), last_ran=self.last_ran, breakpoints_before=before, breakpoints_after=after,
            failed=frozenset(self.failed), interrupted=interrupted, selected=self.selected_node,
            taken_edges=frozenset(self.taken), tasks=self.task_counts(),
            ended=self.graph is not None and self.head_finished() and self.viewed_id is None,
        )

    def task_counts(self) -> tuple[tuple[str, int, int], ...]:
        """(node, finished, total) of the superstep under way (see GraphMarks.tasks)."""
        run = self.driver.run
        if run is not None and run.status == "ready" and run.plan:
            names = [t.name for t in run.plan]
            done = [r.task.name for r in run.results.values() if r.error is None and not r.interrupts]
        else:
            row = self.history.get(self.head_id)
            names, done = (list(row.next) if row is not None else []), []
        return task_counts(names, done)

    def status_view(self) -> SessionStatus:
        status: str = self.status
        if status == "inside" and self.driver.inside:
            status = f"inside {self.driver.inside}"
        if (self.graph is None and self.reader is not None and self.loaded is None) or self.store_read_only:
            status = "read-only"
        if self.busy:
            status = "running"
        elif self.driver.interrupts:
            status = "interrupted"
        return SessionStatus(
            thread_id=self.thread_id, step=self.step(), status=status, busy=self.busy,
            can_step=not self.read_only and not self.busy, viewing=self.viewed_id, head_id=self.head_id,
            graph_name=self.loaded.spec if self.loaded else "", db_path=self.store_label,
            next_nodes=self.next_nodes(), engine_note=self.loaded.engine_note if self.loaded else "",
        )

    def key_notes(self) -> dict[str, str]:
        """A word on the keys whose values a checkpoint does not hold (the state panel's)."""
        if self.graph is None:
            return {}
        return {k: "not checkpointed" for k in sorted(self.graph.schema.unsaved_keys)}

    def reducers(self) -> dict[str, str]:
        if self.graph is None:
            return {}
        return {k: ch.reducer_name for k, ch in self.graph.schema.channels.items()}
