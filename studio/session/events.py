"""The session's event side: the Run's events turned into records, marks, status and details.

A mixin of `Session` (kept apart to keep each module small). Every handler runs on the
UI thread (the Run emits on the loop's thread; a node's custom data is marshalled there).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from engine import (
    CustomData,
    RunEvent,
    RunFinished,
    RunInterrupted,
    RunStarted,
    StepCommitted,
    TaskFailed,
    TaskFinished,
    TaskInterrupted,
    TaskStarted,
)
from engine.graph import is_subgraph

from studio.core import convert
from studio.core.driver import PendingInterrupt
from studio.core.records import ErrorView, StatusView
from studio.core.viewmodel import EventRow, GraphMarks, NodeDetails

if TYPE_CHECKING:
    from .session import Session

__all__ = ["SessionEvents", "InnerView"]

log = logging.getLogger(__name__)


@dataclass
class InnerView:
    """What the panels show while stepping into a subgraph node."""

    node: str
    graph: Any
    running: set[str] = field(default_factory=set)
    next: tuple[str, ...] = ()
    trail: list[str] = field(default_factory=list)
    failed: set[str] = field(default_factory=set)


class SessionEvents:
    """Run events -> signals; graph marks; the status line; node details (mixed into Session)."""

    # -- run events -> signals -------------------------------------------------------------
    def _on_run_event(self: Session, event: RunEvent) -> None:
        try:
            self._handle_event(event)
        except Exception:  # a display bug must never break the run
            log.exception("handling %s failed", type(event).__name__)

    def _handle_event(self: Session, event: RunEvent) -> None:
        namespace = tuple(getattr(event, "namespace", ()) or ())
        if namespace:
            self._on_inner_event(event, namespace)
            return
        row = convert.event_row(event, convert.clock())
        if row is not None and not (isinstance(event, (TaskStarted, TaskFinished)) and event.name == "__start__"):
            self._add_event(row)
        if not isinstance(event, (TaskStarted, TaskFinished, CustomData)):
            self._flush_events()  # a commit, an error, an interrupt, the run's start or end: show it now
        if self._inner is not None and isinstance(event, (TaskFinished, TaskFailed, TaskInterrupted)) \
                and event.name == self._inner.node:
            self._leave_subgraph_view()
        if isinstance(event, TaskStarted):
            self._running.add(event.name)
            self.status = "running"
            self._last_io.setdefault(event.name, {})["input"] = event.input
            self._soon.start()  # the running mark: a node that is done at once never flickers
        elif isinstance(event, TaskFinished):
            self._running.discard(event.name)
            self._last_io.setdefault(event.name, {})["output"] = event.update
            if event.dropped_keys and isinstance(event.update, dict):
                self._dropped.setdefault(event.name, []).extend((k, event.update.get(k)) for k in event.dropped_keys)
            new = {(event.name, t) for t in event.routes if (event.name, t) not in self._known_edges} - self._taken
            if new:
                self._taken |= new
                self._show_taken_routes(new)
            self._refresh_details(event.name)
            self._emit_marks()
        elif isinstance(event, TaskFailed):
            self._running.discard(event.name)
            self._failed.add(event.name)
            self.status = "failed"
            self._set_error(ErrorView(
                kind="node", node=event.name, title=f"Node `{event.name}` raised {type(event.error).__name__}",
                message=str(event.error), detail=event.traceback,
                hint="The run is paused at this superstep. Fix the code and save (the studio reloads it) "
                     "or press Ctrl+R, then F10/F5 retries: nodes of this step that finished are kept."))
            self._emit_marks()
        elif isinstance(event, TaskInterrupted):
            self._running.discard(event.name)
            self.driver.interrupts.extend(PendingInterrupt(task_id=event.task_id, node=event.name, interrupt=i)
                                          for i in event.interrupts)
            self._emit_interrupts()
        elif isinstance(event, StepCommitted):
            self._on_committed(event)
        elif isinstance(event, RunStarted):
            self._on_started(event)
        elif isinstance(event, RunInterrupted):
            self.status = "interrupted"
            self.message.emit(row.text if row is not None else "Interrupted.")
            self._emit_marks()
        elif isinstance(event, RunFinished):
            self.status = {"done": "done", "failed": "failed", "cancelled": "stopped",
                           "interrupted": "interrupted"}.get(event.status, event.status)
            if event.status == "failed" and event.error is not None and self.error is None:
                self._set_error(ErrorView(kind="command", title="The run failed",
                                          message=f"{type(event.error).__name__}: {event.error}"))
            self._emit_status()

    # -- a subgraph's inner run ------------------------------------------------------------
    def _on_inner_event(self: Session, event: RunEvent, namespace: tuple[str, ...]) -> None:
        """Events of a subgraph's child run: listed with their node path; while stepping
        into that subgraph they also drive the graph, state and diff panels."""
        row = convert.event_row(event, convert.clock())
        path = " › ".join(namespace)
        quiet = isinstance(event, (TaskStarted, TaskFinished)) and event.name == "__start__"
        if row is not None and not quiet and not isinstance(event, (RunStarted, RunFinished)):
            self._add_event(replace(row, node=f"{path} › {row.node}" if row.node else path,
                                    text=f"[{path}] {row.text}", checkpoint_id=None))
        if self.driver.inside is None or namespace[:1] != (self.driver.inside,):
            return
        inner = self._inner
        if isinstance(event, RunStarted) and inner is None:
            fn = self.graph.nodes.get(namespace[0]) if self.graph is not None else None
            try:
                view = convert.graph_view(fn)
            except Exception:
                return
            self._inner = inner = InnerView(node=namespace[0], graph=view)
            self.graphLoaded.emit(view)
            self.subgraphShown.emit(namespace[0], view)
            inner.next = tuple(t.name for t in event.next)
            self._show_live(dict(event.values), None, None)
        if inner is None:
            return
        if isinstance(event, TaskStarted):
            inner.running.add(event.name)
        elif isinstance(event, (TaskFinished, TaskFailed, TaskInterrupted)):
            inner.running.discard(event.name)
            inner.next = tuple(n for n in inner.next if n != event.name)
            if isinstance(event, TaskFailed):
                inner.failed.add(event.name)
        elif isinstance(event, StepCommitted):
            inner.trail = (inner.trail + [n for n in event.nodes_ran if n != "__start__"])[-8:]
            inner.next = tuple(t.name for t in event.next)
            self._show_live(event.values, convert.diff_from_commit(event), None)
        self._emit_marks()

    def _leave_subgraph_view(self: Session) -> None:
        """Back from a subgraph: the parent's graph and marks again."""
        self._inner = None
        if self.graph_view is not None:
            self.graphLoaded.emit(self.graph_view)
        self._emit_marks()

    def _on_started(self: Session, event: RunStarted) -> None:
        run = self.run
        ckpt = run.checkpoint if run is not None else None
        if ckpt is not None and ckpt.id not in self.history:
            row = convert.timeline_row(ckpt)
            self.history.add(row)
            self.timelineRowAdded.emit(row)
        self.driver.head_id = event.checkpoint_id or self.driver.head_id
        self.headChanged.emit(self.head_id)
        self._emit_interrupts()  # a resumed interrupt is answered
        self.status = "ready"
        if event.mode == "fork":
            self.message.emit("Forked: the next steps make a new branch; the old one is kept.")
        if event.mode in ("fork", "input"):
            self._show_live(dict(event.values), None, event.checkpoint_id)
        self._emit_marks()

    def _on_committed(self: Session, event: StepCommitted) -> None:
        diff = convert.diff_from_commit(event, self._dropped)
        self._dropped = {}
        self._diffs[event.checkpoint_id] = diff
        run = self.run
        ckpt = run.checkpoint if run is not None and run.checkpoint is not None else None
        if ckpt is not None and ckpt.id == event.checkpoint_id:
            row = convert.timeline_row(ckpt)
            if self.history.add(row):
                self.timelineRowAdded.emit(row)
        self.driver.head_id = event.checkpoint_id
        self.headChanged.emit(event.checkpoint_id)
        self._failed.clear()
        if self.error is not None and self.error.kind == "node":
            self._set_error(None)
        self._trail = (self._trail + [n for n in event.nodes_ran if n != "__start__"])[-8:]
        self.status = "ready" if event.next else "done"
        self._show_live(event.values, diff, event.checkpoint_id)
        self._emit_marks()

    def _show_live(self: Session, values: Any, diff: Any, checkpoint_id: str | None) -> None:
        self.viewed_id = None
        self._values = values
        self.stateChanged.emit(values)
        self.diffChanged.emit(diff)
        self.viewChanged.emit(checkpoint_id)

    # -- marks and status ------------------------------------------------------------------
    def _show_taken_routes(self: Session, new: set[tuple[str, str]]) -> None:
        """Routes of a router without a path map are drawn as they are taken (a mark on
        the graph); one to a node the drawing lacks (END) lays the graph out again with it."""
        view = self.graph_view
        if view is None or self._inner is not None:
            return
        drawn = {n.id for n in view.nodes}
        if all(target in drawn for _, target in new):
            return
        self.graph_view = convert.with_taken_routes(self._base_view or view, self._taken)
        self.graphLoaded.emit(self.graph_view)

    def _reset_marks(self: Session) -> None:
        self._running.clear()
        self._failed.clear()
        self._taken.clear()
        if self._base_view is not None and self.graph_view is not self._base_view:
            self.graph_view = self._base_view  # routes taken on another branch are not drawn
            self.graphLoaded.emit(self.graph_view)
        self._trail = []
        self._dropped = {}
        self._set_error(None) if self.error is not None and self.error.kind in ("node", "recorded") else None
        self.interruptsChanged.emit(())

    def _next_nodes(self: Session) -> tuple[str, ...]:
        run = self.run
        if run is not None and run.status == "ready":
            return tuple(dict.fromkeys(t.name for t in run.pending))
        row = self.history.get(self.head_id)
        return row.next if row is not None else ()

    def marks(self: Session) -> GraphMarks:
        before, after = self.breakpoints
        interrupted = frozenset(p.node for p in self.driver.interrupts)
        return GraphMarks(
            running=frozenset(self._running), next=frozenset(self._next_nodes()) - interrupted,
            trail=tuple(self._trail), breakpoints_before=before, breakpoints_after=after,
            failed=frozenset(self._failed), interrupted=interrupted, selected=self.selected_node,
            taken_edges=frozenset(self._taken),
        )

    # -- batching: bursts of events reach the panels once ---------------------------------
    def _add_event(self: Session, row: EventRow) -> None:
        """Queue a row for the events panel; it shows with the next flush (at the latest
        `SOON_MS` later), so a quick step repaints the window once, not once per event."""
        self._event_queue.append(row)
        if not self._soon.isActive():
            self._soon.start()

    def _flush_events(self: Session) -> None:
        if self._event_queue:
            rows, self._event_queue = self._event_queue, []
            self.eventsAdded.emit(rows)

    def _on_soon(self: Session) -> None:
        """What was held back for a moment (event rows, the running mark) shows now."""
        self._flush_events()
        if self._running:
            self._emit_marks()

    def _emit_marks(self: Session) -> None:
        if self._inner is not None:
            inner = self._inner
            self.marksChanged.emit(GraphMarks(running=frozenset(inner.running), next=frozenset(inner.next),
                                              trail=tuple(inner.trail), failed=frozenset(inner.failed)))
        elif self.viewed_id is None:
            self.marksChanged.emit(self.marks())

    def _emit_interrupts(self: Session) -> None:
        self.interruptsChanged.emit(convert.interrupt_views((p.node, p.interrupt) for p in self.driver.interrupts))

    def _step(self: Session) -> int | None:
        row = self.history.get(self.viewed_id or self.head_id)
        return row.step if row is not None else None

    def status_view(self: Session) -> StatusView:
        status = self.status
        if self.graph is None and self.reader is not None and self.loaded is None:
            status = "read-only"
        if self.busy:
            status = "running"
        elif self.driver.interrupts:
            status = "interrupted"
        return StatusView(
            thread_id=self.thread_id, step=self._step(), status=status, busy=self.busy,
            can_step=self.graph is not None and not self.busy, viewing=self.viewed_id, head_id=self.head_id,
            graph_name=self.loaded.spec if self.loaded else "", db_path=str(self.db_path),
            next_nodes=self._next_nodes(),
        )

    def _emit_status(self: Session) -> None:
        if not self._closed:
            self.statusChanged.emit(self.status_view())

    def _set_error(self: Session, error: ErrorView | None) -> None:
        self.error = error
        self.errorChanged.emit(error)

    def clear_error(self: Session) -> None:
        self._set_error(None)

    # -- node details ----------------------------------------------------------------------
    def select_node(self: Session, name: str | None) -> None:
        """The node clicked in the graph: its inspector details, and the run-to/F9 target."""
        self.selected_node = name
        if name:
            self._refresh_details(name, force=True)
        self._emit_marks()

    def node_details(self: Session, name: str) -> NodeDetails:
        io = self._last_io.get(name, {})
        extra: dict[str, Any] = {}
        before, after = self.breakpoints
        where = [w for w, points in (("before", before), ("after", after)) if name in points]
        if where:
            extra["breakpoint"] = " and ".join(where)
        fn = self.graph.nodes.get(name) if self.graph is not None else None
        if is_subgraph(fn):
            extra["subgraph nodes (F11 steps into them)"] = tuple(getattr(fn, "node_names", ()))
        if self.graph is None and self._observed is not None:
            return convert.observed_details(self._observed, name, values=self._values,
                                            due=name in self._next_nodes(), failed=name in self._failed)
        static = self._static_details.get(name)
        if static is None:  # source and edges: read once per node and graph (inspect is slow)
            static = self._static_details[name] = convert.node_details(self.graph, self._nx, name)
        return replace(static, last_input=io.get("input", convert.UNSET),
                       last_output=io.get("output", convert.UNSET), extra=extra)

    def _refresh_details(self: Session, name: str, force: bool = False) -> None:
        """Show `name` in the inspector when the user picked it (`force`) or it is the one
        on screen. Cheap: the inspector renders a folded preview of big values."""
        if force or name == self.selected_node:
            self.detailsChanged.emit(self.node_details(name))

    def _follow_next_details(self: Session) -> None:
        """With no node selected, the inspector shows the node that failed, or runs next
        (or ran last). Without the code (post-mortem), what the history tells of it."""
        if self.selected_node is not None or self._inner is not None:
            return
        if self._failed:
            name: str | None = sorted(self._failed)[0]
        else:
            upcoming = [n for n in self._next_nodes() if n != "__start__"]
            name = upcoming[0] if upcoming else (self._trail[-1] if self._trail else None)
        if name is not None and (self.graph is not None or self._observed is not None):
            self.detailsChanged.emit(self.node_details(name))
