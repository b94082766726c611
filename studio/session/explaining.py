"""The "why" of the run for the panels: an `engine.explain.Explainer` fed the Run's own
events (live), or a checkpoint read back (the timeline, the scrubber), turned into one
`WhyMarks` record (`whyChanged`)."""
from __future__ import annotations

import asyncio
import logging
from typing import Any

from engine.checkpoint.base import DONE, ERROR, INTERRUPT, RESUME, ROUTE, SEND
from engine.explain import Explainer, Superstep, add_finished, explain_plan, merges_of
from studio.core.explain import reducer_notes, why_marks
from studio.core.records import WhyMarks
from studio.core.state import SessionState

from .signals import SessionSignals

__all__ = ["Explaining", "explain_checkpoint", "committed_later", "with_pending"]

log = logging.getLogger(__name__)

_HIDDEN = frozenset({DONE, ERROR, INTERRUPT, RESUME, ROUTE, SEND})


class Explaining:
    """Keeps the explanation of the superstep on screen and emits it as a `WhyMarks`."""

    def __init__(self, state: SessionState, signals: SessionSignals) -> None:
        self.state = state
        self.signals = signals
        self.explainer = Explainer(None)
        self.view = WhyMarks()
        self._notes: dict[str, str] = {}
        self._notes_for: Any = None
        self._reading: asyncio.Future[Any] | None = None
        signals.viewChanged.connect(self._on_view)

    @property
    def idle(self) -> bool:
        """No checkpoint being read for its explanation."""
        return self._reading is None or self._reading.done()

    def _graph(self) -> Any:
        graph = self.state.graph
        if self.explainer.graph is not graph:
            self.explainer = Explainer(graph)
        return graph

    def _nodes(self) -> list[str]:
        view = self.state.graph_view or self.state.observed
        return [n.id for n in view.nodes] if view is not None else []

    def notes(self) -> dict[str, str]:
        graph = self.state.graph
        if self._notes_for is not graph or not self._notes:
            self._notes, self._notes_for = reducer_notes(graph), graph
        return self._notes

    def emit(self, view: WhyMarks) -> None:
        self.view = view
        if not self.state.closed:
            self.signals.whyChanged.emit(view)

    # -- live: the Run's events ------------------------------------------------------------
    def on_run_event(self, event: Any) -> None:
        try:
            self._graph()
            self.explainer(event)
            if self.state.viewed_id is None and not getattr(event, "namespace", ()):
                self.emit_live()
        except Exception:  # an explanation must never break the run
            log.exception("explaining %s failed", type(event).__name__)

    def emit_live(self) -> None:
        ex = self.explainer
        last = ex.steps[-1] if ex.steps else None
        if last is not None and ex.current is not None and ex.current.snapshot_id != last.committed_id:
            last = None  # a commit of another branch (before a rewind): its merges are not this state's
        self.emit(why_marks(ex.current, ex.graph, self._nodes(), last=last, notes=self.notes()))

    # -- a checkpoint read back -------------------------------------------------------------
    def _on_view(self, checkpoint_id: str | None) -> None:
        s, ex = self.state, self.explainer
        if checkpoint_id is None:
            self.emit(WhyMarks(reducers=self.notes()))
            return
        live = s.viewed_id is None
        if live and s.driver.run is not None:
            current_id = ex.current.snapshot_id if ex.current is not None else None
            last_id = ex.steps[-1].committed_id if ex.steps else None
            if checkpoint_id in (current_id, last_id):
                self.emit_live()
                return
        if s.reader is None or s.thread_id is None or s.history.subgraph_row(checkpoint_id) is not None:
            return
        if self._reading is not None and not self._reading.done():
            self._reading.cancel()
        self._reading = asyncio.ensure_future(self._read(checkpoint_id, not live))

    async def _read(self, checkpoint_id: str, viewing: bool) -> None:
        """Read the checkpoint and its pending writes and explain them, all on the reader's
        thread (explaining a 300-task superstep is ~10 ms of Python the UI thread is spared);
        the UI thread gathers what the explanation needs first and only emits the result."""
        s = self.state
        assert s.reader is not None and s.thread_id is not None
        thread_id, graph, nodes, notes = s.thread_id, self._graph(), self._nodes(), self.notes()
        later, diff = committed_later(s, checkpoint_id), s.diffs.get(checkpoint_id)

        def read(saver: Any) -> WhyMarks | None:
            ckpt = saver.load(thread_id, checkpoint_id)
            if ckpt is None:
                return None
            pending = [] if later else list(saver.pending_writes(thread_id, checkpoint_id))
            return explain_checkpoint(ckpt, pending, graph, nodes, notes=notes, diff=diff, viewing=viewing)

        try:
            why = await s.reader.call(read)
        except asyncio.CancelledError:
            return
        except Exception:
            log.debug("reading %s for its explanation failed", checkpoint_id, exc_info=True)
            return
        if why is None or (s.viewed_id or s.head_id) not in (checkpoint_id, None):
            return
        self.emit(why)


def explain_checkpoint(ckpt: Any, pending: list[Any], graph: Any, nodes: list[str], *, notes: dict[str, str],
                       diff: Any, viewing: bool) -> WhyMarks:
    """The WhyMarks of a checkpoint read back: the superstep it plans (with the `pending`
    writes of the tasks that finished, [] once that superstep has committed), and the
    merges of `diff` (its StepDiff, when known). Pure: run on any thread."""
    step = explain_plan(step=ckpt.step + 1, snapshot_id=ckpt.id, tasks=ckpt.tasks, barriers=ckpt.barriers,
                        graph=graph)
    if pending:
        step = with_pending(step, pending, graph)
    last = None
    if diff is not None:
        last = Superstep(step=ckpt.step, snapshot_id=ckpt.parent_id or "", tasks=(),
                         merges=merges_of([r for r in diff.rows if not r.dropped], graph))
    return why_marks(step if ckpt.tasks else None, graph, nodes, last=last, viewing=viewing, notes=notes)


def committed_later(state: SessionState, checkpoint_id: str) -> bool:
    """Whether the superstep planned at `checkpoint_id` has since committed: a child made by
    the loop holds its writes. The writes stay stored with the old checkpoint, but its tasks
    are no longer pending, so they get no "✓ pending" mark."""
    history = state.history
    return any((row := history.get(child)) is not None and row.source == "loop"
               for child in history.children(checkpoint_id))


def with_pending(step: Superstep, pending: list[Any], graph: Any) -> Superstep:
    """`step` with the pending writes saved for its checkpoint (tasks that finished).

    One pass over the writes and one `add_finished` for all the tasks, so selecting a
    checkpoint of a 300-wide superstep grows with its writes, not with their square."""
    names = {t.task_id: t.node for t in step.tasks}
    by_task: dict[str, list[tuple[str, Any]]] = {}
    stopped: set[str] = set()  # tasks that saved an interrupt or an error
    for w in pending:
        if w.task_id in names:
            writes = by_task.setdefault(w.task_id, [])
            if w.channel in (INTERRUPT, ERROR):
                stopped.add(w.task_id)
            if w.channel not in _HIDDEN:
                writes.append((w.channel, w.value))
    finished = [(task_id, names[task_id], writes) for task_id, writes in by_task.items()
                if writes or task_id not in stopped]
    return add_finished(step, finished, graph)
