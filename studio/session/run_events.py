"""The Run's events -> the session's state and the panels' records.

Every handler runs on the UI thread (the Run emits on the loop's thread; a node's custom
data is marshalled there). The driver has already moved the head and collected any
interrupts when an event arrives here.
"""
from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import cast

from engine import (
    START,
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
from engine.checkpoint.ids import now_iso
from engine.specs import is_subgraph
from studio.core import convert
from studio.core.handoffs import is_handoff
from studio.core.records import CheckpointSource, ErrorReport, TimelineRow
from studio.core.state import TRAIL, SessionState, SubgraphFocus, ran_nodes

from .presenter import Presenter
from .signals import SessionSignals

__all__ = ["RunEvents"]

log = logging.getLogger(__name__)

_RUN_END_STATUS = {"done": "done", "failed": "failed", "cancelled": "stopped", "interrupted": "interrupted"}


class RunEvents:
    """Turns each Run event into state changes, event rows, marks and the status line."""

    def __init__(self, state: SessionState, signals: SessionSignals, presenter: Presenter) -> None:
        self.state = state
        self.signals = signals
        self.presenter = presenter

    def on_run_event(self, event: RunEvent) -> None:
        try:
            self._handle(event)
        except Exception:  # a display bug must never break the run
            log.exception("handling %s failed", type(event).__name__)

    def _handle(self, event: RunEvent) -> None:
        s, p = self.state, self.presenter
        namespace = tuple(getattr(event, "namespace", ()) or ())
        if namespace:
            self._on_inner_event(event, namespace)
            return
        row = convert.event_row(event, convert.clock())
        if row is not None and not (isinstance(event, (TaskStarted, TaskFinished)) and event.name == START):
            p.add_event(row)
        if not isinstance(event, (TaskStarted, TaskFinished, CustomData)):
            p.flush_events()  # a commit, an error, an interrupt, the run's start or end: show it now
        if s.focus is not None and isinstance(event, (TaskFinished, TaskFailed, TaskInterrupted)) \
                and event.name == s.focus.node:
            p.leave_subgraph()
        if isinstance(event, (TaskStarted, TaskFinished, TaskFailed, TaskInterrupted)):
            self._on_task_event(event)
        elif isinstance(event, StepCommitted):
            self._on_committed(event)
        elif isinstance(event, RunStarted):
            self._on_started(event)
        elif isinstance(event, RunInterrupted):
            s.status = "interrupted"
            self.signals.message.emit(row.text if row is not None else "Interrupted.")
            p.emit_marks()
        elif isinstance(event, RunFinished):
            s.status = _RUN_END_STATUS.get(event.status, event.status)
            if event.status == "failed" and event.error is not None and s.error is None:
                p.set_error(ErrorReport(kind="command", title="The run failed",
                                      message=f"{type(event.error).__name__}: {event.error}"))
            p.emit_status()

    def _on_task_event(self, event: TaskStarted | TaskFinished | TaskFailed | TaskInterrupted) -> None:
        """A task of the top run started, finished, failed or was interrupted."""
        s, p = self.state, self.presenter
        if isinstance(event, TaskStarted):
            s.running.add(event.name)
            s.status = "running"
            s.last_io.setdefault(event.name, {})["input"] = event.input
            p.refresh_details(event.name)  # the inspector's last input follows each step
            p.soon.start()  # the running mark: a node that is done at once never flickers
        elif isinstance(event, TaskFinished):
            s.running.discard(event.name)
            s.last_io.setdefault(event.name, {})["output"] = event.update
            if event.dropped_keys and isinstance(event.update, dict):
                s.dropped.setdefault(event.name, []).extend((k, event.update.get(k)) for k in event.dropped_keys)
            new = {(event.name, t) for t in event.routes if (event.name, t) not in s.known_edges} - s.taken
            if new:
                s.taken |= new
                p.show_taken_routes(new)
            p.refresh_details(event.name)
            p.emit_marks()
        elif isinstance(event, TaskFailed) and is_handoff(event.error):
            s.running.discard(event.name)  # a handoff to the parent graph: control flow, not a failure
            p.emit_marks()
        elif isinstance(event, TaskFailed):
            s.running.discard(event.name)
            s.failed.add(event.name)
            s.status = "failed"
            p.set_error(ErrorReport(
                kind="node", node=event.name, title=f"Node `{event.name}` raised {type(event.error).__name__}",
                message=str(event.error), detail=event.traceback, exception=type(event.error).__name__,
                hint="The run is paused at this superstep. Fix the code and save (the studio reloads it) "
                     "or press Ctrl+R, then F10/F5 retries: nodes of this step that finished are kept."))
            p.emit_marks()
        elif isinstance(event, TaskInterrupted):
            s.running.discard(event.name)
            p.emit_interrupts()

    # -- a subgraph's inner run ------------------------------------------------------------
    def _add_subgraph_row(self, event: StepCommitted | RunStarted) -> None:
        """A subgraph's checkpoint (its input, then one per superstep) joins the timeline
        under the parent step running it; it never moves the head (rewinding starts from
        the thread's own checkpoints)."""
        committed = isinstance(event, StepCommitted)
        row = TimelineRow(id=event.checkpoint_id, parent_id=event.parent_id if committed else None,
                          step=event.step, source=cast(CheckpointSource, event.source if committed else "input"),
                          nodes=tuple(event.nodes_ran) if committed else (),
                          next=tuple(t.name for t in event.next), created_at=now_iso(),
                          namespace=event.checkpoint_ns)
        if self.state.history.add(row):
            self.signals.timelineRowAdded.emit(row)

    def _on_inner_event(self, event: RunEvent, namespace: tuple[str, ...]) -> None:
        """Events of a subgraph's child run: listed with their node path; while stepping
        into that subgraph they also drive the graph, state and diff panels."""
        s, p = self.state, self.presenter
        row = convert.event_row(event, convert.clock())
        path = " › ".join(namespace)
        quiet = isinstance(event, (TaskStarted, TaskFinished)) and event.name == START
        if row is not None and not quiet and not isinstance(event, (RunStarted, RunFinished)):
            p.add_event(replace(row, node=f"{path} › {row.node}" if row.node else path,
                                text=f"[{path}] {row.text}", checkpoint_id=None))
        if event.checkpoint_ns and (isinstance(event, StepCommitted)
                                    or isinstance(event, RunStarted) and event.mode == "input"):
            self._add_subgraph_row(event)
        if s.driver.inside is None or namespace[:1] != (s.driver.inside,):
            return
        focus = s.focus
        if isinstance(event, RunStarted) and focus is None:
            fn = getattr(s.graph.nodes.get(namespace[0]), "bound", None) if s.graph is not None else None
            if not is_subgraph(fn):  # a graph the node's code invokes: shown once it parks (on_parked)
                return
            focus = self._focus_on(namespace[0], fn, tuple(t.name for t in event.next), event.values)
        if focus is None:
            return
        self._follow(focus, event)

    def _follow(self, focus: SubgraphFocus, event: RunEvent) -> None:
        """The shown subgraph follows one event of its run: what runs, failed, ran, comes next."""
        p = self.presenter
        if isinstance(event, TaskStarted):
            focus.running.add(event.name)
        elif isinstance(event, (TaskFinished, TaskFailed, TaskInterrupted)):
            focus.running.discard(event.name)
            focus.next = tuple(n for n in focus.next if n != event.name)
            if isinstance(event, TaskFailed) and not is_handoff(event.error):
                focus.failed.add(event.name)
        elif isinstance(event, StepCommitted):
            focus.trail = (focus.trail + ran_nodes(event.nodes_ran))[-TRAIL:]
            focus.last_ran = frozenset(ran_nodes(event.nodes_ran))
            focus.next = tuple(t.name for t in event.next)
            p.show_live(event.values, convert.diff_from_commit(event), None)
        p.emit_marks()

    def on_parked(self) -> None:
        """The driver stopped inside a node at a graph its code invokes (a tool running a
        subagent): the panels show that graph, as for a subgraph node."""
        s = self.state
        child = s.driver.gate.child if s.driver.gate is not None else None
        if s.focus is not None or child is None or s.driver.inside is None:
            return
        self._focus_on(s.driver.inside, child.graph, tuple(t.name for t in child.pending), child.values)
        self.presenter.emit_marks()

    def _focus_on(self, node: str, graph: object, next_nodes: tuple[str, ...],
                  values: Mapping[str, object]) -> SubgraphFocus | None:
        """Show `graph` (run inside `node`) with its state `values`, `next_nodes` to run."""
        s = self.state
        try:
            view = convert.graph_view(graph)
        except Exception:
            return None
        s.focus = focus = SubgraphFocus(node=node, graph=view)
        self.signals.graphLoaded.emit(view)
        self.signals.subgraphShown.emit(node, view)
        focus.next = next_nodes
        self.presenter.show_live(dict(values), None, None)
        return focus

    def _on_started(self, event: RunStarted) -> None:
        s, p = self.state, self.presenter
        run = s.driver.run
        ckpt = run.checkpoint if run is not None else None
        if ckpt is not None and ckpt.id not in s.history:
            row = convert.timeline_row(ckpt)
            s.history.add(row)
            self.signals.timelineRowAdded.emit(row)
        self.signals.headChanged.emit(s.head_id)
        p.emit_interrupts()  # a resumed interrupt is answered
        s.status = "ready"
        if event.mode == "fork":
            self.signals.message.emit("Forked: the next steps make a new branch; the old one is kept.")
        if event.mode in ("fork", "input"):
            p.show_live(dict(event.values), None, event.checkpoint_id)
        p.emit_marks()

    def _on_committed(self, event: StepCommitted) -> None:
        s, p = self.state, self.presenter
        diff = convert.diff_from_commit(event, s.dropped)
        s.dropped = {}
        s.diffs[event.checkpoint_id] = diff
        run = s.driver.run
        ckpt = run.checkpoint if run is not None and run.checkpoint is not None else None
        if ckpt is not None and ckpt.id == event.checkpoint_id:
            row = convert.timeline_row(ckpt)
            if s.history.add(row):
                self.signals.timelineRowAdded.emit(row)
        s.status = "ready" if event.next else "done"
        p.emit_status()  # the status bar's step follows every commit of a Continue
        self.signals.headChanged.emit(event.checkpoint_id)
        s.failed.clear()
        if s.error is not None and s.error.kind == "node":
            p.set_error(None)
        s.add_trail(event.nodes_ran)
        s.status = "ready" if event.next else "done"
        p.show_live(event.values, diff, event.checkpoint_id)
        p.emit_marks()
        p.follow_next_details()
